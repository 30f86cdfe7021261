//! A fetch decided again with the addresses its host resolved to.

use std::net::IpAddr;

use serde_json::json;
use toolgate_policy::{Call, Context, Effect, LoadOptions, Policy};

fn policy(text: &str) -> (tempfile::TempDir, Policy) {
    let dir = tempfile::tempdir().unwrap();
    let p = Policy::from_toml(
        text,
        &dir.path().join("toolgate.toml"),
        &LoadOptions::default(),
    )
    .unwrap();
    (dir, p)
}

fn fetch(url: &str) -> Call {
    Call::new("fetch_url", json!({ "url": url }))
}

fn ips(list: &[&str]) -> Vec<IpAddr> {
    list.iter().map(|a| a.parse().unwrap()).collect()
}

const RULES: &str = r#"
allow = ["WebFetch"]
ask = ["WebFetch(ip:192.168.0.0/16)"]
deny = ["WebFetch(ip:127.0.0.0/8)", "WebFetch(domain:169.254.169.254)", "WebFetch(ip:[fd00::]/8)"]
"#;

#[test]
fn a_name_resolving_to_a_denied_block_is_denied_where_it_connects() {
    let (_d, p) = policy(RULES);
    let call = fetch("http://localhost:8080/");
    assert_eq!(p.decide(&call).decision, Effect::Allow);
    let ctx = Context::default();
    let d = p.decide_connection(&call, "localhost", &ips(&["127.0.0.1"]), &ctx);
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Deny, Some("deny[0]"))
    );
    let err = p
        .check_connection(&call, "localhost", &ips(&["127.0.0.1"]), &ctx)
        .unwrap_err();
    assert_eq!(err.rule.as_deref(), Some("deny[0]"));
}

#[test]
fn a_domain_rule_on_an_address_meets_a_name_resolving_there() {
    let (_d, p) = policy(RULES);
    let call = fetch("http://metadata.example/latest");
    let ctx = Context::default();
    let d = p
        .check_connection(
            &call,
            "metadata.example",
            &ips(&["::ffff:169.254.169.254"]),
            &ctx,
        )
        .unwrap_err();
    assert_eq!(d.rule.as_deref(), Some("deny[1]"));
    let d = p
        .check_connection(
            &call,
            "metadata.example",
            &ips(&["93.184.215.14", "fd00::5"]),
            &ctx,
        )
        .unwrap_err();
    assert_eq!(
        d.rule.as_deref(),
        Some("deny[2]"),
        "one denied address of several is enough"
    );
}

#[test]
fn an_ask_only_the_address_raises_blocks_an_allowed_call() {
    let (_d, p) = policy(RULES);
    let call = fetch("https://printer.example/");
    let ctx = Context::default();
    let d = p
        .check_connection(&call, "printer.example", &ips(&["192.168.1.9"]), &ctx)
        .unwrap_err();
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("ask[0]"))
    );
}

#[test]
fn a_public_address_of_an_allowed_name_connects() {
    let (_d, p) = policy(RULES);
    let call = fetch("https://example.com/");
    let ctx = Context::default();
    assert!(
        p.check_connection(
            &call,
            "example.com",
            &ips(&["93.184.215.14", "2606:2800::1"]),
            &ctx
        )
        .is_ok()
    );
    // An ask the call had already (and someone approved) is not raised again.
    let (_d, p) = policy("ask = [\"WebFetch(domain:example.com)\"]\n[policy]\ndefault = \"ask\"\n");
    let d = p.decide(&call);
    assert_eq!(d.decision, Effect::Ask);
    assert!(
        p.check_connection(&call, "example.com", &ips(&["93.184.215.14"]), &ctx)
            .is_ok()
    );
}
