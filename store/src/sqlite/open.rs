//! Opening a game file: checking that it is one (its length, its application id, its schema
//! version against its tables), rolling back an interrupted write before reading, and setting
//! the connection's journal and sync.

use super::companions::{beside, hot_journal, interrupted_write, make_companions, marked_write_ahead};
use super::folder::folder_writable;
use super::schema::{has_chain_columns, has_current_columns, Layout, APPLICATION_ID, SCHEMA_VERSION};
use super::{read_error, write_error, Journal, SqliteStore, WAL_PAGES};
use crate::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// How long a writer waits for another writer's lock before giving up (ms).
pub(super) const BUSY_TIMEOUT_MS: u32 = 10_000;

impl SqliteStore {
    pub(super) fn configure(conn: &Connection, path: &Path, writable: bool, journal: Journal) -> Result<(), StoreError> {
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS.into())).map_err(|e| read_error(path, e))?;
        if writable {
            // A file in the other mode (a server's, an older Arbiter's) is switched: into a
            // rollback journal folds the -wal file in. (A rollback journal's mode is the
            // connection's own: a reader, or an older Arbiter deleting its journal, writes the
            // same file format.) A switch SQLite refuses leaves the connection as it was: a file
            // another connection holds in WAL mode stays in it (synced at every commit, as
            // durable); a connection left in SQLite's default DELETE mode, whose unlinked
            // journal a power loss could bring back, is set to PERSIST.
            let mode = |conn: &Connection| -> Result<String, StoreError> {
                conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(|e| read_error(path, e))
            };
            let want = match journal {
                Journal::Rollback => "persist",
                Journal::WriteAhead => "wal",
            };
            if !mode(conn)?.eq_ignore_ascii_case(want) {
                let _: rusqlite::Result<String> = conn.query_row(&format!("PRAGMA journal_mode = {want}"), [], |r| r.get(0));
                let now = mode(conn)?;
                if !now.eq_ignore_ascii_case("wal") && !now.eq_ignore_ascii_case("persist") {
                    conn.query_row("PRAGMA journal_mode = PERSIST", [], |r| r.get::<_, String>(0)).map_err(|e| write_error(path, e))?;
                }
            }
            if journal == Journal::WriteAhead {
                conn.execute_batch(&format!("PRAGMA wal_autocheckpoint = {WAL_PAGES}; PRAGMA journal_size_limit = {};", WAL_PAGES * 4096))
                    .map_err(|e| read_error(path, e))?;
            }
        }
        // In WAL mode too: FULL syncs the log at every commit (NORMAL would not).
        conn.execute_batch("PRAGMA synchronous = FULL;").map_err(|e| read_error(path, e))
    }

    /// Open an existing game file, checking that it is one and that its schema is known. A
    /// file that cannot be written (its mode, its folder) is opened read-only.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        Self::open_as(path, true, Journal::Rollback)
    }

    /// [`SqliteStore::open`], its writes committed through `journal`.
    pub fn open_with(path: &Path, journal: Journal) -> Result<SqliteStore, StoreError> {
        Self::open_as(path, true, journal)
    }

    /// Open an existing game file only to read it: never written, never upgraded.
    pub fn open_read_only(path: &Path) -> Result<SqliteStore, StoreError> {
        Self::open_as(path, false, Journal::Rollback)
    }

    pub(super) fn open_as(path: &Path, write: bool, journal: Journal) -> Result<SqliteStore, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Sqlite { path: path.into(), what: "no such saved game".into() });
        }
        // Whether it can be read at all, before SQLite tries: a later failure to open it is
        // then about what it holds, not about permissions.
        let file = std::fs::File::open(path).map_err(|e| StoreError::Sqlite {
            path: path.into(),
            what: if e.kind() == std::io::ErrorKind::PermissionDenied {
                "cannot be read: no permission to read it".into()
            } else {
                "cannot be read".into()
            },
        })?;
        check_length(path, file)?;
        let may_write = std::fs::OpenOptions::new().write(true).open(path).is_ok() && folder_writable(path);
        let writable = write && may_write;
        if !writable && interrupted_write(path) {
            // A write interrupted mid-transaction (its process killed, a file-size limit): the
            // file is half written and its journal holds the pages as they were. A read-only
            // connection cannot roll it back and would read the half-written file; this
            // reader rolls it back first, as the next writer would, where it may write.
            if !may_write {
                return Err(StoreError::Sqlite {
                    path: path.into(),
                    what: format!(
                        "a move was interrupted while it was written (its journal {} is beside it): it is rolled back by the \
                         first program that opens the file with write access (e.g. `arbiter moves` run by the file's owner); \
                         nothing is read before",
                        beside(path, "-journal").display()
                    ),
                });
            }
            let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| read_error(path, e))?;
            conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS.into())).map_err(|e| read_error(path, e))?;
            // The first read takes the shared lock, which rolls a hot journal back.
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)).map_err(|e| read_error(path, e))?;
        }
        if writable && journal == Journal::WriteAhead && marked_write_ahead(path) {
            // Only the index, and only beside a file in WAL mode (header bytes 18 and 19): a log
            // made beside a file in rollback mode that another process holds would switch that
            // process's connection to it, and an index beside a file that stays in rollback
            // mode (a switch refused) would be left behind.
            make_companions(path, &["-shm"]);
        }
        let flags = if writable { OpenFlags::SQLITE_OPEN_READ_WRITE } else { OpenFlags::SQLITE_OPEN_READ_ONLY };
        let mut conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(|e| read_error(path, e))?;
        let app = match conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0)) {
            Ok(a) => a,
            // A read-only file in WAL mode, where SQLite may not make the log's index (`-shm`):
            // with no log beside it (everything folded in), read it as immutable. An immutable
            // read skips the log, so a file whose latest moves are still in one (a server's,
            // killed) is refused rather than shown as it was at its last fold.
            Err(_) if !writable && std::fs::metadata(beside(path, "-wal")).is_ok_and(|m| m.len() > 0) => {
                return Err(StoreError::Sqlite {
                    path: path.into(),
                    what: format!(
                        "its latest moves are in its write-ahead log ({}), which can be read only where its index (-shm) can be \
                         made beside it: copy the file with its -wal to a folder you can write",
                        beside(path, "-wal").display()
                    ),
                });
            }
            // Never around a journal's recovery: an immutable read would show the half-written
            // file (rolled back above where it could be).
            Err(_) if !writable && interrupted_write(path) => {
                return Err(StoreError::Sqlite {
                    path: path.into(),
                    what: format!(
                        "a move was interrupted while it was written (its journal {} is beside it) and could not be rolled back",
                        beside(path, "-journal").display()
                    ),
                });
            }
            Err(_) if !writable => {
                let uri = format!("file:{}?immutable=1", path.display());
                conn = Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(|e| read_error(path, e))?;
                conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| read_error(path, e))?
            }
            Err(e) => return Err(read_error(path, e)),
        };
        if app != APPLICATION_ID {
            return Err(StoreError::NotAGame(path.into()));
        }
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| read_error(path, e))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        if !(1..=SCHEMA_VERSION).contains(&version) {
            return Err(StoreError::UnknownSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        // A file whose version number was changed: read as an older version, it would skip the
        // integrity chain (a version-2 file claiming 1) or miss its logs (a version-3 file
        // claiming 1 or 2).
        let mismatched = (version == 1 && has_chain_columns(&conn).map_err(|e| read_error(path, e))?)
            || (version < 3 && has_current_columns(&conn).map_err(|e| read_error(path, e))?);
        if mismatched {
            return Err(StoreError::Damaged { path: path.into(), seq: 0, what: "its schema version does not match its tables".into() });
        }
        Self::configure(&conn, path, writable, journal)?;
        let layout = if version >= 3 { Layout::current() } else { Layout::legacy(&conn).map_err(|e| read_error(path, e))? };
        let mut store =
            SqliteStore { conn, path: path.into(), read_only: !writable, version, layout, seats: std::cell::OnceCell::new(), redo: None };
        if version == 1 && writable {
            store.upgrade_from_v1()?;
        }
        if store.version == 2 && writable {
            store.upgrade_from_v2()?;
        }
        Ok(store)
    }
}

/// The SQLite file header's magic string.
pub(super) const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A saved game cut short (by a copy or a save that did not finish) is found from SQLite's own
/// header before SQLite reads it: the file must be as long as its page size times its page
/// count. Skipped while a journal or WAL file beside it may still complete or undo a write.
pub(super) fn check_length(path: &Path, file: std::fs::File) -> Result<(), StoreError> {
    use std::io::Read;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut header = Vec::with_capacity(100);
    if file.take(100).read_to_end(&mut header).is_err() {
        return Ok(());
    }
    let cut = |expected| Err(StoreError::CutShort { path: path.into(), size, expected });
    if header.len() < 100 {
        // Empty, or some other small file, is not a saved game (SQLite's answer, below); the
        // start of SQLite's header, as far as it goes, is a file cut short.
        let n = header.len().min(SQLITE_MAGIC.len());
        return if n > 0 && header[..n] == SQLITE_MAGIC[..n] { cut(None) } else { Ok(()) };
    }
    let be32 = |at: usize| u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
    if !header.starts_with(SQLITE_MAGIC) || i64::from(be32(68)) != APPLICATION_ID {
        return Ok(());
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536u64,
        n if n >= 512 && n.is_power_of_two() => u64::from(n),
        _ => return Ok(()), // damaged: SQLite says so
    };
    // The page count is valid only when the change counter matches "version valid for".
    let pages = u64::from(be32(28));
    if pages == 0 || be32(24) != be32(92) {
        return Ok(());
    }
    if hot_journal(&beside(path, "-journal")) || beside(path, "-wal").exists() {
        return Ok(());
    }
    if size < page_size * pages {
        return cut(Some(page_size * pages));
    }
    Ok(())
}

/// Whether the file at `path` holds nothing: empty, or a database without a single table
/// (with what its write-ahead log holds).
pub(crate) fn holds_nothing(path: &Path) -> bool {
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return true;
    }
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|conn| conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)))
        .is_ok_and(|n| n == 0)
}
