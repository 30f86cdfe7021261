//! Running a policy's `[[test]]` cases.

use crate::call::{Call, CallError};
use crate::decision::Decision;
use crate::engine::Context;
use crate::file::TestCase;
use crate::policy::Policy;

/// The result of one `[[test]]` case.
#[derive(Debug, Clone)]
pub struct TestOutcome {
    /// The case.
    pub case: TestCase,
    /// The decision, or why the call could not be read.
    pub got: Result<Decision, CallError>,
    /// What differed from the expectation; empty when the case passed.
    pub failures: Vec<String>,
}

impl TestOutcome {
    /// True when the decision met every expectation.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

impl Policy {
    /// Runs every `[[test]]` case of the policy.
    pub fn run_tests(&self) -> Vec<TestOutcome> {
        self.tests
            .iter()
            .map(|case| {
                let call = match Call::from_value(&case.call) {
                    Ok(c) => c,
                    Err(e) => {
                        return TestOutcome {
                            case: case.clone(),
                            got: Err(e.clone()),
                            failures: vec![format!("the test's call cannot be read: {e}")],
                        };
                    }
                };
                let d = self.decide_in(
                    &call,
                    &Context {
                        mode: case.mode,
                        ..Context::default()
                    },
                );
                let mut failures = Vec::new();
                if d.decision != case.expect {
                    failures.push(format!("expected {}, got {}", case.expect, d.decision));
                }
                if let Some(rule) = &case.rule
                    && d.rule.as_deref() != Some(rule.as_str())
                {
                    failures.push(format!(
                        "expected rule `{rule}`, got {}",
                        d.rule
                            .as_deref()
                            .map(|r| format!("`{r}`"))
                            .unwrap_or_else(|| "the default".into())
                    ));
                }
                if let Some(hard) = case.hard
                    && d.hard != hard
                {
                    failures.push(format!("expected hard = {hard}, got {}", d.hard));
                }
                TestOutcome {
                    case: case.clone(),
                    got: Ok(d),
                    failures,
                }
            })
            .collect()
    }
}
