//! The shared backend: a PostgreSQL database that many hosts use at once.
//!
//! Every method is one transaction on a connection from a small pool
//! (r2d2). What SQLite gets from its single writer lock, PostgreSQL gets
//! from row locks:
//!
//! - an append locks the one `head` row (`SELECT .. FOR UPDATE`) before it
//!   reads the last hash, so appends from every host queue on that row
//!   and chain one after another;
//! - an approval moves by a conditional `UPDATE .. WHERE status = ..`
//!   after locking its row, so of two hosts that try the same move exactly
//!   one succeeds;
//! - a transaction that takes both locks takes the approval's first and
//!   the head last, so no two transactions wait on each other in a cycle.
//!
//! A lost connection is an error (never a panic and never a retry of a
//! write whose fate is unknown); the connection is then dropped from the
//! pool. A transaction cut off mid-way is rolled back by the server.

mod approvals;
mod import;
mod ledger;
mod schema;
mod state;
mod verify;

use std::fmt;
use std::time::Duration;

use postgres::config::Host;
use postgres::{Config, NoTls};
use r2d2_postgres::PostgresConnectionManager;

use crate::error::{Error, Result};

/// How long opening a connection to the server may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one statement may run, waiting for a lock included, before the
/// server cancels it (and the call it records is refused).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a connection may sit idle inside a transaction before the
/// server ends it, releasing its locks (a host that hangs while holding the
/// head row must not stop every other host).
const IDLE_IN_TRANSACTION_TIMEOUT: Duration = Duration::from_secs(60);

/// Connections per process. A hook process needs one; the approval page
/// and the gateway a few.
pub const POOL_SIZE: u32 = 4;

type Manager = PostgresConnectionManager<NoTls>;
type Conn = r2d2::PooledConnection<Manager>;

/// Whether a database setting names a PostgreSQL server.
pub(crate) fn is_url(value: &str) -> bool {
    let v = value.trim_start();
    v.starts_with("postgres://") || v.starts_with("postgresql://")
}

/// An open PostgreSQL store.
pub(crate) struct Db {
    pool: r2d2::Pool<Manager>,
    /// The URL without its password, for messages.
    url: String,
}

impl fmt::Debug for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("postgres::Db")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Connects, applies missing migrations, and keeps the pool.
    pub fn open(url: &str) -> Result<Db> {
        let mut config: Config = url.trim().parse().map_err(|e| Error::Connect {
            url: redact(url),
            detail: format!("not a PostgreSQL URL: {e}"),
        })?;
        let shown = display(&config);
        let mut options = config.get_options().unwrap_or_default().to_owned();
        for (name, value) in [
            ("statement_timeout", STATEMENT_TIMEOUT),
            (
                "idle_in_transaction_session_timeout",
                IDLE_IN_TRANSACTION_TIMEOUT,
            ),
        ] {
            options.push_str(&format!(" -c {name}={}", value.as_millis()));
        }
        config
            .options(options.trim())
            .connect_timeout(CONNECT_TIMEOUT)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name("toolgate");
        }
        let manager = PostgresConnectionManager::new(config, NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(1))
            .connection_timeout(CONNECT_TIMEOUT)
            // A connection the server dropped is found before it is used.
            .test_on_check_out(true)
            .build(manager)
            .map_err(|e| Error::Connect {
                url: shown.clone(),
                detail: e.to_string(),
            })?;
        let db = Db { pool, url: shown };
        schema::migrate(&db)?;
        Ok(db)
    }

    /// The URL as shown in messages and by `Store::path`.
    pub fn display_url(&self) -> &str {
        &self.url
    }

    /// A connection from the pool.
    fn conn(&self) -> Result<Conn> {
        self.pool.get().map_err(|e| Error::Connect {
            url: self.url.clone(),
            detail: e.to_string(),
        })
    }

    /// Wraps a PostgreSQL error with this database's URL.
    fn db(&self) -> impl Fn(postgres::Error) -> Error + '_ {
        |source| Error::Postgres {
            url: self.url.clone(),
            source,
        }
    }

    /// A store-level "this database is damaged" error.
    fn corrupt(&self, detail: String) -> Error {
        Error::Corrupt {
            path: self.url.clone().into(),
            detail,
        }
    }

    /// A connection that answers and is not read-only.
    pub fn check_writable(&self) -> Result<()> {
        let mut conn = self.conn()?;
        let answer = conn
            .simple_query("SHOW transaction_read_only")
            .map_err(self.db())?;
        let read_only = answer.iter().any(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0) == Some("on"),
            _ => false,
        });
        if read_only {
            return Err(self.corrupt("the server accepts no writes (read-only)".to_owned()));
        }
        Ok(())
    }
}

/// `postgres://user@host:port/db`, without the password.
fn display(config: &Config) -> String {
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let host = match h {
                Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    let db = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{}/{db}", hosts.join(","))
}

/// A URL that did not parse, with anything that looks like a password cut.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// `u64` into a BIGINT column.
fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        let config: Config = "postgres://alice:s3cret@db.example:5433/toolgate"
            .parse()
            .unwrap();
        let shown = display(&config);
        assert_eq!(shown, "postgres://alice@db.example:5433/toolgate");
        assert_eq!(
            redact("postgres://alice:s3cret@db/x?bad"),
            "postgres://alice@db/x?bad"
        );
    }

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("postgres://h/db"));
        assert!(is_url("postgresql://h/db"));
        assert!(!is_url("/var/lib/toolgate.db"));
    }
}
