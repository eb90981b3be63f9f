//! The soak test: random seeded games played to the end with every rule check, the invariants
//! after every move, the legal-move list agreeing with validation at every decision, and a
//! sample of games saved to SQLite and replayed to identical hashes.

use arbiter_games::{catalogue, ts_options, TwilightSession, TWILIGHT_STRUGGLE};
use arbiter_store::Session;
use arbiter_tests::{random_game, Agreement};
use arbiter_twilight::Options;
use std::collections::BTreeMap;

const GAMES: u64 = 2000;

#[test]
fn soak_random_games() {
    let dir = tempfile::tempdir().unwrap();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut replayed = 0;
    let mut resolved: BTreeMap<arbiter_twilight::CardId, usize> = BTreeMap::new();
    for seed in 0..GAMES {
        let options = Options { optional_cards: seed % 2 == 1, us_bonus: (seed % 3) as u8 };
        // Every decision of every game: each listed move validates, moves outside the list are
        // refused; every 10th game also round-trips the notation of each listed move.
        let thorough = seed % 10 == 0;
        let agreement = Agreement { all_listed: true, notation: thorough, outside: 4 };
        let p = random_game(seed, options, Some(agreement)).unwrap_or_else(|e| panic!("{e}"));
        let outcome = p.game.outcome().expect("a finished game records its outcome");
        *reasons.entry(format!("{:?}", outcome.reason)).or_default() += 1;
        for c in &p.events {
            *resolved.entry(*c).or_default() += 1;
        }
        if seed % 50 == 0 {
            // Through SQLite: store every move, reopen (which replays and checks every row).
            let path = dir.path().join(format!("{seed}.arbiter"));
            let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(options), seed).unwrap();
            for m in &p.moves {
                s.play(m, None).unwrap_or_else(|e| panic!("seed {seed}: {m}: {e}"));
            }
            assert_eq!(s.ts().hash64(), p.game.hash64(), "seed {seed}: the stored game differs");
            let reopened = Session::open(&path, &catalogue()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(reopened.ts().hash64(), p.game.hash64());
            replayed += 1;
        }
    }
    assert_eq!(replayed, GAMES / 50);
    // Every implemented event took place at least once across the games.
    let rules = arbiter_twilight_cards::ruleset();
    let never: Vec<&str> =
        rules.cards.all().filter(|c| rules.implemented(c.id) && !resolved.contains_key(&c.id)).map(|c| c.name.as_str()).collect();
    assert!(never.is_empty(), "implemented events that never took place in {GAMES} random games: {never:?}");
    println!(
        "events resolved in {GAMES} games: {}",
        resolved.iter().map(|(c, n)| format!("{} {n}", rules.cards.name(*c))).collect::<Vec<_>>().join(", ")
    );
    // Random play must reach the ordinary game ends, not only one of them.
    for reason in ["Defcon1", "FinalScoring", "VictoryPoints"] {
        assert!(reasons.contains_key(reason), "no game ended by {reason}: {reasons:?}");
    }
}

/// The games the soak test plays are the games `arbiter bench` plays for the same seeds.
#[test]
fn soak_and_bench_play_the_same_games() {
    let rules = arbiter_twilight_cards::ruleset();
    for seed in 0..20 {
        let bench = arbiter_twilight::playout::random_game(&rules, Options::default(), seed).unwrap();
        let soak = random_game(seed, Options::default(), None).unwrap();
        assert_eq!((bench.final_hash, bench.decisions as usize), (soak.game.hash64(), soak.decisions));
    }
}

/// A quiet new game (random playouts, `arbiter bench`) is the new game, without its log: the
/// same state and the same first decision.
#[test]
fn a_quiet_new_game_is_the_new_game() {
    let rules = arbiter_twilight_cards::ruleset();
    for seed in 0..20 {
        let rng = || arbiter_twilight::Randomness::seeded(seed);
        let (game, report) = arbiter_twilight::Game::new(rules.clone(), Options::default(), rng());
        let quiet = arbiter_twilight::Game::new_quiet(rules.clone(), Options::default(), rng());
        assert!(!report.log.is_empty(), "a new game logs its deal");
        assert_eq!((quiet.hash64(), quiet.decision()), (game.hash64(), game.decision()), "seed {seed}");
    }
}

/// Playing into one reused report records, move by move, what a fresh report of `play_quiet`
/// records (nothing of an earlier move is left in it).
#[test]
fn a_reused_report_records_what_a_fresh_one_does() {
    let rules = arbiter_twilight_cards::ruleset();
    for seed in 0..5 {
        let rng = || arbiter_twilight::Randomness::seeded(seed);
        let mut fresh = arbiter_twilight::Game::new_quiet(rules.clone(), Options::default(), rng());
        let mut reused = fresh.clone();
        let mut report = arbiter_twilight::Report::default();
        let mut moves = 0;
        while let Some(d) = fresh.decision() {
            let m = d.moves[(seed as usize * 7 + moves * 13) % d.moves.len()];
            let expected = fresh.play_quiet(&m).unwrap();
            reused.play_quiet_into(&m, &mut report).unwrap();
            assert_eq!(report, expected, "seed {seed}, move {moves}");
            moves += 1;
        }
        assert_eq!(reused.hash64(), fresh.hash64());
        assert!(moves > 50, "seed {seed}: only {moves} moves");
    }
}
