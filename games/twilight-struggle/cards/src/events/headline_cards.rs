//! Defectors (#103): headlined by the US, it cancels the USSR headline (even a scoring card,
//! even one of higher Ops, FAQ): at the reveal the revealed cards may intercept each other's
//! headline. Played by the USSR in an action round, the US gains 1 VP.

use super::ids::DEFECTORS;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Effect;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::registry::{Intent, Verdict};
use arbiter_twilight::{CardEvent, Lasting, NoStep, Position, Ruleset, Side};

struct Defectors;

impl CardEvent for Defectors {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        if ctx.st().round > 0 && ctx.st().phasing == Side::Ussr {
            ctx.exec(Instr::Vp { side: Side::Us, n: 1 });
        } else {
            ctx.log("Defectors: no effect here (the headline cancel happens at the reveal)");
        }
    }
}

impl Lasting for Defectors {
    /// Asked about the USSR headline it cancels only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.intent(arbiter_twilight::IntentKind::Headline)
    }
    fn intercept(&self, p: Position, e: &Effect, what: &Intent) -> Verdict {
        match *what {
            Intent::Headline { card, by: Side::Ussr } if e.owner == Side::Us && e.card == DEFECTORS => {
                Verdict::Cancel(format!("cancels the USSR headline: {} is discarded without effect (card text)", p.cards().name(card)))
            }
            _ => Verdict::Allow,
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.both(DEFECTORS, Defectors);
}
