//! Warnings the hot-seat table gives before a move that a player would regret, asking for
//! confirmation: a coup that sets DEFCON to 1 for the phasing side (§8.1.3); any other move
//! that ends the game against the player (an event that sets DEFCON to 1, say), found by
//! playing it on copies of the game with made-up randomness; in the last action round a card
//! play that leaves the player's military ops short (§8.2); conceding.

use arbiter_twilight::map::Map;
use arbiter_twilight::rng::Randomness;
use arbiter_twilight::state::Outcome;
use arbiter_twilight::{Game, Move, PlayMode, Side, Task};

/// Copies played to judge whether a move ends the game: with several made-up seeds, a loss
/// that depends on a die or a draw shows as "can"; the game's own randomness is never used,
/// so no roll or draw to come is told.
const TRIALS: [u64; 4] = [0x5eed_0001, 0x5eed_0002, 0x5eed_0003, 0x5eed_0004];

/// How many of the trials `m` loses the game for `side` in, and how.
fn losses(g: &Game, side: Side, m: &Move) -> (usize, Option<Outcome>) {
    let mut lost = (0, None);
    for seed in TRIALS {
        let mut st = g.state().clone();
        st.rng = Randomness::seeded(seed);
        let (mut copy, _) = Game::from_state(g.rules().clone(), st);
        if copy.play_quiet(m).is_ok() {
            if let Some(o) = copy.outcome().filter(|o| o.winner == Some(side.opponent())) {
                lost = (lost.0 + 1, Some(o));
            }
        }
    }
    lost
}

/// What a player should hear before `m` is played, if anything.
pub fn warnings(g: &Game, side: Side, m: &Move) -> Vec<String> {
    let st = g.state();
    let mut out = Vec::new();
    if let Move::Concede(_) = m {
        out.push(format!("{}: the game ends and the {} wins", g.move_text(m), side.opponent()));
    }
    if let (Move::Coup(c), Some(Task::Ops(o))) = (m, st.stack.last()) {
        let subs = side == Side::Us && !o.free && st.has_effect(arbiter_twilight_cards::events::ids::NUCLEAR_SUBS);
        if Map::standard().country(*c).battleground && st.defcon == 2 && !subs {
            let who = if st.phasing == side { "you lose".to_string() } else { format!("the {} loses", st.phasing) };
            out.push(format!(
                "a coup in {} (a battleground) drops DEFCON to 1: the game ends and {who} (§6.3.4, §8.1.3)",
                Map::standard().name(*c)
            ));
        }
    }
    if out.is_empty() {
        match losses(g, side, m) {
            (0, _) | (_, None) => {}
            (n, Some(o)) if n == TRIALS.len() => out.push(format!("this ends the game: {o}")),
            (_, Some(o)) => out.push(format!("this can end the game, depending on a die roll or a draw: {o}")),
        }
    }
    if let (Move::Play { mode: PlayMode::Event | PlayMode::Space, .. }, Some(Task::PlayCard(pt))) = (m, st.stack.last()) {
        let last = st.round >= arbiter_twilight::turn::action_rounds(g.pos(), side);
        let (have, need) = (st.mil_ops[side.idx()], st.defcon);
        // Only where there is a choice: a play for Operations would earn none either way if
        // none is offered (a scoring card that must be played).
        let ops_offered =
            g.legal().iter().any(|x| matches!(x, Move::Play { mode: PlayMode::Ops | PlayMode::OpsThenEvent | PlayMode::EventThenOps, .. }));
        if pt.is_round() && last && have < need && ops_offered {
            out.push(format!(
                "this is your last action round and you have {have} of the {need} military ops required: unless this card's event gives you more, the {} gains {} VP at the end of the turn (§8.2)",
                side.opponent(),
                need - have
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(setup: &str) -> Game {
        let json = format!(r#"{{ "id": "W", "title": "w", "rules": [], "setup": {setup}, "steps": [] }}"#);
        let f: arbiter_casebook::Fixture = serde_json::from_str(&json).unwrap();
        let rules = arbiter_twilight_cards::ruleset();
        let st = arbiter_casebook::build(&f, std::path::Path::new("w.json"), &rules).unwrap();
        Game::from_state(rules, st).0
    }

    #[test]
    fn a_battleground_coup_at_defcon_2_is_warned_of() {
        let mut g = game(
            r#"{ "phasing": "us", "defcon": 2, "influence": { "Mexico": { "us": 0, "ussr": 2 }, "Guatemala": { "us": 0, "ussr": 1 } }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#,
        );
        let m = g.parse("play \"Duck and Cover\" ops").unwrap();
        g.play(&m).unwrap();
        let w = warnings(&g, Side::Us, &g.parse("coup Mexico").unwrap());
        assert!(w.len() == 1 && w[0].contains("drops DEFCON to 1") && w[0].contains("you lose"), "{w:?}");
        assert!(warnings(&g, Side::Us, &g.parse("coup Guatemala").unwrap()).is_empty());
    }

    #[test]
    fn an_event_that_sets_defcon_to_1_for_the_player_is_warned_of() {
        // Duck and Cover at DEFCON 2 played by the phasing US: DEFCON 1, the US loses.
        let g =
            game(r#"{ "phasing": "us", "defcon": 2, "hands": { "us": ["Duck and Cover", "Fidel"], "ussr": ["Romanian Abdication"] } }"#);
        let w = warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" event").unwrap());
        assert!(w.len() == 1 && w[0].starts_with("this ends the game: USSR wins"), "{w:?}");
        assert!(warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" ops").unwrap()).is_empty());
    }

    #[test]
    fn a_last_round_event_short_of_military_ops_is_warned_of() {
        let g = game(
            r#"{ "phasing": "us", "action_round": 6, "defcon": 3, "military_ops": { "us": 1, "ussr": 0 }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#,
        );
        let w = warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" event").unwrap());
        assert!(w.len() == 1 && w[0].contains("1 of the 3 military ops") && w[0].contains("the USSR gains 2 VP"), "{w:?}");
        assert!(warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" ops").unwrap()).is_empty());
    }
}
