//! `toolgate hook install pi|opencode`: writing toolgate's Pi extension or
//! OpenCode plugin.
//!
//! Neither client has command hooks; both load JavaScript (TypeScript for
//! Pi) from a folder. The file is toolgate's own, generated whole from a
//! template (`src/plugins/`) with the hook's absolute path, its arguments
//! and the timeout the file enforces (neither client has one): a file that
//! already says the same is left alone, another one is copied to
//! `NAME.bak` and replaced.
//!
//! OpenCode `npm install`s its plugin package into every config folder
//! that has plugins, and offline that install retries for about two
//! minutes before the run goes on. It skips a folder that has
//! `node_modules` and a `package-lock.json` whose root lists every
//! dependency of its `package.json` and `@opencode-ai/plugin` (read from
//! OpenCode 1.18.33's bundled code, `Npm.install`); toolgate's plugin
//! imports nothing, so where the folder has neither yet, the install
//! writes that state (an empty `node_modules`, a lock naming the package),
//! and leaves a folder that has its own alone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::install::{HookClient, InstallError, Installed, JsonFile, replace};

const PI: &str = include_str!("plugins/pi.ts");
const OPENCODE: &str = include_str!("plugins/opencode.js");

/// The package OpenCode installs into a config folder with plugins.
pub const OPENCODE_PLUGIN_PACKAGE: &str = "@opencode-ai/plugin";

/// The extension's or plugin's text: the template with `hook` (the
/// executable), `args` (its arguments: the client and flags) and
/// `timeout` filled in. `None` for a client that takes no such file.
pub fn source(
    client: HookClient,
    hook: &Path,
    args: &[String],
    timeout: Duration,
) -> Option<String> {
    let template = match client {
        HookClient::Pi => PI,
        HookClient::OpenCode => OPENCODE,
        _ => return None,
    };
    let json = |v: serde_json::Value| v.to_string();
    let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    Some(
        template
            .replace(
                "__TOOLGATE_HOOK__",
                &json(serde_json::Value::String(hook.display().to_string())),
            )
            .replace("__TOOLGATE_ARGS__", &json(serde_json::json!(args)))
            .replace("__TOOLGATE_TIMEOUT_MS__", &millis.to_string()),
    )
}

/// Writes `text` to `path` (see the module documentation).
pub fn write(path: &Path, text: &str) -> Result<Installed, InstallError> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let existing = match std::fs::read_to_string(&target) {
        Ok(old) => Some(old),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(InstallError::Read {
                path: target,
                source,
            });
        }
    };
    let outcome = match &existing {
        Some(old) if old == text => return Ok(Installed::Unchanged),
        Some(old) => {
            let mut name = target.file_name().unwrap_or_default().to_os_string();
            name.push(".bak");
            let backup = target.with_file_name(name);
            std::fs::write(&backup, old).map_err(|source| InstallError::Write {
                path: backup.clone(),
                action: "write the backup",
                source,
            })?;
            Installed::Added { backup }
        }
        None => Installed::Created,
    };
    replace(&target, text)?;
    Ok(outcome)
}

/// For OpenCode's config folder `dir` (the one holding `plugins/`): writes
/// the state that makes OpenCode skip its dependency install, when the
/// folder has no `node_modules` and no `package-lock.json` of its own.
/// Returns the files written, or `None` when the folder was left alone.
pub fn settle_opencode_dependencies(dir: &Path) -> Result<Option<Vec<PathBuf>>, InstallError> {
    let modules = dir.join("node_modules");
    let lock = dir.join("package-lock.json");
    let manifest = dir.join("package.json");
    if modules.exists() || lock.exists() {
        return Ok(None);
    }
    // Every dependency the folder's package.json declares must be in the
    // lock too, or OpenCode installs anyway: only a manifest with none is
    // settled here.
    let declared = JsonFile::load(&manifest)?;
    let has_dependencies = [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ]
    .iter()
    .any(|k| {
        declared
            .doc
            .get(k)
            .is_some_and(|d| !matches!(d, crate::ordered::Json::Object(e) if e.is_empty()))
    });
    if has_dependencies {
        return Ok(None);
    }
    let text = serde_json::json!({
        "name": "opencode-config",
        "lockfileVersion": 3,
        "requires": true,
        "packages": {"": {"dependencies": {OPENCODE_PLUGIN_PACKAGE: "*"}}},
    });
    let pretty = serde_json::to_string_pretty(&text).unwrap_or_default() + "\n";
    std::fs::create_dir_all(&modules).map_err(|source| InstallError::Write {
        path: modules.clone(),
        action: "create the folder",
        source,
    })?;
    replace(&lock, &pretty)?;
    Ok(Some(vec![modules, lock]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_carry_the_hook_args_and_timeout_as_literals() {
        let text = source(
            HookClient::Pi,
            Path::new("/opt/it's/toolgate-hook"),
            &["pi".into(), "--sandbox".into()],
            Duration::from_secs(60),
        )
        .unwrap();
        assert!(text.contains(r#"const HOOK: string = "/opt/it's/toolgate-hook";"#));
        assert!(text.contains(r#"const ARGS: string[] = ["pi","--sandbox"];"#));
        assert!(text.contains("const TIMEOUT_MS: number = 60000;"));
        assert!(!text.contains("__TOOLGATE"));
        let js = source(
            HookClient::OpenCode,
            Path::new("/h"),
            &[],
            Duration::from_secs(1),
        )
        .unwrap();
        assert!(!js.contains("__TOOLGATE") && !js.contains("@opencode-ai/plugin\""));
        assert!(source(HookClient::Claude, Path::new("/h"), &[], Duration::ZERO).is_none());
    }

    #[test]
    fn writing_twice_changes_nothing_and_a_changed_file_is_backed_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ext/toolgate.ts");
        assert_eq!(write(&path, "a").unwrap(), Installed::Created);
        assert_eq!(write(&path, "a").unwrap(), Installed::Unchanged);
        assert!(matches!(
            write(&path, "b").unwrap(),
            Installed::Added { .. }
        ));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("ext/toolgate.ts.bak")).unwrap(),
            "a"
        );
    }

    #[test]
    fn opencode_dependencies_are_settled_only_in_a_folder_without_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let written = settle_opencode_dependencies(dir.path()).unwrap().unwrap();
        assert_eq!(written.len(), 2);
        let lock: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("package-lock.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            lock["packages"][""]["dependencies"][OPENCODE_PLUGIN_PACKAGE],
            "*"
        );
        assert!(settle_opencode_dependencies(dir.path()).unwrap().is_none());

        let other = tempfile::tempdir().unwrap();
        std::fs::write(
            other.path().join("package.json"),
            r#"{"dependencies":{"left-pad":"1"}}"#,
        )
        .unwrap();
        assert!(
            settle_opencode_dependencies(other.path())
                .unwrap()
                .is_none()
        );
        assert!(!other.path().join("node_modules").exists());
    }
}
