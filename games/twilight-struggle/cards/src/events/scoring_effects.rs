//! Effects that change how regions are scored.
//!
//! Formosan Resolution (#35): while in effect, a US-controlled Taiwan counts as a battleground
//! when Asia is scored, by its card or at final scoring (FAQ); it ends when the US plays The
//! China Card in any way, the space race included (FAQ).
//!
//! Shuttle Diplomacy (#73): kept in front of the US until the next Asia or Middle East scoring
//! by its card (not Southeast Asia, not final scoring, FAQ): one USSR-controlled battleground
//! there is ignored for the USSR, then the card is discarded. The US chooses which (FAQ), and
//! the ignored country contributes nothing: not its count, not its battleground, not its
//! adjacency to the US (a USSR-controlled Japan). The US is asked only when its choice
//! changes the score; otherwise any of them is ignored with the same result.

use super::ids::*;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Memo;
use arbiter_twilight::effect::{CardPlace, Effect, Expiry, Remembers, Shape};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::map::{iter_mask, CountryId, Map};
use arbiter_twilight::registry::{Intent, Verdict};
use arbiter_twilight::scoring::score_with_modifiers;
use arbiter_twilight::Arg;
use arbiter_twilight::{
    log, steps, Ask, CardEvent, CardId, EventTask, Lasting, Move, NoStep, Position, Region, Ruleset, ScoringModifier, ScoringTime, Side,
    Task, Words,
};

struct Formosan;

impl CardEvent for Formosan {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(FORMOSAN_RESOLUTION, side, Expiry::Permanent)));
    }
}

impl Lasting for Formosan {
    /// Asked about the US playing The China Card only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::CardPlayed)
    }
    fn scoring(&self, _p: Position, _e: &Effect, region: Region, _when: ScoringTime, out: &mut Vec<ScoringModifier>) {
        if region == Region::Asia {
            out.push(ScoringModifier::ExtraBattleground { source: FORMOSAN_RESOLUTION, country: country!("Taiwan"), side: Side::Us });
        }
    }
    fn react(&self, ctx: &mut Ctx, _e: &Effect, ev: &arbiter_twilight::instr::DomainEvent) {
        if let DomainEvent::CardPlayed { side: Side::Us, card: CardId::CHINA, .. } = ev {
            ctx.log("The US plays The China Card: Formosan Resolution ends (card text)");
            ctx.exec(Instr::RemoveEffect(FORMOSAN_RESOLUTION));
        }
    }
}

struct Shuttle;

/// The region a scoring card scores, where Shuttle Diplomacy acts.
fn shuttle_region(card: CardId) -> Option<Region> {
    match card {
        ASIA_SCORING => Some(Region::Asia),
        MIDDLE_EAST_SCORING => Some(Region::MiddleEast),
        _ => None,
    }
}

/// The battlegrounds of `region` the opponent of `e`'s owner controls: those it may ignore.
fn candidates(p: Position, e: &Effect, region: Region) -> Vec<CountryId> {
    let map = Map::standard();
    iter_mask(map.region_mask(region) & map.battleground_mask() & p.st.masks().control[e.owner.opponent().idx()]).collect()
}

/// The country the US chose, if it has.
fn chosen(e: &Effect) -> Option<CountryId> {
    match e.memo {
        Memo::Country(c) => Some(c),
        Memo::Nothing | Memo::Flag | Memo::Region(_) | Memo::Turn(_) => None,
    }
}

/// The modifiers of `region`'s card scoring with `country` the one ignored.
fn ignoring(p: Position, e: &Effect, region: Region, country: CountryId) -> Vec<ScoringModifier> {
    let mut mods = p.scoring_modifiers(region, ScoringTime::Card);
    for m in &mut mods {
        if let ScoringModifier::IgnoreCountry { source: SHUTTLE_DIPLOMACY, .. } = m {
            *m = ScoringModifier::IgnoreCountry { source: SHUTTLE_DIPLOMACY, side: e.owner.opponent(), country };
        }
    }
    mods
}

/// Does the choice change the score? (Only the adjacency of a USSR-controlled Japan can.)
fn choice_matters(p: Position, e: &Effect, region: Region) -> bool {
    let c = candidates(p, e, region);
    let scores: Vec<_> = c
        .iter()
        .map(|k| {
            let s = score_with_modifiers(p, region, &ignoring(p, e, region, *k));
            (s.vp, s.level)
        })
        .collect();
    scores.windows(2).any(|w| w[0] != w[1])
}

steps! {
    enum ShuttleStep { Choose }
}

impl CardEvent for Shuttle {
    type Step = ShuttleStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(SHUTTLE_DIPLOMACY, side, Expiry::UntilUsed).keeping_card()));
    }
    /// The US chooses the USSR battleground the scoring ignores (`arg`: the region's scoring
    /// card).
    fn ask(&self, p: Position, _step: ShuttleStep, t: &EventTask, words: Words) -> Ask {
        let Arg::Card(card) = t.arg else { return Ask::new(t.side, "", Vec::new()) };
        let (Some(region), Some(e)) = (shuttle_region(card), p.st.effect(SHUTTLE_DIPLOMACY)) else {
            return Ask::new(t.side, "", Vec::new());
        };
        let prompt = words.say(|| {
            format!(
                "{}: Shuttle Diplomacy: `target COUNTRY`: the USSR-controlled battleground {} ignores (it counts for nothing, its adjacency to the US included; FAQ)",
                t.side,
                p.cards().name(card)
            )
        });
        Ask::new(t.side, prompt, candidates(p, e, region).into_iter().map(Move::Target).collect())
    }
    fn answer(&self, ctx: &mut Ctx, _step: ShuttleStep, t: EventTask, m: &Move) {
        let (Move::Target(c), Arg::Card(card)) = (*m, t.arg) else { return ctx.unexpected(&t, m) };
        log!(ctx, "The {} chooses {}: Shuttle Diplomacy ignores it in {}", t.side, Map::standard().name(c), ctx.card_name(card));
        ctx.exec(Instr::SetEffectMemo { card: SHUTTLE_DIPLOMACY, memo: Memo::Country(c) });
    }
}

impl Lasting for Shuttle {
    /// Asked about the scoring card's event it delays for a choice; the scoring that uses it up only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.intent(arbiter_twilight::IntentKind::Event).event(arbiter_twilight::instr::EventKind::RegionScored)
    }
    /// In front of the US until a scoring uses it, remembering the battleground chosen there.
    fn shape(&self, _usual: Shape) -> Shape {
        Shape { expiry: Expiry::UntilUsed, remembers: Remembers::Country, card: CardPlace::InFront }
    }
    fn scoring(&self, p: Position, e: &Effect, region: Region, when: ScoringTime, out: &mut Vec<ScoringModifier>) {
        if !matches!(region, Region::Asia | Region::MiddleEast) || when != ScoringTime::Card {
            return;
        }
        let c = candidates(p, e, region);
        // The US's choice, or (when it does not change the score) the first of them.
        if let Some(country) = chosen(e).filter(|k| c.contains(k)).or(c.first().copied()) {
            out.push(ScoringModifier::IgnoreCountry { source: SHUTTLE_DIPLOMACY, side: e.owner.opponent(), country });
        }
    }
    /// Before the region's scoring card scores: the US chooses the battleground ignored, when
    /// the USSR controls several there and the choice changes the score (FAQ).
    fn intercept(&self, p: Position, e: &Effect, what: &Intent) -> Verdict {
        let Intent::Event { card, side, .. } = *what else { return Verdict::Allow };
        let Some(region) = shuttle_region(card) else { return Verdict::Allow };
        if chosen(e).is_some() || candidates(p, e, region).len() < 2 || !choice_matters(p, e, region) {
            return Verdict::Allow;
        }
        let choose = EventTask::new(SHUTTLE_DIPLOMACY, e.owner).at(ShuttleStep::Choose).arg(Arg::Card(card));
        Verdict::Replace(
            // The last runs first: the choice, then the scoring card's event again.
            vec![Task::ResolveEvent { card, side }, Task::Event(choose)],
            format!("lets the {} choose which USSR battleground {} ignores (card text, FAQ)", e.owner, p.cards().name(card)),
        )
    }
    /// Used up by the scoring it changed.
    fn react(&self, ctx: &mut Ctx, _e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::RegionScored { region, final_scoring: false } = ev {
            if matches!(region, Region::Asia | Region::MiddleEast) {
                ctx.exec(Instr::RemoveEffect(SHUTTLE_DIPLOMACY));
            }
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.both(FORMOSAN_RESOLUTION, Formosan);
    r.both(SHUTTLE_DIPLOMACY, Shuttle);
}
