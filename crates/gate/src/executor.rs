//! Tools as the gate runs them.

use toolgate_policy::Call;

/// What a tool produced, for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The text handed to the model.
    pub content: String,
    /// The tool ran and reported an error (outcome `failed`): being
    /// allowed is not the same as succeeding.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful output.
    pub fn ok(content: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: content.into(),
            is_error: false,
        }
    }

    /// A tool error.
    pub fn error(content: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: content.into(),
            is_error: true,
        }
    }
}

/// A tool behind the gate.
///
/// It receives the snapshot that was decided (and approved), never the
/// caller's object, and is only called for a call whose decision allows it.
pub trait Executor: Send + Sync {
    /// Runs the call.
    fn execute(&self, call: &Call) -> ToolOutput;
}

impl<F> Executor for F
where
    F: Fn(&Call) -> ToolOutput + Send + Sync,
{
    fn execute(&self, call: &Call) -> ToolOutput {
        self(call)
    }
}
