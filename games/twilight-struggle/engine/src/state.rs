//! The game state: plain data, cheap to clone, hashable, serialisable. It changes only through
//! [`crate::instr::Instr`] (applied by [`crate::ctx::Ctx`]).

use crate::card::{CardId, CardSet};
use crate::effect::Effect;
use crate::map::{CountryId, Map};
use crate::rng::Randomness;
use crate::side::Side;
use crate::task::Task;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Game options chosen at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    /// Use the 7 optional cards (104–110).
    pub optional_cards: bool,
    /// Extra US Influence after setup (a convention, not a Deluxe rule; 0 = off). Placed only
    /// where the US already has Influence.
    pub us_bonus: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options { optional_cards: false, us_bonus: 2 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct China {
    pub holder: Side,
    pub face_up: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// A side reached 20 VP (§10.3.1).
    VictoryPoints,
    /// DEFCON reached 1: the phasing player loses (§8.1.3).
    Defcon1,
    /// A side controlled Europe when it was scored (§10.3.1).
    EuropeControl,
    /// Final scoring after turn 10 (§10.3.2).
    FinalScoring,
    /// A scoring card was held at the end of a turn (§11.1.2).
    HeldScoringCard,
    /// A coup under the opponent's Cuban Missile Crisis (card text).
    CubanMissileCrisis,
    /// Wargames ended the game (card text).
    Wargames,
    /// A side resigned.
    Resigned,
    /// A side's chess clock ran out (a game option of the server, not a rule of the game).
    Time,
}

impl EndReason {
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::VictoryPoints => "20 VP reached (§10.3.1)",
            EndReason::Defcon1 => "DEFCON 1: the phasing player loses (§8.1.3)",
            EndReason::EuropeControl => "control of Europe when Europe was scored (§10.3.1)",
            EndReason::FinalScoring => "final scoring after turn 10 (§10.3.2)",
            EndReason::HeldScoringCard => "a scoring card was held at the end of the turn (§11.1.2)",
            EndReason::CubanMissileCrisis => "a coup under the opponent's Cuban Missile Crisis (card text)",
            EndReason::Wargames => "Wargames (card text)",
            EndReason::Resigned => "the other side resigned",
            EndReason::Time => "the other side ran out of time on the chess clock",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` is a draw.
    pub winner: Option<Side>,
    pub reason: EndReason,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(w) => write!(f, "{w} wins: {}", self.reason.describe()),
            None => write!(f, "draw: {}", self.reason.describe()),
        }
    }
}

/// A card being resolved: played this action round (or headline), or taken into play by an
/// event. It stays here until disposed of, unless its event already moved it (§5, card disposal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InPlay {
    pub card: CardId,
    /// Who played it.
    pub side: Side,
    /// Its event was carried out (a starred card is then removed, not discarded).
    pub event_fired: bool,
}

/// Data derived from the rest of the state (a cache): it takes no part in equality or hashing,
/// so a state's identity is the game, not its caches.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Derived<T>(pub T);

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for Derived<T> {}
impl<T> std::hash::Hash for Derived<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// Presence and control of both sides, [US, USSR], as country bitmasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InfluenceMasks {
    pub presence: [u128; 2],
    pub control: [u128; 2],
}

/// Where a card is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pile {
    Deck,
    Hand(Side),
    Discard,
    Removed,
    /// Later-era cards not yet shuffled in (§4.4).
    Reserve,
    Headline(Side),
    InPlay,
    /// In front of its owner while its lasting effect lives (Shuttle Diplomacy).
    Table,
    ChinaHolder,
    /// An optional card in a game without optional cards.
    OutOfGame,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    pub options: Options,
    pub turn: u8,
    /// 0 during setup and the headline phase, then 1..=8.
    pub round: u8,
    pub phasing: Side,
    pub defcon: u8,
    /// Positive favours the US (§10.2).
    pub vp: i8,
    /// Influence per country: [US, USSR].
    pub influence: Vec<[u8; 2]>,
    /// Presence and control masks derived from `influence`, kept up to date by `Ctx` (the only
    /// writer of Influence during play) and refreshed by `Game::from_state` for positions built
    /// by hand. The invariant checks compare it with `compute_masks` after every move.
    pub masks_cache: Derived<InfluenceMasks>,
    pub mil_ops: [u8; 2],
    /// Space race box reached (0 = off the track, 8 = Space Station).
    pub space: [u8; 2],
    pub space_attempts: [u8; 2],
    /// Who reached each box first (abilities belong to the first arriver, §6.4.4).
    pub space_first: [Option<Side>; 8],
    pub china: China,
    pub hands: [CardSet; 2],
    /// Draw pile, top card last.
    pub deck: Vec<CardId>,
    pub discard: CardSet,
    pub removed: CardSet,
    pub reserve: CardSet,
    pub headline: [Option<CardId>; 2],
    pub in_play: Vec<InPlay>,
    pub effects: Vec<Effect>,
    /// Counts the changes to `effects` (added, removed, memo set: `Ctx::apply`, their only
    /// writer; `Game::from_state` too, for positions built by hand), so that values folded from
    /// the effects can be kept while it stays (`task::KeptValues`). Derived: not the game.
    pub effects_version: Derived<u32>,
    /// Cards kept in front of their owner by a live effect (`Effect::keeps_card`).
    pub table: CardSet,
    /// Cards in each side's hand that the other side has been shown (CIA Created), [US, USSR].
    /// A card leaves this set when it leaves the hand.
    pub known: [CardSet; 2],
    /// Countries where each side had Influence at the start of the action round (§6.1.1).
    pub round_start_presence: [u128; 2],
    /// The work stack: the last task is the next to run.
    pub stack: Vec<Task>,
    pub rng: Randomness,
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn inf(&self, side: Side, c: CountryId) -> u8 {
        self.influence[c.idx()][side.idx()]
    }

    /// §2.1.7: own ≥ stability and own − opponent ≥ stability.
    pub fn controls(&self, side: Side, c: CountryId) -> bool {
        let s = Map::standard().country(c).stability as i32;
        let own = self.inf(side, c) as i32;
        let opp = self.inf(side.opponent(), c) as i32;
        own >= s && own - opp >= s
    }

    pub fn controller(&self, c: CountryId) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| self.controls(*s, c))
    }

    /// Countries controlled by `side`, computed from the Influence table.
    pub fn controlled(&self, side: Side) -> u128 {
        self.compute_masks().control[side.idx()]
    }

    /// Presence and control masks as maintained during play (hot paths).
    pub fn masks(&self) -> InfluenceMasks {
        self.masks_cache.0
    }

    pub fn refresh_masks(&mut self) {
        self.masks_cache = Derived(self.compute_masks());
    }

    /// Update the masks for one country after its Influence changed.
    pub fn refresh_country(&mut self, c: CountryId) {
        let bit = c.bit();
        let s = Map::standard().stabilities[c.idx()] as i32;
        let [us, ussr] = self.influence[c.idx()].map(|x| x as i32);
        let m = &mut self.masks_cache.0;
        for (side, own, opp) in [(0, us, ussr), (1, ussr, us)] {
            m.presence[side] = if own > 0 { m.presence[side] | bit } else { m.presence[side] & !bit };
            m.control[side] = if own > 0 && own - opp >= s { m.control[side] | bit } else { m.control[side] & !bit };
        }
    }

    /// Presence and control of both sides as country bitmasks, in one pass (§2.1.7).
    pub fn compute_masks(&self) -> InfluenceMasks {
        let stab = &Map::standard().stabilities;
        let mut m = InfluenceMasks::default();
        for (k, (i, &s)) in self.influence.iter().zip(stab).enumerate() {
            let bit = 1u128 << k;
            let (us, ussr) = (i[0] as i32, i[1] as i32);
            let s = s as i32;
            if us > 0 {
                m.presence[0] |= bit;
                if us - ussr >= s {
                    m.control[0] |= bit;
                }
            }
            if ussr > 0 {
                m.presence[1] |= bit;
                if ussr - us >= s {
                    m.control[1] |= bit;
                }
            }
        }
        m
    }

    /// Countries holding any Influence of `side`, computed from the Influence table.
    pub fn presence(&self, side: Side) -> u128 {
        self.compute_masks().presence[side.idx()]
    }

    pub fn has_effect(&self, card: CardId) -> bool {
        self.effects.iter().any(|e| e.card == card)
    }
    pub fn effect(&self, card: CardId) -> Option<&Effect> {
        self.effects.iter().find(|e| e.card == card)
    }

    /// Cards in hand, the China Card excluded (it is never part of the hand, §9.1).
    pub fn hand(&self, side: Side) -> CardSet {
        self.hands[side.idx()]
    }

    pub fn holds_playable_china(&self, side: Side) -> bool {
        self.china.holder == side && self.china.face_up
    }

    pub fn locate(&self, c: CardId) -> Pile {
        if c == CardId::CHINA && !self.in_play.iter().any(|p| p.card == c) {
            return Pile::ChinaHolder;
        }
        for s in Side::BOTH {
            if self.hands[s.idx()].contains(c) {
                return Pile::Hand(s);
            }
            if self.headline[s.idx()] == Some(c) {
                return Pile::Headline(s);
            }
        }
        if self.deck.contains(&c) {
            Pile::Deck
        } else if self.discard.contains(c) {
            Pile::Discard
        } else if self.removed.contains(c) {
            Pile::Removed
        } else if self.reserve.contains(c) {
            Pile::Reserve
        } else if self.table.contains(c) {
            Pile::Table
        } else if self.in_play.iter().any(|p| p.card == c) {
            Pile::InPlay
        } else {
            Pile::OutOfGame
        }
    }

    /// Space race abilities belong to the first arriver until the other side arrives (§6.4.4).
    pub fn space_ability(&self, side: Side, box_: u8) -> bool {
        let i = (box_ - 1) as usize;
        self.space_first[i] == Some(side) && self.space[side.opponent().idx()] < box_
    }

    /// A stable 64-bit hash of the whole state (the kernel's FNV-1a over the derived `Hash`
    /// stream).
    pub fn hash64(&self) -> u64 {
        arbiter_kernel::stable_hash(self)
    }
}
