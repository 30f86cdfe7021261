//! What the sandbox is built from: the policy's roots, its Read deny rules,
//! its protected paths, the policy file and the state directory, and whether
//! the network stays open.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolgate_policy::Policy;

/// Entries the walk of the roots looks at, at most, before it gives up and
/// the command is refused (masks found from a partial walk would leave
/// denied files readable).
pub const WALK_LIMIT: usize = 200_000;

/// The policy-derived description of a sandbox, fixed for a session; each
/// command's [`Plan`](crate::Plan) is made from it against what exists when
/// the command starts.
#[derive(Debug, Clone)]
pub struct Profile {
    pub(crate) policy: Option<Arc<Policy>>,
    pub(crate) roots: Vec<PathBuf>,
    pub(crate) readonly: Vec<PathBuf>,
    pub(crate) network: bool,
    /// With the network closed: reach the hosts the policy allows fetching
    /// through toolgate's proxy, from a network namespace of the command's
    /// own (`crate::netns`).
    pub(crate) proxy: bool,
    pub(crate) walk_limit: usize,
    /// The command runs because the sandbox holds it (`sandbox:holds`):
    /// paths an `ask` rule names for writing are read-only and the
    /// credential locations masked, answering the questions it replaced.
    pub(crate) held: bool,
}

impl Profile {
    /// The boundary a policy asks for: writes in its roots, its Read denies
    /// masked, its protected paths, its file and toolgate's state directory
    /// read-only, and no network but, when a rule allows fetches, the
    /// hosts the policy allows through toolgate's proxy.
    pub fn from_policy(policy: Arc<Policy>) -> Profile {
        let mut readonly = Vec::new();
        if let Some(f) = policy.file_resolved() {
            readonly.push(f.to_path_buf());
        }
        if let Some(d) = policy.state_dir() {
            readonly.push(d.to_path_buf());
        }
        Profile {
            roots: policy.roots().to_vec(),
            network: false,
            proxy: policy.allows_network(),
            readonly,
            policy: Some(policy),
            walk_limit: WALK_LIMIT,
            held: false,
        }
    }

    /// A boundary with no policy: writes only in `roots` (canonical
    /// directories), nothing masked, the network closed.
    pub fn for_roots(roots: Vec<PathBuf>) -> Profile {
        Profile {
            policy: None,
            roots,
            readonly: Vec::new(),
            network: false,
            proxy: false,
            walk_limit: WALK_LIMIT,
            held: false,
        }
    }

    /// Opens the network to every host whatever the policy says; `false`
    /// leaves it as the policy has it (closed, or through the proxy: see
    /// [`Profile::with_proxy`]).
    pub fn with_network(mut self, network: bool) -> Profile {
        self.network = network;
        self
    }

    /// Gives commands the proxy (or takes it away): with the network
    /// closed, they reach the hosts the policy allows fetching through it.
    pub fn with_proxy(mut self, proxy: bool) -> Profile {
        self.proxy = proxy;
        self
    }

    /// Keeps `path` read-only as well (when it exists when a command starts).
    pub fn with_readonly(mut self, path: PathBuf) -> Profile {
        self.readonly.push(path);
        self
    }

    /// Tightens the boundary for a command allowed because the sandbox
    /// holds it (`sandbox:holds`): every path an `ask` rule names for Edit
    /// or Write is read-only too, and every credential location
    /// (`~/.ssh`, `~/.aws`, `~/.netrc`, ...) is masked, so that neither
    /// question the policy would have asked is answered by running it.
    pub fn with_held(mut self, held: bool) -> Profile {
        self.held = held;
        self
    }

    /// Whether the boundary is tightened for a held command
    /// ([`Profile::with_held`]).
    pub fn held(&self) -> bool {
        self.held
    }

    /// Sets how many entries the walk may look at (tests).
    #[doc(hidden)]
    pub fn with_walk_limit(mut self, limit: usize) -> Profile {
        self.walk_limit = limit;
        self
    }

    /// Whether commands keep the network, to every host.
    pub fn network(&self) -> bool {
        self.network
    }

    /// Whether commands reach the network only through toolgate's proxy,
    /// which admits the hosts the policy allows fetching.
    pub fn proxy(&self) -> bool {
        self.proxy && !self.network
    }

    /// The writable roots.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The policy, when the profile came from one.
    pub fn policy(&self) -> Option<&Policy> {
        self.policy.as_deref()
    }

    pub(crate) fn within_roots(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r))
    }
}
