//! Layered policies: managed, user and project files merged into one.
//!
//! | layer | file | honoured when |
//! | --- | --- | --- |
//! | managed | `/etc/toolgate/toolgate.toml` | owned by root and not group or world writable |
//! | user | `~/.config/toolgate/toolgate.toml` | it exists |
//! | project | the nearest `toolgate.toml` from the working directory | it exists |
//!
//! `--policy FILE` (or `$TOOLGATE_POLICY`) still means exactly that one
//! file, and with neither a managed nor a user file the project file is
//! read alone, as it always was. Otherwise:
//!
//! - **Rules** of every layer apply together. deny > ask > allow, so a deny
//!   in any layer is final. Ids stay unique: a managed rule is
//!   `managed:<id>`, a user rule `user:<id>`, a project rule keeps its id.
//! - **Scalars** (`default`, `mode`, `roots`, `read_roots`, `ledger`):
//!   managed > project > user; `protected` paths add up. `[state]
//!   database` comes from the managed or user layer only (a project must not
//!   send the ledger elsewhere).
//! - **Lock**: a managed `lock = ["mode", "default", "bypass", ...]` keeps
//!   the lower layers from setting what it names ([`LOCKABLE`]).
//! - **Trust**: a project's allow rules, mode, roots, ledger setting and
//!   tool declarations apply only once the person has trusted the file as
//!   it is now (`toolgate trust`, kept in the state store with the file's
//!   digest: an edited file needs trusting again). Its deny and ask rules
//!   apply at once. Rules that do not apply are kept in [`Layers::rules`]
//!   with the reason, for `toolgate policy show` and `explain`.
//!
//! - **Review** (`[review]`, the reviewer that answers asks): the managed
//!   layer's table, when it has one, decides entirely: `enabled = false`
//!   there forbids review in every layer, and a reviewer named there is the
//!   one used (no lower layer changes or turns it off). Else the user
//!   layer's table; else the project's, only when the project is trusted.
//!   A reviewer's answers turn asks into allows, and `api_key_env` sends
//!   the variable it names to `base_url`, so an untrusted project's table
//!   is ignored with a note, and a nested file's always is.
//! - **`[sandbox] writable`** (directories outside the roots the sandbox
//!   lets commands write): the managed, user and trusted project layers'
//!   entries together; an untrusted project's are ignored with a note, a
//!   nested file's always are.
//!
//! Relative roots and `/p` patterns of the managed and user layers mean the
//! project's directory (the working directory when there is no project
//! file). The layer files themselves are protected paths (writes always
//! ask); the first file of the merge (the project's, else the user's, else
//! the managed one) is the policy file whose writes are a hard limit.

use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::effect::{Effect, Mode};
use crate::error::PolicyError;
use crate::file::{Doc, Placed};
use crate::policy::{LoadOptions, Policy, locate};
use crate::review::ReviewTable;

/// The managed policy's path.
pub const MANAGED_POLICY: &str = "/etc/toolgate/toolgate.toml";

/// Names another managed policy file, for tests and images; honoured only
/// while [`MANAGED_POLICY`] does not exist, and under the same ownership
/// rules.
pub const MANAGED_POLICY_ENV: &str = "TOOLGATE_MANAGED_POLICY";

/// Names another user policy file (default `~/.config/toolgate/toolgate.toml`).
pub const USER_POLICY_ENV: &str = "TOOLGATE_USER_POLICY";

/// What a managed `lock` may name.
pub const LOCKABLE: &[&str] = &[
    "mode",
    "default",
    "bypass",
    "roots",
    "read_roots",
    "ledger",
    "allow",
];

/// A `lock` entry that names no lockable setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` cannot be locked; lockable: {list}", list = LOCKABLE.join(", "))]
pub struct LockError(pub String);

/// Checks one `lock` entry.
pub(crate) fn check_lock(name: &str) -> Result<(), LockError> {
    if LOCKABLE.contains(&name) {
        Ok(())
    } else {
        Err(LockError(name.to_string()))
    }
}

/// One of the three layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// `/etc/toolgate/toolgate.toml`, set by the machine's administrator.
    Managed,
    /// `~/.config/toolgate/toolgate.toml`, the person's own.
    User,
    /// The nearest `toolgate.toml` from the anchor, which came with the code.
    Project,
    /// A `toolgate.toml` below the project's, on the way from the anchor to
    /// the working directory: it can only tighten (its deny and ask rules
    /// apply; nothing else of it does).
    Nested,
}

impl Layer {
    /// `managed`, `user` or `project`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Managed => "managed",
            Layer::User => "user",
            Layer::Project => "project",
            Layer::Nested => "nested",
        }
    }

    /// The prefix of this layer's rule ids (none for the project).
    fn id_prefix(self) -> &'static str {
        match self {
            Layer::Managed => "managed:",
            Layer::User => "user:",
            Layer::Project => "",
            Layer::Nested => "nested:",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A layer file that was found.
#[derive(Debug, Clone)]
pub struct LayerFile {
    /// Which layer.
    pub layer: Layer,
    /// Its path.
    pub path: PathBuf,
    /// SHA-256 (hex) of its bytes, what trust is bound to.
    pub digest: String,
    /// For the project: whether it is trusted as it is now.
    pub trusted: Option<bool>,
}

/// Where one rule came from and whether it applies.
#[derive(Debug, Clone)]
pub struct RuleOrigin {
    /// The rule's id in the merged policy.
    pub id: String,
    /// Its effect.
    pub effect: Effect,
    /// Its selectors as written.
    pub selectors: Vec<String>,
    /// Its layer.
    pub layer: Layer,
    /// The file it is written in.
    pub file: PathBuf,
    /// The line of its first selector.
    pub line: usize,
    /// Why it does not apply; `None` when it does.
    pub inactive: Option<String>,
}

/// How a merged policy was put together.
#[derive(Debug, Clone, Default)]
pub struct Layers {
    /// The layer files found, managed first.
    pub files: Vec<LayerFile>,
    /// Every rule of every layer, in merge order, applying or not.
    pub rules: Vec<RuleOrigin>,
    /// What the managed layer locks.
    pub locked: Vec<String>,
    /// Warnings: ignored files, settings that did not apply.
    pub notes: Vec<String>,
}

impl Layers {
    /// The origin of the rule with this id.
    pub fn origin(&self, id: &str) -> Option<&RuleOrigin> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// Rules written but not applying (e.g. an untrusted project's allows).
    pub fn inactive(&self) -> impl Iterator<Item = &RuleOrigin> {
        self.rules.iter().filter(|r| r.inactive.is_some())
    }
}

/// `  [project /p/toolgate.toml:3]`, the layer and place of a rule of a
/// layered policy; empty for a one-file policy.
pub fn describe_origin(policy: &Policy, id: &str) -> String {
    match policy.layers().and_then(|l| l.origin(id)) {
        Some(o) => format!("  [{} {}:{}]", o.layer, o.file.display(), o.line),
        None => String::new(),
    }
}

/// Every rule of a policy with its origin: a layered policy's
/// [`Layers::rules`]; for a one-file policy, its rules read back from the
/// file (or the built-in text) with their lines.
pub fn origins(policy: &Policy) -> Vec<RuleOrigin> {
    if let Some(layers) = policy.layers()
        && !layers.files.is_empty()
    {
        return layers.rules.clone();
    }
    let (path, text) = match policy.file() {
        Some(f) => match std::fs::read_to_string(f) {
            Ok(t) => (f.to_path_buf(), t),
            Err(_) => return Vec::new(),
        },
        None => (
            PathBuf::from("<built-in>"),
            crate::BUILTIN_POLICY.to_owned(),
        ),
    };
    let Ok(doc) = Doc::parse(&text, &path) else {
        return Vec::new();
    };
    doc.rules
        .iter()
        .map(|(rule, selectors)| RuleOrigin {
            id: rule.id.clone(),
            effect: rule.effect,
            selectors: rule.sources.clone(),
            layer: Layer::Project,
            file: path.clone(),
            line: selectors.first().map_or(1, |s| line_of(&text, s.offset)),
            inactive: None,
        })
        .collect()
}

/// Asks the host whether a project file is trusted: `(database, file,
/// digest)`, where `database` is the managed or user layer's `[state]
/// database` (the store to look in) and `file` the canonical path. An error
/// counts as untrusted.
pub type TrustCheck<'a> = dyn Fn(Option<&str>, &Path, &str) -> Result<bool, TrustError> + 'a;

/// Why a trust check could not answer. The policy crate does not know the
/// store a host looks in, so the host's own error is carried as it is.
pub type TrustError = Box<dyn std::error::Error + Send + Sync>;

/// Why a managed policy file is not honoured: anyone who can write it could
/// loosen every user's policy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManagedError {
    /// Not owned by root.
    #[error("it is owned by uid {0}, not root")]
    NotRoot(u32),
    /// Writable by others than its owner.
    #[error("it is group or world writable (mode {0:o})")]
    Writable(u32),
    /// Ownership cannot be checked off Unix.
    #[error("managed policies are honoured on Unix only")]
    Unsupported,
}

/// A host's record of the project policy its session began with: given
/// the project's policy file as discovery found it (its path, and its bytes
/// when they could be read; `None` when there is none), whether it is not
/// the one the session began with (it appeared, changed or went away since,
/// e.g. by a `git checkout`). Discovery reads the file once and both checks
/// and compiles those bytes, so the file checked is the file honoured.
pub type ProjectSeen<'a> = dyn Fn(Option<&Path>, Option<&[u8]>) -> bool + 'a;

/// Where the managed and user layers are and how trust is checked.
pub struct Layering<'a> {
    /// The managed policy file.
    pub managed: PathBuf,
    /// The user policy file, when a home is known.
    pub user: Option<PathBuf>,
    /// The trust check; without one, no project is trusted.
    pub trust: Option<&'a TrustCheck<'a>>,
    /// Where the project policy is found from: the workspace the host was
    /// installed for, or the directory its session started in. `None`: the
    /// working directory. The agent moves the working directory (`cd`), so a
    /// host that knows better says so here: a `toolgate.toml` the agent
    /// writes further down then only tightens.
    pub anchor: Option<PathBuf>,
    /// The session's check of the project's policy file (see
    /// [`ProjectSeen`]); without one, it never changed. A changed file is
    /// merged, even alone, as an untrusted layer, so only its deny and ask
    /// rules apply until it is trusted.
    pub project_seen: Option<&'a ProjectSeen<'a>>,
}

impl<'a> Layering<'a> {
    /// The standard paths, with `$TOOLGATE_MANAGED_POLICY` (only while the
    /// standard managed file is absent) and `$TOOLGATE_USER_POLICY`.
    pub fn from_env() -> Layering<'static> {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let managed = match var(MANAGED_POLICY_ENV) {
            Some(p) if !Path::new(MANAGED_POLICY).exists() => p,
            _ => PathBuf::from(MANAGED_POLICY),
        };
        let user = var(USER_POLICY_ENV).or_else(|| {
            let config =
                var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))?;
            Some(config.join("toolgate").join(crate::POLICY_FILE_NAME))
        });
        Layering {
            managed,
            user,
            trust: None,
            anchor: None,
            project_seen: None,
        }
    }

    /// The same, with a trust check.
    pub fn with_trust<'b>(self, trust: &'b TrustCheck<'b>) -> Layering<'b> {
        Layering {
            managed: self.managed,
            user: self.user,
            trust: Some(trust),
            anchor: self.anchor,
            project_seen: None,
        }
    }

    /// The same, with the session's check of the project's policy file
    /// (see [`Layering::project_seen`]).
    pub fn with_project_seen(mut self, seen: &'a ProjectSeen<'a>) -> Self {
        self.project_seen = Some(seen);
        self
    }

    /// The same, with the project policy found from `anchor` (see
    /// [`Layering::anchor`]).
    pub fn with_anchor(mut self, anchor: Option<PathBuf>) -> Self {
        self.anchor = anchor;
        self
    }
}

/// SHA-256 (hex) of a policy file's bytes: what `toolgate trust` records.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether a managed policy file may be honoured: owned by root, and
/// neither group nor world writable. `Err` says why not.
#[cfg(unix)]
pub fn check_managed(meta: &std::fs::Metadata) -> Result<(), ManagedError> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != 0 {
        return Err(ManagedError::NotRoot(meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(ManagedError::Writable(meta.mode() & 0o777));
    }
    Ok(())
}

/// Whether a managed policy file may be honoured (never off Unix).
#[cfg(not(unix))]
pub fn check_managed(_meta: &std::fs::Metadata) -> Result<(), ManagedError> {
    Err(ManagedError::Unsupported)
}

/// One layer as read.
struct Read {
    layer: Layer,
    path: PathBuf,
    text: String,
    doc: Doc,
    digest: String,
}

/// Finds and merges the policy layers (see the module documentation).
pub fn discover(
    explicit: Option<&Path>,
    cwd: &Path,
    opts: &LoadOptions,
    layering: &Layering<'_>,
) -> Result<Policy, PolicyError> {
    let env = std::env::var_os("TOOLGATE_POLICY").filter(|v| !v.is_empty());
    if explicit.is_some() || env.is_some() {
        return Policy::discover_single(explicit, cwd, opts);
    }
    let anchor = layering.anchor.as_deref().unwrap_or(cwd);
    let mut notes = Vec::new();
    let managed = read_managed(&layering.managed, &mut notes)?;
    let user = match &layering.user {
        Some(p) if p.is_file() => Some(read_layer(Layer::User, p)?),
        _ => None,
    };
    let project_path = locate(None, None, anchor);
    // Read once: the bytes the session's check sees are the bytes compiled.
    let project_read = project_path.as_deref().map(std::fs::read);
    let project_changed = layering.project_seen.is_some_and(|seen| {
        let bytes = project_read.as_ref().and_then(|r| r.as_deref().ok());
        seen(project_path.as_deref(), bytes)
    });
    let top = project_path
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(anchor)
        .to_path_buf();
    let nested = nested_files(&top, anchor, cwd)
        .iter()
        .map(|p| read_layer(Layer::Nested, p))
        .collect::<Result<Vec<_>, _>>()?;
    if project_changed {
        notes.push(
            "the project's policy file changed during this session: only its deny and ask rules apply until it is trusted (`toolgate trust`) or a new session begins".to_owned(),
        );
    }
    if managed.is_none() && user.is_none() && nested.is_empty() && !project_changed {
        // One layer: the project file alone, exactly as before layers.
        let mut policy = match (&project_path, project_read) {
            (Some(p), Some(read)) => Policy::load_read(p, read, opts)?,
            _ => Policy::discover_single(None, anchor, opts)?,
        };
        if !notes.is_empty() {
            policy.layers = Some(Box::new(Layers {
                notes,
                ..Layers::default()
            }));
        }
        return Ok(policy);
    }
    let project = match (project_path, project_read) {
        (Some(p), Some(read)) => Some(read_layer_from(Layer::Project, &p, read)?),
        _ => None,
    };
    merge(
        Found {
            managed,
            user,
            project,
            nested,
        },
        anchor,
        opts,
        layering,
        project_changed,
        notes,
    )
}

/// The `toolgate.toml` files in the directories below `top` down to `cwd`,
/// outermost first, when `cwd` lies within `anchor` (a directory the agent
/// moved to outside it has no say at all).
fn nested_files(top: &Path, anchor: &Path, cwd: &Path) -> Vec<PathBuf> {
    let lexical = |p: &Path| crate::paths::normalize_lexically(p);
    let (top, anchor, cwd) = (lexical(top), lexical(anchor), lexical(cwd));
    if !cwd.starts_with(&anchor) || !cwd.starts_with(&top) {
        return Vec::new();
    }
    let mut dirs: Vec<&Path> = cwd
        .ancestors()
        .take_while(|d| *d != top.as_path() && d.starts_with(&top))
        .collect();
    dirs.reverse();
    dirs.into_iter()
        .map(|d| d.join(crate::POLICY_FILE_NAME))
        .filter(|f| f.is_file())
        .collect()
}

fn read_layer(layer: Layer, path: &Path) -> Result<Read, PolicyError> {
    read_layer_from(layer, path, std::fs::read(path))
}

/// A layer from what reading its file gave.
fn read_layer_from(
    layer: Layer,
    path: &Path,
    read: std::io::Result<Vec<u8>>,
) -> Result<Read, PolicyError> {
    let bytes =
        read.map_err(|e| PolicyError::new(path, format!("cannot read the {layer} policy: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| PolicyError::new(path, format!("the {layer} policy is not UTF-8")))?;
    let doc = Doc::parse(&text, path)?;
    if layer != Layer::Managed
        && let Some(l) = doc.lock.first()
    {
        return Err(PolicyError::at(
            path,
            &text,
            Some(l.offset),
            "`lock` belongs in the managed policy only",
        ));
    }
    Ok(Read {
        layer,
        path: path.to_path_buf(),
        digest: digest(text.as_bytes()),
        text,
        doc,
    })
}

fn read_managed(path: &Path, notes: &mut Vec<String>) -> Result<Option<Read>, PolicyError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => {
            notes.push(format!(
                "the managed policy `{}` is not a file: ignored",
                path.display()
            ));
            return Ok(None);
        }
        Err(_) => return Ok(None),
    };
    if let Err(why) = check_managed(&meta) {
        notes.push(format!(
            "the managed policy `{}` is ignored: {why}",
            path.display()
        ));
        return Ok(None);
    }
    read_layer(Layer::Managed, path).map(Some)
}

/// Byte offset to 1-based line.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map_or(1, |t| t.bytes().filter(|b| *b == b'\n').count() + 1)
}

/// The layer files [`discover`] read.
struct Found {
    managed: Option<Read>,
    user: Option<Read>,
    project: Option<Read>,
    nested: Vec<Read>,
}

fn merge(
    found: Found,
    cwd: &Path,
    opts: &LoadOptions,
    layering: &Layering<'_>,
    project_changed: bool,
    mut notes: Vec<String>,
) -> Result<Policy, PolicyError> {
    let Found {
        managed,
        user,
        project,
        nested,
    } = found;
    // Alone, a project file is the whole policy, as it always was, unless
    // it is not the file its session began with.
    let alone = managed.is_none() && user.is_none() && !project_changed;
    let locked: Vec<String> = managed
        .as_ref()
        .map(|m| m.doc.lock.iter().map(|l| l.value.clone()).collect())
        .unwrap_or_default();
    let is_locked = |name: &str| locked.iter().any(|l| l == name);

    // Trust is looked up in the store the managed or user layer names.
    let database = managed
        .as_ref()
        .and_then(|m| m.doc.database.clone())
        .or_else(|| user.as_ref().and_then(|u| u.doc.database.clone()));
    let trusted = match &project {
        None => false,
        Some(_) if alone => true,
        Some(p) => {
            let real = std::fs::canonicalize(&p.path).unwrap_or_else(|_| p.path.clone());
            match layering.trust {
                None => false,
                Some(check) => match check(database.as_deref(), &real, &p.digest) {
                    Ok(t) => t,
                    Err(e) => {
                        notes.push(format!(
                            "the project's trust could not be read ({e}): it is treated as untrusted"
                        ));
                        false
                    }
                },
            }
        }
    };

    // The project's directory anchors relative roots and `/p` patterns.
    let base_file = project
        .as_ref()
        .map(|p| p.path.clone())
        .unwrap_or_else(|| cwd.join(crate::POLICY_FILE_NAME));
    let mut layer_opts = opts.clone();
    if layer_opts.workspace.is_none() {
        layer_opts.workspace = base_file.parent().map(Path::to_path_buf);
    }

    let mut merged = Doc::default();
    let mut origins = Vec::new();
    let mut files = Vec::new();
    let layer_reads = [&managed, &user, &project].into_iter().flatten();
    for (n, read) in layer_reads.chain(nested.iter()).enumerate() {
        // Each layer compiles on its own first, so that an error names its
        // own file and line.
        Policy::compile(
            read.doc.clone(),
            &read.text,
            &read.path,
            base_file.parent().map(Path::to_path_buf),
            None,
            &layer_opts,
        )?;
        let layer = read.layer;
        files.push(LayerFile {
            layer,
            path: read.path.clone(),
            digest: read.digest.clone(),
            trusted: (layer == Layer::Project).then_some(trusted),
        });
        for (rule, selectors) in &read.doc.rules {
            if layer == Layer::Project
                && (rule.id.starts_with("managed:") || rule.id.starts_with("user:"))
            {
                let offset = selectors.first().map(|s| s.offset);
                return Err(PolicyError::at(
                    &read.path,
                    &read.text,
                    offset,
                    format!(
                        "rule id `{}` is reserved for the managed and user layers",
                        rule.id
                    ),
                ));
            }
            let mut rule = rule.clone();
            rule.id = match layer {
                // Two nested files may use the same ids.
                Layer::Nested => format!("{}{n}:{}", layer.id_prefix(), rule.id),
                _ => format!("{}{}", layer.id_prefix(), rule.id),
            };
            let inactive = if rule.effect != Effect::Allow {
                None
            } else if layer == Layer::Nested {
                Some(
                    "a policy file below the project's only tightens: its allow rules do not apply"
                        .to_owned(),
                )
            } else if layer == Layer::Project && !trusted {
                Some("the project is not trusted (run `toolgate trust`)".to_owned())
            } else if layer != Layer::Managed && is_locked("allow") {
                Some("the managed policy locks `allow`".to_owned())
            } else {
                None
            };
            origins.push(RuleOrigin {
                id: rule.id.clone(),
                effect: rule.effect,
                selectors: rule.sources.clone(),
                layer,
                file: read.path.clone(),
                line: selectors
                    .first()
                    .map_or(1, |s| line_of(&read.text, s.offset)),
                inactive: inactive.clone(),
            });
            if inactive.is_none() {
                merged.rules.push((rule, selectors.clone()));
            }
        }
        merged.protected.extend(read.doc.protected.iter().cloned());
        if layer == Layer::Nested {
            let d = &read.doc;
            if d.default.is_some()
                || d.mode.is_some()
                || !d.roots.is_empty()
                || !d.read_roots.is_empty()
                || d.ledger.is_some()
                || d.database.is_some()
                || d.review.is_some()
                || !d.sandbox_writable.is_empty()
                || !d.tools.is_empty()
            {
                notes.push(format!(
                    "`{}` sets more than rules: a policy file below the project's only adds deny and ask rules and protected paths, so the rest is ignored",
                    read.path.display()
                ));
            }
            continue;
        }
        if layer != Layer::Project || trusted {
            for tool in &read.doc.tools {
                if !merged.tools.iter().any(|t| t.name == tool.name) {
                    merged.tools.push(tool.clone());
                }
            }
        }
    }

    // Scalars: managed > project > user, the project's loosening ones
    // only when trusted, and nothing the managed layer locks.
    let m = managed.as_ref().map(|r| &r.doc);
    let u = user.as_ref().map(|r| &r.doc);
    let p = project.as_ref().map(|r| &r.doc);
    let p_trusted = p.filter(|_| trusted);
    let lower = |name: &str| !is_locked(name);
    // An untrusted project's default applies only where it tightens what
    // would apply without it (the user's, else deny): `default = "ask"` in
    // a file the agent's repository brought must not loosen a user's deny.
    let user_default = u.and_then(|d| d.default).filter(|_| lower("default"));
    let project_default = p.and_then(|d| d.default).filter(|_| lower("default"));
    let project_default = match project_default {
        Some(e) if !trusted && e < user_default.unwrap_or(Effect::Deny) => {
            notes.push(format!(
                "the project's `default = \"{}\"` does not apply: the project is not trusted",
                e.as_str()
            ));
            None
        }
        other => other,
    };
    merged.default = m
        .and_then(|d| d.default)
        .or(project_default)
        .or(user_default);
    let lower_mode = |d: Option<&Doc>, layer: Layer, notes: &mut Vec<String>| -> Option<Mode> {
        let mode = d.and_then(|d| d.mode)?;
        if is_locked("mode") {
            notes.push(format!(
                "the {layer} policy's mode `{mode}` is ignored: the managed policy locks `mode`"
            ));
            return None;
        }
        if mode == Mode::Bypass && is_locked("bypass") {
            notes.push(format!(
                "the {layer} policy's mode `bypass` is ignored: the managed policy locks `bypass`"
            ));
            return None;
        }
        Some(mode)
    };
    if p.is_some_and(|d| d.mode.is_some()) && !trusted {
        notes.push("the project's mode does not apply: the project is not trusted".to_owned());
    }
    merged.mode = match m.and_then(|d| d.mode) {
        Some(mode) => Some(mode),
        None => lower_mode(p_trusted, Layer::Project, &mut notes)
            .or_else(|| lower_mode(u, Layer::User, &mut notes)),
    };
    let pick = |name: &str, get: &dyn Fn(&Doc) -> Vec<Placed<String>>| -> Vec<Placed<String>> {
        let non_empty = |d: Option<&Doc>| d.map(get).filter(|v| !v.is_empty());
        non_empty(m)
            .or_else(|| non_empty(p_trusted).filter(|_| lower(name)))
            .or_else(|| non_empty(u).filter(|_| lower(name)))
            .unwrap_or_default()
    };
    merged.roots = pick("roots", &|d| d.roots.clone());
    merged.read_roots = pick("read_roots", &|d| d.read_roots.clone());
    if p.is_some_and(|d| !d.roots.is_empty() || !d.read_roots.is_empty()) && !trusted {
        notes.push(
            "the project's roots do not apply: the project is not trusted (its directory is the root)"
                .to_owned(),
        );
    }
    merged.ledger = m
        .and_then(|d| d.ledger)
        .or_else(|| p_trusted.and_then(|d| d.ledger).filter(|_| lower("ledger")))
        .or_else(|| u.and_then(|d| d.ledger).filter(|_| lower("ledger")));
    merged.database = database;
    if p.is_some_and(|d| d.database.is_some()) {
        notes.push(
            "the project's `[state] database` is ignored: only the managed and user policies name the store"
                .to_owned(),
        );
    }
    merged.review = pick_review(m, u, p, trusted, &mut notes);
    // `[sandbox] writable` grants writes outside the roots: every layer's
    // entries count, a project's only once it is trusted.
    for d in [m, u, p_trusted].into_iter().flatten() {
        merged
            .sandbox_writable
            .extend(d.sandbox_writable.iter().cloned());
    }
    if p.is_some_and(|d| !d.sandbox_writable.is_empty()) && !trusted {
        notes.push(
            "the project's `[sandbox] writable` does not apply: the project is not trusted"
                .to_owned(),
        );
    }
    merged.tests = p.map(|d| d.tests.clone()).unwrap_or_default();
    // Every layer file is a protected path: writes to it always ask.
    for path in [Some(&layering.managed), layering.user.as_ref()]
        .into_iter()
        .flatten()
    {
        merged.protected.push(Placed {
            value: format!("/{}", path.display()),
            offset: 0,
        });
    }

    // The policy file of the merge (its writes are a hard limit): the
    // project's, else the user's, else the managed one.
    let primary = project
        .as_ref()
        .or(user.as_ref())
        .or(managed.as_ref())
        .map(|r| r.path.clone())
        .unwrap_or_else(|| base_file.clone());
    let file_real = std::fs::canonicalize(&primary).ok();
    let text = project.as_ref().map(|r| r.text.as_str()).unwrap_or("");
    let mut policy = Policy::compile(
        merged,
        text,
        &primary,
        base_file.parent().map(Path::to_path_buf),
        file_real,
        &layer_opts,
    )?;
    policy.layers = Some(Box::new(Layers {
        files,
        rules: origins,
        locked,
        notes,
    }));
    Ok(policy)
}

/// `[review]`: the managed layer's table entirely, else the user's, else
/// a trusted project's. A lower table that does not count is noted.
fn pick_review(
    m: Option<&Doc>,
    u: Option<&Doc>,
    p: Option<&Doc>,
    trusted: bool,
    notes: &mut Vec<String>,
) -> Option<ReviewTable> {
    let table = |d: Option<&Doc>| d.and_then(|d| d.review.clone());
    let (managed, user, project) = (table(m), table(u), table(p));
    let ignored = |layer: Layer, why: &str, notes: &mut Vec<String>| {
        notes.push(format!("the {layer} policy's `[review]` is ignored: {why}"));
    };
    if let Some(t) = managed {
        let why = if t.config.is_some() {
            "the managed policy names the reviewer"
        } else {
            "the managed policy turns review off"
        };
        if user.is_some() {
            ignored(Layer::User, why, notes);
        }
        if project.is_some() {
            ignored(Layer::Project, why, notes);
        }
        return Some(t);
    }
    if let Some(t) = user {
        if project.is_some() {
            ignored(Layer::Project, "the user policy's decides review", notes);
        }
        return Some(t);
    }
    match project {
        Some(t) if trusted => Some(t),
        Some(_) => {
            ignored(
                Layer::Project,
                "the project is not trusted (run `toolgate trust`); a project's reviewer could answer its asks and be sent any environment variable",
                notes,
            );
            None
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one() {
        let text = "a\nb\nc";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 2), 2);
        assert_eq!(line_of(text, 4), 3);
        assert_eq!(line_of(text, 99), 3);
    }

    #[test]
    fn only_known_names_lock() {
        assert!(check_lock("mode").is_ok());
        assert!(check_lock("bypass").is_ok());
        assert!(check_lock("everything").is_err());
    }
}
