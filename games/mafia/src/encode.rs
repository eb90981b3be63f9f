//! Mafia for learning programs (the kernel's [`arbiter_kernel::learn`] hooks), the same sizes
//! for every number of players (up to 15), so that one network plays every table:
//!
//! - Actions (77): `kill N` 0–14, `protect N` 15–29, `investigate N` 30–44, `block N` 45–59,
//!   `vote N` 60–74 (player N at N - 1 in its block), `sleep` 75, `skip` 76.
//! - Observation `[16, 12]`: a row per player (1 to 15; a row of zeros past the table): at
//!   the table, alive, is you, has acted at the step now, its role where the seat may know it
//!   (Mafia, Doctor, Cop, Roleblocker, Villager), the Cop's finding (Mafia, not Mafia, to the
//!   Cop), protected last night (to the Doctor); then a row for the table: night, day, the
//!   round / 30, the living / 15, the living Mafia / 15 (public: the Mafia dealt, less those
//!   revealed dead).
//! - Frames: `night`, `day`.

use crate::moves::Move;
use crate::roles::{Role, MAX_PLAYERS};
use crate::{Mafia, Phase};
use arbiter_kernel::learn::{Encoding, Frame};
use arbiter_kernel::Seat;

const MAX: u32 = MAX_PLAYERS as u32;
pub const ACTIONS: u32 = 5 * MAX + 2;
pub const ROWS: usize = MAX_PLAYERS as usize + 1;
pub const FEATURES: usize = 12;
pub const FRAMES: [&str; 2] = ["night", "day"];

impl Mafia {
    pub(crate) fn encoding(&self) -> Encoding {
        Encoding {
            actions: ACTIONS,
            observation: vec![ROWS, FEATURES],
            frames: FRAMES.iter().map(|f| f.to_string()).collect(),
            groups: Vec::new(),
        }
    }

    pub(crate) fn action_id(&self, m: &Move) -> Option<u32> {
        let at = |block: u32, p: u8| (u32::from(p) < MAX).then(|| block * MAX + u32::from(p));
        match *m {
            Move::Kill(p) => at(0, p),
            Move::Protect(p) => at(1, p),
            Move::Investigate(p) => at(2, p),
            Move::Block(p) => at(3, p),
            Move::Vote(p) => at(4, p),
            Move::Sleep => Some(5 * MAX),
            Move::Skip => Some(5 * MAX + 1),
            // Never listed (M11): outside the action space.
            Move::Leave => None,
        }
    }

    pub(crate) fn move_of(&self, id: u32) -> Option<Move> {
        let (block, p) = (id / MAX, (id % MAX) as u8);
        if block < 5 && p >= self.players() {
            return None;
        }
        Some(match (block, id) {
            (0, _) => Move::Kill(p),
            (1, _) => Move::Protect(p),
            (2, _) => Move::Investigate(p),
            (3, _) => Move::Block(p),
            (4, _) => Move::Vote(p),
            (_, i) if i == 5 * MAX => Move::Sleep,
            (_, i) if i == 5 * MAX + 1 => Move::Skip,
            _ => return None,
        })
    }

    pub(crate) fn frame(&self) -> Option<Frame> {
        let seat = self.pending_first()?;
        Some(Frame { seat: Seat(seat), kind: u16::from(self.phase == Phase::Day) })
    }

    /// What `seat` may know, as [`Mafia::view`] shows it.
    pub(crate) fn observe(&self, seat: Seat, out: &mut [f32]) {
        out.fill(0.0);
        let Some(me) = Some(seat.0).filter(|p| *p < self.players()) else { return };
        let view = self.view(Some(seat));
        for (p, pv) in view.players.iter().enumerate() {
            let row = &mut out[p * FEATURES..(p + 1) * FEATURES];
            row[0] = 1.0;
            row[1] = f32::from(u8::from(pv.alive));
            row[2] = f32::from(u8::from(p == usize::from(me)));
            row[3] = f32::from(u8::from(pv.acted));
            if let Some(r) = pv.role {
                let k = match r {
                    Role::Mafioso => 0,
                    Role::Doctor => 1,
                    Role::Cop => 2,
                    Role::Roleblocker => 3,
                    Role::Villager => 4,
                };
                row[4 + k] = 1.0;
            }
            if self.role(me) == Role::Cop {
                if let Some((_, _, mafia)) = self.findings.iter().rev().find(|(_, t, _)| usize::from(*t) == p) {
                    row[if *mafia { 9 } else { 10 }] = 1.0;
                }
            }
            if self.role(me) == Role::Doctor && self.last_protected.map(usize::from) == Some(p) {
                row[11] = 1.0;
            }
        }
        let table = &mut out[MAX_PLAYERS as usize * FEATURES..];
        table[0] = f32::from(u8::from(self.phase == Phase::Night));
        table[1] = f32::from(u8::from(self.phase == Phase::Day));
        table[2] = (f32::from(self.round) / 30.0).min(1.0);
        table[3] = self.living().count() as f32 / 15.0;
        let dealt = self.roles.iter().filter(|r| **r == Role::Mafioso).count();
        let dead = (0..self.players()).filter(|p| !self.is_alive(*p) && self.role(*p) == Role::Mafioso).count();
        table[4] = (dealt - dead) as f32 / 15.0;
    }
}
