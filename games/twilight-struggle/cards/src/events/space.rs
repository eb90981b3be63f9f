//! "One Small Step…" (#80): a player behind on the space race moves 2 boxes forward, gaining
//! the VP of the box reached only (card text). Not a space race attempt (§6.4). Not behind,
//! the event has no effect (a condition, §5.2).

use super::ids::ONE_SMALL_STEP;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::error::{illegal, Illegal};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::{CardEvent, NoStep, Position, Ruleset, Side, Words};

struct OneSmallStep;

impl CardEvent for OneSmallStep {
    type Step = NoStep;
    fn condition(&self, p: Position, side: Side, words: Words) -> Result<(), Illegal> {
        let (mine, theirs) = (p.st.space[side.idx()], p.st.space[side.opponent().idx()]);
        if mine < theirs {
            Ok(())
        } else {
            illegal(
                words.say(|| format!("the {side} is not behind on the space race (box {mine} against {theirs})")),
                ONE_SMALL_STEP.cite(),
            )
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::SpaceAdvance { side, boxes: 2 });
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(ONE_SMALL_STEP, OneSmallStep);
}
