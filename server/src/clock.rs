//! The chess clock (a game option of the server, as online ladders play): each seat has a total
//! time; it runs on the deciding seat. It is read from the saved game alone: the time of each
//! move is the time since the move before it, charged to the seat that was deciding (the seat
//! that made it, except for an interjection "at any time"), so every replay of the record gives
//! the same clock. The game's first move is not timed (the players are still arriving: the
//! links were just shared); the clock starts with it. Wall time counts, also while the server
//! was down. A seat whose time runs out gets the game's timeout move (`Game::timeout_move`),
//! stored like any move; only games that have one are offered a clock.

use crate::storage::Session;
use arbiter_kernel::Seat;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left per seat, in milliseconds (never below 0).
    pub left_ms: Vec<i64>,
    /// The seat whose time is running, if the game is not over.
    pub running: Option<Seat>,
    /// When the running seat's time started (the previous move).
    pub since: String,
}

fn parse(t: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&Utc))
}

impl Clock {
    /// The clock of game `s` at `now`, each seat starting with `total_ms`.
    pub fn read(total_ms: u64, s: &Session, now: DateTime<Utc>) -> Clock {
        let mut used = vec![0i64; s.header().seats.len()];
        // Until the first move, nobody's time runs.
        let mut prev: Option<DateTime<Utc>> = None;
        for (r, deciding) in s.rows().iter().zip(s.deciding()) {
            let at = parse(&r.at);
            // The seat that was deciding: an interjection (a move "at any time" by another
            // seat) does not charge the interjecting seat for the decider's thinking.
            if let (Some(p), Some(a), Some(u)) = (prev, at, used.get_mut(deciding.idx())) {
                *u = u.saturating_add((a - p).num_milliseconds().max(0));
            }
            prev = at.or(prev);
        }
        let running = if s.game().outcome().is_some() || prev.is_none() { None } else { s.game().decision().map(|d| d.first().seat) };
        if let (Some(seat), Some(p)) = (running, prev) {
            if let Some(u) = used.get_mut(seat.idx()) {
                *u = u.saturating_add((now - p).num_milliseconds().max(0));
            }
        }
        let prev = prev.or_else(|| parse(&s.header().created_at)).unwrap_or(now);
        Clock {
            // A seats document's clock is not trusted to fit: saturating, never an overflow.
            left_ms: used.iter().map(|u| i64::try_from(total_ms).unwrap_or(i64::MAX).saturating_sub(*u).max(0)).collect(),
            running,
            since: prev.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }
    }

    pub fn remaining(&self, seat: Seat) -> i64 {
        self.left_ms.get(seat.idx()).copied().unwrap_or(0)
    }

    /// As the API shows it, seats named by their ids.
    pub fn to_json(&self, ids: &[String]) -> Value {
        let left: serde_json::Map<String, Value> = ids.iter().zip(&self.left_ms).map(|(id, ms)| (id.clone(), json!(ms))).collect();
        json!({ "left_ms": left, "running": self.running.and_then(|s| ids.get(s.idx())), "since": self.since })
    }
}
