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

/// The most decisions a playout plays before the position is evaluated (a decision is one
/// Influence marker, one roll, one card); it stops sooner, when the searching side decides
/// again after the other has ([`arbiter_kernel::Searchable::playout_depth`]). Measured against 20
/// and 40 decisions without that stop, this judged positions at the same point of a turn and
/// won more (BENCHMARKS.md).
pub const PLAYOUT_DEPTH: u32 = 200;

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

/// The playout policy: random among the moves, but a scoring card is played when it can be
/// (holding one at the turn's end loses, §11.1.2), and at DEFCON 2 (§8.1.3) a coup in a
/// battleground is made at once by the side not phasing (the phasing side loses), while a move
/// that loses the game for its maker at once is avoided if another exists: the phasing side's
/// coup in a battleground, or a card whose play or headline ends the game against its player
/// (found by playing it on a copy; the copy is a sample's, its dice already the search's own).
pub fn playout_move(game: &Game, moves: &[Move], rng: &mut Randomness) -> usize {
    let p = game.pos();
    let scoring = |m: &Move| matches!(m, Move::Play { card, mode: PlayMode::Event } if p.cards().info(*card).scoring);
    if let Some(i) = moves.iter().position(scoring) {
        return i;
    }
    let n = moves.len();
    let first = weighted(game, moves, rng);
    if p.st.defcon > 2 || n == 1 {
        return first;
    }
    let bg = Map::standard().battleground_mask();
    let Some(mover) = game.to_move() else { return first };
    // A coup in a battleground outside one's own round (an event's Operations: Lone Gunman,
    // CIA Created) ends the game against the phasing player: taken at once.
    let phasing = p.st.phasing == mover;
    if !phasing {
        if let Some(i) = moves.iter().position(|m| matches!(m, Move::Coup(c) if bg & c.bit() != 0)) {
            return i;
        }
    }
    let suicidal = |m: &Move| match m {
        Move::Coup(c) => phasing && bg & c.bit() != 0,
        Move::Play { .. } | Move::Headline(_) => {
            let mut copy = game.clone();
            copy.play_quiet(m).is_ok() && copy.outcome().is_some_and(|o| o.winner == Some(mover.opponent()))
        }
        _ => false,
    };
    // The first move from a random start that is not suicidal (a uniform choice among them
    // is not needed: a playout only needs to be plausible and cheap).
    (0..n).map(|k| (first + k) % n).find(|&i| !suicidal(&moves[i])).unwrap_or(first)
}

/// A move drawn with weights that make a playout look more like play: Influence where it takes
/// or keeps control and in battlegrounds rather than anywhere, coups in battlegrounds, a
/// card's own event and Operations over the space race and realignments.
fn weighted(game: &Game, moves: &[Move], rng: &mut Randomness) -> usize {
    let p = game.pos();
    let st = p.st;
    let map = Map::standard();
    let Some(me) = game.to_move() else { return rng.pick(moves.len()).unwrap_or(0) };
    let weight = |m: &Move| -> u32 {
        match m {
            Move::Influence(c) => {
                let (own, opp) = (st.inf(me, *c) as i32, st.inf(me.opponent(), *c) as i32);
                let stab = map.stabilities[c.idx()] as i32;
                let bg = map.battleground_mask() & c.bit() != 0;
                let controlled = own - opp >= stab;
                let takes = !controlled && own + 1 - opp >= stab;
                let base = if controlled {
                    2
                } else if takes {
                    12
                } else {
                    5
                };
                base * if bg { 3 } else { 1 }
            }
            Move::Coup(c) => {
                if map.battleground_mask() & c.bit() != 0 {
                    12
                } else {
                    3
                }
            }
            Move::Realign(_) => 1,
            Move::Play { card, mode } => {
                let own = match p.cards().info(*card).side {
                    crate::card::CardSide::Us => me == Side::Us,
                    crate::card::CardSide::Ussr => me == Side::Ussr,
                    crate::card::CardSide::Neutral => true,
                };
                match mode {
                    PlayMode::Event if own => 8,
                    PlayMode::Event => 2,
                    PlayMode::Ops => 6,
                    PlayMode::OpsThenEvent | PlayMode::EventThenOps => 3,
                    PlayMode::Space => 2,
                }
            }
            _ => 5,
        }
    };
    let weights: Vec<u32> = moves.iter().map(weight).collect();
    let total: u32 = weights.iter().sum();
    let mut x = rng.pick(total.max(1) as usize).unwrap_or(0) as u32;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    0
}

/// How good the position is for the US, in VP: the VP track, and half of what each region
/// would score now (Europe's control counted as 10).
pub fn us_advantage(game: &Game) -> f64 {
    let p = game.pos();
    let board: i32 = Region::ALL.iter().map(|r| crate::scoring::score_quiet(p, *r, ScoringTime::Card).net().clamp(-10, 10)).sum();
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
