//! Where the server keeps its games: the one module that knows the data folder's files (a
//! game's saved record `GAME.arbiter`, its seats `GAME.seats.json`). Everything else (the hub,
//! the lobby, the quota) asks [`Storage`]: create a game, open it (to play, or only to read),
//! load and save its seats document, list the games, the space they take.
//!
//! Blocking throughout (SQLite with fsync): call from a blocking thread.

use crate::seats::SeatsFile;
use arbiter_kernel::{Catalogue, GameKind};
use arbiter_store::{SessionError, SqliteStore};
use std::path::{Path, PathBuf};

/// The store a game of this server is played on.
pub type GameStore = SqliteStore;
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
    /// A folder: each game's SQLite file and its seats file beside it.
    Files { data: PathBuf },
}

impl Storage {
    /// Ready to serve: the data folder exists.
    pub fn prepare(&self) -> Result<(), String> {
        match self {
            Storage::Files { data } => std::fs::create_dir_all(data).map_err(|e| format!("cannot create {}: {e}", data.display())),
        }
    }

    /// Where the games are, for the server's first line.
    pub fn describe(&self) -> String {
        match self {
            Storage::Files { data } => format!("games in {}", data.display()),
        }
    }

    fn game_path(data: &Path, id: &str) -> PathBuf {
        data.join(format!("{id}.arbiter"))
    }

    fn seats_path(data: &Path, id: &str) -> PathBuf {
        data.join(format!("{id}.seats.json"))
    }

    /// A new game `id` of `kind` (its options refused with the game's reason).
    pub fn create_game(
        &self,
        id: &str,
        kind: &'static dyn GameKind,
        options: &serde_json::Value,
        seed: u64,
    ) -> Result<Session, SessionError> {
        match self {
            Storage::Files { data } => Session::create(&Self::game_path(data, id), kind, options, seed),
        }
    }

    /// Remove a game just created that is not wanted after all (its seats never written).
    pub fn discard_game(&self, id: &str) {
        match self {
            Storage::Files { data } => {
                let _ = std::fs::remove_file(Self::game_path(data, id));
            }
        }
    }

    /// Whether game `id` is kept here (its record and its seats).
    pub fn exists(&self, id: &str) -> bool {
        match self {
            Storage::Files { data } => Self::game_path(data, id).exists() && Self::seats_path(data, id).exists(),
        }
    }

    /// Open game `id` to play it: every move replayed and verified.
    pub fn open_game(&self, id: &str, games: &Catalogue) -> Result<Session, SessionError> {
        match self {
            Storage::Files { data } => Session::open(&Self::game_path(data, id), games),
        }
    }

    /// Open game `id` only to read it (never written, never upgraded).
    pub fn open_read_only(&self, id: &str, games: &Catalogue) -> Result<Session, SessionError> {
        match self {
            Storage::Files { data } => Session::open_read_only(&Self::game_path(data, id), games),
        }
    }

    /// Game `id`'s seats document.
    pub fn load_seats(&self, id: &str) -> Result<SeatsFile, String> {
        match self {
            Storage::Files { data } => SeatsFile::load(&Self::seats_path(data, id)),
        }
    }

    /// Write game `id`'s seats document (whole: a crash leaves the old one or the new one).
    pub fn save_seats(&self, id: &str, seats: &SeatsFile) -> Result<(), String> {
        match self {
            Storage::Files { data } => seats.save(&Self::seats_path(data, id)),
        }
    }

    /// The ids of every game kept here (those with a seats document: the server's games).
    pub fn game_ids(&self) -> Vec<String> {
        match self {
            Storage::Files { data } => {
                let Ok(dir) = std::fs::read_dir(data) else { return Vec::new() };
                dir.flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().to_string();
                        name.strip_suffix(".seats.json").filter(|id| crate::seats::valid_game_id(id)).map(String::from)
                    })
                    .collect()
            }
        }
    }

    /// The bytes the games take (what `Config::disk_quota` bounds).
    pub fn bytes_used(&self) -> u64 {
        match self {
            Storage::Files { data } => crate::limits::folder_bytes(data),
        }
    }

    /// Whether several processes may serve these games (leases, forwarding). A data folder is
    /// one process's.
    pub fn is_shared(&self) -> bool {
        match self {
            Storage::Files { .. } => false,
        }
    }

    /// Take (or renew) game `id`'s lease for this process, or say who holds it. Loading a game
    /// claims it first: only the owner plays it, runs its clock and its computer seats.
    pub fn claim(&self, _id: &str) -> Result<Claim, String> {
        match self {
            Storage::Files { .. } => Ok(Claim::Ours),
        }
    }

    /// Renew every lease this process holds (one statement); the games still held. `None`
    /// for a storage without leases.
    pub fn renew(&self) -> Result<Option<Vec<String>>, String> {
        match self {
            Storage::Files { .. } => Ok(None),
        }
    }

    /// Give game `id`'s lease up (it was unloaded): another process may serve it at once.
    pub fn release(&self, _id: &str) {
        match self {
            Storage::Files { .. } => {}
        }
    }
}
