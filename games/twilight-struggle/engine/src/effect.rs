//! Lasting effects (§7.3) are plain data: which card, whose, until when, one parameter. Their
//! behaviour lives with the card's event in the registry, keyed by card id, so a state holding
//! effects can be saved, loaded, hashed and replayed.

use crate::card::CardId;
use crate::side::Side;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Expiry {
    /// "For the rest of the turn": removed in the end-of-turn phase.
    EndOfTurn,
    /// Stays until an event or rule removes it.
    Permanent,
    /// Until `side`'s next action round begins.
    UntilRoundOf(Side),
    /// Until the effect has been used (its own reaction ends it: Shuttle Diplomacy).
    UntilUsed,
}

impl Expiry {
    pub fn text(self) -> String {
        match self {
            Expiry::EndOfTurn => "until the end of the turn".into(),
            Expiry::Permanent => "for the rest of the game".into(),
            Expiry::UntilRoundOf(s) => format!("until the {s}'s next action round"),
            Expiry::UntilUsed => "until used".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Effect {
    pub card: CardId,
    /// The side whose event created it.
    pub owner: Side,
    pub expiry: Expiry,
    /// One card-defined parameter (e.g. NORAD: DEFCON reached 2 this action round).
    pub param: i16,
    /// The card stays in front of its owner while the effect lives (not in the discard pile)
    /// and is discarded when the effect ends (Shuttle Diplomacy).
    pub keeps_card: bool,
}

impl Effect {
    pub fn new(card: CardId, owner: Side, expiry: Expiry) -> Effect {
        Effect { card, owner, expiry, param: 0, keeps_card: false }
    }
    pub fn keeping_card(self) -> Effect {
        Effect { keeps_card: true, ..self }
    }
}
