//! Junta (#47): 2 Influence in one Central or South American country, then optionally a free
//! coup or realignment rolls in Central/South America with this card's Ops (§6.3.5: free coups
//! earn no military ops but still lower DEFCON in battlegrounds).

use super::ids::JUNTA;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Map, Move, OpsKind, OpsTask, Position, Region, Side, Task, Words};

pub struct Junta;

steps! {
    pub enum JuntaStep { Place, Ops }
}

fn latin_america() -> u128 {
    let map = Map::standard();
    map.region_mask(Region::CentralAmerica) | map.region_mask(Region::SouthAmerica)
}

impl CardEvent for Junta {
    type Step = JuntaStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(JUNTA, side).at(JuntaStep::Place)));
    }
    fn ask(&self, _p: Position, step: JuntaStep, t: &EventTask, words: Words) -> Ask {
        match step {
            JuntaStep::Place => Ask::new(
                t.side,
                words.say(|| format!("{}: Junta: choose a Central or South American country for 2 Influence (`target COUNTRY`)", t.side)),
                arbiter_twilight::map::iter_mask(latin_america()).map(Move::Target).collect(),
            ),
            JuntaStep::Ops => Ask::options(
                t.side,
                words.say(|| {
                    format!("{}: Junta: `choose coup or realign` in Central/South America with this card's Ops, or `pass`", t.side)
                }),
                &["coup or realign"],
            )
            .or_pass(),
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: JuntaStep, t: EventTask, m: &Move) {
        match (step, m) {
            (JuntaStep::Place, Move::Target(c)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 2 });
                ctx.push(Task::Event(t.at(JuntaStep::Ops)));
            }
            (JuntaStep::Ops, Move::Choose(0)) => {
                let ops = OpsTask { targets: latin_america(), free: true, ..OpsTask::for_card(t.side, JUNTA) };
                ctx.push(Task::Ops(ops.only(&[OpsKind::Realign, OpsKind::Coup]).by(JUNTA)));
            }
            (JuntaStep::Ops, Move::Pass) => log!(ctx, "{} declines Junta's coup or realignment", t.side),
            _ => ctx.unexpected(&t, m),
        }
    }
}
