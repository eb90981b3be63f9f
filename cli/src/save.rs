//! Saved games. A save records the seed, the options and every accepted move in canonical
//! notation; loading replays the moves, so the game is rebuilt exactly (the engine is
//! deterministic for a given seed). This JSON file is the interim store until the SQLite event
//! log (issue #3) replaces it behind the same functions.

use arbiter_engine::{Game, Options, Randomness, Report};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedGame {
    pub format: u32,
    pub engine_version: String,
    pub seed: u64,
    pub options: Options,
    pub moves: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("{0} is not an Arbiter save file: {1}")]
    Format(PathBuf, String),
    #[error("{0} was written by a newer Arbiter (save format {1}; this one reads {FORMAT})")]
    Newer(PathBuf, u32),
    #[error("{path}: move {index} ({text:?}) no longer replays: {why}")]
    Replay {
        path: PathBuf,
        index: usize,
        text: String,
        why: String,
    },
}

/// A loaded game: the save, the rebuilt game, and the log of every move (setup first).
pub struct Loaded {
    pub save: SavedGame,
    pub game: Game,
    pub log: Vec<Report>,
}

impl SavedGame {
    pub fn new(seed: u64, options: Options) -> SavedGame {
        SavedGame {
            format: FORMAT,
            engine_version: env!("CARGO_PKG_VERSION").into(),
            seed,
            options,
            moves: Vec::new(),
        }
    }

    pub fn read(path: &Path) -> Result<SavedGame, SaveError> {
        let text = std::fs::read_to_string(path).map_err(|e| SaveError::Read(path.into(), e))?;
        let save: SavedGame = serde_json::from_str(&text)
            .map_err(|e| SaveError::Format(path.into(), e.to_string()))?;
        if save.format > FORMAT {
            return Err(SaveError::Newer(path.into(), save.format));
        }
        Ok(save)
    }

    /// Write atomically: a crash leaves the old file or the new one, never half of one.
    pub fn write(&self, path: &Path) -> Result<(), SaveError> {
        let tmp = path.with_extension("tmp");
        let text = serde_json::to_string_pretty(self).expect("a save serialises");
        std::fs::write(&tmp, text).map_err(|e| SaveError::Write(tmp.clone(), e))?;
        std::fs::rename(&tmp, path).map_err(|e| SaveError::Write(path.into(), e))
    }

    /// Rebuild the game by replaying every move.
    pub fn load(self, path: &Path) -> Result<Loaded, SaveError> {
        let (mut game, first) = Game::new(
            arbiter_cards::ruleset(),
            self.options,
            Randomness::seeded(self.seed),
        );
        let mut log = vec![first];
        for (i, text) in self.moves.iter().enumerate() {
            let replay = |why: String| SaveError::Replay {
                path: path.into(),
                index: i + 1,
                text: text.clone(),
                why,
            };
            let m = game.parse(text).map_err(|e| replay(e.to_string()))?;
            log.push(game.play(&m).map_err(|e| replay(e.to_string()))?);
        }
        Ok(Loaded {
            save: self,
            game,
            log,
        })
    }
}
