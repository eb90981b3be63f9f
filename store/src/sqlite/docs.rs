//! The host's documents, kept in a game's file beside the record.

use super::{read_error, SqliteStore};
use crate::StoreError;
use rusqlite::{params, OptionalExtension};

/// The host's documents kept in a game's file beside its record and outside it (the server's
/// seats: hashes of the seats' tokens, the clock, the computer's seat), as PostgreSQL keeps
/// them per game (its `docs` table): named JSON texts, each replaced whole; not in the
/// integrity chain, never replayed, untouched by undo. The table is made by the first
/// document, like the chat's: a file without one is the same schema version.
pub(super) const DOCS_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS docs (name TEXT PRIMARY KEY, json TEXT NOT NULL);";
pub(super) const PUT_DOC: &str = "INSERT INTO docs (name, json) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET json = excluded.json";

impl SqliteStore {
    /// The host's document `name` (`None` if none was stored).
    pub fn doc(&self, name: &str) -> Result<Option<String>, StoreError> {
        if !self.has_table("docs")? {
            return Ok(None);
        }
        self.conn.query_row("SELECT json FROM docs WHERE name = ?1", [name], |r| r.get(0)).optional().map_err(|e| read_error(&self.path, e))
    }

    /// Every host's document of the game, as (name, JSON text) by name (none if none was
    /// stored): what moves with the game to another store.
    pub fn all_docs(&self) -> Result<Vec<(String, String)>, StoreError> {
        if !self.has_table("docs")? {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare("SELECT name, json FROM docs ORDER BY name").map_err(|e| read_error(&self.path, e))?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(|e| read_error(&self.path, e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| read_error(&self.path, e))
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
