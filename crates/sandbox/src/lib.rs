/*!
The OS boundary around every command toolgate lets run (DESIGN principle 8:
rules are a seatbelt, the operating system is the boundary).

A [`Profile`] says what a policy's boundary is; a [`Sandbox`] is that
boundary prepared for one command, against what exists when it starts:

| what | how |
| --- | --- |
| writes only inside the roots and a private temp dir | Landlock (the `landlock` module) |
| every path a Read rule denies unreadable, by every program | an empty read-only file or directory bound over it, in a private mount namespace inside a user namespace; other names of the same inode found in the walk masked too ([`Plan`]) |
| protected paths (`.claude`, `.git/config`, `.git/hooks`, ...), paths an Edit or Write rule denies, the policy file and the state directory read-only, against rename and replace-by-symlink too | bound read-only over themselves; a mount point cannot be renamed or replaced |
| git's own data in `.git` writable, the names that make git run a program or read elsewhere (`config`, `hooks`, `commondir`, ...) not, even when absent | placeholders made for absent names, each bound over itself; `.git` bound over itself writable (the `git` module) |
| no network unless a rule allows fetches | Landlock for TCP, seccomp for every socket family but `AF_UNIX` |
| with fetches allowed, only the hosts the policy allows, through toolgate's proxy | a network namespace of the command's own, whose only way out is the proxy's listener on its loopback (`netns`); the proxy outside decides each connection as `fetch_url` does (`proxy`) |
| `/tmp`, `/var/tmp`, `/dev/shm` the command's own (what the roots need there put back) | the private temp dir bound over `/tmp`, empty memory file systems over the others |
| with the network closed, no Unix socket outside the roots | Landlock (abstract sockets, ABI 6; pathname sockets, ABI 9), masks over the sockets beneath `/run` and `$XDG_RUNTIME_DIR`, the private directories above |
| no ptrace of processes outside, no new privileges, no keystrokes pushed into a terminal | Landlock, `PR_SET_NO_NEW_PRIVS`, seccomp (`TIOCSTI`) |
| masks that stay | a second user namespace locks the mounts; seccomp refuses mount calls |

Each mechanism has its module: `landlock`, `mounts` (namespaces and
binds), `seccomp`, `plan` (the walk), `git` (a git directory's layout) and
`profile` (from the policy).

# Fail closed

When the kernel cannot enforce a part, [`Sandbox::prepare`] or
[`Sandbox::spawn`] fails with [`SandboxError::Unsupported`] naming it, and
nothing runs. Running without the sandbox is the caller's decision, made
explicitly (`--no-sandbox`, `sandbox = "off"`), and recorded
([`unsandboxed_record`]).

# Example

```no_run
use std::process::Command;
use std::sync::Arc;
use toolgate_policy::{LoadOptions, Policy};
use toolgate_sandbox::{Options, Profile, Sandbox};

let policy = Policy::load("toolgate.toml".as_ref(), &LoadOptions::default()).unwrap();
let sandbox = Sandbox::prepare(&Profile::from_policy(Arc::new(policy)), &Options::default())?;
let mut cmd = Command::new("make");
sandbox.install(&mut cmd);
let status = sandbox.spawn(&mut cmd)?.wait()?;
# Ok::<(), Box<dyn std::error::Error>>(())
```

The child enters the sandbox between `fork` and `exec` with raw system
calls only: the parent may have many threads, and `unshare(CLONE_NEWUSER)`
needs a single-threaded caller, which a freshly forked child is.
*/
#![deny(missing_docs)]
#![cfg(target_os = "linux")]

mod check;
mod env;
mod error;
mod exec;
mod git;
mod landlock;
mod ledger;
mod mounts;
mod netns;
mod pidns;
mod plan;
mod profile;
mod proxy;
mod rewrite;
mod sandbox;
mod seccomp;

pub use check::{PartReport, check};
pub use env::secret_env_name;
pub use error::{Part, SandboxError};
pub use exec::{can_exec, exec};
pub use git::COMMONDIR_PLACEHOLDER;
pub use ledger::{NotRecorded, OptOut, record_unsandboxed, unsandboxed_record};
pub use netns::{NO_PROXY_VARIABLES, PROXY_PORT, PROXY_URL, PROXY_VARIABLES};
pub use plan::{Op, Plan};
pub use profile::{Profile, WALK_LIMIT};
pub use proxy::{ProxyLedger, ProxyLedgerFn, RULE_LOCAL_ADDRESS};
pub use rewrite::{sandboxed_command_line, shell_quote};
pub use sandbox::{Options, Sandbox, SpawnError};
