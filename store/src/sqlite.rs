//! The embedded store: one SQLite file per game. A rollback journal kept between writes
//! (`journal_mode = PERSIST`) with `synchronous = FULL`: once a move is acknowledged, the
//! `.arbiter` file alone holds it (there is no `-wal` file to lose when copying; the journal
//! beside it is emptied, its header zeroed and synced, at each commit), and a crash never leaves
//! half a move. The journal is kept rather than deleted because making and deleting a file at
//! every move is most of a move's cost on a busy server (the file system's inode allocation
//! and the folder's lock, shared by every game of the folder).

use crate::redo::Op;
use crate::{chain, EventRow, EventStore, GameHeader, Record, RedoLog, StoreError};
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

/// The schema version this code writes (`PRAGMA user_version`). Older files are upgraded when
/// opened for writing, and read as they are otherwise: version 1 had no integrity chain;
/// versions 1 and 2 (when Arbiter played one game) named no kind of game and kept one log
/// column per seat, named after it (`<seat>_log`, `setup_<seat>_log`).
pub const SCHEMA_VERSION: i64 = 3;
/// `PRAGMA application_id`: "ARBI".
const APPLICATION_ID: i64 = 0x4152_4249;
/// How long a writer waits for another writer's lock before giving up (ms).
const BUSY_TIMEOUT_MS: u32 = 10_000;

const SCHEMA: &str = "
CREATE TABLE game (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    game TEXT,
    created_at TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    seed INTEGER NOT NULL,
    options_json TEXT NOT NULL,
    seats_json TEXT NOT NULL,
    setup_public_log TEXT NOT NULL,
    setup_seat_logs TEXT NOT NULL,
    setup_random_json TEXT NOT NULL,
    setup_reveals INTEGER NOT NULL,
    setup_state_hash TEXT NOT NULL,
    header_hash TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    seat TEXT NOT NULL,
    move_text TEXT NOT NULL,
    move_json TEXT NOT NULL,
    random_json TEXT NOT NULL,
    reveals INTEGER NOT NULL,
    public_log TEXT NOT NULL,
    seat_logs TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    chain TEXT NOT NULL
);
";

/// Where a file of some schema version keeps what every version has: SQL expressions
/// selecting the kind, the seats' logs (as JSON arrays) and a row's seat.
#[derive(Clone, Debug)]
struct Layout {
    kind: &'static str,
    setup_logs: String,
    logs: String,
    seat: &'static str,
    /// The seats' ids, when the file does not store them as JSON (versions 1 and 2).
    legacy_seats: Option<Vec<String>>,
}

impl Layout {
    fn current() -> Layout {
        Layout { kind: "game", setup_logs: "setup_seat_logs".into(), logs: "seat_logs".into(), seat: "seat", legacy_seats: None }
    }

    /// Versions 1 and 2: a log column per seat, found by name in table order.
    fn legacy(conn: &Connection) -> rusqlite::Result<Layout> {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('game') ORDER BY cid")?;
        let names: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        let seats: Vec<String> = names
            .iter()
            .filter_map(|n| n.strip_prefix("setup_").and_then(|n| n.strip_suffix("_log")))
            .filter(|n| *n != "public" && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .map(String::from)
            .collect();
        let array =
            |prefix: &str| format!("json_array({})", seats.iter().map(|s| format!("{prefix}{s}_log")).collect::<Vec<_>>().join(", "));
        Ok(Layout { kind: "NULL", setup_logs: array("setup_"), logs: array(""), seat: "side", legacy_seats: Some(seats) })
    }
}

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

/// A file on its folder's redo log: the log, the changes of the write under way, and whether
/// the file's own log is due to be folded into it (set by SQLite's write-ahead log hook, done
/// once the commit is out of the redo log's way: [`SqliteStore::fold_when_due`]).
struct OnLog {
    log: std::sync::Arc<RedoLog>,
    ops: Vec<Op>,
    fold_due: std::sync::Arc<std::sync::atomic::AtomicBool>,
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
    /// A write-ahead log (`journal_mode = WAL`): one fsync a write (issue 25, the server's
    /// throughput). While the file is open its latest writes are in `NAME-wal` beside it; the
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
    fn configure(conn: &Connection, path: &Path, writable: bool, journal: Journal) -> Result<(), StoreError> {
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

    /// Create a new game file (a player's: a rollback journal). Refuses to touch an existing
    /// file. The file is written whole beside its final name and linked into place only once
    /// complete, so a creation killed midway leaves no half-made file at `path` (only a hidden
    /// temporary one, never read).
    pub fn create(path: &Path, header: &GameHeader) -> Result<SqliteStore, StoreError> {
        Self::create_with(path, header, Journal::Rollback)
    }

    /// Remove the game file at `path` with SQLite's companions beside it (its journal,
    /// write-ahead log and the log's index: a hot journal or a log left behind would be
    /// applied to the next file of that name). The file goes first: if it cannot be removed,
    /// its companions stay with it. A file or companion that is not there is no error.
    pub fn remove(path: &Path) -> std::io::Result<()> {
        let gone = |r: std::io::Result<()>| match r {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            Ok(()) | Err(_) => Ok(()),
        };
        change_folder(path, || {
            gone(std::fs::remove_file(path))?;
            for suffix in ["-journal", "-wal", "-shm"] {
                gone(std::fs::remove_file(beside(path, suffix)))?;
            }
            Ok(())
        })
    }

    /// [`SqliteStore::create`], its writes committed through `journal`. A write-ahead file (a
    /// server's) is made at its name instead (`create_in_place`: its record is
    /// one commit, but a creation killed before it leaves a file without one there).
    pub fn create_with(path: &Path, header: &GameHeader, journal: Journal) -> Result<SqliteStore, StoreError> {
        Self::create_with_docs(path, header, journal, &[])
    }

    /// [`SqliteStore::create_with`], the host's documents `docs` (name, JSON text) written in
    /// the same commit as the record ([`SqliteStore::put_doc`]): a record is never without
    /// them. A server's new game carries its seats so: no seats file made, synced and renamed
    /// beside it (issue 25, "a creation's files").
    pub fn create_with_docs(path: &Path, header: &GameHeader, journal: Journal, docs: &[(&str, &str)]) -> Result<SqliteStore, StoreError> {
        Self::check_new(path)?;
        let conn = match journal {
            Journal::Rollback => Self::create_beside(path, header, docs)?,
            Journal::WriteAhead => Self::create_in_place(path, header, docs)?,
        };
        Ok(Self::made(conn, path, header))
    }

    /// The store of a file just made at `path` for `header`, on `conn` (the current schema).
    fn made(conn: Connection, path: &Path, header: &GameHeader) -> SqliteStore {
        let seats = std::cell::OnceCell::from(header.seats.clone());
        SqliteStore { conn, path: path.into(), read_only: false, version: SCHEMA_VERSION, layout: Layout::current(), seats, redo: None }
    }

    /// A new server's game at `path` (a write-ahead file, with the host's documents `docs`) on
    /// its folder's redo log `log`, as [`SqliteStore::create_with_docs`] and
    /// [`SqliteStore::with_redo`] would make it, but with no sync of its own: its creation is
    /// a record in the log (the header and the documents), durable with the other games'
    /// records in one sync, and the file, its first page and its names are synced when the
    /// log's segment is retired. A start after a crash that lost any of it makes the file
    /// again from the record (issue 25: 200 creations at once were a thousand syncs, and every
    /// move sent meanwhile waited behind them for its own).
    pub fn create_on_log(
        path: &Path,
        header: &GameHeader,
        docs: &[(&str, &str)],
        log: std::sync::Arc<RedoLog>,
    ) -> Result<SqliteStore, StoreError> {
        Self::check_new(path)?;
        log.check_game(path)?;
        let made = Self::new_write_ahead(path, false).and_then(|conn| {
            let mut store = Self::made(conn, path, header).with_redo(log.clone())?;
            // Unsynced by SQLite, the first commit too: its log's header and the folder (which
            // SQLite syncs at a log's first sync) are synced when the segment is retired. No
            // fold into the file meanwhile (a creation's documents could be 128 pages): one
            // made unsynced would let the next commit start the log over on pages not yet on
            // the disk. (Setting `wal_autocheckpoint` takes SQLite's write-ahead log hook away.)
            let sync = |store: &SqliteStore, level: &str| {
                let pragmas = format!("PRAGMA synchronous = {level}; PRAGMA wal_autocheckpoint = 0;");
                store.conn.execute_batch(&pragmas).map_err(|e| write_error(path, e))
            };
            sync(&store, "OFF")?;
            store.lock()?;
            let written = Self::write_record(&store.conn, path, header, docs);
            if let Err(e) = written {
                store.rollback();
                return Err(e);
            }
            let creation =
                crate::redo::Creation { header: header.clone(), docs: docs.iter().map(|(n, j)| (n.to_string(), j.to_string())).collect() };
            if let Some(on) = &mut store.redo {
                on.ops.push(crate::redo::Op::Create(Box::new(creation)));
            }
            store.commit()?;
            sync(&store, "NORMAL")?;
            store.fold_later()?;
            Ok(store)
        });
        made.inspect_err(|e| {
            // Not the server's game if it could not be made whole; its removal is in the log
            // too (a creation's record there would make it again). If the log takes no more,
            // the file is removed, and a creation's record that reached the disk is made
            // again by the next start (a game nobody has the links of). A file that appeared
            // at the name meanwhile is another's.
            if !matches!(e, StoreError::Exists(_)) && log.remove_game(path).is_err() {
                let _ = Self::remove(path);
            }
        })
    }

    /// Refuse to make a game at `path` if anything is there or beside it.
    fn check_new(path: &Path) -> Result<(), StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.into()));
        }
        // SQLite would fold a write-ahead log left by an earlier file of this name (a game
        // removed while its server was killed) into the new one, and play a hot journal back
        // into it.
        let (wal, journal_file) = (beside(path, "-wal"), beside(path, "-journal"));
        let stale = [(wal.exists(), &wal, "write-ahead log"), (hot_journal(&journal_file), &journal_file, "unfinished journal")];
        if let Some((_, file, what)) = stale.iter().find(|(left, _, _)| *left) {
            return Err(StoreError::WriteFailed {
                path: path.into(),
                what: format!("the {what} {} of an earlier file of this name is still beside it: remove it first", file.display()),
            });
        }
        Ok(())
    }

    /// A rollback file (a player's): written whole beside its name, synced, and linked at its
    /// name only once complete, so that a creation killed midway leaves no half-made file at
    /// `path` (only a hidden temporary one, never read).
    fn create_beside(path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<Connection, StoreError> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let temp = path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()));
        let made = Self::write_new(&temp, path, header, docs);
        let placed = made.and_then(|()| {
            // No-clobber: a hard link fails if `path` appeared meanwhile; where links are not
            // supported, a rename after a last check.
            match change_folder(path, || std::fs::hard_link(&temp, path)) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(StoreError::Exists(path.into())),
                Err(_) if path.exists() => Err(StoreError::Exists(path.into())),
                Err(_) => change_folder(path, || std::fs::rename(&temp, path)).map_err(|e| StoreError::WriteFailed {
                    path: path.into(),
                    what: format!("the new file could not be put in place: {e}"),
                }),
            }
        });
        let _ = change_folder(&temp, || std::fs::remove_file(&temp));
        placed?;
        let opened = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| write_error(path, e))
            .and_then(|conn| Self::configure(&conn, path, true, Journal::Rollback).map(|()| conn));
        // The new name on the disk before the game is acknowledged (a link or rename is the
        // folder's write, not the file's). A game whose name may not survive is not made: the
        // file (ours: the link refuses to replace one) is removed again.
        opened.and_then(|conn| Self::sync_name(path).map(|()| conn)).inspect_err(|_| {
            let _ = Self::remove(path);
        })
    }

    /// A write-ahead file (a server's): made empty at its name with its log and the log's index
    /// beside it, then written on the connection that keeps it, its record (and `docs`) in one
    /// commit through the log: one connection, three files made, five syncs (the file's first
    /// page, the log's header, SQLite's sync of the folder at a log's first sync, the commit,
    /// and the folder's, shared by the creations at once). Written beside its name and linked,
    /// then opened again at it (as a player's file is), a creation was a fourth file made and
    /// removed, two names changed, and a second connection reading the schema the first had
    /// just written: closing the one and the other's reading were a seventh of a creation
    /// burst's CPU (BENCHMARKS.md, issue 25, "a creation's files").
    ///
    /// The commit is atomic: a creation killed before it leaves at `path` an empty database, or
    /// an empty file (no record: opening it says it is no saved game; a server never gave out
    /// its name), one killed after leaves the whole game, its record in the log that the next
    /// open folds in.
    fn create_in_place(path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<Connection, StoreError> {
        let made = Self::new_write_ahead(path, true)
            .and_then(|mut conn| {
                // The log's first commit (which also writes and syncs the log's header, SQLite
                // then syncing the folder: the log's name, made above) is the record itself, at
                // the creation: not at the game's first move, where on a server making many
                // games at once that folder sync waited for every other creation's names.
                let tx = conn.transaction().map_err(|e| write_error(path, e))?;
                Self::write_record(&tx, path, header, docs)?;
                tx.commit().map_err(|e| write_error(path, e))?;
                Ok(conn)
            })
            // The names on the disk before the game is acknowledged (SQLite's own sync of the
            // folder is its business, not a promise).
            .and_then(|conn| Self::sync_name(path).map(|()| conn));
        made.inspect_err(|e| {
            // (A file that appeared at the name meanwhile is another's.)
            if !matches!(e, StoreError::Exists(_)) {
                let _ = Self::remove(path);
            }
        })
    }

    /// A new, empty write-ahead file at `path` (its log and the log's index beside it), open
    /// on the connection that keeps it, its first page synced if `synced` (else left to the
    /// caller: [`SqliteStore::create_on_log`]). A failure leaves what was made for the caller to
    /// remove.
    fn new_write_ahead(path: &Path, synced: bool) -> Result<Connection, StoreError> {
        // Readable by its owner only (0600, whatever the umask), and never another's file
        // (`O_EXCL`): refused if `path` appeared since the caller's check (`check_new`).
        change_folder(path, || private_new_file(path)).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => StoreError::Exists(path.into()),
            _ => StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be made: {e}") },
        })?;
        // No log was beside its name (refused above): made here, so that SQLite finds both of
        // its companions ([`make_companions`]).
        make_companions(path, &["-wal", "-shm"]);
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(|e| write_error(path, e)).and_then(|conn| {
            // Marked a write-ahead file straight from no journal: from SQLite's default
            // (`DELETE`) the mark (page 1) is written through a rollback journal made,
            // synced and removed for that one write. The page is synced once, here or (on a
            // redo log) when the segment holding the creation is retired: SQLite drops the
            // log beside an empty file, so the record in the log is only safe once the file
            // is not empty.
            let mark = || -> rusqlite::Result<()> {
                conn.execute_batch("PRAGMA synchronous = OFF;")?;
                conn.query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0))?;
                conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)).map(drop)
            };
            mark().map_err(|e| write_error(path, e))?;
            if synced {
                std::fs::File::open(path)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be synced: {e}") })?;
            }
            Self::configure(&conn, path, true, Journal::WriteAhead).map(|()| conn)
        })
    }

    /// Sync the folder of `path` (its new name) or say why not.
    fn sync_name(path: &Path) -> Result<(), StoreError> {
        sync_folder(path).map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("its folder could not be synced: {e}") })
    }

    /// A rollback file's record written whole at `at` (its temporary name) and synced, the file
    /// closed (errors name `path`, the file the user asked for).
    fn write_new(at: &Path, path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<(), StoreError> {
        // Made empty here, so SQLite opens it as a new database; SQLite gives its journal the
        // database's mode.
        change_folder(at, || private_new_file(at))
            .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be made: {e}") })?;
        let mut conn = Connection::open_with_flags(at, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
            .map_err(|e| write_error(path, e))?;
        // Written once under a temporary name, with no journal: a creation that fails midway
        // leaves only the temporary file, which is removed (a journal made and removed beside
        // it would be one more file made per game). Set straight from SQLite's default
        // (`DELETE`): leaving `PERSIST` for `OFF` would unlink a journal that was never made.
        // Unsynced by SQLite: the file is synced once, whole, after its last write below and
        // before it is linked at its name (SQLite would sync the commit and the header's
        // change apart: two of the disk's flushes instead of one).
        conn.query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0)).map_err(|e| write_error(path, e))?;
        conn.execute_batch("PRAGMA synchronous = OFF;").map_err(|e| write_error(path, e))?;
        let tx = conn.transaction().map_err(|e| write_error(path, e))?;
        Self::write_record(&tx, path, header, docs)?;
        tx.commit().map_err(|e| write_error(path, e))?;
        conn.close().map_err(|(_, e)| write_error(path, e))?;
        std::fs::File::open(at)
            .and_then(|f| f.sync_all())
            .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be synced: {e}") })
    }

    /// A new file's schema, header row and the host's documents, in the caller's transaction.
    fn write_record(tx: &Connection, path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<(), StoreError> {
        tx.execute_batch(SCHEMA).map_err(|e| write_error(path, e))?;
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"))
            .map_err(|e| write_error(path, e))?;
        let s = &header.setup;
        tx.execute(
            "INSERT INTO game VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 0, ?13)",
            params![
                header.game,
                header.created_at,
                header.engine_version,
                header.rules_version,
                header.seed as i64,
                header.options,
                json_strings(&header.seats),
                s.public_log,
                json_strings(&s.seat_logs),
                s.random_json,
                s.reveals,
                s.state_hash,
                chain::start(header)
            ],
        )
        .map_err(|e| write_error(path, e))?;
        if !docs.is_empty() {
            tx.execute_batch(DOCS_SCHEMA).map_err(|e| write_error(path, e))?;
            for (name, json) in docs {
                tx.execute(PUT_DOC, params![name, json]).map_err(|e| write_error(path, e))?;
            }
        }
        Ok(())
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

    fn open_as(path: &Path, write: bool, journal: Journal) -> Result<SqliteStore, StoreError> {
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

    /// Version 1 had no chain: add it over the rows as they are (trusting them once).
    fn upgrade_from_v1(&mut self) -> Result<(), StoreError> {
        let header = self.header()?;
        let rows = self.rows()?;
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| write_error(&path, e))?;
        tx.execute_batch(
            "ALTER TABLE game ADD COLUMN header_hash TEXT NOT NULL DEFAULT '';
             ALTER TABLE game ADD COLUMN head_seq INTEGER NOT NULL DEFAULT 0;
             ALTER TABLE game ADD COLUMN head_hash TEXT NOT NULL DEFAULT '';
             ALTER TABLE events ADD COLUMN chain TEXT NOT NULL DEFAULT '';",
        )
        .map_err(|e| write_error(&path, e))?;
        let mut h = chain::start(&header);
        for row in &rows {
            h = chain::extend(&h, row, &header.seats);
            tx.execute("UPDATE events SET chain = ?1 WHERE seq = ?2", params![h, row.seq as i64]).map_err(|e| write_error(&path, e))?;
        }
        tx.execute("UPDATE game SET header_hash = ?1, head_seq = ?2, head_hash = ?3", params![chain::start(&header), rows.len() as i64, h])
            .map_err(|e| write_error(&path, e))?;
        tx.execute_batch("PRAGMA user_version = 2;").map_err(|e| write_error(&path, e))?;
        tx.commit().map_err(|e| write_error(&path, e))?;
        self.version = 2;
        Ok(())
    }

    /// Version 2 kept a log column per seat and named no kind: the tables are rebuilt in the
    /// current layout, every value as it was (so the chain, over the same values, still holds;
    /// it is checked before and after).
    fn upgrade_from_v2(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let legacy = self.layout.clone();
        // Under the write lock, and checked before it is committed: a failed check leaves the
        // file as it was.
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| write_error(&path, e))?;
        match self.upgrade_from_v2_locked() {
            Ok(()) => {
                if let Err(e) = self.conn.execute_batch("COMMIT") {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    (self.version, self.layout) = (2, legacy);
                    return Err(write_error(&path, e));
                }
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                (self.version, self.layout) = (2, legacy);
                return Err(e);
            }
        }
        let _ = self.conn.execute_batch("VACUUM");
        Ok(())
    }

    fn upgrade_from_v2_locked(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        // Another process may have upgraded it since this one opened it.
        let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| read_error(&path, e))?;
        if version >= 3 {
            (self.version, self.layout) = (version, Layout::current());
            return Ok(());
        }
        let header = self.header()?;
        let rows = self.rows()?;
        let legacy = self.layout.clone();
        let c = &self.conn;
        c.execute_batch("ALTER TABLE game RENAME TO game_v2; ALTER TABLE events RENAME TO events_v2;")
            .map_err(|e| write_error(&path, e))?;
        c.execute_batch(SCHEMA).map_err(|e| write_error(&path, e))?;
        c.execute(
            &format!(
                "INSERT INTO game SELECT 1, NULL, created_at, engine_version, rules_version, seed, options_json, ?1, setup_public_log, \
                 {}, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, head_hash FROM game_v2",
                legacy.setup_logs
            ),
            params![json_strings(&header.seats)],
        )
        .map_err(|e| write_error(&path, e))?;
        c.execute_batch(&format!(
            "INSERT INTO events SELECT seq, at, side, move_text, move_json, random_json, reveals, public_log, {}, state_hash, chain \
             FROM events_v2 ORDER BY seq; DROP TABLE game_v2; DROP TABLE events_v2; PRAGMA user_version = {SCHEMA_VERSION};",
            legacy.logs
        ))
        .map_err(|e| write_error(&path, e))?;
        (self.version, self.layout) = (SCHEMA_VERSION, Layout::current());
        if self.header()? != header || self.rows()? != rows {
            return Err(StoreError::Damaged { path, seq: 0, what: "upgrading it to the current schema would change what it holds".into() });
        }
        Ok(())
    }

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

    /// This file (a server's, in write-ahead mode) made durable through its folder's redo
    /// log: its commits are no longer synced one by one (`synchronous = NORMAL`), each is
    /// acknowledged once its record is in `log` (ARCHITECTURE.md, "A folder's redo log").
    pub fn with_redo(mut self, log: std::sync::Arc<RedoLog>) -> Result<SqliteStore, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly(self.path.clone()));
        }
        let mode: String = self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(|e| read_error(&self.path, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::WriteFailed {
                path: self.path.clone(),
                what: format!("a redo log needs a write-ahead file, not one in {mode} mode (engine fault)"),
            });
        }
        log.check_game(&self.path)?;
        self.conn.execute_batch("PRAGMA synchronous = NORMAL;").map_err(|e| write_error(&self.path, e))?;
        let fold_due = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        self.redo = Some(OnLog { log, ops: Vec::new(), fold_due });
        self.fold_later()?;
        Ok(self)
    }

    /// Fold the file's log into it after a commit, not inside it. SQLite's own fold runs in the
    /// commit that fills the log, and the next commit starts the log over (syncing its new
    /// header): three syncs inside commits, which hold the redo log's pin, and the redo log's
    /// move to a new segment, waiting for every pin, held every other game's commit meanwhile.
    /// Here SQLite's write-ahead log hook (which replaces its own fold) only says a fold is due
    /// ([`WAL_PAGES`] pages or more); [`SqliteStore::fold_when_due`] makes it once the pin is
    /// let go. The hook never fails: an error from it would fail a `COMMIT` already made.
    fn fold_later(&mut self) -> Result<(), StoreError> {
        let Some(on) = &self.redo else { return Ok(()) };
        let due = on.fold_due.clone();
        self.conn
            .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
                if pages >= WAL_PAGES as std::ffi::c_int {
                    due.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(())
            }))
            .map_err(|e| write_error(&self.path, e))
    }

    /// Fold the file's log into it if a commit filled it (see [`SqliteStore::fold_later`]),
    /// then, if every page was folded, start the log over with a write that changes nothing
    /// (the schema version, rewritten as it is), so that the next move's commit does not sync
    /// the new log's header under its pin. A fold that cannot be made whole now (a reader
    /// holds the log) is tried again after the next commit (the hook counts the log's pages,
    /// not those since the last fold); a failure fails no write (the log grows until a fold
    /// succeeds).
    fn fold_when_due(&self) {
        let Some(on) = &self.redo else { return };
        if !on.fold_due.swap(false, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let folded = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)));
        if let Ok((0, pages, done)) = folded {
            if pages == done {
                let _ = self.conn.execute_batch("BEGIN IMMEDIATE").and_then(|()| {
                    let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                    self.conn.execute_batch(&format!("PRAGMA user_version = {version}; COMMIT"))
                });
                if !self.conn.is_autocommit() {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
            }
        }
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

    /// The chain value after move `seq` (0: the header's).
    pub(crate) fn row_chain(&self, seq: u64) -> Result<String, StoreError> {
        if seq == 0 {
            return Ok(chain::start(&self.header()?));
        }
        self.conn
            .query_row("SELECT chain FROM events WHERE seq = ?1", params![seq as i64], |r| r.get::<_, String>(0))
            .map_err(|e| read_error(&self.path, e))
    }

    fn in_lock(&self) -> Result<(), StoreError> {
        if self.conn.is_autocommit() {
            return Err(StoreError::WriteFailed { path: self.path.clone(), what: "a write outside the write lock (engine fault)".into() });
        }
        Ok(())
    }

    fn set_head(&self, seq: u64, hash: &str) -> Result<(), StoreError> {
        self.conn
            .prepare_cached("UPDATE game SET head_seq = ?1, head_hash = ?2 WHERE id = 1")
            .and_then(|mut q| q.execute(params![seq as i64, hash]))
            .map_err(|e| write_error(&self.path, e))?;
        Ok(())
    }

    /// The rows, and the head computed over them (the chain each row was checked against).
    fn read_rows(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        let header = self.header()?;
        let chained = self.version >= 2;
        let sql = format!(
            "SELECT seq, at, {}, move_text, move_json, public_log, {}, random_json, reveals, state_hash, {} FROM events ORDER BY seq",
            self.layout.seat,
            self.layout.logs,
            if chained { "chain" } else { "''" }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| read_error(&self.path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    record_at(r, 5)?,
                    r.get::<_, String>(10)?,
                ))
            })
            .map_err(|e| read_error(&self.path, e))?;
        let mut out = Vec::new();
        let mut h = chain::start(&header);
        if chained {
            let stored: String = self
                .conn
                .query_row("SELECT header_hash FROM game WHERE id = 1", [], |r| r.get(0))
                .map_err(|e| read_error(&self.path, e))?;
            if stored != h {
                return Err(StoreError::Damaged {
                    path: self.path.clone(),
                    seq: 0,
                    what: "its header (creation, versions, seed, options or setup) does not match the integrity chain".into(),
                });
            }
        }
        for (i, r) in rows.enumerate() {
            let seq = i as u64 + 1;
            let damaged = |what: String| StoreError::Damaged { path: self.path.clone(), seq, what };
            let (stored_seq, at, seat, move_text, move_json, record, stored_chain) = r.map_err(|e| match read_error(&self.path, e) {
                StoreError::Damaged { what, .. } => damaged(what),
                other => other,
            })?;
            let stored = chain::Stored { seq: stored_seq, at, seat, move_text, move_json, record, chain: stored_chain };
            out.push(chain::check_row(&header, seq, stored, &mut h, chained).map_err(damaged)?);
        }
        if chained {
            let (head_seq, head_hash) = self.head()?;
            let found = out.len() as u64;
            if head_seq > found {
                return Err(StoreError::Truncated { path: self.path.clone(), head: head_seq, found });
            }
            if head_seq != found || head_hash != h {
                return Err(StoreError::Damaged {
                    path: self.path.clone(),
                    seq: 0,
                    what: "its record of the last move does not match the moves stored".into(),
                });
            }
        }
        let head = (out.len() as u64, h);
        Ok((out, head))
    }
}

/// A message of a game's chat, kept in the game's file beside its record and outside it: not
/// in the integrity chain, never replayed, untouched by undo. The store knows no audience:
/// `from` and `to` are the host's words (a place's id, an audience).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    /// 1, 2, 3… in the order stored.
    pub id: u64,
    /// RFC 3339, UTC.
    pub at: String,
    pub from: String,
    pub to: String,
    pub text: String,
}

/// The chat's table: made by the first message, so that a file without one (older, or never
/// chatted in) is the same schema version: an older Arbiter reads a file with a chat, and
/// ignores it (it is no part of the game's record).
const CHAT_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS chat (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    sender TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL
);";

impl SqliteStore {
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

    /// The game's chat, in the order stored (none if nobody has written).
    pub fn chat(&self) -> Result<Vec<ChatMessage>, StoreError> {
        if !self.has_table("chat")? {
            return Ok(Vec::new());
        }
        let mut stmt =
            self.conn.prepare("SELECT id, at, sender, audience, text FROM chat ORDER BY id").map_err(|e| read_error(&self.path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(ChatMessage { id: r.get::<_, i64>(0)?.max(0) as u64, at: r.get(1)?, from: r.get(2)?, to: r.get(3)?, text: r.get(4)? })
            })
            .map_err(|e| read_error(&self.path, e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| read_error(&self.path, e))
    }

    /// How many chat messages the game holds.
    pub fn chat_len(&self) -> Result<u64, StoreError> {
        if !self.has_table("chat")? {
            return Ok(0);
        }
        let n: i64 = self.conn.query_row("SELECT COUNT(*) FROM chat", [], |r| r.get(0)).map_err(|e| read_error(&self.path, e))?;
        Ok(n.max(0) as u64)
    }

    /// Store a chat message (durably, in its own transaction; never inside a move's).
    pub fn add_chat(&self, from: &str, to: &str, text: &str) -> Result<ChatMessage, StoreError> {
        self.may_write_aside("a chat message")?;
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let id = self.write_aside(|conn| {
            conn.execute_batch(CHAT_SCHEMA)?;
            conn.execute("INSERT INTO chat (at, sender, audience, text) VALUES (?1, ?2, ?3, ?4)", params![at, from, to, text])?;
            Ok(conn.last_insert_rowid().max(0) as u64)
        })?;
        Ok(ChatMessage { id, at, from: from.into(), to: to.into(), text: text.into() })
    }
}

impl SqliteStore {
    /// Store chat messages as they were (their numbers and times: a game moved between
    /// stores), in one transaction.
    pub fn restore_chat(&self, messages: &[ChatMessage]) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly(self.path.clone()));
        }
        self.write_aside(|conn| {
            conn.execute_batch(CHAT_SCHEMA)?;
            for m in messages {
                conn.execute(
                    "INSERT INTO chat (id, at, sender, audience, text) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![m.id as i64, m.at, m.from, m.to, m.text],
                )?;
            }
            Ok(())
        })
    }
}

/// The host's documents kept in a game's file beside its record and outside it (the server's
/// seats: hashes of the seats' tokens, the clock, the computer's seat), as PostgreSQL keeps
/// them per game (its `docs` table): named JSON texts, each replaced whole; not in the
/// integrity chain, never replayed, untouched by undo. The table is made by the first
/// document, like the chat's: a file without one is the same schema version.
const DOCS_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS docs (name TEXT PRIMARY KEY, json TEXT NOT NULL);";
const PUT_DOC: &str = "INSERT INTO docs (name, json) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET json = excluded.json";

impl SqliteStore {
    /// The host's document `name` (`None` if none was stored).
    pub fn doc(&self, name: &str) -> Result<Option<String>, StoreError> {
        if !self.has_table("docs")? {
            return Ok(None);
        }
        self.conn.query_row("SELECT json FROM docs WHERE name = ?1", [name], |r| r.get(0)).optional().map_err(|e| read_error(&self.path, e))
    }

    /// Store the host's document `name` (replacing it; durably, in its own transaction, never
    /// inside a move's).
    pub fn put_doc(&self, name: &str, json: &str) -> Result<(), StoreError> {
        self.may_write_aside("a host's document")?;
        self.write_aside(|conn| {
            conn.execute_batch(DOCS_SCHEMA)?;
            conn.execute(PUT_DOC, params![name, json]).map(drop)
        })
    }
}

/// Whether the tables have the columns of the current layout (version 3).
fn has_current_columns(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'seat_logs') + \
         (SELECT COUNT(*) FROM pragma_table_info('game') WHERE name IN ('seats_json', 'setup_seat_logs'))",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// Whether the tables have any of the columns version 2 added.
fn has_chain_columns(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'chain') + \
         (SELECT COUNT(*) FROM pragma_table_info('game') WHERE name IN ('header_hash', 'head_seq', 'head_hash'))",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The SQLite file header's magic string.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A saved game cut short (by a copy or a save that did not finish) is found from SQLite's own
/// header before SQLite reads it: the file must be as long as its page size times its page
/// count. Skipped while a journal or WAL file beside it may still complete or undo a write.
fn check_length(path: &Path, file: std::fs::File) -> Result<(), StoreError> {
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

/// Sync the folder holding `path`, so that a name just linked, renamed or made in it survives
/// a crash (a file's own sync does not cover its name). Nothing to do where folders cannot be
/// opened (not Unix).
///
/// Callers at once share syncs (group commit of the folder's names): a caller returns after a
/// sync of the folder that began after it called, so after its own change; whoever calls while
/// none runs leads the next one for everyone waiting. A server making 200 games at once made
/// 400 such syncs of its one folder, each waiting for the others' (BENCHMARKS.md, issue 25, "a
/// creation burst"); a sync that began later covers every change made before it began.
pub fn sync_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        FolderSync::of(dir).sync(|| match std::fs::File::open(dir)?.sync_all() {
            // A file system that does not sync folders (as SQLite, which ignores this too).
            Err(e) if matches!(e.kind(), std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Unsupported) => Ok(()),
            other => other,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// The syncs of one folder ([`sync_folder`]): how many began and ended, and how the last one
/// went.
#[derive(Default)]
struct FolderSync {
    state: std::sync::Mutex<FolderSyncs>,
    ended: std::sync::Condvar,
    /// Held while this process changes the folder's names ([`change_folder`]).
    names: std::sync::Mutex<()>,
}

#[derive(Default)]
struct FolderSyncs {
    began: u64,
    done: u64,
    running: bool,
    /// The last sync's failure (an `io::Error` is not `Clone`: its kind and text).
    last: Option<(std::io::ErrorKind, String)>,
}

impl FolderSync {
    /// The one for folder `dir` in this process (a process keeps its few folders' for its life).
    fn of(dir: &Path) -> std::sync::Arc<FolderSync> {
        static ALL: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<FolderSync>>>> =
            std::sync::LazyLock::new(Default::default);
        ALL.lock().unwrap_or_else(|p| p.into_inner()).entry(dir.to_path_buf()).or_default().clone()
    }

    /// Wait for a `sync` that begins after this call, leading it if none runs.
    fn sync(&self, sync: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<()> {
        let mut sync = Some(sync);
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // One running now may have begun before the caller's change: the next one is needed.
        let needed = st.began + 1;
        loop {
            if st.done >= needed {
                // That one or a later one (begun later still): either covers the change.
                return match &st.last {
                    None => Ok(()),
                    Some((kind, what)) => Err(std::io::Error::new(*kind, what.clone())),
                };
            }
            if st.running {
                st = self.ended.wait(st).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            st.running = true;
            st.began += 1;
            let this = st.began;
            drop(st);
            // A leader syncs once: after its own sync `done >= needed` holds.
            let result = sync.take().map_or(Ok(()), |f| f());
            st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            st.running = false;
            st.done = this;
            st.last = result.err().map(|e| (e.kind(), e.to_string()));
            self.ended.notify_all();
        }
    }
}

/// Make SQLite's write-ahead companions of the game file at `path` (`suffixes` of `-wal`, the
/// log, and `-shm`, its index), empty and readable by their owner only (the mode SQLite gives
/// them, the file's), before SQLite opens the file in WAL mode, unless they are there already.
/// Why: SQLite makes a missing index while holding the one lock of its whole unix layer
/// (`unixOpenSharedMemory`, under `unixEnterMutex`), and looks a file's name up under that lock
/// before opening it (`findReusableFd`: a name not made yet is looked up in the folder, under
/// the folder's lock); every write-ahead commit of every game open in the process takes that
/// lock too (`unixShmBarrier`, twice a commit). Making a file waits for the folder's lock and
/// allocates an inode (on ext4 without a journal, a scan past every inode freed in the last
/// minute): in a burst of 200 creations every game's moves waited for the other creations' new
/// files (BENCHMARKS.md, "2026-11-27: the server's moves beside a creation burst"). SQLite
/// treats companions it finds as its own: an empty log holds no write, and the first
/// connection to attach resets the index (its "dead man's switch" lock), so empty ones are
/// what it would have made.
///
/// Only ever new files (`O_EXCL`): opening and closing an index this process already holds
/// open would drop SQLite's locks on it (POSIX locks belong to the process, and any close
/// releases them). A failure is left to SQLite, which makes the file itself or says why not.
fn make_companions(path: &Path, suffixes: &[&str]) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        change_folder(path, || {
            for suffix in suffixes {
                let _ = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(beside(path, suffix));
            }
        })
    }
    #[cfg(not(unix))]
    let _ = (path, suffixes);
}

/// A new empty file at `path`, readable and writable by its owner only (0600, whatever the
/// umask: a saved game holds its seed, from which anyone rebuilds every hand); refused if
/// anything is there (`O_EXCL`).
pub(crate) fn private_new_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
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

/// Whether the file at `path` is marked a write-ahead file (SQLite's header bytes 18 and 19
/// are 2; a rollback file's are 1).
fn marked_write_ahead(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header)).is_ok() && header[18..20] == [2, 2]
}

/// `change` (making, linking, renaming or removing a name in the folder holding `path`), made
/// while no other such change of this process to that folder is under way. The file system
/// makes them one at a time anyway (the folder's lock), and its waiters spin on a core while
/// the holder runs: a burst of 200 creations kept a core spinning while another allocated an
/// inode, the games' moves left with none. Here a waiter sleeps (BENCHMARKS.md, "2026-11-27:
/// the server's moves beside a creation burst").
pub fn change_folder<T>(path: &Path, change: impl FnOnce() -> T) -> T {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = FolderSync::of(dir);
    let _one_at_a_time = folder.names.lock().unwrap_or_else(|p| p.into_inner());
    change()
}

/// `path` with `suffix` added to its name: SQLite's companions of a file (`-journal`, `-wal`,
/// `-shm`).
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Whether a rollback journal may hold a write to finish or undo: it exists and its header is
/// not zeroed. A journal kept between writes (`journal_mode = PERSIST`) has its header zeroed
/// at each commit, and an empty one holds nothing; either is SQLite's "not hot" too.
fn hot_journal(journal: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(journal) else { return journal.exists() };
    let mut start = Vec::with_capacity(8);
    match file.take(8).read_to_end(&mut start) {
        Ok(_) => start.iter().any(|b| *b != 0),
        // Unreadable: it may be hot.
        Err(_) => true,
    }
}

/// Whether the rollback journal beside `path` is known to hold an interrupted write: it can be
/// read and its header is not zeroed. (One this user cannot read is left to SQLite to judge:
/// another user's journal of a committed write, say.)
fn interrupted_write(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 8];
    std::fs::File::open(beside(path, "-journal")).and_then(|mut f| f.read_exact(&mut start)).is_ok() && start.iter().any(|b| *b != 0)
}

/// Can a file be created next to `path` (SQLite's rollback journal)? Probed by creating and
/// removing an empty file.
fn folder_writable(path: &Path) -> bool {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.probe", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// A list of strings as stored: a JSON array.
fn json_strings(list: &[String]) -> String {
    serde_json::to_string(list).expect("strings serialise")
}

/// A `Record` from five columns starting at `at`: the public log, the seats' logs (a JSON
/// array), random outcomes, reveals, state hash (the order of both tables' selections); what
/// is wrong if the seats' logs cannot be read.
fn record_at(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Result<Record, &'static str>> {
    let logs: String = r.get(at + 1)?;
    let seat_logs = match Record::seat_logs_from(&logs) {
        Ok(l) => l,
        Err(what) => return Ok(Err(what)),
    };
    Ok(Ok(Record { public_log: r.get(at)?, seat_logs, random_json: r.get(at + 2)?, reveals: r.get(at + 3)?, state_hash: r.get(at + 4)? }))
}

impl EventStore for SqliteStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        let damaged = |what: String| StoreError::Damaged { path: self.path.clone(), seq: 0, what };
        let seats = match &self.layout.legacy_seats {
            Some(_) => "''",
            None => "seats_json",
        };
        let sql = format!(
            "SELECT {}, created_at, engine_version, rules_version, seed, options_json, {seats}, setup_public_log, {}, \
             setup_random_json, setup_reveals, setup_state_hash FROM game WHERE id = 1",
            self.layout.kind, self.layout.setup_logs
        );
        let row = self
            .conn
            .query_row(&sql, [], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    record_at(r, 7)?,
                ))
            })
            .optional()
            .map_err(|e| read_error(&self.path, e))?
            .ok_or_else(|| damaged("the game header is missing".into()))?;
        let (game, created_at, engine_version, rules_version, seed, options, seats, setup) = row;
        if serde_json::from_str::<serde_json::Value>(&options).is_err() {
            return Err(damaged("the game options cannot be read".into()));
        }
        let seats = match &self.layout.legacy_seats {
            Some(ids) => ids.clone(),
            None => serde_json::from_str(&seats).map_err(|_| damaged("the seats cannot be read".into()))?,
        };
        let setup = setup.map_err(|what| damaged(what.into()))?;
        if setup.seat_logs.len() != seats.len() {
            return Err(damaged("its private logs do not match the game's seats".into()));
        }
        Ok(GameHeader { game, created_at, engine_version, rules_version, seed: seed as u64, options, seats, setup })
    }

    fn head(&self) -> Result<(u64, String), StoreError> {
        if self.version < 2 {
            return Ok(self.rows_and_head()?.1);
        }
        // Cached statements: a move runs these few every time (parsing them was a tenth of the
        // store's time).
        let (seq, hash): (i64, String) = self
            .conn
            .prepare_cached("SELECT head_seq, head_hash FROM game WHERE id = 1")
            .and_then(|mut q| q.query_row([], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| read_error(&self.path, e))?;
        Ok((seq.max(0) as u64, hash))
    }

    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        self.rows_and_head().map(|(rows, _)| rows)
    }

    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        // One read transaction: the rows and the head are read as of one moment, even while
        // another process writes.
        if !self.conn.is_autocommit() {
            return self.read_rows();
        }
        self.conn.execute_batch("BEGIN").map_err(|e| read_error(&self.path, e))?;
        let result = self.read_rows();
        let _ = self.conn.execute_batch("COMMIT");
        result
    }

    fn lock(&mut self) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly(self.path.clone()));
        }
        if let Some(on) = &mut self.redo {
            on.ops.clear();
        }
        self.conn.prepare_cached("BEGIN IMMEDIATE").and_then(|mut q| q.execute([])).map(|_| ()).map_err(|e| write_error(&self.path, e))
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        // On a redo log: the changes' record durable first (written with other games' in one
        // sync), then the file's commit, unsynced, makes them visible; the log's segment
        // holding the record is not retired (its games synced) before that commit is done.
        let (log, ops) = match &mut self.redo {
            Some(on) if !on.ops.is_empty() => (Some(on.log.clone()), std::mem::take(&mut on.ops)),
            Some(_) | None => (None, Vec::new()),
        };
        let pinned = log.as_ref().map(|log| log.pin());
        if let Some(log) = &log {
            if let Err(e) = log.write(&self.path, &ops) {
                self.rollback();
                return Err(e);
            }
        }
        if let Err(e) = self.conn.prepare_cached("COMMIT").and_then(|mut q| q.execute([])) {
            self.rollback();
            let e = write_error(&self.path, e);
            return Err(match &log {
                // Acknowledged by no one, yet durable in the log, which a start applies: the
                // log takes no more until then (the file and it would disagree).
                Some(log) => {
                    let what = format!(
                        "the move is in the folder's redo log but its file could not be written ({e}): \
                         it will be in the game when the server restarts, which it needs (no move is stored until then)"
                    );
                    log.fail(format!("{}: {what}", self.path.display()));
                    StoreError::WriteFailed { path: self.path.clone(), what }
                }
                None => e,
            });
        }
        // The pin let go first: the move to a new segment waits for no fold (a failed commit,
        // above, fails the log before letting go, so that no segment is retired after it).
        drop(pinned);
        self.fold_when_due();
        Ok(())
    }

    fn rollback(&mut self) {
        if let Some(on) = &mut self.redo {
            on.ops.clear();
        }
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        self.in_lock()?;
        let (head_seq, head_hash) = self.head()?;
        if row.seq != head_seq + 1 {
            return Err(StoreError::BadRow {
                path: self.path.clone(),
                seq: row.seq,
                what: format!("out of sequence: the last stored move is {head_seq}"),
            });
        }
        if self.seats.get().is_none() {
            let _ = self.seats.set(self.header()?.seats);
        }
        let seats = self.seats.get().map(Vec::as_slice).unwrap_or_default();
        let seat = seats.get(row.seat.idx()).ok_or_else(|| StoreError::BadRow {
            path: self.path.clone(),
            seq: row.seq,
            what: format!("no seat {} in this game", row.seat.0),
        })?;
        let h = chain::extend(&head_hash, row, seats);
        let r = &row.record;
        self.conn
            .prepare_cached("INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")
            .and_then(|mut q| {
                q.execute(params![
                    row.seq as i64,
                    row.at,
                    seat,
                    row.move_text,
                    row.move_json,
                    r.random_json,
                    r.reveals,
                    r.public_log,
                    json_strings(&r.seat_logs),
                    r.state_hash,
                    h
                ])
            })
            .map_err(|e| write_error(&self.path, e))?;
        self.set_head(row.seq, &h)?;
        if let Some(on) = &mut self.redo {
            on.ops.push(Op::Append(row.clone()));
        }
        Ok(())
    }

    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        self.in_lock()?;
        let hash = self.row_chain(seq)?;
        self.conn.execute("DELETE FROM events WHERE seq > ?1", params![seq as i64]).map_err(|e| write_error(&self.path, e))?;
        self.set_head(seq, &hash)?;
        if let Some(on) = &mut self.redo {
            on.ops.push(Op::TruncateAfter(seq));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Callers of one folder's sync at once share syncs, and each returns only after a sync
    /// that began after it called (its change covered); a failure is every sharer's.
    #[test]
    fn a_folder_s_syncs_are_shared_and_each_caller_waits_for_one_begun_after_it() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let syncs = FolderSync::default();
        let (begun, ended) = (AtomicU64::new(0), AtomicU64::new(0));
        std::thread::scope(|scope| {
            for _ in 0..32 {
                scope.spawn(|| {
                    for _ in 0..5 {
                        let before = begun.load(Ordering::SeqCst);
                        syncs
                            .sync(|| {
                                let n = begun.fetch_add(1, Ordering::SeqCst) + 1;
                                std::thread::sleep(std::time::Duration::from_millis(2));
                                ended.fetch_max(n, Ordering::SeqCst);
                                Ok(())
                            })
                            .expect("synced");
                        assert!(ended.load(Ordering::SeqCst) > before, "a sync begun after the call ended before it returned");
                    }
                });
            }
        });
        let n = begun.load(Ordering::SeqCst);
        assert!((1..32 * 5).contains(&n), "{n} syncs for 160 calls");
        let failed = syncs.sync(|| Err(std::io::Error::other("the disk is gone")));
        assert_eq!(failed.map_err(|e| e.to_string()), Err("the disk is gone".to_string()));
        assert!(syncs.sync(|| Ok(())).is_ok(), "the next sync is its own");
    }
}
