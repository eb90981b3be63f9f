//! A data folder's redo log: group commit for many games' files
//! An earlier server wrote it; a folder's import applies it (`FolderDatabase::import_folder`).
//!
//! A game file synced at every move is one fsync a move, and fsyncs of different files cannot
//! be shared: at 3,000 moves a second on two cores, the kernel's work in them was a sixth of
//! the server's CPU (docs/benchmarks-history.md, "a folder's redo log"). With the log, a server's game file
//! commits without a sync (its write-ahead log at `synchronous = NORMAL`: always consistent, its
//! last commits possibly lost by a power cut), and what each write changed is first appended to
//! this log, one file for the whole folder, whose writes are made durable together: the first
//! writer to find no write under way writes every record waiting (its own and those queued
//! meanwhile) and syncs once, the others wait for it. A move is acknowledged only once its
//! record is on the disk, as before; then the game file's commit makes it visible.
//!
//! Every second the log moves to a new segment: the games written in the old one are synced
//! (their own logs, `GAME.arbiter-wal`: one fsync a game a second instead of one a move) and
//! the old segment is removed. When a server starts, whatever segments a crash left are
//! applied to their games in order (a record already in its file is skipped; one that differs
//! from the file's move of that number replaces it and what follows, as the log is the order
//! things were acknowledged in), the games synced, the segments removed.
//!
//! A game's creation is a record too ([`SqliteStore::create_on_log`]): its file is made without
//! a sync, and synced (its first page, its name) when the segment holding the creation is
//! retired; a start after a crash that took the file makes it again from the record. A game
//! the host discards is removed through the log ([`RedoLog::remove_game`]), so that a start
//! does not make it again.
//!
//! Segment `N` is `redo/N.log` in the folder: a header line, then records `[length: u32][CRC-32
//! of the payload: u32][payload: JSON {"game": FILE NAME, "ops": [...]}]`; a crash mid-write
//! leaves a torn last record, told by its length or checksum, which was never acknowledged.

use crate::{EventRow, EventStore, GameHeader, Journal, Record, SqliteStore, StoreError};
use arbiter_kernel::Seat;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

/// The first bytes of a segment (its format's version): 2 since a segment may hold
/// creations and removals, which an Arbiter that reads only version 1 must not take for a
/// torn write (it refuses the segment instead).
const HEADER: &[u8] = b"ARBITER-REDO 2\n";
/// Version 1's (moves and undos only), still read.
const HEADER_1: &[u8] = b"ARBITER-REDO 1\n";
/// How often the log moves to a new segment, syncing the games written in the old one: what
/// a game's file may hold unsynced, and what a start after a crash applies.
const SEGMENT_EVERY: Duration = Duration::from_secs(1);
/// A record larger than this is no record (a damaged length).
const MAX_RECORD: u32 = 64 << 20;
/// A batch whose write and sync took this long or longer is kept by [`SyncTimes::slow`]:
/// every move of the batch (and every move waiting behind it) waited that long for the disk.
pub const SLOW_SYNC: Duration = Duration::from_millis(20);
/// How many of the slowest recent batches [`SyncTimes::slow`] keeps.
const SLOW_KEPT: usize = 64;

/// How long the log's batches took to reach the disk (each one write and one sync, whatever
/// the number of moves in it): what an acknowledged move waits on the disk for. A server's
/// answers are as slow as its disk's slowest syncs: with many games each waiting for its
/// move's batch, one slow sync delays every one of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncTimes {
    /// Batches written and synced since the log was opened (a write or sync that failed
    /// included: the log's last).
    pub batches: u64,
    /// Their time in all.
    pub total: Duration,
    /// The slowest one.
    pub slowest: Duration,
    /// The batches that took [`SLOW_SYNC`] or longer (the last 64): when each began, and how
    /// long it took.
    pub slow: VecDeque<(Instant, Duration)>,
    /// How many took [`SLOW_SYNC`] or longer, kept or not.
    pub slow_count: u64,
}

impl SyncTimes {
    fn add(&mut self, began: Instant, took: Duration) {
        self.batches += 1;
        self.total += took;
        self.slowest = self.slowest.max(took);
        if took >= SLOW_SYNC {
            self.slow_count += 1;
            if self.slow.len() == SLOW_KEPT {
                self.slow.pop_front();
            }
            self.slow.push_back((began, took));
        }
    }
}

/// One change of a game's file, in the order made under the game's write lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// The game made: its file's record (no move yet) and the host's documents written with it.
    Create(Box<Creation>),
    Append(EventRow),
    TruncateAfter(u64),
    /// The game removed (a creation the host discarded).
    Remove,
}

/// What a game's creation wrote ([`Op::Create`]): enough to make its file again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Creation {
    pub header: GameHeader,
    /// The host's documents (name, JSON text).
    pub docs: Vec<(String, String)>,
}

/// A row as the log keeps it.
#[derive(Serialize, Deserialize)]
struct RowRecord<'a> {
    seq: u64,
    at: Cow<'a, str>,
    seat: u8,
    move_text: Cow<'a, str>,
    move_json: Cow<'a, str>,
    public_log: Cow<'a, str>,
    seat_logs: Vec<Cow<'a, str>>,
    random_json: Cow<'a, str>,
    reveals: bool,
    state_hash: Cow<'a, str>,
}

/// A creation as the log keeps it.
#[derive(Serialize, Deserialize)]
struct CreationRecord<'a> {
    game: Option<Cow<'a, str>>,
    created_at: Cow<'a, str>,
    engine_version: Cow<'a, str>,
    rules_version: Cow<'a, str>,
    seed: u64,
    options: Cow<'a, str>,
    seats: Vec<Cow<'a, str>>,
    setup_public_log: Cow<'a, str>,
    setup_seat_logs: Vec<Cow<'a, str>>,
    setup_random_json: Cow<'a, str>,
    setup_reveals: bool,
    setup_state_hash: Cow<'a, str>,
    docs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OpRecord<'a> {
    Create(Box<CreationRecord<'a>>),
    Append(RowRecord<'a>),
    TruncateAfter(u64),
    Remove,
}

#[derive(Serialize, Deserialize)]
struct GameRecord<'a> {
    game: Cow<'a, str>,
    ops: Vec<OpRecord<'a>>,
}

/// Borrowed, as a record keeps it.
fn strings(v: &[String]) -> Vec<Cow<'_, str>> {
    v.iter().map(|l| Cow::Borrowed(l.as_str())).collect()
}

/// Owned again.
fn owned(v: Vec<Cow<'_, str>>) -> Vec<String> {
    v.into_iter().map(Cow::into_owned).collect()
}

impl Op {
    /// Whether this makes its game.
    fn creates(&self) -> bool {
        match self {
            Op::Create(_) => true,
            Op::Append(_) | Op::TruncateAfter(_) | Op::Remove => false,
        }
    }

    fn record(&self) -> OpRecord<'_> {
        match self {
            Op::Create(c) => {
                let (h, s) = (&c.header, &c.header.setup);
                OpRecord::Create(Box::new(CreationRecord {
                    game: h.game.as_deref().map(Cow::Borrowed),
                    created_at: Cow::Borrowed(&h.created_at),
                    engine_version: Cow::Borrowed(&h.engine_version),
                    rules_version: Cow::Borrowed(&h.rules_version),
                    seed: h.seed,
                    options: Cow::Borrowed(&h.options),
                    seats: strings(&h.seats),
                    setup_public_log: Cow::Borrowed(&s.public_log),
                    setup_seat_logs: strings(&s.seat_logs),
                    setup_random_json: Cow::Borrowed(&s.random_json),
                    setup_reveals: s.reveals,
                    setup_state_hash: Cow::Borrowed(&s.state_hash),
                    docs: c.docs.iter().map(|(n, j)| (Cow::Borrowed(n.as_str()), Cow::Borrowed(j.as_str()))).collect(),
                }))
            }
            Op::Append(row) => {
                let r = &row.record;
                OpRecord::Append(RowRecord {
                    seq: row.seq,
                    at: Cow::Borrowed(&row.at),
                    seat: row.seat.0,
                    move_text: Cow::Borrowed(&row.move_text),
                    move_json: Cow::Borrowed(&row.move_json),
                    public_log: Cow::Borrowed(&r.public_log),
                    seat_logs: strings(&r.seat_logs),
                    random_json: Cow::Borrowed(&r.random_json),
                    reveals: r.reveals,
                    state_hash: Cow::Borrowed(&r.state_hash),
                })
            }
            Op::TruncateAfter(seq) => OpRecord::TruncateAfter(*seq),
            Op::Remove => OpRecord::Remove,
        }
    }

    fn from_record(r: OpRecord<'_>) -> Op {
        match r {
            OpRecord::Create(c) => {
                let c = *c;
                Op::Create(Box::new(Creation {
                    header: GameHeader {
                        game: c.game.map(Cow::into_owned),
                        created_at: c.created_at.into_owned(),
                        engine_version: c.engine_version.into_owned(),
                        rules_version: c.rules_version.into_owned(),
                        seed: c.seed,
                        options: c.options.into_owned(),
                        seats: owned(c.seats),
                        setup: Record {
                            public_log: c.setup_public_log.into_owned(),
                            seat_logs: owned(c.setup_seat_logs),
                            random_json: c.setup_random_json.into_owned(),
                            reveals: c.setup_reveals,
                            state_hash: c.setup_state_hash.into_owned(),
                        },
                    },
                    docs: c.docs.into_iter().map(|(n, j)| (n.into_owned(), j.into_owned())).collect(),
                }))
            }
            OpRecord::Append(r) => Op::Append(EventRow {
                seq: r.seq,
                at: r.at.into_owned(),
                seat: Seat(r.seat),
                move_text: r.move_text.into_owned(),
                move_json: r.move_json.into_owned(),
                record: Record {
                    public_log: r.public_log.into_owned(),
                    seat_logs: owned(r.seat_logs),
                    random_json: r.random_json.into_owned(),
                    reveals: r.reveals,
                    state_hash: r.state_hash.into_owned(),
                },
            }),
            OpRecord::TruncateAfter(seq) => Op::TruncateAfter(seq),
            OpRecord::Remove => Op::Remove,
        }
    }
}

/// A segment being written: its number, its file, and the game files its records change
/// (synced before it is removed).
struct Segment {
    number: u64,
    file: Arc<File>,
    games: HashSet<PathBuf>,
}

struct State {
    /// Records waiting for the next write, and the games they change.
    waiting: Vec<u8>,
    waiting_games: HashSet<PathBuf>,
    /// The games created in a segment not yet retired, with its number: their files are
    /// unsynced (their first page, their names in the folder), which a retirement syncs, and a
    /// start after a crash makes again from the log.
    fresh: HashMap<PathBuf, u64>,
    /// The number of the next batch (the one `waiting` goes out in); every batch below
    /// `durable` is on the disk.
    next: u64,
    durable: u64,
    /// A batch is being written and synced (by the writer that took it).
    writing: bool,
    segment: Segment,
    /// Segments no longer written whose games are not all synced yet, oldest first.
    old: Vec<Segment>,
    /// Why the log takes no more records (a write or a sync failed, or a game file could not
    /// be written after its record was): the process's next start on the folder applies it.
    failed: Option<String>,
    /// The first batch whose write failed (it and every later one are not durable).
    lost_from: Option<u64>,
    /// How long the batches took to reach the disk.
    syncs: SyncTimes,
}

/// A data folder's redo log (see the module's documentation). Shared by every game of the
/// folder the server writes; one process's (its lock file refuses a second).
pub struct RedoLog {
    /// The data folder, as the file system names it (`canonicalize`d).
    folder: PathBuf,
    dir: PathBuf,
    state: Mutex<State>,
    changed: Condvar,
    /// Held (shared) by every write from before its record is taken until its file's commit
    /// is done, and (alone) by the move to a new segment: a segment is retired only once every
    /// commit whose record it holds is in its game's log, which the retirement then syncs.
    commits: RwLock<()>,
    /// Held by whoever moves the log to a new segment and retires the old ones: one at a time,
    /// so that segments are retired in order.
    rotating: Mutex<()>,
    /// Held while the log is open: a second process on the folder is refused.
    _lock: File,
}

impl std::fmt::Debug for RedoLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedoLog").field("dir", &self.dir).finish()
    }
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> StoreError {
    StoreError::WriteFailed { path: path.into(), what: format!("{what}: {e}") }
}

/// The logs open in this process, by folder: a second server of the process on a folder (a
/// restart in place) shares the first's log; another process is refused by the lock file.
static OPEN: Mutex<Vec<(PathBuf, Weak<RedoLog>)>> = Mutex::new(Vec::new());

fn segment_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("{n}.log"))
}

/// The redo log of the folder holding `game` (`FOLDER/redo`, a server's), if it has records of
/// that game: changes a server acknowledged that the file may not hold yet (the server is
/// running, or stopped by a crash, and its next start brings the file up to date from them).
/// Another program writing the file meanwhile would have its change undone by that start.
pub fn holding(game: &Path) -> Option<PathBuf> {
    let name = game.file_name()?.to_string_lossy().into_owned();
    let folder = game.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = folder.join("redo");
    let segments = std::fs::read_dir(&dir).ok()?;
    let holds = segments.filter_map(Result::ok).any(|e| {
        let is_segment = e.file_name().to_string_lossy().strip_suffix(".log").is_some_and(|n| n.parse::<u64>().is_ok());
        // A segment it cannot read or parse may hold the game too: counted as holding it.
        is_segment
            && std::fs::read(e.path()).map_or(true, |bytes| records(&bytes).map_or(true, |(rs, _)| rs.iter().any(|(f, _)| *f == name)))
    });
    holds.then_some(dir)
}

/// Sync folder `dir` itself (its names). `sync_folder` syncs the folder of the path it is
/// given: here a name inside `dir`.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    crate::sync_folder(&dir.join("-")).map_err(|e| io_error(dir, "the folder could not be synced", e))
}

/// A new, empty segment `n`: made, its header synced, its name synced in the folder (a record
/// in it is acknowledged only if the file itself survives a crash). A segment that could not
/// be made whole is removed again (a start reads a header cut short as an empty segment).
fn new_segment(dir: &Path, n: u64) -> Result<File, StoreError> {
    let path = segment_path(dir, n);
    // Private as the games whose moves (and seats' private logs) it holds.
    let mut file = crate::sqlite::private_new_file(&path).map_err(|e| io_error(&path, "the redo log's segment could not be made", e))?;
    let written = file
        .write_all(HEADER)
        .and_then(|()| file.sync_all())
        .map_err(|e| io_error(&path, "the redo log's segment could not be written", e))
        .and_then(|()| sync_dir(dir));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(file)
}

/// Sync what game file `path` holds unsynced: its write-ahead log (`synchronous = NORMAL`
/// syncs it only before folding it into the file, and the file after; no log beside it: the
/// last connection folded it in, synced, and removed it), and, for a file made on the log
/// (`new`), the file itself (its first page, its size). A file not there is no error.
fn sync_game(path: &Path, new: bool) -> std::io::Result<()> {
    let sync = |file: PathBuf, sync: fn(&File) -> std::io::Result<()>| match File::open(file) {
        Ok(f) => sync(&f),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    sync(crate::sqlite::beside(path, "-wal"), File::sync_data)?;
    if new {
        sync(path.to_path_buf(), File::sync_all)?;
    }
    Ok(())
}

/// A segment's records, in order, and how many bytes after the last were not a whole record
/// (a write torn by a crash, in the last segment written); `Err` if the bytes are no segment.
/// A header cut short (a crash while the segment was being made) is an empty segment.
fn records(bytes: &[u8]) -> Result<(Vec<(String, Vec<Op>)>, usize), String> {
    // (Or zeros where the header was to be, as some file systems leave a write cut short.)
    if HEADER.starts_with(bytes) || HEADER_1.starts_with(bytes) || bytes.iter().all(|&b| b == 0) {
        return Ok((Vec::new(), 0));
    }
    let mut rest = bytes
        .strip_prefix(HEADER)
        .or_else(|| bytes.strip_prefix(HEADER_1))
        .ok_or("not a redo log segment of this Arbiter (one of a newer Arbiter, or damaged)")?;
    let mut out = Vec::new();
    while rest.len() >= 8 {
        let len = u32::from_le_bytes(rest[0..4].try_into().expect("four bytes"));
        let crc = u32::from_le_bytes(rest[4..8].try_into().expect("four bytes"));
        if len == 0 || len > MAX_RECORD || rest.len() - 8 < len as usize {
            break;
        }
        let payload = &rest[8..8 + len as usize];
        if crc32fast::hash(payload) != crc {
            break;
        }
        // Whole and as written (its checksum holds), yet unreadable: not a torn write.
        let r = serde_json::from_slice::<GameRecord>(payload).map_err(|e| format!("a whole record this Arbiter cannot read ({e})"))?;
        out.push((r.game.into_owned(), r.ops.into_iter().map(Op::from_record).collect()));
        rest = &rest[8 + len as usize..];
    }
    Ok((out, rest.len()))
}

/// Make game `store`'s record what `ops` leave it (in one transaction, committed and synced):
/// the rows the log says the game ends with, from the first the file lacks or holds otherwise
/// (the log is the order of what was acknowledged: an undo and the move made instead), and no
/// row after the last. Returns how many rows were written and removed.
fn apply(store: &mut SqliteStore, ops: &[Op]) -> Result<usize, StoreError> {
    // What the operations leave, from the first row they touch: the rows by number, the head.
    let mut rows: BTreeMap<u64, &EventRow> = BTreeMap::new();
    let mut head = None;
    for op in ops {
        match op {
            Op::Append(row) if row.seq == 0 => {
                return Err(StoreError::Damaged { path: store.path().into(), seq: 0, what: "its redo log holds a move numbered 0".into() })
            }
            Op::Append(row) => {
                // Every row from this one on is replaced.
                let _replaced = rows.split_off(&row.seq);
                rows.insert(row.seq, row);
                head = Some(row.seq);
            }
            Op::TruncateAfter(seq) => {
                if let Some(next) = seq.checked_add(1) {
                    let _removed = rows.split_off(&next);
                }
                head = Some(*seq);
            }
            // Never here: `life` takes a game's creation and removal apart from its rows.
            Op::Create(_) | Op::Remove => {
                return Err(StoreError::WriteFailed {
                    path: store.path().into(),
                    what: "a creation or removal among rows (engine fault)".into(),
                })
            }
        }
    }
    let Some(head) = head else { return Ok(0) };
    // The stored rows kept: up to the first that differs from the log's, or up to its last.
    let keep = |store: &SqliteStore| -> Result<(u64, u64), StoreError> {
        let (stored, _) = store.head()?;
        let seats = store.header()?.seats;
        for (&seq, row) in &rows {
            if seq > stored || store.row_chain(seq)? != crate::chain::extend(&store.row_chain(seq - 1)?, row, &seats) {
                return Ok((stored, seq - 1));
            }
        }
        Ok((stored, head))
    };
    // Up to date (read without the write lock: a file the server only reads is left alone).
    if keep(store)? == (head, head) {
        return Ok(0);
    }
    store.lock()?;
    let result = (|| {
        let (stored, keep) = keep(store)?;
        let removed = stored.saturating_sub(keep) as usize;
        if removed > 0 {
            store.truncate_after(keep)?;
        }
        let mut written = 0;
        for row in rows.range(keep + 1..).map(|(_, row)| *row) {
            store.append(row)?;
            written += 1;
        }
        // The file must now end where the log does (a log that starts past the file's end, or
        // ends on an undo past it, leaves a gap no record fills).
        let (now, _) = store.head()?;
        if now != head {
            return Err(StoreError::Truncated { path: store.path().into(), head, found: now });
        }
        Ok(written + removed)
    })();
    match result {
        Ok(n) => store.commit().map(|()| n),
        Err(e) => {
            store.rollback();
            Err(e)
        }
    }
}

/// Where a game's operations in the log leave its file.
enum Life<'a> {
    /// Made before the log's oldest segment: the file is there to bring up to date.
    Made,
    /// Made by this creation in the log: the file is made again from it if the crash left no
    /// record of that game at its name.
    Created(&'a Creation),
    /// Removed: no file.
    Removed,
}

/// Game operations `ops`' last creation or removal, and the changes of its record after it.
fn life(ops: &[Op]) -> (Life<'_>, &[Op]) {
    for (i, op) in ops.iter().enumerate().rev() {
        match op {
            Op::Create(c) => return (Life::Created(c), &ops[i + 1..]),
            Op::Remove => return (Life::Removed, &ops[i + 1..]),
            Op::Append(_) | Op::TruncateAfter(_) => {}
        }
    }
    (Life::Made, ops)
}

/// How [`bring_created`] found a new game's file.
enum Found {
    /// Holding the game's record: brought up to date.
    Kept,
    /// Not there, or holding nothing (empty, or a database without a table: its first page
    /// alone): made again from the log.
    MadeAgain,
    /// There but unreadable as a game (a power cut before its pages were on the disk): set
    /// aside under this name, then made again from the log.
    SetAside(PathBuf),
}

/// Game file `path`, created by `creation` in the log, brought up to date with `rows` (the
/// changes after the creation): kept if it holds that game's record (a process killed, the
/// disk kept what it was given), else made again from the creation (a power cut before the
/// log's segment was retired: the file, its first page or its name not on the disk). Nothing
/// acknowledged of a game created in the log is outside it unless the whole file was synced
/// ([`RedoLog::sync_beside`]), so a file unreadable as a game holds nothing acknowledged: it
/// is set aside all the same (moved, never removed: an unreadable file may be a disk's
/// fault, not a power cut's). Returns how the file was found, and how many changes were
/// applied.
fn bring_created(path: &Path, creation: &Creation, rows: &[Op]) -> Result<(Found, usize), StoreError> {
    let found = if !path.exists() {
        Found::MadeAgain
    } else {
        // Read only first: another game's file at the name is left exactly as it is.
        match SqliteStore::open_read_only(path).and_then(|s| s.header()) {
            Ok(header) if header == creation.header => Found::Kept,
            Ok(_) => {
                return Err(StoreError::Damaged {
                    path: path.into(),
                    seq: 0,
                    what: "it holds another game than the one the redo log made at its name".into(),
                })
            }
            // What an unsynced new file leaves after a power cut: empty, a database without
            // the record, pages cut short, lost or half written.
            Err(StoreError::NotAGame(_) | StoreError::CutShort { .. } | StoreError::Damaged { .. }) => {
                if crate::sqlite::holds_nothing(path) {
                    Found::MadeAgain
                } else {
                    Found::SetAside(set_aside(path)?)
                }
            }
            Err(
                e @ (StoreError::Sqlite { .. }
                | StoreError::NewerSchema { .. }
                | StoreError::UnknownSchema { .. }
                | StoreError::Exists(_)
                | StoreError::BadRow { .. }
                | StoreError::Truncated { .. }
                | StoreError::ReadOnly(_)
                | StoreError::Busy(_)
                | StoreError::WriteFailed { .. }
                | StoreError::Database { .. }
                | StoreError::NoSuchGame(_)
                | StoreError::Conflict { .. }
                | StoreError::Contended(_)
                | StoreError::Unconfirmed(_)
                | StoreError::LeaseLost(_)
                | StoreError::BadId(_)),
            ) => return Err(e),
        }
    };
    let mut store = match &found {
        Found::Kept => SqliteStore::open_with(path, Journal::WriteAhead)?,
        Found::MadeAgain | Found::SetAside(_) => {
            // Its companions too (a log beside no file would be folded into the new one).
            SqliteStore::remove(path).map_err(|e| io_error(path, "what the crash left of it could not be removed", e))?;
            let docs: Vec<(&str, &str)> = creation.docs.iter().map(|(n, j)| (n.as_str(), j.as_str())).collect();
            SqliteStore::create_with_docs(path, &creation.header, Journal::WriteAhead, &docs)?
        }
    };
    apply(&mut store, rows).map(|n| (found, n))
}

/// Move game file `path` and its write-ahead log out of the way (`NAME.left-SECONDS`, and that
/// name's `-wal`: SQLite pairs them so), returning the new name.
fn set_aside(path: &Path) -> Result<PathBuf, StoreError> {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let aside = path.with_file_name(format!("{name}.left-{secs}"));
    let moved = crate::change_folder(path, || {
        std::fs::rename(path, &aside)?;
        match std::fs::rename(crate::sqlite::beside(path, "-wal"), crate::sqlite::beside(&aside, "-wal")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            Ok(()) | Err(_) => Ok(()),
        }
    });
    moved.map_err(|e| io_error(path, "what the crash left of it could not be set aside", e))?;
    Ok(aside)
}

/// One game's operations over every segment, in order.
struct GameOps {
    file: String,
    ops: Vec<Op>,
}

/// How often a log moves to a new segment ([`RedoLog::open_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segments {
    /// Every [`SEGMENT_EVERY`], by a thread of the log's (a server's).
    EverySecond,
    /// Only when [`RedoLog::next_segment`] is called (tests).
    OnCall,
}

impl RedoLog {
    /// The redo log of the data folder `folder` (its segments in `folder/redo`), moving to a
    /// new segment every second: what a crash left is applied to the games first. Returns the
    /// log and what was applied (lines for the server's log). Refused if another process has
    /// the folder's log open, or if a game cannot be brought up to date (its segments are
    /// kept: the error says which and why).
    pub fn open(folder: &Path) -> Result<(Arc<RedoLog>, Vec<String>), StoreError> {
        Self::open_with(folder, Segments::EverySecond)
    }

    /// [`RedoLog::open`], moving to new segments as `segments` says (if this process has not
    /// the folder's log open already: then that one, as it is).
    pub fn open_with(folder: &Path, segments: Segments) -> Result<(Arc<RedoLog>, Vec<String>), StoreError> {
        let folder = folder.canonicalize().map_err(|e| io_error(folder, "the data folder cannot be found", e))?;
        let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|(_, log)| log.strong_count() > 0);
        if let Some(log) = open.iter().find(|(f, _)| *f == folder).and_then(|(_, log)| log.upgrade()) {
            return Ok((log, Vec::new()));
        }
        let (log, report) = Self::open_alone(&folder, segments)?;
        open.push((folder, Arc::downgrade(&log)));
        Ok((log, report))
    }

    fn open_alone(folder: &Path, segments: Segments) -> Result<(Arc<RedoLog>, Vec<String>), StoreError> {
        let dir = folder.join("redo");
        if !dir.is_dir() {
            let mut made = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut made, 0o700);
            made.create(&dir).map_err(|e| io_error(&dir, "the redo log's folder could not be made", e))?;
            sync_dir(folder)?;
        }
        let lock_path = dir.join("lock");
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        let lock = o.open(&lock_path).map_err(|e| io_error(&lock_path, "the redo log's lock could not be opened", e))?;
        // A log of this process being closed (its last handle dropped a moment ago) still
        // holds the lock while it syncs its games: waited for, a little.
        let mut tries = 0;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if tries < 100 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::WriteFailed {
                        path: folder.into(),
                        what: "another process serves this data folder (its redo log is open): one server per folder".into(),
                    })
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&lock_path, "the redo log's lock could not be taken", e)),
            }
        }
        // Every segment's number, those a start could not apply included: a new one is past all.
        let names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| io_error(&dir, "the redo log's folder could not be read", e))?
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(String::from))
            .collect();
        let mut numbers: Vec<u64> = names.iter().filter_map(|n| n.strip_suffix(".log")?.parse().ok()).collect();
        numbers.sort_unstable();
        let report = Self::recover(folder, &dir, &numbers)?;
        let next = numbers.last().map_or(1, |n| n + 1);
        let file = new_segment(&dir, next)?;
        let log = Arc::new(RedoLog {
            folder: folder.into(),
            dir,
            state: Mutex::new(State {
                waiting: Vec::new(),
                waiting_games: HashSet::new(),
                fresh: HashMap::new(),
                next: 0,
                durable: 0,
                writing: false,
                segment: Segment { number: next, file: Arc::new(file), games: HashSet::new() },
                old: Vec::new(),
                failed: None,
                lost_from: None,
                syncs: SyncTimes::default(),
            }),
            changed: Condvar::new(),
            commits: RwLock::new(()),
            rotating: Mutex::new(()),
            _lock: lock,
        });
        if segments == Segments::EverySecond {
            let weak = Arc::downgrade(&log);
            std::thread::Builder::new()
                .name("redo-segments".into())
                .spawn(move || Self::segments(weak))
                .map_err(|e| io_error(folder, "the redo log's thread could not start", e))?;
        }
        Ok((log, report))
    }

    /// Apply segments `numbers` (in order) to their games, then remove them. If a game cannot
    /// be brought up to date (its file damaged, a gap), or a segment not the last has bytes
    /// after its last record (damaged, not torn), nothing is removed and the start is refused
    /// with what is wrong: the folder's owner mends it (or removes the game file), then starts
    /// again.
    fn recover(folder: &Path, dir: &Path, numbers: &[u64]) -> Result<Vec<String>, StoreError> {
        let mut report = Vec::new();
        let mut games: Vec<GameOps> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut read = Vec::new();
        for &n in numbers {
            let path = segment_path(dir, n);
            let bytes = std::fs::read(&path).map_err(|e| io_error(&path, "the redo log's segment could not be read", e))?;
            let (records, left) = records(&bytes).map_err(|what| StoreError::Damaged { path: path.clone(), seq: 0, what })?;
            read.push((path, records, left));
        }
        // A write torn by a crash ends the last segment holding records (a newer one may be
        // there, only its header: made while that write ran). Bytes that are no record before
        // a newer segment's records are damage.
        for (i, (path, _, left)) in read.iter().enumerate() {
            if *left > 0 && read[i + 1..].iter().any(|(_, records, _)| !records.is_empty()) {
                return Err(StoreError::Damaged {
                    path: path.clone(),
                    seq: 0,
                    what: format!("{left} bytes after its last whole record, and records in a later segment: it was damaged, not cut short by a crash"),
                });
            }
        }
        for (_, records, _) in read {
            for (file, ops) in records {
                match index.get(&file) {
                    Some(&g) => games[g].ops.extend(ops),
                    None => {
                        index.insert(file.clone(), games.len());
                        games.push(GameOps { file, ops });
                    }
                }
            }
        }
        let mut failed = Vec::new();
        for GameOps { file, ops } in &games {
            let path = folder.join(file);
            if Path::new(file).file_name() != Some(std::ffi::OsStr::new(file)) {
                failed.push(format!("{file:?} is not a file of the folder"));
                continue;
            }
            let (life, rows) = life(ops);
            let brought = match life {
                Life::Removed => {
                    // Discarded after its creation: gone, whatever the crash left of it.
                    let there = path.exists();
                    match SqliteStore::remove(&path) {
                        Ok(()) if there => report.push(format!("redo log: game file {file}: removed, as the server had")),
                        Ok(()) => {}
                        Err(e) => failed.push(format!("game file {file}: could not be removed: {e}")),
                    }
                    continue;
                }
                Life::Created(creation) => bring_created(&path, creation, rows).map(|(found, n)| (Some(found), n)),
                // Removed since by hand: nothing to bring up to date.
                Life::Made if !path.exists() => continue,
                Life::Made => SqliteStore::open_with(&path, Journal::WriteAhead).and_then(|mut s| apply(&mut s, rows)).map(|n| (None, n)),
            };
            // Synced whether or not it lacked anything: after a process killed (not a power cut)
            // the file holds every move, not yet on the disk; a new game's kept file, its first
            // page too (one made again was made synced).
            let done = brought.and_then(|(found, n)| {
                let first_page = match &found {
                    Some(Found::Kept) => true,
                    Some(Found::MadeAgain | Found::SetAside(_)) | None => false,
                };
                let synced = sync_game(&path, first_page);
                synced.map(|()| (found, n)).map_err(|e| io_error(&path, "could not be synced", e))
            });
            let again = "made again from its creation's record (the crash came before the file was on the disk)";
            match done {
                Ok((None | Some(Found::Kept), 0)) => {}
                Ok((None | Some(Found::Kept), n)) => report.push(format!("redo log: game file {file}: {n} change(s) it had lost applied")),
                Ok((Some(Found::MadeAgain), n)) => report.push(format!("redo log: game file {file}: {again}, and {n} change(s) applied")),
                Ok((Some(Found::SetAside(aside)), n)) => report.push(format!(
                    "redo log: game file {file}: {again}, and {n} change(s) applied; what the crash left at its name, unreadable, \
                     is set aside as {}",
                    aside.display()
                )),
                Err(e) => failed.push(format!("game file {file}: {e}")),
            }
        }
        if !failed.is_empty() {
            return Err(StoreError::WriteFailed {
                path: dir.into(),
                what: format!(
                    "the redo log could not bring every game up to date after a crash ({}); its segments are kept: \
                     mend or remove those game files, then start again",
                    failed.join("; ")
                ),
            });
        }
        if !games.is_empty() {
            // The names of logs SQLite made beside the games.
            sync_dir(folder)?;
        }
        // Oldest first, each removal on the disk before the next: an older segment never
        // outlives a newer one.
        for &n in numbers {
            let path = segment_path(dir, n);
            std::fs::remove_file(&path).map_err(|e| io_error(&path, "the redo log's segment could not be removed", e))?;
            sync_dir(dir)?;
        }
        Ok(report)
    }

    /// How long the log's batches have taken to reach the disk since it was opened.
    pub fn sync_times(&self) -> SyncTimes {
        self.state().syncs.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether game file `game` may go on this log: a file of its folder, named in UTF-8 (a
    /// record names its game by its file name).
    pub(crate) fn check_game(&self, game: &Path) -> Result<(), StoreError> {
        let folder = game.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let same = folder.canonicalize().is_ok_and(|f| f == self.folder);
        if !same || game.file_name().and_then(|n| n.to_str()).is_none() {
            return Err(StoreError::WriteFailed {
                path: game.into(),
                what: format!("not a game file of {}, whose redo log this is (engine fault)", self.folder.display()),
            });
        }
        Ok(())
    }

    /// Held from before a write's record is taken ([`RedoLog::write`]) until its file's
    /// commit is done: the segment holding the record is not retired meanwhile.
    pub(crate) fn pin(&self) -> RwLockReadGuard<'_, ()> {
        self.commits.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Make `ops` of game file `game` (in this log's folder: [`RedoLog::check_game`]) durable:
    /// returns once they are on the disk, written with every other record waiting then, in
    /// one write and one sync. The caller holds [`RedoLog::pin`] until its file's commit.
    pub(crate) fn write(&self, game: &Path, ops: &[Op]) -> Result<(), StoreError> {
        let fault = |what: String| StoreError::WriteFailed { path: game.into(), what };
        let name = game.file_name().and_then(|n| n.to_str()).ok_or_else(|| fault("a game file named in UTF-8 (engine fault)".into()))?;
        let payload = serde_json::to_vec(&GameRecord { game: Cow::Borrowed(name), ops: ops.iter().map(Op::record).collect() })
            .map_err(|e| fault(format!("its redo record could not be made: {e}")))?;
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&l| l <= MAX_RECORD)
            .ok_or_else(|| fault("the change is too large for the redo log".into()))?;
        let mut s = self.state();
        if let Some(why) = &s.failed {
            return Err(fault(why.clone()));
        }
        s.waiting.extend_from_slice(&len.to_le_bytes());
        s.waiting.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        s.waiting.extend_from_slice(&payload);
        s.waiting_games.insert(game.into());
        if ops.iter().any(Op::creates) {
            // In the segment current now: the caller's pin keeps it current until the record
            // is written.
            let segment = s.segment.number;
            s.fresh.insert(game.into(), segment);
        }
        let ours = s.next;
        loop {
            if s.durable > ours {
                return Ok(());
            }
            // Our record's batch failed, or the log failed before our record was taken (a
            // batch already being written goes on: its result is ours).
            if s.lost_from.is_some_and(|b| b <= ours) || (s.failed.is_some() && ours == s.next) {
                return Err(fault(s.failed.clone().unwrap_or_default()));
            }
            if s.writing {
                s = self.changed.wait(s).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            // Nobody is writing: this thread writes every record waiting.
            s.writing = true;
            let batch = std::mem::take(&mut s.waiting);
            let games = std::mem::take(&mut s.waiting_games);
            let number = s.next;
            s.next += 1;
            s.segment.games.extend(games);
            let (file, segment) = (s.segment.file.clone(), s.segment.number);
            drop(s);
            let began = Instant::now();
            let written = (&*file).write_all(&batch).and_then(|()| file.sync_data());
            let took = began.elapsed();
            s = self.state();
            s.writing = false;
            s.syncs.add(began, took);
            match written {
                Ok(()) => s.durable = number + 1,
                Err(e) => {
                    s.lost_from = Some(number);
                    s.failed = Some(format!(
                        "the redo log ({}) could not be written: {e}; the move may or may not be stored (the next start \
                         on this folder applies what reached the disk), and none is stored until the server process restarts",
                        segment_path(&self.dir, segment).display()
                    ))
                }
            }
            self.changed.notify_all();
        }
    }

    /// Make durable what game file `game` just committed outside the log (a write beside its
    /// record: a chat message, a document, at a person's pace): its own log synced with its
    /// name in the folder (SQLite makes the log again each time the game is loaded, and syncs
    /// its name only at its first fold), and, if its creation is in a segment not yet retired,
    /// the file itself (a start after a crash would make the file again from its creation's
    /// record, without that write).
    pub(crate) fn sync_beside(&self, game: &Path) -> Result<(), StoreError> {
        let fresh = self.state().fresh.contains_key(game);
        sync_game(game, fresh).map_err(|e| io_error(game, "it could not be synced", e))?;
        sync_dir(&self.folder)
    }

    /// Remove game file `game` (of this log's folder) with its companions: a game the host
    /// made and then discarded. The removal is in the log first, so that a start after a crash
    /// does not make the file again from its creation's record.
    pub fn remove_game(&self, game: &Path) -> Result<(), StoreError> {
        self.check_game(game)?;
        let _pinned = self.pin();
        self.write(game, &[Op::Remove])?;
        SqliteStore::remove(game).map_err(|e| io_error(game, "could not be removed", e))
    }

    /// A game file could not commit what its record in the log holds: the log takes no more
    /// (the next start applies it; until then the file and the log disagree).
    pub(crate) fn fail(&self, why: String) {
        self.state().failed.get_or_insert(why);
        self.changed.notify_all();
    }

    /// The thread moving the log to a new segment every [`SEGMENT_EVERY`] while the log is
    /// open.
    fn segments(log: Weak<RedoLog>) {
        loop {
            std::thread::sleep(SEGMENT_EVERY);
            let Some(log) = log.upgrade() else { return };
            if let Err(e) = log.next_segment() {
                if !log.dir.is_dir() {
                    // The folder was removed (a test's temporary folder): nothing left to keep.
                    return;
                }
                eprintln!("arbiter: the redo log keeps its segments for now: {e}");
            }
        }
    }

    /// Start a new segment, then sync the games the old ones wrote and remove them (what the
    /// log's thread does every second).
    pub fn next_segment(&self) -> Result<(), StoreError> {
        let _one = self.rotating.lock().unwrap_or_else(|p| p.into_inner());
        let (failed, idle, number) = {
            let s = self.state();
            (s.failed.is_some(), s.segment.games.is_empty() && s.waiting.is_empty(), s.segment.number + 1)
        };
        if failed {
            // A failed log keeps its segments for the next start to apply.
            return Ok(());
        }
        if idle {
            return self.retire_old();
        }
        let file = new_segment(&self.dir, number)?;
        {
            // No write between its record and its commit: every record of the old segment is
            // in its game's file when the games are synced.
            let _alone = self.commits.write().unwrap_or_else(|p| p.into_inner());
            let mut s = self.state();
            // Failed meanwhile (checked again here, where no write is under way: a write fails
            // the log before it lets go of its pin): its segment is kept for the next start,
            // and the new one, empty, goes.
            if s.failed.is_some() {
                drop(s);
                let _ = std::fs::remove_file(segment_path(&self.dir, number));
                return sync_dir(&self.dir);
            }
            let old = std::mem::replace(&mut s.segment, Segment { number, file: Arc::new(file), games: HashSet::new() });
            s.old.push(old);
        }
        self.retire_old()
    }

    /// Sync every game the old segments wrote and remove them, oldest first, stopping at one
    /// a game of which cannot be synced (kept, with every newer one, for the next try or the
    /// next start: a start must never apply an older segment without the newer ones that
    /// followed it).
    fn retire_old(&self) -> Result<(), StoreError> {
        let old = std::mem::take(&mut self.state().old);
        let mut left = old.into_iter();
        let mut result = Ok(());
        let mut kept = Vec::new();
        for segment in left.by_ref() {
            if let Err(e) = self.retire(&segment) {
                kept.push(segment);
                result = Err(e);
                break;
            }
        }
        kept.extend(left);
        if !kept.is_empty() {
            let mut s = self.state();
            kept.append(&mut s.old);
            s.old = kept;
        }
        result
    }

    /// Sync every game segment `old` wrote, then remove it and sync the folder (removed for
    /// good before a later segment is: see `retire_old`).
    fn retire(&self, old: &Segment) -> Result<(), StoreError> {
        let created: HashSet<PathBuf> = self.state().fresh.iter().filter(|(_, &n)| n == old.number).map(|(g, _)| g.clone()).collect();
        for game in &old.games {
            sync_game(game, created.contains(game)).map_err(|e| io_error(game, "could not be synced (its redo log segment is kept)", e))?;
        }
        if !old.games.is_empty() {
            // The name of a game's log SQLite made again (a game loaded anew) is synced by
            // SQLite only at its first fold.
            sync_dir(&self.folder)?;
        }
        let path = segment_path(&self.dir, old.number);
        std::fs::remove_file(&path).map_err(|e| io_error(&path, "the redo log's old segment could not be removed", e))?;
        sync_dir(&self.dir)?;
        self.state().fresh.retain(|_, n| *n > old.number);
        Ok(())
    }
}

impl Drop for RedoLog {
    /// Closing: the games the segments wrote are synced and the segments removed (any that
    /// cannot be are applied by the next start).
    fn drop(&mut self) {
        let s = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if s.failed.is_some() || !self.dir.is_dir() {
            return;
        }
        let last = Segment { number: s.segment.number, file: s.segment.file.clone(), games: std::mem::take(&mut s.segment.games) };
        s.old.push(last);
        if let Err(e) = self.retire_old() {
            eprintln!("arbiter: the redo log's segments are kept for the next start: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_times_keep_the_last_slow_batches_and_count_them_all() {
        let mut t = SyncTimes::default();
        let start = Instant::now();
        t.add(start, Duration::from_millis(1));
        for i in 0..SLOW_KEPT as u64 + 3 {
            t.add(start + Duration::from_millis(i), SLOW_SYNC + Duration::from_millis(i));
        }
        assert_eq!(t.batches, SLOW_KEPT as u64 + 4);
        assert_eq!(t.slow_count, SLOW_KEPT as u64 + 3);
        assert_eq!(t.slow.len(), SLOW_KEPT);
        // The oldest three slow batches made room for the last ones.
        assert_eq!(t.slow.front().map(|s| s.1), Some(SLOW_SYNC + Duration::from_millis(3)));
        assert_eq!(t.slowest, SLOW_SYNC + Duration::from_millis(SLOW_KEPT as u64 + 2));
        let expected: Duration =
            Duration::from_millis(1) + (0..SLOW_KEPT as u64 + 3).map(|i| SLOW_SYNC + Duration::from_millis(i)).sum::<Duration>();
        assert_eq!(t.total, expected);
    }
}
