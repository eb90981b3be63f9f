//! A fixture sets up only a position the game can reach: each way to set up one it never
//! reaches is refused with an error naming the field and what is allowed (fixtures/README.md,
//! "Positions the game never reaches"), and the positions next to each refusal that the game
//! does reach are accepted.

use pretty_assertions::assert_eq;
use rstest::rstest;

/// Load and build a fixture given as its `setup` members; the error text if refused.
fn refusal(setup: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("case.json");
    std::fs::write(&p, format!(r#"{{"id": "T-1", "title": "t", "rules": [], "setup": {{{setup}}}}}"#)).unwrap();
    let f = match arbiter_casebook::load(&p) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    let rules = arbiter_twilight_cards::ruleset();
    arbiter_casebook::build(&f, &p, &rules).err().map(|e| e.to_string())
}

#[rstest]
// What an effect remembers, in the game's words: required where the card always has it,
// refused where it cannot hold it, and the old number refused.
#[case(
    r#""turn": 8, "effects": [{"card": "Chernobyl", "owner": "us", "param": 0}]"#,
    "setup.effects[0].param",
    r#""param" is not read: name what the effect remembers in words: "region" (Chernobyl), "turn" (North Sea Oil), "flag" (NORAD, "We Will Bury You")"#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "Chernobyl", "owner": "us"}]"#,
    "setup.effects[0].region",
    r#"Chernobyl always names a region: give "region""#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "Chernobyl", "owner": "us", "region": "Eastern Europe"}]"#,
    "setup.effects[0].region",
    r#""Eastern Europe" is not a region (Europe, Asia, Middle East, Central America, South America, Africa)"#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "Chernobyl", "owner": "us", "region": "Europe", "turn": 8}]"#,
    "setup.effects[0].turn",
    r#"Chernobyl remembers only its region: leave "turn" out"#
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us", "region": "Europe"}]"#,
    "setup.effects[0].region",
    r#"Containment remembers nothing: leave "region" out"#
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us", "flag": false}]"#,
    "setup.effects[0].flag",
    r#"Containment remembers nothing: leave "flag" out"#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "North Sea Oil", "owner": "us"}]"#,
    "setup.effects[0].turn",
    r#"North Sea Oil always remembers the turn it was played: give "turn""#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 9}]"#,
    "setup.effects[0].turn",
    "9 is not a turn it can have been played in (8-8, North Sea Oil is played from turn 8, and this is turn 8)"
)]
#[case(
    r#""turn": 9, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 7}]"#,
    "setup.effects[0].turn",
    "7 is not a turn it can have been played in (8-9, North Sea Oil is played from turn 8, and this is turn 9)"
)]
#[case(
    r#""action_round": 2, "effects": [{"card": "NORAD", "owner": "us", "flag": true}]"#,
    "setup.effects[0].flag",
    "NORAD's flag (DEFCON moved to 2 this action round) is set and cleared within an action round: a position that begins with an action round holds it only at the USSR's first of a turn after the first, DEFCON 2-4, after the headline"
)]
#[case(
    r#""turn": 2, "defcon": 2, "phasing": "us", "effects": [{"card": "NORAD", "owner": "us", "flag": true}]"#,
    "setup.effects[0].flag",
    "NORAD's flag (DEFCON moved to 2 this action round) is set and cleared within an action round: a position that begins with an action round holds it only at the USSR's first of a turn after the first, DEFCON 2-4, after the headline"
)]
#[case(
    r#""effects": [{"card": "NORAD", "owner": "us", "flag": true}]"#,
    "setup.effects[0].flag",
    "NORAD's flag (DEFCON moved to 2 this action round) is set and cleared within an action round: a position that begins with an action round holds it only at the USSR's first of a turn after the first, DEFCON 2-4, after the headline"
)]
#[case(
    r#""turn": 2, "defcon": 5, "effects": [{"card": "NORAD", "owner": "us", "flag": true}]"#,
    "setup.effects[0].flag",
    "NORAD's flag (DEFCON moved to 2 this action round) is set and cleared within an action round: a position that begins with an action round holds it only at the USSR's first of a turn after the first, DEFCON 2-4, after the headline"
)]
#[case(
    r#""turn": 4, "effects": [{"card": "We Will Bury You", "owner": "ussr", "flag": true}]"#,
    "setup.effects[0].flag",
    "We Will Bury You's flag (played in the US round under way, it waits for the next) is set and cleared within an action round: a position that begins with an action round never holds it"
)]
#[case(
    r#""turn": 4, "effects": [{"card": "Shuttle Diplomacy", "owner": "us", "country": "Japan"}]"#,
    "setup.effects[0].country",
    "Shuttle Diplomacy's battleground is chosen during a scoring and used by it at once: no position between two decisions holds one"
)]
// Whose effect, how long, when.
#[case(
    r#""effects": [{"card": "Containment", "owner": "ussr"}]"#,
    "setup.effects[0].owner",
    "Containment is a US event: its effect is the US's"
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us", "until": "permanent"}]"#,
    "setup.effects[0].until",
    r#"Containment lasts until the end of the turn: write "turn" or leave "until" out"#
)]
#[case(
    r#""effects": [{"card": "Marshall Plan", "owner": "us", "until": "us round"}]"#,
    "setup.effects[0].until",
    r#"Marshall Plan lasts for the rest of the game: write "permanent" or leave "until" out"#
)]
#[case(r#""effects": [{"card": "Fidel", "owner": "ussr"}]"#, "setup.effects[0].card", "Fidel leaves no effect in play")]
#[case(
    r#""turn": 2, "at": "headline", "effects": [{"card": "Containment", "owner": "us"}]"#,
    "setup.effects[0].card",
    "Containment's effect ends with the turn (§4.5H): it cannot be in play at the headline"
)]
#[case(
    r#""turn": 2, "at": "turn_start", "effects": [{"card": "Containment", "owner": "us"}]"#,
    "setup.effects[0].card",
    "Containment's effect ends with the turn (§4.5H): it cannot be in play at the start of a turn"
)]
#[case(
    r#""start": "standard", "effects": [{"card": "Marshall Plan", "owner": "us"}]"#,
    "setup.effects[0].card",
    "no card has been played at the setup: no effect is in play"
)]
#[case(
    r#""at": "headline", "effects": [{"card": "Marshall Plan", "owner": "us"}]"#,
    "setup.effects[0].card",
    "no card has been played at the headline: no effect is in play"
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us"}, {"card": "Containment", "owner": "us"}]"#,
    "setup.effects[1].card",
    "Containment is in effect already: a card is in play once"
)]
// Where the effect's card is.
#[case(
    r#""effects": [{"card": "Containment", "owner": "us"}], "hands": {"us": ["Containment"], "ussr": []}"#,
    "setup.hands.us",
    r#"Containment is in effect, so it was played for its event, which removed it from the game (a starred card, §4.3): list it in "removed" or nowhere"#
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us"}], "discard": ["Containment"]"#,
    "setup.discard",
    r#"Containment is in effect, so it was played for its event, which removed it from the game (a starred card, §4.3): list it in "removed" or nowhere"#
)]
#[case(
    r#""effects": [{"card": "Containment", "owner": "us"}], "deck": ["Containment"]"#,
    "setup.deck",
    r#"Containment is in effect, so it was played for its event, which removed it from the game (a starred card, §4.3): list it in "removed" or nowhere"#
)]
#[case(
    r#""effects": [{"card": "Red Scare/Purge", "owner": "us"}], "removed": ["Red Scare/Purge"]"#,
    "setup.removed",
    "Red Scare/Purge is in effect, so it was played for its event: an unstarred card is discarded, never removed (§4.3)"
)]
#[case(
    r#""turn": 4, "effects": [{"card": "Missile Envy", "owner": "us"}], "hands": {"us": ["Missile Envy"], "ussr": []}"#,
    "setup.hands.us",
    "Missile Envy is in effect, so it was given to the other side, who must play it: it is not in its owner's hand"
)]
#[case(
    r#""turn": 4, "effects": [{"card": "Shuttle Diplomacy", "owner": "us", "until": "used"}], "discard": ["Shuttle Diplomacy"]"#,
    "setup.discard",
    "Shuttle Diplomacy is in effect, so it is in front of its owner while its effect lasts: list it nowhere else"
)]
// The effects together.
#[case(
    r#""effects": [{"card": "NATO", "owner": "us"}]"#,
    "setup.effects[0].card",
    r#"NATO's event needs Marshall Plan or Warsaw Pact Formed in effect (card text), whose effect lasts for the rest of the game: add it to "effects""#
)]
#[case(
    r#""turn": 8, "effects": [{"card": "Tear Down this Wall", "owner": "us"}, {"card": "Willy Brandt", "owner": "ussr"}]"#,
    "setup.effects[1].card",
    "Tear Down this Wall ends Willy Brandt's effect and prevents its event (card text): the two are never in effect together"
)]
#[case(
    r#""turn": 8, "effects": [{"card": "Flower Power", "owner": "ussr"}, {"card": "An Evil Empire", "owner": "us"}]"#,
    "setup.effects[0].card",
    "An Evil Empire ends Flower Power's effect and prevents its event (card text): the two are never in effect together"
)]
// Cards of an era not yet in play, optional cards in a game without them.
#[case(
    r#""turn": 3, "hands": {"us": [], "ussr": ["Junta"]}"#,
    "setup.hands.ussr",
    "Junta is a Mid War card: it joins the deck at turn 4 (§4.4), and this is turn 3"
)]
#[case(
    r#""turn": 7, "discard": ["Chernobyl"]"#,
    "setup.discard",
    "Chernobyl is a Late War card: it joins the deck at turn 8 (§4.4), and this is turn 7"
)]
#[case(
    r#""turn": 7, "effects": [{"card": "Chernobyl", "owner": "us", "region": "Asia"}]"#,
    "setup.effects[0].card",
    "Chernobyl is a Late War card: it joins the deck at turn 8 (§4.4), and this is turn 7"
)]
#[case(
    r#""options": {"optional_cards": false}, "hands": {"us": ["Special Relationship"], "ussr": []}"#,
    "setup.hands.us",
    "Special Relationship is an optional card, and this game is without them (setup.options.optional_cards)"
)]
#[case(
    r#""start": "standard", "at": "end_of_turn", "turn": 4"#,
    "setup.turn",
    "the standard start keeps the Mid War cards in reserve, which join the deck at turn 4 (§4.4): it sets up turns 1-3, not 4; list the cards of a later turn with the empty start"
)]
// The turn's action rounds.
#[case(
    r#""turn": 3, "action_round": 7"#,
    "setup.action_round",
    "the USSR has 6 action rounds in turn 3 (§4.5D: 6 in turns 1-3, 7 from turn 4, one more with the Space Station or North Sea Oil)"
)]
#[case(
    r#""turn": 8, "action_round": 8, "phasing": "us""#,
    "setup.action_round",
    "the US has 7 action rounds in turn 8 (§4.5D: 6 in turns 1-3, 7 from turn 4, one more with the Space Station or North Sea Oil)"
)]
#[case(
    r#""turn": 9, "action_round": 8, "phasing": "us", "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 8}]"#,
    "setup.action_round",
    "the US has 7 action rounds in turn 9 (§4.5D: 6 in turns 1-3, 7 from turn 4, one more with the Space Station or North Sea Oil)"
)]
// The space race.
#[case(
    r#""space_race": {"us": 1, "ussr": 0}, "space_first": ["ussr"]"#,
    "setup.space_first[0]",
    "the USSR has not reached box 1 (setup.space_race): it cannot have been first there"
)]
#[case(
    r#""space_race": {"us": 2, "ussr": 2}, "space_first": [null]"#,
    "setup.space_first[0]",
    r#"box 1 was reached: name who reached it first ("us" or "ussr")"#
)]
#[case(
    r#""space_first": ["us"]"#,
    "setup.space_first[0]",
    "the US has not reached box 1 (setup.space_race): it cannot have been first there"
)]
#[case(
    r#""phasing": "us", "space_attempts": {"us": 1, "ussr": 0}"#,
    "setup.space_attempts.us",
    "the US has made 1 space race attempt this turn, but it has played no action round at an action round (a card a round, §4.5D; two attempts a turn at most, §6.4.2)"
)]
#[case(
    r#""action_round": 2, "space_attempts": {"us": 0, "ussr": 2}"#,
    "setup.space_attempts.ussr",
    "the USSR has made 2 space race attempts this turn, but it has played 1 action round (a card a round, §4.5D; two attempts a turn at most, §6.4.2)"
)]
#[case(
    r#""action_round": 3, "space_race": {"us": 2, "ussr": 2}, "space_first": ["us", "us"], "space_attempts": {"us": 0, "ussr": 2}"#,
    "setup.space_attempts.ussr",
    "a second attempt in a turn needs Animal in Space, reached first by the USSR (§6.4.2, §6.4.4)"
)]
#[case(
    r#""turn": 2, "at": "headline", "space_attempts": {"us": 1, "ussr": 0}"#,
    "setup.space_attempts.us",
    "the US has made 1 space race attempt this turn, but it has played no action round at the headline (a card a round, §4.5D; two attempts a turn at most, §6.4.2)"
)]
// What the end of a turn resets, and final scoring after turn 10.
#[case(
    r#""turn": 2, "at": "turn_start", "military_ops": {"us": 2, "ussr": 0}"#,
    "setup.military_ops",
    "military ops are reset at the end of each turn (§4.5E, §8.2): none at the start of a turn"
)]
#[case(
    r#""turn": 2, "at": "headline", "china_card": {"holder": "us", "face_up": false}"#,
    "setup.china_card.face_up",
    "The China Card is turned face up at the end of the turn it was passed in (§4.5G, §9.3): it is face up at the headline"
)]
#[case(r#""at": "final_scoring", "turn": 9"#, "setup.turn", r#"final scoring follows turn 10 (§4.5I): leave "turn" out or write 10"#)]
// The start of the game, and a headline after the DEFCON improvement.
#[case(r#""start": "standard", "turn": 2"#, "setup.turn", r#"the setup is turn 1's (§3): leave "turn" out or start "at" later"#)]
#[case(r#""at": "headline", "defcon": 4"#, "setup.defcon", "at the headline of turn 1 DEFCON is 5")]
#[case(r#""at": "headline", "vp": 2"#, "setup.vp", "at the headline of turn 1 no VP have been scored")]
#[case(
    r#""at": "turn_start", "space_race": {"us": 1, "ussr": 0}, "space_first": ["us"]"#,
    "setup.space_race",
    "at the start of a turn of turn 1 the space race has not begun"
)]
#[case(r#""at": "headline", "discard": ["Fidel"]"#, "setup.discard", "no card has been played at the headline of turn 1")]
#[case(
    r#""at": "headline", "china_card": {"holder": "us", "face_up": true}"#,
    "setup.china_card",
    "at the headline of turn 1 The China Card is the USSR's, face up (§3)"
)]
#[case(
    r#""turn": 3, "at": "headline", "defcon": 2"#,
    "setup.defcon",
    "DEFCON improves by 1 at the start of each turn (§4.5A): it is 3 or more at the headline"
)]
// An era's cards in its first turn, before the action rounds; an unstarred card removed.
#[case(
    r#""turn": 4, "at": "headline", "discard": ["Junta"]"#,
    "setup.discard",
    "Junta is a Mid War card, shuffled into the deck at the start of turn 4 (§4.4): at the headline it is in the deck or a hand"
)]
#[case(
    r#""turn": 8, "at": "turn_start", "hands": {"us": ["Chernobyl"], "ussr": []}"#,
    "setup.hands.us",
    "Chernobyl is a Late War card, shuffled into the deck at the start of turn 8 (§4.4): at the start of a turn it is in the deck"
)]
#[case(
    r#""turn": 4, "at": "headline", "effects": [{"card": "Quagmire", "owner": "ussr"}]"#,
    "setup.effects[0].card",
    "Quagmire is a Mid War card, shuffled into the deck at the start of turn 4 (§4.4): at the headline it is in the deck or a hand"
)]
#[case(
    r#""turn": 7, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 8}]"#,
    "setup.effects[0].card",
    "North Sea Oil is a Late War card: it joins the deck at turn 8 (§4.4), and this is turn 7"
)]
#[case(
    r#""removed": ["Duck and Cover"]"#,
    "setup.removed",
    r#"Duck and Cover is not starred: only a starred card's event removes it from the game (§4.3); list it in "discard""#
)]
fn a_position_the_game_never_reaches_is_refused_naming_the_field(#[case] setup: &str, #[case] field: &str, #[case] message: &str) {
    let err = refusal(setup).expect("refused");
    assert_eq!(err.split_once(": ").map(|(_, rest)| rest), Some(format!("{field}: {message}").as_str()));
}

/// The positions beside each refusal that the game does reach.
#[rstest]
#[case::a_region_named(r#""turn": 8, "effects": [{"card": "Chernobyl", "owner": "us", "region": "middle east"}]"#)]
#[case::a_turn_before(r#""turn": 10, "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 8}]"#)]
#[case::norad_s_flag_from_the_headline(r#""turn": 2, "defcon": 2, "effects": [{"card": "NORAD", "owner": "us", "flag": true}]"#)]
#[case::a_flag_not_set(r#""turn": 4, "action_round": 3, "effects": [{"card": "We Will Bury You", "owner": "ussr", "flag": false}]"#)]
#[case::a_neutral_card_s_effect_either_side_s(r#""effects": [{"card": "Red Scare/Purge", "owner": "ussr"}]"#)]
#[case::the_card_s_own_duration(r#""effects": [{"card": "Containment", "owner": "us", "until": "turn"}]"#)]
#[case::a_starred_card_removed(r#""effects": [{"card": "Containment", "owner": "us"}], "removed": ["Containment"]"#)]
#[case::an_unstarred_card_discarded(r#""effects": [{"card": "Red Scare/Purge", "owner": "us"}], "discard": ["Red Scare/Purge"]"#)]
// A reshuffle during the turn (§4.3: "Ask Not What Your Country…" draws) can deal it again.
#[case::an_unstarred_card_dealt_again(
    r#""effects": [{"card": "Red Scare/Purge", "owner": "us"}], "hands": {"us": ["Red Scare/Purge"], "ussr": []}"#
)]
#[case::missile_envy_in_the_opponent_s_hand(
    r#""turn": 4, "effects": [{"card": "Missile Envy", "owner": "us"}], "hands": {"us": [], "ussr": ["Missile Envy"]}"#
)]
#[case::a_required_effect(r#""turn": 2, "effects": [{"card": "Warsaw Pact Formed", "owner": "ussr"}, {"card": "NATO", "owner": "us"}]"#)]
// Quagmire ends NORAD but does not prevent it: NORAD may be played for the first time after it.
#[case::an_effect_ended_and_played_again(
    r#""turn": 4, "effects": [{"card": "Quagmire", "owner": "ussr"}, {"card": "NORAD", "owner": "us"}]"#
)]
// Willy Brandt before Tear Down this Wall is prevented, not its effect ended.
#[case::an_effect_whose_event_is_now_prevented(
    r#""turn": 8, "effects": [{"card": "Willy Brandt", "owner": "ussr"}], "hands": {"us": ["Tear Down this Wall"], "ussr": []}"#
)]
#[case::the_space_station_s_eighth_round(r#""turn": 4, "action_round": 8, "phasing": "us", "space_race": {"us": 8, "ussr": 0}"#)]
#[case::north_sea_oil_s_eighth_round(
    r#""turn": 9, "action_round": 8, "phasing": "us", "effects": [{"card": "North Sea Oil", "owner": "us", "turn": 9}]"#
)]
#[case::an_attempt_in_a_round_played(r#""action_round": 1, "phasing": "us", "space_attempts": {"us": 0, "ussr": 1}"#)]
#[case::animal_in_space_s_second_attempt_after_the_ability_ended(
    r#""action_round": 3, "space_race": {"us": 2, "ussr": 2}, "space_first": ["us", "us"], "space_attempts": {"us": 2, "ussr": 1}"#
)]
#[case::military_ops_and_china_face_down_in_the_turn(
    r#""at": "end_of_turn", "military_ops": {"us": 2, "ussr": 5}, "china_card": {"holder": "us", "face_up": false}"#
)]
#[case::final_scoring_after_turn_10(r#""at": "final_scoring""#)]
#[case::an_era_s_cards_dealt_at_its_first_headline(
    r#""turn": 4, "at": "headline", "hands": {"us": ["Junta"], "ussr": []}, "deck": ["Quagmire"]"#
)]
#[case::an_era_s_cards_played_in_its_first_action_round(
    r#""turn": 4, "action_round": 2, "discard": ["Junta"], "effects": [{"card": "Quagmire", "owner": "ussr"}]"#
)]
#[case::a_starred_card_removed_by_its_event(r#""removed": ["Fidel"]"#)]
#[case::defcon_3_at_a_headline(r#""turn": 3, "at": "headline", "defcon": 3"#)]
#[case::defcon_2_at_the_start_of_a_turn(r#""turn": 3, "at": "turn_start", "defcon": 2"#)]
fn a_position_the_game_reaches_is_accepted(#[case] setup: &str) {
    assert_eq!(refusal(setup), None);
}

/// In the standard start every card is somewhere: an effect's card listed nowhere is taken out
/// of the deck and put where its event put it.
#[test]
fn the_standard_start_puts_an_effect_s_card_where_its_event_did() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("case.json");
    let setup = r#""start": "standard", "at": "end_of_turn", "turn": 2, "effects": [{"card": "Containment", "owner": "us"}, {"card": "Red Scare/Purge", "owner": "ussr"}]"#;
    std::fs::write(&p, format!(r#"{{"id": "T-1", "title": "t", "rules": [], "setup": {{{setup}}}}}"#)).unwrap();
    let f = arbiter_casebook::load(&p).unwrap();
    let rules = arbiter_twilight_cards::ruleset();
    let st = arbiter_casebook::build(&f, &p, &rules).unwrap();
    let [containment, red_scare] = ["Containment", "Red Scare/Purge"].map(|n| rules.cards.by_name(n).unwrap());
    assert_eq!(
        [containment, red_scare].map(|c| (st.deck.contains(&c), st.removed.contains(c), st.discard.contains(c))),
        [(false, true, false), (false, false, true)]
    );
}
