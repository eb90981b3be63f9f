//! War cards (§7.6). Korean War (#11): the USSR attacks South Korea; 4–6 wins 2 VP; +2
//! military ops to the USSR either way. (2nd edition: it no longer lowers DEFCON, FAQ.)

use super::ids::KOREAN_WAR;
use crate::shapes::War;
use arbiter_engine::ctx::Ctx;
use arbiter_engine::{CardEvent, Map, Ruleset, Side};

/// A war against one fixed country.
struct FixedWar(War);

impl CardEvent for FixedWar {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let target = Map::standard().id(self.0.target);
        self.0.fight(ctx, side, target);
    }
}

pub fn register(r: &mut Ruleset) {
    r.register(KOREAN_WAR, Box::new(FixedWar(War { target: "South Korea", min_roll: 4, vp: 2, mil_ops: 2 })));
}
