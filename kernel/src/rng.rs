//! The one source of randomness. Either seeded (ChaCha8, reproducible from the seed) or scripted
//! (fixed dice and picks, for tests and fixtures). Every outcome is reported in the move's
//! report so the log shows it and a replay can check it.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Randomness {
    Seeded(ChaCha8Rng),
    /// Dice and picks come from these queues in order. Shuffles leave piles in their current
    /// order, so a scripted game controls the deck by its listed order.
    Scripted {
        dice: VecDeque<u8>,
        picks: VecDeque<u8>,
    },
}

/// Scripted randomness ran out: the position needed a random outcome that was not scripted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {0} was needed but none is scripted")]
pub struct Exhausted(pub &'static str);

impl Randomness {
    pub fn seeded(seed: u64) -> Randomness {
        Randomness::Seeded(ChaCha8Rng::seed_from_u64(seed))
    }
    pub fn scripted(dice: impl IntoIterator<Item = u8>) -> Randomness {
        Randomness::Scripted { dice: dice.into_iter().collect(), picks: VecDeque::new() }
    }
    #[inline]
    pub fn is_scripted(&self) -> bool {
        matches!(self, Randomness::Scripted { .. })
    }

    /// One six-sided die.
    #[inline]
    pub fn die(&mut self) -> Result<u8, Exhausted> {
        match self {
            Randomness::Seeded(r) => Ok(r.random_range(1..=6)),
            Randomness::Scripted { dice, .. } => dice.pop_front().ok_or(Exhausted("die roll")),
        }
    }

    /// A uniformly random index below `n` (random discards and draws).
    #[inline]
    pub fn pick(&mut self, n: usize) -> Result<usize, Exhausted> {
        match self {
            Randomness::Seeded(r) => Ok(r.random_range(0..n)),
            Randomness::Scripted { picks, .. } => match picks.pop_front() {
                Some(p) if (p as usize) < n => Ok(p as usize),
                _ => Err(Exhausted("random pick")),
            },
        }
    }

    /// Fisher–Yates shuffle; a scripted source leaves the order as it is.
    #[inline]
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        if let Randomness::Seeded(r) = self {
            for i in (1..v.len()).rev() {
                let j = r.random_range(0..=i);
                v.swap(i, j);
            }
        }
    }

    /// A new seeded source drawn from this one (a search's sample of the dice to come). A
    /// scripted source gives the source seeded 0: a script holds no randomness to draw from.
    pub fn split(&mut self) -> Randomness {
        match self {
            Randomness::Seeded(r) => Randomness::seeded(r.random()),
            Randomness::Scripted { .. } => Randomness::seeded(0),
        }
    }

    /// Unused scripted outcomes (a strict fixture fails if any are left).
    pub fn leftover(&self) -> (usize, usize) {
        match self {
            Randomness::Seeded(_) => (0, 0),
            Randomness::Scripted { dice, picks } => (dice.len(), picks.len()),
        }
    }
}

impl PartialEq for Randomness {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Randomness::Seeded(a), Randomness::Seeded(b)) => a == b,
            (Randomness::Scripted { dice: a, picks: p }, Randomness::Scripted { dice: b, picks: q }) => a == b && p == q,
            _ => false,
        }
    }
}
impl Eq for Randomness {}

impl Hash for Randomness {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self {
            Randomness::Seeded(r) => {
                0u8.hash(h);
                r.get_seed().hash(h);
                r.get_stream().hash(h);
                r.get_word_pos().hash(h);
            }
            Randomness::Scripted { dice, picks } => {
                1u8.hash(h);
                dice.hash(h);
                picks.hash(h);
            }
        }
    }
}
