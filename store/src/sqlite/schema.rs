//! The game file's tables, and where a file of each schema version keeps what every version
//! has.

use rusqlite::Connection;

/// The schema version this code writes (`PRAGMA user_version`). Older files are upgraded when
/// opened for writing, and read as they are otherwise: version 1 had no integrity chain;
/// versions 1 and 2 (when Arbiter played one game) named no kind of game and kept one log
/// column per seat, named after it (`<seat>_log`, `setup_<seat>_log`).
pub const SCHEMA_VERSION: i64 = 3;
/// `PRAGMA application_id`: "ARBI".
pub(super) const APPLICATION_ID: i64 = 0x4152_4249;

pub(super) const SCHEMA: &str = "
CREATE TABLE game (
    id INTEGER PRIMARY KEY CHECK (id = 1),
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
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    seat TEXT NOT NULL,
    move_text TEXT NOT NULL,
    move_json TEXT NOT NULL,
    random_json TEXT NOT NULL,
    reveals INTEGER NOT NULL,
    public_log TEXT NOT NULL,
    seat_logs TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    chain TEXT NOT NULL
);
";

/// Where a file of some schema version keeps what every version has: SQL expressions
/// selecting the kind, the seats' logs (as JSON arrays) and a row's seat.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub(super) kind: &'static str,
    pub(super) setup_logs: String,
    pub(super) logs: String,
    pub(super) seat: &'static str,
    /// The seats' ids, when the file does not store them as JSON (versions 1 and 2).
    pub(super) legacy_seats: Option<Vec<String>>,
}

impl Layout {
    pub(super) fn current() -> Layout {
        Layout { kind: "game", setup_logs: "setup_seat_logs".into(), logs: "seat_logs".into(), seat: "seat", legacy_seats: None }
    }

    /// Versions 1 and 2: a log column per seat, found by name in table order.
    pub(super) fn legacy(conn: &Connection) -> rusqlite::Result<Layout> {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('game') ORDER BY cid")?;
        let names: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        let seats: Vec<String> = names
            .iter()
            .filter_map(|n| n.strip_prefix("setup_").and_then(|n| n.strip_suffix("_log")))
            .filter(|n| *n != "public" && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .map(String::from)
            .collect();
        let array =
            |prefix: &str| format!("json_array({})", seats.iter().map(|s| format!("{prefix}{s}_log")).collect::<Vec<_>>().join(", "));
        Ok(Layout { kind: "NULL", setup_logs: array("setup_"), logs: array(""), seat: "side", legacy_seats: Some(seats) })
    }
}

/// Whether the tables have the columns of the current layout (version 3).
pub(super) fn has_current_columns(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'seat_logs') + \
         (SELECT COUNT(*) FROM pragma_table_info('game') WHERE name IN ('seats_json', 'setup_seat_logs'))",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// Whether the tables have any of the columns version 2 added.
pub(super) fn has_chain_columns(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'chain') + \
         (SELECT COUNT(*) FROM pragma_table_info('game') WHERE name IN ('header_hash', 'head_seq', 'head_hash'))",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}
