//! Instructions: the only way the state changes. Each is small, applied by
//! [`crate::ctx::Ctx::exec`], logged, and may emit [`DomainEvent`]s that lasting effects react to.

use crate::card::{CardId, CardSet};
use crate::effect::Effect;
use crate::map::CountryId;
use crate::moves::PlayMode;
use crate::side::Side;
use crate::state::{Outcome, Pile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    AddInfluence {
        side: Side,
        country: CountryId,
        n: u8,
    },
    /// Removes up to `n` (never below 0).
    RemoveInfluence {
        side: Side,
        country: CountryId,
        n: u8,
    },
    /// Move DEFCON by `delta`, kept within 1..=5 (§8.1.1).
    ChangeDefcon(i8),
    SetDefcon(u8),
    /// VP to one side (§10.2).
    Vp {
        side: Side,
        n: u8,
    },
    /// Net VP change (positive favours the US), for netted scores (§10.2.3).
    VpNet(i32),
    MilOps {
        side: Side,
        n: u8,
    },
    ResetMilOps,
    /// Advance `boxes` space race boxes (not an attempt); only the box reached gives its VP
    /// (§6.4.3; One Small Step: "VP only for the final space").
    SpaceAdvance {
        side: Side,
        boxes: u8,
    },
    SpaceAttempt {
        side: Side,
    },
    /// Move a card from wherever it is to `to` (never the China Card).
    MoveCard {
        card: CardId,
        to: Pile,
    },
    /// Move a card openly into `side`'s hand: both sides saw it go there, so it is known to
    /// the opponent while it stays (Missile Envy given away, SALT's card from the discards).
    GiveOpenly {
        card: CardId,
        side: Side,
    },
    PassChina {
        to: Side,
        face_up: bool,
    },
    AddEffect(Effect),
    RemoveEffect(CardId),
    SetEffectMemo {
        card: CardId,
        memo: crate::effect::Memo,
    },
    EndGame(Outcome),
    /// Show `cards` of `whose` to the opponent: in the public log, or to the opponent alone.
    /// Cards still in the hand stay known to the opponent until they leave it.
    Reveal {
        whose: Side,
        cards: CardSet,
        public: bool,
    },
}

/// Things that happened, for lasting effects to react to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DomainEvent {
    DefconChanged {
        from: u8,
        to: u8,
    },
    /// Declared, before the die is rolled (Cuban Missile Crisis reacts here).
    CoupAttempted {
        side: Side,
        country: CountryId,
        free: bool,
    },
    /// A card was played, in any way (event, Ops, space race): in an action round, as a
    /// card play an event asks for, or as a headline (`headline`, always `PlayMode::Event`).
    CardPlayed {
        side: Side,
        card: CardId,
        mode: PlayMode,
        headline: bool,
    },
    /// A card's event took place, for `side`.
    EventResolved {
        side: Side,
        card: CardId,
    },
    RoundEnded {
        side: Side,
    },
    /// A card entered `side`'s hand: drawn, or moved there from anywhere else (taken, returned,
    /// given).
    CardToHand {
        side: Side,
        card: CardId,
    },
    /// A region was scored (by its card or at final scoring).
    RegionScored {
        region: crate::map::Region,
        final_scoring: bool,
    },
}
