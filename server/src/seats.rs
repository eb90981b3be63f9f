//! Seats and their secret tokens. A token is 128 random bits shown once, at creation; the
//! server keeps only its SHA-256, in `GAME.seats.json` beside the saved game.

use arbiter_engine::Side;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Who a connection acts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    Us,
    Ussr,
    Observer,
}

impl Seat {
    pub const ALL: [Seat; 3] = [Seat::Us, Seat::Ussr, Seat::Observer];

    /// The side a seat plays; the observer plays none.
    pub fn side(self) -> Option<Side> {
        match self {
            Seat::Us => Some(Side::Us),
            Seat::Ussr => Some(Side::Ussr),
            Seat::Observer => None,
        }
    }
    pub fn idx(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            Seat::Us => "us",
            Seat::Ussr => "ussr",
            Seat::Observer => "observer",
        }
    }
}

/// 128 bits from the operating system, as 32 hex digits.
pub fn new_token() -> Result<String, String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| format!("no randomness for a token: {e}"))?;
    Ok(hex(&b))
}

/// A game id: 64 random bits, as 16 hex digits (also the file name).
pub fn new_game_id() -> Result<String, String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| format!("no randomness for a game id: {e}"))?;
    Ok(hex(&b))
}

/// Whether `id` has the shape of a game id; anything else (a path) is never looked up.
pub fn valid_game_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// What is kept of a game's seats, and the game's server-side options.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SeatsFile {
    /// SHA-256 of the US, USSR and observer tokens, in that order.
    pub hashes: [String; 3],
    /// The chess clock: each side's total time, if the game has one.
    #[serde(default)]
    pub clock_ms: Option<u64>,
}

impl SeatsFile {
    /// The seat whose token this is. Every hash is compared, whatever matches first.
    pub fn seat(&self, token: &str) -> Option<Seat> {
        let h = token_hash(token);
        let mut found = None;
        for s in Seat::ALL {
            if eq_constant_time(self.hashes[s.idx()].as_bytes(), h.as_bytes()) {
                found = Some(s);
            }
        }
        found
    }

    pub fn load(path: &Path) -> Result<SeatsFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let f: SeatsFile = serde_json::from_str(&text).map_err(|e| format!("{} is not a seats file: {e}", path.display()))?;
        if f.hashes.iter().any(|h| h.len() != 64) {
            return Err(format!("{} is not a seats file: a hash is not SHA-256", path.display()));
        }
        Ok(f)
    }

    /// Written to a temporary file and renamed, so a crash leaves the old file or the new one.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let tmp = path.with_extension("seats.tmp");
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(|e| format!("cannot sync {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

fn eq_constant_time(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_acts_only_as_its_seat() {
        let t: Vec<String> = (0..3).map(|_| new_token().unwrap()).collect();
        assert!(t.iter().all(|x| x.len() == 32));
        let f = SeatsFile { hashes: [token_hash(&t[0]), token_hash(&t[1]), token_hash(&t[2])], clock_ms: None };
        assert_eq!(f.seat(&t[0]), Some(Seat::Us));
        assert_eq!(f.seat(&t[1]), Some(Seat::Ussr));
        assert_eq!(f.seat(&t[2]), Some(Seat::Observer));
        assert_eq!(f.seat(&token_hash(&t[0])), None, "the stored hash is not a token");
        assert_eq!(f.seat(""), None);
    }

    #[test]
    fn game_ids_are_16_lowercase_hex_digits() {
        assert!(valid_game_id(&new_game_id().unwrap()));
        for bad in ["", "../../etc/passwd", "ABCDEF0123456789", "0123456789abcdef0", "0123456789abcdeg"] {
            assert!(!valid_game_id(bad), "{bad}");
        }
    }
}
