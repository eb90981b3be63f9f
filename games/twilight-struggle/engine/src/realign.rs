//! Realignment (§6.2): both players roll; each adds +1 per adjacent country it controls, +1 for
//! more Influence in the target, +1 if its own superpower is adjacent (counted once: §2.1.5 is
//! the same bonus, not another). The difference comes off the loser's Influence; ties do nothing.

use crate::ctx::Ctx;
use crate::instr::Instr;
use crate::log;
use crate::map::{iter_mask, CountryId, Map};
use crate::pipeline::{self, DieModifier, RollKind, Traced};
use crate::registry::Position;
use crate::side::Side;

/// The base rule's modifiers of `side`'s realignment roll on `c` (§6.2), as numbers: what both
/// the traced modifiers and a quiet roll read, so the two cannot disagree.
struct Base {
    /// +1 per adjacent country `side` controls.
    adjacent_controlled: u8,
    /// +1 for more Influence than the opponent in the target.
    more_influence: bool,
    /// +1 if `side`'s own superpower is adjacent.
    superpower_adjacent: bool,
}

impl Base {
    fn of(p: Position, side: Side, c: CountryId) -> Base {
        let map = Map::standard();
        Base {
            // The control masks are the Influence table's (§2.1.7; the invariant checks compare
            // them): one AND instead of a control test per neighbour.
            adjacent_controlled: (map.adjacency_mask(c) & p.st.masks().control[side.idx()]).count_ones() as u8,
            more_influence: p.st.inf(side, c) > p.st.inf(side.opponent(), c),
            superpower_adjacent: map.country(c).superpower == Some(side),
        }
    }

    fn total(&self) -> i32 {
        self.adjacent_controlled as i32 + self.more_influence as i32 + self.superpower_adjacent as i32
    }
}

/// The realignment modifiers of `side` for target `c`, as base-rule steps of a trace, then the
/// effects' die modifiers.
pub fn modifiers(p: Position, side: Side, c: CountryId) -> Vec<DieModifier> {
    let map = Map::standard();
    let base = Base::of(p, side, c);
    let rule = |label: String, add: i8| DieModifier {
        source: pipeline::Source::Rule(label),
        roller: side,
        kind: RollKind::Realign,
        regions: None,
        add,
    };
    let mut v = Vec::new();
    if base.adjacent_controlled > 0 {
        let names = iter_mask(map.adjacency_mask(c) & p.st.masks().control[side.idx()]).map(|a| map.name(a)).collect::<Vec<_>>().join(", ");
        v.push(rule(format!("adjacent controlled ({names})"), base.adjacent_controlled as i8));
    }
    if base.more_influence {
        v.push(rule("more Influence".into(), 1));
    }
    if base.superpower_adjacent {
        v.push(rule(format!("adjacent to the {side}"), 1));
    }
    v.extend(p.die_modifiers());
    v
}

/// One roll of `side` on `c`, its trace composed only when logging (quiet play takes only its
/// value, from the same base modifiers and the effects' die modifiers `effect_mods`).
fn roll(ctx: &mut Ctx, side: Side, c: CountryId, effect_mods: &[DieModifier]) -> Traced {
    let region = Map::standard().country(c).region;
    if ctx.logging {
        let mods = modifiers(ctx.pos(), side, c);
        let r = ctx.die(side);
        pipeline::die_total(r, side, RollKind::Realign, region, &mods, &ctx.rules.cards)
    } else {
        let base = Base::of(ctx.pos(), side, c).total();
        let r = ctx.die(side);
        let mut t = pipeline::die_quiet(r, side, RollKind::Realign, region, effect_mods);
        t.value += base;
        t
    }
}

pub fn resolve(ctx: &mut Ctx, side: Side, c: CountryId) {
    let name = Map::standard().name(c);
    // Read once for both rolls: rolling the dice changes no effect in play. (The log's traces
    // read them again, with their words.)
    let effect_mods = if ctx.logging { Vec::new() } else { ctx.pos().die_modifiers() };
    let mine = roll(ctx, side, c, &effect_mods);
    let theirs = roll(ctx, side.opponent(), c, &effect_mods);
    log!(ctx, "{side} realigns {name}: {side} {mine}; {} {theirs} (§6.2)", side.opponent());
    let diff = mine.value - theirs.value;
    if diff == 0 {
        log!(ctx, "Tie: nothing happens");
        return;
    }
    let loser = if diff > 0 { side.opponent() } else { side };
    let have = ctx.st.inf(loser, c);
    let n = (diff.unsigned_abs() as u8).min(have);
    log!(
        ctx,
        "{} wins by {}: the {loser} loses {n} Influence in {name}{}",
        loser.opponent(),
        diff.abs(),
        if n == 0 { " (it has none)" } else { "" }
    );
    ctx.exec(Instr::RemoveInfluence { side: loser, country: c, n });
}
