//! NATO (#21) and its prerequisites, Marshall Plan (#23, in `placement`) and Warsaw Pact
//! Formed (#16).

use super::ids::*;
use crate::shapes::{Markers, Who};
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::error::{illegal, Illegal};
use arbiter_engine::flow::EventTask;
use arbiter_engine::instr::Instr;
use arbiter_engine::map::{CountryId, Map, SubRegion};
use arbiter_engine::permission::{Action, Scope, Veto};
use arbiter_engine::{CardEvent, Move, Position, Region, Ruleset, Side, Task};

struct Nato {
    /// Freed from NATO by De Gaulle Leads France and Willy Brandt: resolved once.
    france: CountryId,
    west_germany: CountryId,
}

impl CardEvent for Nato {
    /// §5.2: NATO needs Marshall Plan or Warsaw Pact Formed played first.
    fn can_occur(&self, p: Position, _side: Side) -> Result<(), Illegal> {
        if p.st.has_effect(MARSHALL_PLAN) || p.st.has_effect(WARSAW_PACT) {
            Ok(())
        } else {
            illegal("NATO needs Marshall Plan or Warsaw Pact Formed to have been played", "card text, §5.2")
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect { card: NATO, owner: side, expiry: Expiry::Permanent, param: 0 }));
    }
    fn vetoes(&self, _e: &Effect, out: &mut Vec<Veto>) {
        out.push(Veto {
            source: NATO,
            actor: Side::Ussr,
            actions: vec![Action::Coup, Action::Realign],
            scope: Scope::ControlledBy {
                side: Side::Us,
                region: Region::Europe,
                except: vec![(DE_GAULLE, self.france), (WILLY_BRANDT, self.west_germany)],
            },
            reason: "NATO protects US-controlled countries in Europe from USSR coups and realignments",
            rule: "card text",
        });
    }
}

/// Warsaw Pact Formed: remove all US Influence from 4 Eastern European countries, or add 5
/// USSR Influence there (at most 2 per country). Enables NATO.
struct WarsawPact;

const CHOOSE: u8 = 0;
const REMOVE: u8 = 1;
const ADD: u8 = 2;

fn eastern_europe(_p: Position, _s: Side, c: CountryId) -> bool {
    Map::standard().country(c).in_sub(SubRegion::EasternEurope)
}

const ADD_FIVE: Markers = Markers { influence_of: Who::Owner, add: true, total: 5, max_per_country: 2, eligible: eastern_europe };

impl CardEvent for WarsawPact {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect { card: WARSAW_PACT, owner: side, expiry: Expiry::Permanent, param: 0 }));
        ctx.push(Task::Event(EventTask::new(WARSAW_PACT, side)));
    }
    fn labels(&self, _t: &EventTask) -> &'static [&'static str] {
        &["remove", "add"]
    }
    fn prompt(&self, _p: Position, t: &EventTask) -> String {
        match t.stage {
            CHOOSE => "USSR: Warsaw Pact Formed: `choose remove` (all US Influence from 4 Eastern European countries) or `choose add` (5 Influence in Eastern Europe, at most 2 per country)".into(),
            REMOVE => format!("USSR: remove all US Influence from an Eastern European country ({} left)", t.count),
            _ => format!("USSR: add Influence in Eastern Europe, at most 2 per country ({} left)", t.count),
        }
    }
    fn options(&self, p: Position, t: &EventTask) -> Vec<Move> {
        let map = Map::standard();
        match t.stage {
            CHOOSE => vec![Move::Choose(0), Move::Choose(1)],
            REMOVE => map
                .ids()
                .filter(|c| eastern_europe(p, t.side, *c) && p.st.inf(Side::Us, *c) > 0 && t.picked & c.bit() == 0)
                .map(Move::Target)
                .collect(),
            _ => ADD_FIVE.options(p, t),
        }
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        match (t.stage, m) {
            (CHOOSE, Move::Choose(0)) => ctx.push(Task::Event(EventTask::new(WARSAW_PACT, t.side).stage(REMOVE).count(4))),
            (CHOOSE, _) => ctx.push(Task::Event(ADD_FIVE.task(WARSAW_PACT, t.side, ADD))),
            (REMOVE, Move::Target(c)) => {
                let n = ctx.st.inf(Side::Us, *c);
                ctx.exec(Instr::RemoveInfluence { side: Side::Us, country: *c, n });
                if t.count > 1 {
                    ctx.push(Task::Event(EventTask { count: t.count - 1, picked: t.picked | c.bit(), ..t }));
                }
            }
            _ => {
                if let Some(next) = ADD_FIVE.apply(ctx, t, m) {
                    ctx.push(Task::Event(next));
                }
            }
        }
    }
}

pub fn register(r: &mut Ruleset) {
    let map = Map::standard();
    r.register(NATO, Box::new(Nato { france: map.id("France"), west_germany: map.id("West Germany") }));
    r.register(WARSAW_PACT, Box::new(WarsawPact));
}
