//! Seats and their secret tokens. A token is 128 random bits shown once, at creation; the
//! server keeps only its SHA-256, in the game's seats document (`crate::storage`).

use arbiter_kernel::{Seat, Viewer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Who a connection acts as: a seat of the game, or an observer (public information only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Seat(Seat),
    Observer,
}

impl Place {
    /// What this place may see.
    pub fn viewer(self) -> Viewer {
        match self {
            Place::Seat(s) => Some(s),
            Place::Observer => None,
        }
    }
    /// Index into per-place lists of a game with `seats` seats: the seats, then the observer.
    pub fn idx(self, seats: usize) -> usize {
        match self {
            Place::Seat(s) => s.idx(),
            Place::Observer => seats,
        }
    }
    /// Every place of a game with `seats` seats, in index order.
    pub fn all(seats: usize) -> impl Iterator<Item = Place> {
        (0..seats).map(|i| Place::Seat(Seat(i as u8))).chain(std::iter::once(Place::Observer))
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
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SeatsFile {
    /// SHA-256 of each seat's token in seat order, then of the observers' token; `None` for a
    /// seat nobody has joined yet.
    pub hashes: Vec<Option<String>>,
    /// The clock: each seat's time, if the game has one, for the game or for each step.
    #[serde(default)]
    pub clock_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "crate::clock::Timing::is_game")]
    pub clock_per: crate::clock::Timing,
    /// The seats the computer plays (their tokens were never given to anyone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub computer: Vec<ComputerSeat>,
    /// Each seat's webhook URL (called when that seat comes to decide), by seat index; the
    /// seat's own, never shown to another place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub webhooks: Vec<Option<String>>,
    /// Left out of the lobby's list (`"listed": false` at creation); its links work as any.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlisted: bool,
    /// A listed game's public observers' token, kept in clear: anyone may watch a listed game
    /// (`GET /api/games/{id}/watch`), and an observer sees only what every seat may see.
    /// Made on the first request to watch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<String>,
    /// The rematch of this finished game, once a seat asked for one (`crate::rematch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    /// When a seat was last seen: its last connection closed (RFC 3339). With the moves' times,
    /// what tells an abandoned game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    /// When the game was found abandoned (RFC 3339): every seat away longer than
    /// `Config::abandon_after`, no clock. It is read and replayed, not played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandoned: Option<String>,
    /// The creator chose the seed (over the network the server draws it): the creator can know
    /// every draw, the other seats' hidden cards included. Every seat is told (`seed_chosen` in
    /// its state) and a join must accept it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seed_chosen: bool,
}

/// A seat the computer plays, and how.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ComputerSeat {
    pub seat: u8,
    pub agent: arbiter_kernel::search::Agent,
}

impl SeatsFile {
    /// The number of seats (the observers' token is last).
    pub fn seats(&self) -> usize {
        self.hashes.len().saturating_sub(1)
    }

    /// The place whose token this is. Every hash is compared, whatever matches first.
    pub fn place(&self, token: &str) -> Option<Place> {
        let h = token_hash(token);
        let mut found = None;
        for p in Place::all(self.seats()) {
            if self.hashes[p.idx(self.seats())].as_ref().is_some_and(|x| eq_constant_time(x.as_bytes(), h.as_bytes())) {
                found = Some(p);
            }
        }
        if self.watch.as_ref().is_some_and(|w| eq_constant_time(w.as_bytes(), token.as_bytes())) {
            found = found.or(Some(Place::Observer));
        }
        found
    }

    /// `seat`'s webhook URL, if it registered one.
    pub fn webhook(&self, seat: Seat) -> Option<&str> {
        self.webhooks.get(seat.idx()).and_then(|u| u.as_deref())
    }

    /// Whether `seat` has been taken (its token handed out).
    pub fn taken(&self, seat: Seat) -> bool {
        self.hashes.get(seat.idx()).is_some_and(Option::is_some)
    }

    /// An earlier server's seats file (`GAME.seats.json` beside the game).
    pub fn load(path: &Path) -> Result<SeatsFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        SeatsFile::parse(&text, &path.display().to_string())
    }

    /// A seats document read from its JSON `text`; `what` names it in errors (a file's path,
    /// or the game's document in a database).
    pub fn parse(text: &str, what: &str) -> Result<SeatsFile, String> {
        let f: SeatsFile = serde_json::from_str(text).map_err(|e| format!("{what} is not a seats document: {e}"))?;
        if f.hashes.len() < 2 || f.hashes.iter().flatten().any(|h| h.len() != 64) || f.hashes.last().is_some_and(Option::is_none) {
            return Err(format!("{what} is not a seats document: a seat, the observers and a SHA-256 of each token are needed"));
        }
        Ok(f)
    }

    /// The document as JSON text (what [`SeatsFile::parse`] reads).
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map_err(|e| e.to_string())
    }
}

pub fn eq_constant_time(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_acts_only_as_its_seat() {
        let t: Vec<String> = (0..3).map(|_| new_token().unwrap()).collect();
        assert!(t.iter().all(|x| x.len() == 32));
        let f = SeatsFile { hashes: t.iter().map(|t| Some(token_hash(t))).collect(), clock_ms: None, ..Default::default() };
        assert_eq!(f.place(&t[0]), Some(Place::Seat(Seat(0))));
        assert_eq!(f.place(&t[1]), Some(Place::Seat(Seat(1))));
        assert_eq!(f.place(&t[2]), Some(Place::Observer));
        assert_eq!(f.place(&token_hash(&t[0])), None, "the stored hash is not a token");
        assert_eq!(f.place(""), None);
    }

    #[test]
    fn a_listed_game_s_public_watch_token_acts_as_the_observers_only() {
        let t: Vec<String> = (0..3).map(|_| new_token().unwrap()).collect();
        let watch = new_token().unwrap();
        let f = SeatsFile { hashes: t.iter().map(|t| Some(token_hash(t))).collect(), watch: Some(watch.clone()), ..Default::default() };
        assert_eq!(f.place(&watch), Some(Place::Observer));
        assert_eq!(f.place(&t[2]), Some(Place::Observer), "the creator's observers' link still works");
        assert_eq!(f.place(&t[0]), Some(Place::Seat(Seat(0))));
        assert_eq!(f.place(""), None);
        let text = serde_json::to_string(&SeatsFile { hashes: f.hashes.clone(), ..Default::default() }).unwrap();
        assert!(!text.contains("watch") && !text.contains("unlisted") && !text.contains("rematch"), "absent until used: {text}");
    }

    #[test]
    fn a_seats_file_written_before_seats_could_be_free_reads_as_all_taken() {
        let h = token_hash("x");
        let old = format!("{{\"hashes\": [\"{h}\", \"{h}\", \"{h}\"], \"clock_ms\": null}}");
        let f: SeatsFile = serde_json::from_str(&old).unwrap();
        assert_eq!(f.seats(), 2);
        assert!(f.taken(Seat(0)) && f.taken(Seat(1)));
    }

    #[test]
    fn game_ids_are_16_lowercase_hex_digits() {
        assert!(valid_game_id(&new_game_id().unwrap()));
        for bad in ["", "../../etc/passwd", "ABCDEF0123456789", "0123456789abcdef0", "0123456789abcdeg"] {
            assert!(!valid_game_id(bad), "{bad}");
        }
    }
}
