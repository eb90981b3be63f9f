//! The clock's flag, a part of the room: when an acting seat's time runs out
//! (`crate::clock`), the game's timeout move is stored for it as any move is
//! ([`Room::stored`]), on a timer the room keeps for the seat whose time runs out first.

use super::{Room, Stored};
use crate::storage::Session;
use arbiter_kernel::Seat;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Room {
    /// When the running clock of this game runs out, if it has one running.
    pub(crate) fn clock_due(&self) -> Option<Instant> {
        self.with_session(|s| {
            let (_, ms) = self.clock(s)?.next_due()?;
            Some(Instant::now() + Duration::from_millis(ms.max(0) as u64))
        })
    }

    /// The clock now, if the game has one (`crate::clock`).
    pub fn clock(&self, s: &Session) -> Option<crate::clock::Clock> {
        let (total, per) = {
            let seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
            (seats.clock_ms?, seats.clock_per)
        };
        Some(crate::clock::Clock::read(total, per, s, chrono::Utc::now()))
    }

    /// If an acting seat's time has run out, store the game's timeout move for it and tell
    /// every place (blocking), for each such seat in turn (at a simultaneous step several may
    /// run out at once). Returns whether one was stored.
    pub fn flag_if_due(&self) -> bool {
        self.with_session(|s| {
            let mut flagged = false;
            // At most one timeout move a seat: a game whose timeout move leaves the seat acting
            // is not asked again here (its next check is scheduled as usual).
            for _ in 0..self.seat_count() {
                if self.is_retired() {
                    break;
                }
                let Some((seat, ms)) = self.clock(s).and_then(|c| c.next_due()) else { break };
                if ms > 0 {
                    break;
                }
                let Some(timeout) = s.game().timeout_move(seat) else { break };
                let acting_before: Vec<Seat> = s.game().decision().iter().flat_map(|d| d.seats()).collect();
                if s.play(&timeout, Some(seat)).is_err() {
                    break;
                }
                self.stored(s, Stored::Move { acting_before: &acting_before });
                flagged = true;
            }
            flagged
        })
    }

    /// When an acting seat's time would run out, check the flag (a task on the runtime).
    pub fn schedule_flag(self: &Arc<Self>) {
        let due = self.with_session(|s| self.clock(s).and_then(|c| c.next_due().map(|(_, ms)| ms)));
        let (Some(ms), Ok(rt)) = (due, tokio::runtime::Handle::try_current()) else { return };
        // Held weakly while it waits (hours, on a long clock): an unloaded copy is dropped, its
        // file closed; the loaded copy has its own timer, and a game not loaded its alarm.
        let weak = Arc::downgrade(self);
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms.max(0) as u64 + 5)).await;
            let Some(room) = weak.upgrade() else { return };
            let r = room.clone();
            let flagged = tokio::task::spawn_blocking(move || r.flag_if_due()).await.unwrap_or(false);
            if flagged {
                room.went_on();
            } else if !room.is_retired() {
                // Another move came first: the clock changed hands, and its own check is due.
                room.schedule_flag();
            }
        });
    }
}
