//! Events that watch for UN Intervention.
//!
//! - "We Will Bury You" (#50, USSR): DEFCON −1; unless the US plays UN Intervention as an
//!   event in its next action round, the USSR gains 3 VP "prior to any US VP award" (Deluxe
//!   text). The 3 VP are given when the US plays its card in that round, before the card does
//!   anything; if that card is UN Intervention played as an event, they are not given. A US
//!   round with no card play (a trapped round) gives them at its end. Played in a US round (the
//!   USSR event of a card the US plays for Ops), the next US round is the following one.
//! - U2 Incident (#60, USSR): the USSR gains 1 VP, and 1 more if UN Intervention is played as
//!   an event by either side later this turn.

use super::ids::*;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Memo;
use arbiter_twilight::effect::{Effect, Expiry, Remembers, Shape};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::log;
use arbiter_twilight::{CardEvent, Lasting, NoStep, PlayMode, Ruleset, Side};

struct WeWillBuryYou;

/// What the effect remembers: the US round in progress when it began is not "the next" one.
const WAIT_FOR_NEXT_US_ROUND: Memo = Memo::Flag;

impl CardEvent for WeWillBuryYou {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::ChangeDefcon(-1));
        let mut e = Effect::new(WE_WILL_BURY_YOU, side, Expiry::Permanent);
        if ctx.st().round > 0 && ctx.st().phasing == side.opponent() {
            e.memo = WAIT_FOR_NEXT_US_ROUND;
        }
        ctx.exec(Instr::AddEffect(e));
    }
}

fn bury(ctx: &mut Ctx, e: &Effect, why: &str) {
    log!(ctx, "\"We Will Bury You\": {why}: the {} gains 3 VP", e.owner);
    ctx.exec(Instr::RemoveEffect(WE_WILL_BURY_YOU));
    ctx.exec(Instr::Vp { side: e.owner, n: 3 });
}

impl Lasting for WeWillBuryYou {
    /// Asked about the US's plays and round ends only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
            .event(arbiter_twilight::instr::EventKind::CardPlayed)
            .event(arbiter_twilight::instr::EventKind::RoundEnded)
    }
    /// Until the US's next action round, with the flag "begun in a US round".
    fn shape(&self, usual: Shape) -> Shape {
        Shape {
            expiry: Expiry::Permanent,
            remembers: Remembers::Flag { what: "played in the US round under way, it waits for the next", from_headline: false },
            ..usual
        }
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        let us = e.owner.opponent();
        let in_us_round = ctx.st().round > 0 && ctx.st().phasing == us;
        match *ev {
            DomainEvent::RoundEnded { side } if side == us && e.memo == WAIT_FOR_NEXT_US_ROUND => {
                ctx.exec(Instr::SetEffectMemo { card: WE_WILL_BURY_YOU, memo: Memo::Nothing });
            }
            DomainEvent::RoundEnded { side } if side == us => bury(ctx, e, &format!("the {us} played no card this round")),
            DomainEvent::CardPlayed { side, card, mode, headline: false } if side == us && in_us_round && e.memo == Memo::Nothing => {
                if card == UN_INTERVENTION && mode == PlayMode::Event {
                    log!(ctx, "\"We Will Bury You\": the {us} plays UN Intervention as an event: the {} gains no VP", e.owner);
                    ctx.exec(Instr::RemoveEffect(WE_WILL_BURY_YOU));
                } else {
                    bury(ctx, e, &format!("the {us} did not play UN Intervention as an event this round"));
                }
            }
            _ => {}
        }
    }
}

struct U2Incident;

impl CardEvent for U2Incident {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::Vp { side, n: 1 });
        ctx.exec(Instr::AddEffect(Effect::new(U2_INCIDENT, side, Expiry::EndOfTurn)));
    }
}

impl Lasting for U2Incident {
    /// Asked about UN Intervention's event only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::EventResolved)
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::EventResolved { card: UN_INTERVENTION, side } = *ev {
            log!(ctx, "U2 Incident: the {side} plays UN Intervention as an event: the {} gains 1 more VP", e.owner);
            ctx.exec(Instr::RemoveEffect(U2_INCIDENT));
            ctx.exec(Instr::Vp { side: e.owner, n: 1 });
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.both(WE_WILL_BURY_YOU, WeWillBuryYou);
    r.both(U2_INCIDENT, U2Incident);
}
