//! What every entry point opens before it can decide: the state directory,
//! the policy with its layers and trust, and the configured store.
//!
//! The hooks, `toolgate mcp`, `agent`, `serve`, `approvals`, `sandbox` and
//! `check` all open the same three things from the same settings. Opened
//! here once, they cannot disagree: a team whose hooks record into
//! PostgreSQL answers from a page that reads the same database, and the
//! directory the policy protects is the one the store writes.
//!
//! | what | from, first that is set |
//! | --- | --- |
//! | state directory | [`Setup::state_dir`] (`--state-dir`), `$TOOLGATE_STATE_DIR`, `~/.local/state/toolgate` |
//! | policy | [`Setup::policy`] (`--policy`), `$TOOLGATE_POLICY`, the layers (managed, user, the project's found from [`Setup::anchor`], nested) |
//! | store | [`Setup::database`] (`--db`), `$TOOLGATE_DATABASE_URL`, the policy's `[state] database`, `toolgate.db` in the state directory |

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use toolgate_policy::layers::{self, Layering, TrustError};
use toolgate_policy::{LoadOptions, Policy, PolicyError};
use toolgate_store::Store;

/// Why an entry point could not open what it needs.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// No state directory could be found.
    #[error("no state directory: {0}")]
    StateDir(#[from] toolgate_policy::StateDirError),
    /// The policy did not load.
    #[error("cannot load the policy: {0}")]
    Policy(#[from] PolicyError),
    /// The store did not open.
    #[error("cannot open the store: {0}")]
    Store(#[from] toolgate_store::Error),
    /// The state directory is needed (to look up a project's trust) and
    /// none could be found.
    #[error("no state directory is known")]
    NoStateDir,
    /// The store refused a row.
    #[error("cannot record in the ledger: {0}")]
    Record(#[source] toolgate_store::Error),
}

/// The settings an entry point was given; `None` takes the environment's
/// (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// `--policy`: exactly this one file.
    pub policy: Option<PathBuf>,
    /// `--workspace`: what relative roots resolve against, and where the
    /// project policy is found from unless [`Setup::anchor`] says otherwise.
    pub workspace: Option<PathBuf>,
    /// Where the project policy is found from, when it is not the
    /// workspace or the working directory: a hook's anchor, which the
    /// agent's `cd` does not move.
    pub anchor: Option<PathBuf>,
    /// `--state-dir`.
    pub state_dir: Option<PathBuf>,
    /// `--db`: a SQLite file or a `postgres://` URL.
    pub database: Option<String>,
    /// The session's record of the project policy it began with (see
    /// [`toolgate_policy::layers::ProjectSeen`]): a file that is not that
    /// one is merged as an untrusted layer (only its deny and ask rules
    /// apply) until trusted.
    pub project_seen: Option<ProjectSeenFn>,
}

/// A host's [`toolgate_policy::layers::ProjectSeen`] check, kept in a
/// [`Setup`].
#[derive(Clone)]
pub struct ProjectSeenFn(pub Arc<ProjectSeenCheck>);

/// The check a [`ProjectSeenFn`] holds: a
/// [`toolgate_policy::layers::ProjectSeen`] a host can share.
pub type ProjectSeenCheck = dyn Fn(Option<&Path>, Option<&[u8]>) -> bool + Send + Sync;

impl std::fmt::Debug for ProjectSeenFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProjectSeenFn(..)")
    }
}

impl Setup {
    /// A writer of ledger rows into the configured store, where every host
    /// records, which opens the store on its first row: the sandbox's proxy
    /// records the connections it refuses with it
    /// (`toolgate_sandbox::ProxyLedger::new`), and most commands refuse
    /// none. A store that cannot be opened is the writer's error to report.
    pub fn lazy_ledger(
        &self,
        policy: Arc<Policy>,
    ) -> impl Fn(&toolgate_store::Record) -> Result<(), HostError> + Send + Sync + 'static {
        let setup = self.clone();
        let store: Mutex<Option<Store>> = Mutex::new(None);
        move |record| {
            let mut store = store
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let store = match &mut *store {
                Some(s) => s,
                empty => empty.insert(setup.open_store(Some(&policy))?),
            };
            store.append(record).map(|_| ()).map_err(HostError::Record)
        }
    }

    /// The state directory.
    pub fn state_dir(&self) -> Result<PathBuf, HostError> {
        match &self.state_dir {
            Some(dir) => Ok(dir.clone()),
            None => Ok(toolgate_policy::state_dir()?),
        }
    }

    /// The policy for calls made from `cwd`, with the project's trust read
    /// from the store it would be kept in. The policy is told the state
    /// directory, so that writes there are a hard limit.
    pub fn load_policy(&self, cwd: &Path) -> Result<Policy, HostError> {
        let state_dir = self.state_dir().ok();
        let opts = LoadOptions {
            workspace: self.workspace.clone(),
            state_dir: state_dir.clone(),
            ..LoadOptions::default()
        };
        let explicit_db = self.database.clone();
        let trust = |db: Option<&str>, file: &Path, digest: &str| {
            let db = explicit_db.as_deref().or(db);
            match &state_dir {
                Some(dir) => toolgate_store::is_trusted_in(dir, db, file, digest)
                    .map_err(|e| -> TrustError { Box::new(e) }),
                None => Err(Box::new(HostError::NoStateDir) as TrustError),
            }
        };
        let anchor = self.anchor.clone().or_else(|| self.workspace.clone());
        let seen = |file: Option<&Path>, bytes: Option<&[u8]>| {
            self.project_seen
                .as_ref()
                .is_some_and(|s| (s.0)(file, bytes))
        };
        let layering = Layering::from_env()
            .with_trust(&trust)
            .with_anchor(anchor)
            .with_project_seen(&seen);
        Ok(layers::discover(
            self.policy.as_deref(),
            cwd,
            &opts,
            &layering,
        )?)
    }

    /// The configured store (see the module documentation). `policy` gives
    /// its `[state] database`; without one (a policy that did not load),
    /// the environment and the state directory decide.
    pub fn open_store(&self, policy: Option<&Policy>) -> Result<Store, HostError> {
        Ok(match self.explicit_database() {
            Some(db) => open_database(&db)?,
            None => Store::open_configured(self.state_dir()?, policy.and_then(Policy::database))?,
        })
    }

    /// Like [`Setup::open_store`], but a SQLite store in the state
    /// directory is spooled (`Store::open_spooled`): a hook process lives
    /// for one call, and opening SQLite would be most of its work.
    pub fn open_store_spooled(&self, policy: Option<&Policy>) -> Result<Store, HostError> {
        Ok(match self.explicit_database() {
            Some(db) => open_database(&db)?,
            None => Store::open_configured_spooled(
                self.state_dir()?,
                policy.and_then(Policy::database),
            )?,
        })
    }

    fn explicit_database(&self) -> Option<String> {
        self.database.clone().filter(|d| !d.is_empty())
    }
}

/// A `postgres://` URL or a SQLite file.
fn open_database(db: &str) -> Result<Store, toolgate_store::Error> {
    if toolgate_store::is_postgres_url(db) {
        Store::open_url(db)
    } else {
        Store::open(db)
    }
}
