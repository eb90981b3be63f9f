//! What a seat may know, as the computer opponent holds it.

use super::Searchable;
use crate::{Randomness, Refusal, Seat};

/// A game as `seat` sees it. The search holds this, never the game: the game's field is private
/// to this module, so the only ways in are the seat's view and the game's sampler
/// ([`Searchable::determinize`]), which draws what the seat may not see. Two games `seat` sees alike
/// give the search the same samples, hence the same move (tests of every game check it).
pub struct Seen<'g, G: Searchable> {
    game: &'g G,
    seat: Seat,
}

impl<'g, G: Searchable> Seen<'g, G> {
    /// `game` as `seat` sees it, while `seat` must act (alone or at a simultaneous step).
    pub fn new(game: &'g G, seat: Seat) -> Result<Seen<'g, G>, Refusal> {
        if game.outcome().is_some() {
            return Err(Refusal::new("the game is over: there is nothing to decide", ""));
        }
        if !game.decision().is_some_and(|d| d.includes(seat)) {
            return Err(Refusal::new("the computer moves only at its own decision", ""));
        }
        Ok(Seen { game, seat })
    }
    pub fn seat(&self) -> Seat {
        self.seat
    }
    /// The seat's view.
    pub fn view(&self) -> G::View {
        self.game.view(Some(self.seat))
    }
    /// The seat's legal moves (they are the seat's to know).
    pub fn legal_moves(&self) -> Vec<G::Move> {
        self.game.moves_for(self.seat)
    }
    /// The number of seats at the table.
    pub fn seats(&self) -> usize {
        self.game.seats().len()
    }
    /// A full state consistent with the seat's view, the hidden parts drawn from `rng`, in
    /// which the seat decides first.
    pub fn sample(&self, rng: &mut Randomness) -> Result<G, Refusal> {
        let g = self
            .game
            .determinize(self.seat, rng)
            .ok_or_else(|| Refusal::new("this game offers no computer opponent (it cannot sample what a seat does not see)", ""))?;
        if g.deciding() != Some(self.seat) {
            return Err(Refusal::new(
                "the game's sample does not have the searching seat deciding first (Searchable::determinize)",
                "engine",
            ));
        }
        Ok(g)
    }
}
