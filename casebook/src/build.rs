//! From a fixture's setup to a validated engine state. Every name is checked; a card listed in
//! two places, an impossible number or an unknown field is an error naming the field.

use crate::format::{At, Fixture, Start};
use crate::FixtureError;
use arbiter_engine::card::{CardSet, Era};
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::flow::Task;
use arbiter_engine::map::Map;
use arbiter_engine::rng::Randomness;
use arbiter_engine::state::China;
use arbiter_engine::turn::{rest_of_turn, Stage};
use arbiter_engine::{CardId, Options, Ruleset, Side, State};
use std::collections::BTreeMap;
use std::path::Path;

struct Ctx<'a> {
    file: &'a Path,
    rules: &'a Ruleset,
    /// Where each card was listed, to catch a card in two places.
    placed: BTreeMap<CardId, String>,
}

impl Ctx<'_> {
    fn err(&self, field: &str, message: impl Into<String>) -> FixtureError {
        FixtureError { file: self.file.into(), field: field.into(), message: message.into() }
    }
    fn side(&self, field: &str, s: &str) -> Result<Side, FixtureError> {
        Side::parse(s).ok_or_else(|| self.err(field, format!("{s:?} is not a side (us or ussr)")))
    }
    fn card(&mut self, field: &str, name: &str, place: bool) -> Result<CardId, FixtureError> {
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
}

/// Build the starting state of a fixture.
pub fn build(f: &Fixture, file: &Path, rules: &Ruleset) -> Result<State, FixtureError> {
    let s = &f.setup;
    let mut cx = Ctx { file, rules, placed: BTreeMap::new() };
    let options = s
        .options
        .map(|o| Options { optional_cards: o.optional_cards, us_bonus: o.us_bonus })
        .unwrap_or(Options { optional_cards: true, us_bonus: 0 });
    if let Some(d) = f.dice.iter().find(|d| !(1..=6).contains(*d)) {
        return Err(cx.err("dice", format!("{d} is not a die roll (1-6)")));
    }
    let mut st = State::initial(
        rules,
        options,
        Randomness::Scripted { dice: f.dice.iter().copied().collect(), picks: f.picks.iter().copied().collect() },
    );
    let map = Map::standard();
    let at = s.at.unwrap_or(if s.start == Start::Standard { At::Setup } else { At::ActionRound });
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
    if let Some(t) = s.turn {
        if !(1..=10).contains(&t) {
            return Err(cx.err("setup.turn", format!("{t} is not a turn (1-10)")));
        }
        st.turn = t;
    }
    if let Some(d) = s.defcon {
        if !(1..=5).contains(&d) {
            return Err(cx.err("setup.defcon", format!("{d} is not a DEFCON level (1-5)")));
        }
        st.defcon = d;
    }
    if let Some(v) = s.vp {
        if v.unsigned_abs() >= 20 {
            return Err(cx.err("setup.vp", format!("{v}: the game would already be over (§10.3.1)")));
        }
        st.vp = v;
    }
    if let Some(m) = s.military_ops {
        if m.us > 5 || m.ussr > 5 {
            return Err(cx.err("setup.military_ops", "the track runs 0-5 (§8.2)"));
        }
        st.mil_ops = [m.us, m.ussr];
    }
    if let Some(a) = s.space_attempts {
        if a.us > 2 || a.ussr > 2 {
            return Err(cx.err("setup.space_attempts", "at most 2 attempts a turn (§6.4.2, Animal in Space)"));
        }
        st.space_attempts = [a.us, a.ussr];
    }
    if options.us_bonus > 20 {
        return Err(cx.err("setup.options.us_bonus", format!("{}: the US bonus is a few Influence (0-20)", options.us_bonus)));
    }
    if let Some(sp) = s.space_race {
        if sp.us > 8 || sp.ussr > 8 {
            return Err(cx.err("setup.space_race", "the track runs 0-8 (§6.4)"));
        }
        st.space = [sp.us, sp.ussr];
        for b in 1..=8u8 {
            st.space_first[(b - 1) as usize] = match (sp.us >= b, sp.ussr >= b) {
                (false, false) => None,
                (true, false) => Some(Side::Us),
                (false, true) => Some(Side::Ussr),
                (true, true) => Some(if sp.us > sp.ussr { Side::Us } else { Side::Ussr }),
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
        let max = arbiter_engine::ctx::MAX_INFLUENCE;
        if inf.us > max || inf.ussr > max {
            return Err(cx.err(&field, format!("at most {max} Influence of a side in a country")));
        }
        st.influence[c.idx()] = [inf.us, inf.ussr];
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
    for (i, e) in s.effects.iter().enumerate() {
        let field = format!("setup.effects[{i}]");
        let card = cx.card(&field, &e.card, false)?;
        let owner = cx.side(&field, &e.owner)?;
        let expiry = match e.until.as_deref() {
            None if rules.cards.info(card).lasting => Expiry::Permanent,
            None | Some("turn") => Expiry::EndOfTurn,
            Some("permanent") => Expiry::Permanent,
            Some("used") => Expiry::UntilUsed,
            Some("us round") => Expiry::UntilRoundOf(Side::Us),
            Some("ussr round") => Expiry::UntilRoundOf(Side::Ussr),
            Some(x) => {
                return Err(cx.err(&field, format!("until {x:?}: use \"turn\", \"permanent\", \"used\", \"us round\" or \"ussr round\"")))
            }
        };
        if !rules.implemented(card) {
            return Err(cx.err(&field, format!("{} has no implemented effect", e.card)));
        }
        // An effect "until used" keeps its card in front of its owner (Shuttle Diplomacy).
        let keeps_card = expiry == Expiry::UntilUsed;
        if keeps_card {
            if cx.placed.contains_key(&card) {
                return Err(cx.err(&field, format!("{} is in front of its owner while its effect lasts: list it nowhere else", e.card)));
            }
            st.deck.retain(|c| *c != card);
            st.reserve.remove(card);
            st.table.insert(card);
        }
        st.effects.push(Effect { card, owner, expiry, param: e.param, keeps_card });
    }
    if let Some(c) = &s.china_card {
        st.china = China { holder: cx.side("setup.china_card.holder", &c.holder)?, face_up: c.face_up };
    }
    let phasing = s.phasing.as_deref().map(|p| cx.side("setup.phasing", p)).transpose()?.unwrap_or(Side::Ussr);
    st.phasing = phasing;
    let round = s.action_round.unwrap_or(1);
    if !(1..=8).contains(&round) {
        return Err(cx.err("setup.action_round", format!("{round} is not an action round (1-8)")));
    }
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
    Ok(st)
}
