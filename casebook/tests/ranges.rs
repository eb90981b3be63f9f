//! Every number a fixture can set is checked against the game's range: out of range (or not a
//! whole number, or too large for any integer type) it is refused with an error naming the file,
//! the field and the range, never a parse error with only a line and column, a panic or a wrap.
//! At the limits it is accepted and the case runs without a panic.

use rstest::rstest;

/// Load and run a fixture given as the JSON members after `"rules"`; the error text if refused.
fn refusal(members: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("case.json");
    std::fs::write(&p, format!(r#"{{"id": "T-1", "title": "t", "rules": [], {members}}}"#)).unwrap();
    let f = match arbiter_casebook::load(&p) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    arbiter_casebook::run(&f, &p).err().map(|e| e.to_string())
}

#[rstest]
// Influence, per country and side: 0-99 (the engine's limit).
#[case(
    r#""setup": {"influence": {"Mexico": {"us": 100, "ussr": 0}}}"#,
    "setup.influence.Mexico.us",
    "100 is not an Influence count (0-99, the engine's limit)"
)]
#[case(
    r#""setup": {"influence": {"Mexico": {"us": 0, "ussr": 300}}}"#,
    "setup.influence.Mexico.ussr",
    "300 is not an Influence count (0-99, the engine's limit)"
)]
#[case(
    r#""setup": {"influence": {"Mexico": {"us": -1, "ussr": 0}}}"#,
    "setup.influence.Mexico.us",
    "-1 is not an Influence count (0-99, the engine's limit)"
)]
#[case(r#""setup": {"influence": {"Mexico": {"us": 1.5, "ussr": 0}}}"#, "setup.influence.Mexico.us", "1.5 is not a whole number")]
#[case(
    r#""setup": {"influence": {"Mexico": {"us": 3.0, "ussr": 0}}}"#,
    "setup.influence.Mexico.us",
    "3.0: write the whole number without a decimal point or exponent"
)]
#[case(
    r#""setup": {"influence": {"Mexico": {"us": 18446744073709551616, "ussr": 0}}}"#,
    "setup.influence.Mexico.us",
    "1.8446744073709552e+19 is not an Influence count (0-99, the engine's limit)"
)]
#[case(r#""setup": {"vp": -1e300}"#, "setup.vp", "-1e+300 is not a VP score the game goes on at (-19 to 19, the game ends at 20, §10.3.1)")]
#[case(
    r#""setup": {"influence": {"Mexico": {"us": 18446744073709551615, "ussr": 0}}}"#,
    "setup.influence.Mexico.us",
    "18446744073709551615 is not an Influence count (0-99, the engine's limit)"
)]
// DEFCON 2-5: DEFCON 1 ends the game.
#[case(r#""setup": {"defcon": 1}"#, "setup.defcon", "1 is not a DEFCON level (2-5, DEFCON 1 ends the game, §8.1.3)")]
#[case(r#""setup": {"defcon": 0}"#, "setup.defcon", "0 is not a DEFCON level (2-5, DEFCON 1 ends the game, §8.1.3)")]
#[case(r#""setup": {"defcon": 6}"#, "setup.defcon", "6 is not a DEFCON level (2-5, DEFCON 1 ends the game, §8.1.3)")]
#[case(r#""setup": {"defcon": 256}"#, "setup.defcon", "256 is not a DEFCON level (2-5, DEFCON 1 ends the game, §8.1.3)")]
// VP -19 to 19.
#[case(r#""setup": {"vp": 20}"#, "setup.vp", "20 is not a VP score the game goes on at (-19 to 19, the game ends at 20, §10.3.1)")]
#[case(r#""setup": {"vp": -20}"#, "setup.vp", "-20 is not a VP score the game goes on at (-19 to 19, the game ends at 20, §10.3.1)")]
#[case(r#""setup": {"vp": -129}"#, "setup.vp", "-129 is not a VP score the game goes on at (-19 to 19, the game ends at 20, §10.3.1)")]
// Military ops 0-5, space race 0-8, space attempts 0-2, each side named.
#[case(
    r#""setup": {"military_ops": {"us": 6, "ussr": 0}}"#,
    "setup.military_ops.us",
    "6 is not a military ops count (0-5, the track, §8.2)"
)]
#[case(
    r#""setup": {"military_ops": {"us": 0, "ussr": -1}}"#,
    "setup.military_ops.ussr",
    "-1 is not a military ops count (0-5, the track, §8.2)"
)]
#[case(r#""setup": {"space_race": {"us": 9, "ussr": 0}}"#, "setup.space_race.us", "9 is not a space race box (0-8, the track, §6.4)")]
#[case(
    r#""setup": {"space_race": {"us": 0, "ussr": 1000}}"#,
    "setup.space_race.ussr",
    "1000 is not a space race box (0-8, the track, §6.4)"
)]
#[case(
    r#""setup": {"space_attempts": {"us": 3, "ussr": 0}}"#,
    "setup.space_attempts.us",
    "3 is not a number of space race attempts this turn (0-2, §6.4.2)"
)]
// Turn 1-10, action round 1-8.
#[case(r#""setup": {"turn": 0}"#, "setup.turn", "0 is not a turn (1-10)")]
#[case(r#""setup": {"turn": 11}"#, "setup.turn", "11 is not a turn (1-10)")]
#[case(r#""setup": {"action_round": 0}"#, "setup.action_round", "0 is not an action round (1-8)")]
#[case(r#""setup": {"action_round": 9}"#, "setup.action_round", "9 is not an action round (1-8)")]
// Scripted dice 1-6 and picks 0-109, each named by its place in the list.
#[case(r#""dice": [4, 7]"#, "dice[1]", "7 is not a die roll (1-6)")]
#[case(r#""dice": [0]"#, "dice[0]", "0 is not a die roll (1-6)")]
#[case(r#""dice": [300]"#, "dice[0]", "300 is not a die roll (1-6)")]
#[case(r#""picks": [0, 110]"#, "picks[1]", "110 is not a pick (0-109, an index into a hand)")]
#[case(r#""picks": [-1]"#, "picks[0]", "-1 is not a pick (0-109, an index into a hand)")]
// The turn an effect remembers: from its era's first turn to this one.
#[case(
    r#""setup": {"turn": 10, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 40000}]}"#,
    "setup.effects[0].turn",
    "40000 is not a turn it can have been played in (8-10, North Sea Oil is played from turn 8, and this is turn 10)"
)]
#[case(
    r#""setup": {"turn": 10, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": -1}]}"#,
    "setup.effects[0].turn",
    "-1 is not a turn it can have been played in (8-10, North Sea Oil is played from turn 8, and this is turn 10)"
)]
// The US bonus option 0-20, and only where it is placed: at setup.
#[case(
    r#""setup": {"start": "standard", "options": {"optional_cards": true, "us_bonus": 21}}"#,
    "setup.options.us_bonus",
    "21 is not a US bonus (0-20)"
)]
#[case(
    r#""setup": {"start": "standard", "options": {"optional_cards": true, "us_bonus": 300}}"#,
    "setup.options.us_bonus",
    "300 is not a US bonus (0-20)"
)]
#[case(
    r#""setup": {"options": {"optional_cards": true, "us_bonus": 2}}"#,
    "setup.options.us_bonus",
    r#"the US bonus is placed at setup: it needs "at": "setup" (and "start": "standard")"#
)]
#[case(
    r#""setup": {"start": "standard", "at": "headline", "options": {"optional_cards": true, "us_bonus": 2}}"#,
    "setup.options.us_bonus",
    r#"the US bonus is placed at setup: it needs "at": "setup" (and "start": "standard")"#
)]
fn out_of_range_numbers_are_refused_naming_the_field(#[case] members: &str, #[case] field: &str, #[case] message: &str) {
    let err = refusal(members).expect("refused");
    let want = format!("case.json: {field}: {message}");
    assert!(err.ends_with(&want), "\n got: {err}\nwant: …/{want}");
}

/// The limits themselves are accepted, and the case runs (to its end or a failed expectation)
/// without a panic or a wrap, in release builds too (`overflow-checks = true`).
#[rstest]
#[case(r#""setup": {"phasing": "us", "influence": {"Mexico": {"us": 99, "ussr": 99}, "Cuba": {"us": 0, "ussr": 99}}, "hands": {"us": ["Duck and Cover"], "ussr": ["Fidel"]}}, "dice": [6], "steps": [{"side": "us", "move": "play \"Duck and Cover\" ops"}, {"side": "us", "move": "coup Mexico"}]"#)]
// The last round there is: North Sea Oil's extra round in turn 10.
#[case(r#""setup": {"defcon": 2, "vp": -19, "turn": 10, "action_round": 8, "phasing": "us", "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 10}]}"#)]
#[case(r#""setup": {"defcon": 5, "vp": 19, "turn": 1, "action_round": 1}"#)]
#[case(
    r#""setup": {"at": "end_of_turn", "military_ops": {"us": 5, "ussr": 0}, "space_race": {"us": 8, "ussr": 8}, "space_first": ["ussr", "us"], "space_attempts": {"us": 2, "ussr": 1}}"#
)]
#[case(r#""setup": {"start": "standard", "options": {"optional_cards": true, "us_bonus": 20}}"#)]
fn numbers_at_the_limits_are_accepted(#[case] members: &str) {
    assert_eq!(refusal(members), None);
}

/// A number of the wrong JSON type is still a parse error: it has no range to name.
#[test]
fn a_string_for_a_number_is_a_parse_error() {
    let err = refusal(r#""setup": {"defcon": "3"}"#).expect("refused");
    assert!(err.contains("case.json: line 1 column") && err.contains("expected a JSON number"), "{err}");
}
