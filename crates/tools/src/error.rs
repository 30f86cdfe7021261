//! The one error type of the tools.
//!
//! Every message is a lowercase sentence that names what the model asked for
//! (the path as it was written, the command, the URL) in backticks, because the
//! message goes back to the model as the tool's result and has to be enough for
//! it to change course without seeing any Rust type.

use std::io;
use std::time::Duration;

/// Why a tool did not do what it was asked.
///
/// The variants separate the refusals of confinement (the target lies outside
/// the roots, a symlink leads out, the sandbox cannot be set up) from ordinary
/// failures (no such file, too large), so that a host can count and report them
/// differently.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The path is malformed: empty, with a NUL byte, `~user`, or a relative
    /// working directory.
    #[error("`{path}` is not a usable path: {reason}")]
    InvalidPath {
        /// The path as written.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The path does not lie under any root that allows this kind of access.
    #[error("`{path}` is outside the {scope}; it was not touched")]
    OutsideRoots {
        /// The path as written.
        path: String,
        /// "workspace roots" for reads, "writable workspace roots" for writes.
        scope: &'static str,
    },
    /// Resolving the path inside its root met `..`, an absolute symlink, a
    /// symlink leading out of the root, or a `/proc` magic link.
    #[error(
        "`{path}` leads outside the workspace root `{root}` (through `..` or a symlink); it was not touched"
    )]
    Escapes {
        /// The path as written.
        path: String,
        /// The root the path was resolved beneath.
        root: String,
    },
    /// No file or directory at the path (or at one of its parents).
    #[error("`{path}` does not exist")]
    NotFound {
        /// The path as written.
        path: String,
    },
    /// The path names something other than what the tool works on.
    #[error("`{path}` is {found}, not {expected}")]
    WrongType {
        /// The path as written.
        path: String,
        /// What is there, with an article: "a directory", "a named pipe (fifo)".
        found: &'static str,
        /// What the tool needs, with an article: "a regular file".
        expected: &'static str,
    },
    /// `write_file` refuses to replace or write through a symlink.
    #[error(
        "`{path}` is a symlink; write_file does not write through or replace symlinks, write to its target's path instead"
    )]
    Symlink {
        /// The path as written.
        path: String,
    },
    /// The file is larger than the tool's limit.
    #[error(
        "`{path}` is {size} bytes, more than the {limit}-byte limit of read_file; read part of it with a shell command such as `head -c` or `sed -n`"
    )]
    FileTooLarge {
        /// The path as written.
        path: String,
        /// The file's size in bytes when it was opened (at least this much).
        size: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The content to write is larger than the limit.
    #[error(
        "the content for `{path}` is {size} bytes, more than the {limit}-byte limit of write_file"
    )]
    ContentTooLarge {
        /// The path as written.
        path: String,
        /// The content's size in bytes.
        size: usize,
        /// The limit in force.
        limit: usize,
    },
    /// A system call failed for another reason.
    #[error("could not {op} `{path}`: {reason}")]
    Io {
        /// What was being done: "read", "create the directory for", ...
        op: &'static str,
        /// The path as written.
        path: String,
        /// The system's reason, as a lowercase phrase.
        reason: String,
    },
    /// The kernel lacks `openat2` (Linux 5.6), without which no path can be
    /// opened confined to its root.
    #[error(
        "this kernel has no openat2 (linux 5.6 or later is needed), so `{path}` cannot be opened confined to the workspace; the file tools refuse to run unconfined"
    )]
    Unconfinable {
        /// The path as written.
        path: String,
    },
    /// A workspace root given to [`Workspace::open`](crate::Workspace::open)
    /// cannot be used.
    #[error("the workspace root `{path}` cannot be used: {reason}")]
    BadRoot {
        /// The root as given.
        path: String,
        /// Why.
        reason: String,
    },
    /// The shell command was not run because the sandbox asked for cannot be
    /// enforced on this kernel (and running unsandboxed was not allowed).
    #[error(
        "the command `{command}` was not run: {reason}; toolgate runs shell commands only inside its sandbox unless the user allows running unsandboxed"
    )]
    SandboxUnavailable {
        /// The command as given.
        command: String,
        /// What the kernel cannot enforce.
        reason: String,
    },
    /// The shell could not be started (or its sandbox could not be entered).
    #[error("the command `{command}` could not be started: {reason}")]
    Spawn {
        /// The command as given.
        command: String,
        /// The system's reason.
        reason: String,
    },
    /// The URL is not one `fetch_url` fetches.
    #[error("`{url}` was not fetched: {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The request did not complete within its time budget.
    #[error("fetching `{url}` timed out after {} s", .after.as_secs_f64())]
    FetchTimeout {
        /// The URL as given.
        url: String,
        /// The budget that ran out (connect or total).
        after: Duration,
    },
    /// The request failed (DNS, connection, TLS, protocol).
    #[error("fetching `{url}` failed: {reason}")]
    Fetch {
        /// The URL as given.
        url: String,
        /// Why, as a lowercase phrase.
        reason: String,
    },
}

/// The system's reason for `e` as a lowercase phrase without the errno
/// number, so that messages read as sentences.
pub(crate) fn reason(e: &io::Error) -> String {
    let text = match e.raw_os_error() {
        Some(libc::ENOENT) => "no such file or directory",
        Some(libc::EACCES) | Some(libc::EPERM) => "permission denied",
        Some(libc::ENOTDIR) => "a component of the path is not a directory",
        Some(libc::EISDIR) => "it is a directory",
        Some(libc::ENOSPC) => "no space left on the device",
        Some(libc::EDQUOT) => "the disk quota is exceeded",
        Some(libc::EROFS) => "the file system is read-only",
        Some(libc::ENAMETOOLONG) => "the name is too long",
        Some(libc::ELOOP) => "too many levels of symlinks",
        Some(libc::EEXIST) => "it already exists",
        Some(libc::ENOTEMPTY) => "the directory is not empty",
        Some(libc::EBUSY) => "the file is busy",
        Some(libc::ETXTBSY) => "the file is a running program",
        Some(libc::EIO) => "an input/output error",
        _ => "",
    };
    if !text.is_empty() {
        return text.to_string();
    }
    let mut s = e.to_string();
    if let Some(cut) = s.find(" (os error") {
        s.truncate(cut);
    }
    lowercase_first(&s)
}

/// `Connection refused` → `connection refused`, leaving acronyms such as
/// `TLS` alone.
pub(crate) fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && !b.is_uppercase() => {
            let mut out: String = a.to_lowercase().collect();
            out.push(b);
            out.push_str(chars.as_str());
            out
        }
        _ => s.to_string(),
    }
}
