//! Coups (§6.3): die + Ops − 2 × stability; a positive result removes that much opponent
//! Influence and the remainder becomes the coupper's own. Battlegrounds lower DEFCON (§6.3.4);
//! Ops coups earn military ops (§8.2), free coups do not (§8.2.5).

use crate::ctx::Ctx;
use crate::instr::{DomainEvent, Instr};
use crate::log;
use crate::map::{CountryId, Map};
use crate::pipeline::{self, RollKind};
use crate::registry::Cause;
use crate::side::Side;

/// Returns how much opponent Influence the coup removed.
pub fn resolve(ctx: &mut Ctx, side: Side, c: CountryId, ops: u8, free: bool) -> u8 {
    let country = Map::standard().country(c);
    let opp = side.opponent();
    log!(ctx, "{side} {}coups {} (stability {}) with {ops} Ops", if free { "free " } else { "" }, country.name, country.stability);
    ctx.emit(DomainEvent::CoupAttempted { side, country: c, free });
    if ctx.over() {
        return 0;
    }
    let roll = ctx.die(side);
    let mods = ctx.pos().die_modifiers();
    // The trace is for the log: quiet play takes only its value.
    let die = if ctx.logging {
        pipeline::die_total(roll, side, RollKind::Coup, country.region, &mods, &ctx.rules.cards)
    } else {
        pipeline::die_quiet(roll, side, RollKind::Coup, country.region, &mods)
    };
    let result = die.value + ops as i32 - 2 * country.stability as i32;
    log!(ctx, "Coup: roll {die}; + {ops} Ops - 2 x {} stability = {result} (§6.3.2)", country.stability);
    let mut removed = 0;
    if result > 0 {
        removed = (result.min(u8::MAX as i32) as u8).min(ctx.st.inf(opp, c));
        ctx.exec(Instr::RemoveInfluence { side: opp, country: c, n: removed });
        ctx.exec(Instr::AddInfluence { side, country: c, n: result as u8 - removed });
    } else {
        ctx.log("The coup fails");
    }
    let cause = Cause::Coup { side, country: c, free };
    if !free {
        ctx.exec_because(Instr::MilOps { side, n: ops }, cause);
    }
    if country.battleground {
        // §6.3.4; effects in play may spare it (Nuclear Subs).
        log!(ctx, "{} is a battleground: the coup lowers DEFCON (§6.3.4)", country.name);
        ctx.exec_because(Instr::ChangeDefcon(-1), cause);
    }
    removed
}
