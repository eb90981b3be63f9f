//! Diplomacy's rules-lawyer fixtures (`fixtures/`, README there): a position, each power's
//! orders as a player writes them, the orders refused at entry, and the position after the
//! movement phase (who stands where, who was dislodged).

use crate::adjudicate::{adjudicate, Board};
use crate::map::{Loc, Map, Power, UnitKind};
use crate::orders::{check, parse, parse_unit, Order, Unit};
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
        let said: Vec<&String> = refused.iter().map(|(t, _)| t).collect();
        let wanted: Vec<&String> = self.refused.iter().collect();
        if said != wanted {
            return Err(format!("refused {refused:?}, the fixture says {wanted:?}"));
        }
        let outcome = adjudicate(map, &board);
        let mut standing = Vec::new();
        let mut dislodged = Vec::new();
        for (i, u) in board.units.iter().enumerate() {
            match outcome.dislodged[i] {
                Some(_) => dislodged.push((u.power, u.kind, u.at)),
                None => standing.push((u.power, u.kind, outcome.at[i])),
            }
        }
        let (got_units, got_dislodged) = (lines(map, &standing), lines(map, &dislodged));
        let (want_units, want_dislodged) =
            (lines(map, &read_units(map, &self.expect.units)?), lines(map, &read_units(map, &self.expect.dislodged)?));
        if got_units != want_units || got_dislodged != want_dislodged {
            let why: Vec<String> = board
                .units
                .iter()
                .enumerate()
                .map(|(i, u)| format!("  {} {}: {}", u.kind.letter(), map.short(u.at), outcome.why[i]))
                .collect();
            return Err(format!(
                "units {got_units:?}, expected {want_units:?}; dislodged {got_dislodged:?}, expected {want_dislodged:?}\n{}",
                why.join("\n")
            ));
        }
        Ok(())
    }
}
