//! Why a command could not be started inside the sandbox.

use std::io;

/// A part of the sandbox, as `toolgate sandbox --check` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Landlock on the file system: writes only inside the roots and the
    /// private temp dir.
    LandlockFs,
    /// Landlock on TCP: no connect or bind unless the network is allowed.
    LandlockNet,
    /// User and mount namespaces: masks over denied paths, read-only binds
    /// over protected ones.
    Namespaces,
    /// seccomp: no UDP or other non-Unix sockets unless the network is
    /// allowed, no mount calls.
    Seccomp,
    /// `PR_SET_NO_NEW_PRIVS`.
    NoNewPrivs,
}

impl Part {
    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Part::LandlockFs => "landlock (file system)",
            Part::LandlockNet => "landlock (network)",
            Part::Namespaces => "user and mount namespaces",
            Part::Seccomp => "seccomp",
            Part::NoNewPrivs => "no_new_privs",
        }
    }
}

/// Errors of preparing or entering the sandbox.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The kernel cannot enforce a part of the sandbox, so nothing ran.
    #[error("the sandbox cannot be enforced: {}: {reason}", part.name())]
    Unsupported {
        /// Which part.
        part: Part,
        /// Why, in words.
        reason: String,
    },
    /// A directory `[sandbox] writable` grants resolves, now, to one the
    /// sandbox keeps (a symlink changed since the policy was loaded), or
    /// cannot be made: the message names the entry's file and line.
    #[error("{0}")]
    Writable(#[from] toolgate_policy::WritableNowError),
    /// Setting up the sandbox failed in the child before the command ran.
    #[error("could not enter the sandbox: {step}: {source}")]
    Enter {
        /// The step that failed.
        step: &'static str,
        /// The system's error.
        source: io::Error,
    },
    /// Looking at the workspace failed (walking the roots, the temp dir).
    #[error("{what}: {source}")]
    Io {
        /// What was being done, naming the path.
        what: String,
        /// The system's error.
        source: io::Error,
    },
    /// The walk of the roots found more entries than it may look at, so the
    /// masks would be incomplete.
    #[error(
        "more than {limit} entries lie beneath the roots and the denied paths' directories, too many to find every denied path; narrow the roots"
    )]
    TooManyEntries {
        /// The bound.
        limit: usize,
    },
    /// The command cannot be written as a shell command line.
    #[error("the command contains a NUL byte, which no shell word can hold")]
    NulByte,
}
