//! The clock (a game option of the server, as online ladders play): each seat has a time, for
//! the whole game (a chess clock) or for each step it acts at (a deadline, as games of
//! simultaneous phases are played by post); it runs on every seat that must act (one at a turn; each seat of a
//! simultaneous step until it has acted). It is read from the saved game alone: the time of
//! each move is the time since the move before it, charged to every seat that was acting then
//! (the seat that made it, the others of its simultaneous step; for an interjection "at any
//! time", the seats deciding), so every replay of the record gives the same clock. The game's
//! first move is not timed (the players are still arriving: the links were just shared); the
//! clock starts with it. Wall time counts, also while the server was down. A seat whose time
//! runs out gets the game's timeout move (`Game::timeout_move`), stored like any move; only
//! games that have one are offered a clock.

use crate::storage::Session;
use arbiter_kernel::Seat;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What a clock's time is for: the whole game, or each step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Timing {
    /// A chess clock: each seat's time for the whole game.
    #[default]
    Game,
    /// A deadline: each seat's time for each step, given afresh when a step begins.
    Step,
}

impl Timing {
    pub fn is_game(&self) -> bool {
        *self == Timing::Game
    }
}

/// Whether a new step began between a decision whose acting seats were `before` and the
/// next, whose acting seats are `now`, the move between them having `revealed` something. A
/// step's seats only leave it as each makes its part (a seat with several moves in a step stays
/// in it, and reveals nothing until the step resolves), so a step began where seats are acting
/// that were not before, or where a move revealed something and left the same seats acting
/// (a step resolved into another of the same seats).
fn step_began(before: &[Seat], revealed: bool, now: &[Seat]) -> bool {
    let joined = !now.iter().all(|s| before.contains(s));
    // The same seats, in whatever order the decision lists them.
    let same = !joined && before.iter().all(|s| now.contains(s));
    joined || (revealed && same)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left per seat, in milliseconds (never below 0).
    pub left_ms: Vec<i64>,
    /// The seats whose time is running, in the decision's order (none once the game is over,
    /// or before its first move).
    pub running: Vec<Seat>,
    /// When the running seats' time last started (the previous move).
    pub since: String,
    /// When `left_ms` was read.
    pub at: String,
    /// What the time is for.
    pub per: Timing,
}

fn parse(t: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&Utc))
}

impl Clock {
    /// The clock of game `s` at `now`, each seat given `total_ms` for the game or for each step
    /// (`timing`).
    pub fn read(total_ms: u64, timing: Timing, s: &Session, now: DateTime<Utc>) -> Clock {
        let mut used = vec![0i64; s.header().seats.len()];
        // Until the first move, nobody's time runs.
        let mut prev: Option<DateTime<Utc>> = None;
        // The seats acting before the last move, and whether it revealed anything.
        let mut last: Option<(&[Seat], bool)> = None;
        let step = |used: &mut Vec<i64>, last: Option<(&[Seat], bool)>, now: &[Seat]| {
            if timing == Timing::Step && last.is_none_or(|(before, revealed)| step_began(before, revealed, now)) {
                used.fill(0);
            }
        };
        for (r, acting) in s.rows().iter().zip(s.acting()) {
            step(&mut used, last, acting);
            last = Some((acting.as_slice(), r.record.reveals));
            let at = parse(&r.at);
            // Every seat that was acting: an interjection (a move "at any time" by another
            // seat) does not charge the interjecting seat for the deciders' thinking.
            if let (Some(p), Some(a)) = (prev, at) {
                for seat in acting {
                    if let Some(u) = used.get_mut(seat.idx()) {
                        *u = u.saturating_add((a - p).num_milliseconds().max(0));
                    }
                }
            }
            prev = at.or(prev);
        }
        let running: Vec<Seat> = match (s.game().outcome(), prev, s.game().decision()) {
            (None, Some(_), Some(d)) => d.seats().collect(),
            _ => Vec::new(),
        };
        step(&mut used, last, &running);
        if let Some(p) = prev {
            for seat in &running {
                if let Some(u) = used.get_mut(seat.idx()) {
                    *u = u.saturating_add((now - p).num_milliseconds().max(0));
                }
            }
        }
        let prev = prev.or_else(|| parse(&s.header().created_at)).unwrap_or(now);
        Clock {
            // A seats document's clock is not trusted to fit: saturating, never an overflow.
            left_ms: used.iter().map(|u| i64::try_from(total_ms).unwrap_or(i64::MAX).saturating_sub(*u).max(0)).collect(),
            running,
            since: prev.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            per: timing,
        }
    }

    pub fn remaining(&self, seat: Seat) -> i64 {
        self.left_ms.get(seat.idx()).copied().unwrap_or(0)
    }

    /// The running seat whose time runs out first, and when (milliseconds from the reading).
    pub fn next_due(&self) -> Option<(Seat, i64)> {
        self.running.iter().map(|s| (*s, self.remaining(*s))).min_by_key(|(_, ms)| *ms)
    }

    /// As the API shows it, seats named by their ids: `running` the seat acting first (as a
    /// turn shows it), `running_seats` every seat whose time runs.
    pub fn to_json(&self, ids: &[String]) -> Value {
        let left: serde_json::Map<String, Value> = ids.iter().zip(&self.left_ms).map(|(id, ms)| (id.clone(), json!(ms))).collect();
        let running: Vec<&String> = self.running.iter().filter_map(|s| ids.get(s.idx())).collect();
        json!({ "left_ms": left, "running": running.first(), "running_seats": running, "since": self.since, "at": self.at, "per": self.per })
    }
}

#[cfg(test)]
mod tests {
    use super::step_began;
    use arbiter_kernel::Seat;

    #[test]
    fn a_step_begins_where_seats_join_or_a_phase_resolves_into_the_same_seats() {
        let s = |v: &[u8]| v.iter().map(|x| Seat(*x)).collect::<Vec<_>>();
        // (acting before, the move revealed something, acting now, a new step)
        let cases = [
            (s(&[0, 1, 2]), false, s(&[0, 1, 2]), false), // an order given: the power orders on
            (s(&[0, 1, 2]), false, s(&[0, 2]), false),    // a seat done: it leaves the step
            (s(&[0, 1, 2]), true, s(&[0, 2]), false),     // a seat's choice shown to its team
            (s(&[2]), true, s(&[0, 1, 2]), true),         // the step resolved: all are called
            (s(&[2]), true, s(&[2]), true),               // resolved into a step of the same seat
            (s(&[0]), false, s(&[1]), true),              // a turn passes
            (s(&[0]), false, s(&[0]), false),             // the same turn goes on
            (s(&[0, 1]), true, s(&[1, 0]), true),         // resolved into the same seats, reordered
            (s(&[0, 1]), true, s(&[1]), false),           // one seat's revealed choice: it leaves
        ];
        for (before, revealed, now, began) in cases {
            assert_eq!(step_began(&before, revealed, &now), began, "{before:?} {revealed} {now:?}");
        }
    }
}
