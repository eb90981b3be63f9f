//! The embedded store: one SQLite file per game. A rollback journal kept between writes
//! (`journal_mode = PERSIST`) with `synchronous = FULL`: once a move is acknowledged, the
//! `.arbiter` file alone holds it (there is no `-wal` file to lose when copying; the journal
//! beside it is emptied, its header zeroed and synced, at each commit), and a crash never leaves
//! half a move. The journal is kept rather than deleted because making and deleting a file at
//! every move is most of a move's cost on a busy server (the file system's inode allocation
//! and the folder's lock, shared by every game of the folder).
//!
//! One job per module: [`schema`] (the tables and what each version keeps where), [`create`]
//! (making and removing files), [`open`] (opening and checking them), [`upgrade`] (older
//! schemas), [`events`] (the record: reading and writing moves), [`on_log`] (a server's file
//! on its folder's redo log, and folding its write-ahead log), [`chat`] and [`docs`] (what is
//! kept beside the record), [`companions`] (SQLite's files beside a game's) and [`folder`]
//! (the folder's names and syncs).

mod chat;
mod companions;
mod create;
mod docs;
mod events;
mod folder;
mod on_log;
mod open;
mod schema;
mod upgrade;

pub use chat::ChatMessage;
pub(crate) use companions::beside;
pub(crate) use folder::private_new_file;
pub use folder::{change_folder, sync_folder};
pub(crate) use open::holds_nothing;
pub use schema::SCHEMA_VERSION;

pub(crate) use crate::record::json_strings;
use crate::StoreError;
use on_log::OnLog;
use rusqlite::{Connection, ErrorCode};
use schema::Layout;
use std::path::{Path, PathBuf};

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// The file could not be opened for writing.
    read_only: bool,
    /// The schema version found (1: no chain to check).
    version: i64,
    layout: Layout,
    /// The seats' ids, read from the header once (a game's seats never change): each append
    /// needs them, and an append is the durable write every move waits for.
    seats: std::cell::OnceCell<Vec<String>>,
    /// A server's file: durable through its folder's redo log ([`SqliteStore::with_redo`]).
    redo: Option<OnLog>,
}

/// What a failed read means for the user: never a raw driver message.
fn read_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::NotADatabase => StoreError::NotAGame(path),
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the file's structure is corrupt".into() },
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::PermissionDenied => StoreError::Sqlite { path, what: "cannot be read: no permission to read it".into() },
            // `open` checked that the file exists and can be read: SQLite cannot open it as a
            // database because of what it holds (e.g. a damaged header asking for a journal
            // mode it cannot set up).
            ErrorCode::CannotOpen => StoreError::Damaged { path, seq: 0, what: "its structure is damaged: it cannot be opened".into() },
            // Never the driver's code name ("Unknown"): the structure is what failed.
            _ => StoreError::Damaged { path, seq: 0, what: "its structure cannot be read".into() },
        },
        rusqlite::Error::SqlInputError { .. } | rusqlite::Error::InvalidQuery => StoreError::NotAGame(path),
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => {
            StoreError::Damaged { path, seq: 0, what: "a stored value has the wrong type".into() }
        }
        _ if e.to_string().contains("no such table") || e.to_string().contains("no such column") => StoreError::NotAGame(path),
        _ => StoreError::Damaged { path, seq: 0, what: "it cannot be read".into() },
    }
}

/// What a failed write means: read-only, busy, or not stored (disk full…).
fn write_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied => StoreError::ReadOnly(path),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::DiskFull => StoreError::WriteFailed { path, what: "the disk is full".into() },
            ErrorCode::TooBig => StoreError::WriteFailed { path, what: "the row is too large".into() },
            ErrorCode::SystemIoFailure => StoreError::WriteFailed { path, what: "a write failed (disk full or a file-size limit?)".into() },
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the file's structure is corrupt".into() },
            ErrorCode::NotADatabase => StoreError::NotAGame(path),
            _ => StoreError::WriteFailed { path, what: "the write failed".into() },
        },
        _ => StoreError::WriteFailed { path, what: "the write failed".into() },
    }
}

/// How a game file commits a write (ARCHITECTURE.md, "One file holds everything
/// acknowledged"). Both are durable: a write is acknowledged only after its fsync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Journal {
    /// A rollback journal kept between writes (`journal_mode = PERSIST`): the file alone holds
    /// every acknowledged write at any moment between writes (a player copies it during play).
    /// Four fsyncs a write. The CLI's, and every file's by default.
    Rollback,
    /// A write-ahead log (`journal_mode = WAL`): one fsync a write, for the server's
    /// throughput. While the file is open its latest writes are in `NAME-wal` beside it; the
    /// last connection to close folds them in and removes it (the file alone again), and a
    /// process killed meanwhile leaves it for the next open to fold in. A server's, whose
    /// files nobody copies while it holds them.
    WriteAhead,
}

/// A write-ahead log folded into its file once it holds this many pages (SQLite's default is
/// 1,000: 4 MB beside every open game), and cut back to this size after (SQLite keeps it at its
/// largest otherwise).
const WAL_PAGES: u32 = 128;

impl SqliteStore {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The number of rows (the sequence number of the last move).
    pub fn last_seq(&self) -> Result<u64, StoreError> {
        let n: Option<i64> = self.conn.query_row("SELECT MAX(seq) FROM events", [], |r| r.get(0)).map_err(|e| read_error(&self.path, e))?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    /// Whether the file has table `name` (the chat's and the documents' are made by their
    /// first write).
    fn has_table(&self, name: &str) -> Result<bool, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", [name], |r| r.get(0))
            .map_err(|e| read_error(&self.path, e))?;
        Ok(n > 0)
    }

    /// Why `what`, written beside the record (a chat message, a document), may not be written
    /// now: a file opened read-only, or a move's write under way (its own transaction would
    /// commit the move's half-done write).
    fn may_write_aside(&self, what: &str) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly(self.path.clone()));
        }
        if !self.conn.is_autocommit() {
            return Err(StoreError::WriteFailed { path: self.path.clone(), what: format!("{what} inside a move's write (engine fault)") });
        }
        Ok(())
    }

    /// A write beside the record (a chat message, a document): `write` in one transaction of
    /// its own, rolled back if it fails, durable once this returns. A file on a redo log
    /// commits unsynced, and these writes are not in the log: the file's own log is synced.
    fn write_aside<T>(&self, write: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let written = (|| {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            let value = write(&self.conn)?;
            self.conn.execute_batch("COMMIT")?;
            Ok(value)
        })();
        let value = written.map_err(|e| {
            if !self.conn.is_autocommit() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            write_error(&self.path, e)
        })?;
        if let Some(on) = &self.redo {
            on.log.sync_beside(&self.path)?;
        }
        self.fold_when_due();
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::companions::make_companions;
    use super::*;
    use crate::{EventStore, GameHeader, Record};

    fn header() -> GameHeader {
        let record = Record {
            public_log: String::new(),
            seat_logs: vec![String::new(); 2],
            random_json: "[]".into(),
            reveals: false,
            state_hash: "0".into(),
        };
        GameHeader {
            game: Some("a-game".into()),
            created_at: "2026-11-27T00:00:00.000Z".into(),
            engine_version: "0".into(),
            rules_version: "0".into(),
            seed: 1,
            options: "{}".into(),
            seats: vec!["north".into(), "south".into()],
            setup: record,
        }
    }

    /// A player's new file is written whole under its temporary name with no journal (nothing
    /// left beside it), a rollback file (header bytes 18 and 19: 1); a server's is made at its
    /// name and marked a write-ahead file (2), private, and alone once closed.
    #[test]
    fn a_new_file_is_written_alone_and_in_its_journal_mode() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let at = dir.path().join(".g.arbiter.new");
        SqliteStore::write_new(&at, &dir.path().join("g.arbiter"), &header(), &[]).expect("written");
        assert_eq!(std::fs::read(&at).expect("read")[18..20], [1, 1]);
        let beside: Vec<_> = std::fs::read_dir(dir.path()).expect("listed").map(|e| e.expect("an entry").file_name()).collect();
        assert_eq!(beside, [std::ffi::OsString::from(".g.arbiter.new")]);

        for (journal, format) in [(Journal::WriteAhead, 2u8), (Journal::Rollback, 1)] {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let made = dir.path().join("g.arbiter");
            drop(SqliteStore::create_with(&made, &header(), journal).expect("created"));
            assert_eq!(std::fs::read(&made).expect("read")[18..20], [format, format], "{journal:?}");
            let beside: Vec<_> = std::fs::read_dir(dir.path()).expect("listed").map(|e| e.expect("an entry").file_name()).collect();
            assert_eq!(beside, [std::ffi::OsString::from("g.arbiter")], "{journal:?}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                assert_eq!(std::fs::metadata(&made).expect("made").permissions().mode() & 0o777, 0o600, "{journal:?}");
            }
            let store = SqliteStore::open_with(&made, journal).expect("opened");
            assert_eq!((store.header().expect("read").seats, store.last_seq().expect("read")), (header().seats, 0), "{journal:?}");
            assert!(matches!(SqliteStore::create_with(&made, &header(), journal), Err(StoreError::Exists(_))), "{journal:?}");
        }
    }

    /// A write-ahead file's companions are made empty and private when missing, and one already
    /// there is never opened (closing a descriptor of an index the process holds would drop
    /// SQLite's locks on it) nor changed.
    #[test]
    fn missing_companions_are_made_empty_and_private_and_present_ones_left_alone() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let game = dir.path().join("g.arbiter");
        std::fs::write(beside(&game, "-shm"), b"held").expect("an index");
        make_companions(&game, &["-wal", "-shm"]);
        assert_eq!(std::fs::read(beside(&game, "-shm")).expect("read"), b"held", "left as it was");
        assert_eq!(std::fs::read(beside(&game, "-wal")).expect("made"), b"", "made empty");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(beside(&game, "-wal")).expect("made").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "the owner's only");
        }
        // A new server game finds them and holds its write in its log; closed, the file is alone.
        let made = dir.path().join("h.arbiter");
        let store = SqliteStore::create_with(&made, &header(), Journal::WriteAhead).expect("created");
        assert!(beside(&made, "-wal").exists() && beside(&made, "-shm").exists());
        drop(store);
        assert!(!beside(&made, "-wal").exists() && !beside(&made, "-shm").exists(), "folded in and removed at close");
        assert_eq!(SqliteStore::open_with(&made, Journal::WriteAhead).expect("opened").last_seq().expect("read"), 0);
    }

    /// A host's documents: written with a new file's record (in either journal) or later, each
    /// replaced whole, read back by name; a file without any (older, or made without) has none;
    /// a read-only file refuses to store one; a document is no part of the record.
    #[test]
    fn documents_are_kept_beside_the_record_and_replaced_whole() {
        for journal in [Journal::WriteAhead, Journal::Rollback] {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let made = dir.path().join("g.arbiter");
            let store = SqliteStore::create_with_docs(&made, &header(), journal, &[("seats", r#"{"a":1}"#)]).expect("created");
            assert_eq!(store.doc("seats").expect("read").as_deref(), Some(r#"{"a":1}"#), "{journal:?}");
            assert_eq!(store.doc("other").expect("read"), None);
            store.put_doc("seats", r#"{"a":2}"#).expect("replaced");
            store.put_doc("other", "[]").expect("added");
            drop(store);
            let read = SqliteStore::open_read_only(&made).expect("opened");
            assert_eq!(
                (read.doc("seats").expect("read").as_deref(), read.doc("other").expect("read").as_deref()),
                (Some(r#"{"a":2}"#), Some("[]"))
            );
            assert!(matches!(read.put_doc("seats", "{}"), Err(StoreError::ReadOnly(_))), "{journal:?}");
            // Never inside a move's write (its own commit would commit the move's half).
            let mut writing = SqliteStore::open_with(&made, journal).expect("opened");
            writing.lock().expect("locked");
            assert!(matches!(writing.put_doc("seats", "{}"), Err(StoreError::WriteFailed { .. })), "{journal:?}");
            writing.rollback();
            assert_eq!(writing.doc("seats").expect("read").as_deref(), Some(r#"{"a":2}"#), "unchanged");
            drop(writing);
            assert_eq!(read.header().expect("read").seats, header().seats, "the record as it was");
            assert_eq!(read.last_seq().expect("read"), 0);

            let plain = dir.path().join("p.arbiter");
            drop(SqliteStore::create_with(&plain, &header(), journal).expect("created"));
            assert_eq!(SqliteStore::open_read_only(&plain).expect("opened").doc("seats").expect("read"), None, "{journal:?}");
        }
    }
}
