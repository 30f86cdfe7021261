//! Where a hook finds the project policy from.
//!
//! A hook's input carries the client's working directory, which the agent
//! moves with `cd`. Finding the policy from there would let the agent choose
//! its own policy: write `docs/toolgate.toml` (`allow = ["*"]`), `cd docs`,
//! and every later call is decided by its own file. So the project policy
//! is found from an anchor the agent cannot move, the first of:
//!
//! 1. `--workspace DIR` on the hook's command line;
//! 2. the workspace root the client names in the hook's input (Grok Build's
//!    `workspaceRoot`, the first of Cursor's `workspace_roots`), which is
//!    the workspace the session was opened on, whatever the call's `cwd`;
//! 3. the project directory the client gives its hooks in the environment
//!    (`CLAUDE_PROJECT_DIR`, which Claude Code, Gemini CLI and Qwen Code
//!    set, `GEMINI_PROJECT_DIR`, and Qwen Code's `QWEN_PROJECT_DIR`), which
//!    the agent's commands cannot change;
//! 4. for a client that starts its hooks in the session's directory but
//!    puts the directory the model named for a command in the input's `cwd`
//!    (Codex CLI, whose `exec_command` takes a `workdir`), the directory the
//!    hook process was started in: otherwise the model's first command
//!    could name a directory holding a looser `toolgate.toml` (a vendored
//!    project's, another checkout's) and have it govern the session;
//! 5. the working directory of the session's first call, recorded in the
//!    state directory (which the agent cannot write) when that call comes;
//! 6. the call's working directory, when there is no session or no state
//!    directory to record it in.
//!
//! A `toolgate.toml` between the anchor and the working directory still
//! counts, as a layer that can only tighten (`toolgate_policy::layers`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variables in which clients name the project directory.
pub const PROJECT_DIR_VARS: [&str; 3] = [
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "QWEN_PROJECT_DIR",
];

/// The folder of the state directory that holds each session's anchor.
const SESSIONS_DIR: &str = "sessions";

/// The anchor for one call (see the module documentation). `named`: the
/// workspace root the client names in the hook's input.
pub fn anchor(
    workspace: Option<&Path>,
    named: Option<&Path>,
    launch_dir: Option<&Path>,
    state_dir: Option<&Path>,
    client: &str,
    session: &str,
    cwd: &Path,
) -> PathBuf {
    let from_env = PROJECT_DIR_VARS
        .iter()
        .find_map(|var| std::env::var_os(var).filter(|v| !v.is_empty()))
        .map(PathBuf::from);
    anchor_with(
        workspace,
        named.or(from_env.as_deref()).or(launch_dir),
        state_dir,
        client,
        session,
        cwd,
    )
}

/// When the session began: the time its first call was recorded in the
/// state directory (recorded now when this is its first call). `None`
/// without a state directory or a session id, or when the record cannot be
/// written or read: the checks that need it are then skipped, as for a
/// host without sessions.
pub fn session_start(
    state_dir: Option<&Path>,
    client: &str,
    session: &str,
) -> Option<std::time::SystemTime> {
    let dir = state_dir?.join(SESSIONS_DIR);
    if session.is_empty() {
        return None;
    }
    let key = toolgate_policy::layers::digest(format!("{client}\0{session}").as_bytes());
    let file = dir.join(format!("{key}.start"));
    if let Ok(m) = std::fs::metadata(&file) {
        return m.modified().ok();
    }
    let _ = std::fs::create_dir_all(&dir);
    // Of two first calls, the first to create the file sets the time.
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file);
    std::fs::metadata(&file).and_then(|m| m.modified()).ok()
}

/// Whether the project's policy file, as discovery found and read it
/// (`file`, and `bytes` when they could be read), differs from the one the
/// session's first call saw, recording it when this is the first call. An
/// agent's command can bring a policy file the parser never saw written
/// (`git checkout`, `tar x`): a file that appeared, changed or went away
/// during the session must not be honoured as the person's. Discovery hands
/// over the bytes it compiles, so the file checked is the file honoured.
/// `false` without a state directory or a session; `true` when the record
/// cannot be read back.
pub fn project_policy_changed(
    state_dir: Option<&Path>,
    client: &str,
    session: &str,
    file: Option<&Path>,
    bytes: Option<&[u8]>,
) -> bool {
    let (Some(state_dir), false) = (state_dir, session.is_empty()) else {
        return false;
    };
    let now = match (file, bytes) {
        (Some(file), Some(bytes)) => format!(
            "{}\n{}\n",
            file.display(),
            toolgate_policy::layers::digest(bytes)
        ),
        (Some(file), None) => format!("{}\nunreadable\n", file.display()),
        (None, _) => "none\n".to_owned(),
    };
    let dir = state_dir.join(SESSIONS_DIR);
    let key = toolgate_policy::layers::digest(format!("{client}\0{session}").as_bytes());
    let file = dir.join(format!("{key}.policy"));
    if let Ok(seen) = std::fs::read_to_string(&file) {
        return seen != now;
    }
    let _ = std::fs::create_dir_all(&dir);
    let tmp = dir.join(format!(".{key}.policy.{}", std::process::id()));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(now.as_bytes()))
        .and_then(|()| std::fs::hard_link(&tmp, &file));
    let _ = std::fs::remove_file(&tmp);
    match (written, std::fs::read_to_string(&file)) {
        (_, Ok(seen)) => seen != now,
        // Nothing could be recorded: there is no session to compare with.
        (Err(_), Err(_)) => false,
        (Ok(()), Err(_)) => true,
    }
}

/// [`anchor`] with the client's project directory given.
fn anchor_with(
    workspace: Option<&Path>,
    project_dir: Option<&Path>,
    state_dir: Option<&Path>,
    client: &str,
    session: &str,
    cwd: &Path,
) -> PathBuf {
    if let Some(w) = workspace.or(project_dir) {
        return absolute(w, cwd);
    }
    match state_dir {
        Some(dir) if !session.is_empty() => session_anchor(dir, client, session, cwd),
        _ => cwd.to_path_buf(),
    }
}

fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// The first working directory recorded for the session, recording `cwd`
/// when there is none yet. A record that cannot be written or read leaves
/// the anchor at `cwd` for this call only.
fn session_anchor(state_dir: &Path, client: &str, session: &str, cwd: &Path) -> PathBuf {
    let key = toolgate_policy::layers::digest(format!("{client}\0{session}").as_bytes());
    let dir = state_dir.join(SESSIONS_DIR);
    let file = dir.join(format!("{key}.anchor"));
    if let Ok(text) = std::fs::read(&file)
        && let Some(path) = recorded(&text)
    {
        return path;
    }
    let _ = std::fs::create_dir_all(&dir);
    let Some(text) = cwd.to_str() else {
        return cwd.to_path_buf();
    };
    // Written whole under another name, then linked into place: a reader
    // never sees half a path, and of two first calls the first link wins.
    let tmp = dir.join(format!(
        ".{}.{}",
        file.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("anchor"),
        std::process::id()
    ));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(format!("{text}\n").as_bytes()))
        .and_then(|()| std::fs::hard_link(&tmp, &file));
    let _ = std::fs::remove_file(&tmp);
    if written.is_err()
        && let Ok(text) = std::fs::read(&file)
        && let Some(path) = recorded(&text)
    {
        return path;
    }
    cwd.to_path_buf()
}

/// The path in a record: one absolute path and a newline.
fn recorded(text: &[u8]) -> Option<PathBuf> {
    let text = std::str::from_utf8(text).ok()?.strip_suffix('\n')?;
    let p = Path::new(text);
    p.is_absolute().then(|| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_cwd_of_a_session_is_kept() {
        let state = tempfile::tempdir().unwrap();
        let s = Some(state.path());
        let at = |client, session, cwd| anchor_with(None, None, s, client, session, Path::new(cwd));
        assert_eq!(at("claude", "s1", "/w"), Path::new("/w"));
        let later = at("claude", "s1", "/w/docs");
        assert_eq!(later, Path::new("/w"), "a cd does not move the anchor");
        let other = at("claude", "s2", "/w/docs");
        assert_eq!(other, Path::new("/w/docs"), "each session has its own");
        let other_client = at("gemini", "s1", "/x");
        assert_eq!(other_client, Path::new("/x"));
    }

    #[test]
    fn an_explicit_workspace_wins_then_the_clients_project_dir() {
        let state = tempfile::tempdir().unwrap();
        let s = Some(state.path());
        let (proj, env) = (Some(Path::new("/proj")), Some(Path::new("/env")));
        let cwd = Path::new("/proj/a");
        assert_eq!(anchor_with(proj, env, s, "c", "s", cwd), Path::new("/proj"));
        assert_eq!(anchor_with(None, env, s, "c", "s", cwd), Path::new("/env"));
        let relative = anchor_with(Some(Path::new("sub")), None, s, "c", "s", cwd);
        assert_eq!(relative, Path::new("/proj/a/sub"));
    }

    #[test]
    fn no_state_dir_or_session_means_the_cwd() {
        let cwd = Path::new("/a/b");
        assert_eq!(anchor_with(None, None, None, "c", "s", cwd), cwd);
        let state = tempfile::tempdir().unwrap();
        assert_eq!(
            anchor_with(None, None, Some(state.path()), "c", "", cwd),
            cwd
        );
    }
}
