//! DEFCON cards: Duck and Cover (#4), Nuclear Subs (#41), Wargames (#100).

use super::ids::{DUCK_AND_COVER, NUCLEAR_SUBS, WARGAMES};
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::error::{illegal, Illegal};
use arbiter_engine::instr::Instr;
use arbiter_engine::registry::{Cause, Intent, Verdict};
use arbiter_engine::state::{EndReason, Outcome};
use arbiter_engine::{log, steps};
use arbiter_engine::{Ask, CardEvent, EventTask, Lasting, Move, NoStep, Position, Ruleset, Side, Task};

/// DEFCON −1, then the US gains 5 − DEFCON VP.
struct DuckAndCover;

impl CardEvent for DuckAndCover {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        ctx.exec(Instr::ChangeDefcon(-1));
        let n = 5 - ctx.st().defcon;
        ctx.exec(Instr::Vp { side: Side::Us, n });
    }
}

/// For the rest of the turn US coups with Ops in battlegrounds do not lower DEFCON: it
/// cancels the DEFCON drop a US Ops coup is about to cause (events that change DEFCON still
/// do, and a free coup from an event is not Operations).
struct NuclearSubs;

impl CardEvent for NuclearSubs {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(NUCLEAR_SUBS, side, Expiry::EndOfTurn)));
    }
}

impl Lasting for NuclearSubs {
    fn intercept(&self, _p: Position, _e: &Effect, what: &Intent) -> Verdict {
        match what {
            Intent::Instr { instr: Instr::ChangeDefcon(d), cause: Cause::Coup { side: Side::Us, free: false, .. } } if *d < 0 => {
                Verdict::Cancel("spares DEFCON: a US coup with Ops in a battleground does not lower it (card text)".into())
            }
            _ => Verdict::Allow,
        }
    }
}

steps! {
    enum WargamesStep { Decide }
}

/// If DEFCON is 2, the player may give the opponent 6 VP and end the game; the leader wins
/// (no final scoring, FAQ). At other levels the card may still be played for its event, which
/// then has no effect and the card is discarded, not removed (FAQ).
struct Wargames;

impl CardEvent for Wargames {
    type Step = WargamesStep;
    fn condition(&self, p: Position, _side: Side) -> Result<(), Illegal> {
        if p.st.defcon == 2 {
            Ok(())
        } else {
            illegal(format!("Wargames acts only at DEFCON 2 (DEFCON is {})", p.st.defcon), "card text")
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(WARGAMES, side).at(WargamesStep::Decide)));
    }
    fn ask(&self, _p: Position, _step: WargamesStep, t: &EventTask) -> Ask {
        let prompt = format!(
            "{}: Wargames: `choose end the game` (the {} gains 6 VP, then the leader wins) or `choose continue`",
            t.side,
            t.side.opponent()
        );
        Ask::options(t.side, prompt, &["end the game", "continue"])
    }
    fn answer(&self, ctx: &mut Ctx, _step: WargamesStep, t: EventTask, m: &Move) {
        match m {
            Move::Choose(1) => log!(ctx, "{} lets the game go on", t.side),
            Move::Choose(0) => {
                ctx.exec(Instr::Vp { side: t.side.opponent(), n: 6 });
                let winner = match ctx.st().vp {
                    v if v > 0 => Some(Side::Us),
                    v if v < 0 => Some(Side::Ussr),
                    _ => None,
                };
                ctx.exec(Instr::EndGame(Outcome { winner, reason: EndReason::Wargames }));
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(DUCK_AND_COVER, DuckAndCover);
    r.both(NUCLEAR_SUBS, NuclearSubs);
    r.event(WARGAMES, Wargames);
}
