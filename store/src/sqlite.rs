//! The embedded store: one SQLite file per game. A rollback journal (`journal_mode = DELETE`)
//! with `synchronous = FULL`: once a move is acknowledged, the `.arbiter` file alone holds it
//! (there is no `-wal` file to lose when copying), and a crash never leaves half a move.

use crate::{chain, EventRow, EventStore, GameHeader, Record, StoreError};
use arbiter_engine::Side;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

/// The schema version this code writes (`PRAGMA user_version`). Version 1 files (no
/// integrity chain) are upgraded when opened for writing, and read as they are otherwise.
pub const SCHEMA_VERSION: i64 = 2;
/// `PRAGMA application_id`: "ARBI".
const APPLICATION_ID: i64 = 0x4152_4249;
/// How long a writer waits for another writer's lock before giving up (ms).
const BUSY_TIMEOUT_MS: u32 = 10_000;

const SCHEMA: &str = "
CREATE TABLE game (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    created_at TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    seed INTEGER NOT NULL,
    options_json TEXT NOT NULL,
    setup_public_log TEXT NOT NULL,
    setup_us_log TEXT NOT NULL,
    setup_ussr_log TEXT NOT NULL,
    setup_random_json TEXT NOT NULL,
    setup_reveals INTEGER NOT NULL,
    setup_state_hash TEXT NOT NULL,
    header_hash TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('us', 'ussr')),
    move_text TEXT NOT NULL,
    move_json TEXT NOT NULL,
    random_json TEXT NOT NULL,
    reveals INTEGER NOT NULL,
    public_log TEXT NOT NULL,
    us_log TEXT NOT NULL,
    ussr_log TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    chain TEXT NOT NULL
);
";

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// The file could not be opened for writing.
    read_only: bool,
    /// The schema version found (1: no chain to check).
    version: i64,
}

fn side_text(s: Side) -> &'static str {
    match s {
        Side::Us => "us",
        Side::Ussr => "ussr",
    }
}

/// What a failed read means for the user: never a raw driver message.
fn read_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::NotADatabase => StoreError::NotAGame(path),
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the file's structure is corrupt".into() },
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::PermissionDenied => StoreError::Sqlite { path, what: "cannot be read: no permission to read it".into() },
            // `open` checked that the file exists and can be read: SQLite cannot open it as a
            // database because of what it holds (e.g. a damaged header asking for a journal
            // mode it cannot set up).
            ErrorCode::CannotOpen => StoreError::Damaged { path, seq: 0, what: "its structure is damaged: it cannot be opened".into() },
            // Never the driver's code name ("Unknown"): the structure is what failed.
            _ => StoreError::Damaged { path, seq: 0, what: "its structure cannot be read".into() },
        },
        rusqlite::Error::SqlInputError { .. } | rusqlite::Error::InvalidQuery => StoreError::NotAGame(path),
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => {
            StoreError::Damaged { path, seq: 0, what: "a stored value has the wrong type".into() }
        }
        _ if e.to_string().contains("no such table") || e.to_string().contains("no such column") => StoreError::NotAGame(path),
        _ => StoreError::Damaged { path, seq: 0, what: "it cannot be read".into() },
    }
}

/// What a failed write means: read-only, busy, or not stored (disk full…).
fn write_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied => StoreError::ReadOnly(path),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(path),
            ErrorCode::DiskFull => StoreError::WriteFailed { path, what: "the disk is full".into() },
            ErrorCode::TooBig => StoreError::WriteFailed { path, what: "the row is too large".into() },
            ErrorCode::SystemIoFailure => StoreError::WriteFailed { path, what: "a write failed (disk full or a file-size limit?)".into() },
            ErrorCode::DatabaseCorrupt => StoreError::Damaged { path, seq: 0, what: "the file's structure is corrupt".into() },
            ErrorCode::NotADatabase => StoreError::NotAGame(path),
            _ => StoreError::WriteFailed { path, what: "the write failed".into() },
        },
        _ => StoreError::WriteFailed { path, what: "the write failed".into() },
    }
}

impl SqliteStore {
    fn configure(conn: &Connection, path: &Path, writable: bool) -> Result<(), StoreError> {
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS.into())).map_err(|e| read_error(path, e))?;
        if writable {
            // A file written by an older Arbiter may be in WAL mode: fold the -wal file in.
            let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(|e| read_error(path, e))?;
            if !mode.eq_ignore_ascii_case("delete") {
                let _: rusqlite::Result<String> = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0));
            }
        }
        conn.execute_batch("PRAGMA synchronous = FULL;").map_err(|e| read_error(path, e))
    }

    /// Create a new game file. Refuses to touch an existing file. The file is written whole
    /// beside its final name and linked into place only once complete, so a creation killed
    /// midway leaves no half-made file at `path` (only a hidden temporary one, never read).
    pub fn create(path: &Path, header: &GameHeader) -> Result<SqliteStore, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.into()));
        }
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let temp = path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()));
        let made = Self::write_new(&temp, path, header);
        let placed = made.and_then(|()| {
            // No-clobber: a hard link fails if `path` appeared meanwhile; where links are not
            // supported, a rename after a last check.
            match std::fs::hard_link(&temp, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(StoreError::Exists(path.into())),
                Err(_) if path.exists() => Err(StoreError::Exists(path.into())),
                Err(_) => std::fs::rename(&temp, path).map_err(|e| StoreError::WriteFailed {
                    path: path.into(),
                    what: format!("the new file could not be put in place: {e}"),
                }),
            }
        });
        let _ = std::fs::remove_file(&temp);
        placed?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(|e| write_error(path, e))?;
        Self::configure(&conn, path, true)?;
        Ok(SqliteStore { conn, path: path.into(), read_only: false, version: SCHEMA_VERSION })
    }

    /// Write a complete new game file at `at` and close it (errors name `path`, the file the
    /// user asked for).
    fn write_new(at: &Path, path: &Path, header: &GameHeader) -> Result<(), StoreError> {
        let mut conn = Connection::open_with_flags(at, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
            .map_err(|e| write_error(path, e))?;
        conn.execute_batch("PRAGMA journal_mode = DELETE;").map_err(|e| write_error(path, e))?;
        Self::configure(&conn, path, true)?;
        let tx = conn.transaction().map_err(|e| write_error(path, e))?;
        tx.execute_batch(SCHEMA).map_err(|e| write_error(path, e))?;
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"))
            .map_err(|e| write_error(path, e))?;
        let s = &header.setup;
        tx.execute(
            "INSERT INTO game VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0, ?12)",
            params![
                header.created_at,
                header.engine_version,
                header.rules_version,
                header.seed as i64,
                serde_json::to_string(&header.options).expect("options serialise"),
                s.public_log,
                s.us_log,
                s.ussr_log,
                s.random_json,
                s.reveals,
                s.state_hash,
                chain::start(header)
            ],
        )
        .map_err(|e| write_error(path, e))?;
        tx.commit().map_err(|e| write_error(path, e))?;
        conn.close().map_err(|(_, e)| write_error(path, e))
    }

    /// Open an existing game file, checking that it is one and that its schema is known. A
    /// file that cannot be written (its mode, its folder) is opened read-only.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Sqlite { path: path.into(), what: "no such saved game".into() });
        }
        // Whether it can be read at all, before SQLite tries: a later failure to open it is
        // then about what it holds, not about permissions.
        let file = std::fs::File::open(path).map_err(|e| StoreError::Sqlite {
            path: path.into(),
            what: if e.kind() == std::io::ErrorKind::PermissionDenied {
                "cannot be read: no permission to read it".into()
            } else {
                "cannot be read".into()
            },
        })?;
        check_length(path, file)?;
        let writable = std::fs::OpenOptions::new().write(true).open(path).is_ok() && folder_writable(path);
        let flags = if writable { OpenFlags::SQLITE_OPEN_READ_WRITE } else { OpenFlags::SQLITE_OPEN_READ_ONLY };
        let mut conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(|e| read_error(path, e))?;
        let app = match conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0)) {
            Ok(a) => a,
            // A read-only file left in WAL mode by an older Arbiter: read it as immutable.
            Err(_) if !writable => {
                let uri = format!("file:{}?immutable=1", path.display());
                conn = Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(|e| read_error(path, e))?;
                conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| read_error(path, e))?
            }
            Err(e) => return Err(read_error(path, e)),
        };
        if app != APPLICATION_ID {
            return Err(StoreError::NotAGame(path.into()));
        }
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| read_error(path, e))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        if !(1..=SCHEMA_VERSION).contains(&version) {
            return Err(StoreError::UnknownSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        if version == 1 && has_chain_columns(&conn).map_err(|e| read_error(path, e))? {
            // A version-2 file whose version number changed: reading it as version 1 would
            // skip the integrity chain.
            return Err(StoreError::Damaged { path: path.into(), seq: 0, what: "its schema version does not match its tables".into() });
        }
        Self::configure(&conn, path, writable)?;
        let mut store = SqliteStore { conn, path: path.into(), read_only: !writable, version };
        if version == 1 && writable {
            store.upgrade_from_v1()?;
        }
        Ok(store)
    }

    /// Version 1 had no chain: add it over the rows as they are (trusting them once).
    fn upgrade_from_v1(&mut self) -> Result<(), StoreError> {
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
            h = chain::extend(&h, row);
            tx.execute("UPDATE events SET chain = ?1 WHERE seq = ?2", params![h, row.seq as i64]).map_err(|e| write_error(&path, e))?;
        }
        tx.execute("UPDATE game SET header_hash = ?1, head_seq = ?2, head_hash = ?3", params![chain::start(&header), rows.len() as i64, h])
            .map_err(|e| write_error(&path, e))?;
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};")).map_err(|e| write_error(&path, e))?;
        tx.commit().map_err(|e| write_error(&path, e))?;
        self.version = SCHEMA_VERSION;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The number of rows (the sequence number of the last move).
    pub fn last_seq(&self) -> Result<u64, StoreError> {
        let n: Option<i64> = self.conn.query_row("SELECT MAX(seq) FROM events", [], |r| r.get(0)).map_err(|e| read_error(&self.path, e))?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    fn in_lock(&self) -> Result<(), StoreError> {
        if self.conn.is_autocommit() {
            return Err(StoreError::WriteFailed { path: self.path.clone(), what: "a write outside the write lock (engine fault)".into() });
        }
        Ok(())
    }

    fn set_head(&self, seq: u64, hash: &str) -> Result<(), StoreError> {
        self.conn
            .execute("UPDATE game SET head_seq = ?1, head_hash = ?2 WHERE id = 1", params![seq as i64, hash])
            .map_err(|e| write_error(&self.path, e))?;
        Ok(())
    }

    fn read_rows(&self) -> Result<Vec<EventRow>, StoreError> {
        let header = self.header()?;
        let chained = self.version >= 2;
        let sql = if chained {
            "SELECT seq, at, side, move_text, move_json, public_log, us_log, ussr_log, random_json, reveals, state_hash, chain FROM events ORDER BY seq"
        } else {
            "SELECT seq, at, side, move_text, move_json, public_log, us_log, ussr_log, random_json, reveals, state_hash, '' FROM events ORDER BY seq"
        };
        let mut stmt = self.conn.prepare(sql).map_err(|e| read_error(&self.path, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    record_at(r, 5)?,
                    r.get::<_, String>(11)?,
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
            let (stored_seq, at, side, move_text, move_json, record, stored_chain) = r.map_err(|e| match read_error(&self.path, e) {
                StoreError::Damaged { what, .. } => damaged(what),
                other => other,
            })?;
            if stored_seq != seq as i64 {
                return Err(damaged(format!("move {seq} is missing (the next stored row is numbered {stored_seq})")));
            }
            let side = Side::parse(&side).ok_or_else(|| damaged(format!("unknown side {side:?}")))?;
            let row = EventRow { seq, at, side, move_text, move_json, record };
            h = chain::extend(&h, &row);
            if chained && stored_chain != h {
                return Err(damaged("its content does not match the integrity chain".into()));
            }
            out.push(row);
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
        Ok(out)
    }
}

/// Whether the tables have any of the columns version 2 added.
fn has_chain_columns(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'chain') + \
         (SELECT COUNT(*) FROM pragma_table_info('game') WHERE name IN ('header_hash', 'head_seq', 'head_hash'))",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The SQLite file header's magic string.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A saved game cut short (by a copy or a save that did not finish) is found from SQLite's own
/// header before SQLite reads it: the file must be as long as its page size times its page
/// count. Skipped while a journal or WAL file beside it may still complete or undo a write.
fn check_length(path: &Path, file: std::fs::File) -> Result<(), StoreError> {
    use std::io::Read;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut header = Vec::with_capacity(100);
    if file.take(100).read_to_end(&mut header).is_err() {
        return Ok(());
    }
    let cut = |expected| Err(StoreError::CutShort { path: path.into(), size, expected });
    if header.len() < 100 {
        // Empty, or some other small file, is not a saved game (SQLite's answer, below); the
        // start of SQLite's header, as far as it goes, is a file cut short.
        let n = header.len().min(SQLITE_MAGIC.len());
        return if n > 0 && header[..n] == SQLITE_MAGIC[..n] { cut(None) } else { Ok(()) };
    }
    let be32 = |at: usize| u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
    if !header.starts_with(SQLITE_MAGIC) || i64::from(be32(68)) != APPLICATION_ID {
        return Ok(());
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536u64,
        n if n >= 512 && n.is_power_of_two() => u64::from(n),
        _ => return Ok(()), // damaged: SQLite says so
    };
    // The page count is valid only when the change counter matches "version valid for".
    let pages = u64::from(be32(28));
    if pages == 0 || be32(24) != be32(92) {
        return Ok(());
    }
    let beside = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        Path::new(&p).exists()
    };
    if beside("-journal") || beside("-wal") {
        return Ok(());
    }
    if size < page_size * pages {
        return cut(Some(page_size * pages));
    }
    Ok(())
}

/// Can a file be created next to `path` (SQLite's rollback journal)? Probed by creating and
/// removing an empty file.
fn folder_writable(path: &Path) -> bool {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.probe", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// A `Record` from six columns starting at `at`: public, US and USSR logs, random outcomes,
/// reveals, state hash (the order of both tables).
fn record_at(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Record> {
    Ok(Record {
        public_log: r.get(at)?,
        us_log: r.get(at + 1)?,
        ussr_log: r.get(at + 2)?,
        random_json: r.get(at + 3)?,
        reveals: r.get(at + 4)?,
        state_hash: r.get(at + 5)?,
    })
}

impl EventStore for SqliteStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        let damaged = |what: String| StoreError::Damaged { path: self.path.clone(), seq: 0, what };
        let row = self
            .conn
            .query_row(
                "SELECT created_at, engine_version, rules_version, seed, options_json, setup_public_log, setup_us_log, setup_ussr_log, \
                 setup_random_json, setup_reveals, setup_state_hash FROM game WHERE id = 1",
                [],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, String>(4)?,
                        record_at(r, 5)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| read_error(&self.path, e))?
            .ok_or_else(|| damaged("the game header is missing".into()))?;
        let options = serde_json::from_str(&row.4).map_err(|_| damaged("the game options cannot be read".into()))?;
        Ok(GameHeader { created_at: row.0, engine_version: row.1, rules_version: row.2, seed: row.3 as u64, options, setup: row.5 })
    }

    fn head(&self) -> Result<(u64, String), StoreError> {
        if self.version < 2 {
            let rows = self.rows()?;
            let h = rows.iter().fold(chain::start(&self.header()?), |h, r| chain::extend(&h, r));
            return Ok((rows.len() as u64, h));
        }
        let (seq, hash): (i64, String) = self
            .conn
            .query_row("SELECT head_seq, head_hash FROM game WHERE id = 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| read_error(&self.path, e))?;
        Ok((seq.max(0) as u64, hash))
    }

    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
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
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| write_error(&self.path, e))
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            self.rollback();
            return Err(write_error(&self.path, e));
        }
        Ok(())
    }

    fn rollback(&mut self) {
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
        let h = chain::extend(&head_hash, row);
        let r = &row.record;
        self.conn
            .execute(
                "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    row.seq as i64,
                    row.at,
                    side_text(row.side),
                    row.move_text,
                    row.move_json,
                    r.random_json,
                    r.reveals,
                    r.public_log,
                    r.us_log,
                    r.ussr_log,
                    r.state_hash,
                    h
                ],
            )
            .map_err(|e| write_error(&self.path, e))?;
        self.set_head(row.seq, &h)
    }

    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        self.in_lock()?;
        let hash = if seq == 0 {
            chain::start(&self.header()?)
        } else {
            self.conn
                .query_row("SELECT chain FROM events WHERE seq = ?1", params![seq as i64], |r| r.get::<_, String>(0))
                .map_err(|e| read_error(&self.path, e))?
        };
        self.conn.execute("DELETE FROM events WHERE seq > ?1", params![seq as i64]).map_err(|e| write_error(&self.path, e))?;
        self.set_head(seq, &hash)
    }
}
