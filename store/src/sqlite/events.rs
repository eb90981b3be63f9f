//! The record: the header, the moves with their integrity chain checked as they are read, and
//! the writes of a move or an undo under the write lock.

use super::{json_strings, read_error, write_error, SqliteStore};
use crate::record::{StoredHeader, StoredSeats};
use crate::redo::Op;
use crate::{chain, EventRow, EventStore, GameHeader, Record, StoreError};
use rusqlite::{params, OptionalExtension};

impl SqliteStore {
    /// The chain value after move `seq` (0: the header's).
    pub(crate) fn row_chain(&self, seq: u64) -> Result<String, StoreError> {
        if seq == 0 {
            return Ok(chain::start(&self.header()?));
        }
        self.conn
            .query_row("SELECT chain FROM events WHERE seq = ?1", params![seq as i64], |r| r.get::<_, String>(0))
            .map_err(|e| read_error(&self.path, e))
    }

    pub(super) fn in_lock(&self) -> Result<(), StoreError> {
        if self.conn.is_autocommit() {
            return Err(StoreError::WriteFailed { path: self.path.clone(), what: "a write outside the write lock (engine fault)".into() });
        }
        Ok(())
    }

    pub(super) fn set_head(&self, seq: u64, hash: &str) -> Result<(), StoreError> {
        self.conn
            .prepare_cached("UPDATE game SET head_seq = ?1, head_hash = ?2 WHERE id = 1")
            .and_then(|mut q| q.execute(params![seq as i64, hash]))
            .map_err(|e| write_error(&self.path, e))?;
        Ok(())
    }

    /// The rows, and the head computed over them (the chain each row was checked against).
    pub(super) fn read_rows(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
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

/// A `Record` from five columns starting at `at`: the public log, the seats' logs (a JSON
/// array), random outcomes, reveals, state hash (the order of both tables' selections); what
/// is wrong if the seats' logs cannot be read.
pub(super) fn record_at(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Result<Record, &'static str>> {
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
        let seats = match &self.layout.legacy_seats {
            Some(ids) => StoredSeats::Ids(ids.clone()),
            None => StoredSeats::Json(seats),
        };
        StoredHeader { game, created_at, engine_version, rules_version, seed, options, seats, setup }.check().map_err(damaged)
    }

    fn head(&self) -> Result<(u64, String), StoreError> {
        if self.version < 2 {
            return Ok(self.rows_and_head()?.1);
        }
        // Cached statements: a move runs these few every time, and parsing them is a large
        // share of the store's time.
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
