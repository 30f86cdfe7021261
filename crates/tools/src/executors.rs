//! toolgate's own five tools as the gate's executors: the adapter between
//! a decided call's snapshot and the confined implementations of this
//! crate. The gate knows nothing of them; a host registers them with
//! `Gate::with_executors(toolgate_tools::executors(ws, policy, opts))`,
//! with the same policy the gate decides with: `run_shell` runs inside
//! that policy's OS boundary and `fetch_url` connects only to addresses
//! that policy allows.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_gate::{Executor, Gate, ToolOutput};
use toolgate_policy::{Call, Context, Policy};

use crate::{AddrCheck, FetchOptions, Limits, ShellOptions, Workspace};

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
    /// The shell's OS boundary; `None`: the policy's
    /// (`toolgate_sandbox::Profile::from_policy`).
    pub sandbox: Option<Arc<toolgate_sandbox::Profile>>,
    /// Settings of `fetch_url`.
    pub fetch: FetchOptions,
    /// Where the sandbox's proxy records the connections it refuses
    /// (`toolgate_gate::Setup::proxy_ledger`); `None`: not recorded.
    pub proxy_ledger: Option<toolgate_sandbox::ProxyLedger>,
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
            proxy_ledger: None,
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
struct FetchUrl(FetchOptions, Arc<Policy>);

impl Executor for ReadFile {
    fn execute(&self, call: &Call) -> ToolOutput {
        let path = match text(call, "path") {
            Ok(p) => p,
            Err(e) => return e,
        };
        match crate::read_file(&self.0, path, call.cwd.as_deref(), &self.1) {
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
        match crate::write_file(&self.0, path, content, call.cwd.as_deref(), &self.1) {
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
        match crate::list_dir(&self.0, path, call.cwd.as_deref(), &self.1) {
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
            sandbox: self.1.sandbox.clone().map(|profile| {
                // A command allowed because the sandbox holds it runs with
                // the boundary tightened for it.
                let held = !self.1.network
                    && !profile.network()
                    && profile.policy().is_some_and(|p| p.held_by_sandbox(call));
                if held {
                    Arc::new((*profile).clone().with_held(true))
                } else {
                    profile
                }
            }),
            proxy_ledger: self.1.proxy_ledger.clone(),
            ..ShellOptions::default()
        };
        match crate::run_shell(&self.0, command, &opts) {
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
        // The addresses the name resolves to must pass the same policy's
        // host and address rules as the call did.
        let mut opts = self.0.clone();
        if opts.addr_check.is_none() {
            let policy = self.1.clone();
            let snapshot = call.clone();
            opts.addr_check = Some(AddrCheck::new(move |_url, host, addrs| {
                policy
                    .check_connection(&snapshot, host, addrs, &Context::default())
                    .map_err(Into::into)
            }));
        }
        match crate::fetch_url(url, &opts) {
            Ok(out) => ToolOutput {
                content: out.to_string(),
                is_error: !out.success(),
            },
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

/// The five built-in executors, by tool name, confined to `ws` and to the
/// boundary of `policy` (the one the gate decides with).
pub fn executors(
    ws: Workspace,
    policy: Arc<Policy>,
    mut opts: BuiltinOptions,
) -> Vec<(String, Box<dyn Executor>)> {
    if opts.sandbox.is_none() {
        opts.sandbox = Some(Arc::new(toolgate_sandbox::Profile::from_policy(
            policy.clone(),
        )));
    }
    let ws = Arc::new(ws);
    vec![
        (
            "read_file".to_string(),
            Box::new(ReadFile(ws.clone(), opts.limits.clone())) as Box<dyn Executor>,
        ),
        (
            "write_file".to_string(),
            Box::new(WriteFile(ws.clone(), opts.limits.clone())),
        ),
        (
            "list_dir".to_string(),
            Box::new(ListDir(ws.clone(), opts.limits.clone())),
        ),
        (
            "fetch_url".to_string(),
            Box::new(FetchUrl(opts.fetch.clone(), policy)),
        ),
        ("run_shell".to_string(), Box::new(RunShell(ws, opts))),
    ]
}

/// Registers toolgate's own five tools on a gate, bound to the policy the
/// gate decides with.
pub trait BuiltinTools {
    /// The five tools with default settings, confined to `ws`.
    fn with_builtin_tools(self, ws: Workspace) -> Gate;
    /// The five tools with settings.
    fn with_builtin_tools_opts(self, ws: Workspace, opts: BuiltinOptions) -> Gate;
}

impl BuiltinTools for Gate {
    fn with_builtin_tools(self, ws: Workspace) -> Gate {
        self.with_builtin_tools_opts(ws, BuiltinOptions::default())
    }

    fn with_builtin_tools_opts(self, ws: Workspace, opts: BuiltinOptions) -> Gate {
        let policy = self.shared_policy();
        self.with_executors(executors(ws, policy, opts))
    }
}
