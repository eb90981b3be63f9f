//! From a fixture's setup to a validated engine state. Every name is checked; a card listed in
//! two places, an impossible number or an unknown field is an error naming the field.
//!
//! Every number is checked against the game's range before it is converted to the engine's
//! type (see [`Ctx::num`]): no fixture can wrap a count or make the engine panic. The effects in
//! play are built by [`effects`](crate::effects), and the whole position is then held to what
//! the game can reach by [`reachable`](crate::reachable).

use crate::format::{At, Fixture, Number, PerSide, Start};
use crate::FixtureError;
use arbiter_twilight::card::{CardSet, Era};
use arbiter_twilight::flow::Task;
use arbiter_twilight::map::Map;
use arbiter_twilight::rng::Randomness;
use arbiter_twilight::state::China;
use arbiter_twilight::turn::{rest_of_turn, Stage};
use arbiter_twilight::{CardId, Options, Ruleset, Side, State};
use std::collections::BTreeMap;
use std::path::Path;

/// The range of a number a fixture sets, inclusive, and the rule (or reason) behind it.
pub(crate) type Range<'a> = (i64, i64, &'a str);

// The game's ranges, one per number a fixture can set (documented in fixtures/README.md).
const TURN: Range = (1, 10, "");
/// Round 8 exists with the Space Station or North Sea Oil.
const ACTION_ROUND: Range = (1, 8, "");
/// DEFCON 1 ends the game at once (§8.1.3): no position the game goes on from has it.
const DEFCON: Range = (2, 5, "DEFCON 1 ends the game, §8.1.3");
/// At 20 VP the game is already over.
const VP: Range = (-19, 19, "the game ends at 20, §10.3.1");
const MILITARY_OPS: Range = (0, 5, "the track, §8.2");
const SPACE_RACE: Range = (0, 8, "the track, §6.4");
/// One attempt a turn, two with Animal in Space.
const SPACE_ATTEMPTS: Range = (0, 2, "§6.4.2");
/// Influence of one side in one country. The game prints no limit; the bound is a physical one:
/// the engine's `MAX_INFLUENCE` (99), far more than the markers in the box could put in one
/// country, the value the engine saturates at, and well inside `u8`, so no addition can wrap.
const INFLUENCE: Range = (0, arbiter_twilight::ctx::MAX_INFLUENCE as i64, "the engine's limit");
const DIE: Range = (1, 6, "");
/// A scripted pick is an index into a hand, which holds fewer than the game's 110 cards.
const PICK: Range = (0, 109, "an index into a hand");
/// The US bonus option: the convention is +2; a handicap of a few more is plausible, 20 is
/// already a lot.
const US_BONUS: Range = (0, 20, "");

pub(crate) struct Ctx<'a> {
    file: &'a Path,
    pub(crate) rules: &'a Ruleset,
    pub(crate) start: Start,
    /// Where each card was listed (the field), to catch a card in two places and to name the
    /// field of a card that cannot be there.
    pub(crate) placed: BTreeMap<CardId, String>,
}

impl Ctx<'_> {
    pub(crate) fn err(&self, field: &str, message: impl Into<String>) -> FixtureError {
        FixtureError { file: self.file.into(), field: field.into(), message: message.into() }
    }
    pub(crate) fn side(&self, field: &str, s: &str) -> Result<Side, FixtureError> {
        Side::parse(s).ok_or_else(|| self.err(field, format!("{s:?} is not a side (us or ussr)")))
    }
    pub(crate) fn card(&mut self, field: &str, name: &str, place: bool) -> Result<CardId, FixtureError> {
        let c = self.rules.cards.by_name(name).ok_or_else(|| self.err(field, format!("no card named {name:?}")))?;
        if c == CardId::CHINA && place {
            return Err(self.err(field, "The China Card is never in a pile or hand: use setup.china_card"));
        }
        if place {
            if let Some(prev) = self.placed.insert(c, field.to_string()) {
                return Err(self.err(field, format!("{name} is already in {prev}: a card can be in one place only")));
            }
        }
        Ok(c)
    }
    fn cards(&mut self, field: &str, names: &[String]) -> Result<Vec<CardId>, FixtureError> {
        names.iter().map(|n| self.card(field, n, true)).collect()
    }
    /// A number of the file, checked against the game's `range` and only then converted to the
    /// engine's type `T` (by `try_from`, never a cast). Out of range, or not a whole number, it
    /// is an error naming the field: "300 is not an Influence count (0-99, why)".
    pub(crate) fn num<T: TryFrom<i64>>(&self, field: &str, n: &Number, range: Range, what: &str) -> Result<T, FixtureError> {
        let (lo, hi, why) = range;
        // A fraction, an exponent, or an integer past `u64` (which the JSON parser reads as a
        // float): only a whole number in range is let through, and only as written.
        if let Some(x) = n.as_f64().filter(|_| n.is_f64()) {
            if x.fract() != 0.0 || !x.is_finite() {
                return Err(self.err(field, format!("{n} is not a whole number")));
            }
            if (lo as f64..=hi as f64).contains(&x) {
                return Err(self.err(field, format!("{n}: write the whole number without a decimal point or exponent")));
            }
        }
        // `as_i64` is `None` past `i64::MAX`: out of every range, like a float left here.
        let v = n.as_i64().filter(|v| (lo..=hi).contains(v));
        v.and_then(|v| T::try_from(v).ok()).ok_or_else(|| {
            let span = if lo < 0 { format!("{lo} to {hi}") } else { format!("{lo}-{hi}") };
            let why = if why.is_empty() { String::new() } else { format!(", {why}") };
            self.err(field, format!("{n} is not {what} ({span}{why})"))
        })
    }
    /// Both sides' numbers of a field (`field.us`, `field.ussr`), as `[us, ussr]`.
    fn per_side<T: TryFrom<i64>>(&self, field: &str, p: &PerSide<Number>, range: Range, what: &str) -> Result<[T; 2], FixtureError> {
        Ok([self.num(&format!("{field}.us"), &p.us, range, what)?, self.num(&format!("{field}.ussr"), &p.ussr, range, what)?])
    }
}

/// Build the starting state of a fixture.
pub fn build(f: &Fixture, file: &Path, rules: &Ruleset) -> Result<State, FixtureError> {
    let s = &f.setup;
    let mut cx = Ctx { file, rules, start: s.start, placed: BTreeMap::new() };
    let at = s.at.unwrap_or(if s.start == Start::Standard { At::Setup } else { At::ActionRound });
    let options = match &s.options {
        Some(o) => {
            let us_bonus = match &o.us_bonus {
                Some(n) => cx.num("setup.options.us_bonus", n, US_BONUS, "a US bonus")?,
                None => 0,
            };
            // The bonus is placed at setup (§3, after the free placement): from anywhere else
            // it would be silently ignored.
            if us_bonus > 0 && at != At::Setup {
                return Err(cx.err(
                    "setup.options.us_bonus",
                    "the US bonus is placed at setup: it needs \"at\": \"setup\" (and \"start\": \"standard\")",
                ));
            }
            Options { optional_cards: o.optional_cards, us_bonus }
        }
        None => Options { optional_cards: true, us_bonus: 0 },
    };
    // A refusal step names the words its reason must contain: `"reject": ""` would pass on any
    // refusal, the wrong one included.
    for (i, step) in f.steps.iter().enumerate() {
        if step.reject.as_deref().is_some_and(|r| r.trim().is_empty()) {
            return Err(cx.err(
                &format!("steps[{i}].reject"),
                "an empty text matches any refusal: name words the reason must contain (e.g. \"§6.3\" or \"not adjacent\")",
            ));
        }
    }
    let dice = f.dice.iter().enumerate().map(|(i, d)| cx.num(&format!("dice[{i}]"), d, DIE, "a die roll")).collect::<Result<_, _>>()?;
    let picks = f.picks.iter().enumerate().map(|(i, p)| cx.num(&format!("picks[{i}]"), p, PICK, "a pick")).collect::<Result<_, _>>()?;
    let mut st = State::initial(rules, options, Randomness::Scripted { dice, picks });
    let map = Map::standard();
    match s.start {
        Start::Standard => {
            // The Early War deck in card-number order (scripted randomness does not shuffle);
            // dealt from the top, which is the highest number unless `deck` says otherwise.
            st.deck = rules.cards.era_deck(Era::Early, options.optional_cards);
        }
        Start::Empty => {
            st.influence.iter_mut().for_each(|i| *i = [0, 0]);
            st.reserve = CardSet::default();
        }
    }
    // Final scoring follows turn 10 (§4.5I).
    st.turn = if at == At::FinalScoring { arbiter_twilight::turn::LAST_TURN } else { 1 };
    if let Some(t) = &s.turn {
        st.turn = cx.num("setup.turn", t, TURN, "a turn")?;
    }
    if let Some(d) = &s.defcon {
        st.defcon = cx.num("setup.defcon", d, DEFCON, "a DEFCON level")?;
    }
    if let Some(v) = &s.vp {
        st.vp = cx.num("setup.vp", v, VP, "a VP score the game goes on at")?;
    }
    if let Some(m) = &s.military_ops {
        st.mil_ops = cx.per_side("setup.military_ops", m, MILITARY_OPS, "a military ops count")?;
    }
    if let Some(a) = &s.space_attempts {
        st.space_attempts = cx.per_side("setup.space_attempts", a, SPACE_ATTEMPTS, "a number of space race attempts this turn")?;
    }
    if let Some(sp) = &s.space_race {
        let [us, ussr]: [u8; 2] = cx.per_side("setup.space_race", sp, SPACE_RACE, "a space race box")?;
        st.space = [us, ussr];
        for (i, first) in st.space_first.iter_mut().enumerate() {
            let b = i + 1; // box b, 1-8
            *first = match (usize::from(us) >= b, usize::from(ussr) >= b) {
                (false, false) => None,
                (true, false) => Some(Side::Us),
                (false, true) => Some(Side::Ussr),
                (true, true) => Some(if us > ussr { Side::Us } else { Side::Ussr }),
            };
        }
    }
    if let Some(firsts) = &s.space_first {
        if firsts.len() > 8 {
            return Err(cx.err("setup.space_first", "there are 8 boxes"));
        }
        for (i, f) in firsts.iter().enumerate() {
            st.space_first[i] = f.as_deref().map(|x| cx.side(&format!("setup.space_first[{i}]"), x)).transpose()?;
        }
    }
    for (name, inf) in &s.influence {
        let field = format!("setup.influence.{name}");
        let c = map.by_name(name).ok_or_else(|| cx.err(&field, format!("no country named {name:?}")))?;
        st.influence[c.idx()] = cx.per_side(&field, inf, INFLUENCE, "an Influence count")?;
    }
    if let Some(h) = &s.hands {
        st.hands = [cx.cards("setup.hands.us", &h.us)?.into_iter().collect(), cx.cards("setup.hands.ussr", &h.ussr)?.into_iter().collect()];
    }
    if let Some(d) = &s.deck {
        let mut deck = cx.cards("setup.deck", d)?;
        deck.reverse(); // listed top first; stored top last
        st.deck = deck;
    }
    for (field, list, set) in [("setup.discard", &s.discard, &mut st.discard), ("setup.removed", &s.removed, &mut st.removed)] {
        if let Some(names) = list {
            *set = cx.cards(field, names)?.into_iter().collect();
        }
    }
    if s.start == Start::Standard {
        // Listed cards leave the standard deck and reserve.
        let listed: Vec<CardId> = cx.placed.keys().copied().collect();
        if s.deck.is_none() {
            st.deck.retain(|c| !listed.contains(c));
        }
        for c in &listed {
            st.reserve.remove(*c);
        }
    }
    if let Some(c) = &s.china_card {
        st.china = China { holder: cx.side("setup.china_card.holder", &c.holder)?, face_up: c.face_up };
    }
    let phasing = s.phasing.as_deref().map(|p| cx.side("setup.phasing", p)).transpose()?.unwrap_or(Side::Ussr);
    st.phasing = phasing;
    let round = match &s.action_round {
        Some(r) => cx.num("setup.action_round", r, ACTION_ROUND, "an action round")?,
        None => 1,
    };
    st.stack = match at {
        At::Setup if s.start != Start::Standard => return Err(cx.err("setup.at", "\"setup\" needs \"start\": \"standard\"")),
        At::Setup => vec![Task::Setup],
        At::TurnStart => vec![Task::StartTurn],
        At::Headline => rest_of_turn(Stage::Headline),
        At::ActionRound => rest_of_turn(Stage::ActionRound { round, side: phasing }),
        At::EndOfTurn => rest_of_turn(Stage::EndOfTurn),
        At::FinalScoring => vec![Task::FinalScoring],
    };
    if at == At::ActionRound {
        st.round = round;
    }
    crate::effects::add(&mut cx, &s.effects, at, &mut st)?;
    crate::reachable::check(&cx, s, at, &st)?;
    Ok(st)
}

impl At {
    /// May effects for the rest of the turn be in play here (§4.5H ends them)?
    pub(crate) fn within_turn(self) -> bool {
        match self {
            At::ActionRound | At::EndOfTurn => true,
            At::Setup | At::TurnStart | At::Headline | At::FinalScoring => false,
        }
    }
    /// Where play begins, in words: "at the setup".
    pub(crate) fn words(self) -> &'static str {
        match self {
            At::Setup => "at the setup",
            At::TurnStart => "at the start of a turn",
            At::Headline => "at the headline",
            At::ActionRound => "at an action round",
            At::EndOfTurn => "at the end of a turn",
            At::FinalScoring => "at final scoring",
        }
    }
}
