//! Events that place or remove Influence marker by marker: Decolonization, Marshall Plan.

use super::ids::*;
use crate::shapes::{in_region, Markers, Who};
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::instr::Instr;
use arbiter_engine::map::{CountryId, Map, SubRegion};
use arbiter_engine::steps;
use arbiter_engine::{Ask, CardEvent, CardId, EventTask, Move, Position, Region, Ruleset, Side, Task};

steps! {
    pub enum PlaceStep { Place }
}

/// An event that is one [`Markers`] step, optionally leaving a permanent marker effect.
pub struct PlaceEvent {
    pub card: CardId,
    pub markers: Markers,
    pub what: &'static str,
    /// Leaves a permanent effect in play (Marshall Plan enables NATO).
    pub lasting: bool,
}

impl CardEvent for PlaceEvent {
    type Step = PlaceStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        if self.lasting {
            ctx.exec(Instr::AddEffect(Effect::new(self.card, side, Expiry::Permanent)));
        }
        ctx.push(Task::Event(self.markers.task(self.card, side, PlaceStep::Place)));
    }
    fn ask(&self, p: Position, _step: PlaceStep, t: &EventTask) -> Ask {
        Ask::new(t.side, format!("{}: {} ({} left, {})", t.side, self.what, t.count, p.cards().name(self.card)), self.markers.options(p, t))
    }
    fn answer(&self, ctx: &mut Ctx, _step: PlaceStep, t: EventTask, m: &Move) {
        if let Some(next) = self.markers.apply(ctx, t, m) {
            ctx.push(Task::Event(next));
        }
    }
}

fn africa_or_southeast_asia(_p: Position, _s: Side, c: CountryId) -> bool {
    in_region(c, Region::Africa) || Map::standard().country(c).in_sub(SubRegion::SoutheastAsia)
}

fn western_europe_not_ussr_controlled(p: Position, _s: Side, c: CountryId) -> bool {
    Map::standard().country(c).in_sub(SubRegion::WesternEurope) && !p.st.controls(Side::Ussr, c)
}

pub fn register(r: &mut Ruleset) {
    r.event(
        DECOLONIZATION,
        PlaceEvent {
            card: DECOLONIZATION,
            markers: Markers { influence_of: Who::Owner, add: true, total: 4, max_per_country: 1, eligible: africa_or_southeast_asia },
            what: "add 1 Influence to each of 4 different countries in Africa or Southeast Asia",
            lasting: false,
        },
    );
    r.event(
        MARSHALL_PLAN,
        PlaceEvent {
            card: MARSHALL_PLAN,
            markers: Markers {
                influence_of: Who::Owner,
                add: true,
                total: 7,
                max_per_country: 1,
                eligible: western_europe_not_ussr_controlled,
            },
            what: "add 1 Influence to each of 7 Western European countries not controlled by the USSR",
            lasting: true,
        },
    );
}
