//! Events that place or remove Influence marker by marker (`PlaceEvent`, one `Markers` step):
//! Decolonization, Marshall Plan, Colonial Rear Guards, Puppet Governments, OAS Founded, The
//! Voice of America, Liberation Theology; and South African Unrest, a choice then markers.

use super::ids::*;
use crate::shapes::{Markers, Who};
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::map::{Map, SubRegion};
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, CardId, EventTask, Move, Position, Region, Ruleset, Side, Task, Words};

steps! {
    pub enum PlaceStep { Place }
}

/// An event that is one [`Markers`] step, optionally leaving a permanent marker effect. The
/// step ends when no marker can be placed (or removed) any more.
pub struct PlaceEvent {
    pub card: CardId,
    pub markers: Markers,
    pub what: &'static str,
    /// Leaves a permanent effect in play (Marshall Plan enables NATO).
    pub lasting: bool,
    /// "May": the player may stop with `pass` (Puppet Governments).
    pub optional: bool,
}

impl PlaceEvent {
    fn next(&self, ctx: &mut Ctx, t: EventTask) {
        if self.markers.open(ctx.pos(), &t) == 0 {
            log!(ctx, "{}: no country qualifies for the remaining {} ({})", ctx.card_name(self.card), t.count, self.what);
            return;
        }
        ctx.push(Task::Event(t));
    }
}

impl CardEvent for PlaceEvent {
    type Step = PlaceStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        if self.lasting {
            ctx.exec(Instr::AddEffect(Effect::new(self.card, side, Expiry::Permanent)));
        }
        self.next(ctx, self.markers.task(self.card, side, PlaceStep::Place));
    }
    fn ask(&self, p: Position, _step: PlaceStep, t: &EventTask, words: Words) -> Ask {
        let pass = if self.optional { "; `pass` to stop" } else { "" };
        let ask = Ask::new(
            t.side,
            words.say(|| format!("{}: {} ({} left, {}){pass}", t.side, self.what, t.count, p.cards().name(self.card))),
            self.markers.options(p, t),
        );
        if self.optional {
            ask.or_pass()
        } else {
            ask
        }
    }
    fn answer(&self, ctx: &mut Ctx, _step: PlaceStep, t: EventTask, m: &Move) {
        if *m == Move::Pass && self.optional {
            log!(ctx, "The {} places no more Influence ({})", t.side, ctx.card_name(self.card));
            return;
        }
        if let Some(next) = self.markers.apply(ctx, t, m) {
            self.next(ctx, next);
        }
    }
}

fn africa_or_southeast_asia(_p: Position, _s: Side) -> u128 {
    let map = Map::standard();
    map.region_mask(Region::Africa) | map.sub_mask(SubRegion::SoutheastAsia)
}

fn western_europe_not_ussr_controlled(p: Position, _s: Side) -> u128 {
    Map::standard().sub_mask(SubRegion::WesternEurope) & !p.st.masks().control[Side::Ussr.idx()]
}

fn no_influence(p: Position, _s: Side) -> u128 {
    let held = p.st.masks().presence;
    Map::standard().all_mask() & !(held[Side::Us.idx()] | held[Side::Ussr.idx()])
}

fn the_americas(_p: Position, _s: Side) -> u128 {
    let map = Map::standard();
    map.region_mask(Region::CentralAmerica) | map.region_mask(Region::SouthAmerica)
}

fn outside_europe(_p: Position, _s: Side) -> u128 {
    let map = Map::standard();
    map.all_mask() & !map.region_mask(Region::Europe)
}

fn central_america(_p: Position, _s: Side) -> u128 {
    Map::standard().region_mask(Region::CentralAmerica)
}

fn next_to_south_africa(_p: Position, _s: Side) -> u128 {
    countries!("Angola", "Botswana")
}

steps! {
    enum UnrestStep { Choose, Neighbours }
}

/// South African Unrest: the USSR adds 2 Influence to South Africa (`choose South Africa`),
/// or 1 to South Africa and 2 in total to the countries adjacent to it, Angola and Botswana
/// (`choose neighbours`, then `influence COUNTRY` twice; both may go to one country).
struct SouthAfricanUnrest;

const NEIGHBOURS: Markers = Markers { influence_of: Who::Owner, add: true, total: 2, max_per_country: 2, eligible: next_to_south_africa };

impl CardEvent for SouthAfricanUnrest {
    type Step = UnrestStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(SOUTH_AFRICAN_UNREST, side).at(UnrestStep::Choose)));
    }
    fn ask(&self, p: Position, step: UnrestStep, t: &EventTask, words: Words) -> Ask {
        match step {
            UnrestStep::Choose => Ask::options(
                t.side,
                words.say(|| {
                    format!(
                        "{}: South African Unrest: `choose South Africa` (2 Influence there) or `choose neighbours` (1 in South Africa and 2 in Angola and/or Botswana)",
                        t.side
                    )
                }),
                &["South Africa", "neighbours"],
            ),
            UnrestStep::Neighbours => Ask::new(
                t.side,
                words.say(|| format!("{}: South African Unrest: `influence COUNTRY` in Angola or Botswana ({} left)", t.side, t.count)),
                NEIGHBOURS.options(p, t),
            ),
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: UnrestStep, t: EventTask, m: &Move) {
        let south_africa = country!("South Africa");
        match (step, m) {
            (UnrestStep::Choose, Move::Choose(0)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: south_africa, n: 2 });
            }
            (UnrestStep::Choose, Move::Choose(1)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: south_africa, n: 1 });
                ctx.push(Task::Event(NEIGHBOURS.task(SOUTH_AFRICAN_UNREST, t.side, UnrestStep::Neighbours)));
            }
            (UnrestStep::Neighbours, _) => {
                if let Some(next) = NEIGHBOURS.apply(ctx, t, m) {
                    ctx.push(Task::Event(next));
                }
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(SOUTH_AFRICAN_UNREST, SouthAfricanUnrest);
    let add = |total, max_per_country, eligible| Markers { influence_of: Who::Owner, add: true, total, max_per_country, eligible };
    let table: [(CardId, Markers, &'static str, bool); 5] = [
        (
            COLONIAL_REAR_GUARDS,
            add(4, 1, africa_or_southeast_asia),
            "add 1 Influence to each of 4 different countries in Africa or Southeast Asia",
            false,
        ),
        (PUPPET_GOVERNMENTS, add(3, 1, no_influence), "add 1 Influence to each of 3 countries holding no Influence of either side", true),
        (OAS_FOUNDED, add(2, 2, the_americas), "add 2 Influence in Central and/or South America", false),
        (
            VOICE_OF_AMERICA,
            Markers { influence_of: Who::Opponent, add: false, total: 4, max_per_country: 2, eligible: outside_europe },
            "remove 4 USSR Influence outside Europe, at most 2 per country",
            false,
        ),
        (LIBERATION_THEOLOGY, add(3, 2, central_america), "add 3 Influence in Central America, at most 2 per country", false),
    ];
    for (card, markers, what, optional) in table {
        r.event(card, PlaceEvent { card, markers, what, lasting: false, optional });
    }
    r.event(
        DECOLONIZATION,
        PlaceEvent {
            card: DECOLONIZATION,
            markers: Markers { influence_of: Who::Owner, add: true, total: 4, max_per_country: 1, eligible: africa_or_southeast_asia },
            what: "add 1 Influence to each of 4 different countries in Africa or Southeast Asia",
            lasting: false,
            optional: false,
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
            optional: false,
        },
    );
}
