//! The per-call trace `toolgate agent` writes to standard error, so that
//! standard output carries only the model's final answer.
//!
//! Everything in it comes from the model or quotes it, and a terminal
//! acts on escape sequences: every value is escaped for a person
//! (`toolgate_store::shown`), so a model cannot make a call look like
//! another or rewrite earlier lines.

use std::io::Write;

use toolgate_policy::Effect;
use toolgate_store::shown;

use crate::run::{Handling, Observer, Step};

/// Arguments longer than this are cut in the trace (not in the call).
const ARGS_SHOWN: usize = 160;

/// Writes one line per call: what was asked, the decision and its rule,
/// the approver's answer when one was asked, and the outcome.
pub struct Trace<W: Write> {
    out: W,
}

impl<W: Write> Trace<W> {
    /// A trace written to `out`.
    pub fn new(out: W) -> Trace<W> {
        Trace { out }
    }
}

/// `text` cut to `max` characters, marked when cut.
/// `text` cut to `max` characters, with an ellipsis when cut: what the
/// trace and the demo show of long arguments and outputs.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max).collect();
    s.push('…');
    s
}

/// One line describing what became of a call.
pub fn describe_step(step: &Step) -> String {
    let call = format!(
        "call {} {} {}",
        step.number,
        shown::line(&step.call.name),
        shown::line(&cut(&step.call.arguments.to_json_string(), ARGS_SHOWN))
    );
    match &step.handling {
        Handling::Gate(r) => {
            let d = &r.decision;
            let rule = d.rule.as_deref().unwrap_or("default");
            let mut s = format!("{call}: {} [{rule}]", d.decision.as_str());
            if d.decision != Effect::Allow {
                s.push_str(&format!(" ({})", shown::line(&d.reason)));
            }
            if let Some(a) = &r.approval {
                s.push_str(&format!(", approver: {}", a.answer));
                if let Some(n) = &a.note {
                    s.push_str(&format!(" ({})", shown::line(n)));
                }
            }
            s.push_str(&format!(" -> {}", step.outcome));
            s
        }
        Handling::InvalidArguments { error } => {
            format!(
                "{call}: refused, {} -> blocked (nothing ran)",
                shown::line(error)
            )
        }
        Handling::OverBudget { max_calls } => {
            format!("{call}: over the budget of {max_calls} call(s) -> not submitted")
        }
        Handling::AfterStop => format!("{call}: the run is stopping -> not submitted"),
    }
}

impl<W: Write> Observer for Trace<W> {
    fn text(&mut self, text: &str) {
        // A trace line that cannot be written is not worth stopping for.
        let _ = writeln!(self.out, "model: {}", shown::block(text.trim()));
    }

    fn step(&mut self, step: &Step) {
        let _ = writeln!(self.out, "toolgate: {}", describe_step(step));
    }

    fn warning(&mut self, message: &str) {
        let _ = writeln!(self.out, "toolgate: warning: {}", shown::line(message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_words_reach_the_terminal_escaped() {
        let mut out = Vec::new();
        let mut trace = Trace::new(&mut out);
        trace.text("done\x1b[2K\rall good\u{202e}");
        trace.warning("bad\x1b]0;title\x07");
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && shown::is_hidden(c)),
            "{text:?}"
        );
        assert!(
            text.contains("done") && text.contains("all good"),
            "{text:?}"
        );
    }
}
