//! Text rendering of a player's view: the compact board, one region, one country.

use arbiter_twilight::map::{iter_mask, Map};
use arbiter_twilight::view::View;
use arbiter_twilight::{Region, Side};

pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn from_env() -> Style {
        Style { color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::IsTerminal::is_terminal(&std::io::stdout()) }
    }
    pub fn side(&self, s: Side, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match s {
            Side::Us => "34",
            Side::Ussr => "31",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

fn vp(v: i8) -> String {
    arbiter_twilight::ctx::vp_text(v as i32)
}

/// One line per country: `Poland*  US 0  USSR 4  [USSR]` (* battleground).
pub fn country_line(view: &View, style: &Style, name: &str) -> String {
    let map = Map::standard();
    // A unique prefix or an alias is enough (`country Pol`).
    let id = match arbiter_twilight::moves::find_country(name) {
        Ok(id) => id,
        Err(e) => return format!("{e}"),
    };
    let c = map.country(id);
    let i = view.influence.get(&c.name).copied().unwrap_or(arbiter_twilight::view::PerSide { us: 0, ussr: 0 });
    let ctl = match view.rules.control.get(&c.name) {
        Some(Side::Us) => style.side(Side::Us, " [US]"),
        Some(Side::Ussr) => style.side(Side::Ussr, " [USSR]"),
        None => String::new(),
    };
    format!(
        "  {:<22} stab {}  US {:>2}  USSR {:>2}{ctl}",
        format!("{}{}", c.name, if c.battleground { "*" } else { "" }),
        c.stability,
        i.us,
        i.ussr
    )
}

/// The `country` command: the country's line and its neighbours (the superpower space too).
pub fn country_panel(view: &View, style: &Style, name: &str) -> String {
    let map = Map::standard();
    let id = match arbiter_twilight::moves::find_country(name) {
        Ok(id) => id,
        Err(e) => return format!("{e}"),
    };
    let c = map.country(id);
    let mut neighbours: Vec<&str> = c.adjacent.iter().map(|a| map.name(*a)).collect();
    if let Some(sp) = c.superpower {
        neighbours.push(if sp == Side::Us { "USA" } else { "USSR" });
    }
    format!("{}\n  neighbours: {}", country_line(view, style, &c.name), neighbours.join(", "))
}

pub fn region(view: &View, style: &Style, r: Region) -> String {
    let map = Map::standard();
    let mut out = format!("{r} (* battleground)\n");
    for id in iter_mask(map.region_mask(r)) {
        out.push_str(&country_line(view, style, map.name(id)));
        out.push('\n');
    }
    out
}

/// A hand, one card a line: name, Ops, whose event, and marks (scoring, starred).
/// A card's Ops as `side` would play it now, two characters wide: `S ` for a scoring card,
/// the value with `+` or `-` where effects in play change it (Red Scare/Purge, Containment,
/// Brezhnev Doctrine), else the printed value; printed for an observer.
pub fn ops_label(p: arbiter_twilight::Position, id: arbiter_twilight::CardId, side: Option<Side>) -> String {
    let info = p.cards().info(id);
    let printed = info.ops;
    let now = side
        .map(|s| arbiter_twilight::ctx::ops_value(p, id, s, arbiter_twilight::pipeline::Spend::default()).value.max(0) as u8)
        .unwrap_or(printed);
    if info.scoring {
        "S ".to_string()
    } else if now != printed {
        format!("{now}{}", if now > printed { '+' } else { '-' })
    } else {
        format!("{now} ")
    }
}

/// `side`'s hand in the line mode, one card a line: its Ops as played now ([`ops_label`]),
/// whose event it is, and what to know of it.
pub fn hand(cards: &[String], game: &arbiter_twilight::Game, side: Side) -> String {
    let rules = game.rules();
    let mut out = String::new();
    for name in cards {
        let Some(id) = rules.cards.by_name(name) else { continue };
        let info = rules.cards.info(id);
        let ops = if info.scoring { info.ops.to_string() } else { ops_label(game.pos(), id, Some(side)).trim_end().to_string() };
        if id == arbiter_twilight::CardId::CHINA {
            // No event, and never an opponent's: its own rules (§9).
            out.push_str(&format!("  {name:<32} {ops} Ops (1 more if all are spent in Asia), no event\n"));
            continue;
        }
        let owner = match info.side.side() {
            Some(s) => format!("{s} event"),
            None => "neutral event".into(),
        };
        let mut marks = Vec::new();
        if info.scoring {
            marks.push("scoring: must be played this turn");
        }
        if info.starred {
            marks.push("removed after its event");
        }
        let extra = if marks.is_empty() { String::new() } else { format!("; {}", marks.join("; ")) };
        out.push_str(&format!("  {name:<32} {ops} Ops, {owner}{extra}\n"));
    }
    out
}

/// The compact board: every country with Influence, and the tracks.
pub fn board(view: &View, style: &Style) -> String {
    let map = Map::standard();
    let mut out = String::new();
    for r in Region::ALL {
        let mut lines = Vec::new();
        for id in iter_mask(map.region_mask(r)) {
            let i = view.influence[map.name(id)];
            if i.us + i.ussr > 0 {
                lines.push(country_line(view, style, map.name(id)));
            }
        }
        out.push_str(&format!("{r}: {}\n", if lines.is_empty() { "(no Influence)" } else { "" }));
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    let round = match view.rules.phase {
        "action round" => {
            let of = if view.phasing == Side::Us { view.rules.action_rounds.us } else { view.rules.action_rounds.ussr };
            format!("action round {} of {of}", view.action_round)
        }
        phase => phase.to_string(),
    };
    out.push_str(&format!("Turn {}, {round}  phasing {}  DEFCON {}  VP {}\n", view.turn, view.phasing, view.defcon, vp(view.vp)));
    out.push_str(&format!(
        "Military ops US {} USSR {}   Space race US {} USSR {}   China Card: {} ({})\n",
        view.military_ops.us,
        view.military_ops.ussr,
        view.space_race.us,
        view.space_race.ussr,
        view.china_card.holder,
        if view.china_card.face_up { "face up" } else { "face down" }
    ));
    out.push_str(&format!(
        "Hands: US {}, USSR {}   Deck {}   Discard {}   Removed {}\n",
        view.hand_sizes.us,
        view.hand_sizes.ussr,
        view.deck_size,
        view.discard.len(),
        view.removed.len()
    ));
    if !view.effects.is_empty() {
        let e: Vec<String> = view.effects.iter().map(|e| format!("{} ({}, {})", e.card, e.owner, e.lasts)).collect();
        out.push_str(&format!("In effect: {}\n", e.join(", ")));
    }
    if !view.table.is_empty() {
        out.push_str(&format!("In front of their players: {}\n", view.table.join(", ")));
    }
    if !view.opponent_known.is_empty() {
        out.push_str(&format!("Seen in the opponent's hand: {}\n", view.opponent_known.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    /// The line mode shows a card's Ops as the player would play it now, as the table does:
    /// under the USSR's Red Scare/Purge, Duck and Cover's 3 are 2 for the US (`2-`), and the
    /// USSR's own cards keep theirs.
    #[test]
    fn the_line_mode_s_hand_shows_the_ops_as_modified_now() {
        let json = r#"{ "id": "T", "title": "t", "rules": [], "setup": { "phasing": "us", "effects": [{ "card": "Red Scare/Purge", "owner": "ussr" }], "hands": { "us": ["Duck and Cover", "Europe Scoring"], "ussr": ["Fidel"] } } }"#;
        let f: arbiter_casebook::Fixture = serde_json::from_str(json).unwrap();
        let rules = arbiter_twilight_cards::ruleset();
        let st = arbiter_casebook::build(&f, std::path::Path::new("t.json"), &rules).unwrap();
        let g = arbiter_twilight::Game::from_state(rules, st).0;
        let us = super::hand(&["Duck and Cover".into(), "Europe Scoring".into()], &g, arbiter_twilight::Side::Us);
        assert!(us.contains("Duck and Cover                   2- Ops, US event"), "{us}");
        assert!(us.contains("Europe Scoring                   0 Ops, neutral event; scoring"), "{us}");
        let ussr = super::hand(&["Fidel".into()], &g, arbiter_twilight::Side::Ussr);
        assert!(ussr.contains("Fidel                            2 Ops, USSR event"), "{ussr}");
    }
}
