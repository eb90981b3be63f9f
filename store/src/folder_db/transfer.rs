//! A game between the folder database and a game file: exported as a player's file (what the
//! CLI reads and plays), imported from one (its header, moves with their chain checked,
//! documents and chat, in one commit); and a folder of game files an earlier server wrote, imported
//! file by file on a first start, each file moved aside once its game is stored, never
//! deleted.

use super::chat::chat_on;
use super::docs::docs_on;
use super::game::rows_on;
use super::{check_id, FolderDatabase, FolderStore};
use crate::{chain, EventStore, Journal, RedoLog, SqliteStore, StoreError};
use std::path::{Path, PathBuf};

/// Where a folder's imported game files are moved (`DIR/imported/`).
const IMPORTED: &str = "imported";

impl FolderDatabase {
    /// Write game `id` as a player's game file at `path` (a rollback file, as `arbiter new`
    /// makes): its header and documents, then its moves in one commit (the file's own chain
    /// computed over them, checked equal to the database's), then its chat. Refuses to touch an
    /// existing file; a failure removes the file it made.
    pub fn export_game(&self, id: &str, path: &Path) -> Result<(), StoreError> {
        check_id(id)?;
        let (header, rows, head, docs, chat) = self.read_snapshot(|c| {
            let (header, rows, head) = rows_on(c, id)?;
            Ok((header, rows, head, docs_on(c, id)?, chat_on(c, id)?))
        })?;
        let docs: Vec<(&str, &str)> = docs.iter().map(|(n, j)| (n.as_str(), j.as_str())).collect();
        let mut file = SqliteStore::create_with_docs(path, &header, Journal::Rollback, &docs)?;
        let written = (|| {
            if !rows.is_empty() {
                file.lock()?;
                for row in &rows {
                    if let Err(e) = file.append(row) {
                        file.rollback();
                        return Err(e);
                    }
                }
                file.commit()?;
            }
            if !chat.is_empty() {
                file.restore_chat(&chat)?;
            }
            if file.head()? != head {
                return Err(StoreError::WriteFailed {
                    path: path.into(),
                    what: "the file's integrity chain does not match the database's (engine fault)".into(),
                });
            }
            Ok(())
        })();
        if let Err(e) = written {
            drop(file);
            let _ = SqliteStore::remove(path);
            return Err(e);
        }
        Ok(())
    }

    /// Store the game file at `path` as game `id` (read only, never changed): its header, its
    /// moves (their chain checked as the file is read, and computed again here: the same
    /// values), its documents and chat, in one commit. Fails if the id is taken.
    pub fn import_file(&self, id: &str, path: &Path) -> Result<FolderStore, StoreError> {
        check_id(id)?;
        let file = SqliteStore::open_read_only(path)?;
        let (header, rows, docs, chat) = (file.header()?, file.rows()?, file.all_docs()?, file.chat()?);
        drop(file);
        self.insert(id, &header, &rows, docs, chat)
    }

    /// A first start on a folder of game files (today's server's `DIR/ID.arbiter`): what a
    /// crash left in the folder's redo log applied to them first (if the folder has one), then
    /// each file imported as game `ID` ([`FolderDatabase::import_file`]) and, once stored,
    /// moved with SQLite's companions into `DIR/imported/` (never deleted). A file whose game
    /// is stored already (an import cut short before the move) is moved; a file that cannot
    /// be imported (damaged, its id taken by another game) is left in place and said. Returns
    /// lines for the host's log. Other files of the folder are left as they are.
    pub fn import_folder(&self) -> Result<Vec<String>, StoreError> {
        let dir = self.folder().to_path_buf();
        let mut report = Vec::new();
        if dir.join("redo").is_dir() {
            let (log, applied) = RedoLog::open(&dir)?;
            report.extend(applied);
            // Dropped: the games it wrote are synced and its segments removed.
            drop(log);
        }
        let listed = std::fs::read_dir(&dir)
            .map_err(|e| StoreError::Database { place: dir.display().to_string(), what: format!("the folder cannot be read: {e}") })?;
        let mut files: Vec<(String, PathBuf)> = listed
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                Some((name.strip_suffix(".arbiter").filter(|id| !id.is_empty())?.to_string(), e.path()))
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Ok(report);
        }
        let aside = dir.join(IMPORTED);
        if !aside.is_dir() {
            let mut made = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut made, 0o700);
            made.create(&aside).map_err(|e| StoreError::WriteFailed {
                path: aside.clone(),
                what: format!("the folder for the imported files could not be made: {e}"),
            })?;
            crate::sync_folder(&aside)
                .map_err(|e| StoreError::WriteFailed { path: aside.clone(), what: format!("its folder could not be synced: {e}") })?;
        }
        for (id, path) in files {
            let line = self.import_one(&id, &path).and_then(|what| move_aside(&path, &aside).map(|to| (what, to)));
            report.push(match line {
                Ok((what, to)) => format!("game {id}: {what}; its file moved to {}", to.display()),
                Err(e) => format!("{}: left in place, not imported: {e}", path.display()),
            });
        }
        Ok(report)
    }

    /// Import the file at `path` as game `id`, unless it is stored already: what was done.
    fn import_one(&self, id: &str, path: &Path) -> Result<String, StoreError> {
        check_id(id)?;
        let file = SqliteStore::open_read_only(path)?;
        let (header, rows, docs, chat) = (file.header()?, file.rows()?, file.all_docs()?, file.chat()?);
        drop(file);
        match self.open_game(id) {
            Ok(_) => {
                let (stored, _, head) = self.read_snapshot(|c| rows_on(c, id))?;
                if stored == header && head == chain::head(&header, &rows) {
                    Ok("stored already (an import cut short)".into())
                } else {
                    Err(StoreError::Exists(super::game_place(id)))
                }
            }
            Err(StoreError::NoSuchGame(_)) => {
                let moves = rows.len();
                self.insert(id, &header, &rows, docs, chat)?;
                Ok(format!("imported ({moves} moves)"))
            }
            Err(e) => Err(e),
        }
    }
}

/// Move the game file at `path` and SQLite's companions beside it into folder `aside` (never
/// over a file there), the names synced; the file's new path.
fn move_aside(path: &Path, aside: &Path) -> Result<PathBuf, StoreError> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let to = aside.join(&name);
    let failed = |what: String| StoreError::WriteFailed { path: path.into(), what };
    let pairs: Vec<(PathBuf, PathBuf)> = ["", "-journal", "-wal", "-shm"]
        .iter()
        .map(|suffix| (path.with_file_name(format!("{name}{suffix}")), aside.join(format!("{name}{suffix}"))))
        .filter(|(from, _)| from.exists())
        .collect();
    if let Some((_, there)) = pairs.iter().find(|(_, to)| to.exists()) {
        return Err(failed(format!("{} is there already: the file is stored, and left in place", there.display())));
    }
    for (from, to) in &pairs {
        crate::change_folder(from, || std::fs::rename(from, to)).map_err(|e| failed(format!("the file could not be moved: {e}")))?;
    }
    for folder in [&to, path] {
        crate::sync_folder(folder).map_err(|e| failed(format!("its folder could not be synced: {e}")))?;
    }
    Ok(to)
}
