//! The host's documents of each game (the server's seats, its lobby's facts): named JSON
//! texts kept beside the record and outside it, each replaced whole; not in the integrity
//! chain, never replayed, untouched by undo.

use super::writer::Work;
use super::{check_id, FolderDatabase, FolderStore};
use crate::StoreError;
use rusqlite::OptionalExtension;

impl FolderDatabase {
    /// The host's document `name` of game `id`, if stored.
    pub fn doc(&self, id: &str, name: &str) -> Result<Option<String>, StoreError> {
        check_id(id)?;
        self.read(|c| {
            let json = c
                .prepare_cached("SELECT json FROM docs WHERE game_id = ?1 AND name = ?2")?
                .query_row([id, name], |r| r.get(0))
                .optional()?;
            Ok(json)
        })
    }

    /// Every game's document `name`, as (game id, JSON text), the oldest game first (by
    /// creation time, then id), in one query.
    pub fn docs(&self, name: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.read(|c| {
            let mut q = c.prepare_cached(
                "SELECT d.game_id, d.json FROM docs d JOIN games g ON g.id = d.game_id WHERE d.name = ?1 ORDER BY g.created_at, g.id",
            )?;
            let docs = q.query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
            Ok(docs)
        })
    }

    /// Store (or replace) the host's document `name` of game `id` (durably, on its own).
    pub fn put_doc(&self, id: &str, name: &str, json: &str) -> Result<(), StoreError> {
        check_id(id)?;
        self.submit(Work::PutDoc { id: id.into(), name: name.into(), json: json.into() }).map(drop)
    }
}

/// Every document of game `id` on `c`, by name.
pub(super) fn docs_on(c: &rusqlite::Connection, id: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut q = c.prepare_cached("SELECT name, json FROM docs WHERE game_id = ?1 ORDER BY name")?;
    let docs = q.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect();
    docs
}

impl FolderStore {
    /// The host's document `name` of this game ([`FolderDatabase::doc`]).
    pub fn doc(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.database().doc(self.id(), name)
    }

    /// Store the host's document `name` of this game ([`FolderDatabase::put_doc`]); never
    /// inside a move's write.
    pub fn put_doc(&self, name: &str, json: &str) -> Result<(), StoreError> {
        self.may_write_aside("a host's document")?;
        self.database().put_doc(self.id(), name, json)
    }
}
