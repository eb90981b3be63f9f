//! `arbiter export` and `arbiter import`: a game moves between a SQLite file and a store (a
//! PostgreSQL database, or a server's data folder's database) with every row as it was (its times, logs, random outcomes and chain),
//! its chat (numbers and times kept) and the server's seats (the game's document `seats`, in
//! the file as in the database; an earlier server's `GAME.seats.json` beside `GAME.arbiter` is
//! read on import when the file holds none). The game is replayed
//! and verified before it is copied (a damaged game is refused) and after (the copy's chain
//! must end where the original's did); a copy that fails is removed whole.

use crate::Failure;
use arbiter_games::catalogue;
use arbiter_store::{EventStore, FolderDatabase, Journal, PgDatabase, Session, SqliteStore};
use std::path::{Path, PathBuf};

/// The host's document that holds a game's seats.
const SEATS_DOC: &str = "seats";

/// What was copied.
pub struct Moved {
    pub id: String,
    pub moves: u64,
    pub chat: usize,
    pub seats: bool,
    /// The chain value after the last move, equal in both stores.
    pub chain: String,
}

/// The seats file an earlier server wrote beside a game file: `NAME.seats.json` for
/// `NAME.arbiter` (the server's naming), `FILE.seats.json` for a file named otherwise.
fn legacy_seats_file(file: &Path) -> PathBuf {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".arbiter").unwrap_or(&name);
    file.with_file_name(format!("{stem}.seats.json"))
}

/// The id a file is imported as when none is given: its name without `.arbiter`.
fn id_of(file: &Path) -> Result<String, Failure> {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let id = name.strip_suffix(".arbiter").unwrap_or(&name).to_string();
    if id.is_empty() {
        return Err(Failure::Rejected(format!("{}: no game id in the file's name: give one with --id", file.display())));
    }
    Ok(id)
}

/// Where a game is exported from or imported into.
pub enum Store<'a> {
    /// A PostgreSQL database (`--store URL`).
    Postgres(&'a str),
    /// A server's data folder (`--data DIR`: its database `DIR/games.db`), while no server
    /// holds it.
    Folder(&'a Path),
}

/// The store `--store URL` or `--data DIR` names (one of them, not both).
pub fn store<'a>(url: Option<&'a str>, data: Option<&'a Path>) -> Result<Store<'a>, Failure> {
    match (url, data) {
        (Some(url), None) => Ok(Store::Postgres(url)),
        (None, Some(dir)) => Ok(Store::Folder(dir)),
        (Some(_), Some(_)) | (None, None) => {
            Err(Failure::Rejected("give the store as --store postgres://… or a server's data folder as --data DIR, one of them".into()))
        }
    }
}

/// A data folder's database, opened for the CLI: refused while a server holds it.
fn folder(dir: &Path) -> Result<FolderDatabase, Failure> {
    FolderDatabase::open(dir).map_err(|e| Failure::Failed(format!("{e} (stop the server on this folder first: nothing was changed)")))
}

/// Copy game `id` of `from` into a new SQLite file `file` (with its seats, if the store keeps
/// them). Refuses to touch an existing file.
pub fn export(from: Store<'_>, id: &str, file: &Path) -> Result<Moved, Failure> {
    if file.exists() {
        return Err(Failure::Failed(format!("{} already exists: nothing was exported", file.display())));
    }
    match from {
        Store::Postgres(url) => export_pg(url, id, file),
        Store::Folder(dir) => {
            let db = folder(dir)?;
            db.export_game(id, file)?;
            // Read back and replayed as any open is: a copy that does not verify is not kept.
            let checked = (|| -> Result<Moved, Failure> {
                let copy = Session::open_read_only(file, &catalogue())?;
                let chat = copy.store().chat()?.len();
                let head = copy.store().head()?;
                let seats = copy.store().doc(SEATS_DOC)?.is_some();
                Ok(Moved { id: id.into(), moves: copy.seq(), chat, seats, chain: head.1 })
            })();
            if checked.is_err() {
                let _ = SqliteStore::remove(file);
            }
            checked
        }
    }
}

fn export_pg(url: &str, id: &str, file: &Path) -> Result<Moved, Failure> {
    let db = PgDatabase::connect(url)?;
    // Read and verified (replayed) as any open is: a damaged game is not copied.
    let source = Session::load(db.open_game(id)?, &catalogue())?;
    let chat = source.store().chat()?;
    let seats = db.doc(id, SEATS_DOC)?;
    let head = source.store().head()?;
    let written = write_file(file, &source, &chat, seats.as_deref(), &head);
    if written.is_err() {
        let _ = SqliteStore::remove(file);
    }
    written?;
    Ok(Moved { id: id.into(), moves: source.seq(), chat: chat.len(), seats: seats.is_some(), chain: head.1 })
}

fn write_file<S: EventStore>(
    file: &Path,
    source: &Session<S>,
    chat: &[arbiter_store::ChatMessage],
    seats: Option<&str>,
    head: &(u64, String),
) -> Result<(), Failure> {
    let docs: Vec<(&str, &str)> = seats.map(|json| (SEATS_DOC, json)).into_iter().collect();
    let mut store = SqliteStore::create_with_docs(file, source.header(), Journal::Rollback, &docs)?;
    store.lock()?;
    for row in source.rows() {
        if let Err(e) = store.append(row) {
            store.rollback();
            return Err(e.into());
        }
    }
    store.commit()?;
    if !chat.is_empty() {
        store.restore_chat(chat)?;
    }
    drop(store);
    let copy = Session::open_read_only(file, &catalogue())?;
    check_same(copy.store().head()?, head)
}

fn check_same(copy: (u64, String), original: &(u64, String)) -> Result<(), Failure> {
    if copy != *original {
        return Err(Failure::Failed(format!(
            "the copy does not end where the original does (move {} against {}): nothing was kept",
            copy.0, original.0
        )));
    }
    Ok(())
}

/// Copy the SQLite game `file` (with its seats: its document, or an earlier server's seats
/// file beside it) into `into` as game `id` (default: the file's name without `.arbiter`).
/// Refuses an id the store already holds.
pub fn import(file: &Path, into: Store<'_>, id: Option<&str>) -> Result<Moved, Failure> {
    let id = match id {
        Some(id) => id.to_string(),
        None => id_of(file)?,
    };
    // Replayed and verified first: a damaged file is refused before anything is written.
    let source = Session::open_read_only(file, &catalogue())?;
    let chat = source.store().chat()?;
    let head = source.store().head()?;
    let seats_path = legacy_seats_file(file);
    let seats = match source.store().doc(SEATS_DOC)? {
        Some(text) => Some((text, format!("{}'s seats document", file.display()))),
        None => match std::fs::read_to_string(&seats_path) {
            Ok(text) => Some((text, seats_path.display().to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Failure::Failed(format!("{}: cannot be read: {e}", seats_path.display()))),
        },
    };
    if let Some((text, what)) = &seats {
        if serde_json::from_str::<serde_json::Value>(text).is_err() {
            return Err(Failure::Failed(format!("{what}: not JSON: nothing was imported")));
        }
    }
    let seats = seats.map(|(text, _)| text);
    let url = match into {
        Store::Postgres(url) => url,
        Store::Folder(dir) => {
            let db = folder(dir)?;
            let store = db.import_file(&id, file)?;
            let rest = (|| -> Result<(), Failure> {
                if let (Some(json), None) = (&seats, store.doc(SEATS_DOC)?) {
                    db.put_doc(&id, SEATS_DOC, json)?;
                }
                let copy = Session::load(db.open_game(&id)?, &catalogue())?;
                check_same(copy.store().head()?, &head)
            })();
            if let Err(e) = rest {
                let _ = db.delete_game(&id);
                return Err(e);
            }
            return Ok(Moved { id, moves: source.seq(), chat: chat.len(), seats: seats.is_some(), chain: head.1 });
        }
    };
    let db = PgDatabase::connect(url)?;
    let store = db.import_game(&id, source.header(), source.rows())?;
    let rest = (|| -> Result<(), Failure> {
        if !chat.is_empty() {
            store.restore_chat(&chat)?;
        }
        if let Some(json) = &seats {
            db.put_doc(&id, SEATS_DOC, json)?;
        }
        let copy = Session::load(db.open_game(&id)?, &catalogue())?;
        check_same(copy.store().head()?, &head)
    })();
    if let Err(e) = rest {
        let _ = db.delete_game(&id);
        return Err(e);
    }
    Ok(Moved { id, moves: source.seq(), chat: chat.len(), seats: seats.is_some(), chain: head.1 })
}
