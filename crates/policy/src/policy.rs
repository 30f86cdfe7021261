//! A compiled policy: where it came from, its roots, and its indexed rules.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::effect::{Effect, Mode};
use crate::error::PolicyError;
use crate::file::{Doc, Origin, SandboxSetting, TestCase, ToolDecl};
use crate::index::{Index, Protected};
use crate::notify::Notify;
use crate::paths;
use crate::pattern::Anchors;
use crate::rule::Rule;

/// The file name looked for when no policy is named.
pub const POLICY_FILE_NAME: &str = "toolgate.toml";

/// The built-in default policy (docs/policy.md, "The built-in default
/// policy"), used when no file is found:
/// reads inside the roots are allowed, writes ask (and may be remembered for
/// the session), shell commands and fetches ask every time, anything else
/// is denied.
pub const BUILTIN_POLICY: &str = r#"
[[rule]]
id = "builtin:read"
effect = "allow"
match = ["Read"]
reason = "reads inside the workspace are allowed"

[[rule]]
id = "builtin:write"
effect = "ask"
match = ["Edit"]
remember = "session"
reason = "writes inside the workspace need approval"

[[rule]]
id = "builtin:shell"
effect = "ask"
match = ["Bash"]
reason = "every shell command needs approval"

[[rule]]
id = "builtin:fetch"
effect = "ask"
match = ["WebFetch"]
reason = "fetching a URL needs approval"
"#;

/// Settings that come from the environment rather than the policy file.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--workspace`: the directory relative `roots` resolve against (and
    /// the root of the built-in policy). Default: the policy file's directory.
    pub workspace: Option<PathBuf>,
    /// `~`. Default: `$HOME`.
    pub home: Option<PathBuf>,
    /// toolgate's state directory (writes there are a hard limit). Default:
    /// [`state_dir`](crate::state_dir()); a host that also opens the store
    /// passes the directory it opens.
    pub state_dir: Option<PathBuf>,
}

/// A compiled policy, ready to decide.
#[derive(Debug)]
pub struct Policy {
    pub(crate) file: Option<PathBuf>,
    pub(crate) file_real: Option<PathBuf>,
    pub(crate) default: Effect,
    pub(crate) mode: Mode,
    pub(crate) roots: Vec<PathBuf>,
    pub(crate) read_roots: Vec<PathBuf>,
    /// The built-in read roots that exist, less those the policy removes:
    /// resolved the first time a path outside the workspace roots is
    /// read, since finding which exist costs a few dozen system calls and
    /// most calls stay in the workspace.
    pub(crate) system_roots: std::sync::OnceLock<Vec<PathBuf>>,
    /// `read_roots` entries `"!PATH"`: not read roots, even beneath one.
    pub(crate) read_excluded: Vec<PathBuf>,
    /// Where credentials live (`builtin:credentials`).
    pub(crate) credentials: crate::system::Credentials,
    pub(crate) home: Option<PathBuf>,
    pub(crate) state_dir: Option<PathBuf>,
    pub(crate) ledger: crate::file::Ledger,
    pub(crate) rules: Vec<Rule>,
    pub(crate) index: Index,
    pub(crate) protected: Protected,
    pub(crate) sandbox: SandboxSetting,
    pub(crate) deny_read_bases: Vec<PathBuf>,
    pub(crate) tools: HashMap<String, ToolDecl>,
    pub(crate) tests: Vec<TestCase>,
    pub(crate) database: Option<String>,
    /// Where each rule came from, when the policy was merged from layers.
    pub(crate) layers: Option<Box<crate::layers::Layers>>,
    pub(crate) notify: crate::notify::Notify,
    /// The `[review]` table, when a reviewer is configured and not
    /// forbidden.
    pub(crate) review: Option<crate::review::ReviewConfig>,
    /// Per rule, the selectors that grant arbitrary code and why (empty
    /// for most rules): while a reviewer is configured, they ask.
    pub(crate) grants_code: Vec<Vec<(usize, String)>>,
    /// `[sandbox] writable`, resolved and checked.
    pub(crate) sandbox_writable: Vec<crate::sandbox_table::WritableDir>,
}

/// Finds the policy file: `explicit`, else `$TOOLGATE_POLICY`, else the
/// nearest `toolgate.toml` walking up from `cwd`; `None` means the built-in
/// default policy.
pub fn locate(explicit: Option<&Path>, env_policy: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = env_policy.filter(|p| !p.as_os_str().is_empty()) {
        return Some(p.to_path_buf());
    }
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let candidate = d.join(POLICY_FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

fn env_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

impl Policy {
    /// Reads and compiles a policy file.
    pub fn load(path: &Path, opts: &LoadOptions) -> Result<Policy, PolicyError> {
        Policy::load_read(path, std::fs::read(path), opts)
    }

    /// Compiles a policy file from what reading it gave (discovery reads
    /// the project's file once, for the session's check and for this).
    pub(crate) fn load_read(
        path: &Path,
        read: std::io::Result<Vec<u8>>,
        opts: &LoadOptions,
    ) -> Result<Policy, PolicyError> {
        let text = read
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "stream did not contain valid UTF-8",
                    )
                })
            })
            .map_err(|e| PolicyError::new(path, format!("cannot read the policy: {e}")))?;
        Policy::from_toml(&text, path, opts)
    }

    /// Compiles a policy from its text; `file` is where it lives (its
    /// directory anchors `/p` patterns and relative roots).
    pub fn from_toml(text: &str, file: &Path, opts: &LoadOptions) -> Result<Policy, PolicyError> {
        let doc = Doc::parse(text, file)?;
        let file_real = std::fs::canonicalize(file).ok();
        let policy_dir = file_real
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .or_else(|| file.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        Policy::compile(doc, text, file, Some(policy_dir), file_real, opts)
    }

    /// The built-in default policy for a workspace (`opts.workspace`, else
    /// the current directory).
    pub fn builtin(opts: &LoadOptions) -> Result<Policy, PolicyError> {
        let file = Path::new("<built-in>");
        let doc = Doc::parse_from(BUILTIN_POLICY, file, Origin::Builtin)?;
        Policy::compile(doc, BUILTIN_POLICY, file, None, None, opts)
    }

    /// Finds and loads the policy the way hosts do: `explicit` (`--policy`)
    /// or `$TOOLGATE_POLICY` is exactly one file; otherwise the managed,
    /// user and project layers are merged (see [`crate::layers`]), with
    /// every project untrusted. Hosts that keep trust in the state store
    /// call [`crate::layers::discover`] with a trust check.
    pub fn discover(
        explicit: Option<&Path>,
        cwd: &Path,
        opts: &LoadOptions,
    ) -> Result<Policy, PolicyError> {
        crate::layers::discover(explicit, cwd, opts, &crate::layers::Layering::from_env())
    }

    /// The one-file discovery: `locate` then `load`, or the built-in policy
    /// when no file is found.
    pub(crate) fn discover_single(
        explicit: Option<&Path>,
        cwd: &Path,
        opts: &LoadOptions,
    ) -> Result<Policy, PolicyError> {
        let env = std::env::var_os("TOOLGATE_POLICY").map(PathBuf::from);
        match locate(explicit, env.as_deref(), cwd) {
            Some(p) => Policy::load(&p, opts),
            None => {
                let mut o = opts.clone();
                if o.workspace.is_none() {
                    o.workspace = Some(cwd.to_path_buf());
                }
                Policy::builtin(&o)
            }
        }
    }

    pub(crate) fn compile(
        doc: Doc,
        text: &str,
        file: &Path,
        policy_dir: Option<PathBuf>,
        file_real: Option<PathBuf>,
        opts: &LoadOptions,
    ) -> Result<Policy, PolicyError> {
        let err = |offset: Option<usize>, m: String| PolicyError::at(file, text, offset, m);
        let home = opts.home.clone().or_else(env_home);
        let base = match (&opts.workspace, &policy_dir) {
            (Some(w), _) => w.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => std::env::current_dir().map_err(|e| {
                PolicyError::new(file, format!("cannot read the current directory: {e}"))
            })?,
        };
        let resolve_dir = |written: &str, offset: Option<usize>| -> Result<PathBuf, PolicyError> {
            let abs = if written == "~" || written.starts_with("~/") {
                let h = home.as_ref().ok_or_else(|| {
                    err(
                        offset,
                        format!("root `{written}`: no home directory is known"),
                    )
                })?;
                h.join(written.trim_start_matches('~').trim_start_matches('/'))
            } else {
                base.join(written)
            };
            paths::canonical_dir(&abs).map_err(|m| err(offset, format!("root {m}")))
        };
        let mut roots = Vec::new();
        if doc.roots.is_empty() {
            roots.push(resolve_dir(".", None)?);
        }
        for r in &doc.roots {
            roots.push(resolve_dir(&r.value, Some(r.offset))?);
        }
        let mut read_roots = Vec::new();
        let mut read_excluded = Vec::new();
        for r in &doc.read_roots {
            match r.value.strip_prefix('!') {
                // `"!PATH"`: no longer a read root, built-in or not; it
                // need not exist.
                Some(removed) => {
                    let abs = if removed == "~" || removed.starts_with("~/") {
                        let h = home.as_ref().ok_or_else(|| {
                            err(
                                Some(r.offset),
                                format!("read root `{}`: no home directory is known", r.value),
                            )
                        })?;
                        h.join(removed.trim_start_matches('~').trim_start_matches('/'))
                    } else if removed.is_empty() {
                        return Err(err(
                            Some(r.offset),
                            "read root `!`: name the root to remove (`!/opt`, or `!/` for every built-in one)".into(),
                        ));
                    } else {
                        base.join(removed)
                    };
                    let lexical = paths::normalize_lexically(&abs);
                    let real = paths::resolve_real(&lexical).unwrap_or_else(|_| lexical.clone());
                    for p in [lexical, real] {
                        if !read_excluded.contains(&p) {
                            read_excluded.push(p);
                        }
                    }
                }
                None => read_roots.push(resolve_dir(&r.value, Some(r.offset))?),
            }
        }
        let anchors = Anchors {
            home: home.clone(),
            policy_dir: policy_dir.clone().unwrap_or_else(|| roots[0].clone()),
            root: roots[0].clone(),
        };
        let index = Index::build(&doc.rules, &anchors).map_err(|(o, m)| err(Some(o), m))?;
        let deny_read_bases = crate::boundary::deny_read_bases(&doc.rules, &anchors);
        let credentials = crate::system::Credentials::build(&anchors, &roots, &doc.rules);
        let protected =
            Protected::build(&doc.protected, &anchors).map_err(|(o, m)| err(Some(o), m))?;
        let state_dir = opts
            .state_dir
            .clone()
            .or_else(|| crate::state_dir::state_dir().ok())
            .map(|d| {
                // Relative to the process's directory, as the store opens
                // it; when it cannot be resolved, the path as written is
                // still protected.
                let abs = std::path::absolute(&d).unwrap_or(d);
                let lexical = paths::normalize_lexically(&abs);
                paths::resolve_real(&lexical).unwrap_or(lexical)
            });
        let grants_code = crate::demote::compute(&doc.rules, &doc.tools);
        let rules = doc.rules.into_iter().map(|(rule, _)| rule).collect();
        let database = doc.database;
        let writable = doc.sandbox_writable;
        let mut policy = Policy {
            file: policy_dir.as_ref().map(|_| file.to_path_buf()),
            file_real,
            default: doc.default.unwrap_or(Effect::Deny),
            mode: doc.mode.unwrap_or_default(),
            roots,
            read_roots,
            system_roots: std::sync::OnceLock::new(),
            read_excluded,
            credentials,
            home,
            state_dir,
            ledger: doc.ledger.unwrap_or_default(),
            rules,
            index,
            protected,
            sandbox: doc.sandbox.unwrap_or_default(),
            deny_read_bases,
            tools: doc.tools.into_iter().map(|t| (t.name.clone(), t)).collect(),
            tests: doc.tests,
            database,
            layers: None,
            notify: doc.notify,
            review: doc.review.and_then(|t| t.config),
            grants_code,
            sandbox_writable: Vec::new(),
        };
        policy.sandbox_writable = crate::sandbox_table::compile(writable, &policy)?;
        Ok(policy)
    }

    /// `[sandbox] writable`: directories outside the roots that commands in
    /// the OS sandbox may write.
    pub fn sandbox_writable(&self) -> &[crate::sandbox_table::WritableDir] {
        &self.sandbox_writable
    }

    /// The id of a `deny` rule that refuses this tool whatever its input (a
    /// tool-name selector without a specifier, or `*`): what a host such as
    /// the MCP gateway hides from the tool list it shows a model. A call to
    /// a hidden tool is still decided, and refused, by `decide_in`.
    pub fn denied_by_name(&self, tool: &str) -> Option<&str> {
        let mut rules = Vec::new();
        self.index.tools.for_tool(tool, &mut rules);
        let by_name = rules
            .iter()
            .filter(|tr| tr.pattern.is_none())
            .map(|tr| tr.rule);
        let any = self.index.any.iter().map(|(r, _)| *r);
        by_name
            .chain(any)
            .filter_map(|r| self.rules.get(r))
            .find(|r| r.effect == Effect::Deny)
            .map(|r| r.id.as_str())
    }

    /// Whether a call that cannot be recorded may run (`[policy] ledger`).
    pub fn ledger(&self) -> crate::file::Ledger {
        self.ledger
    }

    /// The reviewer (`[review]`), when one is configured and allowed.
    pub fn review(&self) -> Option<&crate::review::ReviewConfig> {
        self.review.as_ref()
    }

    /// Sets or removes the reviewer, as a host that configures one outside
    /// the policy file does (tests, `toolgate review eval`).
    pub fn set_review(&mut self, review: Option<crate::review::ReviewConfig>) {
        self.review = review;
    }

    /// The allow rules that ask while a reviewer is configured, because
    /// they grant arbitrary code: `(rule id, selector as written, why)`,
    /// one entry per such selector. Empty when review is off.
    pub fn demoted_rules(&self) -> Vec<(String, String, String)> {
        if self.review.is_none() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (rule, sels) in self.rules.iter().zip(&self.grants_code) {
            for (sel, why) in sels {
                let source = rule.sources.get(*sel).cloned().unwrap_or_default();
                out.push((rule.id.clone(), source, why.clone()));
            }
        }
        out
    }

    /// Why the selector `sel` of rule `rule` grants arbitrary code, when
    /// it does and review is on: such an allow asks instead.
    pub(crate) fn demoted(&self, rule: usize, sel: usize) -> Option<&str> {
        self.review.as_ref()?;
        self.grants_code
            .get(rule)?
            .iter()
            .find(|(s, _)| *s == sel)
            .map(|(_, why)| why.as_str())
    }

    /// The `[notify]` table: webhook, desktop notifications, approval TTL.
    pub fn notify(&self) -> &Notify {
        &self.notify
    }

    /// `[state] database`: the store hosts open instead of the state
    /// directory's SQLite file (a `postgres://` URL or an absolute path);
    /// `$TOOLGATE_DATABASE_URL` still wins over it.
    pub fn database(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// The layers the policy was merged from, with each rule's origin;
    /// `None` for a policy read from one file.
    pub fn layers(&self) -> Option<&crate::layers::Layers> {
        self.layers.as_deref()
    }

    /// The policy file, or `None` for the built-in policy.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The workspace roots, canonical.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The extra read-only roots the policy names, canonical.
    pub fn read_roots(&self) -> &[PathBuf] {
        &self.read_roots
    }

    /// The directories beside the workspace roots that file tools open
    /// for reading: the policy's `read_roots` and the built-in ones that
    /// are directories (the policy allows reading library sources and
    /// system files there, so the tools must be able to).
    pub fn tool_read_dirs(&self) -> Vec<PathBuf> {
        self.read_roots
            .iter()
            .chain(self.system_read_roots().iter().filter(|p| p.is_dir()))
            .cloned()
            .collect()
    }

    /// The built-in read-only roots (system and toolchain locations,
    /// [`crate::system::BUILTIN_READ_ROOTS`]) that exist here, less those
    /// the policy removes, canonical.
    pub fn system_read_roots(&self) -> &[PathBuf] {
        self.system_roots.get_or_init(|| {
            crate::system::builtin_read_roots(self.home.as_deref(), &self.read_excluded)
        })
    }

    /// Whether reading `real` (absolute, resolved) stays within the read
    /// roots: the workspace roots, the policy's `read_roots` and the
    /// built-in ones, less the `"!PATH"` entries.
    pub fn readable(&self, real: &Path) -> bool {
        let within = |roots: &[PathBuf]| roots.iter().any(|r| paths::is_within(real, r));
        within(&self.roots)
            || ((within(&self.read_roots) || within(self.system_read_roots()))
                && !within(&self.read_excluded))
    }

    /// The credential location (`~/.ssh/**`, `/etc/shadow`, ...) `path`
    /// (absolute) falls under, if any: reading or writing it is denied
    /// (`builtin:credentials`) unless an allow rule names it exactly.
    pub fn credential(&self, path: &Path) -> Option<&'static str> {
        self.credentials.find(path)
    }

    /// The credential locations that name one file or directory each
    /// (`~/.ssh`, `~/.netrc`, `~/.config/gcloud`), home expanded, whether
    /// or not they exist: the sandbox masks those that do for a command it
    /// was trusted to hold. Globs deeper than a trailing `/**` (`/proc/*/environ`)
    /// and locations that hold the home directory (`/root`) are left out.
    pub fn credential_locations(&self) -> Vec<PathBuf> {
        crate::system::credential_locations(self.home())
    }

    /// The policy's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// What happens when no rule matches.
    pub fn default_effect(&self) -> Effect {
        self.default
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The `[[test]]` cases.
    pub fn tests(&self) -> &[TestCase] {
        &self.tests
    }

    /// The home directory `~` means.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}
