//! Upgrading a file of an older schema version to the current one, when it is opened for
//! writing.

use super::schema::{Layout, SCHEMA, SCHEMA_VERSION};
use super::{json_strings, read_error, write_error, SqliteStore};
use crate::{chain, EventStore, StoreError};
use rusqlite::params;

impl SqliteStore {
    /// Version 1 had no chain: add it over the rows as they are (trusting them once).
    pub(super) fn upgrade_from_v1(&mut self) -> Result<(), StoreError> {
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
    pub(super) fn upgrade_from_v2(&mut self) -> Result<(), StoreError> {
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

    pub(super) fn upgrade_from_v2_locked(&mut self) -> Result<(), StoreError> {
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
}
