//! Early War events (cards 8–34, 104, 105) not covered by a family module. Most are values of
//! a shape (`FixedChanges`, `Markers`, `War`); the rest are short events with typed steps.

use super::ids::*;
use super::placement::PlaceEvent;
use crate::shapes::{Change, FixedChanges, Markers, TargetEvent, War, Who};
use arbiter_twilight::card::CardSet;
use arbiter_twilight::ctx::{self, Ctx};
use arbiter_twilight::effect::Effect;
use arbiter_twilight::error::{illegal, Illegal};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::map::{iter_mask, CountryId, Map, SubRegion};
use arbiter_twilight::permission::{Action, Scope, Veto};
use arbiter_twilight::pipeline::Spend;
use arbiter_twilight::state::Pile;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, CardId, EventTask, Lasting, Move, Position, Prerequisite, Region, Ruleset, Side, Task, Words};

fn in_sub(c: CountryId, s: SubRegion) -> bool {
    Map::standard().country(c).in_sub(s)
}

// ------------------------------------------------------------------ Blockade (#10)

steps! {
    enum BlockadeStep { Answer }
}

/// Blockade: the US must discard a card worth 3+ Ops (modified, §7.4.2), or lose all its
/// Influence in West Germany. The US decides, in the USSR's round. The discarded card's event
/// does not occur (§5.4).
struct Blockade;

fn blockade_cards(p: Position) -> Vec<CardId> {
    p.st.hand(Side::Us).iter().filter(|c| !p.cards().info(*c).scoring && ctx::ops_number(p, *c, Side::Us, Spend::NOWHERE) >= 3).collect()
}

fn lose_west_germany(ctx: &mut Ctx) {
    let wg = country!("West Germany");
    let n = ctx.st().inf(Side::Us, wg);
    log!(ctx, "Blockade: the US loses all its Influence in West Germany");
    ctx.exec(Instr::RemoveInfluence { side: Side::Us, country: wg, n });
}

impl CardEvent for Blockade {
    type Step = BlockadeStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        if blockade_cards(ctx.pos()).is_empty() {
            ctx.log("Blockade: the US holds no card worth 3 or more Ops");
            return lose_west_germany(ctx);
        }
        ctx.push(Task::Event(EventTask::new(BLOCKADE, side).at(BlockadeStep::Answer)));
    }
    fn ask(&self, p: Position, _step: BlockadeStep, _t: &EventTask, words: Words) -> Ask {
        let mut choices: Vec<Move> = blockade_cards(p).into_iter().map(Move::Discard).collect();
        choices.push(Move::Choose(0));
        Ask {
            choices,
            ..Ask::options(
                Side::Us,
                words.say(|| {
                    "US: Blockade: `discard CARD` (a card worth 3 or more Ops) or `choose lose West Germany` (all US Influence there)"
                        .into()
                }),
                &["lose West Germany"],
            )
        }
    }
    fn answer(&self, ctx: &mut Ctx, _step: BlockadeStep, t: EventTask, m: &Move) {
        match m {
            Move::Discard(c) => {
                log!(ctx, "Blockade: the US discards {}; its event does not occur (§5.4)", ctx.card_name(*c));
                ctx.exec(Instr::MoveCard { card: *c, to: Pile::Discard });
            }
            Move::Choose(0) => lose_west_germany(ctx),
            _ => ctx.unexpected(&t, m),
        }
    }
}

fn truman_eligible(p: Position, _s: Side) -> u128 {
    let m = p.st.masks();
    Map::standard().region_mask(Region::Europe) & !(m.control[Side::Us.idx()] | m.control[Side::Ussr.idx()]) & m.presence[Side::Ussr.idx()]
}

fn truman(ctx: &mut Ctx, _side: Side, c: CountryId) {
    let n = ctx.st().inf(Side::Ussr, c);
    ctx.exec(Instr::RemoveInfluence { side: Side::Ussr, country: c, n });
}

fn reds_eligible(p: Position, _s: Side) -> u128 {
    let reds = countries!("Yugoslavia", "Romania", "Bulgaria", "Hungary", "Czechoslovakia");
    arbiter_twilight::map::iter_mask(reds).filter(|c| p.st.inf(Side::Ussr, *c) > p.st.inf(Side::Us, *c)).fold(0, |m, c| m | c.bit())
}

fn independent_reds(ctx: &mut Ctx, _side: Side, c: CountryId) {
    let n = ctx.st().inf(Side::Ussr, c).saturating_sub(ctx.st().inf(Side::Us, c));
    ctx.exec(Instr::AddInfluence { side: Side::Us, country: c, n });
}

fn indo_pakistani_eligible(_p: Position, _s: Side) -> u128 {
    countries!("India", "Pakistan")
}

const INDO_PAKISTANI: War = War { min_roll: 4, vp: 2, mil_ops: 2, target_counts: false };

fn indo_pakistani(ctx: &mut Ctx, side: Side, c: CountryId) {
    INDO_PAKISTANI.fight(ctx, side, c);
}

// ------------------------------------------------------------------ East European Unrest (#29)

steps! {
    enum UnrestStep { Target }
}

/// East European Unrest: the US removes 1 USSR Influence from each of 3 Eastern European
/// countries, 2 from each in the Late War (card text). Countries without USSR Influence are not
/// offered.
struct EastEuropeanUnrest;

impl CardEvent for EastEuropeanUnrest {
    type Step = UnrestStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(EAST_EUROPEAN_UNREST, side).at(UnrestStep::Target).count(3)));
    }
    fn ask(&self, p: Position, _step: UnrestStep, t: &EventTask, words: Words) -> Ask {
        let per = if p.st.turn >= 8 { 2 } else { 1 };
        // As sets (asked at every step): Eastern Europe, where the opponent has Influence
        // (`InfluenceMasks::presence`), not yet targeted.
        let open =
            Map::standard().sub_mask(SubRegion::EasternEurope) & p.st.masks().presence[t.side.opponent().idx()] & !t.picked.countries().0;
        let choices = iter_mask(open).map(Move::Target).collect();
        let prompt = words.say(|| {
            format!(
                "{}: East European Unrest: `target COUNTRY` in Eastern Europe to remove {per} {} Influence ({} {} left)",
                t.side,
                t.side.opponent(),
                t.count,
                if t.count == 1 { "country" } else { "countries" }
            )
        });
        Ask::new(t.side, prompt, choices)
    }
    fn answer(&self, ctx: &mut Ctx, _step: UnrestStep, t: EventTask, m: &Move) {
        let Move::Target(c) = m else { return ctx.unexpected(&t, m) };
        let per = if ctx.st().turn >= 8 { 2 } else { 1 };
        ctx.exec(Instr::RemoveInfluence { side: t.side.opponent(), country: *c, n: per });
        if t.count > 1 {
            ctx.push(Task::Event(EventTask { count: t.count - 1, picked: t.picked.with_country(*c), ..t }));
        }
    }
}

// ------------------------------------------------------------------ De-Stalinization (#33)

steps! {
    enum DeStalinStep { Remove, Place }
}

/// De-Stalinization: the USSR takes up to 4 of its Influence from anywhere (`remove COUNTRY`
/// per marker, `pass` to stop), then places them all in countries the US does not control, at
/// most 2 per country (`influence COUNTRY`).
struct DeStalinization;

impl CardEvent for DeStalinization {
    type Step = DeStalinStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(DE_STALINIZATION, side).at(DeStalinStep::Remove)));
    }
    fn ask(&self, p: Position, step: DeStalinStep, t: &EventTask, words: Words) -> Ask {
        let map = Map::standard();
        match step {
            DeStalinStep::Remove => {
                // Where this side has Influence (`InfluenceMasks::presence`): a set, not a
                // question per country (asked at every step).
                // Sized for the `pass` added below (collected exactly, it would grow again).
                let present = p.st.masks().presence[t.side.idx()];
                let mut choices = Vec::with_capacity(present.count_ones() as usize + 1);
                choices.extend(iter_mask(present).map(Move::Remove));
                let prompt = words.say(|| {
                    format!(
                        "{}: De-Stalinization: `remove COUNTRY` for each Influence to move ({} of up to 4 taken), then `pass`",
                        t.side, t.count
                    )
                });
                // "Up to 4": the USSR may stop at any time, even before taking any.
                Ask::new(t.side, prompt, choices).or_pass()
            }
            DeStalinStep::Place => {
                // As sets: every country but those the opponent controls (`InfluenceMasks::control`,
                // `State::controlled`) and those chosen twice already (`twice` holds only
                // countries also in `picked`).
                let open = map.all_mask() & !p.st.masks().control[t.side.opponent().idx()] & !(t.picked.countries().0 & t.twice.0);
                let choices = iter_mask(open).map(Move::Influence).collect();
                let prompt = words.say(|| {
                    format!(
                        "{}: De-Stalinization: `influence COUNTRY` in countries the {} does not control, at most 2 each ({} left)",
                        t.side,
                        t.side.opponent(),
                        t.count
                    )
                });
                Ask::new(t.side, prompt, choices)
            }
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: DeStalinStep, t: EventTask, m: &Move) {
        match (step, m) {
            (DeStalinStep::Remove, Move::Remove(c)) => {
                ctx.exec(Instr::RemoveInfluence { side: t.side, country: *c, n: 1 });
                let next = t.count(t.count + 1);
                ctx.push(Task::Event(if next.count >= 4 { next.at(DeStalinStep::Place) } else { next }));
            }
            (DeStalinStep::Remove, Move::Pass) if t.count == 0 => log!(ctx, "De-Stalinization: the {} moves no Influence", t.side),
            (DeStalinStep::Remove, Move::Pass) => ctx.push(Task::Event(t.at(DeStalinStep::Place))),
            (DeStalinStep::Place, Move::Influence(c)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 1 });
                let twice = if t.picked.countries().contains(*c) { t.twice.with(*c) } else { t.twice };
                let next = EventTask { picked: t.picked.with_country(*c), twice, count: t.count - 1, ..t };
                if next.count > 0 {
                    ctx.push(Task::Event(next));
                }
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

// ------------------------------------------------------------------ The Cambridge Five (#104)

steps! {
    enum CambridgeStep { Place }
}

/// The Cambridge Five: the US shows the USSR the scoring cards in its hand (only those, and
/// only to the USSR); the USSR may add 1 Influence in one country of a region named on a shown
/// card. It cannot be played as an event in the Late War (card text).
struct CambridgeFive;

fn scoring_region_mask(card: CardId) -> u128 {
    let map = Map::standard();
    match card {
        ASIA_SCORING => map.region_mask(Region::Asia),
        EUROPE_SCORING => map.region_mask(Region::Europe),
        MIDDLE_EAST_SCORING => map.region_mask(Region::MiddleEast),
        CENTRAL_AMERICA_SCORING => map.region_mask(Region::CentralAmerica),
        SOUTH_AMERICA_SCORING => map.region_mask(Region::SouthAmerica),
        AFRICA_SCORING => map.region_mask(Region::Africa),
        SOUTHEAST_ASIA_SCORING => map.sub_mask(SubRegion::SoutheastAsia),
        _ => 0,
    }
}

impl CardEvent for CambridgeFive {
    type Step = CambridgeStep;
    fn prerequisite(&self) -> Option<Prerequisite> {
        Some(|p, _side| {
            if p.st.turn >= 8 {
                illegal("The Cambridge Five cannot be played as an event in the Late War", CAMBRIDGE_FIVE.cite())
            } else {
                Ok(())
            }
        })
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let shown: CardSet = ctx.st().hand(side.opponent()).iter().filter(|c| ctx.rules.cards.info(*c).scoring).collect();
        if shown.is_empty() {
            log!(ctx, "The Cambridge Five: the {} holds no scoring card", side.opponent());
            ctx.reveal();
            return;
        }
        ctx.exec(Instr::Reveal { whose: side.opponent(), cards: shown, public: false });
        ctx.push(Task::Event(EventTask {
            picked: arbiter_twilight::Picked::of_cards(shown),
            ..EventTask::new(CAMBRIDGE_FIVE, side).at(CambridgeStep::Place)
        }));
    }
    fn ask(&self, _p: Position, _step: CambridgeStep, t: &EventTask, words: Words) -> Ask {
        let regions = t.picked.cards().iter().fold(0u128, |m, c| m | scoring_region_mask(c));
        let prompt = words.say(|| {
            format!("{}: The Cambridge Five: `influence COUNTRY` (1 Influence in a region of a scoring card shown), or `pass`", t.side)
        });
        Ask::new(t.side, prompt, iter_mask(regions).map(Move::Influence).collect()).or_pass()
    }
    fn answer(&self, ctx: &mut Ctx, _step: CambridgeStep, t: EventTask, m: &Move) {
        match m {
            Move::Influence(c) => ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 1 }),
            Move::Pass => log!(ctx, "The Cambridge Five: the {} adds no Influence", t.side),
            _ => ctx.unexpected(&t, m),
        }
    }
}

// ------------------------------------------------------------------ Special Relationship (#105)

steps! {
    enum SpecialStep { NextToUk, WesternEurope }
}

/// Special Relationship: if the US controls the United Kingdom: with NATO in effect, 2 US
/// Influence in one Western European country and 2 VP; otherwise 1 Influence in one country
/// adjacent to the United Kingdom. Without UK control the event has no effect (a condition).
struct SpecialRelationship;

impl CardEvent for SpecialRelationship {
    type Step = SpecialStep;
    fn condition(&self, p: Position, side: Side, _words: Words) -> Result<(), Illegal> {
        if p.st.controls(side, country!("United Kingdom")) {
            Ok(())
        } else {
            illegal("the US does not control the United Kingdom", SPECIAL_RELATIONSHIP.cite())
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let step = if ctx.st().has_effect(NATO) { SpecialStep::WesternEurope } else { SpecialStep::NextToUk };
        ctx.push(Task::Event(EventTask::new(SPECIAL_RELATIONSHIP, side).at(step)));
    }
    fn ask(&self, _p: Position, step: SpecialStep, t: &EventTask, words: Words) -> Ask {
        let map = Map::standard();
        match step {
            SpecialStep::NextToUk => Ask::new(
                t.side,
                words.say(|| format!("{}: Special Relationship: `influence COUNTRY` next to the United Kingdom", t.side)),
                map.country(country!("United Kingdom")).adjacent.iter().copied().map(Move::Influence).collect(),
            ),
            SpecialStep::WesternEurope => Ask::new(
                t.side,
                words.say(|| {
                    format!(
                        "{}: Special Relationship (NATO in effect): `target COUNTRY` in Western Europe for 2 Influence, and 2 VP",
                        t.side
                    )
                }),
                map.ids().filter(|c| in_sub(*c, SubRegion::WesternEurope)).map(Move::Target).collect(),
            ),
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: SpecialStep, t: EventTask, m: &Move) {
        match (step, m) {
            (SpecialStep::NextToUk, Move::Influence(c)) => ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 1 }),
            (SpecialStep::WesternEurope, Move::Target(c)) => {
                ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n: 2 });
                ctx.exec(Instr::Vp { side: t.side, n: 2 });
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

// ------------------------------------------------------------------ US/Japan Mutual Defense Pact (#27)

/// What the pact does in play: no USSR coup or realignment in Japan (card text).
struct JapanPact;

impl Lasting for JapanPact {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    fn vetoes(&self, _e: &Effect, out: &mut Vec<Veto>) {
        out.push(Veto {
            source: US_JAPAN_PACT,
            actor: Side::Ussr,
            actions: &[Action::Coup, Action::Realign],
            scope: Scope::Country(country!("Japan")),
            reason: "the US/Japan Mutual Defense Pact forbids USSR coups and realignments in Japan",
            rule: US_JAPAN_PACT.cite(),
        });
    }
}

// ------------------------------------------------------------------ registration

fn eastern_europe_not_us_controlled(p: Position, _s: Side) -> u128 {
    Map::standard().sub_mask(SubRegion::EasternEurope) & !p.st.masks().control[Side::Us.idx()]
}

fn suez(_p: Position, _s: Side) -> u128 {
    countries!("France", "United Kingdom", "Israel")
}

pub fn register(r: &mut Ruleset) {
    r.event(BLOCKADE, Blockade);
    r.event(
        TRUMAN_DOCTRINE,
        TargetEvent {
            card: TRUMAN_DOCTRINE,
            what: "remove all USSR Influence from an uncontrolled European country",
            eligible: truman_eligible,
            act: truman,
            times: 1,
        },
    );
    r.event(
        INDEPENDENT_REDS_CARD,
        TargetEvent {
            card: INDEPENDENT_REDS_CARD,
            what: "US Influence up to the USSR's in Yugoslavia, Romania, Bulgaria, Hungary or Czechoslovakia",
            eligible: reds_eligible,
            act: independent_reds,
            times: 1,
        },
    );
    r.event(
        INDO_PAKISTANI_WAR,
        TargetEvent {
            card: INDO_PAKISTANI_WAR,
            what: "India or Pakistan is invaded (war: 4-6 wins 2 VP, 2 military ops)",
            eligible: indo_pakistani_eligible,
            act: indo_pakistani,
            times: 1,
        },
    );
    r.event(EAST_EUROPEAN_UNREST, EastEuropeanUnrest);
    r.event(DE_STALINIZATION, DeStalinization);
    r.event(CAMBRIDGE_FIVE, CambridgeFive);
    r.event(SPECIAL_RELATIONSHIP, SpecialRelationship);
    r.event(
        COMECON,
        PlaceEvent {
            card: COMECON,
            markers: Markers {
                influence_of: Who::Owner,
                add: true,
                total: 4,
                max_per_country: 1,
                eligible: eastern_europe_not_us_controlled,
            },
            what: "add 1 Influence to each of 4 Eastern European countries the US does not control",
            lasting: false,
            optional: false,
        },
    );
    r.event(
        SUEZ_CRISIS,
        PlaceEvent {
            card: SUEZ_CRISIS,
            markers: Markers { influence_of: Who::Opponent, add: false, total: 4, max_per_country: 2, eligible: suez },
            what: "remove 4 US Influence from France, the United Kingdom and Israel, at most 2 per country",
            lasting: false,
            optional: false,
        },
    );
    for (card, country) in [(FIDEL, "Cuba"), (ROMANIAN_ABDICATION, "Romania")] {
        let changes: &'static [Change] = match country {
            "Cuba" => &[Change::RemoveAll(Who::Opponent, "Cuba"), Change::Control(Who::Owner, "Cuba")],
            _ => &[Change::RemoveAll(Who::Opponent, "Romania"), Change::Control(Who::Owner, "Romania")],
        };
        r.event(card, FixedChanges::new(card, changes, false));
    }
    r.event(NASSER, FixedChanges::new(NASSER, &[Change::Add(Who::Owner, "Egypt", 2), Change::RemoveHalf(Who::Opponent, "Egypt")], false));
    r.event(CAPTURED_NAZI_SCIENTIST, FixedChanges::new(CAPTURED_NAZI_SCIENTIST, &[Change::Space(Who::Owner)], false));
    r.event(NUCLEAR_TEST_BAN, FixedChanges::new(NUCLEAR_TEST_BAN, &[Change::VpFromDefcon(Who::Owner, -2), Change::Defcon(2)], false));
    r.event(US_JAPAN_PACT, FixedChanges::new(US_JAPAN_PACT, &[Change::Control(Who::Owner, "Japan")], true));
    r.lasting(US_JAPAN_PACT, JapanPact);
}
