//! What a learning program asks of a game besides its notation: a fixed-size action space
//! (every move the game may list has a number below [`Encoding::actions`]), the kind of the
//! decision now (a frame: whose, and which of the game's kinds of decision), and an
//! observation tensor per seat holding only what that seat may know.
//!
//! A game opts in through [`crate::Game::encoding`] and the hooks beside it; the layouts are
//! the game's own (each documents its own), the kernel only carries them. They are meant to
//! stay the same for a rules version ([`crate::GameKind::rules_version`]) and options: a
//! trained network keeps working across builds of the same rules.

use serde::{Deserialize, Serialize};

/// A game's encodings for learning, for one set of options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoding {
    /// The size of the action space: action ids are `0..actions`.
    pub actions: u32,
    /// The shape of one seat's observation (row-major; its product is the number of values
    /// [`crate::Game::observe`] writes). Every value lies in [-1, 1].
    pub observation: Vec<usize>,
    /// The names of the kinds of decision the game asks ([`Frame::kind`] indexes this).
    pub frames: Vec<String>,
}

impl Encoding {
    /// The number of values in one observation.
    pub fn observation_len(&self) -> usize {
        self.observation.iter().product()
    }
}

/// The decision now, as a learning program reads it: whose, and which kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    pub seat: crate::Seat,
    /// An index into [`Encoding::frames`].
    pub kind: u16,
}
