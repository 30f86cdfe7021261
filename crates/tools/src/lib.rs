/*!
toolgate's own tools — `read_file`, `write_file`, `list_dir`, `run_shell`,
`fetch_url` — as plain functions that run a call *after* the policy allowed
it.

The policy engine checks paths, commands and URLs when it decides. These
executors confine again when they act, because the file system can change in
between (a symlink swapped in after the decision) and because rules are a
seatbelt while the operating system is the boundary (README, "Sandbox"):

- the file tools open every path beneath a root's directory descriptor with
  `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`, so `..`, absolute
  symlinks and symlinks swapped in mid-call never lead outside (see
  [`Workspace`]);
- `run_shell` runs `bash -c` inside `toolgate-sandbox`'s boundary, the same
  code as `toolgate sandbox`: writes only inside the roots and a private temp
  dir, the policy's denied paths masked, protected paths read-only, the
  network only when allowed, and it refuses to run where the kernel cannot
  enforce that unless the user opted out (see [`ShellOptions`]);
- `fetch_url` never follows a redirect, since the policy judged this URL and
  not the next one.

Linux only (5.6 for `openat2`; Landlock ABI 4, Linux 6.7, for the full shell
sandbox).

# Example: read, write and list inside a workspace

```
use toolgate_tools::{Limits, Workspace, list_dir, read_file, write_file};

let dir = tempfile::tempdir()?;
let ws = Workspace::open(&[dir.path().to_path_buf()], &[])?;
let limits = Limits::default();

let report = write_file(&ws, "notes/todo.txt", "ship it\n", None, &limits)?;
assert!(report.created);
let text = read_file(&ws, "notes/todo.txt", None, &limits)?;
assert_eq!(text.body.as_text(), Some("ship it\n"));
let listing = list_dir(&ws, "notes", None, &limits)?;
assert_eq!(listing.to_string(), "todo.txt\n");

// Outside the roots, whatever the path looks like:
assert!(read_file(&ws, "../../etc/passwd", None, &limits).is_err());
assert!(read_file(&ws, "/etc/passwd", None, &limits).is_err());
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Example: a shell command

```no_run
use toolgate_tools::{ShellOptions, Workspace, run_shell};

let ws = Workspace::open(&["/path/to/project".into()], &[])?;
let out = run_shell(&ws, "cargo test 2>&1 | tail -5", &ShellOptions::default())?;
// The text for the model: output, then how it ended.
println!("{out}");
# Ok::<(), toolgate_tools::ToolError>(())
```

# Errors

Every function returns [`ToolError`], whose message is a lowercase sentence
naming the path, command or URL, written to be handed to the model as is.
A command that exits non-zero, or an HTTP 404, is not an error: it is a
result that says so.
*/
#![deny(missing_docs)]

mod confine;
mod content;
mod error;
mod executors;
mod fetch;
mod fs;
mod shell;
mod supervise;

pub use confine::Workspace;
pub use content::Body;
pub use error::ToolError;
pub use executors::{BuiltinOptions, BuiltinTools, executors};
pub use fetch::{AddrCheck, AddrCheckFn, AddrRefused, FetchOptions, FetchOutput, fetch_url};
pub use fs::{
    DirEntry, DirListing, EntryKind, FileText, Limits, WriteReport, list_dir, read_file, write_file,
};
pub use shell::{Exit, SandboxStatus, ShellOptions, ShellOutput, run_shell};
