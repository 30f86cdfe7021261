//! The four engines decide the benchmark's calls alike, and as the rules
//! intend; and a disagreement is reported, not passed over.

use toolgate_compare::engines::{cedar::Cedar, linear::Linear, rego::Rego, toolgate::Toolgate};
use toolgate_compare::{BenchCall, Engine, Workspace, calls, check_agreement, rules};
use toolgate_policy::Effect;

fn agree_at(n: usize) {
    let ws = Workspace::new().unwrap();
    let rules = rules::generate(n);
    let calls = calls::calls(n, &ws).unwrap();
    let root = ws.root.to_str().unwrap();
    let toolgate = Toolgate::new(&rules, &ws).unwrap();
    let cedar = Cedar::new(&rules, root).unwrap();
    let rego = Rego::new(&rules, root).unwrap();
    let linear = Linear::new(&rules, root).unwrap();
    check_agreement(&[&toolgate, &cedar, &rego, &linear], &calls).unwrap();
    for effect in [Effect::Allow, Effect::Ask, Effect::Deny] {
        assert!(
            calls.iter().any(|c| c.expect == effect),
            "no call expects {effect} at {n} rules"
        );
    }
}

#[test]
fn engines_agree_on_10_rules() {
    agree_at(10);
}

#[test]
fn engines_agree_on_1000_rules() {
    agree_at(1_000);
}

struct AlwaysAllow;

impl Engine for AlwaysAllow {
    fn name(&self) -> &'static str {
        "always-allow"
    }
    fn decide(&self, _: &BenchCall) -> Effect {
        Effect::Allow
    }
}

#[test]
fn a_disagreement_names_the_call_and_every_answer() {
    let ws = Workspace::new().unwrap();
    let rules = rules::generate(10);
    let calls = calls::calls(10, &ws).unwrap();
    let linear = Linear::new(&rules, ws.root.to_str().unwrap()).unwrap();
    let diff = check_agreement(&[&linear, &AlwaysAllow], &calls).unwrap_err();
    assert!(
        diff.contains("read data/d0/private7.csv (expected deny): linear=deny always-allow=allow"),
        "{diff}"
    );
}
