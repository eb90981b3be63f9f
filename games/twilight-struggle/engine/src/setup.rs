//! Setup (§3): deal 8 cards each, then the USSR places 6 Influence in Eastern Europe, the US 7
//! in Western Europe, and the optional US bonus where the US already has Influence.

use crate::ctx::Ctx;
use crate::error::{illegal, Illegal};
use crate::instr::Instr;
use crate::map::{Map, SubRegion};
use crate::moves::Move;
use crate::refuse;
use crate::registry::Position;
use crate::side::Side;
use crate::task::Task;

pub fn begin(ctx: &mut Ctx) {
    crate::turn::deal(ctx);
    ctx.push(Task::StartTurn);
    if ctx.st.options.us_bonus > 0 {
        ctx.push(Task::UsBonus { left: ctx.st.options.us_bonus });
    }
    let map = Map::standard();
    ctx.push(Task::SetupPlace { side: Side::Us, left: map.setup_free[Side::Us.idx()] });
    ctx.push(Task::SetupPlace { side: Side::Ussr, left: map.setup_free[Side::Ussr.idx()] });
}

pub fn prompt(_p: Position, t: &Task) -> String {
    match t {
        Task::SetupPlace { side: Side::Ussr, left } => format!("USSR setup: place {left} more Influence in Eastern Europe (§3.2)"),
        Task::SetupPlace { side: Side::Us, left } => format!("US setup: place {left} more Influence in Western Europe (§3.3)"),
        Task::UsBonus { left } => format!("US bonus: place {left} more Influence where the US already has Influence (game option)"),
        _ => String::new(),
    }
}

/// The countries that may take the next marker: Eastern Europe for the USSR (§3.2), Western
/// Europe for the US (§3.3), and for the US bonus where the US already has Influence. The one
/// statement of the rule: listing and validation both read it.
fn open(p: Position, t: &Task) -> u128 {
    let map = Map::standard();
    match t {
        Task::SetupPlace { side: Side::Ussr, .. } => map.sub_mask(SubRegion::EasternEurope),
        Task::SetupPlace { side: Side::Us, .. } => map.sub_mask(SubRegion::WesternEurope),
        Task::UsBonus { .. } => p.st.masks().presence[Side::Us.idx()],
        _ => 0,
    }
}

/// The legal moves: a marker in any open country (`check` accepts exactly these).
pub fn legal(p: Position, t: &Task) -> Vec<Move> {
    let open = open(p, t);
    let mut v = Vec::with_capacity(open.count_ones() as usize);
    v.extend(crate::map::iter_mask(open).map(Move::Influence));
    v
}

pub fn check(p: Position, t: &Task, m: &Move, explain: bool) -> Result<(), Illegal> {
    let Move::Influence(c) = m else {
        return illegal("setup places Influence: use `influence COUNTRY`", "§3");
    };
    if open(p, t) & c.bit() != 0 {
        return Ok(());
    }
    let country = Map::standard().country(*c);
    match t {
        Task::SetupPlace { side: Side::Ussr, .. } => refuse!(explain, "§3.2", "{} is not in Eastern Europe", country.name),
        Task::SetupPlace { side: Side::Us, .. } => refuse!(explain, "§3.3", "{} is not in Western Europe", country.name),
        Task::UsBonus { .. } => {
            refuse!(explain, "US bonus option", "the US bonus goes only where the US already has Influence, not {}", country.name)
        }
        _ => illegal("no setup placement is pending", "§3"),
    }
}

pub fn apply(ctx: &mut Ctx, t: Task, m: &Move) {
    let Move::Influence(c) = m else { return };
    let (side, left) = match t {
        Task::SetupPlace { side, left } => (side, left),
        Task::UsBonus { left } => (Side::Us, left),
        _ => return,
    };
    ctx.exec(Instr::AddInfluence { side, country: *c, n: 1 });
    if left > 1 {
        ctx.push(match t {
            Task::UsBonus { .. } => Task::UsBonus { left: left - 1 },
            _ => Task::SetupPlace { side, left: left - 1 },
        });
    }
}
