//! Two layouts of a server's data folder, side by side in one process, on the same workload:
//!
//! - **A, a file per game** (the server's `Storage::Files`): each game a write-ahead SQLite
//!   file at `synchronous = NORMAL`, made durable through the folder's redo log (one write and
//!   one sync for every move waiting, [`RedoLog`]), created with [`SqliteStore::create_on_log`].
//! - **B, one database per folder**: a prototype kept in this example (not the store's API):
//!   one SQLite database in WAL mode at `synchronous = FULL` with the PostgreSQL store's tables
//!   (games, events, chat, docs keyed by the game's id), and one writer thread that takes every
//!   queued write, commits them in one transaction (group commit), and acknowledges each after
//!   that commit, whose sync makes it durable.
//!
//! G games (Minesweeper, legal moves chosen by a fixed seed: the same rows in both layouts),
//! spread over a fixed pool of T threads (each plays one move in each of its games in turn,
//! every move through [`Session::play`]: judged, appended, durable before it returns). Prints
//! the creations' time, then moves per second and the p50/p99/max of a move, and each layout's
//! batches (A: the redo log's syncs; B: the writer's commits). Runs alternate A, B, A, B…, each
//! in a new folder under `TMPDIR`, all removed at the end.
//!
//! `cargo run --release -p arbiter-store --example layouts -- [--games 200] [--moves 40]
//! [--threads 16] [--runs 2] [--only a|b] [--checkpoint-apart]` (B's log folded into its
//! database by a thread of its own, not inside the commit that fills it)
//!
//! Syncs per move: `strace -f -c -e trace=fsync,fdatasync` of `--only a` and of `--only b`,
//! once with `--moves 40` and once with `--moves 0` (the creations alone), the difference over
//! the moves.
//!
//! `--kill-test a|b [--cycles 10]`: durability after SIGKILL. A child process (this example,
//! `--child`) plays moves in 8 games at once on a folder and prints each move once it is
//! acknowledged; it is killed (SIGKILL) after a random 0.2–1.5 s, the folder opened again
//! (layout A: its redo log applies what the crash left), and every acknowledged move must be
//! stored, each game's rows numbered 1 to its head. The same folder is used by every cycle.

use arbiter_games::MINESWEEPER;
use arbiter_store::{chain, EventRow, EventStore, GameHeader, RedoLog, Session, SqliteStore, StoreError};
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// The host's document written with each new game (a server's seats: a few hundred bytes).
const SEATS_DOC: &str = "seats";
const SEATS_JSON: &str =
    r#"{"seats":[{"token":"0123456789abcdef0123456789abcdef","name":"a player","joined":"2026-12-02T15:00:00Z"}],"webhook":null}"#;

fn options() -> serde_json::Value {
    serde_json::json!({"width": 20, "height": 20, "mines": 40})
}

// ---------------------------------------------------------------------------------------------
// Layout B: one database per folder, one writer thread, group commit.

/// The PostgreSQL store's tables in SQLite's types (games, events, chat, docs keyed by the
/// game's id); a game's events together on the disk (`WITHOUT ROWID`, ordered by the key).
const FOLDER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS arbiter_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT,
    created_at TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    seed INTEGER NOT NULL,
    options_json TEXT NOT NULL,
    seats_json TEXT NOT NULL,
    setup_public_log TEXT NOT NULL,
    setup_seat_logs TEXT NOT NULL,
    setup_random_json TEXT NOT NULL,
    setup_reveals INTEGER NOT NULL,
    setup_state_hash TEXT NOT NULL,
    header_hash TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL CHECK (seq > 0),
    at TEXT NOT NULL,
    seat TEXT NOT NULL,
    move_text TEXT NOT NULL,
    move_json TEXT NOT NULL,
    random_json TEXT NOT NULL,
    reveals INTEGER NOT NULL,
    public_log TEXT NOT NULL,
    seat_logs TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    chain TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL REFERENCES games (id),
    id INTEGER NOT NULL,
    at TEXT NOT NULL,
    sender TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS docs (
    game_id TEXT NOT NULL REFERENCES games (id),
    name TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
) WITHOUT ROWID;
INSERT OR IGNORE INTO arbiter_schema VALUES (1, 1);
";

/// The most writes one transaction takes: a long queue is committed in several.
const MAX_BATCH: usize = 4096;

/// One write for the writer thread.
enum Work {
    Create {
        id: String,
        header: Box<GameHeader>,
        docs: Vec<(String, String)>,
    },
    /// Rows (with their chain values) after move `from` of game `id`, whose head must still be
    /// `from`.
    Append {
        id: String,
        from: u64,
        rows: Vec<(EventRow, String)>,
        seats: Vec<String>,
    },
}

struct Job {
    work: Work,
    done: mpsc::Sender<Result<(), String>>,
}

/// A folder's database: the queue to its writer thread.
struct FolderDb {
    path: PathBuf,
    jobs: mpsc::Sender<Job>,
    /// Transactions the writer committed (each one sync of the database's log).
    commits: Arc<AtomicU64>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// The thread folding the log into the database, with `--checkpoint-apart`.
    checkpoints: Option<(Arc<std::sync::atomic::AtomicBool>, std::thread::JoinHandle<()>)>,
}

/// `--checkpoint-apart`: the log folded into the database by a thread of its own every 0.1 s
/// instead of by the commit that fills 1,000 pages (SQLite's default), which every write
/// queued meanwhile waits for.
static CHECKPOINT_APART: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl FolderDb {
    fn open(path: &Path) -> Result<FolderDb, String> {
        let conn = Connection::open(path).map_err(|e| e.to_string())?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| e.to_string())?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("{}: no write-ahead log ({mode})", path.display()));
        }
        // FULL: every commit syncs the log before it returns (NORMAL would not).
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 4194304;").map_err(|e| e.to_string())?;
        conn.execute_batch(FOLDER_SCHEMA).map_err(|e| e.to_string())?;
        let checkpoints = if CHECKPOINT_APART.load(Ordering::Relaxed) {
            // The writer's commits fold nothing into the database; a thread of its own does,
            // without holding the writer (PASSIVE: it folds what no transaction is using).
            conn.execute_batch("PRAGMA wal_autocheckpoint = 0;").map_err(|e| e.to_string())?;
            let other = Connection::open(path).map_err(|e| e.to_string())?;
            other.execute_batch("PRAGMA synchronous = FULL;").map_err(|e| e.to_string())?;
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let stopping = stop.clone();
            let thread = std::thread::spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    let _ = other.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0));
                }
            });
            Some((stop, thread))
        } else {
            None
        };
        let (jobs, queue) = mpsc::channel();
        let commits = Arc::new(AtomicU64::new(0));
        let counted = commits.clone();
        let writer = std::thread::Builder::new()
            .name("folder-writer".into())
            .spawn(move || write_all(conn, queue, &counted))
            .map_err(|e| e.to_string())?;
        Ok(FolderDb { path: path.into(), jobs, commits, writer: Some(writer), checkpoints })
    }

    /// Queue `work` and wait until its transaction is committed (durable) or refused.
    fn submit(&self, work: Work) -> Result<(), StoreError> {
        let (done, answer) = mpsc::channel();
        let failed = |what: String| StoreError::WriteFailed { path: self.path.clone(), what };
        self.jobs.send(Job { work, done }).map_err(|_| failed("the writer has stopped".into()))?;
        answer.recv().map_err(|_| failed("the writer has stopped".into()))?.map_err(failed)
    }

    fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }
}

impl Drop for FolderDb {
    fn drop(&mut self) {
        // The queue closed: the writer ends once it has committed what was queued.
        let (closed, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.jobs, closed));
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        if let Some((stop, thread)) = self.checkpoints.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
    }
}

/// The writer thread: every job queued at once in one transaction (each in a savepoint of its
/// own, so that one refused write fails only itself), then each acknowledged with its outcome
/// once the commit is on the disk.
fn write_all(conn: Connection, queue: mpsc::Receiver<Job>, commits: &AtomicU64) {
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let run = |sql: &str| conn.prepare_cached(sql).and_then(|mut q| q.execute([])).map(|_| ());
        if let Err(e) = run("BEGIN IMMEDIATE") {
            for job in batch {
                let _ = job.done.send(Err(e.to_string()));
            }
            continue;
        }
        let outcomes: Vec<Result<(), String>> = batch
            .iter()
            .map(|job| {
                let done = run("SAVEPOINT job").and_then(|()| apply(&conn, &job.work)).and_then(|()| run("RELEASE job"));
                done.map_err(|e| {
                    let _ = run("ROLLBACK TO job").and_then(|()| run("RELEASE job"));
                    e.to_string()
                })
            })
            .collect();
        let committed = run("COMMIT");
        commits.fetch_add(1, Ordering::Relaxed);
        match committed {
            Ok(()) => {
                for (job, outcome) in batch.into_iter().zip(outcomes) {
                    let _ = job.done.send(outcome);
                }
            }
            Err(e) => {
                if !conn.is_autocommit() {
                    let _ = conn.execute_batch("ROLLBACK");
                }
                for job in batch {
                    let _ = job.done.send(Err(format!("not committed: {e}")));
                }
            }
        }
    }
}

#[derive(Debug)]
struct Refused(String);
impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Refused {}

fn refused(what: String) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(Refused(what)))
}

fn apply(conn: &Connection, work: &Work) -> rusqlite::Result<()> {
    match work {
        Work::Create { id, header, docs } => {
            let s = &header.setup;
            let start = chain::start(header);
            conn.prepare_cached(
                "INSERT INTO games (id, game, created_at, engine_version, rules_version, seed, options_json, seats_json, \
                 setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, head_hash) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 0, ?14)",
            )?
            .execute(params![
                id,
                header.game,
                header.created_at,
                header.engine_version,
                header.rules_version,
                header.seed as i64,
                header.options,
                serde_json::to_string(&header.seats).unwrap_or_default(),
                s.public_log,
                serde_json::to_string(&s.seat_logs).unwrap_or_default(),
                s.random_json,
                s.reveals,
                s.state_hash,
                start
            ])?;
            for (name, json) in docs {
                conn.prepare_cached("INSERT INTO docs (game_id, name, json) VALUES (?1, ?2, ?3)")?.execute(params![id, name, json])?;
            }
            Ok(())
        }
        Work::Append { id, from, rows, seats } => {
            let Some((last, last_chain)) = rows.last() else { return Ok(()) };
            let moved = conn
                .prepare_cached("UPDATE games SET head_seq = ?1, head_hash = ?2 WHERE id = ?3 AND head_seq = ?4")?
                .execute(params![last.seq as i64, last_chain, id, *from as i64])?;
            if moved != 1 {
                return Err(refused(format!("game {id}: its head is no longer move {from}")));
            }
            for (row, chain) in rows {
                let r = &row.record;
                let seat = seats.get(row.seat.idx()).map(String::as_str).unwrap_or_default();
                conn.prepare_cached(
                    "INSERT INTO events (game_id, seq, at, seat, move_text, move_json, random_json, reveals, public_log, seat_logs, \
                     state_hash, chain) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )?
                .execute(params![
                    id,
                    row.seq as i64,
                    row.at,
                    seat,
                    row.move_text,
                    row.move_json,
                    r.random_json,
                    r.reveals,
                    r.public_log,
                    serde_json::to_string(&r.seat_logs).unwrap_or_default(),
                    r.state_hash,
                    chain
                ])?;
            }
            Ok(())
        }
    }
}

/// A game of the folder's database, as a [`Session`] writes it: its head kept here (this
/// process writes the game alone), its appends sent to the writer at `commit`.
struct FolderGame {
    db: Arc<FolderDb>,
    id: String,
    header: GameHeader,
    head: (u64, String),
    pending: Vec<(EventRow, String)>,
    locked: bool,
}

impl FolderGame {
    fn create(db: Arc<FolderDb>, id: &str, header: &GameHeader) -> Result<FolderGame, StoreError> {
        let docs = vec![(SEATS_DOC.to_string(), SEATS_JSON.to_string())];
        db.submit(Work::Create { id: id.into(), header: Box::new(header.clone()), docs })?;
        Ok(FolderGame { db, id: id.into(), header: header.clone(), head: chain::head(header, &[]), pending: Vec::new(), locked: false })
    }

    fn fault(&self, what: &str) -> StoreError {
        StoreError::WriteFailed { path: self.db.path.join(&self.id), what: what.into() }
    }
}

impl EventStore for FolderGame {
    fn header(&self) -> Result<GameHeader, StoreError> {
        Ok(self.header.clone())
    }
    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        Err(self.fault("the prototype reads no rows"))
    }
    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        Err(self.fault("the prototype reads no rows"))
    }
    fn head(&self) -> Result<(u64, String), StoreError> {
        Ok(self.head.clone())
    }
    fn lock(&mut self) -> Result<(), StoreError> {
        self.pending.clear();
        self.locked = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        self.locked = false;
        let rows = std::mem::take(&mut self.pending);
        let Some((last, chain)) = rows.last() else { return Ok(()) };
        let head = (last.seq, chain.clone());
        let work = Work::Append { id: self.id.clone(), from: self.head.0, rows, seats: self.header.seats.clone() };
        self.db.submit(work)?;
        self.head = head;
        Ok(())
    }
    fn rollback(&mut self) {
        self.pending.clear();
        self.locked = false;
    }
    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        if !self.locked {
            return Err(self.fault("a write outside the write lock"));
        }
        let (seq, prev) = self.pending.last().map(|(r, c)| (r.seq, c.clone())).unwrap_or_else(|| self.head.clone());
        if row.seq != seq + 1 {
            return Err(self.fault("out of sequence"));
        }
        let chain = chain::extend(&prev, row, &self.header.seats);
        self.pending.push((row.clone(), chain));
        Ok(())
    }
    fn truncate_after(&mut self, _seq: u64) -> Result<(), StoreError> {
        Err(self.fault("the prototype has no undo"))
    }
}

// ---------------------------------------------------------------------------------------------
// The two layouts behind one driver.

trait Layout: Sync {
    type Store: EventStore;
    fn make(&self, id: &str, header: &GameHeader) -> Result<Self::Store, StoreError>;
    /// Its batches so far (A: the redo log's syncs; B: the writer's commits).
    fn batches(&self) -> u64;
}

struct Files {
    dir: PathBuf,
    log: Arc<RedoLog>,
}

impl Layout for Files {
    type Store = SqliteStore;
    fn make(&self, id: &str, header: &GameHeader) -> Result<SqliteStore, StoreError> {
        SqliteStore::create_on_log(&self.dir.join(format!("{id}.arbiter")), header, &[(SEATS_DOC, SEATS_JSON)], self.log.clone())
    }
    fn batches(&self) -> u64 {
        self.log.sync_times().batches
    }
}

struct OneDb {
    db: Arc<FolderDb>,
}

impl Layout for OneDb {
    type Store = FolderGame;
    fn make(&self, id: &str, header: &GameHeader) -> Result<FolderGame, StoreError> {
        FolderGame::create(self.db.clone(), id, header)
    }
    fn batches(&self) -> u64 {
        self.db.commits()
    }
}

/// A small deterministic choice (xorshift): the same moves in every run and layout.
fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
}

/// A move of `s`'s game by `state` (an open one in eight, so that the game lasts), if it is
/// still under way.
fn next_move<S: EventStore>(s: &Session<S>, state: &mut u64, i: usize) -> Option<String> {
    s.game().decision()?;
    let all = s.game().first_moves();
    let quiet: Vec<String> = all.iter().filter(|m| !m.starts_with("open")).cloned().collect();
    let moves = if i % 8 == 3 || quiet.is_empty() { all } else { quiet };
    Some(moves[pick(state, moves.len())].clone())
}

struct Figures {
    created: Duration,
    moves: usize,
    took: Duration,
    latencies: Vec<Duration>,
    batches: u64,
}

/// Games `0..games` over `threads` threads (game `g` on thread `g % threads`): every game made
/// first, then `moves` rounds, each a move of every game still under way.
fn drive<L: Layout>(layout: &L, games: usize, moves: usize, threads: usize) -> Figures {
    let barrier = Barrier::new(threads + 1);
    let (created, took, per_thread, batches_before) = std::thread::scope(|scope| {
        let barrier = &barrier;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut mine: Vec<(Session<L::Store>, u64)> = (t..games)
                        .step_by(threads)
                        .map(|g| {
                            let seed = g as u64 + 1;
                            let id = format!("{seed:016x}");
                            let s = Session::create_with(&MINESWEEPER, &options(), seed, |h| layout.make(&id, h))
                                .unwrap_or_else(|e| panic!("game {id}: {e}"));
                            (s, seed | 1)
                        })
                        .collect();
                    barrier.wait();
                    barrier.wait();
                    let mut latencies = Vec::with_capacity(mine.len() * moves);
                    for i in 0..moves {
                        for (s, state) in &mut mine {
                            let Some(m) = next_move(s, state, i) else { continue };
                            let began = Instant::now();
                            s.play(&m, None).unwrap_or_else(|e| panic!("{m}: {e}"));
                            latencies.push(began.elapsed());
                        }
                    }
                    latencies
                })
            })
            .collect();
        let start = Instant::now();
        barrier.wait();
        let created = start.elapsed();
        let batches_before = layout.batches();
        let start = Instant::now();
        barrier.wait();
        let per_thread: Vec<Vec<Duration>> = handles.into_iter().map(|h| h.join().expect("a writer thread")).collect();
        (created, start.elapsed(), per_thread, batches_before)
    });
    let mut latencies: Vec<Duration> = per_thread.into_iter().flatten().collect();
    latencies.sort();
    Figures { created, moves: latencies.len(), took, latencies, batches: layout.batches() - batches_before }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print(name: &str, f: &Figures) {
    let at = |q: f64| f.latencies.get(((f.latencies.len() as f64 * q) as usize).min(f.latencies.len().saturating_sub(1))).copied();
    let q = |q: f64| at(q).map(ms).unwrap_or(0.0);
    println!(
        "{name}: created in {:.0} ms; {} moves in {:.2} s: {:.0} moves/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} batches ({:.1} moves a batch)",
        ms(f.created),
        f.moves,
        f.took.as_secs_f64(),
        f.moves as f64 / f.took.as_secs_f64().max(1e-9),
        q(0.5),
        q(0.99),
        f.latencies.last().copied().map(ms).unwrap_or(0.0),
        f.batches,
        f.moves as f64 / f.batches.max(1) as f64
    );
}

fn run_files(parent: &Path, games: usize, moves: usize, threads: usize) -> Figures {
    let dir = parent.join(format!("a-{}", rand_u64() % 1_000_000));
    std::fs::create_dir(&dir).expect("a data folder");
    let (log, _report) = RedoLog::open(&dir).expect("the folder's redo log");
    let layout = Files { dir: dir.clone(), log };
    drive(&layout, games, moves, threads)
}

fn run_one_db(parent: &Path, games: usize, moves: usize, threads: usize) -> Figures {
    let dir = parent.join(format!("b-{}", rand_u64() % 1_000_000));
    std::fs::create_dir(&dir).expect("a data folder");
    let db = Arc::new(FolderDb::open(&dir.join("games.db")).expect("the folder's database"));
    let layout = OneDb { db };
    drive(&layout, games, moves, threads)
}

fn rand_u64() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let mut s = t ^ (std::process::id() as u64) << 32 | 1;
    pick(&mut s, usize::MAX) as u64
}

// ---------------------------------------------------------------------------------------------
// SIGKILL, then every acknowledged move stored.

/// The child: 8 threads, each playing game after game on folder `dir` (named by `cycle`),
/// printing `GAME SEQ` for each move once acknowledged, until killed.
fn child(which: &str, dir: &Path, cycle: u64) {
    fn play<L: Layout>(layout: &L, cycle: u64) {
        let out = std::sync::Mutex::new(std::io::stdout());
        std::thread::scope(|scope| {
            for t in 0..8u64 {
                let out = &out;
                scope.spawn(move || {
                    for n in 0.. {
                        let seed = cycle * 1_000_000 + t * 1_000 + n + 1;
                        let id = format!("c{cycle}t{t}g{n}");
                        let mut s = Session::create_with(&MINESWEEPER, &options(), seed, |h| layout.make(&id, h)).expect("a game");
                        let mut state = seed | 1;
                        let mut i = 0;
                        while let Some(m) = next_move(&s, &mut state, i) {
                            let seq = s.play(&m, None).expect("a move").0.seq;
                            let mut o = out.lock().unwrap();
                            writeln!(o, "{id} {seq}").and_then(|()| o.flush()).expect("stdout");
                            i += 1;
                        }
                    }
                });
            }
        });
    }
    match which {
        "a" => {
            let (log, _) = RedoLog::open(dir).expect("the folder's redo log");
            play(&Files { dir: dir.into(), log }, cycle)
        }
        _ => play(&OneDb { db: Arc::new(FolderDb::open(&dir.join("games.db")).expect("the folder's database")) }, cycle),
    }
}

/// Every game's stored moves (their numbers, in order) and head, as the folder holds them
/// after a start (layout A: the redo log opened first, applying what a crash left).
fn stored(which: &str, dir: &Path) -> HashMap<String, (u64, Vec<u64>)> {
    let mut games = HashMap::new();
    let seqs = |c: &Connection, sql: &str, id: Option<&str>| -> Vec<u64> {
        let mut q = c.prepare(sql).unwrap();
        let rows = match id {
            Some(id) => q.query_map([id], |r| r.get::<_, i64>(0)).unwrap().collect::<Result<Vec<_>, _>>(),
            None => q.query_map([], |r| r.get::<_, i64>(0)).unwrap().collect::<Result<Vec<_>, _>>(),
        };
        rows.unwrap().into_iter().map(|s| s as u64).collect()
    };
    if which == "a" {
        let (log, report) = RedoLog::open(dir).expect("the folder's redo log after the kill");
        for line in &report {
            println!("  {line}");
        }
        drop(log);
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let Some(id) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".arbiter")) else { continue };
            let c = Connection::open(&path).unwrap();
            let head: i64 = c.query_row("SELECT head_seq FROM game", [], |r| r.get(0)).unwrap();
            games.insert(id.to_string(), (head as u64, seqs(&c, "SELECT seq FROM events ORDER BY seq", None)));
        }
    } else {
        let c = Connection::open(dir.join("games.db")).unwrap();
        let mut q = c.prepare("SELECT id, head_seq FROM games").unwrap();
        let heads: Vec<(String, i64)> = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
        for (id, head) in heads {
            let s = seqs(&c, "SELECT seq FROM events WHERE game_id = ?1 ORDER BY seq", Some(&id));
            games.insert(id, (head as u64, s));
        }
    }
    games
}

fn kill_test(which: &str, cycles: u64) {
    let parent = tempfile::tempdir().expect("a temporary folder");
    let dir = parent.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut acked: HashMap<String, u64> = HashMap::new();
    let mut lost_in_all = 0;
    for cycle in 1..=cycles {
        let mut child = std::process::Command::new(&exe)
            .args(["--child", which, "--dir"])
            .arg(&dir)
            .args(["--cycle", &cycle.to_string()])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the child");
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut seen = Vec::new();
            // Whole lines only: a line cut by the kill is a move acknowledged and not counted.
            let mut r = std::io::BufReader::new(out);
            let mut line = String::new();
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                if let Some((id, seq)) = line.strip_suffix('\n').and_then(|l| l.split_once(' ')) {
                    seen.push((id.to_string(), seq.parse::<u64>().unwrap()));
                }
                line.clear();
            }
            seen
        });
        let wait = Duration::from_millis(200 + rand_u64() % 1300);
        std::thread::sleep(wait);
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        let seen = reader.join().unwrap();
        let new = seen.len();
        for (id, seq) in seen {
            let a = acked.entry(id).or_default();
            *a = (*a).max(seq);
        }
        let games = stored(which, &dir);
        let mut lost = Vec::new();
        let mut unacked = 0;
        for (id, &seq) in &acked {
            match games.get(id) {
                Some((head, seqs)) => {
                    let numbered = seqs.iter().copied().eq(1..=*head);
                    if *head < seq || !numbered {
                        lost.push(format!("{id}: acknowledged {seq}, head {head}, rows numbered 1..={head}: {numbered}"));
                    }
                    unacked += head - seq;
                }
                None => lost.push(format!("{id}: acknowledged {seq}, game missing")),
            }
        }
        lost_in_all += lost.len();
        println!(
            "cycle {cycle}: killed after {} ms; {new} moves acknowledged ({} in all, {} games); {} stored beyond them; {}",
            wait.as_millis(),
            acked.values().sum::<u64>(),
            acked.len(),
            unacked,
            if lost.is_empty() { "every acknowledged move stored".into() } else { format!("LOST: {}", lost.join("; ")) }
        );
    }
    println!("{}", if lost_in_all == 0 { "kill test passed" } else { "kill test FAILED" });
    if lost_in_all > 0 {
        std::process::exit(1);
    }
}

fn main() {
    if let Some(which) = arg("--child") {
        let dir = PathBuf::from(arg("--dir").expect("--dir"));
        let cycle: u64 = arg("--cycle").and_then(|v| v.parse().ok()).unwrap_or(1);
        return child(&which, &dir, cycle);
    }
    if let Some(which) = arg("--kill-test") {
        let cycles: u64 = arg("--cycles").and_then(|v| v.parse().ok()).unwrap_or(10);
        return kill_test(&which, cycles);
    }
    let games: usize = arg("--games").and_then(|v| v.parse().ok()).unwrap_or(200).clamp(1, 100_000);
    let moves: usize = arg("--moves").and_then(|v| v.parse().ok()).unwrap_or(40);
    let threads: usize = arg("--threads").and_then(|v| v.parse().ok()).unwrap_or(16).clamp(1, 1024);
    let runs: usize = arg("--runs").and_then(|v| v.parse().ok()).unwrap_or(2).clamp(1, 100);
    let only = arg("--only");
    CHECKPOINT_APART.store(std::env::args().any(|a| a == "--checkpoint-apart"), Ordering::Relaxed);
    let parent = tempfile::tempdir().expect("a temporary folder");
    println!("{games} games, {moves} moves each at most, {threads} threads, in {}", parent.path().display());
    for run in 1..=runs {
        if only.as_deref() != Some("b") {
            print(&format!("run {run} A (a file per game, redo log)"), &run_files(parent.path(), games, moves, threads));
        }
        if only.as_deref() != Some("a") {
            print(&format!("run {run} B (one database, one writer)"), &run_one_db(parent.path(), games, moves, threads));
        }
    }
}
