//! Folding the write-ahead log into the database: a thread of its own, every [`EVERY`], so
//! that no commit of the writer folds (SQLite's own fold runs inside the commit that fills the
//! log, every write queued behind it waiting). `PASSIVE`: it folds what no reader is using and
//! never waits for the writer; the writer starts the log over once all of it is folded.

use super::{read_error, write_error, WAIT};
use crate::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How often the log is folded.
const EVERY: Duration = Duration::from_millis(100);

/// The checkpoint thread's connection to the database at `path`.
pub(super) fn connection(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| read_error(path, &e))?;
    conn.busy_timeout(WAIT).map_err(|e| read_error(path, &e))?;
    // A fold syncs the log before it copies it and the database after.
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;").map_err(|e| write_error(path, &e))?;
    Ok(conn)
}

/// Start folding through `conn` until the sender returned is dropped (the thread then ends at
/// once: its wait is on the channel).
pub(super) fn start(conn: Connection) -> std::io::Result<(mpsc::Sender<()>, std::thread::JoinHandle<()>)> {
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new().name("arbiter-folder-checkpoint".into()).spawn(move || {
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
            // A fold that fails (a reader's snapshot in the way, a busy moment) is tried again
            // next time; the log grows meanwhile, and no write fails.
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0));
        }
    })?;
    Ok((stop, thread))
}
