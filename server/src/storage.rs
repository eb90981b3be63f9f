//! Where the server keeps its games: the one module that knows the data folder's files (a
//! game's saved record `GAME.arbiter`, its seats document inside it). Everything else (the
//! hub, the lobby, the quota) asks [`Storage`]: create a game, open it (to play, or only to
//! read), load and save its seats document, list the games, the space they take.
//!
//! The seats document is the game's document `seats` in either store (the store's
//! `doc`/`put_doc`): in a data folder, a table of the game's file, written with the game's
//! first write (one file per game and its write-ahead companions: a seats file beside each
//! game was one more file made, synced and renamed per creation and per seat change; issue 25,
//! "a creation's files"). A folder written by an earlier server has `GAME.seats.json` beside
//! the game: it is read while the game has no document, and removed once one is written.
//!
//! `Postgres` keeps every game in one PostgreSQL database that several server processes may
//! share: the record in the store's tables, the seats document as the game's doc `seats`, the
//! lobby's facts as its doc `listing`; a game is served by the process holding its lease
//! (`crate::cluster`).
//!
//! A data folder's game files are durable through the folder's redo log
//! (`arbiter_store::RedoLog`, in `DATA/redo/`, opened and applied by [`Storage::open`]): many
//! games' moves in one fsync.
//!
//! Blocking throughout (SQLite with fsync; the `postgres` crate blocks): call from a blocking
//! thread.

use crate::cluster::lease::{self, Lease};
use crate::seats::SeatsFile;
use arbiter_kernel::{Catalogue, GameKind};
use arbiter_store::{AnyStore, GamePlace, Journal, PgDatabase, RedoLog, SessionError, SqliteStore, StoreError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The store a game of this server is played on (a SQLite file or a database's game, chosen
/// when the server starts).
pub type GameStore = AnyStore;
/// A game bound to the server's store.
pub type Session = arbiter_store::Session<GameStore>;

/// Who serves a game: this process, or another one (several processes on one database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This process holds the game's lease (or the storage has no leases: one process).
    Ours,
    /// Another live process holds it until its lease expires: requests go to its address.
    Elsewhere { address: String, expires_in: std::time::Duration },
}

/// The server's storage.
#[derive(Debug)]
pub enum Storage {
    /// A folder: each game's SQLite file (its seats document inside it).
    Files {
        data: PathBuf,
        /// What its files take, for the quota ([`Storage::bytes_used`]).
        usage: Mutex<Usage>,
        /// The folder's redo log, through which every game file's writes are durable
        /// (`arbiter_store::RedoLog`: many games' moves in one fsync).
        redo: Arc<RedoLog>,
    },
    /// A PostgreSQL database shared by any number of server processes.
    Postgres {
        db: PgDatabase,
        /// This process's lease owner id (random, new at each start).
        owner: String,
        /// Where the other processes reach this one (`--advertise`).
        address: String,
        /// How long a lease lasts unless renewed.
        ttl: Duration,
        /// The secret the processes on this database share ([`lease::peers_secret`]): a
        /// forwarded request carrying it is a peer's, and what it says of its client is trusted.
        peers_secret: String,
    },
}

/// What a data folder's files took when last measured, and what the games made since add.
/// Measuring reads the folder (every file's size, under the folder's lock, which every
/// creation takes to add its names): once per creation, that was 200 readings of a growing
/// folder in a burst of 200 creations, each waiting for and holding up the others
/// (BENCHMARKS.md, issue 25, "a creation burst"), and a cost growing with the games kept.
#[derive(Debug, Default)]
pub struct Usage {
    measured: Option<(Instant, u64)>,
    /// The files of the games made since, counted as each was made.
    added: u64,
}

/// How long a measure of the data folder stands. What it misses meanwhile is the games' own
/// growth (their moves: kilobytes a second); every game made is counted at once.
const MEASURE_EVERY: Duration = Duration::from_secs(1);

/// The seats document of a game in a database.
const SEATS_DOC: &str = "seats";
/// The lobby's facts of a game in a database (`crate::lobby`), so every process lists it.
pub const LISTING_DOC: &str = "listing";

impl Storage {
    /// Ready to serve: the data folder exists.
    pub fn prepare(&self) -> Result<(), String> {
        match self {
            // Made when the storage was opened (its redo log is in it).
            Storage::Files { .. } => Ok(()),
            // Connecting checked the database and its schema.
            Storage::Postgres { .. } => Ok(()),
        }
    }

    /// Where the games are, for the server's first line.
    pub fn describe(&self) -> String {
        match self {
            Storage::Files { data, .. } => format!("games in {}", data.display()),
            Storage::Postgres { db, address, .. } => format!("games in the {}, this server reached at {address}", db.label()),
        }
    }

    fn game_path(data: &Path, id: &str) -> PathBuf {
        data.join(format!("{id}.arbiter"))
    }

    /// The seats file an earlier server wrote beside a game (read while the game has no seats
    /// document).
    fn legacy_seats_path(data: &Path, id: &str) -> PathBuf {
        data.join(format!("{id}.seats.json"))
    }

    /// A new game `id` of `kind` (its options refused with the game's reason), with the seats
    /// document `seats` makes for its number of seats, stored with the game: in a data folder,
    /// in the game file's first write.
    pub fn create_game(
        &self,
        id: &str,
        kind: &'static dyn GameKind,
        options: &serde_json::Value,
        seed: u64,
        seats: impl FnOnce(usize) -> Result<SeatsFile, String>,
    ) -> Result<(Session, SeatsFile), SessionError> {
        let failed = |place: &Path, what: String| SessionError::Store(StoreError::WriteFailed { path: place.into(), what });
        let mut made = None;
        let session = match self {
            Storage::Files { data, redo, .. } => {
                let path = Self::game_path(data, id);
                Session::create_with(kind, options, seed, |header| {
                    let file = seats(header.seats.len()).map_err(|what| StoreError::WriteFailed { path: path.clone(), what })?;
                    let json = file.to_json().map_err(|what| StoreError::WriteFailed { path: path.clone(), what })?;
                    let store = SqliteStore::create_on_log(&path, header, &[(SEATS_DOC, &json)], redo.clone())?;
                    made = Some(file);
                    Ok(AnyStore::Sqlite(store))
                })?
            }
            Storage::Postgres { db, .. } => {
                let session = Session::create_in(GamePlace::Postgres { db, id }, kind, options, seed)?;
                let place = Path::new(id);
                // The new game is this process's (nobody else knows its id yet): its lease is
                // taken before its first fenced write, the seats.
                let claimed = match self.claim(id) {
                    Ok(Claim::Ours) => Ok(()),
                    Ok(Claim::Elsewhere { .. }) => Err("a new game's id was taken: try again".to_string()),
                    Err(e) => Err(e),
                };
                let saved = claimed.and_then(|()| seats(session.header().seats.len())).and_then(|file| {
                    self.save_seats(id, &session, &file)
                        .map_err(|e| format!("game {id}'s seats document was not stored: {e}"))
                        .map(|()| file)
                });
                match saved {
                    Ok(file) => made = Some(file),
                    Err(what) => {
                        // A game without seats would be no game of the server's: not kept.
                        drop(session);
                        self.discard_game(id);
                        return Err(failed(place, what));
                    }
                }
                session
            }
        };
        let file = made.ok_or_else(|| failed(Path::new(id), "the seats document was not made (engine fault)".into()))?;
        Ok((session, file))
    }

    /// Remove a game just created that is not wanted after all (nobody was given its links).
    pub fn discard_game(&self, id: &str) {
        match self {
            Storage::Files { data, redo, .. } => {
                // With its SQLite companions (a log left behind would be applied to the next
                // file of this name), and in the redo log (whose record of the creation would
                // make it again after a crash).
                if let Err(e) = redo.remove_game(&Self::game_path(data, id)) {
                    eprintln!("arbiter serve: game {id} was not wanted but could not be removed: {e}");
                }
            }
            Storage::Postgres { db, .. } => {
                if let Err(e) = db.delete_game(id) {
                    eprintln!("arbiter serve: game {id} was not wanted but could not be removed: {e}");
                }
            }
        }
    }

    /// Whether game `id` is kept here (its record and its seats: a game file without seats, such
    /// as one `arbiter` made and copied into the folder, is not the server's). In a data folder
    /// the file is opened read-only to look (once per loading of a game, never per request): a
    /// writable open would switch a player's file to a write-ahead log. A file that cannot be
    /// read is said in the server's log.
    pub fn exists(&self, id: &str) -> bool {
        match self {
            Storage::Files { data, .. } => {
                let game = Self::game_path(data, id);
                if !game.exists() {
                    return false;
                }
                if Self::legacy_seats_path(data, id).exists() {
                    return true;
                }
                match SqliteStore::open_read_only(&game).and_then(|s| s.doc(SEATS_DOC)) {
                    Ok(d) => d.is_some(),
                    Err(e) => {
                        eprintln!("arbiter serve: game {id}: {e}");
                        false
                    }
                }
            }
            Storage::Postgres { db, .. } => match db.doc(id, SEATS_DOC) {
                Ok(d) => d.is_some(),
                Err(e) => {
                    eprintln!("arbiter serve: game {id}: {e}");
                    false
                }
            },
        }
    }

    /// Open game `id` to play it: every move replayed and verified.
    pub fn open_game(&self, id: &str, games: &Catalogue) -> Result<Session, SessionError> {
        match self {
            Storage::Files { data, redo, .. } => {
                let store = SqliteStore::open_with(&Self::game_path(data, id), Journal::WriteAhead)?;
                // A file the server cannot write is served to read, as before (its moves are
                // refused as read-only); every other goes on the folder's redo log.
                let store = if store.is_read_only() { store } else { store.with_redo(redo.clone())? };
                Session::load(AnyStore::Sqlite(store), games)
            }
            Storage::Postgres { db, .. } => Session::open_in(GamePlace::Postgres { db, id }, games),
        }
    }

    /// Open game `id` only to read it (never written, never upgraded), with its seats document:
    /// read first, so that a file without one (not the server's) is not replayed for nothing.
    pub fn open_read_only(&self, id: &str, games: &Catalogue) -> Result<(Session, SeatsFile), String> {
        match self {
            Storage::Files { data, .. } => {
                let store = SqliteStore::open_read_only(&Self::game_path(data, id)).map_err(|e| e.to_string())?;
                let seats = self.seats_from(id, store.doc(SEATS_DOC))?;
                Ok((Session::load(AnyStore::Sqlite(store), games).map_err(|e| e.to_string())?, seats))
            }
            // Reading a database's game changes nothing in it.
            Storage::Postgres { db, .. } => {
                let seats = self.load_seats(id)?;
                Ok((Session::open_in(GamePlace::Postgres { db, id }, games).map_err(|e| e.to_string())?, seats))
            }
        }
    }

    /// Game `id`'s seats document (a game not loaded: its file is opened to read it).
    pub fn load_seats(&self, id: &str) -> Result<SeatsFile, String> {
        let doc = match self {
            Storage::Files { data, .. } => SqliteStore::open_read_only(&Self::game_path(data, id)).and_then(|s| s.doc(SEATS_DOC)),
            Storage::Postgres { db, .. } => db.doc(id, SEATS_DOC),
        };
        self.seats_from(id, doc)
    }

    /// Game `id`'s seats document, read from its open `session`.
    pub fn seats_of(&self, id: &str, session: &Session) -> Result<SeatsFile, String> {
        self.seats_from(id, session.store().doc(SEATS_DOC))
    }

    /// The seats document read from the store (`doc`), or else an earlier server's seats file.
    fn seats_from(&self, id: &str, doc: Result<Option<String>, StoreError>) -> Result<SeatsFile, String> {
        match doc {
            Ok(Some(text)) => SeatsFile::parse(&text, &format!("game {id}'s seats document")),
            Ok(None) => match self {
                Storage::Files { data, .. } if Self::legacy_seats_path(data, id).exists() => {
                    SeatsFile::load(&Self::legacy_seats_path(data, id))
                }
                Storage::Files { .. } | Storage::Postgres { .. } => {
                    Err(format!("game {id} has no seats document (it was not made by a server)"))
                }
            },
            Err(e) => Err(format!("game {id}'s seats document cannot be read: {e}")),
        }
    }

    /// Write game `id`'s seats document through its open `session` (whole, in one durable
    /// write: a crash leaves the old one or the new one).
    pub fn save_seats(&self, id: &str, session: &Session, seats: &SeatsFile) -> Result<(), StoreError> {
        let json = seats.to_json().map_err(|what| StoreError::WriteFailed { path: PathBuf::from(format!("game {id}")), what })?;
        session.store().put_doc(SEATS_DOC, &json)?;
        if let Storage::Files { data, .. } = self {
            // An earlier server's seats file, now outdated by the document (which is read
            // first): removed so that nothing reads it again.
            let legacy = Self::legacy_seats_path(data, id);
            if legacy.exists() {
                if let Err(e) = arbiter_store::change_folder(&legacy, || std::fs::remove_file(&legacy)) {
                    eprintln!("arbiter serve: {}: outdated by the game's seats document, but not removed: {e}", legacy.display());
                }
            }
        }
        Ok(())
    }

    /// The ids of every game kept here (in a data folder, every game file named as the server
    /// names them: one without a seats document is not the server's, and loading it says so).
    pub fn game_ids(&self) -> Vec<String> {
        match self {
            Storage::Files { data, .. } => {
                let Ok(dir) = std::fs::read_dir(data) else { return Vec::new() };
                dir.flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().to_string();
                        name.strip_suffix(".arbiter").filter(|id| crate::seats::valid_game_id(id)).map(String::from)
                    })
                    .collect()
            }
            Storage::Postgres { db, .. } => db.game_ids().unwrap_or_else(|e| {
                eprintln!("arbiter serve: the games cannot be listed: {e}");
                Vec::new()
            }),
        }
    }

    /// The bytes the games take (what `Config::disk_quota` bounds), where the server measures
    /// it: a database's space is its administrator's (`None`).
    pub fn bytes_used(&self) -> Option<u64> {
        match self {
            Storage::Files { data, usage, .. } => {
                let mut u = usage.lock().unwrap_or_else(|p| p.into_inner());
                match u.measured {
                    Some((at, bytes)) if at.elapsed() < MEASURE_EVERY => Some(bytes + u.added),
                    // Measured again under the lock: the creations meanwhile wait for this one
                    // reading instead of each making its own.
                    _ => {
                        let bytes = crate::limits::folder_bytes(data);
                        *u = Usage { measured: Some((Instant::now(), bytes)), added: 0 };
                        Some(bytes)
                    }
                }
            }
            Storage::Postgres { .. } => None,
        }
    }

    /// How long the data folder's redo log took to make moves durable (each batch's write and
    /// sync): what an answer waits on the disk for. A database measures its own commits
    /// (`None`).
    pub fn sync_times(&self) -> Option<arbiter_store::SyncTimes> {
        match self {
            Storage::Files { redo, .. } => Some(redo.sync_times()),
            Storage::Postgres { .. } => None,
        }
    }

    /// Game `id` was just made: its files count in [`Storage::bytes_used`] at once (until the
    /// next measure, which reads them; one read since may count them twice, never less).
    pub fn count_new_game(&self, id: &str) {
        match self {
            Storage::Files { data, usage, .. } => {
                let game = Self::game_path(data, id);
                let mut wal = game.clone().into_os_string();
                wal.push("-wal");
                let bytes: u64 = [game, wal.into()].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
                usage.lock().unwrap_or_else(|p| p.into_inner()).added += bytes;
            }
            Storage::Postgres { .. } => {}
        }
    }

    /// Whether several processes may serve these games (leases, forwarding). A data folder is
    /// one process's.
    pub fn is_shared(&self) -> bool {
        match self {
            Storage::Files { .. } => false,
            Storage::Postgres { .. } => true,
        }
    }

    /// The secret the processes sharing these games show each other, if several may serve them.
    pub fn peers_secret(&self) -> Option<&str> {
        match self {
            Storage::Files { .. } => None,
            Storage::Postgres { peers_secret, .. } => Some(peers_secret),
        }
    }

    /// Take (or renew) game `id`'s lease for this process, or say who holds it. Loading a game
    /// claims it first: only the owner plays it, runs its clock and its computer seats.
    pub fn claim(&self, id: &str) -> Result<Claim, String> {
        match self {
            Storage::Files { .. } => Ok(Claim::Ours),
            Storage::Postgres { db, owner, address, ttl, .. } => match lease::acquire(db, id, owner, address, *ttl) {
                Ok(Lease::Acquired) => Ok(Claim::Ours),
                Ok(Lease::HeldBy { address, expires_in, .. }) => Ok(Claim::Elsewhere { address, expires_in }),
                Err(e) => Err(format!("game {id}'s lease cannot be taken: {e}")),
            },
        }
    }

    /// Renew every lease this process holds (one statement); the games still held. `None`
    /// for a storage without leases.
    pub fn renew(&self) -> Result<Option<Vec<String>>, String> {
        match self {
            Storage::Files { .. } => Ok(None),
            Storage::Postgres { db, owner, ttl, .. } => lease::renew(db, owner, *ttl).map(Some).map_err(|e| e.to_string()),
        }
    }

    /// Give game `id`'s lease up (it was unloaded): another process may serve it at once.
    pub fn release(&self, id: &str) {
        match self {
            Storage::Files { .. } => {}
            Storage::Postgres { db, owner, .. } => {
                if let Err(e) = lease::release(db, id, owner) {
                    // It expires on its own.
                    eprintln!("arbiter serve: game {id}'s lease could not be released: {e}");
                }
            }
        }
    }
}

impl Storage {
    /// The storage `config` asks for: its database (`Config::store`: connected, its schema
    /// checked, this process given a lease owner id), else its data folder.
    pub fn open(config: &crate::Config, address: &str) -> Result<Storage, String> {
        match &config.store {
            None => {
                let data = config.data.clone();
                std::fs::create_dir_all(&data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
                // What a crash left in the log is applied to the games before any is read.
                let (redo, report) = RedoLog::open(&data).map_err(|e| e.to_string())?;
                for line in report {
                    eprintln!("arbiter serve: {line}");
                }
                Ok(Storage::Files { data, usage: Mutex::default(), redo })
            }
            Some(url) => {
                let owner = crate::seats::new_token()?;
                // Every write is this owner's, stored only while it holds the game's lease.
                let db = lease::fenced(PgDatabase::connect(url).map_err(|e| e.to_string())?, &owner);
                lease::prepare(&db).map_err(|e| e.to_string())?;
                let peers_secret = lease::peers_secret(&db, &crate::seats::new_token()?).map_err(|e| e.to_string())?;
                Ok(Storage::Postgres { db, owner, address: address.to_string(), ttl: config.lease_ttl, peers_secret })
            }
        }
    }

    /// Every game's lobby facts as stored by the processes serving them (a database only), in
    /// one query.
    pub fn listings(&self) -> Vec<(String, String)> {
        match self {
            Storage::Files { .. } => Vec::new(),
            Storage::Postgres { db, .. } => db.docs(LISTING_DOC).unwrap_or_else(|e| {
                eprintln!("arbiter serve: the games' lobby facts cannot be read: {e}");
                Vec::new()
            }),
        }
    }

    /// Store game `id`'s lobby facts for the other processes (a database only).
    pub fn put_listing(&self, id: &str, json: &str) {
        match self {
            Storage::Files { .. } => {}
            Storage::Postgres { db, .. } => {
                if let Err(e) = db.put_doc(id, LISTING_DOC, json) {
                    eprintln!("arbiter serve: game {id}'s lobby facts were not stored: {e}");
                }
            }
        }
    }
}
