//! Warnings the hot-seat table gives before a move that a player would regret, asking for
//! confirmation. The rules live in the game (`arbiter_twilight::advice`, also what the browser
//! is told through the kernel's `Game::advice`); the table and the line mode ask it here.

pub use arbiter_twilight::advice::warnings;

#[cfg(test)]
use arbiter_twilight::{Game, Side};

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
