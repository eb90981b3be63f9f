//! The folder database's tables: the PostgreSQL store's, in SQLite's types, keyed by the
//! game's id. A game's moves, chat and documents sit together on the disk (`WITHOUT ROWID`
//! tables ordered by their keys).

/// The version of the folder database's schema this code writes (`PRAGMA user_version`).
pub const FOLDER_SCHEMA_VERSION: i64 = 1;
/// `PRAGMA application_id` of a folder database: "ARBF" (a game file's is "ARBI": neither is
/// taken for the other).
pub(super) const APPLICATION_ID: i64 = 0x4152_4246;
/// The database's name in its folder.
pub(super) const DATABASE: &str = "games.db";
/// The lock file beside it: held (exclusively) by the process that has the database open.
pub(super) const LOCK: &str = "games.lock";

pub(super) const SCHEMA: &str = "
CREATE TABLE games (
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
CREATE INDEX games_created ON games (created_at, id);
CREATE TABLE events (
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
CREATE TABLE chat (
    game_id TEXT NOT NULL REFERENCES games (id),
    id INTEGER NOT NULL,
    at TEXT NOT NULL,
    sender TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, id)
) WITHOUT ROWID;
CREATE TABLE docs (
    game_id TEXT NOT NULL REFERENCES games (id),
    name TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
) WITHOUT ROWID;
";

/// Statements naming every column the code reads or writes: a database whose tables lack one
/// (made by another program, or changed by hand) is refused when opened, not at its first
/// write.
pub(super) const COLUMNS: &[&str] = &[
    "SELECT id, game, created_at, engine_version, rules_version, seed, options_json, seats_json, setup_public_log, \
     setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, head_hash FROM games LIMIT 0",
    "SELECT game_id, seq, at, seat, move_text, move_json, random_json, reveals, public_log, seat_logs, state_hash, chain \
     FROM events LIMIT 0",
    "SELECT game_id, id, at, sender, audience, text FROM chat LIMIT 0",
    "SELECT game_id, name, json FROM docs LIMIT 0",
];

pub(super) const SELECT_HEADER: &str = "SELECT game, created_at, engine_version, rules_version, seed, options_json, seats_json, \
     setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash FROM games WHERE id = ?1";
pub(super) const SELECT_HEAD: &str = "SELECT head_seq, head_hash FROM games WHERE id = ?1";
pub(super) const SELECT_EVENTS: &str = "SELECT seq, at, seat, move_text, move_json, public_log, seat_logs, random_json, reveals, \
     state_hash, chain FROM events WHERE game_id = ?1 ORDER BY seq";
pub(super) const INSERT_GAME: &str = "INSERT INTO games (id, game, created_at, engine_version, rules_version, seed, options_json, \
     seats_json, setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, \
     head_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
pub(super) const INSERT_EVENT: &str = "INSERT INTO events (game_id, seq, at, seat, move_text, move_json, random_json, reveals, \
     public_log, seat_logs, state_hash, chain) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
pub(super) const SET_HEAD: &str = "UPDATE games SET head_seq = ?2, head_hash = ?3 WHERE id = ?1";
pub(super) const PUT_DOC: &str =
    "INSERT INTO docs (game_id, name, json) VALUES (?1, ?2, ?3) ON CONFLICT (game_id, name) DO UPDATE SET json = excluded.json";
pub(super) const INSERT_CHAT: &str = "INSERT INTO chat (game_id, id, at, sender, audience, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
