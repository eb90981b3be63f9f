//! Abandonment, a part of the room: a game nobody at the table has come back to for
//! `Config::abandon_after` (not over, no clock, no seat connected) is marked abandoned in its
//! seats document; it can be read and replayed, not played.

use super::{MoveError, Room};
use std::time::Duration;

impl Room {
    /// Why nothing more may be played, if the game was abandoned.
    pub(super) fn abandoned(&self) -> Option<String> {
        let when = self.seats.lock().unwrap_or_else(|p| p.into_inner()).abandoned.clone()?;
        Some(format!("this game was abandoned ({when}: every seat away too long, no clock): it can be read and replayed, not played"))
    }

    /// A seat's last connection closed now: remember when (blocking: the seats document is
    /// written). Under the session lock, as a join, so a copy being unloaded writes nothing.
    /// Written at most once in `every` (a tenth of the abandonment delay, a minute at most): a
    /// client connecting and closing in a loop does not write and sync for each close, and the
    /// time kept is never older than that, beside days before a game is abandoned.
    pub fn seen(&self, every: Duration) {
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() {
            return;
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        let now = chrono::Utc::now();
        let recent = seats
            .last_seen
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .and_then(|t| (now - t.with_timezone(&chrono::Utc)).to_std().ok())
            .is_some_and(|ago| ago < every);
        if recent {
            return;
        }
        let mut next = seats.clone();
        next.last_seen = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        match self.save_seats(&session, &next) {
            Ok(()) => *seats = next,
            Err(MoveError::Failed(e)) => eprintln!("arbiter serve: {e}"),
            Err(_) => {}
        }
    }

    /// Mark the game abandoned if it is (blocking): not over, no clock (a clock ends a game
    /// whose seats are away: their time runs out), no seat connected, and nothing from any seat
    /// (a move, a connection) for `after`. Returns whether it was marked now.
    pub fn abandon_if_due(&self, after: Duration) -> bool {
        let s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() || s.game().outcome().is_some() {
            return false;
        }
        let n = self.seat_count();
        if self.presence.any_seat_connected(n) {
            return false;
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        if seats.clock_ms.is_some() || seats.abandoned.is_some() {
            return false;
        }
        let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&chrono::Utc));
        let last = [Some(s.header().created_at.as_str()), s.rows().last().map(|r| r.at.as_str()), seats.last_seen.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(parse)
            .max();
        let now = chrono::Utc::now();
        let Some(last) = last else { return false };
        if (now - last).to_std().unwrap_or_default() < after {
            return false;
        }
        let mut next = seats.clone();
        next.abandoned = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        match self.save_seats(&s, &next) {
            Ok(()) => {
                *seats = next;
                // Out of the lobby's list.
                self.lobby.put(crate::lobby::Listing::of(&self.id, &s, &seats));
                true
            }
            Err(e) => {
                if let MoveError::Failed(e) = e {
                    eprintln!("arbiter serve: {e}");
                }
                false
            }
        }
    }
}
