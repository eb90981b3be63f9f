//! Coups (§6.3): die + Ops − 2 × stability; a positive result removes that much opponent
//! Influence and the remainder becomes the coupper's own. Battlegrounds lower DEFCON (§6.3.4);
//! Ops coups earn military ops (§8.2), free coups do not (§8.2.5).

use crate::ctx::Ctx;
use crate::instr::{DomainEvent, Instr};
use crate::log;
use crate::map::{CountryId, Map};
use crate::pipeline::{self, RollKind};
use crate::side::Side;

pub fn resolve(ctx: &mut Ctx, side: Side, c: CountryId, ops: u8, free: bool) {
    let country = Map::standard().country(c);
    let opp = side.opponent();
    log!(ctx, "{side} {}coups {} (stability {}) with {ops} Ops", if free { "free " } else { "" }, country.name, country.stability);
    ctx.emit(DomainEvent::CoupAttempted { side, country: c, free });
    if ctx.over() {
        return;
    }
    let roll = ctx.die(side);
    let die = pipeline::die_total(roll, side, RollKind::Coup, country.region, &ctx.pos().die_modifiers(), &ctx.rules.cards);
    let result = die.value + ops as i32 - 2 * country.stability as i32;
    log!(ctx, "Coup: roll {die}; + {ops} Ops - 2 x {} stability = {result} (§6.3.2)", country.stability);
    if result > 0 {
        let removed = (result as u8).min(ctx.st.inf(opp, c));
        ctx.exec(Instr::RemoveInfluence { side: opp, country: c, n: removed });
        ctx.exec(Instr::AddInfluence { side, country: c, n: result as u8 - removed });
    } else {
        ctx.log("The coup fails");
    }
    if !free {
        ctx.exec(Instr::MilOps { side, n: ops });
    }
    if country.battleground {
        let spared = ctx.st.effects.iter().find(|e| ctx.rules.event(e.card).is_some_and(|h| h.spares_defcon(e, side, free)));
        match spared {
            Some(e) => {
                let n = ctx.card_name(e.card).to_string();
                log!(ctx, "{n}: this battleground coup does not lower DEFCON");
            }
            None => {
                log!(ctx, "{} is a battleground: DEFCON drops (§6.3.4)", country.name);
                ctx.exec(Instr::ChangeDefcon(-1));
            }
        }
    }
}
