//! Bear Trap (#44, traps the USSR) and Quagmire (#42, traps the US; also ends NORAD).

use super::ids::{BEAR_TRAP, NORAD, QUAGMIRE};
use crate::shapes::Trap;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::Effect;
use arbiter_engine::flow::EventTask;
use arbiter_engine::instr::Instr;
use arbiter_engine::{CardEvent, Move, Position, Ruleset, Side, Task};

impl CardEvent for Trap {
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        if self.card == QUAGMIRE {
            ctx.exec(Instr::RemoveEffect(NORAD)); // NORAD's text: cancelled by Quagmire
        }
        self.spring(ctx);
    }
    fn traps(&self, _e: &Effect) -> Option<Side> {
        Some(self.victim)
    }
    fn trapped_round(&self, ctx: &mut Ctx, _e: &Effect, side: Side) {
        ctx.push(Task::Event(EventTask::new(self.card, side)));
    }
    fn prompt(&self, p: Position, t: &EventTask) -> String {
        Trap::prompt(self, p, t)
    }
    fn options(&self, p: Position, t: &EventTask) -> Vec<Move> {
        Trap::options(self, p, t)
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        Trap::apply(self, ctx, t, m)
    }
}

pub fn register(r: &mut Ruleset) {
    r.register(BEAR_TRAP, Box::new(Trap { card: BEAR_TRAP, victim: Side::Ussr }));
    r.register(QUAGMIRE, Box::new(Trap { card: QUAGMIRE, victim: Side::Us }));
}
