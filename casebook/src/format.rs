//! The fixture file format (JSON). Unknown fields are errors, so a typo never passes silently.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A number as written in the file: any JSON number. Every count, level and index a fixture
/// sets is read as one, so that a value outside the game's range (Influence 300, DEFCON -1,
/// VP 1000) reaches [`build`](crate::build), which refuses it with an error naming the field and
/// the range, instead of failing the parse with only a line and column (or wrapping). `build`
/// converts it to the engine's type only after the range check, never with a cast.
pub type Number = serde_json::Number;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Stable id, grouped by rules section, e.g. "COUP-001".
    pub id: String,
    pub title: String,
    /// Rule sections tested, e.g. ["§6.3"].
    pub rules: Vec<String>,
    /// A disputed point and the interpretation chosen.
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub setup: Setup,
    /// Die rolls, in the order they are needed (1-6).
    #[serde(default)]
    pub dice: Vec<Number>,
    /// Random picks (index into the hand in card-number order), in order (0-109).
    #[serde(default)]
    pub picks: Vec<Number>,
    #[serde(default)]
    pub steps: Vec<Step>,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// An empty board: no Influence, no cards anywhere unless listed.
    #[default]
    Empty,
    /// The standard start (§3): fixed Influence, the Early War deck, later decks in reserve.
    Standard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum At {
    Setup,
    TurnStart,
    Headline,
    ActionRound,
    EndOfTurn,
    FinalScoring,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerSide<T> {
    pub us: T,
    pub ussr: T,
}

/// An effect in play, with what it remembers in the game's words: each card takes the fields
/// of what it remembers (`Lasting::shape`) and no other.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectSpec {
    pub card: String,
    pub owner: String,
    /// How long it lasts ("turn", "permanent", "used"): the card's own, which is the default.
    #[serde(default)]
    pub until: Option<String>,
    /// The region named (Chernobyl).
    #[serde(default)]
    pub region: Option<String>,
    /// The turn the event took place (North Sea Oil).
    #[serde(default)]
    pub turn: Option<Number>,
    /// Whether the effect's flag is set (NORAD, "We Will Bury You"); default not.
    #[serde(default)]
    pub flag: Option<bool>,
    /// The battleground chosen during a scoring (Shuttle Diplomacy): never set between
    /// decisions, so always refused; read to say so.
    #[serde(default)]
    pub country: Option<String>,
    /// The number an effect's memory was once written as: refused, naming the fields above.
    #[serde(default)]
    pub param: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChinaSpec {
    pub holder: String,
    pub face_up: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionsSpec {
    #[serde(default)]
    pub optional_cards: bool,
    /// Extra US Influence placed at setup (0-20); default 0.
    #[serde(default)]
    pub us_bonus: Option<Number>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    #[serde(default)]
    pub start: Start,
    /// Where play begins; default `setup` for the standard start, `action_round` otherwise.
    #[serde(default)]
    pub at: Option<At>,
    /// 1-10.
    pub turn: Option<Number>,
    /// 1-8.
    pub action_round: Option<Number>,
    pub phasing: Option<String>,
    /// 1-5.
    pub defcon: Option<Number>,
    /// -19 to 19, positive favours the US.
    pub vp: Option<Number>,
    /// 0-5 each.
    pub military_ops: Option<PerSide<Number>>,
    /// 0-8 each.
    pub space_race: Option<PerSide<Number>>,
    /// Who reached each box first, box 1 first ("us", "ussr" or null); by default the side
    /// further along (the USSR if level).
    pub space_first: Option<Vec<Option<String>>>,
    /// 0-2 each.
    pub space_attempts: Option<PerSide<Number>>,
    /// Influence per country (0-99 each side); listed countries are set, others keep their
    /// start value.
    #[serde(default)]
    pub influence: BTreeMap<String, PerSide<Number>>,
    pub hands: Option<PerSide<Vec<String>>>,
    /// The draw pile, top card first.
    pub deck: Option<Vec<String>>,
    pub discard: Option<Vec<String>>,
    pub removed: Option<Vec<String>>,
    #[serde(default)]
    pub effects: Vec<EffectSpec>,
    pub china_card: Option<ChinaSpec>,
    pub options: Option<OptionsSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub side: String,
    #[serde(rename = "move")]
    pub mv: String,
    /// Expect a rejection whose message contains this text.
    #[serde(default)]
    pub reject: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// A subset of the state JSON (`arbiter state --json` as an observer, plus `hands` and
    /// `deck`).
    #[serde(default)]
    pub state: Option<serde_json::Value>,
    /// Texts that must appear in the log of the steps (all audiences).
    #[serde(default)]
    pub log: Vec<String>,
    /// Texts that must not appear.
    #[serde(default)]
    pub log_absent: Vec<String>,
    /// Moves that must be (or must not be) among the legal moves at the end.
    #[serde(default)]
    pub legal: Vec<String>,
    #[serde(default)]
    pub illegal: Vec<String>,
    /// The case ends on purpose in the middle of a card play (an Ops or event decision still
    /// pending), e.g. to look at the legal moves there. Without it, that fails the case.
    #[serde(default)]
    pub pending: bool,
}
