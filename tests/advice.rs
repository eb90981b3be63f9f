//! Twilight Struggle's advice (`arbiter_twilight::advice`) through the kernel's `Match::advice`,
//! what the table, the line mode and the browser are told: warnings before a move a player
//! would regret, the odds of a coup or a realignment, and refusals for moves the seat may not
//! make now. One table of cases: a position, a move leading to the decision, the move asked
//! about, and what the advice must (and must not) say.

use arbiter_kernel::{Match, Seat};
use arbiter_twilight::Game;
use rstest::rstest;

const US: Seat = Seat(0);
const USSR: Seat = Seat(1);

fn game(setup: &str) -> Game {
    let json = format!(r#"{{ "id": "A", "title": "a", "rules": [], "setup": {setup}, "steps": [] }}"#);
    let f: arbiter_casebook::Fixture = serde_json::from_str(&json).unwrap();
    let rules = arbiter_twilight_cards::ruleset();
    let st = arbiter_casebook::build(&f, std::path::Path::new("a.json"), &rules).unwrap();
    Game::from_state(rules, st).0
}

/// US phasing at DEFCON 2, Mexico a battleground and Guatemala not, both with USSR Influence.
const DEFCON_2: &str = r#"{ "phasing": "us", "defcon": 2, "influence": { "Mexico": { "us": 0, "ussr": 2 }, "Guatemala": { "us": 0, "ussr": 1 } }, "hands": { "us": ["Duck and Cover", "Fidel"], "ussr": ["Romanian Abdication"] } }"#;
/// The same with Nuclear Subs in play for the US (§8.1.3 spares its coups).
const SUBS: &str = r#"{ "turn": 4, "phasing": "us", "defcon": 2, "influence": { "Mexico": { "us": 0, "ussr": 2 } }, "effects": [{ "card": "Nuclear Subs", "owner": "us" }], "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#;
/// The US's last action round, 1 of the 3 military ops required.
const SHORT: &str = r#"{ "phasing": "us", "action_round": 6, "defcon": 3, "military_ops": { "us": 1, "ussr": 0 }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#;
/// DEFCON 4 with Influence to realign against.
const CALM: &str = r#"{ "phasing": "us", "defcon": 4, "influence": { "Iran": { "us": 1, "ussr": 2 } }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#;

const OPS: &str = r#"play "Duck and Cover" ops"#;

#[rstest]
// §8.1.3: the phasing side's coup in a battleground at DEFCON 2 loses; the odds are shown too.
#[case::battleground_coup_at_defcon_2(DEFCON_2, Some(OPS), "coup Mexico", &["drops DEFCON to 1", "you lose", "§8.1.3"], Some("coup Mexico with 3 Ops: succeeds"))]
// Not a battleground: no warning, only the odds (die needed, chance).
#[case::coup_elsewhere(DEFCON_2, Some(OPS), "coup Guatemala", &[], Some("die"))]
// Nuclear Subs: the US's coup from its own Operations leaves DEFCON alone.
#[case::nuclear_subs(SUBS, Some(OPS), "coup Mexico", &[], Some("coup Mexico"))]
// An event that sets DEFCON to 1 for its player (Duck and Cover at DEFCON 2).
#[case::event_ends_the_game(DEFCON_2, None, r#"play "Duck and Cover" event"#, &["this ends the game: USSR wins"], None)]
#[case::ops_is_safe(DEFCON_2, None, OPS, &[], None)]
// §8.2: the last round's event play short of military ops.
#[case::short_of_military_ops(SHORT, None, r#"play "Duck and Cover" event"#, &["1 of the 3 military ops", "the USSR gains 2 VP", "§8.2"], None)]
#[case::resigning(CALM, None, "resign", &["the game ends and the USSR wins"], None)]
// A realignment's odds: win, tie, lose and the modifiers.
#[case::realignment_odds(CALM, Some(OPS), "realign Iran", &[], Some("realign Iran: win"))]
fn advice_for_a_move(
    #[case] setup: &str,
    #[case] before: Option<&str>,
    #[case] asked: &str,
    #[case] warned: &[&str],
    #[case] odds: Option<&str>,
) {
    let mut g = game(setup);
    if let Some(m) = before {
        Match::play(&mut g, US, m).unwrap();
    }
    let a = Match::advice(&g, US, asked).unwrap_or_else(|r| panic!("{asked}: {r}"));
    if warned.is_empty() {
        assert!(a.warnings.is_empty(), "{asked}: {:?}", a.warnings);
    } else {
        assert_eq!(a.warnings.len(), 1, "{asked}: {:?}", a.warnings);
        for w in warned {
            assert!(a.warnings[0].contains(w), "{asked}: {:?} lacks {w:?}", a.warnings);
        }
    }
    match (odds, &a.odds) {
        (None, None) => {}
        (Some(want), Some(got)) => assert!(got.contains(want), "{asked}: {got:?} lacks {want:?}"),
        (want, got) => panic!("{asked}: odds {got:?}, expected {want:?}"),
    }
}

#[rstest]
// The other side's move: not its decision.
#[case::not_the_seats_decision(DEFCON_2, USSR, OPS)]
// Not legal now (§6.3.1: no coup where the opponent has no Influence).
#[case::illegal(DEFCON_2, US, "coup Poland")]
#[case::unreadable(DEFCON_2, US, "fly to the moon")]
fn advice_is_refused_for_moves_the_seat_cannot_make(#[case] setup: &str, #[case] seat: Seat, #[case] asked: &str) {
    let g = game(setup);
    assert!(Match::advice(&g, seat, asked).is_err(), "{asked}");
}
