//! Junta (#47): 2 Influence in one Central or South American country, then optionally a free
//! coup or realignment rolls in Central/South America with this card's Ops (§6.3.5: free coups
//! earn no military ops but still lower DEFCON in battlegrounds).

use super::ids::JUNTA;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::flow::{EventTask, OpsTask};
use arbiter_engine::instr::Instr;
use arbiter_engine::log;
use arbiter_engine::{CardEvent, Map, Move, Position, Region, Side, Task};

pub struct Junta;

const PLACE: u8 = 0;
const OPS: u8 = 1;

fn latin(c: arbiter_engine::CountryId) -> bool {
    matches!(Map::standard().country(c).region, Region::CentralAmerica | Region::SouthAmerica)
}

impl CardEvent for Junta {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(JUNTA, side)));
    }
    fn labels(&self, _t: &EventTask) -> &'static [&'static str] {
        &["coup or realign"]
    }
    fn prompt(&self, _p: Position, t: &EventTask) -> String {
        match t.stage {
            PLACE => format!("{}: Junta: choose a Central or South American country for 2 Influence (`target COUNTRY`)", t.side),
            _ => format!("{}: Junta: `choose coup or realign` in Central/South America with this card's Ops, or `pass`", t.side),
        }
    }
    fn options(&self, _p: Position, t: &EventTask) -> Vec<Move> {
        match t.stage {
            PLACE => Map::standard().ids().filter(|c| latin(*c)).map(Move::Target).collect(),
            _ => vec![Move::Choose(0), Move::Pass],
        }
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        match (t.stage, m) {
            (PLACE, Move::Target(c)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 2 });
                ctx.push(Task::Event(t.stage(OPS)));
            }
            (OPS, Move::Choose(0)) => {
                let regions = (1 << Region::CentralAmerica as u8) | (1 << Region::SouthAmerica as u8);
                ctx.push(Task::Ops(OpsTask { regions, free: true, allowed: 2 | 4, ..OpsTask::for_card(t.side, JUNTA) }));
            }
            _ => log!(ctx, "{} declines Junta's coup or realignment", t.side),
        }
    }
}
