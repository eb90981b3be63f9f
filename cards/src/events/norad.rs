//! NORAD (#106, optional): while Canada is US-controlled, after any action round in which
//! DEFCON moved to 2, the US adds 1 Influence to a country already holding US Influence.
//! Cancelled by Quagmire. The effect's parameter remembers "DEFCON reached 2 this round".

use super::ids::NORAD;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::flow::EventTask;
use arbiter_engine::instr::{DomainEvent, Instr};
use arbiter_engine::{CardEvent, Map, Move, Position, Side, Task};

pub struct Norad;

impl CardEvent for Norad {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect { card: NORAD, owner: side, expiry: Expiry::Permanent, param: 0 }));
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        match ev {
            DomainEvent::DefconChanged { to: 2, .. } => ctx.exec(Instr::SetEffectParam { card: NORAD, param: 1 }),
            DomainEvent::RoundEnded { .. } if e.param == 1 => {
                ctx.exec(Instr::SetEffectParam { card: NORAD, param: 0 });
                let canada = Map::standard().id("Canada");
                if ctx.st.controls(Side::Us, canada) {
                    ctx.log("NORAD: DEFCON moved to 2 this round and the US controls Canada");
                    ctx.push(Task::Event(EventTask::new(NORAD, Side::Us).stage(1)));
                } else {
                    ctx.log("NORAD: DEFCON moved to 2, but the US does not control Canada");
                }
            }
            _ => {}
        }
    }
    fn prompt(&self, _p: Position, _t: &EventTask) -> String {
        "US: NORAD: add 1 Influence to a country that already has US Influence".into()
    }
    fn options(&self, p: Position, _t: &EventTask) -> Vec<Move> {
        Map::standard().ids().filter(|c| p.st.inf(Side::Us, *c) > 0).map(Move::Influence).collect()
    }
    fn apply(&self, ctx: &mut Ctx, _t: EventTask, m: &Move) {
        if let Move::Influence(c) = m {
            ctx.exec(Instr::AddInfluence { side: Side::Us, country: *c, n: 1 });
        }
    }
}
