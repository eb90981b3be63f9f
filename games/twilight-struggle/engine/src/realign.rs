//! Realignment (§6.2): both players roll; each adds +1 per adjacent country it controls, +1 for
//! more Influence in the target, +1 if its own superpower is adjacent (counted once: §2.1.5 is
//! the same bonus, not another). The difference comes off the loser's Influence; ties do nothing.

use crate::ctx::Ctx;
use crate::instr::Instr;
use crate::log;
use crate::map::{iter_mask, CountryId, Map};
use crate::pipeline::{self, RollKind, Traced};
use crate::registry::{Position, Words};
use crate::side::Side;

/// The realignment modifiers of `side` for target `c`, as base-rule steps of a trace.
pub fn modifiers(p: Position, side: Side, c: CountryId) -> Vec<pipeline::DieModifier> {
    modifiers_with(p, side, c, Words::Compose)
}

/// [`modifiers`], their labels composed only if `words` asks for them: a quiet roll (random
/// playouts) reads only the numbers, and the labels were 2 % of `arbiter bench`.
fn modifiers_with(p: Position, side: Side, c: CountryId, words: Words) -> Vec<pipeline::DieModifier> {
    let map = Map::standard();
    let country = map.country(c);
    let mut v = Vec::new();
    let rule = |label: String, add: i8| pipeline::DieModifier {
        source: pipeline::Source::Rule(label),
        roller: side,
        kind: RollKind::Realign,
        regions: None,
        add,
    };
    let controlled = || iter_mask(map.adjacency_mask(c)).filter(|a| p.st.controls(side, *a));
    let count = controlled().count();
    if count > 0 {
        let names = || controlled().map(|a| map.name(a)).collect::<Vec<_>>().join(", ");
        v.push(rule(words.say(|| format!("adjacent controlled ({})", names())), count as i8));
    }
    if p.st.inf(side, c) > p.st.inf(side.opponent(), c) {
        v.push(rule(words.say(|| "more Influence".into()), 1));
    }
    if country.superpower == Some(side) {
        v.push(rule(words.say(|| format!("adjacent to the {side}")), 1));
    }
    v.extend(p.die_modifiers());
    v
}

pub fn roll(ctx: &mut Ctx, side: Side, c: CountryId) -> Traced {
    // The trace is for the log: quiet play takes only its value.
    let mods = modifiers_with(ctx.pos(), side, c, Words::when(ctx.logging));
    let r = ctx.die(side);
    let region = Map::standard().country(c).region;
    if ctx.logging {
        pipeline::die_total(r, side, RollKind::Realign, region, &mods, &ctx.rules.cards)
    } else {
        pipeline::die_quiet(r, side, RollKind::Realign, region, &mods)
    }
}

pub fn resolve(ctx: &mut Ctx, side: Side, c: CountryId) {
    let name = Map::standard().name(c);
    let mine = roll(ctx, side, c);
    let theirs = roll(ctx, side.opponent(), c);
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
