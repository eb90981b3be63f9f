//! What each place may see, as JSON: the game's view for that seat (the same as `arbiter state
//! --json --as SEAT`), the decision, the log. Only the game's view and the log lines for that
//! seat's audience are used, so nothing here can carry what the game keeps from that seat.

use crate::seats::Place;
use crate::storage::Session;
use serde_json::{json, Value};

/// A place's id as the API names it: the seat's id, or `observer`.
pub fn place_id(s: &Session, place: Place) -> String {
    match place {
        Place::Seat(seat) => s.header().seats.get(seat.idx()).cloned().unwrap_or_else(|| format!("seat-{}", seat.0)),
        Place::Observer => "observer".into(),
    }
}

fn seat_id(s: &Session, seat: arbiter_kernel::Seat) -> String {
    place_id(s, Place::Seat(seat))
}

pub fn state(s: &Session, place: Place) -> Value {
    let mut v = s.game().view(place.viewer());
    if !v.is_object() {
        v = json!({ "view": v });
    }
    v["seq"] = json!(s.seq());
    v["game"] = json!(s.kind().id());
    v
}

pub fn moves(s: &Session, place: Place) -> Value {
    let g = s.game();
    let d = g.decision();
    let viewer = place.viewer();
    // The seat deciding first; any other seat of a simultaneous step reads its part under
    // `simultaneous` (its prompt and moves).
    let yours = d.as_ref().is_some_and(|d| Some(d.first().seat) == viewer);
    let at_once = d.as_ref().zip(viewer).filter(|(d, v)| d.first().seat != *v).and_then(|(d, v)| d.prompt(v).map(|p| (v, p.to_string())));
    let outcome = g
        .outcome()
        .map(|o| json!({ "winner": o.winner().map(|w| seat_id(s, w)), "results": o.results, "reason": o.reason, "text": o.text }));
    json!({
        "seq": s.seq(),
        "to_move": d.as_ref().map(|d| seat_id(s, d.first().seat)),
        // Every seat that must act now (several at a simultaneous step).
        "acting": d.as_ref().map(|d| d.seats().map(|a| seat_id(s, a)).collect::<Vec<_>>()).unwrap_or_default(),
        "yours": yours,
        // The prompt as the deciding seat reads it (the game's view has the others' wording).
        "prompt": d.as_ref().filter(|_| yours).map(|d| d.first().prompt.clone()),
        "moves": match (yours, viewer) { (true, Some(v)) => g.legal_moves(v), _ => Vec::new() },
        // Moves this seat may make now although another seat decides ("at any time").
        "interjections": viewer.map(|seat| g.interjections(seat)).unwrap_or_default(),
        // This seat acts now at the same time as the seat deciding first (a simultaneous
        // step): its prompt and its moves.
        "simultaneous": at_once.map(|(v, prompt)| json!({ "prompt": prompt, "moves": g.legal_moves(v) })),
        // Whether this seat may take its last move back now (`Session::undo_check`: its own
        // decision, its own move, nothing revealed since; or its own choice at a simultaneous
        // step that has not resolved, `Session::own_choice_check`).
        "undo": (yours && s.undo_check().is_ok()) || viewer.is_some_and(|v| s.own_choice_check(v).is_ok()),
        "outcome": outcome,
        // The private chat channels this seat belongs to now (the game's), and whether it may
        // write there now; another seat's are never told.
        "channels": viewer.map(|v| g.channels(v)).unwrap_or_default(),
    })
}

/// The whole log as the place may read it: each move's heading and lines.
pub fn log(s: &Session, place: Place) -> Vec<String> {
    arbiter_store::log_for(s.header(), s.rows(), place.viewer(), s.game()).into_iter().map(|e| e.text).collect()
}

/// The last move as the place may see it, and its text as sent (the place's `sent` of the next
/// move). `sent` is what this place was sent for the move before: if that move reads
/// differently now (a secret choice this move revealed; the game decides which moves are
/// secret), it is sent again as `previous`.
pub fn last_move(s: &Session, place: Place, extra: &Value, sent: Option<&(u64, String)>) -> (Value, (u64, String)) {
    let rows = s.rows();
    let Some(r) = rows.last() else { return (Value::Null, (0, String::new())) };
    let text = arbiter_store::move_text_for(rows, rows.len() - 1, place.viewer(), s.game());
    let mut v = json!({
        "type": "move",
        "seq": r.seq,
        "side": seat_id(s, r.seat),
        "text": text,
        "log": r.record.lines_for(place.viewer()),
        "state": state(s, place),
        "moves": moves(s, place),
    });
    if rows.len() >= 2 {
        let i = rows.len() - 2;
        let now = arbiter_store::move_text_for(rows, i, place.viewer(), s.game());
        if sent.is_some_and(|(seq, then)| *seq == rows[i].seq && *then != now) {
            v["previous"] = json!({ "seq": rows[i].seq, "text": now });
        }
    }
    merge(&mut v["state"], extra);
    (v, (r.seq, text))
}

/// The last move's text as the place reads it now (what [`last_move`] records as sent), without
/// building its message.
pub fn last_move_text(s: &Session, place: Place) -> Option<(u64, String)> {
    let rows = s.rows();
    rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, place.viewer(), s.game())))
}

pub fn sync(s: &Session, place: Place, extra: &Value) -> Value {
    let mut v =
        json!({ "type": "sync", "seat": place_id(s, place), "state": state(s, place), "moves": moves(s, place), "log": log(s, place) });
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
