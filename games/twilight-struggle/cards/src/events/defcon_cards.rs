//! DEFCON cards: Duck and Cover (#4), Nuclear Subs (#41), Wargames (#100), How I Learned to
//! Stop Worrying (#46), ABM Treaty (#57), Summit (#45).

use super::ids::{ABM_TREATY, DUCK_AND_COVER, HOW_I_LEARNED, NUCLEAR_SUBS, SUMMIT, WARGAMES};
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::error::{illegal, Illegal};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::registry::{Cause, Intent, Verdict};
use arbiter_twilight::scoring::{levels_now, Level};
use arbiter_twilight::state::{EndReason, Outcome};
use arbiter_twilight::Arg;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Lasting, Move, NoStep, OpsTask, Position, Region, Ruleset, Side, Task, Words};

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
    /// Asked about the DEFCON drops it cancels only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.instr(arbiter_twilight::instr::InstrKind::ChangeDefcon)
    }
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
    fn condition(&self, p: Position, _side: Side, words: Words) -> Result<(), Illegal> {
        if p.st.defcon == 2 {
            Ok(())
        } else {
            illegal(words.say(|| format!("Wargames acts only at DEFCON 2 (DEFCON is {})", p.st.defcon)), WARGAMES.cite())
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(WARGAMES, side).at(WargamesStep::Decide)));
    }
    fn ask(&self, _p: Position, _step: WargamesStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| {
            format!(
                "{}: Wargames: `choose end the game` (the {} gains 6 VP, then the leader wins) or `choose continue`",
                t.side,
                t.side.opponent()
            )
        });
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

steps! {
    enum WorryStep { Defcon }
}

/// How I Learned to Stop Worrying: the player sets DEFCON to any level 1–5 (`choose N`; 1
/// ends the game and the phasing player loses, §8.1.3) and the event counts as 5 military
/// operations (the track stops at 5, §8.2).
struct HowILearned;

const LEVELS: &[&str] = &["1", "2", "3", "4", "5"];

impl CardEvent for HowILearned {
    type Step = WorryStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(HOW_I_LEARNED, side).at(WorryStep::Defcon)));
    }
    fn ask(&self, p: Position, _step: WorryStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| {
            format!(
                "{}: How I Learned to Stop Worrying: set DEFCON to any level, `choose 1`..`choose 5` (now {}; 1 ends the game, the phasing player loses)",
                t.side, p.st.defcon
            )
        });
        Ask::options(t.side, prompt, LEVELS)
    }
    fn answer(&self, ctx: &mut Ctx, _step: WorryStep, t: EventTask, m: &Move) {
        let Move::Choose(i @ 0..=4) = *m else { return ctx.unexpected(&t, m) };
        log!(ctx, "The {} sets DEFCON to {}", t.side, i + 1);
        ctx.exec(Instr::SetDefcon(i + 1));
        ctx.exec(Instr::MilOps { side: t.side, n: 5 });
    }
}

/// ABM Treaty: DEFCON improves by 1, then the player conducts Operations "as if they played a 4
/// Ops card": 4 granted Ops, which Ops modifiers do not change (FAQ on Red Scare/Purge, as
/// Olympic Games' boycott); never on the space race, which is not an Operation an event grants
/// (FAQ §6.4).
struct AbmTreaty;

impl CardEvent for AbmTreaty {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::ChangeDefcon(1));
        ctx.push(Task::Ops(OpsTask::granted(side, 4)));
    }
}

steps! {
    enum SummitStep { Defcon }
}

/// Summit: both players roll, +1 for each region they dominate or control (the six scoring
/// regions; Southeast Asia is part of Asia); the higher total gains 2 VP and may move DEFCON
/// one level either way (`choose improve`, `choose degrade` or `pass`). A tie does nothing.
struct Summit;

fn summit_regions(p: Position, side: Side) -> Vec<Region> {
    Region::ALL.into_iter().filter(|r| matches!(levels_now(p, *r)[side.idx()], Level::Domination | Level::Control)).collect()
}

impl CardEvent for Summit {
    type Step = SummitStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let mut totals = [0i32; 2];
        for s in Side::BOTH {
            let regions = summit_regions(ctx.pos(), s);
            let roll = ctx.die(s);
            totals[s.idx()] = roll as i32 + regions.len() as i32;
            // The regions named for the log only: quiet play composes nothing.
            if ctx.logging {
                let why = if regions.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = regions.iter().map(|r| r.name()).collect();
                    format!(" + {} (dominates or controls {})", regions.len(), names.join(", "))
                };
                ctx.log(format!("Summit: the {s} rolls {roll}{why} = {}", totals[s.idx()]));
            }
        }
        let winner = match totals[0].cmp(&totals[1]) {
            std::cmp::Ordering::Greater => Side::Us,
            std::cmp::Ordering::Less => Side::Ussr,
            std::cmp::Ordering::Equal => {
                log!(ctx, "Summit: a tie: nothing happens");
                return;
            }
        };
        ctx.exec(Instr::Vp { side: winner, n: 2 });
        ctx.push(Task::Event(EventTask::new(SUMMIT, side).at(SummitStep::Defcon).arg(Arg::Side(winner))));
    }
    fn ask(&self, p: Position, _step: SummitStep, t: &EventTask, words: Words) -> Ask {
        let Arg::Side(winner) = t.arg else { return Ask::new(t.side, "", Vec::new()) };
        let prompt = words.say(|| {
            format!("{winner}: Summit: `choose improve` or `choose degrade` to move DEFCON (now {}) one level, or `pass`", p.st.defcon)
        });
        let mut ask = Ask::options(winner, prompt, &["improve", "degrade"]).or_pass();
        if p.st.defcon == 5 {
            ask.choices.retain(|m| *m != Move::Choose(0));
        }
        ask
    }
    fn answer(&self, ctx: &mut Ctx, _step: SummitStep, t: EventTask, m: &Move) {
        let Arg::Side(winner) = t.arg else { return ctx.unexpected(&t, m) };
        match m {
            Move::Choose(0) => ctx.exec(Instr::ChangeDefcon(1)),
            Move::Choose(1) => ctx.exec(Instr::ChangeDefcon(-1)),
            Move::Pass => log!(ctx, "The {winner} leaves DEFCON at {}", ctx.st().defcon),
            _ => ctx.unexpected(&t, m),
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(HOW_I_LEARNED, HowILearned);
    r.event(ABM_TREATY, AbmTreaty);
    r.event(SUMMIT, Summit);
    r.event(DUCK_AND_COVER, DuckAndCover);
    r.both(NUCLEAR_SUBS, NuclearSubs);
    r.event(WARGAMES, Wargames);
}
