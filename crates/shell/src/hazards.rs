//! Catastrophic command shapes (`docs/policy.md`, "Hard limits") that
//! belong to one command.
//! Shapes that span commands (download-and-execute, fork bombs) are found
//! by the walk, which sees pipelines and functions.

use std::path::{Component, Path, PathBuf};

use crate::effects::Derived;
use crate::tables::{self, Access};
use crate::words::Arg;

/// A hazard: its stable kind and why.
pub(crate) type Found = (&'static str, String);

/// What a command's hazards depend on besides its arguments.
pub(crate) struct Ctx<'a> {
    pub cwd: Option<&'a Path>,
    pub home: Option<&'a Path>,
}

/// Hazards of one command (after its wrappers were removed), and parts that
/// must be reported as not analysable.
pub(crate) fn command(
    name: &str,
    argv: &[Arg],
    derived: &Derived,
    ctx: &Ctx<'_>,
) -> (Vec<Found>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknowns = Vec::new();
    let args = argv.get(1..).unwrap_or_default();
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    if name.starts_with("mkfs") || matches!(name, "mke2fs" | "mkswap") {
        found.push(("mkfs", format!("`{name}` formats a file system")));
    }
    if tables::known(name).power
        || (matches!(name, "init" | "telinit") && texts.iter().any(|t| matches!(*t, "0" | "6")))
        || (matches!(name, "systemctl" | "loginctl")
            && texts
                .iter()
                .any(|t| matches!(*t, "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")))
    {
        found.push((
            "power",
            format!(
                "`{}` switches the machine off or restarts it",
                display(argv)
            ),
        ));
    }
    let flags = short_flags(args);
    let recursive = flags.contains(&'r') || flags.contains(&'R') || texts.contains(&"--recursive");
    let force = flags.contains(&'f') || texts.contains(&"--force");
    if name == "rm" && (recursive || force) {
        for a in operands(args) {
            if is_catastrophic(a, ctx) {
                found.push((
                    "rm-root",
                    format!(
                        "`rm` of `{}` removes the root or home directory",
                        a.pattern.as_deref().unwrap_or(&a.text)
                    ),
                ));
            } else if !a.literal && recursive {
                unknowns.push(format!("`rm -r` of a non-literal operand `{}`", a.text));
            }
        }
    }
    if name == "find" {
        // `-delete` removes what lies beneath each starting point.
        let removes = |f: &crate::effects::Found| f.arg.beneath && f.access == Access::Write;
        if derived.found.iter().any(removes) {
            for f in &derived.found {
                if removes(f) && is_catastrophic(&f.arg, ctx) {
                    found.push((
                        "rm-root",
                        format!(
                            "`find {} -delete` removes the root or home directory",
                            f.arg.text
                        ),
                    ));
                }
            }
        }
    }
    if matches!(name, "chmod" | "chown" | "chgrp")
        && (flags.contains(&'R') || texts.contains(&"--recursive"))
    {
        for a in operands(args).skip(1) {
            if is_root(a, ctx) {
                found.push(("chmod-root", format!("`{name} -R` of `/`")));
            }
        }
    }
    if name == "dd" {
        for a in args {
            if let Some(of) = a.text.strip_prefix("of=") {
                if of.starts_with("/dev/") && !harmless_device(of) {
                    found.push(("device-write", format!("`dd` writes to the device `{of}`")));
                }
            }
        }
    }
    (found, unknowns)
}

/// The directories whose whole content an `rm -r` or `rm -f` of a glob
/// such as `*` or `dir/.*` removes (`.` for `rm -rf *`). Each match is an
/// operand of its own, but the policy also needs the directory: emptying a
/// workspace root is as catastrophic as removing it, and no single match
/// shows that.
pub(crate) fn emptied_dirs(name: &str, argv: &[Arg]) -> Vec<Arg> {
    let mut out: Vec<Arg> = Vec::new();
    if name != "rm" {
        return out;
    }
    let args = argv.get(1..).unwrap_or_default();
    let flags = short_flags(args);
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let recursive = flags.contains(&'r') || flags.contains(&'R') || texts.contains(&"--recursive");
    let force = flags.contains(&'f') || texts.contains(&"--force");
    if !(recursive || force) {
        return out;
    }
    for a in operands(args) {
        let Some(pattern) = a.pattern.as_deref() else {
            continue;
        };
        let dir = match pattern.rsplit_once('/') {
            Some((dir, last)) if is_everything(last) => {
                if dir.is_empty() {
                    "/"
                } else {
                    dir
                }
            }
            None if is_everything(pattern) => ".",
            _ => continue,
        };
        if !out.iter().any(|d| d.text == dir) {
            out.push(Arg::lit(dir));
        }
    }
    out
}

/// A write to a block or memory device, whatever wrote it.
pub(crate) fn device_write(target: &str) -> Option<Found> {
    let dev = target.strip_prefix("/dev/")?;
    if harmless_device(target) {
        return None;
    }
    let block = [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "loop", "dm-", "md", "mapper/", "disk/", "sr",
        "nbd", "zram", "ram", "mem", "kmem", "port", "fd0", "mtd", "ubi", "root",
    ];
    block.iter().any(|p| dev.starts_with(p)).then(|| {
        (
            "device-write",
            format!("write to the block device `{target}`"),
        )
    })
}

fn harmless_device(path: &str) -> bool {
    tables::HARMLESS_DEVICES.contains(&path)
        || path.starts_with("/dev/fd/")
        || path.starts_with("/dev/pts/")
        || path.starts_with("/dev/shm/")
        || matches!(
            path,
            "/dev/zero" | "/dev/random" | "/dev/urandom" | "/dev/full"
        )
}

fn short_flags(args: &[Arg]) -> Vec<char> {
    let mut out = Vec::new();
    for a in args {
        if a.literal && a.text == "--" {
            break;
        }
        if a.literal && a.text.starts_with('-') && !a.text.starts_with("--") {
            out.extend(a.text.chars().skip(1));
        }
    }
    out
}

fn operands(args: &[Arg]) -> impl Iterator<Item = &Arg> {
    let mut end = false;
    args.iter().filter(move |a| {
        if end {
            return true;
        }
        if a.literal && a.text == "--" {
            end = true;
            return false;
        }
        !(a.literal && a.text.starts_with('-') && a.text.len() > 1)
    })
}

/// `/`, `/*`, `~`, `~/`, `~/*`, `$HOME`, or a glob over everything in one
/// of them.
fn is_catastrophic(a: &Arg, ctx: &Ctx<'_>) -> bool {
    if !a.literal {
        let t = a.text.trim_matches('"');
        let t = t.trim_end_matches(['/', '*', '.']).trim_end_matches('/');
        return matches!(t, "$HOME" | "${HOME}" | "~");
    }
    is_root(a, ctx) || is_home(a, ctx)
}

fn is_root(a: &Arg, ctx: &Ctx<'_>) -> bool {
    resolved_dir(a, ctx).is_some_and(|p| p == Path::new("/"))
}

fn is_home(a: &Arg, ctx: &Ctx<'_>) -> bool {
    let text = a.pattern.as_deref().unwrap_or(&a.text);
    if text == "~"
        || text.starts_with("~/")
            && text
                .trim_start_matches("~/")
                .trim_matches(['/', '*', '.'])
                .is_empty()
    {
        return true;
    }
    match (resolved_dir(a, ctx), ctx.home) {
        (Some(p), Some(home)) => p == normalize(home),
        _ => false,
    }
}

/// The directory an operand removes wholesale: the path itself, or for a
/// glob whose last segment matches everything (`*`, `.*`), its directory.
fn resolved_dir(a: &Arg, ctx: &Ctx<'_>) -> Option<PathBuf> {
    let text = a.pattern.as_deref().unwrap_or(&a.text);
    let text = match text.rsplit_once('/') {
        Some((dir, last)) if a.pattern.is_some() && is_everything(last) => {
            if dir.is_empty() {
                "/"
            } else {
                dir
            }
        }
        None if a.pattern.is_some() && is_everything(text) => ".",
        _ if a.pattern.is_some() => return None,
        _ => text,
    };
    let path = if let Some(rest) = text.strip_prefix('~') {
        let home = ctx.home?;
        home.join(rest.trim_start_matches('/'))
    } else if text.starts_with('/') {
        PathBuf::from(text)
    } else {
        ctx.cwd?.join(text)
    };
    Some(normalize(&path))
}

fn is_everything(segment: &str) -> bool {
    matches!(
        segment,
        "*" | ".*" | "*.*" | "**" | ".[!.]*" | "..?*" | "{*,.*}"
    )
}

/// Lexical normalisation: `.` removed, `..` pops (never above the root).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.has_root() {
                    out.push("..");
                }
                if out.as_os_str().is_empty() && path.has_root() {
                    out.push("/");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(if path.has_root() { "/" } else { "." });
    }
    out
}

fn display(argv: &[Arg]) -> String {
    argv.iter()
        .map(|a| a.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
