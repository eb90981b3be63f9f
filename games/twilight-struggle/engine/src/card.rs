//! Card data (§2.2): the static facts of each card, validated at load. The events live in the
//! `arbiter-twilight-cards` crate and reach the engine through [`crate::registry::Registry`].

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A card's number (1–110), as printed on the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CardId(pub u8);

impl CardId {
    /// The China Card (§9) is a base rule, so the kernel knows its number.
    pub const CHINA: CardId = CardId(6);
    pub fn idx(self) -> usize {
        self.0 as usize
    }
    /// The citation of this card's text as a rule, "card #49", for a refusal it decides.
    pub fn cite(self) -> &'static str {
        static CITES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| (0..=u8::MAX).map(|n| format!("card #{n}")).collect());
        &CITES[self.idx()]
    }
}

/// Whose hand an event's discards come from, relative to the side it is carried out for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Whose {
    EventSide,
    Opponent,
}

impl Whose {
    pub fn side(self, event_side: Side) -> Side {
        match self {
            Whose::EventSide => event_side,
            Whose::Opponent => event_side.opponent(),
        }
    }
}

/// Cards an event makes a side discard from its hand, whichever they are (a scoring card too,
/// §5.4): what §4.5D's look-ahead counts, since the illegal act is *holding* a scoring card at
/// the end of the turn, not playing a card whose event discards it (FAQ on Five Year Plan).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandDiscards {
    pub whose: Whose,
    /// At most this many cards (255: as many as the side chooses, the whole hand).
    pub at_most: u8,
}

/// Whose event a card carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CardSide {
    #[serde(rename = "US")]
    Us,
    #[serde(rename = "USSR")]
    Ussr,
    Neutral,
}

impl CardSide {
    pub fn side(self) -> Option<Side> {
        match self {
            CardSide::Us => Some(Side::Us),
            CardSide::Ussr => Some(Side::Ussr),
            CardSide::Neutral => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Era {
    Early,
    Mid,
    Late,
}

/// The static facts of one card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardInfo {
    pub id: CardId,
    pub name: String,
    pub ops: u8,
    pub side: CardSide,
    pub era: Era,
    pub starred: bool,
    pub scoring: bool,
    pub optional: bool,
    pub lasting: bool,
    pub war: bool,
    /// May not be chosen as a headline (the China Card §9.5, UN Intervention by its text).
    #[serde(default)]
    pub no_headline: bool,
    /// The event cannot occur while one of these cards' effects is in play (Socialist
    /// Governments after The Iron Lady, Arab-Israeli War after Camp David Accords).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prevented_by: Vec<CardId>,
    /// The event needs one of these cards' effects in play (NATO: Marshall Plan or Warsaw Pact
    /// Formed, §5.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_any: Vec<CardId>,
    /// When this event takes place, these cards' effects end (Quagmire ends NORAD).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cancels: Vec<CardId>,
    /// The event discards cards from a hand, any card included (Five Year Plan, Aldrich Ames
    /// Remix, Terrorism, "Ask Not"); not discards limited to cards worth N Ops, which a scoring
    /// card never is (Blockade, Latin American Debt Crisis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_discards: Option<HandDiscards>,
}

/// A set of cards as a bitset over card numbers 1–110: cheap to copy and hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardSet(pub u128);

impl CardSet {
    /// Read in the 64-bit half that holds `c` (a 128-bit shift by a variable amount takes
    /// several instructions and a branch; this is asked throughout listing). Card numbers are
    /// 1–110 (`CardDb::parse` refuses others).
    #[inline]
    pub fn contains(self, c: CardId) -> bool {
        let half = if c.0 < 64 { self.0 as u64 } else { (self.0 >> 64) as u64 };
        (half >> (c.0 & 63)) & 1 != 0
    }
    pub fn insert(&mut self, c: CardId) {
        self.0 |= 1u128 << c.0;
    }
    pub fn remove(&mut self, c: CardId) -> bool {
        let had = self.contains(c);
        self.0 &= !(1u128 << c.0);
        had
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Cards in ascending number order.
    pub fn iter(self) -> impl Iterator<Item = CardId> {
        crate::bits::set_bits(self.0).map(CardId)
    }
    /// The `n`-th card in ascending order.
    pub fn nth(self, n: usize) -> Option<CardId> {
        self.iter().nth(n)
    }
}

impl FromIterator<CardId> for CardSet {
    fn from_iter<I: IntoIterator<Item = CardId>>(it: I) -> Self {
        let mut s = CardSet::default();
        for c in it {
            s.insert(c);
        }
        s
    }
}

/// Errors in card data.
#[derive(Debug, thiserror::Error)]
#[error("card data: {0}")]
pub struct CardDataError(pub String);

/// All 110 cards, indexed by number.
#[derive(Debug, Clone)]
pub struct CardDb {
    cards: Vec<Option<CardInfo>>,
    /// The scoring cards, and each side's event cards ([US, USSR]), as sets (derived once).
    scoring: CardSet,
    events_of: [CardSet; 2],
    /// The cards of each printed Ops value, 0–4 (derived once).
    by_ops: [CardSet; 5],
}

#[derive(Deserialize)]
struct RawCards {
    cards: Vec<CardInfo>,
}

impl CardDb {
    /// Parse and validate the card list against the rulebook's counts (§2.2, §4.1): 110 cards,
    /// eras 39/48/23, 7 optional (104–110), 7 scoring, 5 wars, 70 starred, sides 42/40/28.
    pub fn parse(json: &str) -> Result<CardDb, CardDataError> {
        let raw: RawCards = serde_json::from_str(json).map_err(|e| CardDataError(e.to_string()))?;
        let mut cards: Vec<Option<CardInfo>> = vec![None; 111];
        for c in raw.cards {
            let i = c.id.idx();
            if !(1..=110).contains(&i) {
                return Err(CardDataError(format!("card number {i} out of range 1-110")));
            }
            if cards[i].is_some() {
                return Err(CardDataError(format!("card number {i} listed twice")));
            }
            cards[i] = Some(c);
        }
        let set = |f: &dyn Fn(&CardInfo) -> bool| cards.iter().flatten().filter(|c| f(c)).map(|c| c.id).collect::<CardSet>();
        let scoring = set(&|c| c.scoring);
        let events_of = [set(&|c| c.side == CardSide::Us), set(&|c| c.side == CardSide::Ussr)];
        let by_ops = [0u8, 1, 2, 3, 4].map(|n| set(&|c| c.ops == n));
        let db = CardDb { cards, scoring, events_of, by_ops };
        db.validate()?;
        Ok(db)
    }

    fn validate(&self) -> Result<(), CardDataError> {
        let all: Vec<&CardInfo> = self.cards.iter().flatten().collect();
        let count = |f: &dyn Fn(&CardInfo) -> bool| all.iter().filter(|c| f(c)).count();
        let checks: [(&str, usize, usize); 13] = [
            ("cards", all.len(), 110),
            ("Early War cards", count(&|c| c.era == Era::Early), 39),
            ("Mid War cards", count(&|c| c.era == Era::Mid), 48),
            ("Late War cards", count(&|c| c.era == Era::Late), 23),
            ("optional cards", count(&|c| c.optional), 7),
            ("scoring cards", count(&|c| c.scoring), 7),
            ("war cards", count(&|c| c.war), 5),
            ("starred cards", count(&|c| c.starred), 70),
            ("US cards", count(&|c| c.side == CardSide::Us), 42),
            ("USSR cards", count(&|c| c.side == CardSide::Ussr), 40),
            ("Neutral cards", count(&|c| c.side == CardSide::Neutral), 28),
            ("scoring cards with ops", count(&|c| c.scoring && c.ops != 0), 0),
            ("cards of more than 4 Ops", count(&|c| c.ops > 4), 0),
        ];
        for (what, got, want) in checks {
            if got != want {
                return Err(CardDataError(format!("{what}: {got}, expected {want}")));
            }
        }
        if count(&|c| c.optional && !(104..=110).contains(&c.id.0)) != 0 {
            return Err(CardDataError("optional cards must be 104-110".into()));
        }
        for c in &all {
            for x in c.prevented_by.iter().chain(&c.requires_any).chain(&c.cancels) {
                if self.get(*x).is_none() || *x == c.id {
                    return Err(CardDataError(format!(
                        "{}: prevented_by/requires_any/cancels names card {} (no such other card)",
                        c.name, x.0
                    )));
                }
            }
        }
        if self.get(CardId::CHINA).map(|c| c.name.as_str()) != Some("The China Card") {
            return Err(CardDataError("card 6 must be The China Card".into()));
        }
        Ok(())
    }

    pub fn get(&self, id: CardId) -> Option<&CardInfo> {
        self.cards.get(id.idx()).and_then(|c| c.as_ref())
    }
    /// Info of a card known to exist (every id the engine creates comes from this table).
    /// The scoring cards.
    pub fn scoring_cards(&self) -> CardSet {
        self.scoring
    }
    /// The cards carrying `side`'s event.
    pub fn events_of(&self, side: Side) -> CardSet {
        self.events_of[side.idx()]
    }
    /// The cards of each printed Ops value, 0 to 4 (every card is in one).
    pub fn by_ops(&self) -> &[CardSet; 5] {
        &self.by_ops
    }
    pub fn info(&self, id: CardId) -> &CardInfo {
        self.get(id).unwrap_or_else(|| panic!("no card {}", id.0))
    }
    pub fn name(&self, id: CardId) -> &str {
        &self.info(id).name
    }
    pub fn all(&self) -> impl Iterator<Item = &CardInfo> {
        self.cards.iter().flatten()
    }
    /// The draw-deck cards of an era (§4.1, §4.4): never the China Card; optional cards only
    /// when the game uses them.
    pub fn era_deck(&self, era: Era, optional: bool) -> Vec<CardId> {
        self.all().filter(|c| c.era == era && c.id != CardId::CHINA && (optional || !c.optional)).map(|c| c.id).collect()
    }
    /// Exact (case-insensitive) lookup by name.
    pub fn by_name(&self, name: &str) -> Option<CardId> {
        self.all().find(|c| c.name.eq_ignore_ascii_case(name.trim())).map(|c| c.id)
    }
    /// The id of a card the program itself names.
    pub fn id(&self, name: &str) -> CardId {
        self.by_name(name).unwrap_or_else(|| panic!("no card named {name:?}"))
    }
}

impl fmt::Display for CardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_set_holds_the_cards_inserted_in_either_half() {
        let ids = [0u8, 1, 6, 63, 64, 65, 100, 110, 127];
        for (i, &a) in ids.iter().enumerate() {
            let mut s = CardSet::default();
            s.insert(CardId(a));
            s.insert(CardId(ids[(i + 3) % ids.len()]));
            for c in 0..128u8 {
                let expected = c == a || c == ids[(i + 3) % ids.len()];
                assert_eq!(s.contains(CardId(c)), expected, "card {c} in {:?}", s.iter().collect::<Vec<_>>());
            }
        }
    }
}
