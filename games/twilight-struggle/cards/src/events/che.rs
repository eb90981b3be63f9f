//! Che (#107, optional): the USSR may coup a non-battleground country in Central America,
//! South America or Africa with this card's Ops (modified by USSR modifiers); if that coup
//! removed US Influence, it may coup a second, different such country. The coups are not
//! free: they earn military ops (rules-facts; not "free" on the card). The Ops task is limited
//! to the eligible countries and tells the event when it is spent.

use super::ids::CHE;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::map::{iter_mask, Map};
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Move, OpsKind, OpsTask, Position, Region, Ruleset, Side, Task, Words};

steps! {
    enum CheStep { First, AfterFirst, Second }
}

struct Che;

/// Non-battlegrounds of Central America, South America and Africa.
fn eligible() -> u128 {
    let map = Map::standard();
    let regions = map.region_mask(Region::CentralAmerica) | map.region_mask(Region::SouthAmerica) | map.region_mask(Region::Africa);
    regions & !map.battleground_mask()
}

/// Where a coup is possible now: eligible, holding US Influence, not already chosen.
fn targets(p: Position, t: &EventTask) -> u128 {
    eligible() & p.st.masks().presence[Side::Us.idx()] & !t.picked.countries().0
}

impl CardEvent for Che {
    type Step = CheStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let t = EventTask::new(CHE, side).at(CheStep::First);
        if targets(ctx.pos(), &t) == 0 {
            ctx.log("Che: no non-battleground country in Central America, South America or Africa holds US Influence");
            return;
        }
        ctx.push(Task::Event(t));
    }
    fn ask(&self, _p: Position, step: CheStep, t: &EventTask, words: Words) -> Ask {
        let which = if step == CheStep::First { "a" } else { "a second, different" };
        let prompt = words.say(|| {
            format!(
                "{}: Che: `choose coup` to coup {which} non-battleground country in Central America, South America or Africa with this card's Ops, or `pass`",
                t.side
            )
        });
        Ask::options(t.side, prompt, &["coup"]).or_pass()
    }
    fn answer(&self, ctx: &mut Ctx, step: CheStep, t: EventTask, m: &Move) {
        match (step, m) {
            (CheStep::First | CheStep::Second, Move::Choose(0)) => {
                let then = (step == CheStep::First).then(|| t.at(CheStep::AfterFirst));
                let ops = OpsTask { targets: targets(ctx.pos(), &t), then, ..OpsTask::for_card(t.side, CHE) };
                ctx.push(Task::Ops(ops.only(&[OpsKind::Coup]).by(CHE)));
            }
            (CheStep::First | CheStep::Second, Move::Pass) => log!(ctx, "The {} declines Che's coup", t.side),
            _ => ctx.unexpected(&t, m),
        }
    }
    /// After the first coup: a second one only if it removed US Influence (`count`).
    fn resume(&self, ctx: &mut Ctx, _step: CheStep, t: EventTask) {
        if t.count == 0 {
            ctx.log("Che: the coup removed no US Influence: no second coup");
            return;
        }
        let next = EventTask { count: 0, ..t.at(CheStep::Second) };
        if iter_mask(targets(ctx.pos(), &next)).next().is_none() {
            ctx.log("Che: no other eligible country holds US Influence: no second coup");
            return;
        }
        ctx.push(Task::Event(next));
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(CHE, Che);
}
