//! NATO (#21) and its prerequisites, Marshall Plan (#23, in `placement`) and Warsaw Pact
//! Formed (#16). NATO's prerequisite is card data (`requires_any`); De Gaulle Leads France and
//! Willy Brandt free France and West Germany from it (data in the veto).

use super::ids::*;
use crate::shapes::{Markers, Who};
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::map::{CountryId, Map, SubRegion};
use arbiter_twilight::permission::{Action, Scope, Veto};
use arbiter_twilight::steps;
use arbiter_twilight::{Ask, CardEvent, EventTask, Lasting, Move, NoStep, Position, Region, Ruleset, Side, Task, Words};

struct Nato {
    /// Freed from NATO by De Gaulle Leads France and Willy Brandt.
    france: CountryId,
    west_germany: CountryId,
}

impl CardEvent for Nato {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(NATO, side, Expiry::Permanent)));
    }
}

impl Lasting for Nato {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    fn vetoes(&self, _e: &Effect, out: &mut Vec<Veto>) {
        out.push(Veto {
            source: NATO,
            actor: Side::Ussr,
            // Deluxe text: "...cannot be attacked by play of the Brush War event".
            actions: &[Action::Coup, Action::Realign, Action::War],
            scope: Scope::ControlledBy {
                side: Side::Us,
                region: Region::Europe,
                except: [(DE_GAULLE, self.france), (WILLY_BRANDT, self.west_germany)].into_iter().collect(),
            },
            reason: "NATO protects US-controlled countries in Europe from USSR coups, realignments and Brush War",
            rule: NATO.cite(),
        });
    }
}

/// Warsaw Pact Formed: remove all US Influence from 4 Eastern European countries, or add 5
/// USSR Influence there (at most 2 per country). Enables NATO.
struct WarsawPact;

steps! {
    enum WarsawStep { Choose, Remove, Add }
}

fn eastern_europe(_p: Position, _s: Side) -> u128 {
    Map::standard().sub_mask(SubRegion::EasternEurope)
}

const ADD_FIVE: Markers = Markers { influence_of: Who::Owner, add: true, total: 5, max_per_country: 2, eligible: eastern_europe };

impl CardEvent for WarsawPact {
    type Step = WarsawStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(WARSAW_PACT, side, Expiry::Permanent)));
        ctx.push(Task::Event(EventTask::new(WARSAW_PACT, side).at(WarsawStep::Choose)));
    }
    fn ask(&self, p: Position, step: WarsawStep, t: &EventTask, words: Words) -> Ask {
        match step {
            WarsawStep::Choose => Ask::options(
                t.side,
                words.say(|| "USSR: Warsaw Pact Formed: `choose remove` (all US Influence from 4 Eastern European countries) or `choose add` (5 Influence in Eastern Europe, at most 2 per country)".into()),
                &["remove", "add"],
            ),
            WarsawStep::Remove => Ask::new(
                t.side,
                words.say(|| format!("USSR: remove all US Influence from an Eastern European country ({} left)", t.count)),
                arbiter_twilight::map::iter_mask(
                    eastern_europe(p, t.side) & p.st.masks().presence[Side::Us.idx()] & !t.picked.countries().0,
                )
                .map(Move::Target)
                .collect(),
            ),
            WarsawStep::Add => Ask::new(
                t.side,
                words.say(|| format!("USSR: add Influence in Eastern Europe, at most 2 per country ({} left)", t.count)),
                ADD_FIVE.options(p, t),
            ),
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: WarsawStep, t: EventTask, m: &Move) {
        match (step, m) {
            (WarsawStep::Choose, Move::Choose(0)) => ctx.push(Task::Event(t.at(WarsawStep::Remove).count(4))),
            (WarsawStep::Choose, Move::Choose(1)) => ctx.push(Task::Event(ADD_FIVE.task(WARSAW_PACT, t.side, WarsawStep::Add))),
            (WarsawStep::Remove, Move::Target(c)) => {
                let n = ctx.st().inf(Side::Us, *c);
                ctx.exec(Instr::RemoveInfluence { side: Side::Us, country: *c, n });
                if t.count > 1 {
                    ctx.push(Task::Event(EventTask { count: t.count - 1, picked: t.picked.with_country(*c), ..t }));
                }
            }
            (WarsawStep::Add, _) => {
                if let Some(next) = ADD_FIVE.apply(ctx, t, m) {
                    ctx.push(Task::Event(next));
                }
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

pub fn register(r: &mut Ruleset) {
    let map = Map::standard();
    r.both(NATO, Nato { france: map.id("France"), west_germany: map.id("West Germany") });
    r.event(WARSAW_PACT, WarsawPact);
}
