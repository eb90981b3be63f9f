//! The phases after a movement: retreats (a dislodged unit retreats to a province it may reach,
//! or disbands; two retreating to one province both disband) and the winter adjustments
//! (builds in owned, empty home centres; removals, and the civil disorder order for removals
//! not given). RULINGS.md D06–D08.

use crate::adjudicate::{Board, Outcome};
use crate::map::{Loc, Map, Power, Province, Terrain, UnitKind};
use crate::orders::{parse, OrderError, Unit, WrittenOrder};

fn refuse<T>(reason: impl Into<String>) -> Result<T, OrderError> {
    Err(OrderError { reason: reason.into() })
}

/// Where each dislodged unit of `board` may retreat after `outcome` (D06): a place it could
/// move to, not where its attacker came from (unless the attacker came by convoy), not left
/// empty by a standoff, and not occupied. `None` for a unit not dislodged.
pub fn retreat_options(map: &Map, board: &Board, outcome: &Outcome) -> Vec<Option<Vec<Loc>>> {
    let standing: Vec<Province> =
        (0..board.units.len()).filter(|i| outcome.dislodged[*i].is_none()).map(|i| map.province(outcome.at[i])).collect();
    board
        .units
        .iter()
        .zip(&outcome.dislodged)
        .map(|(u, d)| {
            let d = (*d)?;
            let here = map.province(u.at);
            let places: Vec<Loc> = match u.kind {
                UnitKind::Army => {
                    (0..map.province_count()).map(|p| Province(p as u8)).filter(|p| map.army_adjacent(here, *p)).map(|p| Loc(p.0)).collect()
                }
                UnitKind::Fleet => (0..map.province_count())
                    .map(|p| Province(p as u8))
                    .filter(|p| *p != here)
                    .flat_map(|p| map.fleet_targets(u.at, p))
                    .collect(),
            };
            Some(
                places
                    .into_iter()
                    .filter(|l| {
                        let p = map.province(*l);
                        (p != d.from || d.by_convoy) && !standing.contains(&p) && !outcome.contested.contains(&p)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// A retreat phase's order for a dislodged unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Retreat {
    To(Loc),
    Disband,
}

/// Read and check `text`, `power`'s retreat order, against the units dislodged (`units`, each
/// with its options): the unit's index and its order.
pub fn retreat_order(
    map: &Map,
    power: Power,
    text: &str,
    units: &[Unit],
    options: &[Option<Vec<Loc>>],
) -> Result<(usize, Retreat), OrderError> {
    let w = parse(map, text)?;
    let name = |p: Province| map.data(p).name.clone();
    let Some(i) = (0..units.len()).find(|i| options[*i].is_some() && map.province(units[*i].at) == w.at) else {
        return refuse(format!("no unit in {} was dislodged: only a dislodged unit retreats", name(w.at)));
    };
    if units[i].power != power {
        return refuse(format!("the unit dislodged from {} is not {}'s", name(w.at), map.powers[usize::from(power.0)].name));
    }
    let allowed = options[i].as_deref().unwrap_or_default();
    match w.order {
        WrittenOrder::Disband => Ok((i, Retreat::Disband)),
        WrittenOrder::Move { to, coast, via_convoy: false } => {
            let fits =
                |l: &&Loc| map.province(**l) == to && (coast.is_none() || units[i].kind == UnitKind::Army || map.coast(**l) == coast);
            let matching: Vec<&Loc> = allowed.iter().filter(fits).collect();
            match matching.as_slice() {
                [one] => Ok((i, Retreat::To(**one))),
                [] => {
                    let list: Vec<String> = allowed.iter().map(|l| map.short(*l)).collect();
                    refuse(format!(
                        "the unit dislodged from {} cannot retreat to {}: it may retreat to {} or disband",
                        name(w.at),
                        name(to),
                        if list.is_empty() { "nowhere".to_string() } else { list.join(", ") }
                    ))
                }
                _ => refuse(format!("name the coast of {} the fleet retreats to", name(to))),
            }
        }
        WrittenOrder::Move { via_convoy: true, .. } => refuse("a retreat is never by convoy"),
        WrittenOrder::Hold | WrittenOrder::Support { .. } | WrittenOrder::Convoy { .. } => {
            refuse("a dislodged unit retreats or disbands: A Mun - Boh, A Mun Disband")
        }
    }
}

/// Where each retreating unit ends (`None`: disbanded). Two or more retreating to one
/// province all disband (D06).
pub fn resolve_retreats(map: &Map, orders: &[(usize, Retreat)]) -> Vec<(usize, Option<Loc>)> {
    orders
        .iter()
        .map(|&(i, r)| match r {
            Retreat::Disband => (i, None),
            Retreat::To(l) => {
                let p = map.province(l);
                let rivals = orders.iter().filter(|(_, x)| matches!(x, Retreat::To(m) if map.province(*m) == p)).count();
                (i, (rivals == 1).then_some(l))
            }
        })
        .collect()
}

/// A winter adjustment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adjustment {
    Build(UnitKind, Loc),
    Remove(usize),
    Waive,
}

/// How many units `power` builds (positive) or removes (negative): its centres less its units.
pub fn allowance(units: &[Unit], owner: &[Option<Power>], power: Power) -> i32 {
    owner.iter().filter(|o| **o == Some(power)).count() as i32 - units.iter().filter(|u| u.power == power).count() as i32
}

/// Read and check `text`, `power`'s adjustment order (D07), given the units, the owner of each
/// province and the orders accepted so far.
pub fn adjustment_order(
    map: &Map,
    power: Power,
    text: &str,
    units: &[Unit],
    owner: &[Option<Power>],
    so_far: &[Adjustment],
) -> Result<Adjustment, OrderError> {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let first = words.first().map(String::as_str).unwrap_or_default();
    let rest = || text.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
    let due = allowance(units, owner, power);
    let name = |p: Province| map.data(p).name.clone();
    match first {
        "waive" | "waives" => {
            if so_far.len() as i32 >= due {
                return refuse("a build is waived only where one could be made");
            }
            Ok(Adjustment::Waive)
        }
        "build" | "b" => {
            let (kind, at) = crate::orders::parse_unit_loose(map, &rest())?;
            let p = map.province(at);
            let d = map.data(p);
            if so_far.len() as i32 >= due {
                return refuse(format!(
                    "{} has no build to make ({} centres, {} units)",
                    map.powers[usize::from(power.0)].name,
                    due + units.iter().filter(|u| u.power == power).count() as i32,
                    units.iter().filter(|u| u.power == power).count()
                ));
            }
            if d.home != Some(power) {
                return refuse(format!("{} is not a home centre of {}", name(p), map.powers[usize::from(power.0)].name));
            }
            if owner[usize::from(p.0)] != Some(power) {
                return refuse(format!("{} does not own {} now", map.powers[usize::from(power.0)].name, name(p)));
            }
            if units.iter().any(|u| map.province(u.at) == p)
                || so_far.iter().any(|a| matches!(a, Adjustment::Build(_, l) if map.province(*l) == p))
            {
                return refuse(format!("{} is occupied", name(p)));
            }
            if kind == UnitKind::Fleet && d.terrain != Terrain::Coast {
                return refuse(format!("a fleet cannot be built inland ({})", name(p)));
            }
            if kind == UnitKind::Fleet && !d.coasts.is_empty() && map.coast(at).is_none() {
                return refuse(format!("name the coast of {} the fleet is built on", name(p)));
            }
            Ok(Adjustment::Build(kind, at))
        }
        _ => {
            // `Remove A Mun`, `Disband A Mun`, `A Mun Remove`, `A Mun Disband`.
            let unit_text = match first {
                "remove" | "disband" | "d" => rest(),
                _ => {
                    let t = text.trim();
                    let lower = t.to_lowercase();
                    match ["remove", "disband", "removes", "disbands"].iter().find(|w| lower.ends_with(*w)) {
                        Some(w) => t[..t.len() - w.len()].trim().to_string(),
                        None => return refuse("an adjustment is Build A Par, Waive, or Remove A Par"),
                    }
                }
            };
            let (_, at) = crate::orders::parse_unit_loose(map, &unit_text)?;
            let p = map.province(at);
            let Some(i) = units.iter().position(|u| map.province(u.at) == p) else {
                return refuse(format!("there is no unit in {}", name(p)));
            };
            if units[i].power != power {
                return refuse(format!("the unit in {} is not {}'s", name(p), map.powers[usize::from(power.0)].name));
            }
            if due >= 0 || so_far.len() as i32 >= -due {
                return refuse(format!("{} has no unit to remove", map.powers[usize::from(power.0)].name));
            }
            if so_far.contains(&Adjustment::Remove(i)) {
                return refuse("that unit is removed already");
            }
            Ok(Adjustment::Remove(i))
        }
    }
}

/// The units `power` must remove beyond those it ordered, by the 2000 rules' civil disorder
/// order as the DATC reads it (D08; 4.D.8, choice d): farthest from the power's home centres
/// first, a fleet counting its own moves only, an army its moves over land and through seas
/// (each sea one move); a fleet before an army at the same distance; then by the province's
/// English name in alphabetical order, letters only.
pub fn civil_disorder(map: &Map, units: &[Unit], power: Power, count: usize, already: &[usize]) -> Vec<usize> {
    let home = |p: Province| map.data(p).home == Some(power);
    let all: Vec<Loc> = (0..128u8).map(Loc).take_while(|l| usize::from(l.0) < map.location_count()).collect();
    // Breadth-first from `start` over `next`, to the first home centre.
    let distance = |start: Loc, next: &dyn Fn(Loc, Loc) -> bool| -> usize {
        let mut seen = vec![false; all.len()];
        let mut frontier = vec![start];
        seen[usize::from(start.0)] = true;
        let mut d = 0;
        while !frontier.is_empty() {
            if frontier.iter().any(|l| home(map.province(*l))) {
                return d;
            }
            let mut further = Vec::new();
            for a in &frontier {
                for b in &all {
                    if !seen[usize::from(b.0)] && next(*a, *b) {
                        seen[usize::from(b.0)] = true;
                        further.push(*b);
                    }
                }
            }
            frontier = further;
            d += 1;
        }
        usize::MAX
    };
    let fleet = |a: Loc, b: Loc| map.fleet_adjacent(a, b);
    let army = |a: Loc, b: Loc| {
        // Between provinces: a land border, or water (an army may move as a fleet would).
        map.coast(a).is_none()
            && map.coast(b).is_none()
            && (map.army_adjacent(map.province(a), map.province(b)) || map.sea_neighbours(map.province(a)).any(|x| x == map.province(b)))
    };
    let letters =
        |p: Province| -> String { map.data(p).name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect() };
    let mut candidates: Vec<usize> = (0..units.len()).filter(|i| units[*i].power == power && !already.contains(i)).collect();
    candidates.sort_by_key(|i| {
        let u = units[*i];
        let d = match u.kind {
            UnitKind::Fleet => distance(u.at, &fleet),
            UnitKind::Army => distance(u.at, &army),
        };
        (std::cmp::Reverse(d), u.kind == UnitKind::Army, letters(map.province(u.at)))
    });
    candidates.truncate(count);
    candidates
}
