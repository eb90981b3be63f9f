//! What each seat may see, as JSON: the same views as `arbiter state --json --as SEAT`, the
//! seat's decision, its log. Only `Game::view(seat)` and the log as that seat may read it are
//! used, so nothing here can carry the other hand, the deck or a secret headline.

use crate::seats::Seat;
use arbiter_engine::map::Map;
use arbiter_store::Session;
use serde_json::{json, Value};

pub fn state(s: &Session, seat: Seat) -> Value {
    let mut v = serde_json::to_value(s.game().view(seat.side())).unwrap_or(Value::Null);
    v["seq"] = json!(s.seq());
    v
}

pub fn moves(s: &Session, seat: Seat) -> Value {
    let g = s.game();
    let view = g.view(seat.side());
    let d = g.decision();
    let yours = d.as_ref().is_some_and(|d| Some(d.side) == seat.side());
    json!({
        "seq": s.seq(),
        "to_move": d.as_ref().map(|d| d.side),
        "yours": yours,
        "prompt": view.prompt,
        "moves": if yours { d.map(|d| d.moves.iter().map(|m| g.move_text(m)).collect::<Vec<_>>()).unwrap_or_default() } else { Vec::new() },
        // Moves this seat may make now although another seat decides ("at any time").
        "interjections": seat.side().map(|side| g.interjections(side).iter().map(|m| g.move_text(m)).collect::<Vec<_>>()).unwrap_or_default(),
        "outcome": g.outcome(),
    })
}

/// The whole log as the seat may read it: each move's heading and lines.
pub fn log(s: &Session, seat: Seat) -> Vec<String> {
    arbiter_store::log_for(s.header(), s.rows(), seat.side(), s.game()).into_iter().map(|e| e.text).collect()
}

/// The last move as the seat may see it, and its text as sent (the seat's `sent` of the next
/// move). `sent` is what this seat was sent for the move before: if that move reads
/// differently now (a secret choice this move revealed; the game decides which moves are
/// secret), it is sent again as `previous`.
pub fn last_move(s: &Session, seat: Seat, extra: &Value, sent: Option<&(u64, String)>) -> (Value, (u64, String)) {
    let rows = s.rows();
    let Some(r) = rows.last() else { return (Value::Null, (0, String::new())) };
    let text = arbiter_store::move_text_for(rows, rows.len() - 1, seat.side(), s.game());
    let mut v = json!({
        "type": "move",
        "seq": r.seq,
        "side": r.side,
        "text": text,
        "log": r.record.lines_for(seat.side()),
        "state": state(s, seat),
        "moves": moves(s, seat),
    });
    if rows.len() >= 2 {
        let i = rows.len() - 2;
        let now = arbiter_store::move_text_for(rows, i, seat.side(), s.game());
        if sent.is_some_and(|(seq, then)| *seq == rows[i].seq && *then != now) {
            v["previous"] = json!({ "seq": rows[i].seq, "text": now });
        }
    }
    merge(&mut v["state"], extra);
    (v, (r.seq, text))
}

pub fn sync(s: &Session, seat: Seat, extra: &Value) -> Value {
    let mut v = json!({ "type": "sync", "seat": seat, "state": state(s, seat), "moves": moves(s, seat), "log": log(s, seat) });
    merge(&mut v["state"], extra);
    v
}

/// `extra`'s fields (presence, clock) added to `v`.
pub fn merge(v: &mut Value, extra: &Value) {
    if let (Some(v), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, x) in e {
            v.insert(k.clone(), x.clone());
        }
    }
}

/// The board, for the client to draw.
pub fn map() -> Value {
    let map = Map::standard();
    let countries: Vec<Value> = map
        .ids()
        .map(|id| {
            let c = map.country(id);
            json!({
                "name": c.name,
                "region": c.region.name(),
                "subregions": c.subregions.iter().map(|s| s.name()).collect::<Vec<_>>(),
                "stability": c.stability,
                "battleground": c.battleground,
                "adjacent": c.adjacent.iter().map(|a| map.name(*a)).collect::<Vec<_>>(),
                "superpower": c.superpower,
            })
        })
        .collect();
    json!({ "countries": countries })
}

pub fn cards() -> Value {
    let rules = arbiter_cards::ruleset();
    let cards: Vec<Value> = rules
        .cards
        .all()
        .map(|c| {
            json!({
                "id": c.id.0, "name": c.name, "ops": c.ops, "side": c.side.side(), "era": format!("{:?}", c.era),
                "starred": c.starred, "scoring": c.scoring, "optional": c.optional, "text": arbiter_cards::text(c.id),
            })
        })
        .collect();
    json!({ "cards": cards })
}

/// The rule a refusal cites: the last `(§…)` of its message.
pub fn rule_of(message: &str) -> Option<String> {
    let start = message.rfind("(§")?;
    let end = message[start..].find(')')? + start;
    Some(message[start + 1..end].to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_rule_of_a_refusal_is_its_last_section() {
        assert_eq!(super::rule_of("cannot influence France: France is not in Eastern Europe (§3.2)").as_deref(), Some("§3.2"));
        assert_eq!(super::rule_of("no rule here"), None);
        assert_eq!(super::rule_of("odd (§"), None);
    }
}
