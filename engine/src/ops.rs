//! Spending Operations (§6): one activity per card. Influence one marker at a time (cost
//! re-checked per marker, §6.1.2), realignment one roll at a time, or one coup. The Ops value
//! follows how the Ops are actually spent (the China Card's and Vietnam Revolts' conditions).

use crate::ctx::{self, Ctx};
use crate::defcon;
use crate::error::{illegal, Illegal};
use crate::flow::{OpsKind, OpsTask, Task};
use crate::map::{CountryId, Map};
use crate::moves::Move;
use crate::permission::Action;
use crate::pipeline::{Spend, Traced};
use crate::registry::Position;
use crate::side::Side;

/// The Ops value if the rest is spent consistently with `spend`.
pub fn value(p: Position, o: &OpsTask, spend: Spend) -> Traced {
    match o.card {
        Some(card) => ctx::ops_value(p, card, o.side, spend),
        None => Traced { base: o.granted as i32, base_label: "granted by the event", steps: Vec::new(), value: o.granted as i32 },
    }
}

fn spend_after(o: &OpsTask, c: CountryId) -> Spend {
    let k = Map::standard().country(c);
    Spend { all_in_asia: o.spend.all_in_asia && k.in_asia(), all_in_southeast_asia: o.spend.all_in_southeast_asia && k.in_southeast_asia() }
}

/// The Ops value of this play if the next Op goes to `c` (what a coup there would use).
pub fn value_if_spent_in(p: Position, o: &OpsTask, c: CountryId) -> Traced {
    value(p, o, spend_after(o, c))
}

pub fn prompt(p: Position, o: &OpsTask) -> String {
    let best = value(p, o, o.spend).value;
    let what = match o.kind {
        None => "place Influence, realign, or coup",
        Some(OpsKind::Influence) => "place Influence",
        Some(OpsKind::Realign) => "realign",
        Some(OpsKind::Coup) => "coup",
    };
    format!("{}: {} Ops spent of up to {best}: {what} (§6)", o.side, o.spent)
}

pub fn candidates(_p: Position) -> Vec<Move> {
    let map = Map::standard();
    map.ids().flat_map(|c| [Move::Influence(c), Move::Realign(c), Move::Coup(c)]).collect()
}

/// Influence placement cost (§6.1.2): 2 in an enemy-controlled country, else 1.
pub fn influence_cost(p: Position, side: Side, c: CountryId) -> u8 {
    if p.st.controls(side.opponent(), c) {
        2
    } else {
        1
    }
}

/// §6.1.1, §6.1.4: in or next to a country holding the player's Influence at the start of the
/// round, or next to the player's own superpower.
pub fn accessible(p: Position, side: Side, c: CountryId) -> bool {
    let map = Map::standard();
    let had = p.st.round_start_presence[side.idx()];
    had & (c.bit() | map.adjacency_mask(c)) != 0 || map.country(c).superpower == Some(side)
}

fn vetoed(p: Position, side: Side, action: Action, c: CountryId) -> Result<(), Illegal> {
    match p.vetoes().into_iter().find(|v| v.forbids(p.st, side, action, c)) {
        Some(v) => illegal(format!("{} ({})", v.reason, p.cards().name(v.source)), v.rule),
        None => Ok(()),
    }
}

pub fn check(p: Position, o: &OpsTask, m: &Move) -> Result<(), Illegal> {
    let map = Map::standard();
    let side = o.side;
    let (kind, c) = match m {
        Move::Influence(c) => (OpsKind::Influence, *c),
        Move::Realign(c) => (OpsKind::Realign, *c),
        Move::Coup(c) => (OpsKind::Coup, *c),
        _ => return illegal("Operations are spent with `influence`, `realign` or `coup`", "§6"),
    };
    let country = map.country(c);
    let name = &country.name;
    if !o.allows(kind) {
        return match o.kind {
            Some(k) if k != kind => illegal(format!("this card's Ops are already being spent on {k:?}: all Ops go to one activity"), "§6"),
            _ => illegal(format!("{kind:?} is not allowed with these Ops"), "card text"),
        };
    }
    if o.regions != 0 && o.regions & (1 << country.region as u8) == 0 {
        return illegal(format!("{name} is outside the regions the event allows"), "card text");
    }
    let after = spend_after(o, c);
    let avail = value(p, o, after).value;
    match kind {
        OpsKind::Influence => {
            vetoed(p, side, Action::Influence, c)?;
            if !accessible(p, side, c) {
                return illegal(format!("{side} had no Influence in or next to {name} at the start of the action round"), "§6.1.1");
            }
            let cost = influence_cost(p, side, c);
            if o.spent as i32 + cost as i32 > avail {
                return illegal(
                    format!("{name} costs {cost} Op(s) and only {} remain if spent there", (avail - o.spent as i32).max(0)),
                    if cost == 2 { "§6.1.2" } else { "§6.1" },
                );
            }
            Ok(())
        }
        OpsKind::Realign | OpsKind::Coup => {
            let (act, rule) = if kind == OpsKind::Coup { (Action::Coup, "§6.3.1") } else { (Action::Realign, "§6.2") };
            if p.st.inf(side.opponent(), c) == 0 {
                return illegal(
                    format!(
                        "{} has no {} Influence in {name}",
                        if kind == OpsKind::Coup { "the target" } else { "the target" },
                        side.opponent()
                    ),
                    rule,
                );
            }
            if !o.free && defcon::closes(p.st.defcon, country.region) {
                let what = if kind == OpsKind::Coup { "coups" } else { "realignments" };
                return illegal(format!("DEFCON {} closes {} to {what}", p.st.defcon, country.region), "§8.1.5");
            }
            vetoed(p, side, act, c)?;
            if o.spent as i32 + 1 > avail {
                return illegal("no Ops remain", "§6.2");
            }
            Ok(())
        }
    }
}

pub fn apply(ctx: &mut Ctx, mut o: OpsTask, m: &Move) {
    let side = o.side;
    match *m {
        Move::Influence(c) => {
            let cost = influence_cost(ctx.pos(), side, c);
            o.kind = Some(OpsKind::Influence);
            o.spent += cost;
            o.spend = spend_after(&o, c);
            if cost == 2 {
                ctx.log(format!("{} is {}-controlled: this marker costs 2 Ops (§6.1.2)", Map::standard().name(c), side.opponent()));
            }
            ctx.exec(crate::instr::Instr::AddInfluence { side, country: c, n: 1 });
            continue_or_finish(ctx, o);
        }
        Move::Realign(c) => {
            o.kind = Some(OpsKind::Realign);
            o.spent += 1;
            o.spend = spend_after(&o, c);
            crate::realign::resolve(ctx, side, c);
            continue_or_finish(ctx, o);
        }
        Move::Coup(c) => {
            o.kind = Some(OpsKind::Coup);
            o.spend = spend_after(&o, c);
            let ops = value(ctx.pos(), &o, o.spend);
            o.spent = ops.value as u8;
            ctx.log(format!("{side} Ops value: {ops}"));
            crate::coup::resolve(ctx, side, c, ops.value as u8, o.free);
        }
        _ => {}
    }
}

fn continue_or_finish(ctx: &mut Ctx, o: OpsTask) {
    let total = value(ctx.pos(), &o, o.spend).value;
    if (o.spent as i32) < total {
        // More to spend: `flow::run` finishes the task if no legal use remains.
        ctx.push(Task::Ops(o));
    } else {
        finish(ctx, &o, "all spent");
    }
}

/// Log the final Ops value, following how they were actually spent.
pub fn finish(ctx: &mut Ctx, o: &OpsTask, why: &str) {
    let v = value(ctx.pos(), o, o.spend);
    let unused = v.value - o.spent as i32;
    if unused > 0 {
        ctx.log(format!("{} Ops value: {v}; {} spent, {unused} lost: {why}", o.side, o.spent));
    } else {
        ctx.log(format!("{} Ops value: {v}; all spent", o.side));
    }
}
