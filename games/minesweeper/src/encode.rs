//! Minesweeper for learning programs (the kernel's [`arbiter_kernel::learn`] hooks): the
//! action space is three blocks of the board's cells, row by row (`open`, then `flag`, then
//! `unflag`: id = block × cells + row × width + column); the observation is 11 planes of the
//! board, `[11, height, width]`: plane 0 closed, plane 1 flagged, planes 2–10 open showing
//! 0–8. Only what the player sees (the mines are never in it, even after the end, so that an
//! observation depends on the view alone). Sizes depend on the board's options.

use super::{Minesweeper, Move, Square};
use arbiter_kernel::learn::{Encoding, Frame};
use arbiter_kernel::Seat;

/// Planes of the observation.
pub const PLANES: usize = 11;
/// The one kind of decision.
pub const FRAMES: [&str; 1] = ["move"];

impl Minesweeper {
    pub(crate) fn encoding(&self) -> Encoding {
        let (w, h) = (self.options.width as usize, self.options.height as usize);
        Encoding {
            actions: 3 * (w * h) as u32,
            observation: vec![PLANES, h, w],
            frames: FRAMES.iter().map(|f| f.to_string()).collect(),
            groups: Vec::new(),
        }
    }

    pub(crate) fn action_id(&self, m: &Move) -> Option<u32> {
        let cells = self.squares.len() as u32;
        let (block, c) = match m {
            Move::Open(c) => (0, c),
            Move::Flag(c) => (1, c),
            Move::Unflag(c) => (2, c),
        };
        self.index(*c).map(|i| block * cells + i as u32)
    }

    pub(crate) fn move_of(&self, id: u32) -> Option<Move> {
        let cells = self.squares.len();
        let (block, i) = (id as usize / cells, id as usize % cells);
        let c = self.cell(i);
        match block {
            0 => Some(Move::Open(c)),
            1 => Some(Move::Flag(c)),
            2 => Some(Move::Unflag(c)),
            _ => None,
        }
    }

    pub(crate) fn frame(&self) -> Option<Frame> {
        self.end.is_none().then_some(Frame { seat: Seat(0), kind: 0 })
    }

    pub(crate) fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
        let cells = self.squares.len();
        for (i, s) in self.squares.iter().enumerate() {
            let plane = match s {
                Square::Closed => 0,
                Square::Flagged => 1,
                Square::Open(n) => 2 + (*n as usize).min(8),
            };
            if let Some(v) = out.get_mut(plane * cells + i) {
                *v = 1.0;
            }
        }
    }
}
