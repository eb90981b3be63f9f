//! Diplomacy's rules-lawyer fixtures (`fixtures/`, README there): a position, each power's
//! orders as a player writes them, the orders refused at entry, and the position after the
//! movement phase (who stands where, who was dislodged), after its retreats, or after the
//! winter adjustments.

use crate::adjudicate::{adjudicate, Board};
use crate::map::{Loc, Map, Power, UnitKind};
use crate::orders::{check, parse, parse_unit, Order, Unit};
use crate::phases::{adjustment_order, allowance, civil_disorder, resolve_retreats, retreat_options, retreat_order, Adjustment, Retreat};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `game` field of a Diplomacy fixture.
pub const GAME: &str = "diplomacy";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    pub game: String,
    pub id: String,
    pub title: String,
    rules: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by people
    note: String,
    #[serde(default)]
    #[allow(dead_code)] // the movement phase is the same in both seasons
    season: Option<String>,
    units: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    orders: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    refused: Vec<String>,
    expect: Expect,
    /// `movement` (the default) or `adjustment`.
    #[serde(default)]
    phase: Option<String>,
    /// The supply centres each power owns (an adjustment phase).
    #[serde(default)]
    centres: BTreeMap<String, Vec<String>>,
    /// The retreat phase after the movement phase.
    #[serde(default)]
    retreat: Option<Then>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Then {
    #[serde(default)]
    orders: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    refused: Vec<String>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    units: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    dislodged: BTreeMap<String, Vec<String>>,
}

/// A file of fixtures: an array of them.
pub fn parse_file(text: &str) -> Result<Vec<Fixture>, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

fn power(map: &Map, name: &str) -> Result<Power, String> {
    map.power(name).ok_or_else(|| format!("no power {name:?}"))
}

/// Units by power, as a sorted list of `Power: A Par` lines.
fn lines(map: &Map, units: &[(Power, UnitKind, Loc)]) -> Vec<String> {
    let mut v: Vec<String> =
        units.iter().map(|(p, k, l)| format!("{}: {} {}", map.powers[usize::from(p.0)].name, k.letter(), map.short(*l))).collect();
    v.sort();
    v
}

fn read_units(map: &Map, by_power: &BTreeMap<String, Vec<String>>) -> Result<Vec<(Power, UnitKind, Loc)>, String> {
    let mut out = Vec::new();
    for (name, units) in by_power {
        let p = power(map, name)?;
        for u in units {
            let (k, l) = parse_unit(map, u).map_err(|e| e.reason)?;
            out.push((p, k, l));
        }
    }
    Ok(out)
}

impl Fixture {
    /// Run the fixture on `map`: `Err` says what differs.
    pub fn run(&self, map: &Map) -> Result<(), String> {
        if self.rules.is_empty() {
            return Err("a fixture names the rules it checks".into());
        }
        match self.phase.as_deref() {
            None | Some("movement") => self.run_movement(map),
            Some("adjustment") => self.run_adjustment(map),
            Some(other) => Err(format!("no phase {other:?}: movement or adjustment")),
        }
    }

    fn run_adjustment(&self, map: &Map) -> Result<(), String> {
        let start = read_units(map, &self.units)?;
        let units: Vec<Unit> = start.iter().map(|&(power, kind, at)| Unit { power, kind, at }).collect();
        let mut owner: Vec<Option<Power>> = vec![None; map.province_count()];
        for (name, centres) in &self.centres {
            let p = power(map, name)?;
            for c in centres {
                let prov = map.find(c).ok_or_else(|| format!("no province {c:?}"))?;
                owner[usize::from(prov.0)] = Some(p);
            }
        }
        let mut refused = Vec::new();
        let mut by_power: BTreeMap<Power, Vec<Adjustment>> = BTreeMap::new();
        for (name, orders) in &self.orders {
            let p = power(map, name)?;
            for text in orders {
                let so_far = by_power.entry(p).or_default();
                match adjustment_order(map, p, text, &units, &owner, so_far) {
                    Ok(a) => so_far.push(a),
                    Err(e) => refused.push((text.clone(), e.reason)),
                }
            }
        }
        self.check_refused(&refused)?;
        let mut removed: Vec<usize> = Vec::new();
        let mut built: Vec<(Power, UnitKind, Loc)> = Vec::new();
        for i in 0..map.powers.len() {
            let p = Power(i as u8);
            let mine = by_power.get(&p).cloned().unwrap_or_default();
            let due = allowance(&units, &owner, p);
            let ordered: Vec<usize> = mine.iter().filter_map(|a| if let Adjustment::Remove(u) = a { Some(*u) } else { None }).collect();
            removed.extend(&ordered);
            if due < 0 && ordered.len() < due.unsigned_abs() as usize {
                removed.extend(civil_disorder(map, &units, p, due.unsigned_abs() as usize - ordered.len(), &ordered));
            }
            for a in mine {
                if let Adjustment::Build(kind, at) = a {
                    built.push((p, kind, at));
                }
            }
        }
        let mut after: Vec<(Power, UnitKind, Loc)> =
            units.iter().enumerate().filter(|(i, _)| !removed.contains(i)).map(|(_, u)| (u.power, u.kind, u.at)).collect();
        after.extend(built);
        self.compare(map, &after, &[], &self.expect)
    }

    fn check_refused(&self, refused: &[(String, String)]) -> Result<(), String> {
        let said: Vec<&String> = refused.iter().map(|(t, _)| t).collect();
        let wanted: Vec<&String> = self.refused.iter().collect();
        if said != wanted {
            return Err(format!("refused {refused:?}, the fixture says {wanted:?}"));
        }
        Ok(())
    }

    fn compare(
        &self,
        map: &Map,
        standing: &[(Power, UnitKind, Loc)],
        dislodged: &[(Power, UnitKind, Loc)],
        expect: &Expect,
    ) -> Result<(), String> {
        let (got_units, got_dislodged) = (lines(map, standing), lines(map, dislodged));
        let (want_units, want_dislodged) = (lines(map, &read_units(map, &expect.units)?), lines(map, &read_units(map, &expect.dislodged)?));
        if got_units != want_units || got_dislodged != want_dislodged {
            return Err(format!("units {got_units:?}, expected {want_units:?}; dislodged {got_dislodged:?}, expected {want_dislodged:?}"));
        }
        Ok(())
    }

    fn run_movement(&self, map: &Map) -> Result<(), String> {
        let start = read_units(map, &self.units)?;
        let units: Vec<Unit> = start.iter().map(|&(power, kind, at)| Unit { power, kind, at }).collect();
        let mut board = Board { orders: vec![Order::Hold; units.len()], units };
        let mut refused = Vec::new();
        let mut ordered = vec![false; board.units.len()];
        for (name, orders) in &self.orders {
            let p = power(map, name)?;
            for text in orders {
                let checked = parse(map, text).and_then(|w| check(map, p, &w, |prov| board.unit_in(map, prov).map(|i| board.units[i])));
                match checked {
                    Ok((unit, order)) => {
                        let Some(i) = board.units.iter().position(|u| *u == unit) else { return Err(format!("{text}: no such unit")) };
                        if ordered[i] {
                            return Err(format!("{text}: a second order for one unit"));
                        }
                        ordered[i] = true;
                        board.orders[i] = order;
                    }
                    Err(e) => refused.push((text.clone(), e.reason)),
                }
            }
        }
        self.check_refused(&refused)?;
        let outcome = adjudicate(map, &board);
        let mut standing = Vec::new();
        let mut dislodged = Vec::new();
        for (i, u) in board.units.iter().enumerate() {
            match outcome.dislodged[i] {
                Some(_) => dislodged.push((u.power, u.kind, u.at)),
                None => standing.push((u.power, u.kind, outcome.at[i])),
            }
        }
        if let Err(e) = self.compare(map, &standing, &dislodged, &self.expect) {
            let why: Vec<String> = board
                .units
                .iter()
                .enumerate()
                .map(|(i, u)| {
                    format!("  {} {}: {}", u.kind.letter(), map.short(u.at), crate::adjudicate::explain(map, &board, &outcome, i))
                })
                .collect();
            return Err(format!("{e}\n{}", why.join("\n")));
        }
        let Some(then) = &self.retreat else { return Ok(()) };
        let options = retreat_options(map, &board, &outcome);
        let mut refused = Vec::new();
        let mut orders: Vec<(usize, Retreat)> = Vec::new();
        for (name, list) in &then.orders {
            let p = power(map, name)?;
            for text in list {
                match retreat_order(map, p, text, &board.units, &options) {
                    Ok((i, _)) if orders.iter().any(|(j, _)| *j == i) => {
                        return Err(format!("{text}: a second retreat order for one unit"))
                    }
                    Ok(o) => orders.push(o),
                    Err(e) => refused.push((text.clone(), e.reason)),
                }
            }
        }
        let said: Vec<&String> = refused.iter().map(|(t, _)| t).collect();
        let wanted: Vec<&String> = then.refused.iter().collect();
        if said != wanted {
            return Err(format!("retreats refused {refused:?}, the fixture says {wanted:?}"));
        }
        let mut after = standing;
        for (i, to) in resolve_retreats(map, &orders) {
            if let Some(l) = to {
                let u = board.units[i];
                after.push((u.power, u.kind, l));
            }
        }
        self.compare(map, &after, &[], &then.expect).map_err(|e| format!("after the retreats: {e}"))
    }
}
