//! Adjudicates movement phases given as JSON lines on standard input, one result line each on
//! standard output: the differential check against the reference engine
//! (`reference/differential.py`) drives it.
//!
//! In: `{"units": {"FRANCE": ["A PAR", "F BRE"]}, "orders": {"FRANCE": ["A PAR - BUR"]}}`.
//! Out: `{"units": {"FRANCE": ["A BUR", "F BRE"]}, "dislodged": {...}, "refused": [[order, reason]]}`,
//! or `{"error": "..."}` for a line that is not a position.

use arbiter_diplomacy::map::{standard, Power};
use arbiter_diplomacy::orders::{check, parse, parse_unit, Order, Unit};
use arbiter_diplomacy::{adjudicate, Board};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};

fn main() {
    let map = standard();
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(v) => one(map, &v).unwrap_or_else(|e| json!({ "error": e })),
            Err(e) => json!({ "error": e.to_string() }),
        };
        let _ = writeln!(out, "{answer}");
    }
}

fn one(map: &arbiter_diplomacy::Map, v: &Value) -> Result<Value, String> {
    let power = |name: &str| map.power(name).ok_or_else(|| format!("no power {name}"));
    let mut units = Vec::new();
    for (name, list) in v["units"].as_object().ok_or("no units")? {
        let p = power(name)?;
        for u in list.as_array().ok_or("units: a list")? {
            let (kind, at) = parse_unit(map, u.as_str().unwrap_or_default()).map_err(|e| e.reason)?;
            units.push(Unit { power: p, kind, at });
        }
    }
    let mut board = Board { orders: vec![Order::Hold; units.len()], units };
    let mut refused = Vec::new();
    for (name, list) in v["orders"].as_object().ok_or("no orders")? {
        let p = power(name)?;
        for o in list.as_array().ok_or("orders: a list")? {
            let text = o.as_str().unwrap_or_default();
            match parse(map, text).and_then(|w| check(map, p, &w, |prov| board.unit_in(map, prov).map(|i| board.units[i]))) {
                Ok((unit, order)) => {
                    if let Some(i) = board.units.iter().position(|u| *u == unit) {
                        board.orders[i] = order;
                    }
                }
                Err(e) => refused.push(json!([text, e.reason])),
            }
        }
    }
    let outcome = adjudicate(map, &board);
    let mut standing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut dislodged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let id = |p: Power| map.powers[usize::from(p.0)].id.to_uppercase();
    for (i, u) in board.units.iter().enumerate() {
        let text = |l| format!("{} {}", u.kind.letter(), map.short(l).to_uppercase());
        match outcome.dislodged[i] {
            Some(_) => dislodged.entry(id(u.power)).or_default().push(text(u.at)),
            None => standing.entry(id(u.power)).or_default().push(text(outcome.at[i])),
        }
    }
    Ok(json!({ "units": standing, "dislodged": dislodged, "refused": refused }))
}
