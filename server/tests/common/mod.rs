//! Helpers shared by the server's test binaries.

use arbiter_engine::{Game, Options, Randomness, Side};

/// A game where a seat may interject ("at any time": cancelling the Cuban Missile Crisis),
/// found by random legal moves in the referee's own games: the seed, the moves up to that
/// point (each with its side), the interjecting side and one interjection it may make.
pub fn interjection_ahead(options: Options) -> (u64, Vec<(Side, String)>, Side, String) {
    (0..400u64)
        .find_map(|seed| {
            let (mut g, _) = Game::new(arbiter_cards::ruleset(), options, Randomness::seeded(seed));
            let mut x = seed;
            let mut moves = Vec::new();
            while g.outcome().is_none() {
                let d = g.decision()?;
                if let Some(m) = g.interjections(d.side.opponent()).first() {
                    return Some((seed, moves, d.side.opponent(), g.move_text(m)));
                }
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let m = d.moves[(x >> 33) as usize % d.moves.len()].clone();
                moves.push((d.side, g.move_text(&m)));
                g.play(&m).ok()?;
            }
            None
        })
        .expect("an interjection in 400 random games")
}
