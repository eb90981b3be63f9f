//! A decision's legal moves as its arbitrator listed them ([`Listing`]). The two longest kinds
//! of lists, an Ops decision's and a card play's, are kept as the sets their arbitrators judged
//! (`ops::Judge::allowed`, `action_round::Judge::allowed`) and written out only when asked: a
//! random playout picks its move by index ([`Listing::get`]) and `Game::check` asks the sets
//! ([`Listing::contains`]), so most decisions of `arbiter bench` write no list at all (writing
//! them was a tenth of its instructions). Every form has one order of moves, the one
//! [`Listing::for_each`] visits, which `get` and `to_vec` follow: the form changes no game.

use crate::card::{CardId, CardSet};
use crate::map::CountryId;
use crate::moves::{Move, PlayMode};

/// The legal moves of one decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Written out (events' questions, headlines, setup, the space race discard), with the
    /// standing moves of the effects in play last.
    Moves(Vec<Move>),
    /// An Ops decision (§6): the countries open to influence, realignment and coup. In country
    /// order, and for each country influence, realign, coup; then `standing`.
    Ops { allowed: [u128; 3], standing: Vec<Move> },
    /// A card play (§5): the cards playable in each mode of [`PlayMode::ALL`]. In card number
    /// order, and for each card its modes in that order; then `pass` if open; then `standing`.
    Cards { allowed: [CardSet; 5], pass: bool, standing: Vec<Move> },
}

impl Default for Listing {
    fn default() -> Listing {
        Listing::Moves(Vec::new())
    }
}

/// The standing moves after a form's own moves.
fn standing(l: &Listing) -> &[Move] {
    match l {
        Listing::Moves(_) => &[],
        Listing::Ops { standing, .. } | Listing::Cards { standing, .. } => standing,
    }
}

impl Listing {
    /// How many moves are listed.
    pub fn len(&self) -> usize {
        let own = match self {
            Listing::Moves(v) => return v.len(),
            Listing::Ops { allowed, .. } => popcnt::count_all(allowed),
            Listing::Cards { allowed, pass, .. } => popcnt::count_all(&allowed.map(|s| s.0)) + usize::from(*pass),
        };
        own + standing(self).len()
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Listing::Moves(v) => v.is_empty(),
            Listing::Ops { allowed, standing } => allowed.iter().all(|s| *s == 0) && standing.is_empty(),
            Listing::Cards { allowed, pass, standing } => allowed.iter().all(|s| s.is_empty()) && !pass && standing.is_empty(),
        }
    }

    /// The standing moves the effects in play offer the deciding side, after the decision's own
    /// moves.
    pub fn add_standing(&mut self, moves: Vec<Move>) {
        if moves.is_empty() {
            return;
        }
        match self {
            Listing::Moves(v) => v.extend(moves),
            Listing::Ops { standing, .. } | Listing::Cards { standing, .. } => standing.extend(moves),
        }
    }

    /// The `i`-th move, without writing the others.
    pub fn get(&self, i: usize) -> Option<Move> {
        let rest = match self {
            Listing::Moves(v) => return v.get(i).copied(),
            Listing::Ops { allowed, .. } => popcnt::ops_nth(allowed, i),
            Listing::Cards { allowed, pass, .. } => popcnt::cards_nth(allowed, *pass, i),
        };
        match rest {
            Ok(m) => Some(m),
            Err(i) => standing(self).get(i).copied(),
        }
    }

    /// Is `m` listed? The sets are asked for the moves they hold, the list for the others.
    pub fn contains(&self, m: &Move) -> bool {
        // A country outside the 128 a mask holds is no country: never listed.
        let has = |set: u128, c: CountryId| 1u128.checked_shl(u32::from(c.0)).is_some_and(|b| set & b != 0);
        match (self, m) {
            (Listing::Moves(v), _) => v.contains(m),
            (Listing::Ops { allowed, .. }, Move::Influence(c)) => has(allowed[0], *c),
            (Listing::Ops { allowed, .. }, Move::Realign(c)) => has(allowed[1], *c),
            (Listing::Ops { allowed, .. }, Move::Coup(c)) => has(allowed[2], *c),
            (Listing::Cards { allowed, .. }, Move::Play { card, mode }) => card.0 < 128 && allowed[mode.index()].0 & (1u128 << card.0) != 0,
            (Listing::Cards { pass, .. }, Move::Pass) => *pass,
            (
                Listing::Ops { standing, .. },
                Move::Play { .. }
                | Move::Headline(_)
                | Move::Remove(_)
                | Move::Target(_)
                | Move::Discard(_)
                | Move::Take(_)
                | Move::Choose(_)
                | Move::Cancel { .. }
                | Move::Pass
                | Move::Concede(_),
            )
            | (
                Listing::Cards { standing, .. },
                Move::Headline(_)
                | Move::Influence(_)
                | Move::Realign(_)
                | Move::Coup(_)
                | Move::Remove(_)
                | Move::Target(_)
                | Move::Discard(_)
                | Move::Take(_)
                | Move::Choose(_)
                | Move::Cancel { .. }
                | Move::Concede(_),
            ) => standing.contains(m),
        }
    }

    /// Visit every move, in order.
    pub fn for_each(&self, mut f: impl FnMut(Move)) {
        match self {
            Listing::Moves(v) => v.iter().copied().for_each(f),
            Listing::Ops { allowed, standing } => {
                ops_for_each(allowed, &mut f);
                standing.iter().copied().for_each(f);
            }
            Listing::Cards { allowed, pass, standing } => {
                cards_for_each(allowed, *pass, &mut f);
                standing.iter().copied().for_each(f);
            }
        }
    }

    /// Every move, written out.
    pub fn to_vec(&self) -> Vec<Move> {
        if let Listing::Moves(v) = self {
            return v.clone();
        }
        let mut out = Vec::with_capacity(self.len());
        self.for_each(|m| out.push(m));
        out
    }
}

/// The word `word` (countries `64 * word ..`) of each Ops set.
fn ops_word(allowed: &[u128; 3], word: u32) -> [u64; 3] {
    allowed.map(|m| (m >> (64 * word)) as u64)
}

/// The Ops moves in order. Word by word (64 countries each): 128-bit shifts cost several
/// instructions. The countries open to a roll or a coup are few (they hold opponent Influence,
/// §6.2), and after the first Op only one activity is open (§6): between two of them the moves
/// are placements alone, visited as one run without asking the other sets.
fn ops_for_each(allowed: &[u128; 3], f: &mut impl FnMut(Move)) {
    for word in 0..2u32 {
        let [mut placements, realign, coup] = ops_word(allowed, word);
        let first = (64 * word) as u8;
        let mut rolls = realign | coup;
        while rolls != 0 {
            let bit = rolls & rolls.wrapping_neg();
            rolls &= rolls - 1;
            each_country(placements & (bit - 1), first, |c| f(Move::Influence(c)));
            let c = CountryId(first + bit.trailing_zeros() as u8);
            if placements & bit != 0 {
                f(Move::Influence(c));
            }
            if realign & bit != 0 {
                f(Move::Realign(c));
            }
            if coup & bit != 0 {
                f(Move::Coup(c));
            }
            // The placements up to this country are visited.
            placements &= !(bit | (bit - 1));
        }
        each_country(placements, first, |c| f(Move::Influence(c)));
    }
}

/// The `i`-th Ops move in [`ops_for_each`]'s order (country by country, for each influence,
/// realign, coup: [`nth_pair`]'s order), or the index left past them.
#[inline(always)]
fn ops_nth(allowed: &[u128; 3], i: usize) -> Result<Move, usize> {
    let make = |(country, set): (u32, usize)| {
        let c = CountryId(country as u8);
        [Move::Influence(c), Move::Realign(c), Move::Coup(c)][set]
    };
    if allowed[1] | allowed[2] == 0 {
        // Placements alone (after a card's first Op only one activity is open, §6): one set
        // to count instead of three.
        return nth_pair(&[allowed[0]], i).map(make);
    }
    nth_pair(allowed, i).map(make)
}

/// The `i`-th pair (bit, set) of `sets` taken in bit order and, at one bit, in set order (an
/// Ops listing's countries and activities, a card play listing's cards and modes), or the index
/// left past them. Word by word; in a word, the bit is found by halving on the number of pairs
/// below it, six steps of a fixed size whose comparisons compile to conditional moves: the
/// pick of a random playout, whose branches no predictor can learn.
#[inline(always)]
fn nth_pair<const N: usize>(sets: &[u128; N], mut i: usize) -> Result<(u32, usize), usize> {
    for word in 0..2u32 {
        let w: [u64; N] = sets.map(|s| (s >> (64 * word)) as u64);
        let total = w.iter().map(|s| count64(*s)).sum::<usize>();
        if i >= total {
            i -= total;
            continue;
        }
        // The pairs of the bits below bit `b` (`b` < 64) of this word.
        let below = |b: u32| w.iter().map(|s| count64(s & ((1u64 << b) - 1))).sum::<usize>();
        // The largest `b` with below(b) <= i: the bit holding pair `i` (below(64) = total > i).
        let mut b = 0u32;
        for step in [32, 16, 8, 4, 2, 1] {
            b += if below(b + step) <= i { step } else { 0 };
        }
        let mut k = i - below(b);
        for (n, s) in w.iter().enumerate() {
            if s >> b & 1 != 0 {
                if k == 0 {
                    return Ok((64 * word + b, n));
                }
                k -= 1;
            }
        }
        // Not reached: the halving stops at a bit holding pair `i`. Were it reached, no move
        // is found (`get` answers `None`), rather than a wrong one.
        return Err(usize::MAX);
    }
    Err(i)
}

/// The card plays in order: each card playable in some mode, its modes in [`PlayMode::ALL`]
/// order; then `pass`.
fn cards_for_each(allowed: &[CardSet; 5], pass: bool, f: &mut impl FnMut(Move)) {
    let any = allowed.iter().fold(0u128, |m, s| m | s.0);
    for card in CardSet(any).iter() {
        for mode in PlayMode::ALL {
            if allowed[mode.index()].contains(card) {
                f(Move::Play { card, mode });
            }
        }
    }
    if pass {
        f(Move::Pass);
    }
}

/// The `i`-th card play in [`cards_for_each`]'s order (card by card, for each its modes in
/// [`PlayMode::ALL`] order), or the index left past them. A hand holds a few cards: they are
/// walked, each counted at once from a mask of its modes (halving on 110 card numbers over five
/// sets, as [`nth_pair`] does for countries, costs more than the walk).
#[inline(always)]
fn cards_nth(allowed: &[CardSet; 5], pass: bool, mut i: usize) -> Result<Move, usize> {
    for word in 0..2u32 {
        let w: [u64; 5] = allowed.map(|s| (s.0 >> (64 * word)) as u64);
        let mut cards = w.iter().fold(0, |u, s| u | s);
        while cards != 0 {
            let bit = cards.trailing_zeros();
            cards &= cards - 1;
            // Bit `k` of `modes`: the card is playable in mode `k` of `PlayMode::ALL`.
            let mut modes = w.iter().enumerate().fold(0u32, |m, (k, s)| m | ((s >> bit & 1) as u32) << k);
            let n = modes.count_ones() as usize;
            if i >= n {
                i -= n;
                continue;
            }
            for _ in 0..i {
                modes &= modes - 1;
            }
            let card = CardId((64 * word + bit) as u8);
            return Ok(Move::Play { card, mode: PlayMode::ALL[modes.trailing_zeros() as usize] });
        }
    }
    match (pass, i) {
        (true, 0) => Ok(Move::Pass),
        (true, i) => Err(i - 1),
        (false, i) => Err(i),
    }
}

/// Visit each country of `set` (a word of countries from `first`) in order.
#[inline]
fn each_country(mut set: u64, first: u8, mut f: impl FnMut(CountryId)) {
    while set != 0 {
        f(CountryId(first + set.trailing_zeros() as u8));
        set &= set - 1;
    }
}

/// The number of moves the sets hold, one each.
#[inline(always)]
fn count_all(sets: &[u128]) -> usize {
    sets.iter().map(|m| count64(*m as u64) + count64((*m >> 64) as u64)).sum()
}

#[inline(always)]
fn count64(m: u64) -> usize {
    m.count_ones() as usize
}

/// Counting and taking listed moves, compiled for the processor's `popcnt` instruction where it
/// has one (checked at run time, once per call): the baseline x86-64 has none and counts the
/// bits of a word in a dozen instructions, which a playout does at every decision. Each is
/// the same function as the one it calls, so both paths answer alike.
mod popcnt {
    use super::{CardSet, Move};
    use crate::cpu::dispatch;

    dispatch!(
        "popcnt",
        /// [`super::count_all`].
        fn count_all(sets: &[u128]) -> usize
    );
    dispatch!(
        "popcnt",
        /// [`super::ops_nth`].
        fn ops_nth(allowed: &[u128; 3], i: usize) -> Result<Move, usize>
    );
    dispatch!(
        "popcnt",
        /// [`super::cards_nth`].
        fn cards_nth(allowed: &[CardSet; 5], pass: bool, i: usize) -> Result<Move, usize>
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_form_agrees(l: &Listing) {
        let v = l.to_vec();
        assert_eq!(v.len(), l.len());
        assert_eq!(l.is_empty(), v.is_empty());
        for (i, m) in v.iter().enumerate() {
            assert_eq!(l.get(i), Some(*m), "move {i}");
            assert!(l.contains(m), "{m:?} listed");
        }
        assert_eq!(l.get(v.len()), None);
    }

    #[test]
    fn an_ops_listing_numbers_its_moves_as_it_visits_them() {
        let bits = |cs: &[u8]| cs.iter().fold(0u128, |m, c| m | 1u128 << c);
        let l = Listing::Ops {
            allowed: [bits(&[0, 3, 5, 6, 63, 64, 70, 83]), bits(&[5, 64, 80]), bits(&[5, 7, 83])],
            standing: vec![Move::Pass],
        };
        every_form_agrees(&l);
        let v = l.to_vec();
        let c = |n: u8| CountryId(n);
        assert_eq!(
            v[..8],
            [
                Move::Influence(c(0)),
                Move::Influence(c(3)),
                Move::Influence(c(5)),
                Move::Realign(c(5)),
                Move::Coup(c(5)),
                Move::Influence(c(6)),
                Move::Coup(c(7)),
                Move::Influence(c(63))
            ]
        );
        assert_eq!(v.last(), Some(&Move::Pass));
        assert!(!l.contains(&Move::Influence(c(1))));
        assert!(!l.contains(&Move::Coup(c(6))));
        assert!(!l.contains(&Move::Coup(c(200))), "no such country");
        every_form_agrees(&Listing::Ops { allowed: [0; 3], standing: Vec::new() });
        // Placements alone (after a card's first Op), in both words, then a standing move.
        let placements = Listing::Ops { allowed: [bits(&[1, 2, 40, 63, 64, 65, 83]), 0, 0], standing: vec![Move::Pass] };
        every_form_agrees(&placements);
        assert_eq!(placements.get(4), Some(Move::Influence(c(64))));
        assert_eq!(placements.get(7), Some(Move::Pass));
        every_form_agrees(&Listing::Ops { allowed: [bits(&[70, 80]), 0, 0], standing: Vec::new() });
    }

    #[test]
    fn a_card_play_listing_numbers_its_moves_as_it_visits_them() {
        let set = |cs: &[u8]| CardSet(cs.iter().fold(0u128, |m, c| m | 1u128 << c));
        let l = Listing::Cards {
            allowed: [set(&[1, 70]), set(&[2, 70, 101]), set(&[]), set(&[]), set(&[101])],
            pass: true,
            standing: Vec::new(),
        };
        every_form_agrees(&l);
        let v = l.to_vec();
        assert_eq!(v[2], Move::Play { card: CardId(70), mode: PlayMode::Event });
        assert_eq!(v[3], Move::Play { card: CardId(70), mode: PlayMode::Ops });
        assert_eq!(v[5], Move::Play { card: CardId(101), mode: PlayMode::Space });
        assert_eq!(v.last(), Some(&Move::Pass));
        assert!(!l.contains(&Move::Play { card: CardId(1), mode: PlayMode::Ops }));
        assert!(!l.contains(&Move::Play { card: CardId(200), mode: PlayMode::Ops }), "no such card");
    }
}
