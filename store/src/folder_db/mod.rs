//! A data folder's games in one SQLite database (`DIR/games.db`): the PostgreSQL store's
//! tables (games, events, chat, docs) keyed by the game's id, in WAL mode at
//! `synchronous = FULL`. The chain ([`crate::chain`]) and the rows are those of the other
//! stores: the same game gives the same values in all of them.
//!
//! Invariants:
//!
//! - **One writer.** Every write goes through one thread ([`writer`]), which takes every write
//!   queued, applies each in a savepoint of its own (one refused write fails alone) and commits
//!   them in one transaction: many games' moves share one sync (group commit). The queue is
//!   bounded: a caller waits when it is full.
//! - **Acknowledged after the commit's sync.** A write returns once the transaction holding it
//!   is committed, which at `FULL` syncs the write-ahead log first. A commit that fails fails
//!   every write in it, and none of them is visible.
//! - **Held by one process.** The process that opens the folder holds an exclusive lock on
//!   `DIR/games.lock` until its last handle is dropped; another open is refused. Within the
//!   process a game has one writer at a time: [`crate::EventStore::lock`] takes the game's lock.
//!
//! The write-ahead log is folded into the database by a thread of its own ([`checkpoint`]),
//! never inside the writer's commits. Reads run on a small pool of connections, beside the
//! writer (WAL: readers never wait for it).
//!
//! One job per module: [`schema`] (the tables), [`open`] (the folder's lock, the file made or
//! checked, the threads started), [`writer`] (the queue and the group commit), [`checkpoint`]
//! (folding the log), [`game`] (a game: the [`crate::EventStore`]), [`docs`] and [`chat`]
//! (what is kept beside the record), [`transfer`] (a game to and from a game file, and a
//! folder of game files imported).

mod chat;
mod checkpoint;
mod docs;
mod game;
mod open;
mod schema;
mod transfer;
mod writer;

pub use game::FolderStore;
pub use schema::FOLDER_SCHEMA_VERSION;

pub(crate) use crate::game_id::{check_id, game_place};
pub(crate) use crate::record::json_strings;
use crate::StoreError;
use rusqlite::{Connection, ErrorCode};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// How long a writer waits for another writer of the same game, and a reader for a free
/// connection, before "busy, try again" (the other stores' wait too).
const WAIT: Duration = Duration::from_secs(10);
/// Connections reading at once, at most (more readers wait for one).
const MAX_READERS: usize = 16;

/// A data folder's database of games (clonable, shared; `Send + Sync`). The last handle
/// dropped (its games' stores included) ends the writer and the checkpoint thread, once every
/// write queued is committed, and lets the folder go.
#[derive(Clone)]
pub struct FolderDatabase {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FolderDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("FolderDatabase").field(&self.shared.path).finish()
    }
}

/// What the handles share.
struct Shared {
    /// The folder (canonical) and the database in it.
    dir: PathBuf,
    path: PathBuf,
    /// The writer's queue (`None` once closed, at the end).
    queue: Option<mpsc::SyncSender<writer::Job>>,
    writer: Option<std::thread::JoinHandle<()>>,
    counters: Arc<writer::Counters>,
    /// The checkpoint thread and the channel whose closing stops it.
    checkpoints: Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
    readers: Mutex<Readers>,
    freed: Condvar,
    /// Each game's write lock, while a store of it exists.
    locks: Mutex<GameLocks>,
    /// A fault injected by a test: `lock` takes no game lock.
    skip_game_lock: AtomicBool,
    /// Held until the end (declared last: dropped after everything above).
    _held: std::fs::File,
}

struct Readers {
    idle: Vec<Connection>,
    /// Connections open, idle or reading.
    open: usize,
}

#[derive(Default)]
struct GameLocks {
    by_id: HashMap<String, Weak<GameLock>>,
    /// The map is swept of dead entries when it grows past this.
    sweep_at: usize,
}

/// One game's write lock within the process (across processes the folder's lock excludes).
#[derive(Default)]
pub(super) struct GameLock {
    held: Mutex<bool>,
    freed: Condvar,
}

impl GameLock {
    /// Take the lock, waiting up to `wait`; whether it was taken.
    fn take(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        while *held {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            held = self.freed.wait_timeout(held, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
        *held = true;
        true
    }

    fn free(&self) {
        *self.held.lock().unwrap_or_else(|p| p.into_inner()) = false;
        self.freed.notify_one();
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The queue closed: the writer ends once it has committed what was queued. Joining
        // blocks, and never panics (an async runtime's thread included).
        drop(self.queue.take());
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        if let Some((stop, thread)) = self.checkpoints.take() {
            drop(stop);
            let _ = thread.join();
        }
        // The last connection closed folds the log into the database and removes it.
        self.readers.get_mut().unwrap_or_else(|p| p.into_inner()).idle.clear();
    }
}

/// A failure inside the store: already a [`StoreError`], or the driver's, to be named.
enum Failure {
    Store(StoreError),
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::Sql(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// What a failed read of the database at `path` means: never the driver's wording.
fn read_error(path: &Path, e: &rusqlite::Error) -> StoreError {
    let place = || path.display().to_string();
    let path = path.to_path_buf();
    match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::NotADatabase => StoreError::Database { place: place(), what: "it is not a database".into() },
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the database's structure is corrupt".into() },
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::PermissionDenied => StoreError::Database { place: place(), what: "no permission to read it".into() },
            ErrorCode::CannotOpen => StoreError::Database { place: place(), what: "it cannot be opened".into() },
            _ => StoreError::Damaged { path, seq: 0, what: "its structure cannot be read".into() },
        },
        rusqlite::Error::SqlInputError { .. } | rusqlite::Error::InvalidQuery => {
            StoreError::Database { place: place(), what: "its tables are not those of this Arbiter".into() }
        }
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => {
            StoreError::Damaged { path, seq: 0, what: "a stored value has the wrong type".into() }
        }
        _ if e.to_string().contains("no such table") || e.to_string().contains("no such column") => {
            StoreError::Database { place: place(), what: "its tables are not those of this Arbiter".into() }
        }
        _ => StoreError::Damaged { path, seq: 0, what: "it cannot be read".into() },
    }
}

/// What a failed write to the database at `path` means: read-only, busy, or not stored (disk
/// full…).
fn write_error(path: &Path, e: &rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied => StoreError::ReadOnly(path),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::DiskFull => StoreError::WriteFailed { path, what: "the disk is full".into() },
            ErrorCode::TooBig => StoreError::WriteFailed { path, what: "the row is too large".into() },
            ErrorCode::SystemIoFailure => StoreError::WriteFailed { path, what: "a write failed (disk full or a file-size limit?)".into() },
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the database's structure is corrupt".into() },
            ErrorCode::NotADatabase => StoreError::Database { place: path.display().to_string(), what: "it is not a database".into() },
            _ => StoreError::WriteFailed { path, what: "the write failed".into() },
        },
        _ => StoreError::WriteFailed { path, what: "the write failed".into() },
    }
}

impl FolderDatabase {
    /// The database file (`DIR/games.db`).
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The data folder (as found: its canonical path).
    pub fn folder(&self) -> &Path {
        &self.shared.dir
    }

    /// Transactions the writer has committed: each one sync, for every write in it.
    pub fn commits(&self) -> u64 {
        self.shared.counters.commits.load(Ordering::Relaxed)
    }

    /// Queue `work` for the writer and wait until the transaction holding it is committed
    /// (durable), or refused: its outcome (a chat message's number; else 0).
    fn submit(&self, work: writer::Work) -> Result<u64, StoreError> {
        let stopped = || StoreError::WriteFailed { path: self.shared.path.clone(), what: "the database's writer has stopped".into() };
        let queue = self.shared.queue.as_ref().ok_or_else(stopped)?;
        let (reply, answer) = mpsc::sync_channel(1);
        self.shared.counters.queued.fetch_add(1, Ordering::SeqCst);
        if queue.send(writer::Job { work, reply }).is_err() {
            self.shared.counters.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(stopped());
        }
        answer.recv().map_err(|_| stopped())?
    }

    /// Run `f` on a reading connection (in the pool, or a new one), read errors named after the
    /// database.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Failure>) -> Result<T, StoreError> {
        let conn = self.reader()?;
        let result = f(&conn);
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        self.give_back(conn);
        result.map_err(|e| match e {
            Failure::Store(e) => e,
            Failure::Sql(e) => read_error(&self.shared.path, &e),
        })
    }

    /// [`FolderDatabase::read`] in one read transaction: what `f` reads is one moment's.
    fn read_snapshot<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.read(|c| {
            c.prepare_cached("BEGIN")?.execute([])?;
            let result = f(c);
            let _ = c.prepare_cached("COMMIT").and_then(|mut q| q.execute([]));
            result
        })
    }

    fn reader(&self) -> Result<Connection, StoreError> {
        let deadline = Instant::now() + WAIT;
        let mut readers = self.shared.readers.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(c) = readers.idle.pop() {
                return Ok(c);
            }
            if readers.open < MAX_READERS {
                readers.open += 1;
                drop(readers);
                return open::reader(&self.shared.path).inspect_err(|_| {
                    self.shared.readers.lock().unwrap_or_else(|p| p.into_inner()).open -= 1;
                    self.shared.freed.notify_one();
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(StoreError::Busy(self.shared.path.clone()));
            }
            readers = self.shared.freed.wait_timeout(readers, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    fn give_back(&self, conn: Connection) {
        self.shared.readers.lock().unwrap_or_else(|p| p.into_inner()).idle.push(conn);
        self.shared.freed.notify_one();
    }

    /// Game `id`'s write lock (shared by every store of the game in this process).
    fn game_lock(&self, id: &str) -> Arc<GameLock> {
        let mut locks = self.shared.locks.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(lock) = locks.by_id.get(id).and_then(Weak::upgrade) {
            return lock;
        }
        if locks.by_id.len() >= locks.sweep_at {
            locks.by_id.retain(|_, l| l.strong_count() > 0);
            locks.sweep_at = (locks.by_id.len() * 2).max(64);
        }
        let lock = Arc::new(GameLock::default());
        locks.by_id.insert(id.to_string(), Arc::downgrade(&lock));
        lock
    }

    /// Fault injection for tests, never for use: this database's stores take no game lock,
    /// so that only the writer's check of each write against the stored head stands between
    /// two writers of one game.
    #[doc(hidden)]
    pub fn fault_skip_game_lock(&self) {
        self.shared.skip_game_lock.store(true, Ordering::SeqCst);
    }

    /// Fault injection for tests, never for use: the writer's next commit fails (a commit hook
    /// turns it into a rollback), as a full disk would fail it.
    #[doc(hidden)]
    pub fn fault_fail_next_commit(&self) {
        self.shared.counters.fail_next_commit.store(true, Ordering::SeqCst);
    }

    /// Fault injection for tests, never for use: the writer takes no write until the guard
    /// returned is dropped (the writes queued meanwhile then go in one transaction, as many as
    /// a batch takes).
    #[doc(hidden)]
    pub fn fault_hold_writer(&self) -> Result<WriterHold, StoreError> {
        let (release, held) = mpsc::channel();
        self.submit(writer::Work::Hold(held))?;
        Ok(WriterHold { _release: release })
    }

    /// Writes queued and not yet taken by the writer (for tests).
    #[doc(hidden)]
    pub fn fault_queued(&self) -> usize {
        self.shared.counters.queued.load(Ordering::SeqCst)
    }
}

/// The writer held ([`FolderDatabase::fault_hold_writer`]) until this is dropped.
#[doc(hidden)]
pub struct WriterHold {
    _release: mpsc::Sender<()>,
}
