//! A game of the folder database: its header and moves read with the integrity chain checked,
//! and its writes made under the game's lock and committed through the writer.
//!
//! Writing: [`EventStore::lock`] takes the game's lock (waiting up to 10 s for another writer
//! of it in this process) and reads the stored head; `append` and `truncate_after` are kept
//! with the store, their chain values computed there; `commit` sends them to the writer as one
//! write made from that head, and returns once it is committed (durable) or refused. Nothing is
//! stored before `commit`: `rollback` drops them.

use super::schema::{SELECT_EVENTS, SELECT_HEAD, SELECT_HEADER};
use super::writer::{ChainedRow, NewGame, Op, Work};
use super::{check_id, game_place, Failure, FolderDatabase, GameLock, WAIT};
use crate::record::{StoredHeader, StoredSeats};
use crate::{chain, EventRow, EventStore, GameHeader, Record, StoreError};
use rusqlite::{Connection, OptionalExtension};
use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One game of a [`FolderDatabase`]: an [`EventStore`], its chat and its documents.
pub struct FolderStore {
    db: FolderDatabase,
    id: String,
    place: PathBuf,
    lock: Arc<GameLock>,
    /// Between `lock` and `commit`/`rollback`: the writes kept for the commit.
    locked: Option<Pending>,
    /// The seats' ids, read once (a game's seats never change).
    seats: OnceCell<Vec<String>>,
}

impl std::fmt::Debug for FolderStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderStore").field("db", &self.db.shared.path).field("id", &self.id).finish()
    }
}

/// The writes of a game under its lock, not yet sent.
struct Pending {
    /// Whether the game's lock was taken (not, under a test's fault).
    holds: bool,
    /// The stored head when the lock was taken: the writer checks it is still the stored one.
    begun: (u64, String),
    /// The head after the writes kept.
    head: (u64, String),
    /// The stored moves up to this one are unchanged by the writes kept (an undo lowers it).
    floor: u64,
    /// The moves appended after `floor`, in order.
    rows: Vec<EventRow>,
    ops: Vec<Op>,
}

/// A `Record` from five columns starting at `at`: the public log, the seats' logs (a JSON
/// array), random outcomes, reveals, state hash; what is wrong if the seats' logs cannot be
/// read.
pub(super) fn record_at(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Result<Record, &'static str>> {
    let logs: String = r.get(at + 1)?;
    let seat_logs = match Record::seat_logs_from(&logs) {
        Ok(l) => l,
        Err(what) => return Ok(Err(what)),
    };
    Ok(Ok(Record { public_log: r.get(at)?, seat_logs, random_json: r.get(at + 2)?, reveals: r.get(at + 3)?, state_hash: r.get(at + 4)? }))
}

/// Game `id`'s header on `c`, checked as every store checks it.
pub(super) fn header_on(c: &Connection, id: &str) -> Result<GameHeader, Failure> {
    let place = game_place(id);
    let damaged = |what: String| Failure::Store(StoreError::Damaged { path: place.clone(), seq: 0, what });
    let row = c
        .prepare_cached(SELECT_HEADER)?
        .query_row([id], |r| {
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
        .map_err(|e| match e {
            rusqlite::Error::InvalidColumnType(..) | rusqlite::Error::FromSqlConversionFailure(..) => {
                damaged("a stored value has the wrong type".into())
            }
            e => Failure::Sql(e),
        })?
        .ok_or_else(|| Failure::Store(StoreError::NoSuchGame(place.clone())))?;
    let (game, created_at, engine_version, rules_version, seed, options, seats, setup) = row;
    let seats = StoredSeats::Json(seats);
    StoredHeader { game, created_at, engine_version, rules_version, seed, options, seats, setup }.check().map_err(damaged)
}

/// A game as read: its header, its rows and the head they were checked against.
pub(super) type GameRead = (GameHeader, Vec<EventRow>, (u64, String));

/// Game `id`'s header, rows (each checked against the chain) and the head they were checked
/// against, on `c` (the caller's read transaction).
pub(super) fn rows_on(c: &Connection, id: &str) -> Result<GameRead, Failure> {
    let place = game_place(id);
    let header = header_on(c, id)?;
    let (header_hash, head_seq, head_hash): (String, i64, String) = c
        .prepare_cached("SELECT header_hash, head_seq, head_hash FROM games WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?
        .ok_or_else(|| Failure::Store(StoreError::NoSuchGame(place.clone())))?;
    let mut h = chain::start(&header);
    if header_hash != h {
        return Err(Failure::Store(StoreError::Damaged {
            path: place,
            seq: 0,
            what: "its header (creation, versions, seed, options or setup) does not match the integrity chain".into(),
        }));
    }
    let mut stmt = c.prepare_cached(SELECT_EVENTS)?;
    let rows = stmt.query_map([id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            record_at(r, 5)?,
            r.get::<_, String>(10)?,
        ))
    })?;
    let mut out = Vec::new();
    for (i, r) in rows.enumerate() {
        let seq = i as u64 + 1;
        let damaged = |what: String| Failure::Store(StoreError::Damaged { path: place.clone(), seq, what });
        let (stored_seq, at, seat, move_text, move_json, record, stored_chain) = r.map_err(|e| match e {
            rusqlite::Error::InvalidColumnType(..) | rusqlite::Error::FromSqlConversionFailure(..) => {
                damaged("a stored value has the wrong type".into())
            }
            e => Failure::Sql(e),
        })?;
        let stored = chain::Stored { seq: stored_seq, at, seat, move_text, move_json, record, chain: stored_chain };
        out.push(chain::check_row(&header, seq, stored, &mut h, true).map_err(damaged)?);
    }
    let found = out.len() as u64;
    let head_seq = head_seq.max(0) as u64;
    if head_seq > found {
        return Err(Failure::Store(StoreError::Truncated { path: place, head: head_seq, found }));
    }
    if head_seq != found || head_hash != h {
        return Err(Failure::Store(StoreError::Damaged {
            path: place,
            seq: 0,
            what: "its record of the last move does not match the moves stored".into(),
        }));
    }
    Ok((header, out, (found, h)))
}

/// What a move of a game with seats `seats` must hold to be stored (and read back): a seat of
/// the game, one private log per seat.
pub(super) fn check_new_row(place: &Path, row: &EventRow, seats: &[String]) -> Result<String, StoreError> {
    let bad = |what: String| StoreError::BadRow { path: place.into(), seq: row.seq, what };
    let seat = seats.get(row.seat.idx()).ok_or_else(|| bad(format!("no seat {} in this game", row.seat.0)))?;
    if row.record.seat_logs.len() != seats.len() {
        return Err(bad("its private logs do not match the game's seats".into()));
    }
    Ok(seat.clone())
}

impl FolderDatabase {
    fn store(&self, id: &str) -> FolderStore {
        FolderStore {
            db: self.clone(),
            id: id.into(),
            place: game_place(id),
            lock: self.game_lock(id),
            locked: None,
            seats: OnceCell::new(),
        }
    }

    /// Create game `id` from its header, with no moves yet and the host's documents `docs`
    /// (name, JSON text), in one durable commit; fails if the id is taken.
    pub fn create_game(&self, id: &str, header: &GameHeader, docs: &[(&str, &str)]) -> Result<FolderStore, StoreError> {
        let docs: Vec<(String, String)> = docs.iter().map(|(n, j)| (n.to_string(), j.to_string())).collect();
        self.insert(id, header, &[], docs, Vec::new())
    }

    /// Create game `id` with `rows` as they are (their times, logs and random outcomes), the
    /// chain computed over them as any append would: one commit, so a failure leaves nothing.
    /// Fails if the id is taken, or a row is not what a read accepts (numbered 1, 2, 3…, a seat
    /// of the game, one private log per seat).
    pub fn import_game(&self, id: &str, header: &GameHeader, rows: &[EventRow]) -> Result<FolderStore, StoreError> {
        self.insert(id, header, rows, Vec::new(), Vec::new())
    }

    /// A new game with its rows, documents and chat, in one commit.
    pub(super) fn insert(
        &self,
        id: &str,
        header: &GameHeader,
        rows: &[EventRow],
        docs: Vec<(String, String)>,
        chat: Vec<crate::ChatMessage>,
    ) -> Result<FolderStore, StoreError> {
        check_id(id)?;
        let place = game_place(id);
        let damaged = |what: &str| StoreError::Damaged { path: place.clone(), seq: 0, what: what.into() };
        if serde_json::from_str::<serde_json::Value>(&header.options).is_err() {
            return Err(damaged("the game options cannot be read"));
        }
        if header.setup.seat_logs.len() != header.seats.len() {
            return Err(damaged("its private logs do not match the game's seats"));
        }
        let start = chain::start(header);
        let mut prev = start.clone();
        let mut chained = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            if row.seq != i as u64 + 1 {
                return Err(StoreError::BadRow { path: place, seq: row.seq, what: format!("out of sequence: expected move {}", i + 1) });
            }
            let seat = check_new_row(&place, row, &header.seats)?;
            let chain = chain::extend(&prev, row, &header.seats);
            chained.push(ChainedRow { row: row.clone(), seat, prev: std::mem::replace(&mut prev, chain.clone()), chain });
        }
        let game = NewGame { id: id.into(), header: header.clone(), start, rows: chained, docs, chat };
        self.submit(Work::Create(Box::new(game)))?;
        let store = self.store(id);
        let _ = store.seats.set(header.seats.clone());
        Ok(store)
    }

    /// Open game `id` (a [`StoreError::NoSuchGame`] if there is none). Nothing is read yet:
    /// [`crate::Session::load`] reads and verifies it.
    pub fn open_game(&self, id: &str) -> Result<FolderStore, StoreError> {
        check_id(id)?;
        let found = self.read(|c| Ok(c.prepare_cached(SELECT_HEAD)?.query_row([id], |_| Ok(())).optional()?.is_some()))?;
        if !found {
            return Err(StoreError::NoSuchGame(game_place(id)));
        }
        Ok(self.store(id))
    }

    /// Every game's id, the oldest first (by creation time, then id).
    pub fn game_ids(&self) -> Result<Vec<String>, StoreError> {
        self.read(|c| {
            let mut q = c.prepare_cached("SELECT id FROM games ORDER BY created_at, id")?;
            let ids = q.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            Ok(ids)
        })
    }

    /// Delete game `id` with its moves, chat and documents (one commit), once no writer of it
    /// in this process holds its lock.
    pub fn delete_game(&self, id: &str) -> Result<(), StoreError> {
        check_id(id)?;
        let lock = self.game_lock(id);
        if !lock.take(WAIT) {
            return Err(StoreError::Busy(game_place(id)));
        }
        let deleted = self.submit(Work::Delete { id: id.into() });
        lock.free();
        deleted.map(drop)
    }
}

impl FolderStore {
    /// The game's id in its database.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The database the game is in.
    pub fn database(&self) -> &FolderDatabase {
        &self.db
    }

    fn in_lock(&mut self) -> Result<&mut Pending, StoreError> {
        let place = self.place.clone();
        self.locked.as_mut().ok_or(StoreError::WriteFailed { path: place, what: "a write outside the write lock (engine fault)".into() })
    }

    /// Why a write beside the record (a chat message, a document) may not be made now: a
    /// move's write under way on this store.
    pub(super) fn may_write_aside(&self, what: &str) -> Result<(), StoreError> {
        if self.locked.is_some() {
            return Err(StoreError::WriteFailed { path: self.place.clone(), what: format!("{what} inside a move's write (engine fault)") });
        }
        Ok(())
    }

    fn seats(&self) -> Result<&[String], StoreError> {
        if self.seats.get().is_none() {
            let seats = self.header()?.seats;
            let _ = self.seats.set(seats);
        }
        Ok(self.seats.get().map(Vec::as_slice).unwrap_or_default())
    }

    /// Let the game's lock go (if taken) and drop what was kept.
    fn release(&mut self) {
        if let Some(p) = self.locked.take() {
            if p.holds {
                self.lock.free();
            }
        }
    }

    /// The chain value after stored move `seq` (0: the header's).
    fn stored_chain(&self, seq: u64) -> Result<Option<String>, StoreError> {
        let id = self.id.as_str();
        self.db.read(|c| {
            let chain = if seq == 0 {
                c.prepare_cached("SELECT header_hash FROM games WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?
            } else {
                c.prepare_cached("SELECT chain FROM events WHERE game_id = ?1 AND seq = ?2")?
                    .query_row(rusqlite::params![id, seq as i64], |r| r.get(0))
                    .optional()?
            };
            Ok(chain)
        })
    }
}

impl EventStore for FolderStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        self.db.read(|c| header_on(c, &self.id))
    }

    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        self.rows_and_head().map(|(rows, _)| rows)
    }

    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        // One snapshot: the header, the rows and the head as of one moment.
        let (_, mut rows, head) = self.db.read_snapshot(|c| rows_on(c, &self.id))?;
        match &self.locked {
            // The writes kept under the lock, as the commit will store them.
            Some(p) if !p.ops.is_empty() => {
                rows.truncate(p.floor as usize);
                rows.extend(p.rows.iter().cloned());
                Ok((rows, p.head.clone()))
            }
            _ => Ok((rows, head)),
        }
    }

    fn head(&self) -> Result<(u64, String), StoreError> {
        if let Some(p) = &self.locked {
            return Ok(p.head.clone());
        }
        let id = self.id.as_str();
        self.db
            .read(|c| {
                Ok(c.prepare_cached(SELECT_HEAD)?.query_row([id], |r| Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get(1)?))).optional()?)
            })?
            .ok_or_else(|| StoreError::NoSuchGame(self.place.clone()))
    }

    fn lock(&mut self) -> Result<(), StoreError> {
        if self.locked.is_some() {
            return Err(StoreError::WriteFailed { path: self.place.clone(), what: "the write lock taken twice (engine fault)".into() });
        }
        let holds = !self.db.shared.skip_game_lock.load(Ordering::SeqCst);
        if holds && !self.lock.take(WAIT) {
            return Err(StoreError::Busy(self.place.clone()));
        }
        // The stored head, read once the lock is held: no write of this game can be queued
        // or under way (every write of its moves is made under the lock, and waited for).
        match self.head() {
            Ok(head) => {
                self.locked = Some(Pending { holds, begun: head.clone(), floor: head.0, head, rows: Vec::new(), ops: Vec::new() });
                Ok(())
            }
            Err(e) => {
                if holds {
                    self.lock.free();
                }
                Err(e)
            }
        }
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        let Some(p) = self.locked.as_mut() else {
            return Err(StoreError::WriteFailed {
                path: self.place.clone(),
                what: "a commit without the write lock (engine fault)".into(),
            });
        };
        let ops = std::mem::take(&mut p.ops);
        let from = p.begun.clone();
        let written = if ops.is_empty() { Ok(0) } else { self.db.submit(Work::Write { id: self.id.clone(), from, ops }) };
        self.release();
        written.map(drop)
    }

    fn rollback(&mut self) {
        self.release();
    }

    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        self.in_lock()?;
        let seats = self.seats()?.to_vec();
        let place = self.place.clone();
        let p = self.in_lock()?;
        if row.seq != p.head.0 + 1 {
            return Err(StoreError::BadRow {
                path: place,
                seq: row.seq,
                what: format!("out of sequence: the last stored move is {}", p.head.0),
            });
        }
        let seat = check_new_row(&place, row, &seats)?;
        let chain = chain::extend(&p.head.1, row, &seats);
        let prev = std::mem::replace(&mut p.head, (row.seq, chain.clone())).1;
        p.rows.push(row.clone());
        p.ops.push(Op::Append(Box::new(ChainedRow { row: row.clone(), seat, prev, chain })));
        Ok(())
    }

    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        let place = self.place.clone();
        let (head, floor) = {
            let p = self.in_lock()?;
            (p.head.clone(), p.floor)
        };
        let none = || StoreError::BadRow { path: place.clone(), seq, what: "no such move to undo to".into() };
        if seq > head.0 {
            return Err(none());
        }
        if seq == head.0 {
            return Ok(());
        }
        let chain = if seq <= floor {
            self.stored_chain(seq)?.ok_or_else(none)?
        } else {
            let p = self.in_lock()?;
            p.rows.iter().find(|r| r.seq == seq).map(|_| ()).ok_or_else(none)?;
            // The chain after a kept row: from the op that appended it.
            p.ops
                .iter()
                .rev()
                .find_map(|op| match op {
                    Op::Append(r) if r.row.seq == seq => Some(r.chain.clone()),
                    _ => None,
                })
                .ok_or_else(none)?
        };
        let p = self.in_lock()?;
        p.floor = p.floor.min(seq);
        p.rows.retain(|r| r.seq <= seq);
        p.head = (seq, chain);
        p.ops.push(Op::Truncate(seq));
        Ok(())
    }
}

impl Drop for FolderStore {
    fn drop(&mut self) {
        self.release();
    }
}
