//! Approvers: who answers an `ask`, and how (docs/policy.md, "Approvals").
//!
//! Only an explicit yes allows. Every approver returns an [`Answer`]; the
//! gate runs the call only for `Approve` or `Session`. A decline, no answer,
//! an answer that is not one of those, an error or a panic inside the
//! approver: the call does not run.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};

use toolgate_policy::Call;
use toolgate_store::shown;

/// What the approver is shown: a copy of the snapshot and why it asks.
///
/// The approver owns this copy and may do what it likes with it; the gate
/// runs its own snapshot, whose digest is `digest`.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// A copy of the call to approve.
    pub call: Call,
    /// The SHA-256 of the snapshot's canonical JSON.
    pub digest: String,
    /// Why the policy asks.
    pub reason: String,
    /// The rule that asked (`None`: the policy's default).
    pub rule: Option<String>,
    /// "Allow for this session" may be offered.
    pub remember: bool,
    /// The session the call belongs to.
    pub session: String,
}

/// Characters of file content shown before the preview is cut.
pub const PREVIEW_CHARS: usize = 400;

impl ApprovalRequest {
    /// The question in one line: tool, target, call id, short digest, each
    /// escaped for a person ([`shown::line`]).
    pub fn question(&self) -> String {
        format!(
            "{} {} (call {}, digest {})?",
            shown::line(&self.call.tool),
            shown::line(&self.target()),
            shown::line(&self.call.id),
            shown::line(self.digest.get(..12).unwrap_or(&self.digest))
        )
    }

    fn target(&self) -> String {
        let input = &self.call.input;
        for key in [
            "command",
            "file_path",
            "path",
            "absolute_path",
            "url",
            "notebook_path",
        ] {
            if let Some(v) = input.get(key) {
                return match v.as_str() {
                    Some(s) => format!("`{s}`"),
                    None => format!("`{v}`"),
                };
            }
        }
        format!("`{}`", serde_json::Value::Object(input.clone()))
    }

    /// Everything a person needs to answer: the tool, call id, digest, the
    /// reason, and the real arguments — the whole shell command, the path of
    /// a write with a preview of its content cut at ~400 characters plus the
    /// total length. Every value is escaped for a person ([`shown::line`];
    /// a preview line by line): a control or bidi character in the call is
    /// shown, never acted on.
    pub fn details(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("tool:    {}\n", shown::line(&self.call.tool)));
        s.push_str(&format!("call:    {}\n", shown::line(&self.call.id)));
        s.push_str(&format!(
            "digest:  {}\n",
            shown::line(self.digest.get(..16).unwrap_or(&self.digest))
        ));
        s.push_str(&format!("reason:  {}\n", shown::line(&self.reason)));
        for (k, v) in &self.call.input {
            let k = shown::line(k);
            match v.as_str() {
                Some(text) if k == "content" || k == "new_string" => {
                    let total = text.chars().count();
                    let preview: String = text.chars().take(PREVIEW_CHARS).collect();
                    s.push_str(&format!("{k}: ({total} characters)\n"));
                    // Split on newlines only: `str::lines` would also take
                    // a `\r` away unseen.
                    for line in preview.split_terminator('\n') {
                        s.push_str(&format!("  | {}\n", shown::line(line)));
                    }
                    if total > PREVIEW_CHARS {
                        s.push_str(&format!(
                            "  … cut: {} more characters not shown\n",
                            total - PREVIEW_CHARS
                        ));
                    }
                }
                Some(text) => s.push_str(&format!("{k}: {}\n", shown::line(text))),
                None => s.push_str(&format!("{k}: {}\n", shown::json(v))),
            }
        }
        s
    }
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Yes, this once.
    Approve,
    /// Yes, and for the rest of the session where the rule allows it
    /// (otherwise it counts as once).
    Session,
    /// No, with an optional note for the model.
    Decline {
        /// Shown to the model.
        note: Option<String>,
    },
    /// No answer yet: the call waits in the queue.
    Unanswered,
    /// Something that is not an answer (an unrecognised reply): not an
    /// approval.
    Other(String),
    /// The host asks the person itself (Claude Code's own permission
    /// prompt): the gate hands the call over and never learns the answer.
    /// Only the host-executes path ([`Gate::pass`]) can do this; for a call
    /// toolgate runs itself it is not an approval.
    ///
    /// [`Gate::pass`]: crate::Gate::pass
    Host,
    /// No person can be asked here (Gemini CLI's hook without a queue):
    /// refused, with `why` telling how such calls can be allowed.
    Unavailable {
        /// Shown to the model beside the reason.
        why: String,
    },
}

/// Why an approver could not answer. Each approver fails in its own way
/// (a terminal, an MCP client, a web page), so the error is its own,
/// boxed; the gate only shows it, and the ask is not approved.
pub type AskError = Box<dyn std::error::Error + Send + Sync>;

/// Answers `ask`s.
pub trait Approver: Send {
    /// Answers one request. An `Err` is not an approval.
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, AskError>;

    /// After an [`Answer::Unanswered`], how long the gate waits for a
    /// person to answer the queued call, and how often it looks. Zero: the
    /// call returns at once as waiting.
    fn patience(&self) -> Patience {
        Patience::default()
    }
}

/// How long a queued call waits for its answer (see [`Approver::patience`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// How long to wait before the call is refused as still pending.
    pub wait: std::time::Duration,
    /// How often the queue is looked at meanwhile.
    pub poll: std::time::Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            wait: std::time::Duration::ZERO,
            poll: std::time::Duration::from_millis(200),
        }
    }
}

/// The host asks the person itself: every ask is handed over
/// ([`Answer::Host`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct HostApprover;

impl Approver for HostApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(Answer::Host)
    }
}

/// No one can be asked where the host runs: every ask is refused with the
/// same explanation ([`Answer::Unavailable`]).
#[derive(Debug, Clone, Default)]
pub struct UnavailableApprover {
    /// Why, and how such calls can be allowed instead.
    pub why: String,
}

impl Approver for UnavailableApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(Answer::Unavailable {
            why: self.why.clone(),
        })
    }
}

/// Declines everything: for CI and scripts, where no one can answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverApprover;

impl Approver for NeverApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(Answer::Decline {
            note: Some(
                "no one can approve here (non-interactive): the approver declines every ask".into(),
            ),
        })
    }
}

/// One fixed answer, consumed by the first ask; later asks are declined.
#[derive(Debug, Clone, Default)]
pub struct FixedApprover {
    answer: Option<Answer>,
}

impl FixedApprover {
    /// `--decision allow` is `FixedApprover::new(Answer::Approve)`.
    pub fn new(answer: Answer) -> FixedApprover {
        FixedApprover {
            answer: Some(answer),
        }
    }
}

impl Approver for FixedApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(self.answer.take().unwrap_or(Answer::Decline {
            note: Some("the one fixed answer was already used".into()),
        }))
    }
}

/// Leaves every ask unanswered: the gate stores it as a pending approval,
/// answered later with `toolgate approvals approve|decline ID` or on the
/// approval page. The call returns at once as waiting.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueueApprover;

impl Approver for QueueApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(Answer::Unanswered)
    }
}

/// Like [`QueueApprover`], but the gate then waits up to `wait` for a
/// person's answer: an approval given in time lets the call run, a decline
/// refuses it, and no answer refuses it while it stays queued.
#[derive(Debug, Clone, Copy, Default)]
pub struct WaitingApprover(pub Patience);

impl Approver for WaitingApprover {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        Ok(Answer::Unanswered)
    }

    fn patience(&self) -> Patience {
        self.0
    }
}

/// Why the terminal could not be asked (it went away mid-question).
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// The question could not be written.
    #[error("cannot write to the terminal: {0}")]
    Write(#[source] std::io::Error),
    /// The answer could not be read.
    #[error("cannot read from the terminal: {0}")]
    Read(#[source] std::io::Error),
}

/// Asks the person at the terminal, through `/dev/tty` (not standard input,
/// which may be a pipe the agent controls).
///
/// `y` approves once, `a` for the session (where offered), `n` declines,
/// optionally with a note (`n too risky`). End of input, no terminal, or
/// anything else: not approved.
pub struct TerminalApprover {
    io: Option<(Box<dyn BufRead + Send>, Box<dyn Write + Send>)>,
}

impl Default for TerminalApprover {
    fn default() -> Self {
        TerminalApprover::new()
    }
}

impl TerminalApprover {
    /// Opens `/dev/tty` at each ask.
    pub fn new() -> TerminalApprover {
        TerminalApprover { io: None }
    }

    /// Reads answers from `input` and writes questions to `output` instead of
    /// `/dev/tty`.
    pub fn with_io(
        input: impl Read + Send + 'static,
        output: impl Write + Send + 'static,
    ) -> TerminalApprover {
        TerminalApprover {
            io: Some((Box::new(BufReader::new(input)), Box::new(output))),
        }
    }

    /// Parses a typed answer.
    pub fn parse(line: &str, remember: bool) -> Answer {
        let t = line.trim();
        let (word, rest) = match t.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (t, ""),
        };
        match word.to_ascii_lowercase().as_str() {
            "y" | "yes" if rest.is_empty() => Answer::Approve,
            "a" | "always" if rest.is_empty() && remember => Answer::Session,
            "n" | "no" => Answer::Decline {
                note: (!rest.is_empty()).then(|| rest.trim_start_matches(':').trim().to_string()),
            },
            _ => Answer::Other(t.to_string()),
        }
    }

    fn converse(
        input: &mut dyn BufRead,
        output: &mut dyn Write,
        req: &ApprovalRequest,
    ) -> Result<Answer, TerminalError> {
        let choices = if req.remember {
            "[y] yes once  [a] yes for this session  [n] no (n <note> to say why)"
        } else {
            "[y] yes once  [n] no (n <note> to say why)"
        };
        let text = format!(
            "\ntoolgate: approve this call?\n{}{choices}\n> ",
            req.details()
        );
        output
            .write_all(text.as_bytes())
            .and_then(|_| output.flush())
            .map_err(TerminalError::Write)?;
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) => Ok(Answer::Decline {
                note: Some("no answer (end of input)".into()),
            }),
            Ok(_) => Ok(TerminalApprover::parse(&line, req.remember)),
            Err(e) => Err(TerminalError::Read(e)),
        }
    }
}

impl Approver for TerminalApprover {
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        if let Some((input, output)) = &mut self.io {
            return Ok(TerminalApprover::converse(
                input.as_mut(),
                output.as_mut(),
                req,
            )?);
        }
        let tty = OpenOptions::new().read(true).write(true).open("/dev/tty");
        let Ok(tty) = tty else {
            return Ok(Answer::Decline {
                note: Some("non-interactive: no terminal to ask".into()),
            });
        };
        let Ok(out) = tty.try_clone() else {
            return Ok(Answer::Decline {
                note: Some("non-interactive: no terminal to ask".into()),
            });
        };
        let mut input = BufReader::new(tty);
        let mut output = out;
        Ok(TerminalApprover::converse(&mut input, &mut output, req)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_y_and_a_approve() {
        assert_eq!(TerminalApprover::parse("y\n", false), Answer::Approve);
        assert_eq!(TerminalApprover::parse(" YES ", false), Answer::Approve);
        assert_eq!(TerminalApprover::parse("a", true), Answer::Session);
        assert!(matches!(
            TerminalApprover::parse("a", false),
            Answer::Other(_)
        ));
        assert!(matches!(
            TerminalApprover::parse("yep", false),
            Answer::Other(_)
        ));
        assert!(matches!(
            TerminalApprover::parse("y please", false),
            Answer::Other(_)
        ));
        assert!(matches!(
            TerminalApprover::parse("", false),
            Answer::Other(_)
        ));
        assert_eq!(
            TerminalApprover::parse("n too risky", false),
            Answer::Decline {
                note: Some("too risky".into())
            }
        );
        assert_eq!(
            TerminalApprover::parse("no", false),
            Answer::Decline { note: None }
        );
    }
}
