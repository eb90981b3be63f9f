//! Warnings the hot-seat table gives before a move that a player would regret, asking for
//! confirmation: a coup that sets DEFCON to 1 for the phasing side (§8.1.3), and in the last
//! action round a card play that leaves the player's military ops short (§8.2); conceding.

use arbiter_engine::map::Map;
use arbiter_engine::{Game, Move, PlayMode, Side, Task};

/// What a player should hear before `m` is played, if anything.
pub fn warnings(g: &Game, side: Side, m: &Move) -> Vec<String> {
    let st = g.state();
    let mut out = Vec::new();
    if let Move::Concede(_) = m {
        out.push(format!("{}: the game ends and the {} wins", g.move_text(m), side.opponent()));
    }
    if let (Move::Coup(c), Some(Task::Ops(o))) = (m, st.stack.last()) {
        let subs = side == Side::Us && !o.free && st.has_effect(arbiter_cards::events::ids::NUCLEAR_SUBS);
        if Map::standard().country(*c).battleground && st.defcon == 2 && !subs {
            let who = if st.phasing == side { "you lose".to_string() } else { format!("the {} loses", st.phasing) };
            out.push(format!(
                "a coup in {} (a battleground) drops DEFCON to 1: the game ends and {who} (§6.3.4, §8.1.3)",
                Map::standard().name(*c)
            ));
        }
    }
    if let (Move::Play { mode: PlayMode::Event | PlayMode::Space, .. }, Some(Task::PlayCard(pt))) = (m, st.stack.last()) {
        let last = st.round >= arbiter_engine::turn::action_rounds(g.pos(), side);
        let (have, need) = (st.mil_ops[side.idx()], st.defcon);
        if pt.is_round() && last && have < need {
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
        let rules = arbiter_cards::ruleset();
        let st = arbiter_casebook::build(&f, std::path::Path::new("w.json"), &rules).unwrap();
        Game::from_state(rules, st).0
    }

    #[test]
    fn a_battleground_coup_at_defcon_2_is_warned_of() {
        let mut g = game(r#"{ "phasing": "us", "defcon": 2, "influence": { "Mexico": { "us": 0, "ussr": 2 }, "Guatemala": { "us": 0, "ussr": 1 } }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#);
        let m = g.parse("play \"Duck and Cover\" ops").unwrap();
        g.play(&m).unwrap();
        let w = warnings(&g, Side::Us, &g.parse("coup Mexico").unwrap());
        assert!(w.len() == 1 && w[0].contains("drops DEFCON to 1") && w[0].contains("you lose"), "{w:?}");
        assert!(warnings(&g, Side::Us, &g.parse("coup Guatemala").unwrap()).is_empty());
    }

    #[test]
    fn a_last_round_event_short_of_military_ops_is_warned_of() {
        let g = game(r#"{ "phasing": "us", "action_round": 6, "defcon": 3, "military_ops": { "us": 1, "ussr": 0 }, "hands": { "us": ["Duck and Cover"], "ussr": ["Romanian Abdication"] } }"#);
        let w = warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" event").unwrap());
        assert!(w.len() == 1 && w[0].contains("1 of the 3 military ops") && w[0].contains("the USSR gains 2 VP"), "{w:?}");
        assert!(warnings(&g, Side::Us, &g.parse("play \"Duck and Cover\" ops").unwrap()).is_empty());
    }
}
