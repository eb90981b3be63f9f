//! Random seeded playouts: no panic, no dead end, every game ends with a recorded reason, and
//! the invariants hold after every move.

use arbiter_engine::Options;
use arbiter_tests::random_game;
use std::collections::BTreeMap;

#[test]
fn one_thousand_random_games_end_cleanly() {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for seed in 0..1000u64 {
        let options = Options { optional_cards: seed % 2 == 1, us_bonus: (seed % 3) as u8 };
        let p = random_game(seed, options, false).unwrap_or_else(|e| panic!("{e}"));
        let outcome = p.game.outcome().expect("a finished game records its outcome");
        *reasons.entry(format!("{:?}", outcome.reason)).or_default() += 1;
    }
    // Random play must reach the ordinary game ends, not only one of them.
    assert!(reasons.len() >= 3, "end reasons: {reasons:?}");
}

#[test]
fn legal_moves_agree_with_validation_in_random_games() {
    for seed in 0..40u64 {
        random_game(10_000 + seed, Options::default(), true).unwrap_or_else(|e| panic!("{e}"));
    }
}
