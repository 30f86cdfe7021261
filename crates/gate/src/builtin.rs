//! toolgate's own five tools as executors, over the confined
//! implementations of `toolgate-tools`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_policy::Call;
use toolgate_tools::{FetchOptions, Limits, ShellOptions, Workspace};

use crate::executor::{Executor, ToolOutput};

/// Settings of the built-in tools.
#[derive(Debug, Clone)]
pub struct BuiltinOptions {
    /// Size caps of the file tools.
    pub limits: Limits,
    /// The shell's default timeout, used when the call names none.
    pub shell_timeout: Duration,
    /// The longest timeout a call may ask for (`timeout_secs`).
    pub max_shell_timeout: Duration,
    /// Let shell commands use the network whatever the policy says (off:
    /// only when a rule allows fetches).
    pub network: bool,
    /// Run shell commands even where the kernel cannot sandbox them.
    pub allow_unsandboxed: bool,
    /// The shell's OS boundary; `None` when registered through the gate
    /// means the gate's policy's.
    pub sandbox: Option<Arc<toolgate_sandbox::Profile>>,
    /// Settings of `fetch_url`.
    pub fetch: FetchOptions,
}

impl Default for BuiltinOptions {
    fn default() -> Self {
        BuiltinOptions {
            limits: Limits::default(),
            shell_timeout: Duration::from_secs(30),
            max_shell_timeout: Duration::from_secs(600),
            network: false,
            allow_unsandboxed: false,
            sandbox: None,
            fetch: FetchOptions::default(),
        }
    }
}

fn text<'a>(call: &'a Call, field: &str) -> Result<&'a str, ToolOutput> {
    call.input
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolOutput::error(format!("`{field}` must be a string")))
}

struct ReadFile(Arc<Workspace>, Limits);
struct WriteFile(Arc<Workspace>, Limits);
struct ListDir(Arc<Workspace>, Limits);
struct RunShell(Arc<Workspace>, BuiltinOptions);
struct FetchUrl(FetchOptions);

impl Executor for ReadFile {
    fn execute(&self, call: &Call) -> ToolOutput {
        let path = match text(call, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        match toolgate_tools::read_file(&self.0, path, call.cwd.as_deref(), &self.1) {
            Ok(t) => ToolOutput::ok(t.to_string()),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

impl Executor for WriteFile {
    fn execute(&self, call: &Call) -> ToolOutput {
        let (path, content) = match (text(call, "path"), text(call, "content")) {
            (Ok(p), Ok(c)) => (p, c),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        match toolgate_tools::write_file(&self.0, path, content, call.cwd.as_deref(), &self.1) {
            Ok(r) => ToolOutput::ok(r.to_string()),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

impl Executor for ListDir {
    fn execute(&self, call: &Call) -> ToolOutput {
        let path = match text(call, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        match toolgate_tools::list_dir(&self.0, path, call.cwd.as_deref(), &self.1) {
            Ok(l) => ToolOutput::ok(l.to_string()),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

impl Executor for RunShell {
    fn execute(&self, call: &Call) -> ToolOutput {
        let command = match text(call, "command") {
            Ok(c) => c,
            Err(e) => return e,
        };
        let timeout = match call.input.get("timeout_secs").and_then(Value::as_u64) {
            Some(s) => Duration::from_secs(s.max(1)).min(self.1.max_shell_timeout),
            None => self.1.shell_timeout,
        };
        let opts = ShellOptions {
            cwd: call.cwd.clone(),
            timeout,
            network: self.1.network,
            allow_unsandboxed: self.1.allow_unsandboxed,
            sandbox: self.1.sandbox.clone(),
            ..ShellOptions::default()
        };
        match toolgate_tools::run_shell(&self.0, command, &opts) {
            Ok(out) => ToolOutput {
                content: out.to_string(),
                is_error: !out.success(),
            },
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

impl Executor for FetchUrl {
    fn execute(&self, call: &Call) -> ToolOutput {
        let url = match text(call, "url") {
            Ok(u) => u,
            Err(e) => return e,
        };
        match toolgate_tools::fetch_url(url, &self.0) {
            Ok(out) => ToolOutput {
                content: out.to_string(),
                is_error: !out.success(),
            },
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

/// The five built-in executors, by tool name.
pub(crate) fn executors(
    ws: Workspace,
    opts: BuiltinOptions,
) -> Vec<(&'static str, Box<dyn Executor>)> {
    let ws = Arc::new(ws);
    vec![
        (
            "read_file",
            Box::new(ReadFile(ws.clone(), opts.limits.clone())) as Box<dyn Executor>,
        ),
        (
            "write_file",
            Box::new(WriteFile(ws.clone(), opts.limits.clone())),
        ),
        (
            "list_dir",
            Box::new(ListDir(ws.clone(), opts.limits.clone())),
        ),
        ("fetch_url", Box::new(FetchUrl(opts.fetch.clone()))),
        ("run_shell", Box::new(RunShell(ws, opts))),
    ]
}
