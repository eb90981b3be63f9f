//! The chess clock (a game option of the server, as online ladders play): each side has a total
//! time; it runs on the deciding side. It is read from the saved game alone: the time of each
//! move is the time since the move before it, charged to the side that was deciding (the side
//! that made it, except for an interjection "at any time"), so every
//! replay of the record gives the same clock. The game's first move is not timed (the players
//! are still arriving: the links were just shared); the clock starts with it. Wall time counts,
//! also while the server was down. A side whose time runs out loses: the server stores `lose on
//! time` for it, like any move.

use arbiter_engine::Side;
use arbiter_store::Session;
use chrono::{DateTime, Utc};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Clock {
    /// Time left, in milliseconds (never below 0).
    pub us_ms: i64,
    pub ussr_ms: i64,
    /// The side whose time is running, if the game is not over.
    pub running: Option<Side>,
    /// When the running side's time started (the previous move).
    pub since: String,
}

fn parse(t: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&Utc))
}

impl Clock {
    /// The clock of game `s` at `now`, each side starting with `total_ms`.
    pub fn read(total_ms: u64, s: &Session, now: DateTime<Utc>) -> Clock {
        let mut used = [0i64; 2];
        // Until the first move, nobody's time runs.
        let mut prev: Option<DateTime<Utc>> = None;
        for (r, deciding) in s.rows().iter().zip(s.deciding()) {
            let at = parse(&r.at);
            // The side that was deciding: an interjection (a move "at any time" by the other
            // side) does not charge the interjecting side for the decider's thinking.
            if let (Some(p), Some(a)) = (prev, at) {
                used[deciding.idx()] += (a - p).num_milliseconds().max(0);
            }
            prev = at.or(prev);
        }
        let running = if s.game().outcome().is_some() || prev.is_none() { None } else { s.game().to_move() };
        if let (Some(side), Some(p)) = (running, prev) {
            used[side.idx()] += (now - p).num_milliseconds().max(0);
        }
        let prev = prev.or_else(|| parse(&s.header().created_at)).unwrap_or(now);
        let left = |s: Side| (total_ms as i64 - used[s.idx()]).max(0);
        Clock {
            us_ms: left(Side::Us),
            ussr_ms: left(Side::Ussr),
            running,
            since: prev.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }
    }

    pub fn remaining(&self, side: Side) -> i64 {
        match side {
            Side::Us => self.us_ms,
            Side::Ussr => self.ussr_ms,
        }
    }
}
