//! Rules tests, one group per rules section, including every rulebook example on the
//! rules-facts sheet. Moves are written in the canonical notation.

use arbiter_tests::*;
use arbiter_twilight::flow::Task;
use arbiter_twilight::rng::Randomness;
use arbiter_twilight::state::{EndReason, Pile};
use arbiter_twilight::{Game, Move, PlayMode, Side};
use pretty_assertions::assert_eq;
use rstest::rstest;

fn game(st: arbiter_twilight::State) -> Game {
    Game::from_state(arbiter_twilight_cards::ruleset(), st).0
}

// ---------------------------------------------------------------- §2.1.7 control

#[rstest]
#[case(4, 0, Some(Side::Us))]
#[case(3, 0, None)]
#[case(5, 2, None)]
#[case(8, 4, Some(Side::Us))]
#[case(0, 4, Some(Side::Ussr))]
fn control_of_israel_needs_stability_and_a_lead_of_stability(#[case] us: u8, #[case] ussr: u8, #[case] who: Option<Side>) {
    let st = board(&[], |st| set_inf(st, "Israel", us, ussr));
    assert_eq!(st.controller(country("Israel")), who);
}

// ---------------------------------------------------------------- §7.4 ops modifiers

/// The rulebook's §7.4 example: Red Scare/Purge (US) and Vietnam Revolts (USSR) in effect; the
/// USSR spends the China Card entirely in Southeast Asia: 4 + 1 + 1 − 1 = 5.
#[test]
fn section_7_4_example_china_card_in_southeast_asia_is_worth_5() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        effect(st, "Red Scare/Purge", Side::Us);
        effect(st, "Vietnam Revolts", Side::Ussr);
        set_inf(st, "Vietnam", 0, 2);
        set_inf(st, "North Korea", 0, 3);
    });
    play(&mut g, &["play \"The China Card\" ops"]);
    play(&mut g, &["influence Vietnam"; 4]);
    // Spending the last Op outside Southeast Asia would make the card worth only 4.
    assert_eq!(
        reject(&mut g, "influence North Korea"),
        "cannot influence \"North Korea\": North Korea costs 1 Op(s) and only 0 remain if spent there (§6.1)"
    );
    let log = play(&mut g, &["influence Vietnam"]);
    assert!(
        log.contains(&"USSR Ops value: 4 (card) +1 The China Card, all in Asia = 5; +1 Vietnam Revolts, all in Southeast Asia = 6; -1 Red Scare/Purge (min 1) = 5; all spent".to_string()),
        "{log:#?}"
    );
    assert_eq!(inf(&g, "Vietnam"), [0, 7]);
    // §9.3: after use the China Card passes face down.
    assert_eq!((g.state().china.holder, g.state().china.face_up), (Side::Us, false));
}

/// rules-facts §6: a 1-Op card under Red Scare/Purge and Vietnam Revolts spent in Southeast
/// Asia is worth 1 (1 + 1 − 1), not 2 (floor first, then +1).
#[rstest]
#[case(true, 1)]
#[case(false, 1)]
fn red_scare_applies_after_vietnam_revolts(#[case] in_sea: bool, #[case] want: i32) {
    let st = board(&[], |st| {
        effect(st, "Vietnam Revolts", Side::Ussr);
        effect(st, "Red Scare/Purge", Side::Us);
    });
    let g = game(st);
    let spend = arbiter_twilight::pipeline::Spend { all_in_asia: in_sea, all_in_southeast_asia: in_sea };
    let v = arbiter_twilight::ctx::ops_value(g.pos(), card("Nasser"), Side::Ussr, spend);
    assert_eq!(v.value, want, "{v}");
}

#[rstest]
#[case("Duck and Cover", false, 4)] // 3 + 1
#[case("NATO", false, 4)] // 4: Containment cannot raise past 4
#[case("The China Card", true, 5)] // the cap bounds Containment's step only, never lowers
#[case("CIA Created", false, 2)] // §7.4.2 example: CIA Created gives 2 Ops after Containment
fn containment_adds_one_up_to_four(#[case] name: &str, #[case] asia: bool, #[case] want: i32) {
    let g = game(board(&[], |st| effect(st, "Containment", Side::Us)));
    let spend = arbiter_twilight::pipeline::Spend { all_in_asia: asia, all_in_southeast_asia: false };
    assert_eq!(arbiter_twilight::ctx::ops_value(g.pos(), card(name), Side::Us, spend).value, want);
}

#[test]
fn modifiers_only_help_the_player_they_were_granted_to() {
    let g = game(board(&[], |st| effect(st, "Brezhnev Doctrine", Side::Ussr)));
    let spend = arbiter_twilight::pipeline::Spend::NOWHERE;
    assert_eq!(arbiter_twilight::ctx::ops_value(g.pos(), card("Fidel"), Side::Ussr, spend).value, 3);
    assert_eq!(arbiter_twilight::ctx::ops_value(g.pos(), card("Fidel"), Side::Us, spend).value, 2);
}

// ---------------------------------------------------------------- §6.1 influence

#[test]
fn placement_costs_two_in_enemy_controlled_countries_rechecked_per_marker() {
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        set_inf(st, "Lebanon", 0, 1);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    let log = play(&mut g, &["play \"Duck and Cover\" ops", "influence Lebanon", "influence Lebanon"]);
    assert!(log.iter().any(|l| l.contains("this marker costs 2 Ops (§6.1.2)")), "{log:#?}");
    assert_eq!(inf(&g, "Lebanon"), [2, 1]);
}

#[test]
fn access_comes_from_influence_held_at_the_start_of_the_round() {
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "influence Jordan"]);
    assert_eq!(
        reject(&mut g, "influence Iraq"),
        "cannot influence Iraq: US had no Influence in or next to Iraq at the start of the action round (§6.1.1)"
    );
}

#[test]
fn a_superpower_may_always_place_next_to_itself() {
    let mut g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["Duck and Cover"]));
    play(&mut g, &["play \"Duck and Cover\" ops", "influence Mexico"]);
    assert!(reject(&mut g, "influence Guatemala").contains("(§6.1.1)"));
    assert!(reject(&mut g, "coup Cuba").contains("(§6)"), "one activity per card");
}

// ---------------------------------------------------------------- §6.2 realignment

/// Rulebook example: the US realigns North Korea (USSR 3, US 0); US rolls 5; the USSR rolls 2
/// +1 more Influence +1 adjacent to the USSR = 4 (the superpower counted once); USSR loses 1.
#[test]
fn realignment_in_north_korea_rulebook_example() {
    let mut g = at_round(Side::Us, &[5, 2], |st| {
        set_inf(st, "North Korea", 0, 3);
        give(st, Side::Us, &["CIA Created"]);
    });
    let log = play(&mut g, &["play \"CIA Created\" ops", "realign \"North Korea\""]);
    assert!(
        log.contains(
            &"US realigns North Korea: US 5 (die) = 5; USSR 2 (die) +1 more Influence = 3; +1 adjacent to the USSR = 4 (§6.2)".to_string()
        ),
        "{log:#?}"
    );
    assert_eq!(inf(&g, "North Korea"), [0, 2]);
}

#[test]
fn the_defender_can_win_a_realignment() {
    let mut g = at_round(Side::Us, &[1, 6], |st| {
        set_inf(st, "Angola", 2, 1);
        give(st, Side::Us, &["CIA Created"]);
    });
    play(&mut g, &["play \"CIA Created\" ops", "realign Angola"]);
    // US 1 +1 more Influence = 2; USSR 6: the US, the attacker, loses 4 (only 2 to lose).
    assert_eq!(inf(&g, "Angola"), [0, 1]);
}

// ---------------------------------------------------------------- §6.3 coups

/// Rulebook example: the US coups Mexico (stability 2, USSR 2) with a 3-Op card and rolls 4:
/// 4 + 3 − 4 = 3: remove 2 USSR, add 1 US; 3 military ops; DEFCON drops (battleground).
#[test]
fn coup_in_mexico_rulebook_example() {
    let mut g = at_round(Side::Us, &[4], |st| {
        set_inf(st, "Mexico", 0, 2);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "coup Mexico"]);
    assert_eq!(inf(&g, "Mexico"), [1, 0]);
    assert_eq!(g.state().mil_ops, [3, 0]);
    assert_eq!(g.state().defcon, 4);
}

#[test]
fn defcon_closes_regions_to_coups_with_the_rule_named() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        st.defcon = 4;
        set_inf(st, "Poland", 1, 0);
        give(st, Side::Ussr, &["Fidel"]);
    });
    play(&mut g, &["play Fidel ops"]);
    assert_eq!(reject(&mut g, "coup Poland"), "cannot coup Poland: DEFCON 4 closes Europe to coups (§8.1.5)");
    assert_eq!(reject(&mut g, "realign Poland"), "cannot realign Poland: DEFCON 4 closes Europe to realignments (§8.1.5)");
}

#[test]
fn defcon_1_loses_for_the_phasing_player() {
    let mut g = at_round(Side::Ussr, &[6], |st| {
        st.defcon = 2;
        set_inf(st, "Angola", 1, 0);
        give(st, Side::Ussr, &["Fidel"]);
    });
    play(&mut g, &["play Fidel ops", "coup Angola"]);
    let o = g.outcome().expect("game over");
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::Defcon1));
}

#[test]
fn coup_needs_opponent_influence() {
    let mut g = at_round(Side::Ussr, &[], |st| give(st, Side::Ussr, &["Fidel"]));
    play(&mut g, &["play Fidel ops"]);
    assert!(reject(&mut g, "coup Angola").contains("(§6.3.1)"));
}

// ---------------------------------------------------------------- §6.4 space race

#[test]
fn space_race_success_scores_the_first_arrival() {
    let mut g = at_round(Side::Us, &[3], |st| give(st, Side::Us, &["Duck and Cover"]));
    play(&mut g, &["play \"Duck and Cover\" space"]);
    assert_eq!((g.state().space, g.state().vp), ([1, 0], 2));
    assert_eq!(g.state().space_first[0], Some(Side::Us));
}

#[rstest]
#[case(0, 1, None, "(§6.4.2)")] // one attempt per turn
#[case(4, 0, None, "(§6.4.1)")] // Lunar Orbit needs 3 Ops; Fidel has 2 for the US
#[case(8, 0, None, "(§6.4.6)")]
#[case(2, 1, Some(Side::Us), "")] // Animal in Space: a second attempt
fn space_race_limits(#[case] at: u8, #[case] attempts: u8, #[case] animal: Option<Side>, #[case] rule: &str) {
    let mut g = at_round(Side::Us, &[1], |st| {
        st.space = [at, 0];
        st.space_attempts = [attempts, 0];
        st.space_first[1] = animal;
        give(st, Side::Us, &["Fidel"]);
    });
    if rule.is_empty() {
        play(&mut g, &["play Fidel space"]);
        assert_eq!(g.state().space[0], at + 1);
    } else {
        assert!(reject(&mut g, "play Fidel space").ends_with(rule));
    }
}

// ---------------------------------------------------------------- §4.5C headline

fn headline(us: &str, ussr: &str, dice: &[u8]) -> (Game, Vec<String>) {
    let mut st = board(dice, |st| {
        give(st, Side::Us, &[us]);
        give(st, Side::Ussr, &[ussr]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    let mut log = play(&mut g, &[&format!("headline \"{ussr}\""), &format!("headline \"{us}\"")]);
    // Ops an event grants in the headline (CIA Created) are spent on the first legal move.
    while g.state().round == 0 && matches!(g.state().stack.last(), Some(Task::Ops(_))) {
        let m = g.legal_moves()[0];
        log.extend(g.play(&m).expect("a listed move").log.into_iter().map(|l| l.text));
    }
    (g, log)
}

fn before(log: &[String], a: &str, b: &str) -> bool {
    let pos = |s: &str| log.iter().position(|l| l == s).unwrap_or_else(|| panic!("{s:?} not in {log:#?}"));
    pos(a) < pos(b)
}

#[rstest]
#[case("Duck and Cover", "Vietnam Revolts", "US")] // 3 Ops before 2
#[case("CIA Created", "Vietnam Revolts", "USSR")] // 2 before 1
#[case("NATO", "Brezhnev Doctrine", "US")] // 4 > 3
#[case("CIA Created", "Asia Scoring", "US")] // scoring cards resolve second
fn headline_order(#[case] us: &str, #[case] ussr: &str, #[case] first: &str) {
    let (_, log) = headline(us, ussr, &[]);
    let (a, b) = (format!("US headline: {us}"), format!("USSR headline: {ussr}"));
    assert_eq!(before(&log, &a, &b), first == "US", "{log:#?}");
}

#[test]
fn headline_ties_go_to_the_us() {
    let (_, log) = headline("Defectors", "Korean War", &[]);
    // Defectors cancels the USSR headline even though Korean War ties it (FAQ).
    assert!(
        log.contains(&"Defectors cancels the USSR headline: Korean War is discarded without effect (card text)".to_string()),
        "{log:#?}"
    );
}

#[test]
fn the_other_headline_stays_secret_until_both_are_chosen() {
    let mut st = board(&[], |st| {
        give(st, Side::Us, &["Duck and Cover"]);
        give(st, Side::Ussr, &["Fidel", "Nasser"]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    play(&mut g, &["headline Fidel"]);
    assert_eq!(g.view(Some(Side::Us)).headline.ussr, None);
    assert_eq!(g.view(None).headline.ussr, None);
    assert_eq!(g.view(Some(Side::Ussr)).headline.ussr.as_deref(), Some("Fidel"));
    assert!(g.view(Some(Side::Us)).hand.contains(&"Duck and Cover".to_string()));
    assert!(!g.view(Some(Side::Us)).hand.contains(&"Nasser".to_string()));
}

/// §4.5C: both sides choose at the same time, a simultaneous step: the USSR is asked first,
/// the US acts at the same time (not an interjection), is not asked again, and neither side
/// nor an observer sees the other's card until both have chosen.
#[test]
fn the_us_may_choose_its_headline_while_the_ussr_decides() {
    let mut st = board(&[], |st| {
        give(st, Side::Us, &["Duck and Cover", "Fidel"]);
        give(st, Side::Ussr, &["Nasser", "Vietnam Revolts"]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    assert_eq!(g.to_move(), Some(Side::Ussr));
    assert_eq!(g.acting().as_slice(), [Side::Ussr, Side::Us], "both sides act at once");
    let early: Vec<String> = g.moves_for(Side::Us).iter().map(|m| g.move_text(m)).collect();
    assert_eq!(early, ["headline \"Duck and Cover\"", "headline Fidel"]);
    assert_eq!(g.moves_for(Side::Ussr), g.legal_moves(), "the USSR decides: its headlines are its moves");
    assert!(g.interjections(Side::Us).is_empty(), "a headline is the step's move, not an interjection");
    assert!(g.interjections(Side::Ussr).is_empty());
    let m = g.parse("headline \"Duck and Cover\"").unwrap();
    let r = g.play_as(Side::Us, &m).unwrap();
    assert_eq!(g.to_move(), Some(Side::Ussr), "the USSR still decides");
    assert!(r.lines_for(Some(Side::Ussr)).all(|l| !l.contains("Duck and Cover")), "{r:?}");
    assert!(r.lines_for(None).all(|l| !l.contains("Duck and Cover")), "{r:?}");
    assert!(r.lines_for(Some(Side::Us)).any(|l| l == "US headlines Duck and Cover"), "{r:?}");
    assert_eq!(g.view(Some(Side::Ussr)).headline.us, None);
    assert_eq!(g.view(None).headline.us, None);
    assert_eq!(g.view(Some(Side::Us)).headline.us.as_deref(), Some("Duck and Cover"));
    assert!(g.hidden_move("headline \"Duck and Cover\"", Side::Us, Some(Side::Ussr)).is_some());
    assert!(g.hidden_move("headline \"Duck and Cover\"", Side::Us, Some(Side::Us)).is_none());
    assert!(g.moves_for(Side::Us).is_empty(), "chosen once");
    assert_eq!(g.acting().as_slice(), [Side::Ussr], "only the USSR still acts");
    let hash = g.hash64();
    let refused = g.play_as(Side::Us, &g.parse("headline Fidel").unwrap()).unwrap_err().to_string();
    assert!(refused.contains("the US has already chosen its headline (§4.5C)"), "{refused}");
    assert_eq!(g.hash64(), hash, "a second headline is refused and changes nothing");
    // The USSR chooses: both are revealed and resolve; the US is not asked again.
    let log = play(&mut g, &["headline Nasser"]);
    assert!(log.contains(&"Headlines revealed: US Duck and Cover, USSR Nasser".to_string()), "{log:#?}");
    assert!(!log.iter().any(|l| l.contains("no card to headline")), "{log:#?}");
    assert!(before(&log, "US headline: Duck and Cover", "USSR headline: Nasser"), "{log:#?}");
    assert!(!g.state().stack.iter().any(|t| matches!(t, Task::HeadlineChoose { .. })), "{:?}", g.state().stack);
}

/// A side acting at the simultaneous step may concede there (its clock runs out while the other
/// side still chooses): it loses, whatever was pending.
#[test]
fn the_side_choosing_at_the_same_time_may_lose_on_time() {
    let mut st = board(&[], |st| {
        give(st, Side::Us, &["Duck and Cover"]);
        give(st, Side::Ussr, &["Nasser"]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    assert_eq!(g.to_move(), Some(Side::Ussr));
    let r = g.play_as(Side::Us, &Move::Concede(arbiter_twilight::moves::Concession::Time)).unwrap();
    assert!(r.lines_for(None).any(|l| l == "The US runs out of time on the chess clock"), "{r:?}");
    assert_eq!(g.outcome().and_then(|o| o.winner), Some(Side::Ussr));
}

/// §6.4.4: under Man in Earth Orbit one side reveals first and the other chooses knowing it,
/// so the other side may not choose early.
#[test]
fn man_in_earth_orbit_keeps_the_headlines_in_order() {
    let mut st = board(&[], |st| {
        give(st, Side::Us, &["Duck and Cover", "Fidel"]);
        give(st, Side::Ussr, &["Nasser", "Vietnam Revolts"]);
        // The US reached Man in Earth Orbit first: the USSR reveals first.
        st.space = [4, 0];
        st.space_first[3] = Some(Side::Us);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    assert_eq!(g.to_move(), Some(Side::Ussr));
    assert_eq!(g.acting().as_slice(), [Side::Ussr], "no simultaneous step: the USSR alone acts");
    assert!(g.moves_for(Side::Us).is_empty() && g.interjections(Side::Us).is_empty());
    let refused = g.play_as(Side::Us, &g.parse("headline Fidel").unwrap()).unwrap_err().to_string();
    assert!(refused.contains("the USSR chooses and reveals its headline first") && refused.contains("§6.4.4"), "{refused}");
    play(&mut g, &["headline Nasser"]);
    assert_eq!(g.to_move(), Some(Side::Us), "the US chooses after the USSR's reveal");
    assert_eq!(g.view(Some(Side::Us)).headline.ussr.as_deref(), Some("Nasser"));
}

#[test]
fn the_china_card_cannot_be_headlined() {
    let mut st = board(&[], |st| give(st, Side::Ussr, &["Fidel"]));
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    assert!(reject(&mut g, "headline \"The China Card\"").ends_with("(§9.5)"));
}

// ---------------------------------------------------------------- §8.2 military ops

#[rstest]
#[case(4, [2, 4], -2)] // rulebook: DEFCON 4, US 2 military ops: USSR gains 2
#[case(3, [0, 1], -1)] // both short: only the net moves (US short 3, USSR short 2)
#[case(5, [5, 5], 0)]
fn military_ops_penalty_is_netted(#[case] defcon: u8, #[case] ops: [u8; 2], #[case] vp: i8) {
    let mut st = board(&[], |st| {
        st.defcon = defcon;
        st.mil_ops = ops;
    });
    st.stack = vec![Task::MilOpsCheck];
    let g = game(st);
    assert_eq!((g.state().vp, g.state().mil_ops), (vp, [0, 0]));
}

// ---------------------------------------------------------------- §10 scoring

/// Rulebook §10.1.2: the USSR controls Cuba, Haiti and the Dominican Republic; the US controls
/// Guatemala and has 1 Influence in Panama. USSR 3 + 1 + 1 = 5; US 1; net 4 to the USSR.
#[test]
fn central_america_scoring_rulebook_example() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        set_inf(st, "Cuba", 0, 3);
        set_inf(st, "Haiti", 0, 1);
        set_inf(st, "Dominican Republic", 0, 1);
        set_inf(st, "Guatemala", 1, 0);
        set_inf(st, "Panama", 1, 0);
        give(st, Side::Ussr, &["Central America Scoring"]);
    });
    let log = play(&mut g, &["play \"Central America Scoring\" event"]);
    assert!(
        log.contains(&"Central America scoring (§10.1): US Presence 1 = 1; USSR Domination 3 + 1 battleground (Cuba) + 1 adjacent to the US (Cuba) = 5".to_string()),
        "{log:#?}"
    );
    assert_eq!(g.state().vp, -4);
    assert_eq!(g.state().locate(card("Central America Scoring")), Pile::Discard);
}

#[test]
fn controlling_europe_when_it_is_scored_wins() {
    let mut g = at_round(Side::Us, &[], |st| {
        for c in ["East Germany", "France", "Italy", "Poland", "West Germany"] {
            set_inf(st, c, 4, 0);
        }
        give(st, Side::Us, &["Europe Scoring"]);
    });
    play(&mut g, &["play \"Europe Scoring\" event"]);
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::EuropeControl));
}

#[test]
fn southeast_asia_scoring_counts_thailand_double_and_is_removed() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        set_inf(st, "Thailand", 0, 2);
        set_inf(st, "Burma", 0, 2);
        set_inf(st, "Philippines", 2, 0);
        give(st, Side::Ussr, &["Southeast Asia Scoring"]);
    });
    play(&mut g, &["play \"Southeast Asia Scoring\" event"]);
    assert_eq!(g.state().vp, -2); // USSR 3, US 1
    assert_eq!(g.state().locate(card("Southeast Asia Scoring")), Pile::Removed);
}

#[test]
fn final_scoring_gives_the_china_card_holder_one_vp() {
    let mut st = board(&[], |st| st.china.holder = Side::Us);
    st.stack = vec![Task::FinalScoring];
    let g = game(st);
    let o = g.outcome().unwrap();
    assert_eq!((g.state().vp, o.winner, o.reason), (1, Some(Side::Us), EndReason::FinalScoring));
}

#[test]
fn twenty_vp_wins_at_once() {
    let mut g = at_round(Side::Us, &[], |st| {
        st.vp = 19;
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" event"]);
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::VictoryPoints));
}

// ---------------------------------------------------------------- §4.5 turn end, §4.3 reshuffle

#[test]
fn a_held_scoring_card_loses_at_the_end_of_the_turn() {
    let mut st = board(&[], |st| give(st, Side::Ussr, &["Asia Scoring"]));
    st.stack = vec![Task::HeldCards];
    let o = game(st).outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::HeldScoringCard));
}

#[test]
fn only_scoring_cards_may_be_played_when_they_would_otherwise_be_held() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        st.round = 6; // the last round of turn 1
        give(st, Side::Ussr, &["Asia Scoring", "Fidel"]);
    });
    assert!(reject(&mut g, "play Fidel ops").ends_with("(§4.5D)"));
    assert!(reject(&mut g, "play \"The China Card\" ops").ends_with("(§4.5D)"));
}

#[test]
fn end_of_turn_flips_the_china_card_and_adds_the_mid_war_deck_at_turn_4() {
    let rules = arbiter_twilight_cards::ruleset();
    let mut st = board(&[], |st| {
        st.turn = 3;
        st.china = arbiter_twilight::state::China { holder: Side::Us, face_up: false };
        st.reserve = rules.cards.era_deck(arbiter_twilight::card::Era::Mid, true).into_iter().collect();
        effect(st, "Containment", Side::Us);
    });
    st.stack = vec![Task::ChinaFlip, Task::EndTurn].into_iter().rev().collect();
    let g = game(st);
    let s = g.state();
    assert_eq!((s.turn, s.china.face_up, s.reserve.len()), (4, true, 0));
    assert_eq!(s.hands[0].len() + s.hands[1].len() + s.deck.len(), 48);
    assert_eq!((s.hands[0].len(), s.hands[1].len()), (9, 9), "hand size 9 from turn 4");
    assert!(s.effects.is_empty(), "turn-long effects end");
}

#[test]
fn the_discard_pile_is_reshuffled_only_when_the_deck_is_empty() {
    let mut st = board(&[], |st| {
        st.turn = 2;
        st.deck = vec![card("Fidel")];
        for c in ["Nasser", "Blockade", "COMECON"] {
            st.discard.insert(card(c));
        }
    });
    st.stack = vec![Task::Deal];
    let g = game(st);
    let s = g.state();
    assert_eq!(s.hands[1].len() + s.hands[0].len(), 4);
    assert!(s.hands[1].contains(card("Fidel")), "the USSR draws first and the old deck is dealt first");
    assert!(s.discard.is_empty() && s.deck.is_empty());
}

// ---------------------------------------------------------------- §5.2 card play and disposal

#[test]
fn an_opponents_event_that_cannot_occur_leaves_a_starred_card_in_the_discards() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        set_inf(st, "Poland", 0, 1);
        give(st, Side::Ussr, &["NATO"]);
    });
    assert!(reject(&mut g, "play NATO ops then event").ends_with("(§5.2)"));
    play(&mut g, &["play NATO ops", "influence Poland", "influence Poland", "influence Poland", "influence Poland"]);
    assert_eq!(g.state().locate(card("NATO")), Pile::Discard);
}

#[test]
fn an_opponents_event_happens_when_the_player_chooses() {
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Vietnam", 1, 0);
        give(st, Side::Us, &["Vietnam Revolts"]);
    });
    assert!(reject(&mut g, "play \"Vietnam Revolts\" ops").ends_with("(§5.2)"));
    assert!(reject(&mut g, "play \"Vietnam Revolts\" event").ends_with("(§5.2)"));
    play(&mut g, &["play \"Vietnam Revolts\" ops then event", "influence Vietnam", "influence Vietnam"]);
    // US 1 + 2 = 3 before the event; then the USSR's 2 arrive (and the card is removed).
    assert_eq!(inf(&g, "Vietnam"), [3, 2]);
    assert_eq!(g.state().locate(card("Vietnam Revolts")), Pile::Removed);
    assert!(g.state().has_effect(card("Vietnam Revolts")));
}

// ---------------------------------------------------------------- card events

#[test]
fn nato_needs_a_prerequisite_then_vetoes_ussr_coups_in_us_controlled_europe() {
    let mut g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["NATO"]));
    assert!(reject(&mut g, "play NATO event").contains("Marshall Plan or Warsaw Pact"));
    let mut g = at_round(Side::Ussr, &[], |st| {
        effect(st, "NATO", Side::Us);
        set_inf(st, "West Germany", 4, 0);
        set_inf(st, "Italy", 1, 0);
        give(st, Side::Ussr, &["Fidel"]);
    });
    play(&mut g, &["play Fidel ops"]);
    assert!(reject(&mut g, "coup \"West Germany\"").contains("NATO protects US-controlled countries in Europe"));
    // Italy is not US-controlled: NATO does not protect it.
    assert!(g.check(&g.parse("realign Italy").unwrap()).is_ok());
}

#[test]
fn marshall_plan_places_in_seven_countries_and_enables_nato() {
    let mut g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["Marshall Plan"]));
    play(&mut g, &["play \"Marshall Plan\" event"]);
    for c in ["UK", "France", "Italy", "Benelux", "Denmark", "Norway", "Sweden"] {
        play(&mut g, &[&format!("influence {c}")]);
    }
    assert!(g.state().has_effect(card("Marshall Plan")));
    assert_eq!(inf(&g, "Sweden"), [1, 0]);
}

#[test]
fn warsaw_pact_can_add_five_influence_at_most_two_per_country() {
    let mut g = at_round(Side::Ussr, &[], |st| give(st, Side::Ussr, &["Warsaw Pact Formed"]));
    play(&mut g, &["play \"Warsaw Pact Formed\" event", "choose add", "influence Poland", "influence Poland"]);
    assert!(reject(&mut g, "influence Poland").contains("not a legal choice"));
    play(&mut g, &["influence Hungary", "influence Hungary", "influence Austria"]);
    assert_eq!((inf(&g, "Poland"), inf(&g, "Austria")), ([0, 2], [0, 1]));
}

#[test]
fn cuban_missile_crisis_makes_a_coup_lose_and_can_be_cancelled() {
    let setup = |st: &mut arbiter_twilight::State| {
        effect(st, "Cuban Missile Crisis", Side::Us);
        set_inf(st, "Angola", 1, 0);
        set_inf(st, "Cuba", 0, 2);
        give(st, Side::Ussr, &["Fidel"]);
    };
    let mut g = at_round(Side::Ussr, &[], setup);
    play(&mut g, &["play Fidel ops", "coup Angola"]);
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::CubanMissileCrisis));
    let mut g = at_round(Side::Ussr, &[6], setup);
    play(&mut g, &["cancel \"Cuban Missile Crisis\" Cuba", "play Fidel ops", "coup Angola"]);
    // 6 + 2 - 2 x 1 = 6: remove the 1 US Influence, add 5.
    assert_eq!((g.outcome(), inf(&g, "Cuba"), inf(&g, "Angola")), (None, [0, 0], [0, 5]));
}

#[test]
fn bear_trap_replaces_the_round_with_a_discard_and_an_escape_roll() {
    let mut st = board(&[3], |st| {
        st.effects.push(arbiter_twilight::effect::Effect {
            card: card("Bear Trap"),
            owner: Side::Us,
            expiry: arbiter_twilight::effect::Expiry::Permanent,
            memo: arbiter_twilight::effect::Memo::Nothing,
            keeps_card: false,
        });
        give(st, Side::Ussr, &["Fidel", "Nasser"]);
    });
    st.stack = vec![Task::ActionRound { round: 1, side: Side::Ussr }];
    let mut g = game(st);
    assert!(reject(&mut g, "discard Nasser").contains("not a legal choice"), "a 1-Op card cannot be discarded");
    assert!(reject(&mut g, "play Fidel ops").contains("not a legal choice"));
    play(&mut g, &["discard Fidel"]);
    assert!(!g.state().has_effect(card("Bear Trap")));
}

#[test]
fn nuclear_subs_spares_defcon_on_us_battleground_coups() {
    let mut g = at_round(Side::Us, &[6], |st| {
        effect(st, "Nuclear Subs", Side::Us);
        set_inf(st, "Mexico", 0, 1);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "coup Mexico"]);
    assert_eq!((g.state().defcon, g.state().mil_ops[0]), (5, 3));
}

#[test]
fn salt_lowers_coup_rolls_for_both_sides() {
    let mut g = at_round(Side::Us, &[4], |st| {
        effect(st, "SALT Negotiations", Side::Ussr);
        set_inf(st, "Mexico", 0, 2);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    let log = play(&mut g, &["play \"Duck and Cover\" ops", "coup Mexico"]);
    assert!(log.contains(&"Coup: roll 4 (die) -1 SALT Negotiations = 3; + 3 Ops - 2 x 2 stability = 2 (§6.3.2)".to_string()), "{log:#?}");
    assert_eq!(inf(&g, "Mexico"), [0, 0]);
}

#[test]
fn latin_american_death_squads_change_the_roll_but_not_military_ops() {
    let mut g = at_round(Side::Us, &[4], |st| {
        effect(st, "Latin American Death Squads", Side::Ussr);
        set_inf(st, "Mexico", 0, 2);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "coup Mexico"]);
    assert_eq!((inf(&g, "Mexico"), g.state().mil_ops[0]), ([0, 0], 3));
}

#[test]
fn iran_contra_lowers_us_realignment_rolls() {
    let mut g = at_round(Side::Us, &[3, 2], |st| {
        effect(st, "Iran-Contra Scandal", Side::Ussr);
        set_inf(st, "Angola", 0, 1);
        give(st, Side::Us, &["CIA Created"]);
    });
    play(&mut g, &["play \"CIA Created\" ops", "realign Angola"]);
    // US 3 - 1 = 2; USSR 2 + 1 more Influence = 3: the US loses (nothing to lose).
    assert_eq!(inf(&g, "Angola"), [0, 1]);
}

#[test]
fn junta_places_two_then_a_free_coup_earns_no_military_ops() {
    let mut g = at_round(Side::Ussr, &[6], |st| {
        st.defcon = 2;
        set_inf(st, "Panama", 1, 0);
        give(st, Side::Ussr, &["Junta"]);
    });
    play(&mut g, &["play Junta event", "target Guatemala", "choose coup or realign", "coup Panama"]);
    // 6 + 2 - 2 x 2 = 4: remove the 1 US Influence, add 3.
    assert_eq!((inf(&g, "Guatemala"), inf(&g, "Panama")), ([0, 2], [0, 3]));
    assert_eq!(g.state().mil_ops, [0, 0]);
    // A battleground free coup still lowers DEFCON: at 2 that ends the game for the phasing USSR.
    assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Defcon1));
}

#[test]
fn decolonization_needs_four_different_countries() {
    let mut g = at_round(Side::Ussr, &[], |st| give(st, Side::Ussr, &["Decolonization"]));
    play(&mut g, &["play Decolonization event", "influence Angola"]);
    assert!(reject(&mut g, "influence Angola").contains("not a legal choice"));
    assert!(reject(&mut g, "influence Japan").contains("not a legal choice"));
    play(&mut g, &["influence Vietnam", "influence Zaire", "influence Burma"]);
    assert_eq!(inf(&g, "Burma"), [0, 1]);
}

#[test]
fn olympic_games_is_the_opponents_choice() {
    let mut g = at_round(Side::Ussr, &[1, 3, 5, 2], |st| give(st, Side::Ussr, &["Olympic Games"]));
    play(&mut g, &["play \"Olympic Games\" event"]);
    assert_eq!(g.decision().unwrap().side, Side::Us);
    play(&mut g, &["choose participate"]);
    assert_eq!(g.state().vp, -2, "1+2 ties 3, then 5+2 beats 2");
    let mut g = at_round(Side::Ussr, &[], |st| {
        set_inf(st, "Poland", 0, 1);
        give(st, Side::Ussr, &["Olympic Games"]);
    });
    play(&mut g, &["play \"Olympic Games\" event", "choose boycott"]);
    assert_eq!(g.state().defcon, 4);
    play(&mut g, &["influence Poland"; 4]);
    assert_eq!(inf(&g, "Poland"), [0, 5]);
}

#[test]
fn five_year_plan_triggers_a_us_event_discarded_at_random() {
    let mut st = board(&[], |st| {
        st.round = 1;
        st.phasing = Side::Us;
        give(st, Side::Us, &["Five Year Plan"]);
        give(st, Side::Ussr, &["Duck and Cover", "Fidel"]);
    });
    st.rng = Randomness::Scripted { dice: Default::default(), picks: [0u8].into_iter().collect() };
    st.stack = vec![Task::EndRound { side: Side::Us }, Task::PlayCard(arbiter_twilight::PlayTask::round(Side::Us))];
    let mut g = game(st);
    play(&mut g, &["play \"Five Year Plan\" event"]);
    assert_eq!((g.state().defcon, g.state().vp), (4, 1), "Duck and Cover happened for the US");
    assert_eq!(g.state().locate(card("Duck and Cover")), Pile::Discard);
}

#[test]
fn wargames_only_at_defcon_2_and_the_leader_wins() {
    // Above DEFCON 2 the event may be played and does nothing; the card is discarded, not
    // removed (§5.2, FAQ).
    let mut g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["Wargames", "Fidel"]));
    play(&mut g, &["play Wargames event"]);
    assert!(g.outcome().is_none());
    assert!(g.state().discard.contains(card("Wargames")));
    let mut g = at_round(Side::Us, &[], |st| {
        st.defcon = 2;
        st.vp = 7;
        give(st, Side::Us, &["Wargames"]);
    });
    play(&mut g, &["play Wargames event", "choose end the game"]);
    let o = g.outcome().unwrap();
    assert_eq!((g.state().vp, o.winner, o.reason), (1, Some(Side::Us), EndReason::Wargames));
}

#[test]
fn duck_and_cover_scores_five_minus_defcon() {
    let mut g = at_round(Side::Us, &[], |st| {
        st.defcon = 4;
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" event"]);
    assert_eq!((g.state().defcon, g.state().vp), (3, 2));
}

#[test]
fn korean_war_swaps_influence_on_a_win_and_gives_military_ops_either_way() {
    let mut g = at_round(Side::Ussr, &[5], |st| {
        set_inf(st, "South Korea", 2, 0);
        set_inf(st, "Japan", 4, 0);
        give(st, Side::Ussr, &["Korean War"]);
    });
    play(&mut g, &["play \"Korean War\" event"]);
    // 5 - 1 (US-controlled Japan) = 4: success.
    assert_eq!((inf(&g, "South Korea"), g.state().vp, g.state().mil_ops[1]), ([0, 2], -2, 2));
}

#[test]
fn defectors_played_by_the_ussr_gives_the_us_a_vp() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        set_inf(st, "Poland", 0, 1);
        give(st, Side::Ussr, &["Defectors"]);
    });
    play(&mut g, &["play Defectors event then ops", "influence Poland", "influence Poland"]);
    assert_eq!(g.state().vp, 1);
}

#[test]
fn norad_reacts_to_defcon_reaching_2_during_a_round() {
    let mut g = at_round(Side::Ussr, &[], |st| {
        st.effects.push(arbiter_twilight::effect::Effect {
            card: card("NORAD"),
            owner: Side::Us,
            expiry: arbiter_twilight::effect::Expiry::Permanent,
            memo: arbiter_twilight::effect::Memo::Nothing,
            keeps_card: false,
        });
        set_inf(st, "Canada", 4, 0);
        set_inf(st, "Japan", 1, 0);
        give(st, Side::Ussr, &["Cuban Missile Crisis"]);
    });
    play(&mut g, &["play \"Cuban Missile Crisis\" event"]);
    let d = g.decision().expect("NORAD asks the US");
    assert_eq!(d.side, Side::Us);
    play(&mut g, &["influence Japan"]);
    assert_eq!(inf(&g, "Japan"), [2, 0]);
}

// ---------------------------------------------------------------- notation and setup

#[test]
fn names_match_case_insensitively_and_by_unambiguous_prefix() {
    let g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["Duck and Cover"]));
    assert_eq!(g.parse("play duck ops").unwrap(), g.parse("play \"Duck and Cover\" ops").unwrap());
    assert_eq!(g.parse("coup west g").unwrap(), g.parse("coup \"West Germany\"").unwrap());
    let err = g.parse("coup west").unwrap_err().to_string();
    assert!(err.contains("ambiguous"), "{err}");
    assert!(g.parse("fly Poland").unwrap_err().to_string().contains("unknown move"));
}

#[test]
fn setup_places_the_free_influence_in_the_right_halves_of_europe() {
    let (mut g, _) = Game::new(arbiter_twilight_cards::ruleset(), arbiter_twilight::Options::default(), Randomness::seeded(1));
    assert_eq!(g.decision().unwrap().side, Side::Ussr);
    assert_eq!(g.state().hands.map(|h| h.len()), [8, 8]);
    assert!(reject(&mut g, "influence France").ends_with("(§3.2)"));
    play(&mut g, &["influence Austria"; 6]);
    assert!(reject(&mut g, "influence Poland").ends_with("(§3.3)"));
    play(&mut g, &["influence Austria"; 7]);
    assert!(reject(&mut g, "influence Poland").contains("US bonus"));
    play(&mut g, &["influence Austria", "influence UK"]);
    assert_eq!(inf(&g, "Austria"), [8, 6]);
    assert_eq!(g.decision().unwrap().prompt, "USSR: choose your headline card (§4.5C)");
}

#[rstest]
// USSR domination 5 + 2 battlegrounds = 7; US presence 3 + 1 battleground = 4: net 3 to the USSR.
#[case("Middle East Scoring", &[("Iran", 0, 2), ("Iraq", 0, 3), ("Lebanon", 0, 1), ("Israel", 4, 0)], -3)]
// USSR domination 4 + 2 = 6; US presence 1 + 1 = 2.
#[case("Africa Scoring", &[("Angola", 0, 1), ("Zaire", 0, 1), ("Kenya", 0, 2), ("Nigeria", 1, 0)], -4)]
// US control 6 + 4 battlegrounds = 10.
#[case("South America Scoring", &[("Argentina", 2, 0), ("Brazil", 2, 0), ("Chile", 3, 0), ("Venezuela", 2, 0), ("Bolivia", 2, 0)], 10)]
// Presence 3 + 1 battleground each; a country next to one's own superpower earns nothing.
#[case("Asia Scoring", &[("Japan", 4, 0), ("North Korea", 0, 3)], 0)]
// Japan for the USSR and North Korea for the US are next to the enemy superpower: +1 each.
#[case("Asia Scoring", &[("Japan", 0, 4), ("North Korea", 3, 0)], 0)]
// US domination 7 + 2 battlegrounds (North Korea, Thailand) + 1 North Korea next to the USSR.
#[case("Asia Scoring", &[("North Korea", 3, 0), ("Thailand", 2, 0), ("Burma", 2, 0)], 10)]
fn region_scoring_cards(#[case] name: &str, #[case] inf_: &[(&str, u8, u8)], #[case] vp: i8) {
    let mut g = at_round(Side::Us, &[], |st| {
        for (c, us, ussr) in inf_ {
            set_inf(st, c, *us, *ussr);
        }
        give(st, Side::Us, &[name]);
    });
    play(&mut g, &[&format!("play \"{name}\" event")]);
    assert_eq!(g.state().vp, vp);
}

#[test]
fn quagmire_traps_the_us_and_ends_norad() {
    let mut st = board(&[5], |st| {
        st.effects.push(arbiter_twilight::effect::Effect {
            card: card("NORAD"),
            owner: Side::Us,
            expiry: arbiter_twilight::effect::Expiry::Permanent,
            memo: arbiter_twilight::effect::Memo::Nothing,
            keeps_card: false,
        });
        give(st, Side::Ussr, &["Quagmire"]);
        give(st, Side::Us, &["Fidel", "Asia Scoring"]);
    });
    st.stack = vec![Task::ActionRound { round: 1, side: Side::Ussr }];
    let mut g = game(st);
    play(&mut g, &["play Quagmire event"]);
    assert!(!g.state().has_effect(card("NORAD")));
    assert_eq!(g.decision().unwrap().side, Side::Us);
    // A scoring card may always be played instead (§10.1.5).
    assert!(g.check(&g.parse("play \"Asia Scoring\" event").unwrap()).is_ok());
    play(&mut g, &["discard Fidel"]);
    assert!(g.state().has_effect(card("Quagmire")), "a 5 does not escape");
}

// ---------------------------------------------------------------- more of §6.4, §4.5, §9, §10.3

/// Every box of the §6.4.3 table: its Ops requirement, its roll, its VP for the first arrival.
/// The USSR plays; `small` has too few Ops for the box, `big` enough.
#[rstest]
#[case(0, "Nasser", "Fidel", 3, 2)]
#[case(1, "Nasser", "Fidel", 4, 0)]
#[case(2, "Nasser", "Fidel", 3, 2)]
#[case(3, "Nasser", "Fidel", 4, 0)]
#[case(4, "Fidel", "COMECON", 3, 3)]
#[case(5, "Fidel", "COMECON", 4, 0)]
#[case(6, "Fidel", "COMECON", 3, 4)]
#[case(7, "COMECON", "Nuclear Test Ban", 2, 2)]
fn space_race_boxes(#[case] at: u8, #[case] small: &str, #[case] big: &str, #[case] max_roll: u8, #[case] vp: i8) {
    let mut g = at_round(Side::Ussr, &[max_roll], |st| {
        st.space = [0, at];
        give(st, Side::Ussr, &[small, big]);
    });
    assert!(reject(&mut g, &format!("play \"{small}\" space")).ends_with("(§6.4.1)"));
    play(&mut g, &[&format!("play \"{big}\" space")]);
    assert_eq!((g.state().space[1], g.state().vp), (at + 1, -vp));
    let mut g = at_round(Side::Ussr, &[max_roll + 1], |st| {
        st.space = [0, at];
        give(st, Side::Ussr, &[big]);
    });
    play(&mut g, &[&format!("play \"{big}\" space")]);
    assert_eq!(g.state().space[1], at, "a roll above {max_roll} fails");
}

#[test]
fn the_second_arrival_scores_the_second_number_and_ends_the_ability() {
    let mut g = at_round(Side::Us, &[1], |st| {
        st.space = [0, 1];
        st.space_first[0] = Some(Side::Ussr);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" space"]);
    assert_eq!(g.state().vp, 1, "Earth Satellite: 2 VP first, 1 second");
    let st = board(&[], |st| {
        st.space = [2, 2];
        st.space_first[1] = Some(Side::Ussr);
    });
    assert!(!st.space_ability(Side::Ussr, 2), "Animal in Space ends when the US arrives");
}

#[test]
fn man_in_earth_orbit_makes_the_other_side_choose_and_reveal_first() {
    let mut st = board(&[], |st| {
        st.space = [0, 4];
        st.space_first[3] = Some(Side::Ussr);
        give(st, Side::Us, &["Duck and Cover"]);
        give(st, Side::Ussr, &["Fidel"]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    assert_eq!(g.decision().unwrap().side, Side::Us);
    play(&mut g, &["headline \"Duck and Cover\""]);
    assert_eq!(g.view(Some(Side::Ussr)).headline.us.as_deref(), Some("Duck and Cover"));
}

#[test]
fn the_space_station_gives_an_eighth_action_round() {
    let mut st = board(&[], |st| {
        st.turn = 4;
        st.space = [8, 0];
        st.space_first[7] = Some(Side::Us);
        give(st, Side::Us, &["Duck and Cover", "CIA Created"]);
        give(st, Side::Ussr, &["Fidel"]);
    });
    st.stack = vec![Task::ActionRound { round: 7, side: Side::Ussr }];
    let mut g = game(st);
    play(&mut g, &["play Fidel ops", "influence Poland", "influence Poland", "play \"CIA Created\" ops", "influence Mexico"]);
    let d = g.decision().expect("the US has an 8th round");
    assert_eq!((d.side, g.state().round), (Side::Us, 8));
}

#[test]
fn eagle_has_landed_lets_the_first_arriver_discard_a_held_card() {
    let mut st = board(&[], |st| {
        st.space = [6, 0];
        st.space_first[5] = Some(Side::Us);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    st.stack = vec![Task::HeldCards, Task::SpaceDiscard { side: Side::Us }];
    let mut g = game(st);
    play(&mut g, &["discard \"Duck and Cover\""]);
    assert_eq!(g.state().locate(card("Duck and Cover")), Pile::Discard);
}

#[test]
fn the_china_card_is_never_forced() {
    let mut g = at_round(Side::Ussr, &[], |_| {});
    let moves: Vec<String> = g.decision().unwrap().moves.iter().map(|m| g.move_text(m)).collect();
    assert!(moves.contains(&"pass".to_string()), "{moves:?}");
    play(&mut g, &["pass"]);
    assert_eq!(g.state().china.holder, Side::Ussr);
}

#[test]
fn defcon_improves_by_one_each_turn_up_to_five() {
    for (from, to) in [(2, 3), (4, 5), (5, 5)] {
        let mut st = board(&[], |st| st.defcon = from);
        st.stack = vec![Task::ImproveDefcon];
        assert_eq!(game(st).state().defcon, to);
    }
}

#[test]
fn final_scoring_at_zero_is_a_draw() {
    let mut st = board(&[], |st| {
        st.vp = -1;
        st.china.holder = Side::Us;
    });
    st.stack = vec![Task::FinalScoring];
    let o = game(st).outcome().unwrap();
    assert_eq!((o.winner, o.reason), (None, EndReason::FinalScoring));
}

/// §4.5C, FAQ: the headliner is phasing for its card, so an opponent's event in one's own
/// headline that reaches DEFCON 1 loses the game for the headliner.
#[test]
fn defcon_1_in_a_headline_loses_for_the_headliner() {
    let mut st = board(&[], |st| {
        st.defcon = 2;
        give(st, Side::Us, &["CIA Created"]);
        give(st, Side::Ussr, &["Duck and Cover"]);
    });
    st.stack = vec![Task::HeadlineStart];
    let mut g = game(st);
    play(&mut g, &["headline \"Duck and Cover\"", "headline \"CIA Created\""]);
    let o = g.outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Side::Us), EndReason::Defcon1));
}

#[test]
fn realignment_counts_adjacent_controlled_countries() {
    let mut g = at_round(Side::Us, &[3, 3], |st| {
        set_inf(st, "France", 1, 1);
        set_inf(st, "UK", 5, 0);
        set_inf(st, "Italy", 2, 0);
        give(st, Side::Us, &["CIA Created"]);
    });
    let log = play(&mut g, &["play \"CIA Created\" ops", "realign France"]);
    assert!(log.iter().any(|l| l.contains("US 3 (die) +2 adjacent controlled (UK, Italy) = 5")), "{log:#?}");
    assert_eq!(inf(&g, "France"), [1, 0]);
}

// ---------------------------------------------------------------- odds

#[test]
fn coup_odds_use_the_same_pipeline_as_the_roll() {
    // Mexico (stability 2), a 3-Op card: d + 3 - 4 > 0 for d ≥ 2, so 5 faces in 6.
    // Under SALT Negotiations (-1): d ≥ 3, 4 faces in 6.
    let g = at_round(Side::Us, &[], |st| set_inf(st, "Mexico", 0, 2));
    let o = arbiter_twilight::odds::coup(g.pos(), Side::Us, country("Mexico"), 3);
    assert_eq!((o.success * 6.0).round(), 5.0);
    let g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Mexico", 0, 2);
        effect(st, "SALT Negotiations", Side::Us);
    });
    let o = arbiter_twilight::odds::coup(g.pos(), Side::Us, country("Mexico"), 3);
    assert_eq!((o.success * 6.0).round(), 4.0);
    assert!(o.to_string().contains("-1 SALT Negotiations"), "{o}");
}

#[test]
fn realign_odds_in_north_korea() {
    // US +0 against USSR +2: the US wins when its die beats the USSR's by 3 or more: 6/36.
    let g = at_round(Side::Us, &[], |st| set_inf(st, "North Korea", 0, 3));
    let o = arbiter_twilight::odds::realign(g.pos(), Side::Us, country("North Korea"));
    assert_eq!(((o.win * 36.0).round(), (o.tie * 36.0).round()), (6.0, 4.0));
}

/// §4.4: the Mid War cards are shuffled into the remaining deck: the cards left over from turn 3
/// are not all dealt first.
#[test]
fn new_era_cards_are_shuffled_together_with_the_remaining_deck() {
    let rules = arbiter_twilight_cards::ruleset();
    let leftover: Vec<_> =
        ["Fidel", "Nasser", "Blockade", "COMECON", "Suez Crisis", "Decolonization", "Duck and Cover", "CIA Created"].map(card).to_vec();
    let mut mixed = 0;
    for seed in 0..20 {
        let mut st = board(&[], |st| {
            st.turn = 3;
            st.deck = leftover.clone();
            st.reserve = rules.cards.era_deck(arbiter_twilight::card::Era::Mid, false).into_iter().collect();
        });
        st.rng = Randomness::seeded(seed);
        st.stack = vec![Task::EndTurn];
        let g = game(st);
        // 18 cards are dealt from 54: if the leftovers stayed on top, all 8 would always be dealt.
        let (us, ussr) = (g.state().hands[0], g.state().hands[1]);
        if leftover.iter().filter(|c| us.contains(**c) || ussr.contains(**c)).count() < 8 {
            mixed += 1;
        }
    }
    assert!(mixed >= 18, "leftover cards were dealt first in {} of 20 games", 20 - mixed);
}

// ---------------------------------------------------------------- the card API

/// A card whose `answer` does not handle a move its own `ask` offers: the kernel refuses the
/// move as an engine fault (loudly, `PlayError::Fault`), never as a silent decline.
#[test]
fn an_unexpected_move_at_an_event_step_is_an_engine_fault() {
    use arbiter_twilight::{steps, Ask, CardEvent, EventTask, Move, PlayError, Position, Ruleset, Words};
    steps! {
        enum Broken { Ask }
    }
    struct BrokenCard;
    impl CardEvent for BrokenCard {
        type Step = Broken;
        fn resolve(&self, ctx: &mut arbiter_twilight::ctx::Ctx, side: Side) {
            ctx.push(Task::Event(EventTask::new(card("Fidel"), side).at(Broken::Ask)));
        }
        fn ask(&self, _p: Position, _s: Broken, t: &EventTask, _words: Words) -> Ask {
            Ask::options(t.side, "choose one", &["one", "two"])
        }
        fn answer(&self, ctx: &mut arbiter_twilight::ctx::Ctx, _s: Broken, t: EventTask, m: &Move) {
            match m {
                Move::Choose(0) => {}
                _ => ctx.unexpected(&t, m),
            }
        }
    }
    let mut rules = Ruleset::new(arbiter_twilight_cards::card_db());
    rules.event(card("Fidel"), BrokenCard);
    let mut st = board(&[], |st| {
        st.round = 1;
        st.phasing = Side::Ussr;
        give(st, Side::Ussr, &["Fidel", "Nasser"]);
        give(st, Side::Us, &["Truman Doctrine"]);
    });
    st.stack = vec![Task::EndRound { side: Side::Ussr }, Task::PlayCard(arbiter_twilight::PlayTask::round(Side::Ussr))];
    let (mut g, _) = Game::from_state(std::sync::Arc::new(rules), st);
    play(&mut g, &["play Fidel event"]);
    let m = g.parse("choose two").unwrap();
    match g.play(&m) {
        Err(PlayError::Fault { what, .. }) => assert!(what.contains("did not expect"), "{what}"),
        other => panic!("expected an engine fault, got {other:?}"),
    }
}

// ---------------------------------------------------------------- conceding (not a rule of the game)

/// `resign` and `lose on time` end the game for the deciding side at any decision; neither is
/// ever among the listed legal moves, and both read back from their notation.
#[rstest]
#[case("resign", EndReason::Resigned)]
#[case("lose on time", EndReason::Time)]
fn the_deciding_side_may_concede(#[case] text: &str, #[case] reason: EndReason) {
    let (mut g, _) = Game::new(arbiter_twilight_cards::ruleset(), arbiter_twilight::Options::default(), Randomness::seeded(3));
    let m = g.parse(text).unwrap();
    assert_eq!(g.move_text(&m), text);
    assert!(!g.legal_moves().contains(&m), "a concession is never listed");
    let loser = g.to_move().unwrap();
    let report = g.play(&m).unwrap();
    assert_eq!(g.outcome(), Some(arbiter_twilight::state::Outcome { winner: Some(loser.opponent()), reason }));
    assert!(report.log.iter().any(|l| l.text.starts_with(&format!("The {loser} "))), "{:?}", report.log);
    assert!(g.play(&m).is_err(), "nothing after the end");
}

/// `Game::check` asks an Ops decision's listed moves by the judge's sets (`Listing::Ops`),
/// made by the listing itself: a listed move is accepted, one not listed refused with the
/// judge's reason, and a country outside the map is refused as no country.
#[test]
fn an_ops_decision_checks_moves_by_the_sets_it_listed() {
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops"]);
    let arbiter_twilight::flow::Listing::Ops { allowed: sets, .. } = g.listing() else {
        panic!("an Ops decision lists by sets: {:?}", g.listing())
    };
    let israel = country("Israel");
    assert_ne!(sets[0] & israel.bit(), 0, "a placement in Israel is listed");
    let listed = arbiter_twilight::Move::Influence(israel);
    assert!(g.legal().contains(&listed));
    assert!(g.check(&listed).is_ok());
    // No US Influence in or next to Afghanistan at the start of the round (§6.1.1).
    let far = arbiter_twilight::Move::Influence(country("Afghanistan"));
    assert!(!g.legal().contains(&far));
    let why = g.check(&far).unwrap_err().to_string();
    assert!(why.contains("§6.1.1"), "{why}");
    for c in [128, 200, 255] {
        assert!(g.check(&arbiter_twilight::Move::Coup(arbiter_twilight::CountryId(c))).is_err());
    }
    play(&mut g, &["influence Israel"]);
}

/// A card play keeps its moves as the judge's card sets (`Listing::Cards`): a listed play is
/// accepted, a play the sets do not hold is refused with the judge's reason, and a random
/// playout's pick by index is the move the written list has there.
#[test]
fn a_card_play_checks_moves_by_the_sets_it_listed() {
    let g = at_round(Side::Us, &[], |st| give(st, Side::Us, &["Duck and Cover", "Arab-Israeli War"]));
    let arbiter_twilight::flow::Listing::Cards { allowed, pass, .. } = g.listing() else {
        panic!("a card play lists by sets: {:?}", g.listing())
    };
    assert!(!pass, "a player with cards may not pass (§5.1)");
    let duck = g.rules().cards.by_name("Duck and Cover").unwrap();
    assert!(allowed[PlayMode::Ops.index()].contains(duck));
    let listed = Move::Play { card: duck, mode: PlayMode::Ops };
    assert!(g.check(&listed).is_ok());
    for (i, m) in g.legal().iter().enumerate() {
        assert_eq!(g.listing().get(i), Some(*m));
    }
    assert_eq!(g.listing().len(), g.legal().len());
    // Arab-Israeli War is the USSR's event: for the US it is played for Ops, its event before
    // or after (§5.2), never as its own event.
    let war = g.rules().cards.by_name("Arab-Israeli War").unwrap();
    let refused = Move::Play { card: war, mode: PlayMode::Event };
    assert!(!g.legal().contains(&refused));
    let why = g.check(&refused).unwrap_err().to_string();
    assert!(why.contains("§5.2"), "{why}");
    assert!(g.check(&Move::Pass).is_err());
}

/// The access mask (§6.1.1) one Ops listing keeps for the next (`ops::KeptAccess`, one a side)
/// is read while the side's Influence at the round's start is the one it was computed from,
/// grown by the neighbours of the countries gained where it only gained some, and computed again
/// where it lost one; the invariant checks catch a kept mask that disagrees with its Influence,
/// whatever the round start (a kept mask is grown from any).
#[test]
fn an_access_mask_kept_between_ops_listings_holds_only_for_its_round_start() {
    use arbiter_twilight::ops::{access_mask, KeptAccess, NOTHING_KEPT};
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        give(st, Side::Us, &["Duck and Cover"]);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "influence Israel"]);
    let had = g.state().round_start_presence[Side::Us.idx()];
    let access = access_mask(g.pos(), Side::Us);
    assert_eq!(g.kept_access().0[Side::Us.idx()], (had, access), "the listing kept the mask");
    assert_eq!(g.kept_access().0[Side::Ussr.idx()], NOTHING_KEPT, "no USSR Ops were listed");
    assert!(g.kept_access().agrees(g.pos()));
    let with = |entry: (u128, u128)| {
        let mut k = KeptAccess::default();
        k.0[Side::Us.idx()] = entry;
        k
    };
    assert!(!with((had, access ^ country("Israel").bit())).agrees(g.pos()), "a wrong kept mask is caught");
    assert!(!with((had | country("Afghanistan").bit(), access)).agrees(g.pos()), "so is one wrong for another round start");
    // Another round start (Afghanistan held too): the kept mask is grown by its neighbours.
    let mut kept = with((had, access));
    let mut st = g.state().clone();
    st.round_start_presence[Side::Us.idx()] |= country("Afghanistan").bit();
    let (g2, _) = Game::from_state(g.rules().clone(), st.clone());
    assert!(kept.agrees(g2.pos()), "a mask kept for another round start agrees with its own");
    assert_ne!(kept.get(g2.pos(), Side::Us) & country("Pakistan").bit(), 0);
    assert_eq!(kept.get(g2.pos(), Side::Us), access_mask(g2.pos(), Side::Us));
    assert!(kept.agrees(g2.pos()));
    // A round start without Israel: computed again (Israel's neighbours are not kept).
    st.round_start_presence[Side::Us.idx()] &= !country("Israel").bit();
    let (g3, _) = Game::from_state(g.rules().clone(), st);
    assert_eq!(kept.get(g3.pos(), Side::Us), access_mask(g3.pos(), Side::Us));
    assert!(kept.agrees(g3.pos()));
}

/// The Ops values of the first Op of a card are read from the thread's reading of the effects,
/// which a game finds again without comparing its effects while they keep their version
/// (`ops::KeptReading`, in `KeptAccess`); the invariant checks ask that the reading it names
/// holds and agrees with a fresh one, and a name under another version is not asked.
#[test]
fn ops_values_a_listing_keeps_for_a_first_op_hold_only_under_their_effects() {
    use arbiter_twilight::ops::{KeptAccess, KeptReading};
    // Duck and Cover is 3 Ops; Containment makes it 4 for the US.
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        give(st, Side::Us, &["Duck and Cover"]);
        effect(st, "Containment", Side::Us);
    });
    play(&mut g, &["play \"Duck and Cover\" ops"]);
    let kept = g.kept_access();
    let Some((generation, version)) = kept.1 .0 else { panic!("the first Op's listing names the reading: {kept:?}") };
    assert_eq!(version, g.state().effects_version.0);
    assert!(kept.agrees(g.pos()));
    assert!(arbiter_twilight::ops::reading_agrees(g.pos()));
    let stale = KeptAccess(kept.0, KeptReading(Some((generation, version.wrapping_add(1)))));
    assert!(stale.agrees(g.pos()), "a reading named under other effects is not asked");
    // The first marker's apply reads them: 4 Ops, so three markers more.
    play(&mut g, &["influence Israel", "influence Israel", "influence Israel"]);
    assert!(matches!(g.state().stack.last(), Some(Task::Ops(_))), "{:?}", g.state().stack.last());
    play(&mut g, &["influence Israel"]);
    assert!(!matches!(g.state().stack.last(), Some(Task::Ops(_))), "{:?}", g.state().stack.last());
    assert_eq!(inf(&g, "Israel"), [5, 0]);
}

/// The Ops values one Op keeps for the next (`OpsTask::kept`) are read only while the effects in
/// play stay as they were; the invariant checks catch kept values that disagree with a fresh fold.
#[test]
fn ops_values_kept_between_markers_hold_only_while_the_effects_stay() {
    // Duck and Cover is 3 Ops; Containment makes it 4 for the US.
    let mut g = at_round(Side::Us, &[], |st| {
        set_inf(st, "Israel", 1, 0);
        give(st, Side::Us, &["Duck and Cover"]);
        effect(st, "Containment", Side::Us);
    });
    play(&mut g, &["play \"Duck and Cover\" ops", "influence Israel"]);
    let Some(Task::Ops(o)) = g.state().stack.last().cloned() else { panic!("the Ops continue: {:?}", g.state().stack.last()) };
    let Some((version, values)) = o.kept.0 else { panic!("the first marker keeps the values") };
    assert_eq!(values[0][0], 4);
    assert!(arbiter_twilight::ops::kept_values_agree(g.pos(), &o));
    let mut wrong = o;
    wrong.kept.0 = Some((version, [[1; 2]; 2]));
    assert!(!arbiter_twilight::ops::kept_values_agree(g.pos(), &wrong), "kept values that disagree are caught");
    // Containment gone (a position edited by hand): 3 Ops, so two markers more, not three.
    let mut st = g.state().clone();
    st.effects.clear();
    let (mut g, _) = Game::from_state(g.rules().clone(), st);
    play(&mut g, &["influence Israel", "influence Israel"]);
    assert!(!matches!(g.state().stack.last(), Some(Task::Ops(_))), "{:?}", g.state().stack.last());
    assert_eq!(inf(&g, "Israel"), [4, 0]);
}
