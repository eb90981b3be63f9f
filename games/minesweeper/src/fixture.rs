//! Minesweeper's fixtures, in the project's format: an id, a title, the rules checked, a board
//! (its mines given, or a count and a seed to place them at the first open), moves (a refusal
//! step names the words its reason must contain, and must change nothing), and the expected
//! board, outcome and log. `arbiter fixtures` runs them beside Twilight Struggle's, by their
//! `game` field.

use crate::{Cell, Minesweeper, Options};
use arbiter_kernel::{Game, Randomness, Seat};
use serde::Deserialize;

/// The `game` field of a Minesweeper fixture.
pub const GAME: &str = "minesweeper";

/// Read a fixture file's text.
pub fn parse(text: &str) -> Result<Fixture, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// `"minesweeper"`: which game's fixture this is (the fixture runner dispatches on it).
    pub game: String,
    pub id: String,
    pub title: String,
    rules: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by people
    note: String,
    board: Board,
    steps: Vec<Step>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Board {
    width: u8,
    height: u8,
    /// Where the mines are (placed before the first move).
    #[serde(default)]
    mines: Option<Vec<String>>,
    /// Or how many, placed at the first open from this seed.
    #[serde(default)]
    mine_count: Option<u16>,
    #[serde(default)]
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    #[serde(rename = "move")]
    mv: String,
    #[serde(default)]
    reject: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    board: Vec<String>,
    outcome: Option<String>,
    #[serde(default)]
    log: Vec<String>,
}

/// Run one fixture: `Ok(())` if it passes, else why not.
pub fn run(f: &Fixture) -> Result<(), String> {
    if f.game != GAME {
        return Err(format!("game: {:?} is not a Minesweeper fixture (\"{GAME}\")", f.game));
    }
    if f.rules.is_empty() {
        return Err("a fixture names the rules it checks".into());
    }
    let b = &f.board;
    let mut g = match (&b.mines, b.mine_count, b.seed) {
        (Some(mines), None, None) => {
            let cells: Vec<Cell> = mines.iter().map(|m| Cell::parse(m)).collect::<Result<_, _>>()?;
            Minesweeper::with_mines(b.width, b.height, &cells).map_err(|e| e.to_string())?
        }
        (None, Some(mines), Some(seed)) => {
            Minesweeper::new(Options { width: b.width, height: b.height, mines }, Randomness::seeded(seed)).map_err(|e| e.to_string())?
        }
        _ => return Err("board: give `mines`, or `mine_count` and `seed`".into()),
    };
    let mut log = Vec::new();
    for (i, step) in f.steps.iter().enumerate() {
        let label = format!("step {} ({:?})", i + 1, step.mv);
        let before = arbiter_kernel::Game::state_hash(&g);
        let result = g.parse_move(&step.mv).and_then(|m| g.play_as(Seat(0), &m));
        match (result, &step.reject) {
            (Ok(r), None) => log.extend(r.lines_for(None).map(String::from)),
            (Ok(_), Some(want)) => return Err(format!("{label}: expected a refusal containing {want:?}, but it was accepted")),
            (Err(e), None) => return Err(format!("{label}: expected acceptance, got: {e}")),
            (Err(_), Some(want)) if want.trim().is_empty() => return Err(format!("{label}: an empty `reject` matches any refusal")),
            (Err(e), Some(want)) if !e.to_string().contains(want.as_str()) => {
                return Err(format!("{label}: expected a refusal containing {want:?}, got: {e}"))
            }
            (Err(_), Some(_)) if arbiter_kernel::Game::state_hash(&g) != before => {
                return Err(format!("{label}: the refused move changed the game"))
            }
            (Err(_), Some(_)) => {}
        }
    }
    let view = arbiter_kernel::Game::view(&g, None);
    if view.board != f.expect.board {
        return Err(format!("board: expected {:?}, got {:?}", f.expect.board, view.board));
    }
    if view.outcome.map(String::from) != f.expect.outcome {
        return Err(format!("outcome: expected {:?}, got {:?}", f.expect.outcome, view.outcome));
    }
    for want in &f.expect.log {
        if !log.iter().any(|l| l.contains(want.as_str())) {
            return Err(format!("the log lacks {want:?}: {log:?}"));
        }
    }
    Ok(())
}
