//! Random playouts: a whole game with uniformly random legal moves, through the same legality
//! checks as real play (every move is validated by `Game::play`). Used by `arbiter bench`, the
//! soak tests and the criterion benchmarks.

use crate::game::Game;
use crate::registry::Ruleset;
use crate::report::Report;
use crate::rng::Randomness;
use crate::state::{Options, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The seed of the move-choosing generator for game seed `seed` (distinct from the game's own).
pub fn chooser_seed(seed: u64) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    pub seed: u64,
    pub decisions: u64,
    pub outcome: Outcome,
    pub final_hash: u64,
}

/// Play game `seed` to the end. `Err` means the engine listed a move it then refused, or
/// reached a dead end: a bug, reported rather than hidden.
pub fn random_game(rules: &Arc<Ruleset>, options: Options, seed: u64) -> Result<Playout, String> {
    let mut g = Game::new_quiet(rules.clone(), options, Randomness::seeded(seed));
    let mut rng = ChaCha8Rng::seed_from_u64(chooser_seed(seed));
    let mut decisions = 0u64;
    let mut report = Report::default();
    loop {
        if let Some(outcome) = g.outcome() {
            return Ok(Playout { seed, decisions, outcome, final_hash: g.hash64() });
        }
        // Picked by index from the listing's own form, which writes out no list (the moves are
        // numbered as `Game::legal` lists them, so the choice is the same).
        let moves = g.listing();
        let n = moves.len();
        if n == 0 {
            return Err(format!("seed {seed}: no legal move and no outcome after {decisions} decisions"));
        }
        let i = rng.random_range(0..n);
        let Some(m) = moves.get(i) else {
            return Err(format!("seed {seed}: move {i} of {n} listed is missing after {decisions} decisions"));
        };
        g.play_quiet_into(&m, &mut report).map_err(|e| format!("seed {seed}: listed move {m:?} refused: {e}"))?;
        decisions += 1;
    }
}

/// A position reached by random play: the game's seed, the moves that led there (each with the
/// side that made it, in notation) and the game there.
pub struct Reached {
    pub seed: u64,
    pub moves: Vec<(crate::side::Side, String)>,
    pub game: Game,
}

/// The first game among `seeds`, played with random legal moves (the chooser of
/// [`random_game`]), that reaches a decision where `wanted` holds (tests looking for a rare
/// position: a Cuban Missile Crisis one side may cancel).
pub fn random_until(
    rules: &Arc<Ruleset>,
    options: Options,
    seeds: std::ops::Range<u64>,
    wanted: impl Fn(&Game) -> bool,
) -> Option<Reached> {
    seeds.into_iter().find_map(|seed| {
        let (mut game, _) = Game::new(rules.clone(), options, Randomness::seeded(seed));
        let mut rng = ChaCha8Rng::seed_from_u64(chooser_seed(seed));
        let mut moves = Vec::new();
        while let Some(d) = game.decision() {
            if wanted(&game) {
                return Some(Reached { seed, moves, game });
            }
            let m = d.moves[rng.random_range(0..d.moves.len())];
            moves.push((d.side, game.move_text(&m)));
            game.play_quiet(&m).ok()?;
        }
        None
    })
}
