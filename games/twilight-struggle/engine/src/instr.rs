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

/// The kind of an [`Instr`], without its fields: what an effect declares it may intercept
/// ([`crate::registry::Interest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InstrKind {
    AddInfluence,
    RemoveInfluence,
    ChangeDefcon,
    SetDefcon,
    Vp,
    VpNet,
    MilOps,
    ResetMilOps,
    SpaceAdvance,
    SpaceAttempt,
    MoveCard,
    GiveOpenly,
    PassChina,
    AddEffect,
    RemoveEffect,
    SetEffectMemo,
    EndGame,
    Reveal,
}

impl InstrKind {
    /// How many kinds there are (`Reveal` is the last).
    pub const COUNT: u32 = InstrKind::Reveal as u32 + 1;
}

impl Instr {
    pub fn kind(&self) -> InstrKind {
        match self {
            Instr::AddInfluence { .. } => InstrKind::AddInfluence,
            Instr::RemoveInfluence { .. } => InstrKind::RemoveInfluence,
            Instr::ChangeDefcon(_) => InstrKind::ChangeDefcon,
            Instr::SetDefcon(_) => InstrKind::SetDefcon,
            Instr::Vp { .. } => InstrKind::Vp,
            Instr::VpNet(_) => InstrKind::VpNet,
            Instr::MilOps { .. } => InstrKind::MilOps,
            Instr::ResetMilOps => InstrKind::ResetMilOps,
            Instr::SpaceAdvance { .. } => InstrKind::SpaceAdvance,
            Instr::SpaceAttempt { .. } => InstrKind::SpaceAttempt,
            Instr::MoveCard { .. } => InstrKind::MoveCard,
            Instr::GiveOpenly { .. } => InstrKind::GiveOpenly,
            Instr::PassChina { .. } => InstrKind::PassChina,
            Instr::AddEffect(_) => InstrKind::AddEffect,
            Instr::RemoveEffect(_) => InstrKind::RemoveEffect,
            Instr::SetEffectMemo { .. } => InstrKind::SetEffectMemo,
            Instr::EndGame(_) => InstrKind::EndGame,
            Instr::Reveal { .. } => InstrKind::Reveal,
        }
    }
}

/// The kind of a [`DomainEvent`], without its fields: what an effect declares it may react to
/// ([`crate::registry::Interest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EventKind {
    DefconChanged,
    CoupAttempted,
    CardPlayed,
    EventResolved,
    RoundEnded,
    CardToHand,
    RegionScored,
}

impl DomainEvent {
    pub fn kind(&self) -> EventKind {
        match self {
            DomainEvent::DefconChanged { .. } => EventKind::DefconChanged,
            DomainEvent::CoupAttempted { .. } => EventKind::CoupAttempted,
            DomainEvent::CardPlayed { .. } => EventKind::CardPlayed,
            DomainEvent::EventResolved { .. } => EventKind::EventResolved,
            DomainEvent::RoundEnded { .. } => EventKind::RoundEnded,
            DomainEvent::CardToHand { .. } => EventKind::CardToHand,
            DomainEvent::RegionScored { .. } => EventKind::RegionScored,
        }
    }
}
