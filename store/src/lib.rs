//! # Arbiter store
//!
//! A saved game of any game on the kernel is an event log: a header (the kind of game, its
//! seed, options, versions and seats, the setup's record) and one row per accepted move, with
//! the seat that made it, its canonical text and JSON, its random outcomes, its public log and
//! one private log per seat, and the hash of the state after it. The log is the single source
//! of truth: opening a game replays every move from the seed and checks each row's random
//! outcomes and state hash. The store knows no game: it drives a [`arbiter_kernel::Match`]
//! made by the header's [`arbiter_kernel::GameKind`].
//!
//! Storage sits behind the small [`EventStore`] trait; [`SqliteStore`] is the embedded
//! default, [`PgStore`] a game of a shared PostgreSQL database ([`PgDatabase`]), and
//! [`AnyStore`] either, chosen at run time. [`Session`] binds a game to a store; [`Replay`]
//! steps through a saved game with verification.
//!
//! [`FolderDatabase`] keeps a data folder's games in one SQLite database, one writer
//! committing many games' writes together ([`FolderStore`]: one game).

pub mod chain;
mod error;
mod folder_db;
mod game_id;
mod postgres;
mod record;
mod redo;
mod replay;
mod session;
mod sqlite;

pub use error::{ReplayError, SessionError, StoreError};
pub use folder_db::{FolderDatabase, FolderStore, FOLDER_SCHEMA_VERSION};
pub use postgres::{Fence, PgDatabase, PgStore, PG_SCHEMA_VERSION};

/// The PostgreSQL client's types a host's own statements take and answer
/// ([`PgDatabase::host_query`]).
pub mod pg {
    pub use deadpool_postgres::tokio_postgres::types::{FromSql, ToSql};
    pub use deadpool_postgres::tokio_postgres::Row;
}
pub use record::{log_for, move_text_for, EventRow, GameHeader, LogEntry, Record};
pub use redo::{holding as redo_log_holding, RedoLog, Segments, SyncTimes, SLOW_SYNC};
pub use replay::Replay;
pub use session::{kind_of, GamePlace, Session};

/// The version of Arbiter that writes saved games (recorded in each).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
pub use sqlite::{change_folder, sync_folder, ChatMessage, Journal, SqliteStore, SCHEMA_VERSION};

/// Where a game's events are kept. Reading checks the integrity chain ([`chain`]). Writing
/// happens under the write lock: `lock` (waiting a bounded time for another writer), `head`
/// to see whether another process wrote since this one read, `append` or `truncate_after`,
/// then `commit` (durable) or `rollback`.
pub trait EventStore {
    fn header(&self) -> Result<GameHeader, StoreError>;
    /// All rows in sequence order, their chain checked against the stored head.
    fn rows(&self) -> Result<Vec<EventRow>, StoreError>;
    /// The rows as [`EventStore::rows`], and the head of the chain they were checked against
    /// (their number and the chain value after the last; [`chain::head`] of them, not
    /// computed twice).
    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError>;
    /// The stored head: the number of the last move and the chain value after it.
    fn head(&self) -> Result<(u64, String), StoreError>;
    /// Take the write lock. Fails at once for a read-only game.
    fn lock(&mut self) -> Result<(), StoreError>;
    /// Make the writes since `lock` durable and release the lock.
    fn commit(&mut self) -> Result<(), StoreError>;
    /// Drop the writes since `lock` and release the lock.
    fn rollback(&mut self);
    /// Append a row (under the lock), moving the head.
    fn append(&mut self, row: &EventRow) -> Result<(), StoreError>;
    /// Delete every row with a sequence number above `seq` (undo, under the lock).
    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError>;
}

/// A game in either store, chosen at run time (`arbiter serve --data DIR` or `--store
/// postgres://…`): `Session<AnyStore>` is what such a host keeps.
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
    /// A game of a data folder's database ([`FolderDatabase`]).
    Folder(FolderStore),
}

impl std::fmt::Debug for AnyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyStore::Sqlite(s) => f.debug_tuple("Sqlite").field(&s.path()).finish(),
            AnyStore::Postgres(s) => f.debug_tuple("Postgres").field(s).finish(),
            AnyStore::Folder(s) => f.debug_tuple("Folder").field(s).finish(),
        }
    }
}

impl From<SqliteStore> for AnyStore {
    fn from(s: SqliteStore) -> Self {
        AnyStore::Sqlite(s)
    }
}

impl From<PgStore> for AnyStore {
    fn from(s: PgStore) -> Self {
        AnyStore::Postgres(s)
    }
}

impl From<FolderStore> for AnyStore {
    fn from(s: FolderStore) -> Self {
        AnyStore::Folder(s)
    }
}

impl AnyStore {
    /// The game's chat, in the order stored.
    pub fn chat(&self) -> Result<Vec<ChatMessage>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.chat(),
            AnyStore::Postgres(s) => s.chat(),
            AnyStore::Folder(s) => s.chat(),
        }
    }

    /// How many chat messages the game holds.
    pub fn chat_len(&self) -> Result<u64, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.chat_len(),
            AnyStore::Postgres(s) => s.chat_len(),
            AnyStore::Folder(s) => s.chat_len(),
        }
    }

    /// Store a chat message (durably, on its own; never inside a move's write).
    pub fn add_chat(&self, from: &str, to: &str, text: &str) -> Result<ChatMessage, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.add_chat(from, to, text),
            AnyStore::Postgres(s) => s.add_chat(from, to, text),
            AnyStore::Folder(s) => s.add_chat(from, to, text),
        }
    }

    /// The host's document `name` (the server's seats), kept with the game and outside its
    /// record (`None` if none was stored).
    pub fn doc(&self, name: &str) -> Result<Option<String>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.doc(name),
            AnyStore::Postgres(s) => s.doc(name),
            AnyStore::Folder(s) => s.doc(name),
        }
    }

    /// Store the host's document `name`, replacing it (durably, on its own; never inside a
    /// move's write).
    pub fn put_doc(&self, name: &str, json: &str) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.put_doc(name, json),
            AnyStore::Postgres(s) => s.put_doc(name, json),
            AnyStore::Folder(s) => s.put_doc(name, json),
        }
    }

    /// Whether moves cannot be stored (a SQLite file opened read-only; a database game never is).
    pub fn is_read_only(&self) -> bool {
        match self {
            AnyStore::Sqlite(s) => s.is_read_only(),
            AnyStore::Postgres(_) => false,
            AnyStore::Folder(_) => false,
        }
    }
}

impl EventStore for AnyStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.header(),
            AnyStore::Postgres(s) => s.header(),
            AnyStore::Folder(s) => s.header(),
        }
    }
    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.rows(),
            AnyStore::Postgres(s) => s.rows(),
            AnyStore::Folder(s) => s.rows(),
        }
    }
    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.rows_and_head(),
            AnyStore::Postgres(s) => s.rows_and_head(),
            AnyStore::Folder(s) => s.rows_and_head(),
        }
    }
    fn head(&self) -> Result<(u64, String), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.head(),
            AnyStore::Postgres(s) => s.head(),
            AnyStore::Folder(s) => s.head(),
        }
    }
    fn lock(&mut self) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.lock(),
            AnyStore::Postgres(s) => s.lock(),
            AnyStore::Folder(s) => s.lock(),
        }
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.commit(),
            AnyStore::Postgres(s) => s.commit(),
            AnyStore::Folder(s) => s.commit(),
        }
    }
    fn rollback(&mut self) {
        match self {
            AnyStore::Sqlite(s) => s.rollback(),
            AnyStore::Postgres(s) => s.rollback(),
            AnyStore::Folder(s) => s.rollback(),
        }
    }
    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.append(row),
            AnyStore::Postgres(s) => s.append(row),
            AnyStore::Folder(s) => s.append(row),
        }
    }
    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.truncate_after(seq),
            AnyStore::Postgres(s) => s.truncate_after(seq),
            AnyStore::Folder(s) => s.truncate_after(seq),
        }
    }
}
