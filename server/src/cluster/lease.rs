//! The leases of the processes serving one database: which process serves a game, until when,
//! and where the others reach it. They live in a table of the server's own beside the store's
//! (`arbiter_leases`), on the database's clock (`now()`), so the processes' clocks do not
//! matter.
//!
//! **Invariant:** a process stores nothing in a game whose lease it does not hold. The store
//! checks [`FENCE`] in every write's own transaction once it has locked the game's row, and
//! taking a lease over locks that row too ([`acquire`]): a takeover waits for a write under way,
//! and a write after the takeover is refused (`StoreError::LeaseLost`).

use arbiter_store::{Fence, PgDatabase, StoreError};
use std::time::Duration;

/// The server's tables beside the store's: the leases, and the secret the processes share.
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS arbiter_leases (
    game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    address TEXT NOT NULL,
    until TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS arbiter_leases_owner ON arbiter_leases (owner);
CREATE TABLE IF NOT EXISTS arbiter_peers (id INT PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);
";

/// Whether owner `$2` holds game `$1`'s lease now: the statement's own clock
/// (`clock_timestamp()`, not the transaction's start), read with the game's row locked.
const FENCE: &str = "SELECT COALESCE((SELECT owner = $2 AND until > clock_timestamp() FROM arbiter_leases WHERE game_id = $1), FALSE)";

/// Take game `$1` for owner `$2` (reached at `$3`) for `$4` ms if it is free, expired or
/// already `$2`'s; the game's row locked first, so that a takeover waits for a write under way.
/// Answers whether the game exists and whether the lease was taken.
const ACQUIRE: &str = "
WITH game AS (SELECT id FROM games WHERE id = $1 FOR UPDATE),
taken AS (
    INSERT INTO arbiter_leases (game_id, owner, address, until)
    SELECT id, $2, $3, now() + $4::BIGINT * INTERVAL '1 millisecond' FROM game
    ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner, address = EXCLUDED.address, until = EXCLUDED.until
    WHERE arbiter_leases.owner = EXCLUDED.owner OR arbiter_leases.until <= now()
    RETURNING game_id
)
SELECT (SELECT COUNT(*) FROM game), (SELECT COUNT(*) FROM taken)";

const HOLDER: &str =
    "SELECT owner, address, GREATEST(EXTRACT(EPOCH FROM (until - now())), 0)::FLOAT8 FROM arbiter_leases WHERE game_id = $1";

const RENEW: &str =
    "UPDATE arbiter_leases SET until = now() + $2::BIGINT * INTERVAL '1 millisecond' WHERE owner = $1 AND until > now() RETURNING game_id";

const RELEASE: &str = "DELETE FROM arbiter_leases WHERE game_id = $1 AND owner = $2";

/// Whether a lease is this process's now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lease {
    /// Taken (the game was free or its lease had expired) or renewed (it was already ours).
    Acquired,
    /// Another owner holds it for `expires_in` more, unless it renews.
    HeldBy { owner: String, address: String, expires_in: Duration },
}

/// The server's tables made beside the store's (several processes may start at once: each
/// statement is safe to run again).
pub fn prepare(db: &PgDatabase) -> Result<(), StoreError> {
    db.prepare_host_tables(TABLES)
}

/// `db`, its writes stored only while `owner` holds the game's lease.
pub fn fenced(db: PgDatabase, owner: &str) -> PgDatabase {
    db.fenced(Fence { holds: FENCE, key: owner.to_string() })
}

/// Milliseconds for SQL, saturating.
fn millis(ttl: Duration) -> i64 {
    ttl.as_millis().min(i64::MAX as u128) as i64
}

/// A value of a row the server's statements answer: the database's own types, so a failure
/// means the tables are not the server's.
fn read<'a, T: arbiter_store::pg::FromSql<'a>>(row: &'a arbiter_store::pg::Row, at: usize, db: &PgDatabase) -> Result<T, StoreError> {
    row.try_get(at).map_err(|_| StoreError::Database {
        place: db.label().to_string(),
        what: "its table arbiter_leases is not the one Arbiter made".into(),
    })
}

/// Take game `id` for `owner` (a process; `address`: where others reach it) for `ttl`, if it is
/// free, its lease has expired, or it is already `owner`'s (then renewed); else say who holds it.
pub fn acquire(db: &PgDatabase, id: &str, owner: &str, address: &str, ttl: Duration) -> Result<Lease, StoreError> {
    let ms = millis(ttl);
    for _ in 0..3 {
        let rows = db.host_query("take the game's lease", ACQUIRE, &[&id, &owner, &address, &ms])?;
        let Some(row) = rows.first() else { continue };
        let (games, taken): (i64, i64) = (read(row, 0, db)?, read(row, 1, db)?);
        if games == 0 {
            return Err(StoreError::NoSuchGame(format!("game {id}").into()));
        }
        if taken > 0 {
            return Ok(Lease::Acquired);
        }
        let held = db.host_query("read who holds the game's lease", HOLDER, &[&id])?;
        // Released between the two statements: try again.
        let Some(held) = held.first() else { continue };
        let (owner, address, secs): (String, String, f64) = (read(held, 0, db)?, read(held, 1, db)?, read(held, 2, db)?);
        return Ok(Lease::HeldBy { owner, address, expires_in: Duration::from_secs_f64(secs.max(0.0)) });
    }
    Err(StoreError::Busy(format!("game {id}").into()))
}

/// Renew every live lease of `owner` for `ttl` (one statement); the ids it still holds, sorted.
/// A lease that expired is not renewed (another process may have taken the game): the owner
/// must acquire it again.
pub fn renew(db: &PgDatabase, owner: &str, ttl: Duration) -> Result<Vec<String>, StoreError> {
    let rows = db.host_query("renew the leases", RENEW, &[&owner, &millis(ttl)])?;
    let mut ids = rows.iter().map(|r| read::<String>(r, 0, db)).collect::<Result<Vec<_>, _>>()?;
    ids.sort();
    Ok(ids)
}

/// Give up `owner`'s lease on game `id` (nothing if another holds it).
pub fn release(db: &PgDatabase, id: &str, owner: &str) -> Result<(), StoreError> {
    db.host_query("release the game's lease", RELEASE, &[&id, &owner]).map(drop)
}

/// The secret every process serving the database shares: `new` if none is stored yet (the
/// first process to ask makes it), else the one stored. A process forwarding a request to
/// another shows it, so that the other trusts what the request says of its client: whoever can
/// write this database is one of the processes serving it.
pub fn peers_secret(db: &PgDatabase, new: &str) -> Result<String, StoreError> {
    db.host_query(
        "store the servers' shared secret",
        "INSERT INTO arbiter_peers (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
        &[&new],
    )?;
    let rows = db.host_query("read the servers' shared secret", "SELECT secret FROM arbiter_peers WHERE id = 1", &[])?;
    match rows.first() {
        Some(row) => read(row, 0, db),
        None => Ok(new.to_string()),
    }
}
