//! DEFCON cards: Duck and Cover (#4), Nuclear Subs (#41), Wargames (#100).

use super::ids::{DUCK_AND_COVER, NUCLEAR_SUBS, WARGAMES};
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::error::{illegal, Illegal};
use arbiter_engine::flow::EventTask;
use arbiter_engine::instr::Instr;
use arbiter_engine::log;
use arbiter_engine::state::{EndReason, Outcome};
use arbiter_engine::{CardEvent, Move, Position, Ruleset, Side, Task};

/// DEFCON −1, then the US gains 5 − DEFCON VP.
struct DuckAndCover;

impl CardEvent for DuckAndCover {
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        ctx.exec(Instr::ChangeDefcon(-1));
        let n = 5 - ctx.st.defcon;
        ctx.exec(Instr::Vp { side: Side::Us, n });
    }
}

/// For the rest of the turn US coups with Ops in battlegrounds do not lower DEFCON.
struct NuclearSubs;

impl CardEvent for NuclearSubs {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect { card: NUCLEAR_SUBS, owner: side, expiry: Expiry::EndOfTurn, param: 0 }));
    }
    fn spares_defcon(&self, _e: &Effect, side: Side, free: bool) -> bool {
        side == Side::Us && !free
    }
}

/// Only at DEFCON 2: the player may give the opponent 6 VP and end the game; the leader wins
/// (no final scoring, FAQ). At other levels the event does not occur and the card is not
/// removed (FAQ).
struct Wargames;

impl CardEvent for Wargames {
    fn can_occur(&self, p: Position, _side: Side) -> Result<(), Illegal> {
        if p.st.defcon == 2 {
            Ok(())
        } else {
            illegal(format!("Wargames can only be played as an event at DEFCON 2 (DEFCON is {})", p.st.defcon), "card text")
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(WARGAMES, side)));
    }
    fn labels(&self, _t: &EventTask) -> &'static [&'static str] {
        &["end the game", "continue"]
    }
    fn prompt(&self, _p: Position, t: &EventTask) -> String {
        format!(
            "{}: Wargames: `choose end the game` (the {} gains 6 VP, then the leader wins) or `choose continue`",
            t.side,
            t.side.opponent()
        )
    }
    fn options(&self, _p: Position, _t: &EventTask) -> Vec<Move> {
        vec![Move::Choose(0), Move::Choose(1)]
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        if *m != Move::Choose(0) {
            log!(ctx, "{} lets the game go on", t.side);
            return;
        }
        ctx.exec(Instr::Vp { side: t.side.opponent(), n: 6 });
        let winner = match ctx.st.vp {
            v if v > 0 => Some(Side::Us),
            v if v < 0 => Some(Side::Ussr),
            _ => None,
        };
        ctx.exec(Instr::EndGame(Outcome { winner, reason: EndReason::Wargames }));
    }
}

pub fn register(r: &mut Ruleset) {
    r.register(DUCK_AND_COVER, Box::new(DuckAndCover));
    r.register(NUCLEAR_SUBS, Box::new(NuclearSubs));
    r.register(WARGAMES, Box::new(Wargames));
}
