//! Where the server keeps its games: the one module that knows the store. Everything else (the
//! hub, the lobby, the quota) asks [`Storage`]: create a game, open it (to play, or only to
//! read), load and save its seats document, list the games, the space they take.
//!
//! `Folder` keeps a data folder's games in one SQLite database (`DATA/games.db`,
//! [`FolderDatabase`]: one writer committing many games' writes in one sync). The seats
//! document is the game's document `seats` (the store's `doc`/`put_doc`), stored in the
//! creation's commit. A folder an earlier server wrote (a file per game, `GAME.arbiter`, an
//! older one's `GAME.seats.json` beside it, a redo log in `DATA/redo/`) is imported at start
//! ([`migrate`]): the redo log applied, each game stored in the database, its files moved into
//! `DATA/imported/`.
//!
//! `Postgres` keeps every game in one PostgreSQL database that several server processes may
//! share: the record in the store's tables, the seats document as the game's doc `seats`, the
//! lobby's facts as its doc `listing`; a game is served by the process holding its lease
//! (`crate::cluster`).
//!
//! Blocking throughout (SQLite with fsync; the `postgres` crate blocks): call from a blocking
//! thread.

use crate::cluster::lease::{self, Lease};
use crate::seats::SeatsFile;
use arbiter_kernel::{Catalogue, GameKind};
use arbiter_store::{AnyStore, FolderDatabase, GamePlace, PgDatabase, SessionError, StoreError};
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    /// A data folder's database of games, held by this process.
    Folder { db: FolderDatabase },
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

/// The seats document of a game in a database.
const SEATS_DOC: &str = "seats";
/// The lobby's facts of a game in a database (`crate::lobby`), so every process lists it.
pub const LISTING_DOC: &str = "listing";

impl Storage {
    /// Ready to serve: the data folder exists.
    pub fn prepare(&self) -> Result<(), String> {
        match self {
            // Made when the storage was opened.
            Storage::Folder { .. } => Ok(()),
            // Connecting checked the database and its schema.
            Storage::Postgres { .. } => Ok(()),
        }
    }

    /// Where the games are, for the server's first line.
    pub fn describe(&self) -> String {
        match self {
            Storage::Folder { db } => format!("games in {}", db.path().display()),
            Storage::Postgres { db, address, .. } => format!("games in the {}, this server reached at {address}", db.label()),
        }
    }

    /// A new game `id` of `kind` (its options refused with the game's reason), with the seats
    /// document `seats` makes for its number of seats, stored with the game: in a data folder,
    /// in the creation's commit.
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
            Storage::Folder { db } => {
                let place = Path::new(id);
                Session::create_with(kind, options, seed, |header| {
                    let file = seats(header.seats.len()).map_err(|what| StoreError::WriteFailed { path: place.into(), what })?;
                    let json = file.to_json().map_err(|what| StoreError::WriteFailed { path: place.into(), what })?;
                    let store = db.create_game(id, header, &[(SEATS_DOC, &json)])?;
                    made = Some(file);
                    Ok(AnyStore::Folder(store))
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
            Storage::Folder { db } => {
                if let Err(e) = db.delete_game(id) {
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

    /// Whether game `id` is kept here (its record and its seats: a game without seats, such as
    /// a player's file imported from a folder, is not the server's). A store that cannot be
    /// read is said in the server's log.
    pub fn exists(&self, id: &str) -> bool {
        let doc = match self {
            Storage::Folder { db } => db.doc(id, SEATS_DOC),
            Storage::Postgres { db, .. } => db.doc(id, SEATS_DOC),
        };
        match doc {
            Ok(d) => d.is_some(),
            Err(e) => {
                eprintln!("arbiter serve: game {id}: {e}");
                false
            }
        }
    }

    /// Open game `id` to play it: every move replayed and verified.
    pub fn open_game(&self, id: &str, games: &Catalogue) -> Result<Session, SessionError> {
        match self {
            Storage::Folder { db } => Session::open_in(GamePlace::Folder { db, id }, games),
            Storage::Postgres { db, .. } => Session::open_in(GamePlace::Postgres { db, id }, games),
        }
    }

    /// Open game `id` only to read it (never written), with its seats document: read first, so
    /// that a game without one (not the server's) is not replayed for nothing. Reading a
    /// game changes nothing in either store.
    pub fn open_read_only(&self, id: &str, games: &Catalogue) -> Result<(Session, SeatsFile), String> {
        let seats = self.load_seats(id)?;
        let place = match self {
            Storage::Folder { db } => GamePlace::Folder { db, id },
            Storage::Postgres { db, .. } => GamePlace::Postgres { db, id },
        };
        Ok((Session::open_in(place, games).map_err(|e| e.to_string())?, seats))
    }

    /// Game `id`'s seats document (the game need not be loaded).
    pub fn load_seats(&self, id: &str) -> Result<SeatsFile, String> {
        let doc = match self {
            Storage::Folder { db } => db.doc(id, SEATS_DOC),
            Storage::Postgres { db, .. } => db.doc(id, SEATS_DOC),
        };
        seats_from(id, doc)
    }

    /// Game `id`'s seats document, read from its open `session`.
    pub fn seats_of(&self, id: &str, session: &Session) -> Result<SeatsFile, String> {
        seats_from(id, session.store().doc(SEATS_DOC))
    }

    /// Write game `id`'s seats document through its open `session` (whole, in one durable
    /// write: a crash leaves the old one or the new one).
    pub fn save_seats(&self, id: &str, session: &Session, seats: &SeatsFile) -> Result<(), StoreError> {
        let json = seats.to_json().map_err(|what| StoreError::WriteFailed { path: PathBuf::from(format!("game {id}")), what })?;
        session.store().put_doc(SEATS_DOC, &json)
    }

    /// The ids of every game kept here (with or without seats: one without is not the
    /// server's, and loading it says so).
    pub fn game_ids(&self) -> Vec<String> {
        let ids = match self {
            Storage::Folder { db } => db.game_ids(),
            Storage::Postgres { db, .. } => db.game_ids(),
        };
        ids.unwrap_or_else(|e| {
            eprintln!("arbiter serve: the games cannot be listed: {e}");
            Vec::new()
        })
    }

    /// The bytes the games take (what `Config::disk_quota` bounds), where the server measures
    /// it: in a data folder, its database and write-ahead log; a database's space is its
    /// administrator's (`None`).
    pub fn bytes_used(&self) -> Option<u64> {
        match self {
            Storage::Folder { db } => {
                let mut wal = db.path().as_os_str().to_owned();
                wal.push("-wal");
                Some([db.path(), Path::new(&wal)].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum())
            }
            Storage::Postgres { .. } => None,
        }
    }

    /// Whether several processes may serve these games (leases, forwarding). A data folder is
    /// one process's.
    pub fn is_shared(&self) -> bool {
        match self {
            Storage::Folder { .. } => false,
            Storage::Postgres { .. } => true,
        }
    }

    /// The secret the processes sharing these games show each other, if several may serve them.
    pub fn peers_secret(&self) -> Option<&str> {
        match self {
            Storage::Folder { .. } => None,
            Storage::Postgres { peers_secret, .. } => Some(peers_secret),
        }
    }

    /// Take (or renew) game `id`'s lease for this process, or say who holds it. Loading a game
    /// claims it first: only the owner plays it, runs its clock and its computer seats.
    pub fn claim(&self, id: &str) -> Result<Claim, String> {
        match self {
            Storage::Folder { .. } => Ok(Claim::Ours),
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
            Storage::Folder { .. } => Ok(None),
            Storage::Postgres { db, owner, ttl, .. } => lease::renew(db, owner, *ttl).map(Some).map_err(|e| e.to_string()),
        }
    }

    /// Give game `id`'s lease up (it was unloaded): another process may serve it at once.
    pub fn release(&self, id: &str) {
        match self {
            Storage::Folder { .. } => {}
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
                let db = FolderDatabase::open_shared(&data).map_err(|e| e.to_string())?;
                for line in migrate(&db)? {
                    eprintln!("arbiter serve: {line}");
                }
                Ok(Storage::Folder { db })
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
            Storage::Folder { .. } => Vec::new(),
            Storage::Postgres { db, .. } => db.docs(LISTING_DOC).unwrap_or_else(|e| {
                eprintln!("arbiter serve: the games' lobby facts cannot be read: {e}");
                Vec::new()
            }),
        }
    }

    /// Store game `id`'s lobby facts for the other processes (a database only).
    pub fn put_listing(&self, id: &str, json: &str) {
        match self {
            Storage::Folder { .. } => {}
            Storage::Postgres { db, .. } => {
                if let Err(e) = db.put_doc(id, LISTING_DOC, json) {
                    eprintln!("arbiter serve: game {id}'s lobby facts were not stored: {e}");
                }
            }
        }
    }
}

/// The seats document read from the store (`doc`).
fn seats_from(id: &str, doc: Result<Option<String>, StoreError>) -> Result<SeatsFile, String> {
    match doc {
        Ok(Some(text)) => SeatsFile::parse(&text, &format!("game {id}'s seats document")),
        Ok(None) => Err(format!("game {id} has no seats document (it was not made by a server)")),
        Err(e) => Err(format!("game {id}'s seats document cannot be read: {e}")),
    }
}

/// Import what an earlier server left in the database's folder: its redo log applied, then each
/// game file stored in the database and moved into `DATA/imported/`
/// ([`FolderDatabase::import_folder`]), and an older server's seats files (`GAME.seats.json`)
/// stored as their games' seats documents where a game has none, each then moved beside its
/// game. Nothing is deleted. Lines for the server's log.
pub fn migrate(db: &FolderDatabase) -> Result<Vec<String>, String> {
    let dir = db.folder().to_path_buf();
    let mut report = db.import_folder().map_err(|e| e.to_string())?;
    let listed = std::fs::read_dir(&dir).map_err(|e| format!("{} cannot be read: {e}", dir.display()))?;
    let mut legacy: Vec<(String, PathBuf)> = listed
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            Some((name.strip_suffix(".seats.json").filter(|id| crate::seats::valid_game_id(id))?.to_string(), e.path()))
        })
        .collect();
    legacy.sort();
    for (id, path) in legacy {
        let stored = match db.doc(&id, SEATS_DOC) {
            Ok(Some(_)) => Ok("its game has a seats document already".to_string()),
            Ok(None) if db.open_game(&id).is_err() => Err(format!("no game {id} is stored")),
            Ok(None) => SeatsFile::load(&path)
                .and_then(|file| file.to_json())
                .and_then(|json| db.put_doc(&id, SEATS_DOC, &json).map_err(|e| e.to_string()))
                .map(|()| "stored as its game's seats document".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let line = stored.and_then(|what| {
            let to = dir.join("imported").join(path.file_name().unwrap_or_default());
            if to.exists() {
                return Err(format!("{} is there already", to.display()));
            }
            arbiter_store::change_folder(&path, || std::fs::rename(&path, &to))
                .map_err(|e| format!("it could not be moved: {e}"))
                .map(|()| format!("{what}; moved to {}", to.display()))
        });
        report.push(match line {
            Ok(what) => format!("{}: {what}", path.display()),
            Err(e) => format!("{}: left in place: {e}", path.display()),
        });
    }
    Ok(report)
}
