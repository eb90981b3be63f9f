//! War cards (§7.6), each a value of `shapes::War`, and Flower Power, which watches them.
//!
//! - Korean War (#11): the USSR attacks South Korea; 4–6 wins 2 VP; +2 military ops to the
//!   USSR either way (2nd edition: it no longer lowers DEFCON, FAQ).
//! - Arab-Israeli War (#13): the USSR attacks Israel, −1 also if Israel itself is
//!   US-controlled (Deluxe text); prevented by Camp David Accords (card data).
//! - Brush War (#36): the player attacks any country of stability 1 or 2; 3–6 wins 1 VP; +3
//!   military ops. Under NATO the USSR may not attack a US-controlled European country (NATO's
//!   Deluxe text; a veto on `Action::War`, with NATO's own exceptions).
//! - Flower Power (#59, USSR, lasting): each time the US plays a war card for its event or
//!   for Operations (not to the space race), the USSR gains 2 VP; a headline is a play for the
//!   event. An Evil Empire cancels and prevents it (card data). A war card whose event a later
//!   card prevents (Arab-Israeli War after Camp David Accords) costs nothing: "unless made
//!   unplayable by a subsequent card" (FAQ #59).

use super::ids::{ARAB_ISRAELI_WAR, BRUSH_WAR, FLOWER_POWER, KOREAN_WAR};
use crate::shapes::{TargetEvent, War};
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::log;
use arbiter_twilight::map::CountryId;
use arbiter_twilight::permission::Action;
use arbiter_twilight::{CardEvent, Lasting, Map, NoStep, PlayMode, Position, Ruleset, Side};

/// A war against one fixed country (looked up once, at registration).
struct FixedWar(War, CountryId);

impl CardEvent for FixedWar {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        self.0.fight(ctx, side, self.1);
    }
}

const BRUSH: War = War { min_roll: 3, vp: 1, mil_ops: 3, target_counts: false };

fn brush_war_eligible(p: Position, side: Side) -> u128 {
    let map = Map::standard();
    let stability_1_or_2 = map.ids().filter(|c| map.country(*c).stability <= 2).fold(0u128, |m, c| m | c.bit());
    let masks = p.st.masks();
    p.vetoes().iter().fold(stability_1_or_2, |m, v| m & !v.mask(p.st, &masks, side, Action::War))
}

fn brush_war(ctx: &mut Ctx, side: Side, c: CountryId) {
    BRUSH.fight(ctx, side, c);
}

struct FlowerPower;

impl CardEvent for FlowerPower {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(FLOWER_POWER, side, Expiry::Permanent)));
    }
}

impl Lasting for FlowerPower {
    /// Asked about the opponent's card plays only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::CardPlayed)
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::CardPlayed { side, card, mode, .. } = *ev {
            let info = ctx.rules.cards.info(card);
            if side != e.owner.opponent() || mode == PlayMode::Space || !info.war {
                return;
            }
            // "Unless made unplayable by a subsequent card" (FAQ #59): a war card whose event
            // cannot take place now (Arab-Israeli War under Camp David Accords) costs nothing.
            let event_side = info.side.side().unwrap_or(side);
            if let Err(why) = ctx.pos().event_allowed(card, event_side) {
                log!(ctx, "Flower Power: {} is a war card made unplayable ({}): no VP (FAQ #59)", info.name, why.reason);
                return;
            }
            log!(ctx, "Flower Power: the {side} plays {}, a war card: the {} gains 2 VP", info.name, e.owner);
            ctx.exec(Instr::Vp { side: e.owner, n: 2 });
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(KOREAN_WAR, FixedWar(War { min_roll: 4, vp: 2, mil_ops: 2, target_counts: false }, Map::standard().id("South Korea")));
    r.event(ARAB_ISRAELI_WAR, FixedWar(War { min_roll: 4, vp: 2, mil_ops: 2, target_counts: true }, Map::standard().id("Israel")));
    r.event(
        BRUSH_WAR,
        TargetEvent {
            card: BRUSH_WAR,
            what: "attack a country of stability 1 or 2 (war: 3-6 wins 1 VP, 3 military ops)",
            eligible: brush_war_eligible,
            act: brush_war,
            times: 1,
        },
    );
    r.both(FLOWER_POWER, FlowerPower);
}
