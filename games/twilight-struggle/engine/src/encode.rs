//! Twilight Struggle for learning programs: the fixed action space, the decision frames and a
//! seat's observation tensor (the kernel's [`arbiter_kernel::learn`] hooks, wired in
//! `contract.rs`). The layouts are documented in `python/README.md`; they change only with
//! the rules version.
//!
//! The observation is read from the state, but only from the parts the seat may see: the same
//! parts [`crate::view::View`] shows it (its own hand, the cards of the other hand it was
//! shown, a headline once it may see it, counts of the other hand and the deck). Never the
//! other hand, the deck's order or the random source: two states the seat cannot tell apart
//! (a sample of [`crate::computer::determinize`]) give the same observation (tested from
//! Python over many random games).

use crate::card::{CardId, CardSet};
use crate::game::Game;
use crate::listing::Listing;
use crate::map::{CountryId, Map};
use crate::moves::{Move, PlayMode};
use crate::side::Side;
use crate::task::{OpsKind, Task};
use arbiter_kernel::learn::{Encoding, Frame};

/// Card slots: card numbers 0–110 (0 is never a card; the slot keeps numbers as indices).
pub const CARDS: usize = 111;
/// The map's countries (checked against the map in the tests).
pub const COUNTRIES: usize = 84;
/// `choose` options a decision may name (the most any event offers is 5).
pub const CHOICES: usize = 16;

const MODES: [PlayMode; 5] = PlayMode::ALL;

// The action space, block by block (start of each block).
const PLAY: u32 = 0;
const HEADLINE: u32 = PLAY + (MODES.len() * CARDS) as u32;
const DISCARD: u32 = HEADLINE + CARDS as u32;
const TAKE: u32 = DISCARD + CARDS as u32;
const CANCEL: u32 = TAKE + CARDS as u32;
const INFLUENCE: u32 = CANCEL + CARDS as u32;
const REMOVE: u32 = INFLUENCE + COUNTRIES as u32;
const COUP: u32 = REMOVE + COUNTRIES as u32;
const REALIGN: u32 = COUP + COUNTRIES as u32;
const TARGET: u32 = REALIGN + COUNTRIES as u32;
const CANCEL_AT: u32 = TARGET + COUNTRIES as u32;
const CHOOSE: u32 = CANCEL_AT + COUNTRIES as u32;
const PASS: u32 = CHOOSE + CHOICES as u32;
/// The size of the action space.
pub const ACTIONS: u32 = PASS + 1;

/// The kinds of decision ([`Frame::kind`] indexes this).
pub const FRAMES: [&str; 6] = ["setup", "headline", "card play", "operations", "event", "space discard"];

// The observation: scalars, then card planes, then country planes.
/// Scalars at the start of the observation.
pub const SCALARS: usize = 32;
/// Card planes, each [`CARDS`] long.
pub const CARD_PLANES: usize = 10;
/// Country planes, each [`COUNTRIES`] long.
pub const COUNTRY_PLANES: usize = 5;
/// The number of values in one observation.
pub const OBSERVATION: usize = SCALARS + CARD_PLANES * CARDS + COUNTRY_PLANES * COUNTRIES;

pub fn encoding() -> Encoding {
    Encoding {
        actions: ACTIONS,
        observation: vec![OBSERVATION],
        frames: FRAMES.iter().map(|f| f.to_string()).collect(),
        groups: Vec::new(),
    }
}

fn card_slot(c: CardId) -> Option<u32> {
    (c.idx() < CARDS).then_some(c.0 as u32)
}

fn country_slot(c: CountryId) -> Option<u32> {
    (c.idx() < COUNTRIES).then_some(c.0 as u32)
}

/// Each variant's block as (start, length), in the variant order of [`Move`] (the order of
/// [`variant`]); a variant without slots has length 0. `Play` adds its mode's place to the
/// start; `Cancel` at a country and `Pass` are numbered in [`action_id`] itself.
const BLOCKS: [(u32, u32); 13] = [
    (PLAY, CARDS as u32),
    (HEADLINE, CARDS as u32),
    (INFLUENCE, COUNTRIES as u32),
    (REMOVE, COUNTRIES as u32),
    (COUP, COUNTRIES as u32),
    (REALIGN, COUNTRIES as u32),
    (TARGET, COUNTRIES as u32),
    (DISCARD, CARDS as u32),
    (TAKE, CARDS as u32),
    (CHOOSE, CHOICES as u32),
    (CANCEL, CARDS as u32),
    (PASS, 1),
    (0, 0),
];

/// `m`'s place in [`BLOCKS`]: its variant in declaration order, which is `Move`'s `repr(u8)`
/// tag, so that this compiles to the tag's load (no branch).
#[inline(always)]
fn variant(m: &Move) -> usize {
    match *m {
        Move::Play { .. } => 0,
        Move::Headline(_) => 1,
        Move::Influence(_) => 2,
        Move::Remove(_) => 3,
        Move::Coup(_) => 4,
        Move::Realign(_) => 5,
        Move::Target(_) => 6,
        Move::Discard(_) => 7,
        Move::Take(_) => 8,
        Move::Choose(_) => 9,
        Move::Cancel { .. } => 10,
        Move::Pass => 11,
        Move::Concede(_) => 12,
    }
}

/// The action id of `m`; `None` for a concession (never listed) or a number outside the map
/// or the cards.
///
/// Numbered at every decision of a batch, for every listed move: the variants with one card,
/// country or option (their number the first field) share one path, a table lookup by the tag
/// and one bounds check, so that a list mixing them (an Operations decision lists `influence`,
/// `realign` and `coup` country by country) takes the same branches for every move. A `match`
/// with an arm per variant compiled to a jump table whose target changed with the variant,
/// mispredicted about 7.7 times a decision (docs/benchmarks-history.md, "the Python batch, margin").
#[inline(always)]
pub fn action_id(m: &Move) -> Option<u32> {
    let (start, len) = BLOCKS[variant(m)];
    let slot = match *m {
        Move::Play { card, mode } => {
            return card_slot(card).map(|c| PLAY + mode.index() as u32 * CARDS as u32 + c);
        }
        // One slot per country: the card is found again from the position (`move_of`). Only
        // one card's effect is cancelled at a country; two at once would share ids, which the
        // mask test (every listed move has its own id) would catch.
        Move::Cancel { country: Some(k), .. } => return country_slot(k).map(|k| CANCEL_AT + k),
        Move::Pass => return Some(PASS),
        Move::Concede(_) => return None,
        Move::Headline(c) | Move::Discard(c) | Move::Take(c) | Move::Cancel { card: c, country: None } => c.0,
        Move::Influence(k) | Move::Remove(k) | Move::Coup(k) | Move::Realign(k) | Move::Target(k) => k.0,
        Move::Choose(i) => i,
    };
    (u32::from(slot) < len).then_some(start + u32::from(slot))
}

/// The action ids of `listing`'s moves, in its order ([`Listing::for_each`]'s), into `out`
/// (cleared first): the same ids as [`action_id`] of each visited move. An Ops decision's and
/// a card play's moves are numbered straight from their sets (an id is the block's start plus
/// the country or the card: no move is made and taken apart again), the standing moves and the
/// written lists move by move. A batch numbers every decision's moves (the mask).
pub fn legal_ids(listing: &Listing, out: &mut Vec<u32>) {
    // No `reserve`: the batch's list keeps its capacity from decision to decision, and
    // counting the sets' bits costs a dozen instructions a word without `popcnt`.
    out.clear();
    let standing = match listing {
        Listing::Moves(v) => {
            out.extend(v.iter().filter_map(action_id));
            return;
        }
        Listing::Ops { allowed, standing } => {
            // Countries outside the map have no id (as `action_id`): left out of the sets.
            let [influence, realign, coup] = allowed.map(|s| s & MAP);
            if realign | coup == 0 {
                // Placements alone (after a card's first Op only one activity is open, §6).
                each_bit(influence, |c| out.push(INFLUENCE + c));
            } else {
                // Country by country; at each, influence, realign, coup (the listing's order).
                // Word by word (64 countries each): 128-bit shifts cost several instructions.
                for (word, first) in [(0, 0), (64, 64)] {
                    let [i, r, k] = [influence, realign, coup].map(|s| (s >> word) as u64);
                    let mut any = i | r | k;
                    while any != 0 {
                        let at = any.trailing_zeros();
                        any &= any - 1;
                        for (set, start) in [(i, INFLUENCE), (r, REALIGN), (k, COUP)] {
                            if set >> at & 1 != 0 {
                                out.push(start + first + at);
                            }
                        }
                    }
                }
            }
            standing
        }
        Listing::Cards { allowed, pass, standing } => {
            // Card by card; for each, its modes in `PlayMode::ALL`'s order; then the pass.
            let sets = allowed.map(|s| s.0 & DECK);
            for (word, first) in [(0, 0), (64, 64)] {
                let modes = sets.map(|s| (s >> word) as u64);
                let mut any = modes.iter().fold(0, |m, s| m | s);
                while any != 0 {
                    let at = any.trailing_zeros();
                    any &= any - 1;
                    for (k, set) in modes.iter().enumerate() {
                        if set >> at & 1 != 0 {
                            out.push(PLAY + (k * CARDS) as u32 + first + at);
                        }
                    }
                }
            }
            if *pass {
                out.push(PASS);
            }
            standing
        }
    };
    out.extend(standing.iter().filter_map(action_id));
}

/// The countries with a slot: the first [`COUNTRIES`] bits.
const MAP: u128 = u128::MAX >> (128 - COUNTRIES);
/// The cards with a slot: the first [`CARDS`] bits.
const DECK: u128 = u128::MAX >> (128 - CARDS);

/// Visit each set bit of `set`, lowest first. Word by word: 128-bit shifts cost several
/// instructions.
#[inline(always)]
fn each_bit(set: u128, mut f: impl FnMut(u32)) {
    for (word, first) in [(set as u64, 0), ((set >> 64) as u64, 64)] {
        let mut w = word;
        while w != 0 {
            f(first + w.trailing_zeros());
            w &= w - 1;
        }
    }
}

/// The move numbered `id` in `g`.
pub fn move_of(g: &Game, id: u32) -> Option<Move> {
    if !(CANCEL_AT..CHOOSE).contains(&id) {
        return fixed_move(id);
    }
    let at = CountryId((id - CANCEL_AT) as u8);
    // The card whose effect this decision (or a standing move of either side) offers to cancel
    // at that country.
    let offered = |m: &Move| matches!(m, Move::Cancel { country: Some(k), .. } if *k == at);
    let listed = g.legal().iter().copied().find(offered);
    listed.or_else(|| Side::BOTH.into_iter().flat_map(|s| g.interjections(s)).find(offered))
}

/// The move numbered `id` for every block but the cancellations at a country.
fn fixed_move(id: u32) -> Option<Move> {
    let card = |base: u32| CardId((id - base) as u8);
    let country = |base: u32| CountryId((id - base) as u8);
    Some(match id {
        _ if id < HEADLINE => {
            let k = (id - PLAY) as usize / CARDS;
            Move::Play { card: CardId(((id - PLAY) as usize % CARDS) as u8), mode: MODES[k] }
        }
        _ if id < DISCARD => Move::Headline(card(HEADLINE)),
        _ if id < TAKE => Move::Discard(card(DISCARD)),
        _ if id < CANCEL => Move::Take(card(TAKE)),
        _ if id < INFLUENCE => Move::Cancel { card: card(CANCEL), country: None },
        _ if id < REMOVE => Move::Influence(country(INFLUENCE)),
        _ if id < COUP => Move::Remove(country(REMOVE)),
        _ if id < REALIGN => Move::Coup(country(COUP)),
        _ if id < TARGET => Move::Realign(country(REALIGN)),
        _ if id < CANCEL_AT => Move::Target(country(TARGET)),
        _ if id < CHOOSE => return None,
        _ if id < PASS => Move::Choose((id - CHOOSE) as u8),
        _ if id == PASS => Move::Pass,
        _ => return None,
    })
}

/// The decision now: whose and which kind.
pub fn frame(g: &Game) -> Option<Frame> {
    let side = g.to_move()?;
    let kind = match g.state().stack.last()? {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => 0,
        Task::HeadlineChoose { .. } => 1,
        Task::PlayCard(_) => 2,
        Task::Ops(_) => 3,
        Task::Event(_) => 4,
        Task::SpaceDiscard { .. } => 5,
        // `to_move` answers only for a decision task; an automatic one on top is never seen.
        _ => return None,
    };
    Some(Frame { seat: crate::contract::seat(side), kind })
}

/// `x / max`, at most 1: every value of the observation lies in [-1, 1].
fn frac(x: usize, max: u8) -> f32 {
    (x as f32 / max as f32).min(1.0)
}

/// `frac(x, 10)`, the same value, by a multiplication: `x / 10` in `f32` is the division the
/// map's 168 Influence values took at every decision (a division is several times a
/// multiplication's cost), and `x * 0.1` in `f64`, rounded once to `f32`, gives the same
/// `f32` for every count up to 10 (above, both are 1; every `u8` is checked in the tests).
/// In `f32`, `9 * 0.1` would round up one step.
#[inline(always)]
fn tenths(x: u8) -> f32 {
    (f64::from(x.min(10)) * 0.1) as f32
}

/// The four slots of every 4-bit pattern: `NIBBLES[n][j]` = 1 where bit `j` of `n` is set.
const NIBBLES: [[f32; 4]; 16] = {
    let mut t = [[0.0; 4]; 16];
    let mut n = 0;
    while n < 16 {
        let mut j = 0;
        while j < 4 {
            if n & (1 << j) != 0 {
                t[n][j] = 1.0;
            }
            j += 1;
        }
        n += 1;
    }
    t
};

/// One bit of a 32-bit word per slot: `BITS[j]` = `1 << j`.
const BITS: [u32; 32] = {
    let mut t = [0; 32];
    let mut j = 0;
    while j < 32 {
        t[j] = 1 << j;
        j += 1;
    }
    t
};

/// Write `plane[i]` = 1 where bit `i` of `bits` is set, else 0, for every slot of the plane
/// (bits past its end ignored). The whole plane, not a walk over the set bits: a walk's exit
/// was mispredicted once per plane (15 planes, about 16.6 mispredictions a decision:
/// docs/benchmarks-history.md, "the Python batch, margin"). 32 slots at a time, each its bit of a word
/// compared (a fixed number of slots: straight-line vector code, as wide as the processor's
/// vectors, [`wide`]), then the last few four at a time from a table of the 16 patterns.
#[inline(always)]
fn write_bits(plane: &mut [f32], bits: u128) {
    let mut words = plane.chunks_exact_mut(32);
    let mut b = bits;
    for word in &mut words {
        let w = b as u32;
        for (v, bit) in word.iter_mut().zip(BITS) {
            *v = if w & bit != 0 { 1.0 } else { 0.0 };
        }
        b >>= 32;
    }
    let mut fours = words.into_remainder().chunks_exact_mut(4);
    for four in &mut fours {
        four.copy_from_slice(&NIBBLES[(b & 15) as usize]);
        b >>= 4;
    }
    for (v, x) in fours.into_remainder().iter_mut().zip(NIBBLES[(b & 15) as usize]) {
        *v = x;
    }
}

/// The card planes (each card set of `card_bits` a plane), then the country planes: the two
/// Influence planes from `influence`, then a plane for each country set of `country_bits`.
/// Six of the observation's 6.2 KB: the stores are most of its cost.
#[inline(always)]
fn write_planes(
    cards: &mut [f32; CARD_PLANES * CARDS],
    card_bits: &[u128; CARD_PLANES],
    countries: &mut [f32; COUNTRY_PLANES * COUNTRIES],
    influence: &[[u8; 2]; COUNTRIES],
    country_bits: &[u128; COUNTRY_PLANES - 2],
) {
    for (plane, bits) in cards.chunks_exact_mut(CARDS).zip(card_bits) {
        write_bits(plane, *bits);
    }
    // Influence of each side (both planes in one pass over the map: it vectorises), then a
    // plane per set.
    let mut planes = countries.chunks_exact_mut(COUNTRIES);
    if let (Some(us), Some(ussr)) = (planes.next(), planes.next()) {
        for ((u, r), inf) in us.iter_mut().zip(ussr.iter_mut()).zip(influence) {
            *u = tenths(inf[0]);
            *r = tenths(inf[1]);
        }
    }
    for (plane, bits) in planes.zip(country_bits) {
        write_bits(plane, *bits);
    }
}

/// [`write_planes`] compiled for the processor's 256-bit vectors (AVX2) where it has them
/// (checked at run time, once per observation): the baseline x86-64 stores 16 bytes at a
/// time, half as many slots a store. The same function as the one it calls, so both paths
/// write alike (`cpu::dispatch!`, as `listing`'s `popcnt`).
mod wide {
    use super::{CARDS, CARD_PLANES, COUNTRIES, COUNTRY_PLANES};

    crate::cpu::dispatch!(
        "avx2",
        fn write_planes(
            cards: &mut [f32; CARD_PLANES * CARDS],
            card_bits: &[u128; CARD_PLANES],
            countries: &mut [f32; COUNTRY_PLANES * COUNTRIES],
            influence: &[[u8; 2]; COUNTRIES],
            country_bits: &[u128; COUNTRY_PLANES - 2]
        )
    );
}

/// Write what `me` may know into `out` (length [`OBSERVATION`]).
pub fn observe(g: &Game, me: Side, out: &mut [f32]) {
    observe_at(g, me, frame(g), out)
}

/// The frame now and the decider's observation: the frame is found once (whose decision it
/// is can take an event's question to answer).
pub fn observe_decider(g: &Game, out: &mut [f32]) -> Option<Frame> {
    let f = frame(g)?;
    observe_at(g, crate::contract::side(f.seat)?, Some(f), out);
    Some(f)
}

/// No Influence anywhere: what the Influence planes show of a map of another size than
/// [`COUNTRIES`] (the tests check the standard map's).
const NO_INFLUENCE: [[u8; 2]; COUNTRIES] = [[0; 2]; COUNTRIES];

/// Every value of the row is written once, plane by plane, in order (no `fill` first: a batch
/// writes a row of 6 KB at every decision, and the planes are written whole anyway).
fn observe_at(g: &Game, me: Side, frame: Option<Frame>, out: &mut [f32]) {
    let Some((scalars, rest)) = out.split_first_chunk_mut::<SCALARS>() else {
        // Shorter than an observation (the kernel's contract checks the length): nothing is
        // shown.
        out.fill(0.0);
        return;
    };
    let Some((cards, rest)) = rest.split_first_chunk_mut::<{ CARD_PLANES * CARDS }>() else {
        out.fill(0.0);
        return;
    };
    let Some((countries, _)) = rest.split_first_chunk_mut::<{ COUNTRY_PLANES * COUNTRIES }>() else {
        out.fill(0.0);
        return;
    };
    let st = g.state();
    let p = g.pos();
    let other = me.opponent();
    let mine = |s: Side| if s == me { 1.0 } else { 0.0 };
    let top = st.stack.last().filter(|_| frame.is_some());
    let headline_seen = |s: Side| st.headline[s.idx()].filter(|_| crate::view::headline_visible(p, s, Some(me)));

    scalars.fill(0.0);
    scalars[0] = mine(Side::Ussr);
    scalars[1] = frac(st.turn as usize, 10);
    scalars[2] = frac(st.round as usize, 8);
    scalars[3] = mine(st.phasing);
    scalars[4] = frac(st.defcon as usize, 5);
    scalars[5] = (st.vp as f32 / 20.0).clamp(-1.0, 1.0);
    scalars[6] = frac(st.mil_ops[0] as usize, 5);
    scalars[7] = frac(st.mil_ops[1] as usize, 5);
    scalars[8] = frac(st.space[0] as usize, 8);
    scalars[9] = frac(st.space[1] as usize, 8);
    scalars[10] = frac(st.space_attempts[0] as usize, 2);
    scalars[11] = frac(st.space_attempts[1] as usize, 2);
    scalars[12] = mine(st.china.holder);
    scalars[13] = if st.china.face_up { 1.0 } else { 0.0 };
    scalars[14] = frac(st.hand(Side::Us).len(), 10);
    scalars[15] = frac(st.hand(Side::Ussr).len(), 10);
    scalars[16] = frac(st.deck.len(), 110);
    scalars[17] = if st.outcome.is_some() { 1.0 } else { 0.0 };
    if let Some(f) = frame {
        scalars[18 + f.kind as usize] = 1.0;
        let decider = crate::contract::side(f.seat).unwrap_or(me);
        scalars[24] = mine(decider);
        scalars[25] = 1.0 - mine(decider);
    }
    // A headline chosen that this seat may not see yet: that it was chosen is public.
    scalars[26] = if st.headline[other.idx()].is_some() && headline_seen(other).is_none() { 1.0 } else { 0.0 };
    let mut decision_card = None;
    let mut targets = 0;
    match top {
        Some(Task::Ops(o)) => {
            scalars[27] = frac(o.spent as usize, 4);
            scalars[28] = frac(o.granted as usize, 4);
            match o.kind {
                Some(OpsKind::Influence) => scalars[29] = 1.0,
                Some(OpsKind::Realign) => scalars[30] = 1.0,
                Some(OpsKind::Coup) => scalars[31] = 1.0,
                None => {}
            }
            decision_card = o.card;
            targets = o.targets;
        }
        Some(Task::Event(e)) => {
            scalars[27] = frac(e.step as usize, 8);
            scalars[28] = frac(e.count as usize, 8);
            decision_card = Some(e.card);
        }
        Some(Task::PlayCard(pt)) => decision_card = pt.by,
        _ => {}
    }

    let one = |c: Option<CardId>| c.map_or(0, |c| 1u128.checked_shl(c.0.into()).unwrap_or(0));
    let card_planes: [u128; CARD_PLANES] = [
        st.hand(me).0,
        st.known[other.idx()].0 & st.hand(other).0,
        st.discard.0,
        st.removed.0,
        st.effects.iter().map(|e| e.card).collect::<CardSet>().0,
        st.table.0,
        st.in_play.iter().map(|x| x.card).collect::<CardSet>().0,
        one(headline_seen(me)),
        one(headline_seen(other)),
        one(decision_card),
    ];
    let influence = st.influence.first_chunk::<COUNTRIES>().unwrap_or(&NO_INFLUENCE);
    let masks = st.masks();
    wide::write_planes(cards, &card_planes, countries, influence, &[masks.control[0], masks.control[1], targets]);
    debug_assert_eq!(Map::standard().countries.len(), COUNTRIES);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_and_the_cards_fit_their_slots() {
        assert_eq!(Map::standard().countries.len(), COUNTRIES);
        // Card numbers run 1–110 (`CardSet` is a bitset over them).
        assert!(CardSet(u128::MAX >> (128 - CARDS)).iter().all(|c| card_slot(c).is_some()));
    }

    /// The ids straight from the sets are `action_id` of every move `for_each` visits.
    fn ids_agree(l: &Listing) {
        let mut visited = Vec::new();
        l.for_each(|m| visited.extend(action_id(&m)));
        let mut ids = vec![7];
        legal_ids(l, &mut ids);
        assert_eq!(ids, visited, "{l:?}");
    }

    #[test]
    fn the_legal_ids_are_the_listed_moves_ids_in_order() {
        let bits = |cs: &[u8]| cs.iter().fold(0u128, |m, c| m | 1u128 << c);
        let set = |cs: &[u8]| CardSet(bits(cs));
        let cancel = Move::Cancel { card: CardId(40), country: Some(CountryId(3)) };
        // Countries and cards past the slots (84, 127; 111, 127) have no id.
        for standing in [vec![], vec![Move::Pass, cancel, Move::Concede(crate::moves::Concession::Resign)]] {
            for allowed in [
                [bits(&[0, 3, 5, 6, 63, 64, 70, 83, 84, 127]), bits(&[5, 64, 80, 84]), bits(&[5, 7, 83, 127])],
                [bits(&[0, 1, 63, 64, 65, 83, 90]), 0, 0],
                [0, 0, bits(&[2, 64])],
                [0, 0, 0],
            ] {
                ids_agree(&Listing::Ops { allowed, standing: standing.clone() });
            }
            for pass in [false, true] {
                for allowed in [[set(&[1, 70, 111]), set(&[2, 70, 101, 127]), set(&[]), set(&[6, 64]), set(&[101, 110])], [set(&[]); 5]] {
                    ids_agree(&Listing::Cards { allowed, pass, standing: standing.clone() });
                }
            }
            let mut written = vec![Move::Headline(CardId(4)), Move::Choose(2), Move::Influence(CountryId(84))];
            written.extend(standing.clone());
            ids_agree(&Listing::Moves(written));
        }
    }

    #[test]
    fn the_planes_are_written_alike_on_every_path() {
        let card_bits: [u128; CARD_PLANES] =
            std::array::from_fn(|k| (0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128).rotate_left(13 * k as u32) | u128::from(k == 3) << 110);
        let country_bits = [u128::MAX, 0x5555_0000_ffff_1234_8421_0000_0000_0001, 1 << 83];
        let influence: [[u8; 2]; COUNTRIES] = std::array::from_fn(|i| [(i % 13) as u8, (i * 7 % 256) as u8]);
        let (mut cards, mut countries) = ([9.0; CARD_PLANES * CARDS], [9.0; COUNTRY_PLANES * COUNTRIES]);
        wide::write_planes(&mut cards, &card_bits, &mut countries, &influence, &country_bits);
        // Slot by slot, as read from the sets.
        for (k, bits) in card_bits.iter().enumerate() {
            for i in 0..CARDS {
                assert_eq!(cards[k * CARDS + i], (bits >> i & 1) as f32, "card plane {k}, slot {i}");
            }
        }
        for (i, inf) in influence.iter().enumerate() {
            assert_eq!(countries[i], frac(inf[0] as usize, 10));
            assert_eq!(countries[COUNTRIES + i], frac(inf[1] as usize, 10));
        }
        for (k, bits) in country_bits.iter().enumerate() {
            for i in 0..COUNTRIES {
                assert_eq!(countries[(2 + k) * COUNTRIES + i], (bits >> i & 1) as f32, "country plane {k}, slot {i}");
            }
        }
        // The baseline path writes the same.
        let (mut cards2, mut countries2) = ([9.0; CARD_PLANES * CARDS], [9.0; COUNTRY_PLANES * COUNTRIES]);
        write_planes(&mut cards2, &card_bits, &mut countries2, &influence, &country_bits);
        assert_eq!((cards, countries), (cards2, countries2));
    }

    #[test]
    fn tenths_are_the_fractions_of_ten() {
        for x in 0..=u8::MAX {
            assert_eq!(tenths(x).to_bits(), frac(x as usize, 10).to_bits(), "{x}");
        }
    }

    #[test]
    fn every_id_below_the_size_is_one_block_and_back() {
        for id in 0..ACTIONS {
            match fixed_move(id) {
                Some(m) => assert_eq!(action_id(&m), Some(id), "{m:?}"),
                None => assert!((CANCEL_AT..CHOOSE).contains(&id), "{id}"),
            }
        }
        assert_eq!(fixed_move(ACTIONS), None);
        let at = Move::Cancel { card: CardId(40), country: Some(CountryId(3)) };
        assert_eq!(action_id(&at), Some(CANCEL_AT + 3));
    }

    #[test]
    fn numbers_outside_the_cards_the_map_or_the_options_have_no_id() {
        let (card, country) = (CardId(CARDS as u8), CountryId(COUNTRIES as u8));
        for m in [
            Move::Play { card, mode: PlayMode::Space },
            Move::Headline(card),
            Move::Discard(card),
            Move::Take(card),
            Move::Cancel { card, country: None },
            Move::Cancel { card: CardId(40), country: Some(country) },
            Move::Influence(country),
            Move::Remove(country),
            Move::Coup(country),
            Move::Realign(country),
            Move::Target(country),
            Move::Choose(CHOICES as u8),
            Move::Concede(crate::moves::Concession::Resign),
            Move::Concede(crate::moves::Concession::Time),
        ] {
            assert_eq!(action_id(&m), None, "{m:?}");
        }
        // The last slot of each block is still inside it.
        assert_eq!(action_id(&Move::Target(CountryId(COUNTRIES as u8 - 1))), Some(CANCEL_AT - 1));
        assert_eq!(action_id(&Move::Choose(CHOICES as u8 - 1)), Some(PASS - 1));
    }
}
