//! The embedded store: one SQLite file per game (WAL journal, one transaction per move).

use crate::{EventRow, EventStore, GameHeader, Record, StoreError};
use arbiter_engine::Side;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

/// The schema version this code writes and reads (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 1;
/// `PRAGMA application_id`: "ARBI".
const APPLICATION_ID: i64 = 0x4152_4249;

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
    setup_state_hash TEXT NOT NULL
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
    state_hash TEXT NOT NULL
);
";

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

fn side_text(s: Side) -> &'static str {
    match s {
        Side::Us => "us",
        Side::Ussr => "ussr",
    }
}

impl SqliteStore {
    fn err(&self, e: rusqlite::Error) -> StoreError {
        wrap(&self.path, e)
    }

    fn configure(conn: &Connection, path: &Path) -> Result<(), StoreError> {
        // WAL + synchronous=FULL: a committed move survives a crash of the process or the
        // machine, and a torn write never corrupts the file.
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| wrap(path, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Sqlite { path: path.into(), what: format!("cannot use the WAL journal (got {mode})") });
        }
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;").map_err(|e| wrap(path, e))
    }

    /// Create a new game file. Refuses to touch an existing file.
    pub fn create(path: &Path, header: &GameHeader) -> Result<SqliteStore, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.into()));
        }
        let mut conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
            .map_err(|e| wrap(path, e))?;
        Self::configure(&conn, path)?;
        let tx = conn.transaction().map_err(|e| wrap(path, e))?;
        tx.execute_batch(SCHEMA).map_err(|e| wrap(path, e))?;
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"))
            .map_err(|e| wrap(path, e))?;
        let s = &header.setup;
        tx.execute(
            "INSERT INTO game VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
                s.state_hash
            ],
        )
        .map_err(|e| wrap(path, e))?;
        tx.commit().map_err(|e| wrap(path, e))?;
        Ok(SqliteStore { conn, path: path.into() })
    }

    /// Open an existing game file, checking that it is one and that its schema is known.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Sqlite { path: path.into(), what: "no such saved game".into() });
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(|e| wrap(path, e))?;
        let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|_| StoreError::NotAGame(path.into()))?;
        if app != APPLICATION_ID {
            return Err(StoreError::NotAGame(path.into()));
        }
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| wrap(path, e))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        if version != SCHEMA_VERSION {
            return Err(StoreError::UnknownSchema { path: path.into(), found: version, supported: SCHEMA_VERSION });
        }
        Self::configure(&conn, path)?;
        Ok(SqliteStore { conn, path: path.into() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The number of rows (the sequence number of the last move).
    pub fn last_seq(&self) -> Result<u64, StoreError> {
        let n: Option<i64> = self.conn.query_row("SELECT MAX(seq) FROM events", [], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok(n.unwrap_or(0) as u64)
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

fn wrap(path: &Path, e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => StoreError::NotAGame(path.into()),
        _ => StoreError::Sqlite { path: path.into(), what: e.to_string() },
    }
}

impl EventStore for SqliteStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        let bad = |what: String| StoreError::BadRow { path: self.path.clone(), seq: 0, what };
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
            .map_err(|e| self.err(e))?
            .ok_or_else(|| bad("the game header is missing".into()))?;
        let options = serde_json::from_str(&row.4).map_err(|e| bad(format!("bad options: {e}")))?;
        Ok(GameHeader { created_at: row.0, engine_version: row.1, rules_version: row.2, seed: row.3 as u64, options, setup: row.5 })
    }

    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT seq, at, side, move_text, move_json, public_log, us_log, ussr_log, random_json, reveals, state_hash FROM events ORDER BY seq")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    record_at(r, 5)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for r in rows {
            let (seq, at, side, move_text, move_json, record) = r.map_err(|e| self.err(e))?;
            let side = Side::parse(&side).ok_or_else(|| StoreError::BadRow {
                path: self.path.clone(),
                seq: seq as u64,
                what: format!("unknown side {side:?}"),
            })?;
            out.push(EventRow { seq: seq as u64, at, side, move_text, move_json, record });
        }
        Ok(out)
    }

    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| wrap(&path, e))?;
        let last: Option<i64> = tx.query_row("SELECT MAX(seq) FROM events", [], |r| r.get(0)).map_err(|e| wrap(&path, e))?;
        if row.seq != last.unwrap_or(0) as u64 + 1 {
            return Err(StoreError::BadRow {
                path,
                seq: row.seq,
                what: format!("out of sequence: the last stored move is {}", last.unwrap_or(0)),
            });
        }
        let r = &row.record;
        tx.execute(
            "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
                r.state_hash
            ],
        )
        .map_err(|e| wrap(&path, e))?;
        tx.commit().map_err(|e| wrap(&path, e))
    }

    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM events WHERE seq > ?1", params![seq as i64]).map_err(|e| self.err(e))?;
        Ok(())
    }
}
