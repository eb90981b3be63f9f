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
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

// The texts are written into one buffer (replaying a saved game digests every row: one
// allocation per value was most of the time of reading one); the bytes are exactly those of
// the texts these functions always wrote (`tests::chain_values_never_change`).

/// `s` as a JSON string (serde_json's escaping).
fn string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(out, s).expect("a string serialises into memory");
}

fn record_json(out: &mut Vec<u8>, r: &Record, seats: &[String]) {
    out.extend_from_slice(b"{\"public_log\":");
    string(out, &r.public_log);
    for (i, id) in seats.iter().enumerate() {
        let log = r.seat_logs.get(i).map(String::as_str).unwrap_or("");
        out.push(b',');
        string(out, &format!("{id}_log"));
        out.push(b':');
        string(out, log);
    }
    out.extend_from_slice(b",\"random_json\":");
    string(out, &r.random_json);
    out.extend_from_slice(if r.reveals { b",\"reveals\":true" } else { b",\"reveals\":false" });
    out.extend_from_slice(b",\"state_hash\":");
    string(out, &r.state_hash);
    out.push(b'}');
}

fn header_json(h: &GameHeader) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    out.push(b'{');
    if let Some(g) = &h.game {
        out.extend_from_slice(b"\"game\":");
        string(&mut out, g);
        out.push(b',');
    }
    out.extend_from_slice(b"\"created_at\":");
    string(&mut out, &h.created_at);
    out.extend_from_slice(b",\"engine_version\":");
    string(&mut out, &h.engine_version);
    out.extend_from_slice(b",\"rules_version\":");
    string(&mut out, &h.rules_version);
    out.extend_from_slice(format!(",\"seed\":{},\"options\":", h.seed).as_bytes());
    // Options that are not JSON cannot be chained as such: chained as a string (and refused
    // when read).
    if serde_json::from_str::<serde_json::Value>(&h.options).is_ok() {
        out.extend_from_slice(h.options.as_bytes());
    } else {
        string(&mut out, &h.options);
    }
    out.extend_from_slice(b",\"setup\":");
    record_json(&mut out, &h.setup, &h.seats);
    out.push(b'}');
    out
}

fn row_json(row: &EventRow, seats: &[String]) -> Vec<u8> {
    let seat = seats.get(row.seat.idx()).map(String::as_str).unwrap_or("");
    let r = &row.record;
    let mut out = Vec::with_capacity(
        256 + row.at.len()
            + row.move_text.len()
            + row.move_json.len()
            + r.public_log.len()
            + r.seat_logs.iter().map(String::len).sum::<usize>()
            + r.random_json.len(),
    );
    out.extend_from_slice(format!("{{\"seq\":{},\"at\":", row.seq).as_bytes());
    string(&mut out, &row.at);
    out.extend_from_slice(b",\"side\":");
    string(&mut out, seat);
    out.extend_from_slice(b",\"move_text\":");
    string(&mut out, &row.move_text);
    out.extend_from_slice(b",\"move_json\":");
    string(&mut out, &row.move_json);
    out.extend_from_slice(b",\"record\":");
    record_json(&mut out, r, seats);
    out.push(b'}');
    out
}

/// The chain value before any move: a digest of the header's full content.
pub fn start(header: &GameHeader) -> String {
    hex(&Sha256::new_with_prefix(b"arbiter-header\0").chain_update(header_json(header)).finalize())
}

/// The chain value after `row` of a game whose seats are `seats`, given the value before it.
pub fn extend(prev: &str, row: &EventRow, seats: &[String]) -> String {
    hex(&Sha256::new_with_prefix(b"arbiter-row\0")
        .chain_update(prev.as_bytes())
        .chain_update(b"\0")
        .chain_update(row_json(row, seats))
        .finalize())
}

/// The head after `rows`: their number and the chain value after the last.
/// A stored move's fields as a store read them, before they are checked.
pub(crate) struct Stored {
    pub seq: i64,
    pub at: String,
    pub seat: String,
    pub move_text: String,
    pub move_json: String,
    pub record: Result<Record, &'static str>,
    pub chain: String,
}

/// The checks every store makes of its row number `seq` (the `seq`-th read, in order): it is
/// numbered `seq`, its record reads, it holds one private log per seat (a log for no seat would
/// be outside the chain) and names a seat of the game; the chain `h` is extended over it and,
/// when `chained`, must equal the stored value. The row, or what is damaged in it.
pub(crate) fn check_row(header: &GameHeader, seq: u64, stored: Stored, h: &mut String, chained: bool) -> Result<EventRow, String> {
    let Stored { seq: stored_seq, at, seat, move_text, move_json, record, chain } = stored;
    if stored_seq != seq as i64 {
        return Err(format!("move {seq} is missing (the next stored row is numbered {stored_seq})"));
    }
    let record = record.map_err(String::from)?;
    if record.seat_logs.len() != header.seats.len() {
        return Err("its private logs do not match the game's seats".into());
    }
    let seat = header.seats.iter().position(|s| *s == seat).ok_or_else(|| format!("unknown seat {seat:?}"))?;
    let row = EventRow { seq, at, seat: arbiter_kernel::Seat(seat as u8), move_text, move_json, record };
    *h = extend(h, &row, &header.seats);
    if chained && chain != *h {
        return Err("its content does not match the integrity chain".into());
    }
    Ok(row)
}

pub fn head(header: &GameHeader, rows: &[EventRow]) -> (u64, String) {
    (rows.len() as u64, rows.iter().fold(start(header), |h, r| extend(&h, r, &header.seats)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_kernel::Seat;

    fn sample() -> (GameHeader, EventRow) {
        let record = |n: &str| Record {
            public_log: format!("{n} line \"quoted\"\nsecond\tline é ☃ \u{1}"),
            seat_logs: vec![format!("{n} first's \\ secret"), String::new()],
            random_json: "[{\"die\":6}]".into(),
            reveals: true,
            state_hash: "00ff00ff00ff00ff".into(),
        };
        let header = GameHeader {
            game: Some("a-game".into()),
            created_at: "2026-11-26T04:00:00.000Z".into(),
            engine_version: "0.1.0".into(),
            rules_version: "rules-1".into(),
            seed: u64::MAX,
            options: "{\"variant\":true}".into(),
            seats: vec!["north".into(), "south".into()],
            setup: record("setup"),
        };
        let row = EventRow {
            seq: 7,
            at: "2026-11-26T04:00:01.000Z".into(),
            seat: Seat(1),
            move_text: "take \"the\" piece".into(),
            move_json: "{\"piece\":10}".into(),
            record: record("row"),
        };
        (header, row)
    }

    /// The chain's values are stored in every saved game: how they are computed may change,
    /// what they are may not (these are the values of the text-built chain of 2026-11-26).
    #[test]
    fn chain_values_never_change() {
        let (mut header, row) = sample();
        assert_eq!(start(&header), "dd32d161bb08038525cbd3d7d1ffae35e3366f5df7a992e9e392cbfd0d03ad75");
        assert_eq!(extend(&start(&header), &row, &header.seats), "475e451fde8408e09a9f80c03a6518460fae5da668885fe8709de8ee6a3d04d0");
        header.game = None;
        header.options = "not json".into();
        assert_eq!(start(&header), "c47c7f7adae0ba9bf40e91070c1b2de12ff191ec02892943d4c82bddf0d8bc8b");
        let (h, _) = sample();
        assert_eq!(
            head(&h, &[row.clone(), EventRow { seq: 8, seat: Seat(0), ..row }]).1,
            "f46ff19c74398924917a36380d93b2229f292f97098c735b89aaaec9fa62564b"
        );
    }
}
