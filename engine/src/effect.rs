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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Effect {
    pub card: CardId,
    /// The side whose event created it.
    pub owner: Side,
    pub expiry: Expiry,
    /// One card-defined parameter (e.g. NORAD: DEFCON reached 2 this action round).
    pub param: i16,
}
