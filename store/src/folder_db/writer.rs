//! The one writer: a thread that takes every write queued (up to [`MAX_BATCH`]), applies each
//! in a savepoint of its own and commits them in one transaction, then answers each write with
//! its outcome. A write refused by its own checks (out of sequence against the stored head, a
//! game that is not there) is rolled back to its savepoint and fails alone; a transaction that
//! fails (its commit, a full disk) fails every write in it, and none of them is visible.
//!
//! The writer checks every write against what is stored, not against what its caller saw: a
//! move's row must follow the stored head (its number and chain value), an undo must go back
//! to a stored move. The chain values come with the rows (computed by the caller, off this
//! thread).

use super::schema::{INSERT_CHAT, INSERT_EVENT, INSERT_GAME, PUT_DOC, SELECT_HEAD, SET_HEAD};
use super::{game_place, json_strings, write_error, Failure};
use crate::{ChatMessage, EventRow, GameHeader, StoreError};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Writes queued at most (a caller waits for room beyond).
pub(super) const QUEUE: usize = 1024;
/// Writes in one transaction at most: a longer queue is committed in several.
const MAX_BATCH: usize = 1024;

/// What the writer counts, and the faults a test may inject.
#[derive(Default)]
pub(super) struct Counters {
    /// Transactions committed.
    pub(super) commits: AtomicU64,
    /// Writes queued and not yet taken.
    pub(super) queued: AtomicUsize,
    /// The next commit is made to fail (a test's fault).
    pub(super) fail_next_commit: AtomicBool,
}

/// A write and where its outcome goes (a chat message's number; else 0).
pub(super) struct Job {
    pub(super) work: Work,
    pub(super) reply: mpsc::SyncSender<Result<u64, StoreError>>,
}

/// A row to store, its seat's id, and the chain values before and after it.
pub(super) struct ChainedRow {
    pub(super) row: EventRow,
    pub(super) seat: String,
    pub(super) prev: String,
    pub(super) chain: String,
}

/// A new game: its header and the chain's start over it, and what it holds already (a game
/// imported whole).
pub(super) struct NewGame {
    pub(super) id: String,
    pub(super) header: GameHeader,
    pub(super) start: String,
    pub(super) rows: Vec<ChainedRow>,
    pub(super) docs: Vec<(String, String)>,
    pub(super) chat: Vec<ChatMessage>,
}

/// One change of a game's record, in a write of its moves.
pub(super) enum Op {
    Append(Box<ChainedRow>),
    /// Delete every move after this one (undo).
    Truncate(u64),
}

pub(super) enum Work {
    Create(Box<NewGame>),
    /// A game's record changed by `ops`, made from head `from` (which must still be stored).
    Write {
        id: String,
        from: (u64, String),
        ops: Vec<Op>,
    },
    PutDoc {
        id: String,
        name: String,
        json: String,
    },
    /// A chat message, numbered after the game's last.
    AddChat {
        id: String,
        at: String,
        from: String,
        to: String,
        text: String,
    },
    RestoreChat {
        id: String,
        messages: Vec<ChatMessage>,
    },
    Delete {
        id: String,
    },
    /// Take no write until the sender of this channel is dropped (a test's fault).
    Hold(mpsc::Receiver<()>),
}

/// The writer thread's loop on `conn`, the database at `path`, until the queue is closed (the
/// last handle dropped) and empty.
pub(super) fn run(mut conn: Connection, queue: mpsc::Receiver<Job>, counters: &Counters, path: &Path) {
    let mut hold: Option<mpsc::Receiver<()>> = None;
    loop {
        if let Some(held) = hold.take() {
            let _ = held.recv();
        }
        let Ok(first) = queue.recv() else { break };
        counters.queued.fetch_sub(1, Ordering::SeqCst);
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(Job { work, reply }) = next.take() {
            if let Work::Hold(held) = work {
                let _ = reply.send(Ok(0));
                hold = Some(held);
                break;
            }
            batch.push(Job { work, reply });
            if batch.len() < MAX_BATCH {
                next = queue.try_recv().ok();
                if next.is_some() {
                    counters.queued.fetch_sub(1, Ordering::SeqCst);
                }
            }
        }
        if !batch.is_empty() {
            commit(&mut conn, batch, counters, path);
        }
    }
}

/// Run a statement without parameters (cached: a batch runs the same few every time).
fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql).and_then(|mut q| q.execute([])).map(drop)
}

/// Apply `batch` in one transaction and answer each write.
fn commit(conn: &mut Connection, batch: Vec<Job>, counters: &Counters, path: &Path) {
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE") {
        for job in batch {
            let _ = job.reply.send(Err(write_error(path, &e)));
        }
        return;
    }
    let mut outcomes = Vec::with_capacity(batch.len());
    // Set if the transaction itself was lost: SQLite rolls it back on some failures (a full
    // disk, an I/O error), and every write of the batch then fails.
    let mut lost: Option<rusqlite::Error> = None;
    for job in &batch {
        let outcome = exec(conn, "SAVEPOINT job").map_err(Failure::Sql).and_then(|()| apply(conn, &job.work)).and_then(|n| {
            exec(conn, "RELEASE job")?;
            Ok(n)
        });
        let outcome = match outcome {
            Ok(n) => Ok(n),
            Err(e) => {
                if !conn.is_autocommit() {
                    let _ = exec(conn, "ROLLBACK TO job").and_then(|()| exec(conn, "RELEASE job"));
                }
                match e {
                    Failure::Store(e) => Err(e),
                    Failure::Sql(e) if conn.is_autocommit() => {
                        lost = Some(e);
                        break;
                    }
                    Failure::Sql(e) => Err(write_error(path, &e)),
                }
            }
        };
        if conn.is_autocommit() {
            lost.get_or_insert(rusqlite::Error::InvalidQuery);
            break;
        }
        outcomes.push(outcome);
    }
    let committed = match lost {
        Some(e) => Err(e),
        None => {
            let fail = counters.fail_next_commit.swap(false, Ordering::SeqCst);
            if fail {
                // A commit hook that says no: SQLite rolls the transaction back and the COMMIT
                // fails, as a commit that cannot be written would.
                let _ = conn.commit_hook(Some(|| true));
            }
            let done = exec(conn, "COMMIT");
            if fail {
                let _ = conn.commit_hook(None::<fn() -> bool>);
            }
            done
        }
    };
    match committed {
        Ok(()) => {
            counters.commits.fetch_add(1, Ordering::Relaxed);
            for (job, outcome) in batch.into_iter().zip(outcomes) {
                let _ = job.reply.send(outcome);
            }
        }
        Err(e) => {
            if !conn.is_autocommit() {
                let _ = exec(conn, "ROLLBACK");
            }
            for job in batch {
                let what = match write_error(path, &e) {
                    StoreError::WriteFailed { what, .. } => format!("the transaction holding it failed: {what}"),
                    other => format!("the transaction holding it failed: {other}"),
                };
                let _ = job.reply.send(Err(StoreError::WriteFailed { path: path.into(), what }));
            }
        }
    }
}

/// Game `id`'s stored head, if the game is there.
fn stored_head(conn: &Connection, id: &str) -> rusqlite::Result<Option<(u64, String)>> {
    conn.prepare_cached(SELECT_HEAD)?.query_row([id], |r| Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get(1)?))).optional()
}

fn exists(conn: &Connection, id: &str) -> Result<(), Failure> {
    match stored_head(conn, id)? {
        Some(_) => Ok(()),
        None => Err(StoreError::NoSuchGame(game_place(id)).into()),
    }
}

/// Store `r` after `head` (which it must follow), moving `head` to it.
fn insert_event(conn: &Connection, id: &str, r: &ChainedRow, head: &mut (u64, String)) -> Result<(), Failure> {
    let row = &r.row;
    if row.seq != head.0 + 1 {
        return Err(StoreError::BadRow {
            path: game_place(id),
            seq: row.seq,
            what: format!("out of sequence: the last stored move is {}", head.0),
        }
        .into());
    }
    if r.prev != head.1 {
        // Made after another move than the one stored: another writer stored this number first.
        return Err(StoreError::Conflict { path: game_place(id), seq: row.seq }.into());
    }
    let rec = &row.record;
    conn.prepare_cached(INSERT_EVENT)?.execute(params![
        id,
        row.seq as i64,
        row.at,
        r.seat,
        row.move_text,
        row.move_json,
        rec.random_json,
        rec.reveals,
        rec.public_log,
        json_strings(&rec.seat_logs),
        rec.state_hash,
        r.chain
    ])?;
    *head = (row.seq, r.chain.clone());
    Ok(())
}

/// One write, inside its savepoint.
fn apply(conn: &Connection, work: &Work) -> Result<u64, Failure> {
    match work {
        Work::Create(g) => {
            if stored_head(conn, &g.id)?.is_some() {
                return Err(StoreError::Exists(game_place(&g.id)).into());
            }
            let (h, s) = (&g.header, &g.header.setup);
            let (seq, hash) = g.rows.last().map_or((0, g.start.as_str()), |r| (r.row.seq, r.chain.as_str()));
            conn.prepare_cached(INSERT_GAME)?.execute(params![
                g.id,
                h.game,
                h.created_at,
                h.engine_version,
                h.rules_version,
                h.seed as i64,
                h.options,
                json_strings(&h.seats),
                s.public_log,
                json_strings(&s.seat_logs),
                s.random_json,
                s.reveals,
                s.state_hash,
                g.start,
                seq as i64,
                hash
            ])?;
            let mut head = (0, g.start.clone());
            for r in &g.rows {
                insert_event(conn, &g.id, r, &mut head)?;
            }
            for (name, json) in &g.docs {
                conn.prepare_cached(PUT_DOC)?.execute(params![g.id, name, json])?;
            }
            for m in &g.chat {
                conn.prepare_cached(INSERT_CHAT)?.execute(params![g.id, m.id as i64, m.at, m.from, m.to, m.text])?;
            }
            Ok(0)
        }
        Work::Write { id, from, ops } => {
            let mut head = stored_head(conn, id)?.ok_or_else(|| StoreError::NoSuchGame(game_place(id)))?;
            if head != *from {
                return Err(StoreError::Conflict { path: game_place(id), seq: from.0 + 1 }.into());
            }
            for op in ops {
                match op {
                    Op::Append(r) => insert_event(conn, id, r, &mut head)?,
                    Op::Truncate(seq) => {
                        let none = || StoreError::BadRow { path: game_place(id), seq: *seq, what: "no such move to undo to".into() };
                        if *seq > head.0 {
                            return Err(none().into());
                        }
                        let chain: Option<String> = if *seq == 0 {
                            conn.prepare_cached("SELECT header_hash FROM games WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?
                        } else {
                            conn.prepare_cached("SELECT chain FROM events WHERE game_id = ?1 AND seq = ?2")?
                                .query_row(params![id, *seq as i64], |r| r.get(0))
                                .optional()?
                        };
                        let chain = chain.ok_or_else(none)?;
                        conn.prepare_cached("DELETE FROM events WHERE game_id = ?1 AND seq > ?2")?.execute(params![id, *seq as i64])?;
                        head = (*seq, chain);
                    }
                }
            }
            conn.prepare_cached(SET_HEAD)?.execute(params![id, head.0 as i64, head.1])?;
            Ok(0)
        }
        Work::PutDoc { id, name, json } => {
            exists(conn, id)?;
            conn.prepare_cached(PUT_DOC)?.execute(params![id, name, json])?;
            Ok(0)
        }
        Work::AddChat { id, at, from, to, text } => {
            exists(conn, id)?;
            let n: i64 = conn
                .prepare_cached(
                    "INSERT INTO chat (game_id, id, at, sender, audience, text) \
                     SELECT ?1, COALESCE(MAX(id), 0) + 1, ?2, ?3, ?4, ?5 FROM chat WHERE game_id = ?1 RETURNING id",
                )?
                .query_row(params![id, at, from, to, text], |r| r.get(0))?;
            Ok(n.max(0) as u64)
        }
        Work::RestoreChat { id, messages } => {
            exists(conn, id)?;
            for m in messages {
                let taken: Option<i64> = conn
                    .prepare_cached("SELECT 1 FROM chat WHERE game_id = ?1 AND id = ?2")?
                    .query_row(params![id, m.id as i64], |r| r.get(0))
                    .optional()?;
                if taken.is_some() {
                    return Err(StoreError::WriteFailed {
                        path: game_place(id),
                        what: format!("the game already holds a chat message numbered {}", m.id),
                    }
                    .into());
                }
                conn.prepare_cached(INSERT_CHAT)?.execute(params![id, m.id as i64, m.at, m.from, m.to, m.text])?;
            }
            Ok(0)
        }
        Work::Delete { id } => {
            for sql in
                ["DELETE FROM docs WHERE game_id = ?1", "DELETE FROM chat WHERE game_id = ?1", "DELETE FROM events WHERE game_id = ?1"]
            {
                conn.prepare_cached(sql)?.execute([id])?;
            }
            match conn.prepare_cached("DELETE FROM games WHERE id = ?1")?.execute([id])? {
                0 => Err(StoreError::NoSuchGame(game_place(id)).into()),
                _ => Ok(0),
            }
        }
        // Taken by the loop, never applied.
        Work::Hold(_) => Ok(0),
    }
}
