//! The hard limits: what no rule, mode or approval lifts.

use std::path::{Path, PathBuf};

use crate::actions::What;
use crate::paths;
use crate::rule_ids;

use super::Eval;

impl Eval<'_, '_> {
    /// The hard limit an action breaks, as `(rule id, why)`.
    pub(super) fn hard_limit(&self, what: &What) -> Option<(&'static str, String)> {
        let p = self.policy;
        match what {
            What::Hazard { kind, reason } => Some((
                rule_ids::HARD_CATASTROPHIC,
                format!("catastrophic command ({kind}): {reason}"),
            )),
            What::Path {
                write,
                written,
                resolved,
                delete,
                listing,
                ..
            } => {
                let real = match &resolved.real {
                    Err(e) => {
                        return Some((
                            rule_ids::HARD_OUTSIDE_ROOTS,
                            format!(
                                "cannot be resolved safely ({e}), so it counts as outside the workspace roots"
                            ),
                        ));
                    }
                    Ok(r) => r,
                };
                let lexical = resolved.lexical.as_deref();
                let within = |roots: &[PathBuf]| roots.iter().any(|r| paths::is_within(real, r));
                if *write {
                    let both: Vec<&Path> = std::iter::once(real.as_path()).chain(lexical).collect();
                    if let Some((rule, which)) = own_files(p, &both) {
                        return Some((rule, format!("is a write to {which}")));
                    }
                    if let Some(file) = self.linked_policy_file(real) {
                        return Some((
                            rule_ids::HARD_POLICY_FILE,
                            format!(
                                "is a write to the policy file `{}`: it is another name (a hard link) for it",
                                file.display()
                            ),
                        ));
                    }
                    if *delete {
                        let catastrophic = real == Path::new("/")
                            || p.home.as_deref() == Some(real.as_path())
                            || p.roots
                                .iter()
                                .chain(&p.read_roots)
                                .any(|r| paths::is_within(r, real));
                        if catastrophic {
                            return Some((
                                rule_ids::HARD_CATASTROPHIC,
                                "removes `/`, the home directory, a workspace root or a parent of one".into(),
                            ));
                        }
                    }
                    if !within(&p.roots) {
                        return Some((
                            rule_ids::HARD_OUTSIDE_ROOTS,
                            format!(
                                "is outside the workspace roots (`{written}` resolves to `{}`)",
                                real.display()
                            ),
                        ));
                    }
                } else if !*listing && !p.readable(real) && !harmless_device(real) {
                    // Only a read of bytes: a listing shows names, sizes and
                    // times, not what a file holds (the credential
                    // locations stay denied to listings too).
                    return Some((
                        rule_ids::HARD_OUTSIDE_ROOTS,
                        format!(
                            "is outside the workspace roots (`{written}` resolves to `{}`)",
                            real.display()
                        ),
                    ));
                }
                None
            }
            _ => None,
        }
    }
}

/// What toolgate itself reads that a write of `paths` (one file: as
/// resolved, and as written) would change, as `(rule id, which)`: the
/// policy file, any file of its name (a policy file to some directory: one
/// the agent writes would govern the calls made from there), the state
/// directory.
pub(super) fn own_files(p: &crate::Policy, paths: &[&Path]) -> Option<(&'static str, String)> {
    if paths.iter().any(|q| p.file_real.as_deref() == Some(*q)) {
        return Some((rule_ids::HARD_POLICY_FILE, "the policy file".into()));
    }
    // Without regard to case: on a case-insensitive file system (macOS,
    // a casefolded directory on Linux) `TOOLGATE.toml` is the file that
    // discovery opens as `toolgate.toml`.
    let named = |n: &std::ffi::OsStr| {
        n.as_encoded_bytes()
            .eq_ignore_ascii_case(crate::POLICY_FILE_NAME.as_bytes())
    };
    if paths.iter().any(|q| q.file_name().is_some_and(named)) {
        return Some((
            rule_ids::HARD_POLICY_FILE,
            format!(
                "a file named `{}`, which toolgate reads as policy",
                crate::POLICY_FILE_NAME
            ),
        ));
    }
    if let Some(sd) = &p.state_dir
        && paths.iter().any(|q| paths::is_within(q, sd))
    {
        return Some((
            rule_ids::HARD_STATE_DIR,
            "toolgate's state directory".into(),
        ));
    }
    None
}

/// Why a write that reaches `path` beneath what it names (a recursive
/// write, a rewrite of what git tracks) asks whatever the rules say: a
/// protected path, or one of toolgate's own files (`verb`: what the write
/// may do to it), with the rule id.
pub(super) fn guarded_beneath(
    ev: &Eval<'_, '_>,
    path: &Path,
    verb: &str,
) -> Option<(String, &'static str)> {
    let p = ev.policy;
    match p.protected.find(path) {
        Some(label) => Some((
            format!("`{label}` is a protected path"),
            rule_ids::PROTECTED,
        )),
        None => own_files(p, &[path])
            .map(|(rule, which)| (format!("{verb} {which}"), rule))
            .or_else(|| ev.hooks_holding(path).map(|why| (why, rule_ids::PROTECTED))),
    }
}

impl Eval<'_, '_> {
    /// The policy file (or a layer's) that `real` is another name of: a
    /// hard link shares the file's content, so a write through any of its
    /// names changes the policy. Only a regular file with more than one
    /// name is compared (by device and inode).
    fn linked_policy_file(&self, real: &Path) -> Option<PathBuf> {
        use std::os::unix::fs::MetadataExt;
        let names = self.seen.other_names(real)?;
        let p = self.policy;
        let layers = p
            .layers()
            .into_iter()
            .flat_map(|l| l.files.iter().map(|f| f.path.clone()));
        p.file_real.iter().cloned().chain(layers).find(|f| {
            std::fs::metadata(f).is_ok_and(|m| m.dev() == names.dev && m.ino() == names.ino)
        })
    }

    /// Why `path` is protected as git's hooks are, if it lies in the
    /// hooks directory its repository's configuration names.
    pub(super) fn hooks_holding(&self, path: &Path) -> Option<String> {
        self.seen
            .git_hooks_holding(path, self.policy.home.as_deref())
            .map(|dir| {
                format!(
                    "`{}` is where git's configuration (`core.hooksPath`) keeps the hooks git runs, a protected path",
                    dir.display()
                )
            })
    }

    /// Whether a path is one of toolgate's own files (the policy file, a
    /// file of its name, the state directory) or a protected path, which a
    /// write would need more than an allow for: `(rule id, why)`.
    pub(super) fn guarded(&self, what: &What) -> Option<(&'static str, String)> {
        let What::Path { resolved, .. } = what else {
            return None;
        };
        let p = self.policy;
        let both: Vec<&Path> = resolved.both().collect();
        if let Some((rule, which)) = own_files(p, &both) {
            return Some((rule, format!("is {which}")));
        }
        both.iter()
            .find_map(|q| p.protected.find(q))
            .map(|label| {
                (
                    rule_ids::PROTECTED,
                    format!("is beneath `{label}`, a protected path"),
                )
            })
            .or_else(|| {
                both.iter().find_map(|q| {
                    self.seen
                        .git_hooks_holding(q, p.home.as_deref())
                        .map(|dir| {
                            (
                                rule_ids::PROTECTED,
                                format!(
                                    "is beneath `{}`, where git's configuration (`core.hooksPath`) keeps the hooks git runs, a protected path",
                                    dir.display()
                                ),
                            )
                        })
                })
            })
    }

    /// The credential location a path action touches (`~/.ssh/**`,
    /// `/etc/shadow`, ...), as `(location, path)`, unless an allow rule
    /// names that exact file: the path with its symlinks resolved, or as
    /// written, as deny rules meet it.
    pub(super) fn credential(&self, what: &What) -> Option<(&'static str, PathBuf)> {
        let What::Path {
            write, resolved, ..
        } = what
        else {
            return None;
        };
        let c = &self.policy.credentials;
        let (label, path) = resolved
            .both()
            .find_map(|p| c.find(p).map(|l| (l, p.to_path_buf())))?;
        let lifted = resolved.both().any(|p| c.allowed(p, *write));
        (!lifted).then_some((label, path))
    }
}

/// Why a credential location is refused, for reasons.
pub(super) fn credential_reason(label: &str, path: &Path) -> String {
    format!(
        "`{}` is where credentials live (`{label}`): no policy reads or writes it unless an allow rule names that exact file",
        path.display()
    )
}

/// Devices whose reading shows nothing of the machine: empty, zeros or
/// random bytes. Reading them is not a read outside the workspace
/// (`head -c 16 /dev/urandom`, `cat < /dev/null`).
fn harmless_device(real: &Path) -> bool {
    [
        "/dev/null",
        "/dev/zero",
        "/dev/urandom",
        "/dev/random",
        "/dev/full",
    ]
    .iter()
    .any(|d| real == Path::new(d))
}
