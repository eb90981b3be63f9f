//! The integrity chain of a saved game. Every stored value is covered: the header (the kind of
//! game, creation time, versions, seed, options, the setup's logs and random outcomes) gives
//! the chain's start, and each row extends it with all of its fields. The head (the last row's
//! number and chain value) is stored with the header, so deleting trailing rows shows too.
//!
//! The chain detects damage and edits made without Arbiter; it is not a signature: a saved
//! game holds no secret, so whoever rewrites a file with other tools can recompute the chain.
//!
//! What is digested is a JSON text written here field by field, so that it never changes
//! unless this file does: a seat's log is keyed `"<seat id>_log"`, the options are the stored
//! JSON text as it is, and a header names its kind only if it has one. (Files saved when
//! Arbiter played one game were chained over exactly this text: their chains still hold.)

use crate::{EventRow, GameHeader, Record};
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

fn record_json(r: &Record, seats: &[String]) -> String {
    let mut out = format!("{{\"public_log\":{}", string(&r.public_log));
    for (i, id) in seats.iter().enumerate() {
        let log = r.seat_logs.get(i).map(String::as_str).unwrap_or("");
        out += &format!(",{}:{}", string(&format!("{id}_log")), string(log));
    }
    out + &format!(",\"random_json\":{},\"reveals\":{},\"state_hash\":{}}}", string(&r.random_json), r.reveals, string(&r.state_hash))
}

fn header_json(h: &GameHeader) -> String {
    let game = h.game.as_deref().map(|g| format!("\"game\":{},", string(g))).unwrap_or_default();
    // Options that are not JSON cannot be chained as such: chained as a string (and refused
    // when read).
    let options = if serde_json::from_str::<serde_json::Value>(&h.options).is_ok() { h.options.clone() } else { string(&h.options) };
    format!(
        "{{{game}\"created_at\":{},\"engine_version\":{},\"rules_version\":{},\"seed\":{},\"options\":{options},\"setup\":{}}}",
        string(&h.created_at),
        string(&h.engine_version),
        string(&h.rules_version),
        h.seed,
        record_json(&h.setup, &h.seats)
    )
}

fn row_json(row: &EventRow, seats: &[String]) -> String {
    let seat = seats.get(row.seat.idx()).map(String::as_str).unwrap_or("");
    format!(
        "{{\"seq\":{},\"at\":{},\"side\":{},\"move_text\":{},\"move_json\":{},\"record\":{}}}",
        row.seq,
        string(&row.at),
        string(seat),
        string(&row.move_text),
        string(&row.move_json),
        record_json(&row.record, seats)
    )
}

/// The chain value before any move: a digest of the header's full content.
pub fn start(header: &GameHeader) -> String {
    hex(&Sha256::new_with_prefix(b"arbiter-header\0").chain_update(header_json(header).as_bytes()).finalize())
}

/// The chain value after `row` of a game whose seats are `seats`, given the value before it.
pub fn extend(prev: &str, row: &EventRow, seats: &[String]) -> String {
    hex(&Sha256::new_with_prefix(b"arbiter-row\0")
        .chain_update(prev.as_bytes())
        .chain_update(b"\0")
        .chain_update(row_json(row, seats).as_bytes())
        .finalize())
}

/// The head after `rows`: their number and the chain value after the last.
pub fn head(header: &GameHeader, rows: &[EventRow]) -> (u64, String) {
    (rows.len() as u64, rows.iter().fold(start(header), |h, r| extend(&h, r, &header.seats)))
}
