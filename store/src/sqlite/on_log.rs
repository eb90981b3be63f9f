//! A server's file on its folder's redo log: its commits unsynced, each acknowledged once its
//! record is in the log; its write-ahead log folded into it after a commit, not inside one.

use super::{read_error, write_error, SqliteStore, WAL_PAGES};
use crate::redo::Op;
use crate::{RedoLog, StoreError};

/// A file on its folder's redo log: the log, the changes of the write under way, and whether
/// the file's own log is due to be folded into it (set by SQLite's write-ahead log hook, done
/// once the commit is out of the redo log's way: [`SqliteStore::fold_when_due`]).
pub(super) struct OnLog {
    pub(super) log: std::sync::Arc<RedoLog>,
    pub(super) ops: Vec<Op>,
    pub(super) fold_due: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl SqliteStore {
    /// This file (a server's, in write-ahead mode) made durable through its folder's redo
    /// log: its commits are no longer synced one by one (`synchronous = NORMAL`), each is
    /// acknowledged once its record is in `log` (an earlier server's layout: `redo.rs`).
    pub fn with_redo(mut self, log: std::sync::Arc<RedoLog>) -> Result<SqliteStore, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly(self.path.clone()));
        }
        let mode: String = self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(|e| read_error(&self.path, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::WriteFailed {
                path: self.path.clone(),
                what: format!("a redo log needs a write-ahead file, not one in {mode} mode (engine fault)"),
            });
        }
        log.check_game(&self.path)?;
        self.conn.execute_batch("PRAGMA synchronous = NORMAL;").map_err(|e| write_error(&self.path, e))?;
        let fold_due = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        self.redo = Some(OnLog { log, ops: Vec::new(), fold_due });
        self.fold_later()?;
        Ok(self)
    }

    /// Fold the file's log into it after a commit, not inside it. SQLite's own fold runs in the
    /// commit that fills the log, and the next commit starts the log over (syncing its new
    /// header): three syncs inside commits, which hold the redo log's pin, and the redo log's
    /// move to a new segment, waiting for every pin, held every other game's commit meanwhile.
    /// Here SQLite's write-ahead log hook (which replaces its own fold) only says a fold is due
    /// ([`WAL_PAGES`] pages or more); [`SqliteStore::fold_when_due`] makes it once the pin is
    /// let go. The hook never fails: an error from it would fail a `COMMIT` already made.
    pub(super) fn fold_later(&mut self) -> Result<(), StoreError> {
        let Some(on) = &self.redo else { return Ok(()) };
        let due = on.fold_due.clone();
        self.conn
            .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
                if pages >= WAL_PAGES as std::ffi::c_int {
                    due.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(())
            }))
            .map_err(|e| write_error(&self.path, e))
    }

    /// Fold the file's log into it if a commit filled it (see [`SqliteStore::fold_later`]),
    /// then, if every page was folded, start the log over with a write that changes nothing
    /// (the schema version, rewritten as it is), so that the next move's commit does not sync
    /// the new log's header under its pin. A fold that cannot be made whole now (a reader
    /// holds the log) is tried again after the next commit (the hook counts the log's pages,
    /// not those since the last fold); a failure fails no write (the log grows until a fold
    /// succeeds).
    pub(super) fn fold_when_due(&self) {
        let Some(on) = &self.redo else { return };
        if !on.fold_due.swap(false, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let folded = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)));
        if let Ok((0, pages, done)) = folded {
            if pages == done {
                let _ = self.conn.execute_batch("BEGIN IMMEDIATE").and_then(|()| {
                    let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                    self.conn.execute_batch(&format!("PRAGMA user_version = {version}; COMMIT"))
                });
                if !self.conn.is_autocommit() {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
            }
        }
    }
}
