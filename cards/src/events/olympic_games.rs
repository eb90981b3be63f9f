//! Olympic Games (#20): the opponent chooses. Participate: both roll, the sponsor +2, the
//! higher total gains 2 VP, ties re-roll. Boycott: DEFCON −1, then the sponsor conducts
//! Operations as with a 4-Op card (granted Ops: not changed by Ops modifiers, FAQ).

use super::ids::OLYMPIC_GAMES;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::flow::{EventTask, OpsTask};
use arbiter_engine::instr::Instr;
use arbiter_engine::log;
use arbiter_engine::{CardEvent, Move, Position, Side, Task};

pub struct OlympicGames;

impl CardEvent for OlympicGames {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(OLYMPIC_GAMES, side)));
    }
    fn decider(&self, t: &EventTask) -> Side {
        t.side.opponent()
    }
    fn labels(&self, _t: &EventTask) -> &'static [&'static str] {
        &["participate", "boycott"]
    }
    fn prompt(&self, _p: Position, t: &EventTask) -> String {
        format!("{}: the {} sponsors the Olympic Games: `choose participate` or `choose boycott`", t.side.opponent(), t.side)
    }
    fn options(&self, _p: Position, _t: &EventTask) -> Vec<Move> {
        vec![Move::Choose(0), Move::Choose(1)]
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        let sponsor = t.side;
        let guest = sponsor.opponent();
        if *m == Move::Choose(1) {
            log!(ctx, "{guest} boycotts the Olympic Games");
            ctx.exec(Instr::ChangeDefcon(-1));
            ctx.push(Task::Ops(OpsTask::granted(sponsor, 4)));
            return;
        }
        log!(ctx, "{guest} takes part in the Olympic Games");
        loop {
            let (a, b) = (ctx.die(sponsor), ctx.die(guest));
            if ctx.over() {
                return;
            }
            let sa = a + 2;
            log!(ctx, "Olympic Games: {sponsor} rolls {a} +2 (sponsor) = {sa}; {guest} rolls {b}");
            if sa != b {
                let winner = if sa > b { sponsor } else { guest };
                ctx.exec(Instr::Vp { side: winner, n: 2 });
                return;
            }
            ctx.log("Tie: both roll again");
        }
    }
}
