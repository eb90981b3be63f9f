//! Lasting effects (§7.3) are plain data: which card, whose, until when, what it remembers.
//! Their behaviour lives with the card's event in the registry, keyed by card id, so a state
//! holding effects can be saved, loaded, hashed and replayed. Each card also declares the
//! [`Shape`] its effect enters play with, which positions built by hand (fixtures) are held to.

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

/// What a card's effect can remember: which [`Memo`]s it holds, in the game's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remembers {
    /// Nothing.
    Nothing,
    /// A flag, set while the effect waits on something (`what`, in words) that happened in the
    /// action round under way. With `from_headline`, the headline can set it too, so that the
    /// first action round may begin with it set (NORAD: DEFCON moved to 2 in the headline).
    Flag { what: &'static str, from_headline: bool },
    /// A region, named when the event takes place: never without one (Chernobyl).
    Region,
    /// A country, chosen during a scoring and used by that scoring: nothing between two
    /// decisions (Shuttle Diplomacy).
    Country,
    /// The turn the event took place: never without one (North Sea Oil).
    Turn,
}

impl Remembers {
    /// May an effect of this kind hold `memo`?
    pub fn holds(self, memo: Memo) -> bool {
        matches!(
            (self, memo),
            (Remembers::Nothing | Remembers::Flag { .. } | Remembers::Country, Memo::Nothing)
                | (Remembers::Flag { .. }, Memo::Flag)
                | (Remembers::Region, Memo::Region(_))
                | (Remembers::Country, Memo::Country(_))
                | (Remembers::Turn, Memo::Turn(_))
        )
    }
}

/// Where an effect's card is while the effect lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardPlace {
    /// Played for its event: removed from the game if starred (§4.3), else discarded.
    Played,
    /// In front of its owner, discarded when the effect ends (Shuttle Diplomacy).
    InFront,
    /// Given to the owner's opponent, who must play it (Missile Envy); it may leave that hand
    /// before a round of the opponent ends the effect, but never returns to the owner's.
    OpponentsHand,
}

impl CardPlace {
    /// May an effect of this place be in play with its card in `pile`, its card `starred` and
    /// the effect `owner`'s? A starred card played for its event is removed (§4.3); an
    /// unstarred one is discarded, and may come back to the deck and a hand by a reshuffle
    /// during the turn (§4.3), never removed; a card kept in front is on the table; a card
    /// given to the opponent is never back in its owner's hand. Each also while the card is
    /// being played.
    pub fn allows(self, pile: crate::state::Pile, starred: bool, owner: crate::side::Side) -> bool {
        use crate::state::Pile;
        match self {
            CardPlace::Played if starred => matches!(pile, Pile::Removed | Pile::InPlay),
            CardPlace::Played => pile != Pile::Removed,
            CardPlace::InFront => matches!(pile, Pile::Table | Pile::InPlay),
            CardPlace::OpponentsHand => pile != Pile::Removed && pile != Pile::Hand(owner),
        }
    }
}

/// How a card's effect enters play: how long it lasts, what it remembers, where its card is
/// meanwhile. Declared by the card (`Lasting::shape`); the declaration check holds every
/// effect added to its card's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub expiry: Expiry,
    pub remembers: Remembers,
    pub card: CardPlace,
}

impl Shape {
    /// The usual shape (§7.3): for the rest of the game if the event is underlined (`lasting`),
    /// else for the rest of the turn; remembering nothing; the card played.
    pub fn usual(lasting: bool) -> Shape {
        Shape {
            expiry: if lasting { Expiry::Permanent } else { Expiry::EndOfTurn },
            remembers: Remembers::Nothing,
            card: CardPlace::Played,
        }
    }
    /// Does `e` have this shape?
    pub fn fits(&self, e: &Effect) -> bool {
        e.expiry == self.expiry && self.remembers.holds(e.memo) && e.keeps_card == (self.card == CardPlace::InFront)
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
