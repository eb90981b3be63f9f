//! Coup and realignment odds for a player, from the engine's own die pipelines (`odds coup
//! NAME`, `odds realign NAME` in the line mode; the detail pane of the table). A module of its
//! own so that the table and the line mode both use it without depending on each other.

use arbiter_twilight::flow::Task;
use arbiter_twilight::map::Map;
use arbiter_twilight::pipeline::Spend;
use arbiter_twilight::{Game, Side};

/// `odds coup NAME` / `odds realign NAME`, from the engine's own pipelines. During an Ops
/// decision the card being spent is used; otherwise each playable card's value is shown.
pub fn odds(game: &Game, side: Side, what: &str) -> String {
    let (kind, name) = what.split_once(' ').unwrap_or((what, ""));
    let c = match arbiter_twilight::moves::find_country(name) {
        Ok(c) => c,
        Err(e) => return format!("{e}; use: odds coup NAME | odds realign NAME"),
    };
    let p = game.pos();
    let k = Map::standard().country(c);
    if matches!(kind, "coup" | "realign") && p.st.inf(side.opponent(), c) == 0 {
        let rule = if kind == "coup" { "§6.3.1" } else { "§6.2" };
        return format!("the {} has no Influence in {}: no {kind} is possible there ({rule})", side.opponent(), k.name);
    }
    if matches!(kind, "coup" | "realign") && arbiter_twilight::defcon::closes(p.st.defcon, k.region) {
        return format!("DEFCON {} closes {} to coups and realignments (§8.1.5), except free coups from events", p.st.defcon, k.region);
    }
    match kind {
        "realign" => arbiter_twilight::odds::realign(p, side, c).to_string(),
        "coup" => {
            if let Some(Task::Ops(o)) = p.st.stack.last() {
                let ops = arbiter_twilight::ops::value_if_spent_in(p, o, c).value.max(0) as u8;
                return arbiter_twilight::odds::coup(p, side, c, ops).to_string();
            }
            let spend = Spend { all_in_asia: k.in_asia(), all_in_southeast_asia: k.in_southeast_asia() };
            let mut cards: Vec<_> = p.st.hand(side).iter().filter(|x| !p.cards().info(*x).scoring).collect();
            if p.st.holds_playable_china(side) {
                cards.push(arbiter_twilight::CardId::CHINA);
            }
            let mut values: Vec<u8> =
                cards.iter().map(|x| arbiter_twilight::ctx::ops_value(p, *x, side, spend).value.max(0) as u8).collect();
            values.sort_unstable();
            values.dedup();
            if values.is_empty() {
                return "no card to coup with".into();
            }
            values.iter().map(|v| arbiter_twilight::odds::coup(p, side, c, *v).to_string()).collect::<Vec<_>>().join("\n")
        }
        _ => "use: odds coup NAME | odds realign NAME".into(),
    }
}
