//! Making a game file (a player's, written whole beside its name and linked; a server's, made
//! at its name in write-ahead mode, or on its folder's redo log) and removing one.

use super::companions::{beside, hot_journal, make_companions};
use super::docs::{DOCS_SCHEMA, PUT_DOC};
use super::folder::{change_folder, private_new_file, sync_folder};
use super::schema::{Layout, APPLICATION_ID, SCHEMA, SCHEMA_VERSION};
use super::{json_strings, write_error, Journal, SqliteStore};
use crate::{chain, EventStore, GameHeader, RedoLog, StoreError};
use rusqlite::{params, Connection, OpenFlags};
use std::path::Path;

impl SqliteStore {
    /// Create a new game file (a player's: a rollback journal). Refuses to touch an existing
    /// file. The file is written whole beside its final name and linked into place only once
    /// complete, so a creation killed midway leaves no half-made file at `path` (only a hidden
    /// temporary one, never read).
    pub fn create(path: &Path, header: &GameHeader) -> Result<SqliteStore, StoreError> {
        Self::create_with(path, header, Journal::Rollback)
    }

    /// Remove the game file at `path` with SQLite's companions beside it (its journal,
    /// write-ahead log and the log's index: a hot journal or a log left behind would be
    /// applied to the next file of that name). The file goes first: if it cannot be removed,
    /// its companions stay with it. A file or companion that is not there is no error.
    pub fn remove(path: &Path) -> std::io::Result<()> {
        let gone = |r: std::io::Result<()>| match r {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            Ok(()) | Err(_) => Ok(()),
        };
        change_folder(path, || {
            gone(std::fs::remove_file(path))?;
            for suffix in ["-journal", "-wal", "-shm"] {
                gone(std::fs::remove_file(beside(path, suffix)))?;
            }
            Ok(())
        })
    }

    /// [`SqliteStore::create`], its writes committed through `journal`. A write-ahead file (a
    /// server's) is made at its name instead (`create_in_place`: its record is
    /// one commit, but a creation killed before it leaves a file without one there).
    pub fn create_with(path: &Path, header: &GameHeader, journal: Journal) -> Result<SqliteStore, StoreError> {
        Self::create_with_docs(path, header, journal, &[])
    }

    /// [`SqliteStore::create_with`], the host's documents `docs` (name, JSON text) written in
    /// the same commit as the record ([`SqliteStore::put_doc`]): a record is never without
    /// them. A server's new game carries its seats so: no seats file is made, synced and
    /// renamed beside it.
    pub fn create_with_docs(path: &Path, header: &GameHeader, journal: Journal, docs: &[(&str, &str)]) -> Result<SqliteStore, StoreError> {
        Self::check_new(path)?;
        let conn = match journal {
            Journal::Rollback => Self::create_beside(path, header, docs)?,
            Journal::WriteAhead => Self::create_in_place(path, header, docs)?,
        };
        Ok(Self::made(conn, path, header))
    }

    /// The store of a file just made at `path` for `header`, on `conn` (the current schema).
    pub(super) fn made(conn: Connection, path: &Path, header: &GameHeader) -> SqliteStore {
        let seats = std::cell::OnceCell::from(header.seats.clone());
        SqliteStore { conn, path: path.into(), read_only: false, version: SCHEMA_VERSION, layout: Layout::current(), seats, redo: None }
    }

    /// A new server's game at `path` (a write-ahead file, with the host's documents `docs`) on
    /// its folder's redo log `log`, as [`SqliteStore::create_with_docs`] and
    /// [`SqliteStore::with_redo`] would make it, but with no sync of its own: its creation is
    /// a record in the log (the header and the documents), durable with the other games'
    /// records in one sync, and the file, its first page and its names are synced when the
    /// log's segment is retired. A start after a crash that lost any of it makes the file
    /// again from the record. Many creations at once thus share one sync, and the moves sent
    /// meanwhile do not wait behind a sync per creation.
    pub fn create_on_log(
        path: &Path,
        header: &GameHeader,
        docs: &[(&str, &str)],
        log: std::sync::Arc<RedoLog>,
    ) -> Result<SqliteStore, StoreError> {
        Self::check_new(path)?;
        log.check_game(path)?;
        let made = Self::new_write_ahead(path, false).and_then(|conn| {
            let mut store = Self::made(conn, path, header).with_redo(log.clone())?;
            // Unsynced by SQLite, the first commit too: its log's header and the folder (which
            // SQLite syncs at a log's first sync) are synced when the segment is retired. No
            // fold into the file meanwhile (a creation's documents could be 128 pages): one
            // made unsynced would let the next commit start the log over on pages not yet on
            // the disk. (Setting `wal_autocheckpoint` takes SQLite's write-ahead log hook away.)
            let sync = |store: &SqliteStore, level: &str| {
                let pragmas = format!("PRAGMA synchronous = {level}; PRAGMA wal_autocheckpoint = 0;");
                store.conn.execute_batch(&pragmas).map_err(|e| write_error(path, e))
            };
            sync(&store, "OFF")?;
            store.lock()?;
            let written = Self::write_record(&store.conn, path, header, docs);
            if let Err(e) = written {
                store.rollback();
                return Err(e);
            }
            let creation =
                crate::redo::Creation { header: header.clone(), docs: docs.iter().map(|(n, j)| (n.to_string(), j.to_string())).collect() };
            if let Some(on) = &mut store.redo {
                on.ops.push(crate::redo::Op::Create(Box::new(creation)));
            }
            store.commit()?;
            sync(&store, "NORMAL")?;
            store.fold_later()?;
            Ok(store)
        });
        made.inspect_err(|e| {
            // Not the server's game if it could not be made whole; its removal is in the log
            // too (a creation's record there would make it again). If the log takes no more,
            // the file is removed, and a creation's record that reached the disk is made
            // again by the next start (a game nobody has the links of). A file that appeared
            // at the name meanwhile is another's.
            if !matches!(e, StoreError::Exists(_)) && log.remove_game(path).is_err() {
                let _ = Self::remove(path);
            }
        })
    }

    /// Refuse to make a game at `path` if anything is there or beside it.
    pub(super) fn check_new(path: &Path) -> Result<(), StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.into()));
        }
        // SQLite would fold a write-ahead log left by an earlier file of this name (a game
        // removed while its server was killed) into the new one, and play a hot journal back
        // into it.
        let (wal, journal_file) = (beside(path, "-wal"), beside(path, "-journal"));
        let stale = [(wal.exists(), &wal, "write-ahead log"), (hot_journal(&journal_file), &journal_file, "unfinished journal")];
        if let Some((_, file, what)) = stale.iter().find(|(left, _, _)| *left) {
            return Err(StoreError::WriteFailed {
                path: path.into(),
                what: format!("the {what} {} of an earlier file of this name is still beside it: remove it first", file.display()),
            });
        }
        Ok(())
    }

    /// A rollback file (a player's): written whole beside its name, synced, and linked at its
    /// name only once complete, so that a creation killed midway leaves no half-made file at
    /// `path` (only a hidden temporary one, never read).
    pub(super) fn create_beside(path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<Connection, StoreError> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let temp = path.with_file_name(format!(".{name}.new-{}-{nanos}", std::process::id()));
        let made = Self::write_new(&temp, path, header, docs);
        let placed = made.and_then(|()| {
            // No-clobber: a hard link fails if `path` appeared meanwhile; where links are not
            // supported, a rename after a last check.
            match change_folder(path, || std::fs::hard_link(&temp, path)) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(StoreError::Exists(path.into())),
                Err(_) if path.exists() => Err(StoreError::Exists(path.into())),
                Err(_) => change_folder(path, || std::fs::rename(&temp, path)).map_err(|e| StoreError::WriteFailed {
                    path: path.into(),
                    what: format!("the new file could not be put in place: {e}"),
                }),
            }
        });
        let _ = change_folder(&temp, || std::fs::remove_file(&temp));
        placed?;
        let opened = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| write_error(path, e))
            .and_then(|conn| Self::configure(&conn, path, true, Journal::Rollback).map(|()| conn));
        // The new name on the disk before the game is acknowledged (a link or rename is the
        // folder's write, not the file's). A game whose name may not survive is not made: the
        // file (ours: the link refuses to replace one) is removed again.
        opened.and_then(|conn| Self::sync_name(path).map(|()| conn)).inspect_err(|_| {
            let _ = Self::remove(path);
        })
    }

    /// A write-ahead file (a server's): made empty at its name with its log and the log's index
    /// beside it, then written on the connection that keeps it, its record (and `docs`) in one
    /// commit through the log: one connection, three files made, five syncs (the file's first
    /// page, the log's header, SQLite's sync of the folder at a log's first sync, the commit,
    /// and the folder's, shared by the creations at once). It is not written beside its name
    /// and linked, as a player's file is: that is a fourth file made and removed, two names
    /// changed, and a second connection reading the schema the first has just written.
    ///
    /// The commit is atomic: a creation killed before it leaves at `path` an empty database, or
    /// an empty file (no record: opening it says it is no saved game; a server never gave out
    /// its name), one killed after leaves the whole game, its record in the log that the next
    /// open folds in.
    pub(super) fn create_in_place(path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<Connection, StoreError> {
        let made = Self::new_write_ahead(path, true)
            .and_then(|mut conn| {
                // The log's first commit (which also writes and syncs the log's header, SQLite
                // then syncing the folder: the log's name, made above) is the record itself, at
                // the creation: not at the game's first move, where on a server making many
                // games at once that folder sync waited for every other creation's names.
                let tx = conn.transaction().map_err(|e| write_error(path, e))?;
                Self::write_record(&tx, path, header, docs)?;
                tx.commit().map_err(|e| write_error(path, e))?;
                Ok(conn)
            })
            // The names on the disk before the game is acknowledged (SQLite's own sync of the
            // folder is its business, not a promise).
            .and_then(|conn| Self::sync_name(path).map(|()| conn));
        made.inspect_err(|e| {
            // (A file that appeared at the name meanwhile is another's.)
            if !matches!(e, StoreError::Exists(_)) {
                let _ = Self::remove(path);
            }
        })
    }

    /// A new, empty write-ahead file at `path` (its log and the log's index beside it), open
    /// on the connection that keeps it, its first page synced if `synced` (else left to the
    /// caller: [`SqliteStore::create_on_log`]). A failure leaves what was made for the caller to
    /// remove.
    pub(super) fn new_write_ahead(path: &Path, synced: bool) -> Result<Connection, StoreError> {
        // Readable by its owner only (0600, whatever the umask), and never another's file
        // (`O_EXCL`): refused if `path` appeared since the caller's check (`check_new`).
        change_folder(path, || private_new_file(path)).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => StoreError::Exists(path.into()),
            _ => StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be made: {e}") },
        })?;
        // No log was beside its name (refused above): made here, so that SQLite finds both of
        // its companions ([`make_companions`]).
        make_companions(path, &["-wal", "-shm"]);
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(|e| write_error(path, e)).and_then(|conn| {
            // Marked a write-ahead file straight from no journal: from SQLite's default
            // (`DELETE`) the mark (page 1) is written through a rollback journal made,
            // synced and removed for that one write. The page is synced once, here or (on a
            // redo log) when the segment holding the creation is retired: SQLite drops the
            // log beside an empty file, so the record in the log is only safe once the file
            // is not empty.
            let mark = || -> rusqlite::Result<()> {
                conn.execute_batch("PRAGMA synchronous = OFF;")?;
                conn.query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0))?;
                conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)).map(drop)
            };
            mark().map_err(|e| write_error(path, e))?;
            if synced {
                std::fs::File::open(path)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be synced: {e}") })?;
            }
            Self::configure(&conn, path, true, Journal::WriteAhead).map(|()| conn)
        })
    }

    /// Sync the folder of `path` (its new name) or say why not.
    pub(super) fn sync_name(path: &Path) -> Result<(), StoreError> {
        sync_folder(path).map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("its folder could not be synced: {e}") })
    }

    /// A rollback file's record written whole at `at` (its temporary name) and synced, the file
    /// closed (errors name `path`, the file the user asked for).
    pub(super) fn write_new(at: &Path, path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<(), StoreError> {
        // Made empty here, so SQLite opens it as a new database; SQLite gives its journal the
        // database's mode.
        change_folder(at, || private_new_file(at))
            .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be made: {e}") })?;
        let mut conn = Connection::open_with_flags(at, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
            .map_err(|e| write_error(path, e))?;
        // Written once under a temporary name, with no journal: a creation that fails midway
        // leaves only the temporary file, which is removed (a journal made and removed beside
        // it would be one more file made per game). Set straight from SQLite's default
        // (`DELETE`): leaving `PERSIST` for `OFF` would unlink a journal that was never made.
        // Unsynced by SQLite: the file is synced once, whole, after its last write below and
        // before it is linked at its name (SQLite would sync the commit and the header's
        // change apart: two of the disk's flushes instead of one).
        conn.query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0)).map_err(|e| write_error(path, e))?;
        conn.execute_batch("PRAGMA synchronous = OFF;").map_err(|e| write_error(path, e))?;
        let tx = conn.transaction().map_err(|e| write_error(path, e))?;
        Self::write_record(&tx, path, header, docs)?;
        tx.commit().map_err(|e| write_error(path, e))?;
        conn.close().map_err(|(_, e)| write_error(path, e))?;
        std::fs::File::open(at)
            .and_then(|f| f.sync_all())
            .map_err(|e| StoreError::WriteFailed { path: path.into(), what: format!("the new file could not be synced: {e}") })
    }

    /// A new file's schema, header row and the host's documents, in the caller's transaction.
    pub(super) fn write_record(tx: &Connection, path: &Path, header: &GameHeader, docs: &[(&str, &str)]) -> Result<(), StoreError> {
        tx.execute_batch(SCHEMA).map_err(|e| write_error(path, e))?;
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"))
            .map_err(|e| write_error(path, e))?;
        let s = &header.setup;
        tx.execute(
            "INSERT INTO game VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 0, ?13)",
            params![
                header.game,
                header.created_at,
                header.engine_version,
                header.rules_version,
                header.seed as i64,
                header.options,
                json_strings(&header.seats),
                s.public_log,
                json_strings(&s.seat_logs),
                s.random_json,
                s.reveals,
                s.state_hash,
                chain::start(header)
            ],
        )
        .map_err(|e| write_error(path, e))?;
        if !docs.is_empty() {
            tx.execute_batch(DOCS_SCHEMA).map_err(|e| write_error(path, e))?;
            for (name, json) in docs {
                tx.execute(PUT_DOC, params![name, json]).map_err(|e| write_error(path, e))?;
            }
        }
        Ok(())
    }
}
