//! The integrity chain of a saved game. Every stored value is covered: the header (creation
//! time, versions, seed, options, the setup's logs and random outcomes) gives the chain's
//! start, and each row extends it with all of its fields. The head (the last row's number and
//! chain value) is stored with the header, so deleting trailing rows shows too.
//!
//! The chain detects damage and edits made without Arbiter; it is not a signature: a saved
//! game holds no secret, so whoever rewrites a file with other tools can recompute the chain.

use crate::{EventRow, GameHeader};
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The chain value before any move: a digest of the header's full content.
pub fn start(header: &GameHeader) -> String {
    let json = serde_json::to_string(header).expect("the header serialises");
    hex(&Sha256::new_with_prefix(b"arbiter-header\0").chain_update(json.as_bytes()).finalize())
}

/// The chain value after `row`, given the value before it.
pub fn extend(prev: &str, row: &EventRow) -> String {
    let json = serde_json::to_string(row).expect("a row serialises");
    hex(&Sha256::new_with_prefix(b"arbiter-row\0")
        .chain_update(prev.as_bytes())
        .chain_update(b"\0")
        .chain_update(json.as_bytes())
        .finalize())
}

/// The head after `rows`: their number and the chain value after the last.
pub fn head(header: &GameHeader, rows: &[EventRow]) -> (u64, String) {
    (rows.len() as u64, rows.iter().fold(start(header), |h, r| extend(&h, r)))
}
