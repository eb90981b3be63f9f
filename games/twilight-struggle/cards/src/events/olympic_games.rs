//! Olympic Games (#20): the opponent chooses. Participate: both roll, the sponsor +2, the
//! higher total gains 2 VP, ties re-roll. Boycott: DEFCON −1, then the sponsor conducts
//! Operations as with a 4-Op card (granted Ops: not changed by Ops modifiers, FAQ).

use super::ids::OLYMPIC_GAMES;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Move, OpsTask, Position, Side, Task, Words};

pub struct OlympicGames;

steps! {
    pub enum OlympicStep { Invite }
}

impl CardEvent for OlympicGames {
    type Step = OlympicStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(OLYMPIC_GAMES, side).at(OlympicStep::Invite)));
    }
    fn ask(&self, _p: Position, _step: OlympicStep, t: &EventTask, words: Words) -> Ask {
        let guest = t.side.opponent();
        Ask::options(
            guest,
            words.say(|| format!("{guest}: the {} sponsors the Olympic Games: `choose participate` or `choose boycott`", t.side)),
            &["participate", "boycott"],
        )
    }
    fn answer(&self, ctx: &mut Ctx, _step: OlympicStep, t: EventTask, m: &Move) {
        let sponsor = t.side;
        let guest = sponsor.opponent();
        match m {
            Move::Choose(1) => {
                log!(ctx, "{guest} boycotts the Olympic Games");
                ctx.exec(Instr::ChangeDefcon(-1));
                ctx.push(Task::Ops(OpsTask::granted(sponsor, 4)));
            }
            Move::Choose(0) => {
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
            _ => ctx.unexpected(&t, m),
        }
    }
}
