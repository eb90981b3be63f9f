//! NORAD (#106, optional): while Canada is US-controlled, after any action round in which
//! DEFCON moved to 2, the US adds 1 Influence to a country already holding US Influence.
//! Cancelled by Quagmire (card data). The effect's parameter remembers "DEFCON reached 2 this
//! round".

use super::ids::NORAD;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Memo;
use arbiter_twilight::effect::{Effect, Expiry, Remembers, Shape};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::steps;
use arbiter_twilight::{Ask, CardEvent, EventTask, Lasting, Map, Move, Position, Side, Task, Words};

pub struct Norad;

steps! {
    pub enum NoradStep { Place }
}

impl CardEvent for Norad {
    type Step = NoradStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(NORAD, side, Expiry::Permanent)));
    }
    fn ask(&self, p: Position, _step: NoradStep, _t: &EventTask, words: Words) -> Ask {
        Ask::new(
            Side::Us,
            words.say(|| "US: NORAD: add 1 Influence to a country that already has US Influence".into()),
            Map::standard().ids().filter(|c| p.st.inf(Side::Us, *c) > 0).map(Move::Influence).collect(),
        )
    }
    fn answer(&self, ctx: &mut Ctx, _step: NoradStep, t: EventTask, m: &Move) {
        match m {
            Move::Influence(c) => ctx.exec(Instr::AddInfluence { side: Side::Us, country: *c, n: 1 }),
            _ => ctx.unexpected(&t, m),
        }
    }
}

impl Lasting for Norad {
    /// Asked about DEFCON reaching 2, then the round's end only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
            .event(arbiter_twilight::instr::EventKind::DefconChanged)
            .event(arbiter_twilight::instr::EventKind::RoundEnded)
    }
    /// For the rest of the game, with the flag "DEFCON moved to 2 this round" (the headline's
    /// move counts for the first round).
    fn shape(&self, usual: Shape) -> Shape {
        Shape {
            expiry: Expiry::Permanent,
            remembers: Remembers::Flag { what: "DEFCON moved to 2 this action round", from_headline: true },
            ..usual
        }
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        match ev {
            DomainEvent::DefconChanged { to: 2, .. } => ctx.exec(Instr::SetEffectMemo { card: NORAD, memo: Memo::Flag }),
            DomainEvent::RoundEnded { .. } if e.memo == Memo::Flag => {
                ctx.exec(Instr::SetEffectMemo { card: NORAD, memo: Memo::Nothing });
                let canada = country!("Canada");
                if ctx.st().controls(Side::Us, canada) {
                    ctx.log("NORAD: DEFCON moved to 2 this round and the US controls Canada");
                    ctx.push(Task::Event(EventTask::new(NORAD, Side::Us).at(NoradStep::Place)));
                } else {
                    ctx.log("NORAD: DEFCON moved to 2, but the US does not control Canada");
                }
            }
            _ => {}
        }
    }
}
