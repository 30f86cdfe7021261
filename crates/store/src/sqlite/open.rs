//! Opening the database without harming anything that is not ours.
//!
//! The order matters. The file's first 100 bytes (the SQLite header) are
//! read with plain file I/O first: a file that is not SQLite, or that
//! carries another application's id or a newer schema version, is refused
//! before SQLite touches it. A SQLite file without an application id is
//! looked at through a read-only connection (so SQLite cannot roll back a
//! journal or checkpoint into it), and refused if it holds any table. Only
//! then is a read-write connection opened, not allowed to checkpoint on
//! close until the schema is known to be current (or has been created or
//! migrated), and only then is the journal switched to WAL (which rewrites
//! the header). Damage such as truncation is found by SQLite on the first
//! read, which writes nothing.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::schema::{APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION};
use crate::error::{Error, Result};

/// How long a statement waits for another process's lock before failing.
///
/// One hook process per tool call is normal, and so are bursts of them;
/// an append holds the write lock for tens of microseconds, but a
/// checkpoint or a slow disk can hold it far longer. A call that fails to
/// be recorded is refused, so waiting long is the lesser harm.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_LEN: usize = 100;

/// What the raw header says, for the checks made before SQLite opens it.
struct Header {
    application_id: i32,
    user_version: i64,
    /// The file is in WAL mode (header bytes 18 and 19 are 2): set when
    /// the journal is switched, in the file itself, never through the WAL.
    wal: bool,
    /// Why the file looks truncated, if it does. Only an explanation: a
    /// checkpoint in another process writes page 1 (with the new page
    /// count) before the pages that extend the file, so the raw file can
    /// look short for a moment. SQLite, which knows about the WAL, decides.
    truncated: Option<String>,
}

/// Opens (creating when missing) a toolgate database at `path`.
pub(crate) fn open(path: &Path) -> Result<Connection> {
    create_if_missing(path)?;
    let header = read_header(path)?;
    let truncated = header.as_ref().and_then(|h| h.truncated.clone());
    // SQLite says "malformed"; the header can say how.
    let explain = |e| match (e, &truncated) {
        (Error::Corrupt { path, .. }, Some(detail)) => Error::Corrupt {
            path,
            detail: detail.clone(),
        },
        (e, _) => e,
    };
    let wal = header.as_ref().is_some_and(|h| h.wal);
    match header {
        // Refused before SQLite could recover or checkpoint into a file
        // whose format this build may not know.
        Some(header)
            if header.application_id == APPLICATION_ID && header.user_version > SCHEMA_VERSION =>
        {
            return Err(newer_schema(path, header.user_version));
        }
        Some(header) if header.application_id == APPLICATION_ID => {}
        Some(header) if header.application_id != 0 => {
            return Err(foreign_id(path, header.application_id));
        }
        // No application id: an empty database (ours, being created) or
        // another application's that does not set one.
        Some(_) => probe_unmarked(path).map_err(explain)?,
        // An empty file: a new database.
        None => {}
    }

    open_read_write(path, wal).map_err(explain)
}

/// `wal`: the header says the file is in WAL mode already.
fn open_read_write(path: &Path, wal: bool) -> Result<Connection> {
    let db = |e| Error::sqlite(path, e);
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(db)?;
    // The header can be older than the WAL beside it (a newer schema
    // version not yet checkpointed). Until the file is known to be ours
    // and current, closing must not checkpoint the WAL into it.
    set_checkpoint_on_close(&conn, false).map_err(db)?;
    configure(&conn).map_err(db)?;
    ensure_schema(path, &mut conn)?;
    if !wal {
        ensure_wal(path, &conn)?;
    }
    // No checkpoint when a connection closes: a hook process is usually
    // the last connection, and a checkpoint on close would cost it two
    // fsyncs and the WAL file's deletion on every tool call. Long-lived
    // connections checkpoint as commits fill the WAL (SQLite's
    // `wal_autocheckpoint`), and `Store`'s drop empties a WAL grown past a
    // bound, so that the recovery the next process runs on open stays
    // cheap.
    Ok(conn)
}

/// Per-connection settings.
///
/// `synchronous = NORMAL`: in WAL mode a commit is then written to the WAL
/// without an fsync, and the WAL is synced at checkpoints. A killed process
/// loses nothing that it committed; a power cut may lose the last few
/// commits but never corrupts the file, and since the head row is updated
/// in the same transaction as the rows it vouches for, a lost tail leaves
/// a chain that still verifies. `FULL` would add an fsync (milliseconds on
/// many disks) to every tool call.
///
/// Untrusted schema (`trusted_schema = OFF`, set through the C API, which
/// costs no statement): the file lives outside the workspace, but if it
/// is tampered with, triggers and views in it must not call functions with
/// side effects.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

fn set_checkpoint_on_close(conn: &Connection, on: bool) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, !on)
        .map(|_| ())
}

/// Creates the file, owner-only, so that SQLite (which would use the
/// umask's mode) never creates it; the WAL and shared-memory files inherit
/// the database file's mode.
fn create_if_missing(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(Error::Io {
            path: path.to_path_buf(),
            action: "create the database",
            source,
        }),
    }
}

/// Reads and checks the SQLite header. `None` for an empty file.
fn read_header(path: &Path) -> Result<Option<Header>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        action: "read the database",
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len == 0 {
        return Ok(None);
    }
    let not_sqlite = |detail: String| Error::NotSqlite {
        path: path.to_path_buf(),
        detail,
    };
    if len < HEADER_LEN as u64 {
        return Err(not_sqlite(format!(
            "it is {len} bytes long, shorter than a SQLite header"
        )));
    }
    let mut h = [0u8; HEADER_LEN];
    file.read_exact(&mut h).map_err(io)?;
    if &h[..16] != SQLITE_MAGIC {
        return Err(not_sqlite(
            "it does not start with the SQLite header".to_owned(),
        ));
    }
    let be32 = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let page_size = match u16::from_be_bytes([h[16], h[17]]) {
        1 => 65_536,
        n => u64::from(n),
    };
    let corrupt = |detail: String| Error::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    if !(512..=65_536).contains(&page_size) || !page_size.is_power_of_two() {
        return Err(corrupt(format!("its header gives page size {page_size}")));
    }
    // The page count in the header is only meaningful when the "version
    // valid for" number matches the change counter (SQLite file format 1.3).
    let page_count = u64::from(be32(28));
    let truncated = if page_count != 0 && be32(24) == be32(92) && len < page_count * page_size {
        Some(format!(
            "it is truncated: its header gives {page_count} pages of {page_size} bytes, the file has {len} bytes"
        ))
    } else if len % page_size != 0 {
        Some(format!(
            "it is truncated: {len} bytes is not a whole number of {page_size}-byte pages"
        ))
    } else {
        None
    };
    Ok(Some(Header {
        wal: h[18] == 2 && h[19] == 2,
        user_version: i64::from(be32(60)),
        application_id: i32::from_be_bytes([h[68], h[69], h[70], h[71]]),
        truncated,
    }))
}

/// Looks into a SQLite file without an application id, read-only and
/// without checkpointing on close, and refuses it unless it is empty.
fn probe_unmarked(path: &Path) -> Result<()> {
    let db = |e| Error::sqlite(path, e);
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(db)?;
    set_checkpoint_on_close(&conn, false).map_err(db)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(db)?;
    let (application_id, user_version, objects) = inspect(&conn).map_err(db)?;
    if application_id == APPLICATION_ID {
        return Ok(());
    }
    if application_id != 0 {
        return Err(foreign_id(path, application_id));
    }
    if !objects.is_empty() || user_version != 0 {
        return Err(foreign_tables(path, &objects, user_version));
    }
    Ok(())
}

/// The application id, the user version and the names of the schema
/// objects (tables, indexes, views, triggers).
fn inspect(conn: &Connection) -> rusqlite::Result<(i32, i64, Vec<String>)> {
    let application_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let user_version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )?;
    let objects = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok((application_id, user_version, objects))
}

/// Creates or migrates the schema. The fast path (already current) takes
/// no write lock, so concurrent hook processes do not queue on opening.
fn ensure_schema(path: &Path, conn: &mut Connection) -> Result<()> {
    let db = |e| Error::sqlite(path, e);
    // One statement for both: the fast path is part of every hook call.
    let (application_id, version): (i32, i64) = conn
        .query_row(
            "SELECT a.application_id, v.user_version \
             FROM pragma_application_id() a, pragma_user_version() v",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(db)?;
    if application_id == APPLICATION_ID && version == SCHEMA_VERSION {
        return Ok(());
    }

    // Another process may be creating the same database right now: decide
    // again under the write lock.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db)?;
    let (application_id, version, objects) = inspect(&tx).map_err(db)?;
    if application_id == 0 {
        if !objects.is_empty() || version != 0 {
            return Err(foreign_tables(path, &objects, version));
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(db)?;
    } else if application_id != APPLICATION_ID {
        return Err(foreign_id(path, application_id));
    }
    if version > SCHEMA_VERSION {
        return Err(newer_schema(path, version));
    }
    let from = usize::try_from(version).map_err(|_| Error::Corrupt {
        path: path.to_path_buf(),
        detail: format!("its schema version is {version}"),
    })?;
    for migration in &MIGRATIONS[from..] {
        tx.execute_batch(migration).map_err(db)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(db)?;
    tx.commit().map_err(db)
}

/// Switches a new database to WAL, so that readers (the CLI, a hook polling
/// an approval) never block the writer and a commit costs no fsync.
///
/// The switch needs an exclusive lock, and SQLite may report "busy" for it
/// without consulting the busy handler, hence the retry loop.
fn ensure_wal(path: &Path, conn: &Connection) -> Result<()> {
    let db = |e| Error::sqlite(path, e);
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .map_err(db)?;
    if mode.eq_ignore_ascii_case("wal") {
        return Ok(());
    }
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(Error::Corrupt {
                    path: path.to_path_buf(),
                    detail: format!("its journal mode stays `{mode}` instead of `wal`"),
                });
            }
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(db(e)),
        }
    }
}

fn newer_schema(path: &Path, found: i64) -> Error {
    Error::NewerSchema {
        path: path.to_path_buf(),
        found,
        supported: SCHEMA_VERSION,
    }
}

fn foreign_id(path: &Path, application_id: i32) -> Error {
    Error::Foreign {
        path: path.to_path_buf(),
        detail: format!(
            "its application id is {application_id:#010x}, not toolgate's {APPLICATION_ID:#010x}"
        ),
    }
}

fn foreign_tables(path: &Path, objects: &[String], user_version: i64) -> Error {
    let detail = if objects.is_empty() {
        format!("it has user version {user_version} but no toolgate application id")
    } else {
        let names: Vec<String> = objects.iter().take(8).map(|n| format!("`{n}`")).collect();
        let more = if objects.len() > names.len() {
            ", ..."
        } else {
            ""
        };
        format!(
            "it holds another application's schema ({}{more}) and no toolgate application id",
            names.join(", ")
        )
    };
    Error::Foreign {
        path: path.to_path_buf(),
        detail,
    }
}
