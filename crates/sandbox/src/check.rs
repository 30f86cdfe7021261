//! `toolgate sandbox --check`: what this machine can enforce, part by part.
//!
//! Landlock's parts are read from its ABI version; the namespaces, the
//! mounts, no_new_privs and seccomp are tried for real, by running `true`
//! in a sandbox with a mask and a read-only bind.

use std::process::{Command, Stdio};

use crate::error::{Part, SandboxError};
use crate::profile::Profile;
use crate::sandbox::{Options, Sandbox, SpawnError};

/// One part of the sandbox and whether this machine enforces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartReport {
    /// What the part holds.
    pub name: &'static str,
    /// Whether `toolgate sandbox` refuses to run without it.
    pub required: bool,
    /// Whether this machine enforces it.
    pub enforced: bool,
    /// Details: the ABI, or why not.
    pub detail: String,
}

fn landlock_part(name: &'static str, required: bool, abi: Option<i64>, needs: i64) -> PartReport {
    let (enforced, detail) = match abi {
        None => (
            false,
            "landlock is not available on this kernel".to_string(),
        ),
        Some(v) if v >= needs => (true, format!("landlock abi {v} (needs {needs})")),
        Some(v) => (false, format!("landlock abi {v}, needs {needs}")),
    };
    PartReport {
        name,
        required,
        enforced,
        detail,
    }
}

/// Checks every part; `toolgate sandbox` runs only when every required one
/// is enforced.
pub fn check() -> Vec<PartReport> {
    let abi = crate::landlock::kernel_abi();
    let mut parts = vec![
        landlock_part(
            "writes only inside the roots and the private temp dir (landlock)",
            true,
            abi,
            3,
        ),
        landlock_part("no TCP connect or bind (landlock)", true, abi, 4),
        landlock_part(
            "no ptrace of processes outside, no /proc/PID/root of them (landlock)",
            true,
            abi,
            1,
        ),
        landlock_part("no device ioctls such as TIOCSTI (landlock)", false, abi, 5),
        landlock_part(
            "no signals or abstract Unix sockets to processes outside (landlock)",
            false,
            abi,
            6,
        ),
        landlock_part(
            "no pathname Unix sockets outside the roots (landlock)",
            false,
            abi,
            9,
        ),
    ];
    let names: [(Part, &'static str); 3] = [
        (
            Part::Namespaces,
            "denied paths masked, protected paths read-only (user and mount namespaces)",
        ),
        (Part::NoNewPrivs, "no new privileges (no_new_privs)"),
        (
            Part::Seccomp,
            "no UDP or other non-Unix sockets, no mount calls (seccomp)",
        ),
    ];
    let outcome = probe(false);
    for (part, name) in names {
        let (enforced, detail) = match &outcome {
            Ok(()) => (true, "tried: works".to_string()),
            Err(SandboxError::Unsupported { part: p, reason }) if *p == part => {
                (false, reason.clone())
            }
            Err(e) => (false, format!("not tried: {e}")),
        };
        parts.push(PartReport {
            name,
            required: true,
            enforced,
            detail,
        });
    }
    let (enforced, detail) = match &outcome {
        Err(e) => (false, format!("not tried: {e}")),
        Ok(()) => match probe(true) {
            Ok(()) => (true, "tried: works".to_string()),
            Err(e) => (false, e.to_string()),
        },
    };
    parts.push(PartReport {
        name: "when rules allow fetches: only the hosts they allow, through toolgate's proxy (a network namespace of the command's own)",
        required: false,
        enforced,
        detail,
    });
    parts
}

/// Runs `true` inside a sandbox that masks a file and keeps one read-only
/// (and, with `proxy`, has a network namespace and the proxy).
fn probe(proxy: bool) -> Result<(), SandboxError> {
    let io = |what: &str| {
        let what = what.to_string();
        move |e: std::io::Error| SandboxError::Io { what, source: e }
    };
    let dir = tempfile::tempdir().map_err(io("cannot create a temporary directory"))?;
    let root = std::fs::canonicalize(dir.path()).map_err(io("cannot resolve it"))?;
    let kept = root.join("kept");
    std::fs::write(&kept, b"").map_err(io("cannot write a file"))?;
    let profile = Profile::for_roots(vec![root.clone()])
        .with_readonly(kept)
        .with_proxy(proxy);
    let sandbox = Sandbox::prepare(&profile, &Options::default())?;
    let mut cmd = Command::new("true");
    // In the root: a working directory in /tmp outside the roots is not
    // there inside (the command's /tmp is private).
    cmd.current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    sandbox.install(&mut cmd);
    let mut child = sandbox.spawn(&mut cmd).map_err(|e| match e {
        SpawnError::Sandbox(e) => e,
        SpawnError::Exec(e) => SandboxError::Io {
            what: "cannot run `true`".into(),
            source: e,
        },
    })?;
    let status = child.wait().map_err(io("cannot wait for `true`"))?;
    if !status.success() {
        return Err(SandboxError::Io {
            what: "`true` failed inside the sandbox".into(),
            source: std::io::Error::other(format!("{status}")),
        });
    }
    Ok(())
}
