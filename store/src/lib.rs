//! # Arbiter store
//!
//! A saved game is an event log: a header (seed, options, versions, the setup's record) and one
//! row per accepted move, with the move, its random outcomes, its public and private log text
//! and the hash of the state after it. The log is the single source of truth: opening a game
//! replays every move from the seed and checks each row's random outcomes and state hash.
//!
//! Storage sits behind the small [`EventStore`] trait; [`SqliteStore`] is the embedded
//! default. [`Session`] binds a [`arbiter_engine::Game`] to a store; [`Replay`] steps through
//! a saved game with verification.

mod error;
mod record;
mod replay;
mod session;
mod sqlite;

pub use error::{ReplayError, SessionError, StoreError};
pub use record::{EventRow, GameHeader, Record};
pub use replay::Replay;
pub use session::Session;
pub use sqlite::{SqliteStore, SCHEMA_VERSION};

/// Where a game's events are kept. One `append` is one durable transaction.
pub trait EventStore {
    fn header(&self) -> Result<GameHeader, StoreError>;
    /// All rows in sequence order.
    fn rows(&self) -> Result<Vec<EventRow>, StoreError>;
    fn append(&mut self, row: &EventRow) -> Result<(), StoreError>;
    /// Delete every row with a sequence number above `seq` (undo).
    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError>;
}
