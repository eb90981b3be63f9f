//! What a learning program asks of a game besides its notation: a fixed-size action space
//! (every move the game may list has a number below [`Encoding::actions`]), the kind of the
//! decision now (a frame: whose, and which of the game's kinds of decision), and an
//! observation tensor per seat holding only what that seat may know.
//!
//! A game opts in through [`Encodable`]; the layouts are
//! the game's own (each documents its own), the kernel only carries them. They are meant to
//! stay the same for a rules version ([`crate::GameKind::rules_version`]) and options: a
//! trained network keeps working across builds of the same rules.

use crate::{Game, Seat};
use serde::{Deserialize, Serialize};

/// A game's encodings for learning, for one set of options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoding {
    /// The size of the action space: action ids are `0..actions`.
    pub actions: u32,
    /// The shape of one seat's observation (row-major; its product is the number of values
    /// [`Encodable::observe`] writes). Every value lies in [-1, 1].
    pub observation: Vec<usize>,
    /// The names of the kinds of decision the game asks ([`Frame::kind`] indexes this).
    pub frames: Vec<String>,
    /// The names of the groups the action space splits into, for a game whose seat makes at
    /// most one move of each group at a step (a seat giving an order to each of its pieces: a
    /// group for each place a piece stands); [`Encodable::action_group`] indexes this. Empty:
    /// no groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
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
    pub seat: Seat,
    /// An index into [`Encoding::frames`].
    pub kind: u16,
}

/// What a learning program asks of a game, beside its rules ([`Game`]): its encoding, the action
/// ids of its moves, the frame and the observations. A game offers them by answering
/// [`Encodable::encoding`]; `impl Encodable for MyGame {}` (every default) says it offers none,
/// and the rest are asked only of a game that does. Every [`Match`](crate::Match) is an
/// `Encodable`.
pub trait Encodable: Game {
    /// The sizes of the action space and the observation for this game's options, and its
    /// kinds of decision. `None` (the default): the game offers no encoding.
    fn encoding(&self) -> Option<Encoding> {
        None
    }
    /// The action id of `m` (below [`Encoding::actions`]); `None` for a move outside the
    /// action space (one never listed among the legal moves: resigning). Two different moves
    /// listed at one decision have different ids.
    fn action_id(&self, _m: &Self::Move) -> Option<u32> {
        None
    }
    /// The action ids of the legal moves now, in their order, into `out` (cleared first). The
    /// default lists the moves and numbers them; a game that keeps its legal moves listed may
    /// number them in place (a batch asks this at every step).
    fn legal_action_ids(&self, out: &mut Vec<u32>) {
        out.clear();
        out.extend(self.legal_moves().iter().filter_map(|m| self.action_id(m)));
    }
    /// The move numbered `id` here (the inverse of [`Encodable::action_id`]), `None` for no move
    /// (every id outside the action space included).
    fn move_of(&self, _id: u32) -> Option<Self::Move> {
        None
    }
    /// The group of action `id` (an index into [`Encoding::groups`]), `None` for an action of
    /// no group or no action. It is fixed by the encoding: it never depends on the position.
    fn action_group(&self, _id: u32) -> Option<u16> {
        None
    }
    /// The kind of the decision now and whose it is, if the game is not over.
    fn frame(&self) -> Option<Frame> {
        None
    }
    /// [`Encoding::observation_len`], cheaper than building the encoding (asked at
    /// every step of a batch); a game may answer it without allocating.
    fn observation_len(&self) -> usize {
        self.encoding().map_or(0, |e| e.observation_len())
    }
    /// Write what `seat` may know of the game (and nothing else) into `out`, whose length is
    /// [`Encodable::observation_len`]: every value is written (all zeros for a seat not at the
    /// table).
    fn observe(&self, _seat: Seat, out: &mut [f32]) {
        // A game without an encoding observes nothing: zeros, never a previous row.
        out.fill(0.0);
    }
    /// The frame now and the deciding seat's observation written into `out` (as
    /// [`Encodable::frame`] then [`Encodable::observe`]; a batch asks this at every step, and a game
    /// whose frame is costly to find may find it once). `None`, `out` untouched, when the game
    /// is over.
    fn observe_decider(&self, out: &mut [f32]) -> Option<Frame> {
        let f = self.frame()?;
        self.observe(f.seat, out);
        Some(f)
    }
}
