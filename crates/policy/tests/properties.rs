//! Property tests: no input, however hostile, makes loading or deciding
//! panic, and deciding never turns an error into an allow.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

fn selector() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "Read",
        "Edit",
        "Write",
        "Bash",
        "WebFetch",
        "*",
        "read_file",
        "mcp__a__*",
        "Grep",
        "x(",
    ]);
    let specs = prop::sample::select(vec![
        "",
        "(*)",
        "(.env)",
        "(src/**)",
        "(//etc/**)",
        "(~/x)",
        "(/docs/*)",
        "(git status)",
        "(git diff *)",
        "(ls*)",
        "(domain:a.com)",
        "(domain:*.b.org)",
        "([)",
        "()",
        "(a{b)",
        "(**/*.pem)",
        "(\"quoted)",
    ]);
    (names, specs).prop_map(|(n, s)| format!("{n}{s}"))
}

fn policy_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(selector(), 0..6),
        prop::collection::vec(selector(), 0..6),
        prop::collection::vec(selector(), 0..6),
        prop::sample::select(vec![
            "",
            "default = \"ask\"\n",
            "default = \"deny\"\n",
            "default = \"allow\"\n",
        ]),
        prop::sample::select(vec![
            "",
            "mode = \"plan\"\n",
            "mode = \"bypass\"\n",
            "mode = \"x\"\n",
        ]),
    )
        .prop_map(|(a, b, c, d, m)| {
            format!("[policy]\n{d}{m}allow = {a:?}\nask = {b:?}\ndeny = {c:?}\n")
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[ -~]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "../../etc/passwd",
            "~/.ssh/id_rsa",
            ".env",
            "/",
            "",
            "a\u{0}b",
            "ls && rm -rf /",
            "https://x.internal/"
        ])
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "path",
                    "command",
                    "url",
                    "content",
                    "file_path",
                    "approved",
                    "paths"
                ])
                .prop_map(String::from),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn call_json() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "read_file",
            "write_file",
            "list_dir",
            "run_shell",
            "fetch_url",
            "Read",
            "Bash",
            "Grep",
            "read_many_files",
            "apply_patch",
            "shell",
            "web_fetch",
            "unknown",
            "",
        ]),
        prop::sample::select(vec![
            None,
            Some("claude"),
            Some("gemini"),
            Some("codex"),
            Some("mcp"),
            Some("bogus"),
        ]),
        json_value(),
    )
        .prop_map(|(tool, client, input)| {
            let mut v = json!({"tool": tool, "input": input});
            if let Some(c) = client {
                v["client"] = json!(c);
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn loading_random_policies_never_panics(text in policy_text()) {
        let dir = tempfile::tempdir().unwrap();
        let _ = Policy::from_toml(&text, &dir.path().join("toolgate.toml"), &LoadOptions::default());
    }

    #[test]
    fn loading_random_bytes_never_panics(text in "\\PC{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        let _ = Policy::from_toml(&text, &dir.path().join("toolgate.toml"), &LoadOptions::default());
    }

    #[test]
    fn random_calls_never_panic_and_invalid_input_never_allows(text in policy_text(), call in call_json()) {
        let dir = tempfile::tempdir().unwrap();
        let Ok(policy) = Policy::from_toml(&text, &dir.path().join("toolgate.toml"), &LoadOptions::default()) else {
            return Ok(());
        };
        let Ok(call) = Call::from_value(&call) else { return Ok(()) };
        let d = policy.decide(&call);
        if d.rule.as_deref() == Some("invalid-input") || d.hard {
            prop_assert_eq!(d.decision, Effect::Deny);
        }
        // The call's decision is the strictest of its actions'.
        let strictest = d.actions.iter().map(|a| a.decision).max();
        prop_assert_eq!(Some(d.decision), strictest.or(Some(d.decision)));
        prop_assert!(!d.actions.is_empty());
    }

    #[test]
    fn random_call_text_never_panics(text in "\\PC{0,120}") {
        let _ = Call::parse(&text);
    }
}
