//! The shared store: every game in one PostgreSQL database, so that several server processes
//! can serve them. The same ideas as the SQLite file, keyed by game id: a `games` row holds
//! the header and the integrity chain's start and head; `events` holds one
//! row per move with **PRIMARY KEY (game_id, seq)**, so that of two appends of the same move
//! number one fails; `chat` and `docs` sit beside the record, outside the chain. The chain
//! ([`crate::chain`]) and the rows are those of SQLite: the same game gives the same values in
//! both stores.
//!
//! Writing: [`EventStore::lock`] opens a transaction and locks the game's row (`SELECT … FOR
//! UPDATE`, waiting up to 10 s for another writer); `append` inserts the row and moves the
//! head; `commit` makes it durable. Only ordinary SQL is used (no advisory locks, no
//! LISTEN/NOTIFY), what PostgreSQL-compatible distributed databases (CockroachDB) also offer.
//!
//! A host keeps tables of its own beside the store's ([`PgDatabase::prepare_host_tables`],
//! [`PgDatabase::host_query`]) and may fence a handle ([`PgDatabase::fenced`]): every write to
//! a game then checks the host's condition in the write's own transaction, with the game's row
//! locked. The server's leases are such a table and such a fence.
//!
//! The client is `tokio-postgres`, its connections pooled per [`PgDatabase`] by
//! `deadpool-postgres`: 16 at most, a wait of up to 10 s for a free one (then "busy"), an
//! idle one checked open before it is handed out, and each connection's prepared statements
//! cached. A small runtime of the database's own (one thread, `arbiter-pg`) drives the
//! connections. Every call blocks its caller until the database answers, as SQLite's do: call
//! the store from a thread that may block (a server calls it from `spawn_blocking`), never
//! from an async runtime's worker. Dropping a `PgDatabase` or a `PgStore` blocks nowhere and
//! is safe on any thread; a `PgStore` dropped while it holds the write lock rolls back, on the
//! pool's runtime. A [`PgStore`] holds a connection only between `lock` and
//! `commit`/`rollback`, so thousands of loaded games need no more connections than there are
//! writes at once. No TLS: reach the database on a trusted network or a local socket.

use crate::game_id::{check_id, game_place};
use crate::record::json_strings;
use crate::record::{StoredHeader, StoredSeats};
use crate::{chain, ChatMessage, EventRow, EventStore, GameHeader, Record, StoreError};
use deadpool_postgres::tokio_postgres::{self, config::Host, error::SqlState, types::ToSql, Config, NoTls, Row};
use deadpool_postgres::{ManagerConfig, PoolError, QueueMode, RecyclingMethod, TimeoutType};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// The version of the PostgreSQL schema this code writes (the table `arbiter_schema`).
/// Version 2 keeps no lease in `games` (a version 1 database's columns `owner`,
/// `owner_address` and `lease_until` are left unused): a host keeps its own. A process of
/// version 1 refuses a database once a process of version 2 has opened it.
pub const PG_SCHEMA_VERSION: i32 = 2;
/// How long a writer waits for another writer's lock on a game, and for a free connection,
/// before "busy, try again" (SQLite's wait too).
const WAIT: Duration = Duration::from_secs(10);
/// The longest a statement may run, or a transaction stay open doing nothing, before the
/// database ends it (its locks released): well above `WAIT`, far below a stuck peer's hours.
const STATEMENT_LIMIT: Duration = Duration::from_secs(30);
/// Connections one [`PgDatabase`] opens at most (PostgreSQL's default limit is 100 for all
/// processes together).
const MAX_CONNECTIONS: usize = 16;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS arbiter_schema (
    id INT PRIMARY KEY CHECK (id = 1),
    version INT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT,
    created_at TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    seed BIGINT NOT NULL,
    options_json TEXT NOT NULL,
    seats_json TEXT NOT NULL,
    setup_public_log TEXT NOT NULL,
    setup_seat_logs TEXT NOT NULL,
    setup_random_json TEXT NOT NULL,
    setup_reveals BOOLEAN NOT NULL,
    setup_state_hash TEXT NOT NULL,
    header_hash TEXT NOT NULL,
    head_seq BIGINT NOT NULL,
    head_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL CHECK (seq > 0),
    at TEXT NOT NULL,
    seat TEXT NOT NULL,
    move_text TEXT NOT NULL,
    move_json TEXT NOT NULL,
    random_json TEXT NOT NULL,
    reveals BOOLEAN NOT NULL,
    public_log TEXT NOT NULL,
    seat_logs TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    chain TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL REFERENCES games (id),
    id BIGINT NOT NULL,
    at TEXT NOT NULL,
    sender TEXT NOT NULL,
    audience TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, id)
);
CREATE TABLE IF NOT EXISTS docs (
    game_id TEXT NOT NULL REFERENCES games (id),
    name TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
";

const SELECT_HEADER: &str = "SELECT game, created_at, engine_version, rules_version, seed, options_json, seats_json, \
     setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash FROM games WHERE id = $1";
const INSERT_GAME: &str = "INSERT INTO games (id, game, created_at, engine_version, rules_version, seed, options_json, seats_json, \
     setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, head_hash) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, $14)";
const INSERT_EVENT: &str = "INSERT INTO events (game_id, seq, at, seat, move_text, move_json, random_json, reveals, public_log, \
     seat_logs, state_hash, chain) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
const SET_HEAD: &str = "UPDATE games SET head_seq = $2, head_hash = $3 WHERE id = $1";
const LOCK_GAME: &str = "SELECT head_seq, head_hash FROM games WHERE id = $1 FOR UPDATE";
const READ_HEAD: &str = "SELECT head_seq, head_hash FROM games WHERE id = $1";
/// A host's condition on every write to a game ([`PgDatabase::fenced`]): `holds`, a statement
/// selecting one boolean with `$1` the game's id and `$2` the fence's `key`, run in the write's
/// own transaction once the game's row is locked. A write it does not allow is refused with
/// [`StoreError::LeaseLost`] and stores nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    pub holds: &'static str,
    pub key: String,
}

/// A connection taken from the pool; each call blocks the calling thread while the pool's
/// runtime drives the connection. Its prepared statements are cached with the connection
/// (`prepare_cached`): preparing is a round trip, and a move runs the same few statements
/// every time.
struct Conn {
    client: deadpool_postgres::Object,
    runtime: tokio::runtime::Handle,
    /// Whether any statement was answered since the connection was taken from the pool: a
    /// connection that fails before that sent nothing the database acted on (see [`Repeat`]).
    answered: bool,
}

impl Conn {
    /// Run `sql` (statements without parameters: `BEGIN`, `COMMIT`…).
    fn batch(&mut self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.runtime.block_on(self.client.batch_execute(sql))?;
        self.answered = true;
        Ok(())
    }

    // The statements below are `&'static str`: the connection's cache holds each text once,
    // so a text made at run time (which would grow it without end) cannot reach it.

    fn query(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, tokio_postgres::Error> {
        let client = &self.client;
        let rows = self.runtime.block_on(async { client.query(&client.prepare_cached(sql).await?, params).await })?;
        self.answered = true;
        Ok(rows)
    }

    fn query_one(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, tokio_postgres::Error> {
        let client = &self.client;
        let row = self.runtime.block_on(async { client.query_one(&client.prepare_cached(sql).await?, params).await })?;
        self.answered = true;
        Ok(row)
    }

    fn query_opt(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>, tokio_postgres::Error> {
        let client = &self.client;
        let row = self.runtime.block_on(async { client.query_opt(&client.prepare_cached(sql).await?, params).await })?;
        self.answered = true;
        Ok(row)
    }

    fn execute(&mut self, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, tokio_postgres::Error> {
        let client = &self.client;
        let n = self.runtime.block_on(async { client.execute(&client.prepare_cached(sql).await?, params).await })?;
        self.answered = true;
        Ok(n)
    }

    /// Whether the connection has ended (its server gone, its socket closed).
    fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Roll back on the pool's runtime and give the connection back there, without waiting:
    /// this blocks nowhere, so it is safe on any thread, an async runtime's too.
    fn roll_back_detached(self) {
        let Conn { client, runtime, .. } = self;
        drop(runtime.spawn(async move {
            let _ = client.batch_execute("ROLLBACK").await;
            drop(client);
        }));
    }
}

/// The connections of one [`PgDatabase`]: deadpool's pool (at most [`MAX_CONNECTIONS`]; a
/// caller waits up to [`WAIT`] for a free one, then "busy"; a connection taken from the idle
/// ones is checked open first, and a closed one dropped), and the runtime that drives them.
struct Pool {
    connections: deadpool_postgres::Pool,
    runtime: Driver,
    /// The database as messages name it (never its password).
    label: String,
    /// A fault injected by a test: `lock` reads the head without locking the row, as a writer
    /// that skipped the lock would, so that the unique key alone decides a race.
    skip_row_lock: std::sync::atomic::AtomicBool,
}

/// The runtime that drives a pool's connections: one worker thread, `arbiter-pg`. Callers
/// block on it (`block_on`, from their own threads). Dropped without waiting for its tasks
/// (`shutdown_background`): dropping a runtime the usual way panics on an async runtime's
/// thread, and the last handle of a database may be dropped there (a server at shutdown).
struct Driver {
    handle: tokio::runtime::Handle,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Driver {
    fn start() -> std::io::Result<Driver> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).thread_name("arbiter-pg").enable_all().build()?;
        Ok(Driver { handle: runtime.handle().clone(), runtime: Some(runtime) })
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Pool {
    /// A connection: an idle one (`true`: open when checked, it may still turn out closed),
    /// or a new one.
    fn get(&self) -> Result<(Conn, bool), StoreError> {
        let runtime = &self.runtime.handle;
        match runtime.block_on(self.connections.get()) {
            Ok(client) => {
                // Recycled: taken from the idle ones, not opened now.
                let reused = deadpool_postgres::Object::metrics(&client).recycle_count > 0;
                Ok((Conn { client, runtime: runtime.clone(), answered: false }, reused))
            }
            Err(PoolError::Timeout(TimeoutType::Wait)) => Err(StoreError::Busy(PathBuf::from(&self.label))),
            Err(PoolError::Backend(e)) => Err(self.error("connect", &e)),
            // Not set up for these: no timeout of its own for opening (the connection's own
            // connect timeout applies) or checking a connection, no hooks, never closed.
            Err(
                PoolError::Timeout(TimeoutType::Create | TimeoutType::Recycle)
                | PoolError::Closed
                | PoolError::NoRuntimeSpecified
                | PoolError::PostCreateHook(_),
            ) => Err(StoreError::Database { place: self.label.clone(), what: "could not connect".into() }),
        }
    }

    /// Run `f` on a connection outside a transaction; once more on a new connection if an idle
    /// one turned out closed (the database restarted since: the other idle ones are dropped
    /// too), when `repeat` allows it: never a write whose `COMMIT` may have been sent.
    /// A call the database aborted to keep it apart from another transaction (SQLSTATE 40001
    /// or 40P01: nothing of it was stored) is run again after [`contention_backoff`], and
    /// answers [`StoreError::Busy`] when that gives up.
    fn run<T>(&self, repeat: Repeat, mut f: impl FnMut(&mut Conn) -> Result<T, Failure>) -> Result<T, Failure> {
        let mut attempt = 0;
        loop {
            match self.run_once(repeat, &mut f) {
                Err(Failure::Pg(e)) if e.code().is_some_and(contended) => match contention_backoff(attempt) {
                    Some(pause) => {
                        attempt += 1;
                        std::thread::sleep(pause);
                    }
                    None => return Err(Failure::Store(StoreError::Busy(PathBuf::from(&self.label)))),
                },
                other => return other,
            }
        }
    }

    fn run_once<T>(&self, repeat: Repeat, f: &mut impl FnMut(&mut Conn) -> Result<T, Failure>) -> Result<T, Failure> {
        let (mut conn, reused) = self.get().map_err(Failure::Store)?;
        let result = f(&mut conn);
        let closed = conn.is_closed();
        let sent = conn.answered;
        // Back to the pool (a closed one is dropped by the check when next taken).
        drop(conn);
        let again = match repeat {
            Repeat::Always => true,
            Repeat::UntilAnswered => !sent,
        };
        match result {
            Err(Failure::Pg(_)) if closed && reused && again => {
                self.drop_idle();
                let (mut conn, _) = self.get().map_err(Failure::Store)?;
                f(&mut conn)
            }
            other => other,
        }
    }

    /// Close every idle connection (they outlived their server, though their sockets may not
    /// say so yet).
    fn drop_idle(&self) {
        let _ = self.connections.retain(|_, _| false);
    }

    /// What a failed database call means, `doing` being what was attempted; never the driver's
    /// wording.
    fn error(&self, doing: &str, e: &tokio_postgres::Error) -> StoreError {
        let place = PathBuf::from(&self.label);
        let what = |what: String| StoreError::Database { place: self.label.clone(), what };
        let Some(code) = e.code() else {
            use std::error::Error as _;
            let io = e.source().is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
            return if e.is_closed() || io {
                what(format!("the database cannot be reached (to {doing})"))
            } else {
                what(format!("could not {doing}"))
            };
        };
        if contended(code) {
            StoreError::Contended(place)
        } else if *code == SqlState::LOCK_NOT_AVAILABLE
            || *code == SqlState::QUERY_CANCELED
            || *code == SqlState::TOO_MANY_CONNECTIONS
            || *code == SqlState::CANNOT_CONNECT_NOW
        {
            StoreError::Busy(place)
        } else if *code == SqlState::DISK_FULL {
            StoreError::WriteFailed { path: place, what: "the database's disk is full".into() }
        } else if *code == SqlState::INSUFFICIENT_PRIVILEGE {
            what(format!("no permission to {doing}"))
        } else if *code == SqlState::INVALID_PASSWORD || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
            what("the database refused the login (user or password)".into())
        } else if *code == SqlState::INVALID_CATALOG_NAME {
            what("no such database".into())
        } else if *code == SqlState::UNDEFINED_TABLE || *code == SqlState::UNDEFINED_COLUMN {
            what("the database lacks Arbiter's tables (or has others of the same names)".into())
        } else if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
            StoreError::ReadOnly(place)
        } else {
            what(format!("could not {doing}"))
        }
    }
}

/// Whether [`Pool::run`] may run a call again on a new connection when the idle one it took
/// turned out closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repeat {
    /// Doing it twice does no harm: a read, a lease taken, renewed or released, a document
    /// replaced by the same text.
    Always,
    /// A write transaction, repeated only if the connection failed before any statement was
    /// answered: its first statement is its `BEGIN`, so nothing of the write reached the
    /// database. Once anything was answered its `COMMIT` may have been sent and acted on.
    UntilAnswered,
}

/// What a write whose `COMMIT` got no answer did, asked again on another connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Settled {
    Stored,
    Absent,
    /// The database could not be asked (unreachable still, or the lost transaction's backend
    /// held the game's row past the lock's wait), or its answer fits neither.
    Unknown,
}

/// Whether the database aborted a transaction to keep it apart from another, so that running
/// it again is safe and may succeed: a serialization failure (40001, which CockroachDB also
/// uses for "restart transaction") or a deadlock (40P01). Not 40003 (the outcome unknown:
/// settled, never repeated) nor a lock wait that timed out (55P03: busy).
fn contended(code: &SqlState) -> bool {
    *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED
}

/// How long to wait before running a contended write again for the `attempt`-th time (0 the
/// first), or `None` to give up (busy): 5 attempts in all, about 10, 20, 40 and 80 ms apart,
/// each stretched by up to half again so that writers that collided do not collide again in
/// step.
pub(crate) fn contention_backoff(attempt: u32) -> Option<Duration> {
    const RETRIES: u32 = 4;
    if attempt >= RETRIES {
        return None;
    }
    let base = 10u64 << attempt;
    // Jitter from the clock's nanoseconds: no generator needed for spreading a few retries.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    Some(Duration::from_millis(base + u64::from(nanos) % (base / 2 + 1)))
}

/// Whether a failed `COMMIT` got no answer (its connection `c` lost, or CockroachDB's "result
/// is ambiguous"): the database may or may not have the write.
fn unanswered(c: &Conn, e: &tokio_postgres::Error) -> bool {
    c.is_closed() || e.code() == Some(&SqlState::T_R_STATEMENT_COMPLETION_UNKNOWN)
}

/// `COMMIT` on `c`; [`StoreError::Unconfirmed`] if it got no answer (the write may or may not
/// be stored), for writes not worth settling (a deletion, a restored chat).
fn commit_or_unconfirmed(c: &mut Conn, place: &std::path::Path) -> Result<(), Failure> {
    match c.batch("COMMIT") {
        Ok(()) => Ok(()),
        Err(e) if unanswered(c, &e) => Err(Failure::Store(StoreError::Unconfirmed(place.to_path_buf()))),
        Err(e) => Err(Failure::Pg(e)),
    }
}

/// A failure inside the store: already a [`StoreError`], or the driver's, to be named.
enum Failure {
    Store(StoreError),
    Pg(tokio_postgres::Error),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Pg(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// A PostgreSQL database of saved games: its connection settings and a small pool of
/// connections (clonable, shared; `Send + Sync`).
#[derive(Clone)]
pub struct PgDatabase {
    pool: Arc<Pool>,
    /// The host's condition on this handle's writes ([`PgDatabase::fenced`]), if any.
    fence: Option<Arc<Fence>>,
}

impl std::fmt::Debug for PgDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PgDatabase").field(&self.pool.label).finish()
    }
}

impl PgDatabase {
    /// Connect to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or
    /// `host=/socket/folder` in a URL's query), checking that it answers, and create the
    /// schema or check it: a database written by a newer Arbiter is refused.
    pub fn connect(url: &str) -> Result<PgDatabase, StoreError> {
        let mut config = Config::from_str(url).map_err(|_| StoreError::Database {
            place: "the PostgreSQL store".into(),
            what: "its URL cannot be read (expected postgres://USER@HOST[:PORT]/DATABASE)".into(),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(WAIT);
        }
        if config.get_application_name().is_none() {
            config.application_name("arbiter");
        }
        // A peer gone silent (its machine lost, a network cut) is noticed in about a minute,
        // not after the operating system's two hours of keepalive: a write lock it held would
        // otherwise block its game that long. And no statement or open transaction of this
        // process waits forever behind another's row lock (the lease statements included;
        // `lock` bounds its own wait further). Options the URL sets itself are kept.
        config.keepalives(true).keepalives_idle(Duration::from_secs(30)).tcp_user_timeout(Duration::from_secs(60));
        if config.get_options().is_none() {
            config.options(format!(
                "-c statement_timeout={} -c idle_in_transaction_session_timeout={}",
                STATEMENT_LIMIT.as_millis(),
                STATEMENT_LIMIT.as_millis()
            ));
        }
        let host = config
            .get_hosts()
            .iter()
            .map(|h| match h {
                Host::Tcp(name) => name.clone(),
                Host::Unix(folder) => folder.display().to_string(),
            })
            .next()
            .unwrap_or_else(|| "localhost".into());
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let db = config.get_dbname().or(config.get_user()).unwrap_or("postgres");
        let label = format!("PostgreSQL database {db} at {host}:{port}");
        let unready = |what: &str| StoreError::Database { place: label.clone(), what: what.into() };
        let runtime = Driver::start().map_err(|_| unready("the thread that drives its connections cannot be started"))?;
        // The fast check (is the connection open?), with no round trip: a connection that
        // passes it and then fails is met by `Repeat`. The most recently used idle connection
        // is taken first (the others may close by their server's idle timeouts).
        let manager = deadpool_postgres::Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let connections = deadpool_postgres::Pool::builder(manager)
            .max_size(MAX_CONNECTIONS)
            .wait_timeout(Some(WAIT))
            .queue_mode(QueueMode::Lifo)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|_| unready("its connection pool cannot be set up"))?;
        let pool = Pool { connections, runtime, label, skip_row_lock: Default::default() };
        let db = PgDatabase { pool: Arc::new(pool), fence: None };
        db.prepare_schema()?;
        Ok(db)
    }

    /// This handle, its writes to a game (moves, undos, documents, chat) stored only while
    /// `fence` holds, checked under the game's row lock in the write's own transaction; else
    /// [`StoreError::LeaseLost`] and nothing is stored. Creating, importing and deleting a game
    /// are not fenced.
    pub fn fenced(mut self, fence: Fence) -> PgDatabase {
        self.fence = Some(Arc::new(fence));
        self
    }

    /// Fault injection for tests, never for use: this handle's writes read the game's head
    /// without locking its row (as a writer that skipped the lock would), so that only the
    /// store's unique key on (game, move number) stands between two writers of one move.
    #[doc(hidden)]
    pub fn fault_skip_row_lock(&self) {
        self.pool.skip_row_lock.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Create a host's tables beside the store's: `sql`, statements without parameters that
    /// are safe to run again (`CREATE TABLE IF NOT EXISTS …`; several processes may start at
    /// once).
    pub fn prepare_host_tables(&self, sql: &'static str) -> Result<(), StoreError> {
        let mut tries = 0;
        loop {
            tries += 1;
            match self.run("create the host's tables", Repeat::Always, |c| Ok(c.batch(sql)?)) {
                // Another process created them at the same moment (PostgreSQL's `IF NOT
                // EXISTS` does not keep two creations apart).
                Err(StoreError::Database { .. } | StoreError::Busy(_)) if tries < 3 => std::thread::sleep(Duration::from_millis(100)),
                other => return other,
            }
        }
    }

    /// Run a host's statement `sql` with `params`, and its rows: one statement, in a
    /// transaction of its own. It is run once more on a new connection if the one it took
    /// turned out closed, so it must be safe to run twice.
    pub fn host_query(&self, doing: &str, sql: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
        self.run(doing, Repeat::Always, |c| Ok(c.query(sql, params)?))
    }

    /// The database as messages name it ("PostgreSQL database DB at HOST:PORT").
    pub fn label(&self) -> &str {
        &self.pool.label
    }

    fn run<T>(&self, doing: &str, repeat: Repeat, f: impl FnMut(&mut Conn) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.pool.run(repeat, f).map_err(|e| match e {
            Failure::Store(e) => e,
            Failure::Pg(e) => self.pool.error(doing, &e),
        })
    }

    /// Create the tables if missing (several processes may start at once: a lost race to
    /// create them is tried again), then check the schema's version.
    fn prepare_schema(&self) -> Result<(), StoreError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let made = self.run("create Arbiter's tables", Repeat::Always, |c| {
                let found = c.query_one("SELECT to_regclass('arbiter_schema') IS NOT NULL, to_regclass('games') IS NOT NULL", &[])?;
                let (ours, games): (bool, bool) = (found.try_get(0)?, found.try_get(1)?);
                if !ours && games {
                    return Err(Failure::Store(StoreError::Database {
                        place: self.pool.label.clone(),
                        what: "it has a table `games` that Arbiter did not make: give Arbiter a database of its own".into(),
                    }));
                }
                if !ours {
                    c.batch("BEGIN")?;
                    let created = (|| -> Result<(), Failure> {
                        c.batch(SCHEMA)?;
                        c.execute(
                            "INSERT INTO arbiter_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
                            &[&PG_SCHEMA_VERSION],
                        )?;
                        Ok(())
                    })();
                    match created {
                        Ok(()) => c.batch("COMMIT")?,
                        Err(e) => {
                            let _ = c.batch("ROLLBACK");
                            return Err(e);
                        }
                    }
                }
                let version: i32 = c.query_one("SELECT version FROM arbiter_schema WHERE id = 1", &[])?.try_get(0)?;
                if version == 1 {
                    // Version 1's lease columns are left as they are, unused.
                    c.execute("UPDATE arbiter_schema SET version = $1 WHERE id = 1 AND version = 1", &[&PG_SCHEMA_VERSION])?;
                    return Ok(PG_SCHEMA_VERSION);
                }
                Ok(version)
            });
            match made {
                Ok(v) if v > PG_SCHEMA_VERSION => {
                    return Err(StoreError::NewerSchema { path: self.label().into(), found: v.into(), supported: PG_SCHEMA_VERSION.into() })
                }
                Ok(v) if v < 1 => {
                    return Err(StoreError::UnknownSchema {
                        path: self.label().into(),
                        found: v.into(),
                        supported: PG_SCHEMA_VERSION.into(),
                    })
                }
                Ok(_) => return Ok(()),
                // Another process created the tables at the same moment.
                Err(StoreError::Database { .. } | StoreError::Busy(_)) if tries < 3 => std::thread::sleep(Duration::from_millis(100)),
                Err(e) => return Err(e),
            }
        }
    }

    fn store(&self, id: &str) -> PgStore {
        PgStore {
            db: self.clone(),
            id: id.into(),
            place: game_place(id),
            locked: RefCell::new(None),
            begun: RefCell::new((0, String::new())),
            seats: OnceCell::new(),
        }
    }

    /// Create game `id` from its header, with no moves yet; fails if the id is taken.
    pub fn create_game(&self, id: &str, header: &GameHeader) -> Result<PgStore, StoreError> {
        self.import_game(id, header, &[])
    }

    /// Create game `id` with `rows` as they are (their times, logs and random outcomes), the
    /// chain computed over them as any append would: one transaction, so a failure leaves
    /// nothing. Fails if the id is taken or the rows are not numbered 1, 2, 3…
    pub fn import_game(&self, id: &str, header: &GameHeader, rows: &[EventRow]) -> Result<PgStore, StoreError> {
        check_id(id)?;
        let place = game_place(id);
        for (i, row) in rows.iter().enumerate() {
            if row.seq != i as u64 + 1 {
                return Err(StoreError::BadRow { path: place, seq: row.seq, what: format!("out of sequence: expected move {}", i + 1) });
            }
            if header.seats.get(row.seat.idx()).is_none() {
                return Err(StoreError::BadRow { path: place, seq: row.seq, what: format!("no seat {} in this game", row.seat.0) });
            }
        }
        let start = chain::start(header);
        let s = &header.setup;
        let mut end = start.clone();
        let answered = self.run("create the game", Repeat::UntilAnswered, |c| {
            c.batch("BEGIN")?;
            let result = (|| {
                let created = c.execute(
                    INSERT_GAME,
                    &[
                        &id,
                        &header.game,
                        &header.created_at,
                        &header.engine_version,
                        &header.rules_version,
                        &(header.seed as i64),
                        &header.options,
                        &json_strings(&header.seats),
                        &s.public_log,
                        &json_strings(&s.seat_logs),
                        &s.random_json,
                        &s.reveals,
                        &s.state_hash,
                        &start,
                    ],
                );
                match created {
                    Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                        return Err(Failure::Store(StoreError::Exists(place.clone())))
                    }
                    other => other?,
                };
                let mut h = start.clone();
                end = start.clone();
                for row in rows {
                    h = insert_event(c, id, row, &h, &header.seats).map_err(|e| match e {
                        Failure::Pg(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                            Failure::Store(StoreError::Conflict { path: place.clone(), seq: row.seq })
                        }
                        other => other,
                    })?;
                }
                c.execute(SET_HEAD, &[&id, &(rows.len() as i64), &h])?;
                end = h;
                Ok(())
            })();
            match result {
                Ok(()) => match c.batch("COMMIT") {
                    Ok(()) => Ok(true),
                    // No answer to the COMMIT: settled below, on another connection.
                    Err(e) if unanswered(c, &e) => Ok(false),
                    Err(e) => Err(Failure::Pg(e)),
                },
                Err(e) => {
                    let _ = c.batch("ROLLBACK");
                    Err(e)
                }
            }
        })?;
        if !answered {
            match self.settle_import(id, &start, rows.len() as u64, &end) {
                Settled::Stored => {}
                Settled::Absent => {
                    return Err(StoreError::WriteFailed {
                        path: place,
                        what: "the connection to the database was lost before the game was committed, and the database, asked \
                               again on a new connection, does not hold it"
                            .into(),
                    })
                }
                Settled::Unknown => return Err(StoreError::Unconfirmed(place)),
            }
        }
        Ok(self.store(id))
    }

    /// Whether game `id`, created from header hash `start` with `moves` moves ending at chain
    /// value `end`, is stored, after its `COMMIT` got no answer. The lost transaction inserted
    /// the game's row, which no `SELECT` sees until it commits: an insert of the same id
    /// waits for it to end instead (then rolled back), so the answer is never read while the
    /// lost transaction may still commit.
    fn settle_import(&self, id: &str, start: &str, moves: u64, end: &str) -> Settled {
        let asked = self.pool.run(Repeat::Always, |c| {
            c.batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))?;
            let found = (|| -> Result<Settled, Failure> {
                let free = c.query_opt(
                    "INSERT INTO games (id, created_at, engine_version, rules_version, seed, options_json, seats_json, \
                     setup_public_log, setup_seat_logs, setup_random_json, setup_reveals, setup_state_hash, header_hash, head_seq, \
                     head_hash) VALUES ($1, '', '', '', 0, '{}', '[]', '', '[]', '', false, '', '', 0, '') \
                     ON CONFLICT (id) DO NOTHING RETURNING id",
                    &[&id],
                )?;
                if free.is_some() {
                    return Ok(Settled::Absent);
                }
                let Some(game) = c.query_opt("SELECT header_hash, head_seq, head_hash FROM games WHERE id = $1", &[&id])? else {
                    return Ok(Settled::Unknown);
                };
                let (header_hash, head_seq, head_hash): (String, i64, String) = (game.try_get(0)?, game.try_get(1)?, game.try_get(2)?);
                // Another game of the same id (made after ours was lost) is not ours.
                Ok(if header_hash == start && head_seq == moves as i64 && head_hash == end { Settled::Stored } else { Settled::Absent })
            })();
            let _ = c.batch("ROLLBACK");
            found
        });
        asked.unwrap_or(Settled::Unknown)
    }

    /// Open game `id` (a [`StoreError::NoSuchGame`] if there is none). Nothing is read yet:
    /// [`crate::Session::load`] reads and verifies it.
    pub fn open_game(&self, id: &str) -> Result<PgStore, StoreError> {
        check_id(id)?;
        let found =
            self.run("find the game", Repeat::Always, |c| Ok(c.query_opt("SELECT 1 FROM games WHERE id = $1", &[&id])?.is_some()))?;
        if !found {
            return Err(StoreError::NoSuchGame(game_place(id)));
        }
        Ok(self.store(id))
    }

    /// Every game's id, the oldest first (by creation time, then id).
    pub fn game_ids(&self) -> Result<Vec<String>, StoreError> {
        self.run("list the games", Repeat::Always, |c| {
            let rows = c.query("SELECT id FROM games ORDER BY created_at, id", &[])?;
            Ok(rows.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?)
        })
    }

    /// Delete game `id` with its moves, chat and documents (one transaction).
    pub fn delete_game(&self, id: &str) -> Result<(), StoreError> {
        check_id(id)?;
        let deleted = self.run("delete the game", Repeat::UntilAnswered, |c| {
            c.batch("BEGIN")?;
            let deleted = (|| -> Result<u64, Failure> {
                for sql in
                    ["DELETE FROM docs WHERE game_id = $1", "DELETE FROM chat WHERE game_id = $1", "DELETE FROM events WHERE game_id = $1"]
                {
                    c.execute(sql, &[&id])?;
                }
                Ok(c.execute("DELETE FROM games WHERE id = $1", &[&id])?)
            })();
            match deleted {
                Ok(n) => {
                    commit_or_unconfirmed(c, &game_place(id))?;
                    Ok(n)
                }
                Err(e) => {
                    let _ = c.batch("ROLLBACK");
                    Err(e)
                }
            }
        })?;
        if deleted == 0 {
            return Err(StoreError::NoSuchGame(game_place(id)));
        }
        Ok(())
    }

    /// The host's document `name` of game `id` (opaque JSON text, outside the integrity chain:
    /// the server keeps its seats here), if stored.
    pub fn doc(&self, id: &str, name: &str) -> Result<Option<String>, StoreError> {
        self.run("read a document of the game", Repeat::Always, |c| {
            let row = c.query_opt("SELECT json FROM docs WHERE game_id = $1 AND name = $2", &[&id, &name])?;
            Ok(row.map(|r| r.try_get(0)).transpose()?)
        })
    }

    /// Every game's document `name`, as (game id, JSON text), the oldest game first (by
    /// creation time, then id), in one query: a host that reads one document of every game
    /// (the server's lobby, each second) costs one round trip, not one per game.
    pub fn docs(&self, name: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.run("read the games' documents", Repeat::Always, |c| {
            let rows = c.query(
                "SELECT d.game_id, d.json FROM docs d JOIN games g ON g.id = d.game_id WHERE d.name = $1 ORDER BY g.created_at, g.id",
                &[&name],
            )?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                out.push((r.try_get(0)?, r.try_get(1)?));
            }
            Ok(out)
        })
    }

    /// Store (or replace) the host's document `name` of game `id` (a fenced handle: only while
    /// its fence holds, checked under the game's row lock).
    pub fn put_doc(&self, id: &str, name: &str, json: &str) -> Result<(), StoreError> {
        const PUT: &str =
            "INSERT INTO docs (game_id, name, json) VALUES ($1, $2, $3) ON CONFLICT (game_id, name) DO UPDATE SET json = EXCLUDED.json";
        let no_game = |e: &tokio_postgres::Error| e.code() == Some(&SqlState::FOREIGN_KEY_VIOLATION);
        let Some(fence) = self.fence.as_deref() else {
            return self.run("store a document of the game", Repeat::Always, |c| match c.execute(PUT, &[&id, &name, &json]) {
                Err(e) if no_game(&e) => Err(Failure::Store(StoreError::NoSuchGame(game_place(id)))),
                other => Ok(other.map(|_| ())?),
            });
        };
        // Replacing a document by the same text twice does no harm: repeated on a lost answer.
        self.run("store a document of the game", Repeat::Always, |c| {
            c.batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))?;
            let put = locked_head(c, id, Some(fence), true).and_then(|_| Ok(c.execute(PUT, &[&id, &name, &json])?));
            match put {
                Ok(_) => commit_or_unconfirmed(c, &game_place(id)),
                Err(e) => {
                    let _ = c.batch("ROLLBACK");
                    Err(e)
                }
            }
        })
    }

    /// The number of moves of each game of `ids` that exists, in the order asked (one query: a
    /// process following games others own polls this).
    pub fn heads(&self, ids: &[String]) -> Result<Vec<(String, u64)>, StoreError> {
        let found: HashMap<String, u64> = self.run("read the games' heads", Repeat::Always, |c| {
            let rows = c.query("SELECT id, head_seq FROM games WHERE id = ANY($1)", &[&ids])?;
            let mut out = HashMap::with_capacity(rows.len());
            for r in rows {
                out.insert(r.try_get::<_, String>(0)?, r.try_get::<_, i64>(1)?.max(0) as u64);
            }
            Ok(out)
        })?;
        Ok(ids.iter().filter_map(|id| found.get(id).map(|seq| (id.clone(), *seq))).collect())
    }
}

/// Inside a transaction on `c`: game `id`'s head, its row locked (read only, when `lock` is
/// false: a fault injected by a test), and refused with [`StoreError::LeaseLost`] if `fence`
/// does not hold now (asked once the row is locked, so that its answer stands until the
/// commit for whoever takes that row's lock to change what it reads).
fn locked_head(c: &mut Conn, id: &str, fence: Option<&Fence>, lock: bool) -> Result<(u64, String), Failure> {
    let place = || game_place(id);
    let row = c.query_opt(if lock { LOCK_GAME } else { READ_HEAD }, &[&id])?;
    let row = row.ok_or_else(|| Failure::Store(StoreError::NoSuchGame(place())))?;
    if let Some(fence) = fence {
        let holds = c.query_opt(fence.holds, &[&id, &fence.key])?.map(|r| r.try_get::<_, Option<bool>>(0)).transpose()?.flatten();
        if holds != Some(true) {
            return Err(Failure::Store(StoreError::LeaseLost(place())));
        }
    }
    Ok((row.try_get::<_, i64>(0)?.max(0) as u64, row.try_get::<_, String>(1)?))
}

/// Insert `row` after chain value `prev`; the chain value after it.
fn insert_event(c: &mut Conn, id: &str, row: &EventRow, prev: &str, seats: &[String]) -> Result<String, Failure> {
    let seat = seats.get(row.seat.idx()).ok_or_else(|| {
        Failure::Store(StoreError::BadRow { path: game_place(id), seq: row.seq, what: format!("no seat {} in this game", row.seat.0) })
    })?;
    let h = chain::extend(prev, row, seats);
    let r = &row.record;
    c.execute(
        INSERT_EVENT,
        &[
            &id,
            &(row.seq as i64),
            &row.at,
            seat,
            &row.move_text,
            &row.move_json,
            &r.random_json,
            &r.reveals,
            &r.public_log,
            &json_strings(&r.seat_logs),
            &r.state_hash,
            &h,
        ],
    )?;
    Ok(h)
}

/// One game of a [`PgDatabase`]: an [`EventStore`], and its chat.
pub struct PgStore {
    db: PgDatabase,
    id: String,
    place: PathBuf,
    /// Between `lock` and `commit`/`rollback`: the connection whose transaction holds the
    /// game's row, and the head as it stands in that transaction.
    locked: RefCell<Option<(Conn, (u64, String))>>,
    /// The head when the write lock was taken: what a lost `COMMIT` is settled against.
    begun: RefCell<(u64, String)>,
    /// The seats' ids, read once (a game's seats never change).
    seats: OnceCell<Vec<String>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("db", &self.db.pool.label).field("id", &self.id).finish()
    }
}

/// A `Record` from five columns starting at `at`: the public log, the seats' logs (a JSON
/// array), random outcomes, reveals, state hash; what is wrong if the seats' logs cannot be
/// read.
fn record_at(r: &Row, at: usize) -> Result<Result<Record, &'static str>, tokio_postgres::Error> {
    let logs: String = r.try_get(at + 1)?;
    let seat_logs = match Record::seat_logs_from(&logs) {
        Ok(l) => l,
        Err(what) => return Ok(Err(what)),
    };
    Ok(Ok(Record {
        public_log: r.try_get(at)?,
        seat_logs,
        random_json: r.try_get(at + 2)?,
        reveals: r.try_get(at + 3)?,
        state_hash: r.try_get(at + 4)?,
    }))
}

impl PgStore {
    /// The game's id in its database.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The database the game is in.
    pub fn database(&self) -> &PgDatabase {
        &self.db
    }

    /// The host's document `name` of this game ([`PgDatabase::doc`]).
    pub fn doc(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.db.doc(&self.id, name)
    }

    /// Store the host's document `name` of this game ([`PgDatabase::put_doc`]).
    pub fn put_doc(&self, name: &str, json: &str) -> Result<(), StoreError> {
        self.db.put_doc(&self.id, name, json)
    }

    fn error(&self, doing: &str, e: Failure) -> StoreError {
        match e {
            Failure::Store(e) => e,
            Failure::Pg(e) => self.db.pool.error(doing, &e),
        }
    }

    /// Run `f` on the locked connection if the lock is held (to read what this transaction
    /// wrote), else on a pooled one.
    fn read<T>(&self, doing: &str, repeat: Repeat, mut f: impl FnMut(&mut Conn) -> Result<T, Failure>) -> Result<T, StoreError> {
        if let Some((conn, _)) = self.locked.borrow_mut().as_mut() {
            return f(conn).map_err(|e| self.error(doing, e));
        }
        self.db.pool.run(repeat, f).map_err(|e| self.error(doing, e))
    }

    fn header_on(&self, c: &mut Conn) -> Result<GameHeader, Failure> {
        let damaged = |what: String| Failure::Store(StoreError::Damaged { path: self.place.clone(), seq: 0, what });
        let row = c.query_opt(SELECT_HEADER, &[&self.id])?.ok_or_else(|| Failure::Store(StoreError::NoSuchGame(self.place.clone())))?;
        let typed = (|| -> Result<_, tokio_postgres::Error> {
            Ok((
                row.try_get::<_, Option<String>>(0)?,
                row.try_get::<_, String>(1)?,
                row.try_get::<_, String>(2)?,
                row.try_get::<_, String>(3)?,
                row.try_get::<_, i64>(4)?,
                row.try_get::<_, String>(5)?,
                row.try_get::<_, String>(6)?,
                record_at(&row, 7)?,
            ))
        })();
        let (game, created_at, engine_version, rules_version, seed, options, seats, setup) =
            typed.map_err(|_| damaged("a stored value has the wrong type".into()))?;
        let seats = StoredSeats::Json(seats);
        StoredHeader { game, created_at, engine_version, rules_version, seed, options, seats, setup }.check().map_err(damaged)
    }

    /// The rows, checked against the chain, and the head they were checked against.
    fn rows_on(&self, c: &mut Conn) -> Result<(Vec<EventRow>, (u64, String)), Failure> {
        let header = self.header_on(c)?;
        let game = c
            .query_opt("SELECT header_hash, head_seq, head_hash FROM games WHERE id = $1", &[&self.id])?
            .ok_or_else(|| Failure::Store(StoreError::NoSuchGame(self.place.clone())))?;
        let (header_hash, head_seq, head_hash): (String, i64, String) = (game.try_get(0)?, game.try_get(1)?, game.try_get(2)?);
        let mut h = chain::start(&header);
        if header_hash != h {
            return Err(Failure::Store(StoreError::Damaged {
                path: self.place.clone(),
                seq: 0,
                what: "its header (creation, versions, seed, options or setup) does not match the integrity chain".into(),
            }));
        }
        let rows = c.query(
            "SELECT seq, at, seat, move_text, move_json, public_log, seat_logs, random_json, reveals, state_hash, chain \
             FROM events WHERE game_id = $1 ORDER BY seq",
            &[&self.id],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let seq = i as u64 + 1;
            let damaged = |what: String| Failure::Store(StoreError::Damaged { path: self.place.clone(), seq, what });
            let typed = (|| -> Result<_, tokio_postgres::Error> {
                Ok((
                    r.try_get::<_, i64>(0)?,
                    r.try_get::<_, String>(1)?,
                    r.try_get::<_, String>(2)?,
                    r.try_get::<_, String>(3)?,
                    r.try_get::<_, String>(4)?,
                    record_at(r, 5)?,
                    r.try_get::<_, String>(10)?,
                ))
            })();
            let (stored_seq, at, seat, move_text, move_json, record, stored_chain) =
                typed.map_err(|_| damaged("a stored value has the wrong type".into()))?;
            let stored = chain::Stored { seq: stored_seq, at, seat, move_text, move_json, record, chain: stored_chain };
            out.push(chain::check_row(&header, seq, stored, &mut h, true).map_err(damaged)?);
        }
        let found = out.len() as u64;
        let head_seq = head_seq.max(0) as u64;
        if head_seq > found {
            return Err(Failure::Store(StoreError::Truncated { path: self.place.clone(), head: head_seq, found }));
        }
        if head_seq != found || head_hash != h {
            return Err(Failure::Store(StoreError::Damaged {
                path: self.place.clone(),
                seq: 0,
                what: "its record of the last move does not match the moves stored".into(),
            }));
        }
        Ok((out, (found, h)))
    }

    /// What became of a write from head `begun` to head `end` whose `COMMIT` got no answer,
    /// asked on another connection under the game's row lock: the lost transaction updated
    /// that row, so the lock waits until it has ended (committed or rolled back) if its backend
    /// still holds it, up to the lock's wait. An append is stored if the row of its move
    /// number holds its chain value (which covers the whole record up to it); an undo if the
    /// last row it removed is gone and the head is where it left it. A write that was stored
    /// and then undone by another process reads as absent: the record no longer holds it
    /// either way.
    fn settle(&self, begun: &(u64, String), end: &(u64, String)) -> Settled {
        if begun == end {
            // Nothing was written: nothing to lose.
            return Settled::Stored;
        }
        let id = self.id.as_str();
        let asked = self.db.pool.run(Repeat::Always, |c| {
            c.batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))?;
            let found = (|| -> Result<Settled, Failure> {
                let Some(head) = c.query_opt(LOCK_GAME, &[&id])? else { return Ok(Settled::Absent) };
                let head = (head.try_get::<_, i64>(0)?.max(0) as u64, head.try_get::<_, String>(1)?);
                let chain_at = |c: &mut Conn, seq: u64| -> Result<Option<String>, Failure> {
                    let row = c.query_opt("SELECT chain FROM events WHERE game_id = $1 AND seq = $2", &[&id, &(seq as i64)])?;
                    Ok(row.map(|r| r.try_get(0)).transpose()?)
                };
                Ok(if end.0 > begun.0 {
                    if chain_at(c, end.0)?.as_deref() == Some(end.1.as_str()) {
                        Settled::Stored
                    } else {
                        Settled::Absent
                    }
                } else if chain_at(c, begun.0)?.as_deref() == Some(begun.1.as_str()) {
                    Settled::Absent
                } else if head == *end {
                    Settled::Stored
                } else {
                    Settled::Unknown
                })
            })();
            let _ = c.batch("ROLLBACK");
            found
        });
        asked.unwrap_or(Settled::Unknown)
    }

    fn in_lock(&self) -> Result<(), StoreError> {
        if self.locked.borrow().is_none() {
            return Err(StoreError::WriteFailed { path: self.place.clone(), what: "a write outside the write lock (engine fault)".into() });
        }
        Ok(())
    }

    /// Run `f` on the locked connection with the head of the transaction.
    fn write<T>(&self, doing: &str, f: impl FnOnce(&mut Conn, &mut (u64, String)) -> Result<T, Failure>) -> Result<T, StoreError> {
        self.in_lock()?;
        let mut locked = self.locked.borrow_mut();
        let (conn, head) = locked.as_mut().expect("checked");
        f(conn, head).map_err(|e| self.error(doing, e))
    }

    /// The game's chat, in the order stored.
    pub fn chat(&self) -> Result<Vec<ChatMessage>, StoreError> {
        self.read("read the chat", Repeat::Always, |c| {
            let rows = c.query("SELECT id, at, sender, audience, text FROM chat WHERE game_id = $1 ORDER BY id", &[&self.id])?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                out.push(ChatMessage {
                    id: r.try_get::<_, i64>(0)?.max(0) as u64,
                    at: r.try_get(1)?,
                    from: r.try_get(2)?,
                    to: r.try_get(3)?,
                    text: r.try_get(4)?,
                });
            }
            Ok(out)
        })
    }

    /// How many chat messages the game holds.
    pub fn chat_len(&self) -> Result<u64, StoreError> {
        self.read("count the chat", Repeat::Always, |c| {
            let row = c.query_opt("SELECT COUNT(*) FROM chat WHERE game_id = $1", &[&self.id])?;
            Ok(row.map(|r| r.try_get::<_, i64>(0)).transpose()?.unwrap_or(0).max(0) as u64)
        })
    }

    /// Store a chat message (durably, on its own; never inside a move's write), numbered after
    /// the last. Writers of one game's chat take turns on the game's row (as moves do, so a
    /// message waits for a move being stored): numbering under a lock, where retrying after a
    /// lost race let a writer lose every time to a faster one.
    pub fn add_chat(&self, from: &str, to: &str, text: &str) -> Result<ChatMessage, StoreError> {
        if self.locked.borrow().is_some() {
            return Err(StoreError::WriteFailed {
                path: self.place.clone(),
                what: "a chat message inside a move's write (engine fault)".into(),
            });
        }
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let id = self.read("store the chat message", Repeat::UntilAnswered, |c| {
            c.batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))?;
            let added = (|| -> Result<i64, Failure> {
                locked_head(c, &self.id, self.db.fence.as_deref(), true)?;
                let row = c.query_opt(
                    "INSERT INTO chat (game_id, id, at, sender, audience, text) \
                     SELECT $1, COALESCE(MAX(id), 0) + 1, $2, $3, $4, $5 FROM chat WHERE game_id = $1 RETURNING id",
                    &[&self.id, &at, &from, &to, &text],
                )?;
                Ok(row.map(|r| r.try_get::<_, i64>(0)).transpose()?.unwrap_or(0))
            })();
            match added {
                Ok(id) => match c.batch("COMMIT") {
                    Ok(()) => Ok((id, true)),
                    // No answer to the COMMIT: settled below, on another connection.
                    Err(e) if unanswered(c, &e) => Ok((id, false)),
                    Err(e) => Err(Failure::Pg(e)),
                },
                Err(e) => {
                    let _ = c.batch("ROLLBACK");
                    Err(e)
                }
            }
        })?;
        let (id, answered) = id;
        let message = ChatMessage { id: id.max(0) as u64, at, from: from.into(), to: to.into(), text: text.into() };
        if !answered {
            match self.settle_chat(&message) {
                Settled::Stored => {}
                Settled::Absent => {
                    return Err(StoreError::WriteFailed {
                        path: self.place.clone(),
                        what: "the connection to the database was lost before the chat message was committed, and the database, \
                               asked again on a new connection, does not hold it"
                            .into(),
                    })
                }
                Settled::Unknown => return Err(StoreError::Unconfirmed(self.place.clone())),
            }
        }
        Ok(message)
    }

    /// Whether chat `message` is stored, after its `COMMIT` got no answer: asked under the
    /// game's row lock, which the lost transaction held (so the answer waits for it to end).
    fn settle_chat(&self, m: &ChatMessage) -> Settled {
        let asked = self.db.pool.run(Repeat::Always, |c| {
            c.batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))?;
            let found = (|| -> Result<Settled, Failure> {
                if c.query_opt(LOCK_GAME, &[&self.id])?.is_none() {
                    return Ok(Settled::Absent);
                }
                let row = c.query_opt(
                    "SELECT 1 FROM chat WHERE game_id = $1 AND id = $2 AND at = $3 AND sender = $4 AND audience = $5 AND text = $6",
                    &[&self.id, &(m.id as i64), &m.at, &m.from, &m.to, &m.text],
                )?;
                Ok(if row.is_some() { Settled::Stored } else { Settled::Absent })
            })();
            let _ = c.batch("ROLLBACK");
            found
        });
        asked.unwrap_or(Settled::Unknown)
    }

    /// Store chat messages as they were (their numbers and times: a game moved between
    /// stores), in one transaction.
    pub fn restore_chat(&self, messages: &[ChatMessage]) -> Result<(), StoreError> {
        self.read("store the chat", Repeat::UntilAnswered, |c| {
            c.batch("BEGIN")?;
            let stored = (|| -> Result<(), Failure> {
                for m in messages {
                    c.execute(
                        "INSERT INTO chat (game_id, id, at, sender, audience, text) VALUES ($1, $2, $3, $4, $5, $6)",
                        &[&self.id, &(m.id as i64), &m.at, &m.from, &m.to, &m.text],
                    )?;
                }
                Ok(())
            })();
            match stored {
                Ok(()) => commit_or_unconfirmed(c, &self.place),
                Err(e) => {
                    let _ = c.batch("ROLLBACK");
                    Err(e)
                }
            }
        })
    }
}

impl EventStore for PgStore {
    fn header(&self) -> Result<GameHeader, StoreError> {
        self.read("read the game", Repeat::Always, |c| self.header_on(c))
    }

    fn rows(&self) -> Result<Vec<EventRow>, StoreError> {
        self.rows_and_head().map(|(rows, _)| rows)
    }

    fn rows_and_head(&self) -> Result<(Vec<EventRow>, (u64, String)), StoreError> {
        if let Some((conn, _)) = self.locked.borrow_mut().as_mut() {
            return self.rows_on(conn).map_err(|e| self.error("read the moves", e));
        }
        // One snapshot: the header, the rows and the head as of one moment, even while another
        // process writes.
        self.db
            .pool
            .run(Repeat::Always, |c| {
                c.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
                let result = self.rows_on(c);
                let _ = c.batch(if result.is_ok() { "COMMIT" } else { "ROLLBACK" });
                result
            })
            .map_err(|e| self.error("read the moves", e))
    }

    fn head(&self) -> Result<(u64, String), StoreError> {
        if let Some((_, head)) = self.locked.borrow().as_ref() {
            return Ok(head.clone());
        }
        self.read("read the game's head", Repeat::Always, |c| {
            let row = c.query_opt(READ_HEAD, &[&self.id])?.ok_or_else(|| Failure::Store(StoreError::NoSuchGame(self.place.clone())))?;
            Ok((row.try_get::<_, i64>(0)?.max(0) as u64, row.try_get(1)?))
        })
    }

    fn lock(&mut self) -> Result<(), StoreError> {
        if self.locked.borrow().is_some() {
            return Err(StoreError::WriteFailed { path: self.place.clone(), what: "the write lock taken twice (engine fault)".into() });
        }
        let pool = &self.db.pool;
        for attempt in 0..2 {
            let (mut conn, reused) = pool.get()?;
            // READ COMMITTED said, not assumed: a writer that waited for the row lock then
            // reads the row as the other writer left it (a database whose default level is
            // serializable would fail every contended lock instead).
            let begun = conn
                .batch(&format!("BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '{}ms'", WAIT.as_millis()))
                .map_err(Failure::Pg)
                .and_then(|()| {
                    let skip = pool.skip_row_lock.load(std::sync::atomic::Ordering::SeqCst);
                    locked_head(&mut conn, &self.id, self.db.fence.as_deref(), !skip)
                });
            match begun {
                Ok(head) => {
                    *self.begun.borrow_mut() = head.clone();
                    *self.locked.borrow_mut() = Some((conn, head));
                    return Ok(());
                }
                Err(e) => {
                    let stale = conn.is_closed();
                    if !stale {
                        let _ = conn.batch("ROLLBACK");
                    }
                    drop(conn);
                    // An idle connection gone stale (the database restarted): once more, on
                    // a new one.
                    if stale && reused && attempt == 0 {
                        pool.drop_idle();
                        continue;
                    }
                    return Err(self.error("lock the game", e));
                }
            }
        }
        Err(StoreError::Database { place: pool.label.clone(), what: "the database cannot be reached".into() })
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        let Some((mut conn, end)) = self.locked.borrow_mut().take() else {
            return Err(StoreError::WriteFailed {
                path: self.place.clone(),
                what: "a commit without the write lock (engine fault)".into(),
            });
        };
        let done = conn.batch("COMMIT");
        let lost = matches!(&done, Err(e) if unanswered(&conn, e));
        if done.is_err() && !conn.is_closed() {
            let _ = conn.batch("ROLLBACK");
        }
        drop(conn);
        match done {
            Ok(()) => Ok(()),
            // No answer to the COMMIT (the connection went, or CockroachDB's "result is
            // ambiguous"): the database may or may not have the write. Asked again, not guessed.
            Err(_) if lost => {
                let begun = self.begun.borrow().clone();
                match self.settle(&begun, &end) {
                    Settled::Stored => Ok(()),
                    Settled::Absent => Err(StoreError::WriteFailed {
                        path: self.place.clone(),
                        what: "the connection to the database was lost before the write was committed, and the database, asked \
                               again on a new connection, does not hold it"
                            .into(),
                    }),
                    Settled::Unknown => Err(StoreError::Unconfirmed(self.place.clone())),
                }
            }
            Err(e) => Err(self.error("store the move", Failure::Pg(e))),
        }
    }

    fn rollback(&mut self) {
        if let Some((mut conn, _)) = self.locked.borrow_mut().take() {
            let _ = conn.batch("ROLLBACK");
        }
    }

    fn append(&mut self, row: &EventRow) -> Result<(), StoreError> {
        if self.seats.get().is_none() {
            let seats = self.header()?.seats;
            let _ = self.seats.set(seats);
        }
        let seats = self.seats.get().map(Vec::as_slice).unwrap_or_default();
        let (id, place) = (self.id.clone(), self.place.clone());
        self.write("store the move", |c, head| {
            if row.seq != head.0 + 1 {
                return Err(Failure::Store(StoreError::BadRow {
                    path: place.clone(),
                    seq: row.seq,
                    what: format!("out of sequence: the last stored move is {}", head.0),
                }));
            }
            let h = insert_event(c, &id, row, &head.1, seats).map_err(|e| match e {
                // The unique key (game_id, seq): another process stored this move number first.
                Failure::Pg(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                    Failure::Store(StoreError::Conflict { path: place.clone(), seq: row.seq })
                }
                other => other,
            })?;
            c.execute(SET_HEAD, &[&id, &(row.seq as i64), &h])?;
            *head = (row.seq, h);
            Ok(())
        })
    }

    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        self.in_lock()?;
        let start = if seq == 0 { Some(chain::start(&self.header()?)) } else { None };
        let (id, place) = (self.id.clone(), self.place.clone());
        self.write("undo the move", |c, head| {
            let hash = match start {
                Some(h) => h,
                None => c
                    .query_opt("SELECT chain FROM events WHERE game_id = $1 AND seq = $2", &[&id, &(seq as i64)])?
                    .ok_or_else(|| Failure::Store(StoreError::BadRow { path: place.clone(), seq, what: "no such move to undo to".into() }))?
                    .try_get(0)?,
            };
            c.execute("DELETE FROM events WHERE game_id = $1 AND seq > $2", &[&id, &(seq as i64)])?;
            c.execute(SET_HEAD, &[&id, &(seq as i64), &hash])?;
            *head = (seq, hash);
            Ok(())
        })
    }
}

impl Drop for PgStore {
    /// A store dropped while it holds the write lock rolls back, on the pool's runtime and not
    /// waited for: a drop blocks nowhere (an async runtime's thread may drop a store).
    fn drop(&mut self) {
        if let Some((conn, _)) = self.locked.get_mut().take() {
            conn.roll_back_detached();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_pgtest::CutProxy;
    use std::cell::Cell;

    /// How many times `run` called its function when the connection it was given (reused from
    /// the pool) closed after `answers` statements were answered.
    fn calls(repeat: Repeat, answers: usize) -> Option<usize> {
        let pg = arbiter_pgtest::shared()?;
        let url = pg.new_database(&format!("repeat_{}_{answers}", repeat == Repeat::Always));
        let proxy = CutProxy::start(pg.port());
        let db = PgDatabase::connect(&proxy.url(&url)).unwrap();
        // The pool holds the connection that prepared the schema: the next call reuses it.
        let n = Cell::new(0);
        let _ = db.pool.run(repeat, |c| {
            n.set(n.get() + 1);
            for _ in 0..answers {
                c.batch("SELECT 1")?;
            }
            if n.get() == 1 {
                proxy.down();
                proxy.up();
            }
            c.batch("SELECT 1")?;
            Ok(())
        });
        Some(n.get())
    }

    /// A connection from `db`'s pool on a thread of its own: whether it was an idle one, or
    /// the error, and when it was answered, from `start`; `None` if it got no answer within
    /// twice the wait (a pool that waits forever).
    fn taken(db: &PgDatabase, start: std::time::Instant) -> Option<(Result<bool, StoreError>, Duration)> {
        let (tx, rx) = std::sync::mpsc::channel();
        let db = db.clone();
        std::thread::spawn(move || {
            let got = db.pool.get().map(|(_, reused)| reused);
            let _ = tx.send((got, start.elapsed()));
        });
        rx.recv_timeout(WAIT * 2).ok()
    }

    #[test]
    fn the_pool_opens_sixteen_connections_at_most_and_a_caller_past_them_waits_then_is_busy() {
        let Some(pg) = arbiter_pgtest::shared() else { return };
        let db = PgDatabase::connect(&pg.new_database("pool_limit")).unwrap();
        let mut held: Vec<Conn> = (0..MAX_CONNECTIONS).map(|_| db.pool.get().map(|(c, _)| c).unwrap()).collect();
        // One given back while a caller waits: the caller gets it.
        let start = std::time::Instant::now();
        let waiter = std::thread::scope(|scope| {
            let waiter = scope.spawn(|| taken(&db, start));
            std::thread::sleep(Duration::from_millis(300));
            drop(held.pop());
            waiter.join().unwrap()
        });
        let (got, waited) = waiter.expect("the waiting caller is answered");
        assert!(got.unwrap(), "the connection given back, not a new one");
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        // None given back: busy once the wait is over.
        held.push(db.pool.get().map(|(c, _)| c).unwrap());
        let (got, waited) = taken(&db, std::time::Instant::now()).expect("the waiting caller is answered");
        assert!(matches!(got, Err(StoreError::Busy(_))), "{got:?}");
        assert!(waited >= WAIT, "{waited:?}");
        drop(held);
        assert_eq!(db.game_ids().unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_call_is_repeated_after_a_closed_connection_only_if_its_kind_allows() {
        let Some(closed_at_once) = calls(Repeat::UntilAnswered, 0) else { return };
        assert_eq!(closed_at_once, 2, "nothing was answered: nothing of the write was sent");
        assert_eq!(calls(Repeat::UntilAnswered, 1), Some(1), "a statement was answered: its COMMIT may have been sent");
        assert_eq!(calls(Repeat::Always, 1), Some(2), "a read or an idempotent write is repeated");
    }
}

#[cfg(test)]
mod classification {
    use super::*;

    #[test]
    fn serialization_failures_and_deadlocks_are_retried_and_nothing_else() {
        for (code, retried) in [
            ("40001", true),  // serialization failure; CockroachDB's "restart transaction"
            ("40P01", true),  // deadlock detected
            ("40003", false), // statement completion unknown: settled, never repeated
            ("55P03", false), // lock not available: busy
            ("57014", false), // query canceled (statement timeout)
            ("23505", false), // unique violation: a Conflict
            ("40002", false), // integrity constraint violation at commit
        ] {
            assert_eq!(contended(&SqlState::from_code(code)), retried, "{code}");
        }
    }

    #[test]
    fn the_backoff_grows_and_gives_up_after_four_retries() {
        let pauses: Vec<Duration> = (0..).map_while(contention_backoff).collect();
        assert_eq!(pauses.len(), 4);
        for (i, p) in pauses.iter().enumerate() {
            let base = Duration::from_millis(10 << i);
            assert!(*p >= base && *p <= base + base / 2, "{i}: {p:?}");
        }
    }
}
