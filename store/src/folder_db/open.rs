//! Opening a folder's database: the folder's lock taken, the file made (private, its schema
//! in one commit) or checked (SQLite's, Arbiter's, a schema this code reads), the connections
//! set up and the writer and checkpoint threads started.

use super::schema::{APPLICATION_ID, COLUMNS, DATABASE, FOLDER_SCHEMA_VERSION, LOCK, SCHEMA};
use super::{checkpoint, read_error, write_error, writer, FolderDatabase, Readers, Shared, WAIT};
use crate::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// The SQLite file header's magic string.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
/// The write-ahead log's size once folded, at most (SQLite keeps it at its largest otherwise).
const WAL_LIMIT: u64 = 4 << 20;

impl FolderDatabase {
    /// Open the database of data folder `dir` (`dir/games.db`), making it if missing: WAL
    /// mode, `synchronous = FULL`, readable by its owner only. Refused if another process holds
    /// the folder (or this one: one open at a time), if the file is not a SQLite database, is
    /// another program's, or has a schema newer than this code's. Nothing in a refused file is
    /// changed.
    pub fn open(dir: &Path) -> Result<FolderDatabase, StoreError> {
        let dir = dir
            .canonicalize()
            .map_err(|_| StoreError::Database { place: dir.display().to_string(), what: "the data folder cannot be found".into() })?;
        if !dir.is_dir() {
            return Err(StoreError::Database { place: dir.display().to_string(), what: "it is not a folder".into() });
        }
        let held = hold(&dir)?;
        let path = dir.join(DATABASE);
        let conn = writer_connection(&path)?;
        let fold = checkpoint::connection(&path)?;
        let counters = Arc::new(writer::Counters::default());
        let failed =
            |e: std::io::Error| StoreError::WriteFailed { path: path.clone(), what: format!("a thread could not be started: {e}") };
        // (If the writer cannot be started, the checkpoint thread ends as its channel closes.)
        let checkpoints = checkpoint::start(fold).map_err(failed)?;
        let (queue, jobs) = std::sync::mpsc::sync_channel(writer::QUEUE);
        let writer = {
            let (counters, path) = (counters.clone(), path.clone());
            std::thread::Builder::new().name("arbiter-folder-writer".into()).spawn(move || writer::run(conn, jobs, &counters, &path))
        }
        .map_err(failed)?;
        let shared = Shared {
            dir,
            path,
            queue: Some(queue),
            writer: Some(writer),
            counters,
            checkpoints: Some(checkpoints),
            readers: Mutex::new(Readers { idle: Vec::new(), open: 0 }),
            freed: Condvar::new(),
            locks: Mutex::default(),
            skip_game_lock: AtomicBool::new(false),
            _held: held,
        };
        Ok(FolderDatabase { shared: Arc::new(shared) })
    }
}

impl FolderDatabase {
    /// The database of data folder `dir`, shared within the process: the handle already open
    /// on it if there is one, else [`FolderDatabase::open`]. A handle whose last clone is being
    /// dropped (its writer finishing, the folder's lock not yet let go) is waited for, up to
    /// the store's wait. Another process holding the folder is refused as by `open`.
    pub fn open_shared(dir: &Path) -> Result<FolderDatabase, StoreError> {
        let canonical = dir
            .canonicalize()
            .map_err(|_| StoreError::Database { place: dir.display().to_string(), what: "the data folder cannot be found".into() })?;
        let mut open = SHARED.lock().unwrap_or_else(|p| p.into_inner());
        let was_open = match open.get(&canonical).map(Weak::upgrade) {
            Some(Some(shared)) => return Ok(FolderDatabase { shared }),
            Some(None) => true,
            None => false,
        };
        let deadline = Instant::now() + WAIT;
        let db = loop {
            match FolderDatabase::open(&canonical) {
                Ok(db) => break db,
                // The last handle's drop lets the folder go once its writer has committed.
                Err(_) if was_open && Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => return Err(e),
            }
        };
        open.retain(|_, shared| shared.strong_count() > 0);
        open.insert(canonical, Arc::downgrade(&db.shared));
        Ok(db)
    }
}

/// The folders' databases open in this process ([`FolderDatabase::open_shared`]).
static SHARED: Mutex<BTreeMap<PathBuf, Weak<Shared>>> = Mutex::new(BTreeMap::new());

/// The folder's lock, taken: an exclusive lock on `dir/games.lock` (made private if missing),
/// held as long as the file stays open. Refused at once if another open file holds it (another
/// process, or another open in this one).
fn hold(dir: &Path) -> Result<std::fs::File, StoreError> {
    let lock_path = dir.join(LOCK);
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let file = o.open(&lock_path).map_err(|e| StoreError::Database {
        place: dir.display().to_string(),
        what: format!("its lock file {} cannot be opened: {e}", lock_path.display()),
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Database {
            place: dir.display().to_string(),
            what: format!("another process holds this folder's games ({DATABASE}, locked by {LOCK}): one process at a time"),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Database {
            place: dir.display().to_string(),
            what: format!("its lock file {} cannot be locked: {e}", lock_path.display()),
        }),
    }
}

/// What the file at `path` is, from its first bytes, before SQLite reads it.
enum Found {
    Missing,
    /// Empty: a database whose making was cut short before its first commit.
    Empty,
    Sqlite,
}

fn look(path: &Path) -> Result<Found, StoreError> {
    use std::io::Read;
    let refused = |what: String| StoreError::Database { place: path.display().to_string(), what };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Err(refused("no permission to read it".into())),
        Err(_) => return Err(refused("it cannot be read".into())),
    };
    if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Err(refused("it is not a file".into()));
    }
    let mut start = Vec::with_capacity(100);
    file.by_ref().take(100).read_to_end(&mut start).map_err(|_| refused("it cannot be read".into()))?;
    if start.is_empty() {
        return Ok(Found::Empty);
    }
    if start.len() < 100 || !start.starts_with(SQLITE_MAGIC) {
        return Err(refused("it is not a database (not a SQLite file): move it away, or give Arbiter another folder".into()));
    }
    Ok(Found::Sqlite)
}

/// The writer's connection to the database at `path`, the file made if missing (or empty)
/// and checked otherwise.
fn writer_connection(path: &Path) -> Result<Connection, StoreError> {
    let refused = |what: &str| StoreError::Database { place: path.display().to_string(), what: what.into() };
    match look(path)? {
        Found::Missing => {
            // Readable by its owner only (0600, whatever the umask): a saved game holds its
            // seed. SQLite gives its log and the log's index the database's mode.
            crate::change_folder(path, || crate::sqlite::private_new_file(path))
                .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the database could not be made: {e}") })?;
        }
        Found::Empty | Found::Sqlite => {}
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| read_error(path, &e))?;
    conn.busy_timeout(WAIT).map_err(|e| read_error(path, &e))?;
    let number = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map_err(|e| read_error(path, &e));
    let (app, version, tables) =
        (number("PRAGMA application_id")?, number("PRAGMA user_version")?, number("SELECT COUNT(*) FROM sqlite_master")?);
    // An empty database (its making cut short, or made empty by hand) is made Arbiter's.
    let blank = app == 0 && version == 0 && tables == 0;
    if !blank && app != APPLICATION_ID {
        return Err(refused(
            "it is not Arbiter's database of games (another program's file?): move it away, or give Arbiter another folder",
        ));
    }
    if version > FOLDER_SCHEMA_VERSION {
        return Err(StoreError::NewerSchema { path: path.into(), found: version, supported: FOLDER_SCHEMA_VERSION });
    }
    if !blank && version < 1 {
        return Err(StoreError::UnknownSchema { path: path.into(), found: version, supported: FOLDER_SCHEMA_VERSION });
    }
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| write_error(path, &e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(refused("its write-ahead log cannot be set up"));
    }
    // FULL: every commit syncs the log before it returns. No fold inside a commit (the
    // checkpoint thread folds); the log cut back to `WAL_LIMIT` once folded.
    conn.execute_batch(&format!(
        "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = {WAL_LIMIT}; PRAGMA foreign_keys = ON;"
    ))
    .map_err(|e| write_error(path, &e))?;
    if blank {
        let made = conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {FOLDER_SCHEMA_VERSION}; COMMIT;"
        ));
        if let Err(e) = made {
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            return Err(write_error(path, &e));
        }
    }
    for sql in COLUMNS {
        conn.prepare(sql).map_err(|_| refused("its tables are not those of this Arbiter (changed by hand, or another program's?)"))?;
    }
    // The database's name and its log's (made by the reads above if missing) on the disk before
    // any game is acknowledged.
    crate::sync_folder(path)
        .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("its folder could not be synced: {e}") })?;
    Ok(conn)
}

/// A reading connection to the database at `path` (it never writes: `query_only`).
pub(super) fn reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| read_error(path, &e))?;
    conn.busy_timeout(WAIT).map_err(|e| read_error(path, &e))?;
    conn.execute_batch("PRAGMA query_only = ON;").map_err(|e| read_error(path, &e))?;
    Ok(conn)
}
