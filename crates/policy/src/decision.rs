//! What `decide` returns: the answer, the rule that gave it, and the
//! per-action breakdown behind it.

use serde::Serialize;

use crate::call::Client;
use crate::effect::{Effect, Mode};

/// One thing a call would do, as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Action {
    /// A file read or a directory listed.
    Read {
        /// The resolved path (symlinks followed), or the path as written
        /// when it could not be resolved.
        path: String,
        /// The path as the call or command wrote it.
        written: String,
        /// Covers everything beneath a directory.
        #[serde(skip_serializing_if = "is_false")]
        recursive: bool,
        /// Names, sizes and times only, never the bytes (`ls`, `stat`,
        /// `du`, `tree`, the directories `find` walks): the read roots do
        /// not limit a listing.
        #[serde(default, skip_serializing_if = "is_false")]
        listing: bool,
        /// Only what git tracks is read, from its repository (`git diff`,
        /// `git log -p`, `git grep`): beneath the path, or in the whole
        /// repository holding it.
        #[serde(skip_serializing_if = "Option::is_none")]
        tracked: Option<Tracked>,
    },
    /// A file created, changed or removed.
    Write {
        /// The resolved path.
        path: String,
        /// The path as written.
        written: String,
        /// Covers everything beneath a directory.
        #[serde(skip_serializing_if = "is_false")]
        recursive: bool,
        /// Removes the target.
        #[serde(skip_serializing_if = "is_false")]
        delete: bool,
        /// Every file git tracks in the repository holding the path may
        /// be overwritten or removed with another commit's content (a
        /// branch switch, `reset --hard`, `stash pop`, `merge`:
        /// `repository`), or the work tree's files git stores are removed
        /// (`stash -u`: `work-tree`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tracked: Option<Tracked>,
    },
    /// One simple command of a shell command, wrappers stripped.
    Exec {
        /// The argv that runs.
        argv: Vec<String>,
        /// The command's source text.
        command: String,
        /// The wrappers stripped to reach `argv`, outermost first, each as
        /// its own argv (`["timeout", "5"]`, `["bash", "-c"]`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        wrappers: Vec<Vec<String>>,
        /// Where it runs when an earlier part of the same command changed
        /// the directory (`cd sub && ./run.sh`); absent for the call's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// A URL fetched.
    Fetch {
        /// The URL.
        url: String,
    },
    /// A tool matched by name only.
    Tool {
        /// The tool's name.
        name: String,
        /// The declared field's value, when there is one.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
    /// A part of a shell command that could not be analysed.
    Unknown {
        /// What could not be analysed, and why.
        reason: String,
    },
    /// A catastrophic command shape (docs/policy.md, "Hard limits").
    Hazard {
        /// Its stable name (`privilege`, `rm-root`, ...).
        hazard: String,
        /// Why.
        reason: String,
    },
    /// The call's input does not fit the tool's schema.
    Invalid {
        /// The first problem found.
        reason: String,
    },
}

/// Which of the files git tracks a read of them reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tracked {
    /// Those beneath the path.
    Beneath,
    /// Every one in the repository holding the path.
    Repository,
    /// The untracked files of the work tree holding the path, which git
    /// may store (`git add -A`, `git stash -u`).
    #[serde(rename = "work-tree")]
    WorkTree,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Action {
    /// A short human description: "read `/w/.env`", "command `git status`".
    pub fn describe(&self) -> String {
        match self {
            Action::Read {
                path,
                recursive,
                listing,
                tracked,
                ..
            } => {
                if let Some(t) = tracked {
                    match t {
                        Tracked::Beneath => format!("read of what git tracks at `{path}`"),
                        Tracked::Repository => {
                            format!("read of what git tracks in the repository holding `{path}`")
                        }
                        Tracked::WorkTree => format!(
                            "read of the work tree of the repository holding `{path}`, as git stores it"
                        ),
                    }
                } else if *recursive {
                    format!("read of `{path}` and everything beneath it")
                } else if *listing {
                    format!("listing of `{path}`")
                } else {
                    format!("read of `{path}`")
                }
            }
            Action::Write {
                path,
                tracked: Some(Tracked::WorkTree),
                ..
            } => format!(
                "removal from the work tree of the repository holding `{path}` of what git stores (`stash -u`)"
            ),
            Action::Write {
                path,
                tracked: Some(_),
                ..
            } => format!(
                "rewrite of what git tracks in the repository holding `{path}` (from another commit, the index or a stash)"
            ),
            Action::Write {
                path,
                delete,
                recursive,
                ..
            } => match (delete, recursive) {
                (true, true) => format!("removal of `{path}` and everything beneath it"),
                (true, false) => format!("removal of `{path}`"),
                (false, true) => format!("write of `{path}` and everything beneath it"),
                (false, false) => format!("write of `{path}`"),
            },
            Action::Exec { command, .. } => format!("command `{command}`"),
            Action::Fetch { url } => format!("fetch of `{url}`"),
            Action::Tool { name, .. } => format!("tool `{name}`"),
            Action::Unknown { reason } => format!("unanalysable part ({reason})"),
            Action::Hazard { reason, .. } => reason.clone(),
            Action::Invalid { reason } => format!("invalid input ({reason})"),
        }
    }
}

/// The decision on one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionDecision {
    /// The action.
    pub action: Action,
    /// Its decision.
    pub decision: Effect,
    /// The rule that decided it (`null`: the policy's default).
    pub rule: Option<String>,
    /// From a hard limit: nothing lifts it.
    pub hard: bool,
    /// Why, in one sentence.
    pub reason: String,
    /// How the action arose, when not directly from the tool's target:
    /// `redirect`, or `operand of <command>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Every rule that matched, strictest first (filled when tracing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<Matched>,
    /// No grant, mode or approval shortcut may lift this ask (a protected
    /// path, an unanalysable command).
    #[serde(skip)]
    pub sticky: bool,
}

/// A rule that matched an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Matched {
    /// The rule's id.
    pub rule: String,
    /// Its effect.
    pub effect: Effect,
    /// The selector as written.
    pub selector: String,
}

/// The answer for one call.
///
/// Deciding cannot fail: everything that went wrong is inside, and always
/// pushes the answer toward deny or ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The call's id.
    pub id: String,
    /// allow, ask or deny.
    pub decision: Effect,
    /// Why, in one sentence.
    pub reason: String,
    /// The id of the rule that decided (`null` for the default; `hard:..`
    /// for a hard limit).
    pub rule: Option<String>,
    /// True when a hard limit decided: no rule, mode or approval lifts it.
    pub hard: bool,
    /// The tool's name.
    pub tool: String,
    /// The client whose catalog the tool was looked up in.
    pub client: Client,
    /// The mode the decision was made in.
    pub mode: Mode,
    /// The SHA-256 of the call's canonical JSON, which an approval binds
    /// to; filled by hosts that snapshot the call (`Decision::with_digest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The approver may offer "allow for this session".
    pub remember: bool,
    /// The rules a session grant would cover (when `remember`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grant_rules: Vec<String>,
    /// The decision on each action, in order.
    pub actions: Vec<ActionDecision>,
}

impl Decision {
    /// Attaches the digest of the call that was decided.
    pub fn with_digest(mut self, digest: String) -> Decision {
        self.digest = Some(digest);
        self
    }
}
