//! A game's chat, kept in its file beside the record.

use super::{read_error, SqliteStore};
use crate::StoreError;
use rusqlite::params;

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
pub(super) const CHAT_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS chat (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    sender TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL
);";

impl SqliteStore {
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
