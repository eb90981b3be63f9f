//! War cards (§7.6), each a value of `shapes::War`. Korean War (#11): the USSR attacks South
//! Korea; 4–6 wins 2 VP; +2 military ops to the USSR either way (2nd edition: it no longer
//! lowers DEFCON, FAQ). Arab-Israeli War (#13): the USSR attacks Israel, −1 also if Israel
//! itself is US-controlled (Deluxe text); prevented by Camp David Accords (card data).

use super::ids::{ARAB_ISRAELI_WAR, KOREAN_WAR};
use crate::shapes::War;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::{CardEvent, Map, NoStep, Ruleset, Side};

/// A war against one fixed country.
struct FixedWar(War);

impl CardEvent for FixedWar {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let target = Map::standard().id(self.0.target);
        self.0.fight(ctx, side, target);
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(KOREAN_WAR, FixedWar(War { target: "South Korea", min_roll: 4, vp: 2, mil_ops: 2, target_counts: false }));
    r.event(ARAB_ISRAELI_WAR, FixedWar(War { target: "Israel", min_roll: 4, vp: 2, mil_ops: 2, target_counts: true }));
}
