//! Nothing panics on user input, saved files or fixtures: property tests with arbitrary text,
//! arbitrary moves (any card or country number), arbitrary bytes as a saved game and arbitrary
//! text as a fixture. A refused move leaves the game unchanged.

use arbiter_twilight::{CardId, CountryId, Game, Move, Options, PlayMode, Randomness};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use std::sync::OnceLock;

/// A few positions from different moments of a game: setup, headline, action rounds, Ops, events.
fn positions() -> &'static Vec<Game> {
    static P: OnceLock<Vec<Game>> = OnceLock::new();
    P.get_or_init(|| {
        let mut out = Vec::new();
        for seed in 0..4 {
            let (mut g, _) = Game::new(arbiter_twilight_cards::ruleset(), Options::default(), Randomness::seeded(seed));
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            for step in 0..200 {
                if g.outcome().is_some() {
                    break;
                }
                if step % 13 == 0 {
                    out.push(g.clone());
                }
                let moves = g.legal_moves();
                g.play(&moves[rng.random_range(0..moves.len())]).unwrap();
            }
        }
        out
    })
}

fn any_move() -> impl Strategy<Value = Move> {
    let modes = prop_oneof![
        Just(PlayMode::Event),
        Just(PlayMode::Ops),
        Just(PlayMode::OpsThenEvent),
        Just(PlayMode::EventThenOps),
        Just(PlayMode::Space)
    ];
    prop_oneof![
        (any::<u8>(), modes).prop_map(|(c, mode)| Move::Play { card: CardId(c), mode }),
        any::<u8>().prop_map(|c| Move::Headline(CardId(c))),
        any::<u8>().prop_map(|c| Move::Influence(CountryId(c))),
        any::<u8>().prop_map(|c| Move::Remove(CountryId(c))),
        any::<u8>().prop_map(|c| Move::Coup(CountryId(c))),
        any::<u8>().prop_map(|c| Move::Realign(CountryId(c))),
        any::<u8>().prop_map(|c| Move::Target(CountryId(c))),
        any::<u8>().prop_map(|c| Move::Discard(CardId(c))),
        any::<u8>().prop_map(|c| Move::Take(CardId(c))),
        any::<u8>().prop_map(Move::Choose),
        (any::<u8>(), proptest::option::of(any::<u8>())).prop_map(|(c, k)| Move::Cancel { card: CardId(c), country: k.map(CountryId) }),
        Just(Move::Pass),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_move_is_judged_without_panic_and_a_refusal_changes_nothing(m in any_move(), which in 0usize..1000) {
        let ps = positions();
        let g = &ps[which % ps.len()];
        let _ = g.move_text(&m);
        let listed = g.legal_moves().contains(&m);
        let mut copy = g.clone();
        let before = copy.hash64();
        match copy.play(&m) {
            Ok(_) => prop_assert!(listed, "an unlisted move was accepted: {m:?}"),
            Err(e) => {
                prop_assert!(!listed, "a listed move was refused: {m:?}: {e}");
                prop_assert_eq!(copy.hash64(), before);
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }

    #[test]
    fn any_text_is_read_without_panic(text in "\\PC{0,40}", which in 0usize..1000) {
        let ps = positions();
        let g = &ps[which % ps.len()];
        if let Ok(m) = g.parse(&text) {
            let _ = g.check(&m);
        }
    }

    #[test]
    fn near_miss_notation_is_read_without_panic(verb in prop_oneof![Just("play"), Just("coup"), Just("influence"), Just("cancel"), Just("choose"), Just("headline")], rest in "[a-zA-Z \"/.é-]{0,30}", which in 0usize..1000) {
        let ps = positions();
        let g = &ps[which % ps.len()];
        let _ = g.parse(&format!("{verb} {rest}"));
    }

    /// A saved move is whatever JSON a rewritten file holds: every game reads it back (its text,
    /// playing it) with a refusal or a move, never a panic.
    #[test]
    fn any_saved_move_json_is_read_without_panic(
        verb in prop_oneof![Just("Open"), Just("Flag"), Just("Unflag"), Just("Influence"), Just("Coup"), Just("Headline"), Just("Target"), Just("Choose"), Just("Discard")],
        a in any::<u16>(), b in any::<u16>(), shape in 0usize..4, junk in "\\PC{0,20}",
    ) {
        let json = match shape {
            0 => format!(r#"{{"{verb}":{{"col":{},"row":{}}}}}"#, a % 300, b % 300),
            1 => format!(r#"{{"{verb}":{a}}}"#),
            2 => format!(r#"{{"{verb}":[{a},{b}]}}"#),
            _ => junk.clone(),
        };
        for kind in arbiter_games::catalogue().kinds() {
            let (mut game, _) = kind.create(&kind.default_options(), u64::from(a)).unwrap();
            if let Some(t) = game.decision() {
                let _ = game.boxed_clone().replay_json(t.first().seat, &json, "");
                let _ = game.play_json(t.first().seat, &json);
            }
        }
    }

    #[test]
    fn any_bytes_as_a_saved_game_are_refused_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.arbiter");
        std::fs::write(&path, &bytes).unwrap();
        prop_assert!(arbiter_store::Session::open(&path, &arbiter_games::catalogue()).is_err());
    }

    #[test]
    fn any_text_as_a_fixture_is_refused_or_run_cleanly(text in "\\PC{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        std::fs::write(&path, &text).unwrap();
        if let Ok(f) = arbiter_casebook::load(&path) {
            let _ = arbiter_casebook::run(&f, &path);
        }
    }
}

/// A saved game whose stored move names a card that does not exist is a divergence, not a crash.
#[test]
fn a_stored_move_with_an_unknown_card_number_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.arbiter");
    let mut s = arbiter_store::Session::create(&path, &arbiter_games::TWILIGHT_STRUGGLE, &arbiter_games::ts_options(Options::default()), 1)
        .unwrap();
    s.play("influence Poland", None).unwrap();
    drop(s);
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(r#"UPDATE events SET move_json = '{"Headline":200}' WHERE seq = 1"#, []).unwrap();
    // The integrity chain shows the edit first; without it (an older file, or a forger who
    // drops it), replay reports the divergence.
    drop(c);
    let err = arbiter_store::Session::open(&path, &arbiter_games::catalogue()).err().expect("refused").to_string();
    assert!(err.contains("is damaged at move 1"), "{err}");
    // As a version-1 file (no chain, a log column per seat).
    arbiter_games::legacy::rewrite_as_version_1(&path).unwrap();
    let err = arbiter_store::Session::open(&path, &arbiter_games::catalogue()).err().expect("refused").to_string();
    assert!(err.contains("replay diverges at move 1") && err.contains("move text"), "{err}");
}
