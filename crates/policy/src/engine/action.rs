//! The public form of an action.

use crate::actions::What;
use crate::decision::Action;

/// The public form of an action.
pub(super) fn to_action(tool: &str, what: &What) -> Action {
    match what {
        What::Path {
            write,
            written,
            resolved,
            recursive,
            delete,
            listing,
            tracked,
            ..
        } => {
            let mut path = resolved
                .best()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|| written.clone());
            // A rewrite written as the revision `git checkout` was given
            // (`main`, `feature/x`) is shown at the directory it ran in.
            if *write
                && tracked.is_some()
                && written != "."
                && let Some(dir) = path.strip_suffix(written.as_str())
            {
                path = dir
                    .strip_suffix('/')
                    .filter(|d| !d.is_empty())
                    .unwrap_or(dir)
                    .to_string();
            }
            let tracked = tracked.map(|t| match t {
                toolgate_shell::Tracked::Beneath => crate::decision::Tracked::Beneath,
                toolgate_shell::Tracked::Repository => crate::decision::Tracked::Repository,
                toolgate_shell::Tracked::WorkTree => crate::decision::Tracked::WorkTree,
            });
            if *write {
                Action::Write {
                    path,
                    written: written.clone(),
                    recursive: *recursive,
                    delete: *delete,
                    tracked,
                }
            } else {
                Action::Read {
                    path,
                    written: written.clone(),
                    recursive: *recursive,
                    listing: *listing,
                    tracked,
                }
            }
        }
        What::Exec {
            argv,
            text,
            wrappers,
            cwd,
            ..
        } => Action::Exec {
            argv: argv.clone(),
            command: text.clone(),
            wrappers: wrappers.clone(),
            cwd: cwd.as_ref().map(|p| p.display().to_string()),
        },
        What::Fetch { url, .. } => Action::Fetch { url: url.clone() },
        What::Tool { value } => Action::Tool {
            name: tool.to_string(),
            value: value.clone(),
        },
        What::Unknown { reason } => Action::Unknown {
            reason: reason.clone(),
        },
        What::Hazard { kind, reason } => Action::Hazard {
            hazard: kind.clone(),
            reason: reason.clone(),
        },
    }
}
