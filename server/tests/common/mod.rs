//! Helpers shared by the server's test binaries.

use arbiter_twilight::{Options, Side};

/// A game where a seat may interject ("at any time": cancelling the Cuban Missile Crisis),
/// found by random play (`arbiter_twilight::playout::random_until`): the seed, the moves up to
/// that point (each with its side), the interjecting side and one interjection it may make.
pub fn interjection_ahead(options: Options) -> (u64, Vec<(Side, String)>, Side, String) {
    // A cancellation, not a headline chosen at the same time as the other side's (§4.5C).
    let open = |g: &arbiter_twilight::Game| {
        g.to_move()
            .map(|d| g.interjections(d.opponent()))
            .unwrap_or_default()
            .into_iter()
            .filter(|m| matches!(m, arbiter_twilight::Move::Cancel { .. }))
            .collect::<Vec<_>>()
    };
    let r = arbiter_twilight::playout::random_until(&arbiter_twilight_cards::ruleset(), options, 0..400, |g| !open(g).is_empty())
        .expect("an interjection in 400 random games");
    let interjector = r.game.to_move().expect("a decision").opponent();
    let first = open(&r.game)[0];
    (r.seed, r.moves, interjector, r.game.move_text(&first))
}
