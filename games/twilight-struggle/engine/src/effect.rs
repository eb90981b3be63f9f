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

/// What an effect in play remembers, as its card uses it. Hashed as the number it was stored as
/// (0 for nothing, 1 for a flag, a region's index, a country's number + 1, a turn), so that the
/// state hashes of saved games hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Memo {
    #[default]
    Nothing,
    /// Something happened that the effect waits on (NORAD: DEFCON reached 2 this round; We
    /// Will Bury You: the US round under way when it began is not "the next").
    Flag,
    /// A region named (Chernobyl).
    Region(crate::map::Region),
    /// A country chosen (Shuttle Diplomacy: the battleground it ignores).
    Country(crate::map::CountryId),
    /// A turn (North Sea Oil: the turn its extra round belongs to).
    Turn(u8),
}

impl std::hash::Hash for Memo {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let n: i16 = match self {
            Memo::Nothing => 0,
            Memo::Flag => 1,
            Memo::Region(r) => crate::map::Region::ALL.iter().position(|x| x == r).unwrap_or(0) as i16,
            Memo::Country(c) => i16::from(c.0) + 1,
            Memo::Turn(t) => i16::from(*t),
        };
        n.hash(state)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Effect {
    pub card: CardId,
    /// The side whose event created it.
    pub owner: Side,
    pub expiry: Expiry,
    /// What the effect remembers (NORAD: DEFCON reached 2 this action round).
    pub memo: Memo,
    /// The card stays in front of its owner while the effect lives (not in the discard pile)
    /// and is discarded when the effect ends (Shuttle Diplomacy).
    pub keeps_card: bool,
}

impl Effect {
    pub fn new(card: CardId, owner: Side, expiry: Expiry) -> Effect {
        Effect { card, owner, expiry, memo: Memo::Nothing, keeps_card: false }
    }
    pub fn keeping_card(self) -> Effect {
        Effect { keeps_card: true, ..self }
    }
}
