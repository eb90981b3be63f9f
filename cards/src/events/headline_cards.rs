//! Defectors (#103): headlined by the US, it cancels the USSR headline (even a scoring card,
//! even one of higher Ops, FAQ). Played by the USSR in an action round, the US gains 1 VP.

use super::ids::DEFECTORS;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::instr::Instr;
use arbiter_engine::{CardEvent, Ruleset, Side};

struct Defectors;

impl CardEvent for Defectors {
    fn cancels_opponent_headline(&self, side: Side) -> bool {
        side == Side::Us
    }
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        if ctx.st.round > 0 && ctx.st.phasing == Side::Ussr {
            ctx.exec(Instr::Vp { side: Side::Us, n: 1 });
        } else {
            ctx.log("Defectors: no effect here (the headline cancel happens at the reveal)");
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.register(DEFECTORS, Box::new(Defectors));
}
