//! Effects that change how regions are scored.
//!
//! Formosan Resolution (#35): while in effect, a US-controlled Taiwan counts as a battleground
//! when Asia is scored, by its card or at final scoring (FAQ); it ends when the US plays The
//! China Card in any way, the space race included (FAQ).
//!
//! Shuttle Diplomacy (#73): kept in front of the US until the next Asia or Middle East scoring
//! by its card (not Southeast Asia, not final scoring, FAQ): one USSR-controlled battleground
//! is subtracted from the USSR totals there, then the card is discarded.

use super::ids::*;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::instr::{DomainEvent, Instr};
use arbiter_engine::{CardEvent, CardId, Lasting, NoStep, Position, Region, Ruleset, ScoringModifier, ScoringTime, Side};

struct Formosan;

impl CardEvent for Formosan {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(FORMOSAN_RESOLUTION, side, Expiry::Permanent)));
    }
}

impl Lasting for Formosan {
    fn scoring(&self, _p: Position, _e: &Effect, region: Region, _when: ScoringTime, out: &mut Vec<ScoringModifier>) {
        if region == Region::Asia {
            out.push(ScoringModifier::ExtraBattleground { source: FORMOSAN_RESOLUTION, country: country!("Taiwan"), side: Side::Us });
        }
    }
    fn react(&self, ctx: &mut Ctx, _e: &Effect, ev: &arbiter_engine::instr::DomainEvent) {
        if let DomainEvent::CardPlayed { side: Side::Us, card: CardId::CHINA, .. } = ev {
            ctx.log("The US plays The China Card: Formosan Resolution ends (card text)");
            ctx.exec(Instr::RemoveEffect(FORMOSAN_RESOLUTION));
        }
    }
}

struct Shuttle;

fn shuttle_region(r: Region) -> bool {
    matches!(r, Region::Asia | Region::MiddleEast)
}

impl CardEvent for Shuttle {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(SHUTTLE_DIPLOMACY, side, Expiry::UntilUsed).keeping_card()));
    }
}

impl Lasting for Shuttle {
    fn scoring(&self, _p: Position, e: &Effect, region: Region, when: ScoringTime, out: &mut Vec<ScoringModifier>) {
        if shuttle_region(region) && when == ScoringTime::Card {
            out.push(ScoringModifier::IgnoreBattleground { source: SHUTTLE_DIPLOMACY, side: e.owner.opponent() });
        }
    }
    /// Used up by the scoring it changed.
    fn react(&self, ctx: &mut Ctx, _e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::RegionScored { region, final_scoring: false } = ev {
            if shuttle_region(*region) {
                ctx.exec(Instr::RemoveEffect(SHUTTLE_DIPLOMACY));
            }
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.both(FORMOSAN_RESOLUTION, Formosan);
    r.both(SHUTTLE_DIPLOMACY, Shuttle);
}
