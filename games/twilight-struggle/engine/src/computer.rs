//! What the kernel's computer opponent ([`arbiter_kernel::search`]) asks of Twilight Struggle:
//! a sampler of what a side may not see, a cheap playout policy and an evaluation of an
//! unfinished game.
//!
//! Limits, named: the sampler draws the other hand uniformly from the unseen cards; it infers
//! nothing from the other side's play (a card it would surely have played, a card it cannot
//! hold because it was dealt after a reshuffle). The search never makes an interjection (a
//! cancelled Cuban Missile Crisis) unless it is among the decision's moves.

use crate::card::{CardId, CardSet};
use crate::game::Game;
use crate::map::{Map, Region};
use crate::moves::{Move, PlayMode};
use crate::registry::ScoringTime;
use crate::rng::Randomness;
use crate::side::Side;
use crate::view::hidden_from;

/// The decisions a playout plays before the position is evaluated: about two action rounds of
/// both sides (a decision is one Influence marker, one roll, one card).
pub const PLAYOUT_DEPTH: u32 = 40;

/// A game consistent with all `side` may know: the other side's unshown cards, its secret
/// headline and the draw pile dealt again from the cards `side` has not seen (taken in card
/// order, so that the real whereabouts of those cards cannot matter), the dice to come drawn
/// afresh. Everything else is as it stands (it is public, or `side`'s own).
pub fn determinize(game: &Game, side: Side, rng: &mut Randomness) -> Game {
    let p = game.pos();
    let o = side.opponent();
    let unseen = hidden_from(p, Some(side));
    let mut st = game.state().clone();
    let mut pool: Vec<CardId> = unseen.iter().chain(st.deck.iter().copied()).collect();
    pool.sort_unstable();
    rng.shuffle(&mut pool);
    // The secret headline first: a card that may be headlined.
    if let Some(h) = st.headline[o.idx()].filter(|h| unseen.contains(*h)) {
        let at = pool.iter().position(|c| !p.cards().info(*c).no_headline).unwrap_or(0);
        st.headline[o.idx()] = Some(pool.remove(at));
        debug_assert!(h != CardId::CHINA);
    }
    let shown = CardSet(st.hand(o).0 & st.known[o.idx()].0);
    let unshown = (st.hand(o).0 & !st.known[o.idx()].0).count_ones() as usize;
    let mut hand = shown;
    for c in pool.drain(..unshown.min(pool.len())) {
        hand.insert(c);
    }
    st.hands[o.idx()] = hand;
    st.deck = pool;
    st.rng = rng.split();
    Game::from_state(game.rules().clone(), st).0
}

/// The playout policy: random among the moves, but never a coup in a battleground at DEFCON 2
/// (the phasing player would lose at once, §8.1.3) while another move exists, and a scoring
/// card is played when it can be (holding one at the turn's end loses, §11.1.2).
pub fn playout_move(game: &Game, moves: &[Move], rng: &mut Randomness) -> usize {
    let p = game.pos();
    let scoring = |m: &Move| matches!(m, Move::Play { card, mode: PlayMode::Event } if p.cards().info(*card).scoring);
    if let Some(i) = moves.iter().position(scoring) {
        return i;
    }
    let bg = Map::standard().battleground_mask();
    let suicidal = |m: &Move| p.st.defcon <= 2 && matches!(m, Move::Coup(c) if bg & c.bit() != 0);
    let n = moves.len();
    let first = rng.pick(n).unwrap_or(0);
    // The first move from a random start that is not suicidal (a uniform choice among them
    // is not needed: a playout only needs to be plausible and cheap).
    (0..n).map(|k| (first + k) % n).find(|&i| !suicidal(&moves[i])).unwrap_or(first)
}

/// How good the position is for the US, in VP: the VP track, and half of what each region
/// would score now (Europe's control counted as 10).
pub fn us_advantage(game: &Game) -> f64 {
    let p = game.pos();
    let board: i32 = Region::ALL.iter().map(|r| crate::scoring::score(p, *r, ScoringTime::Card).net().clamp(-10, 10)).sum();
    f64::from(game.state().vp) + 0.5 * f64::from(board)
}

/// [`us_advantage`] as a chance of winning for `side`: a logistic curve, 6 VP of advantage
/// being about 3 to 1.
pub fn evaluate(game: &Game, side: Side) -> f64 {
    let us = 1.0 / (1.0 + (-us_advantage(game) / 5.5).exp());
    match side {
        Side::Us => us,
        Side::Ussr => 1.0 - us,
    }
}
