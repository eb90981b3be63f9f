//! The adjudication benchmark's Rust side (`reference/bench.py` runs it beside the reference
//! engine): movement phases as JSON lines on standard input (as `adjudicate_lines` reads
//! them), each adjudicated `ROUNDS` times (the first argument, default 200); prints one JSON
//! line: the phases, the mean units a phase, and phases per second, with and without reading
//! and checking the orders.

use arbiter_diplomacy::map::standard;
use arbiter_diplomacy::orders::{check, parse, parse_unit, Order, Unit};
use arbiter_diplomacy::{adjudicate, Board};
use serde_json::{json, Value};
use std::io::BufRead;
use std::time::Instant;

fn main() {
    let map = standard();
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let phases: Vec<Value> = std::io::stdin().lock().lines().map_while(Result::ok).filter_map(|l| serde_json::from_str(&l).ok()).collect();
    let board = |v: &Value| -> Board {
        let mut units = Vec::new();
        for (name, list) in v["units"].as_object().into_iter().flatten() {
            let Some(p) = map.power(name) else { continue };
            for u in list.as_array().into_iter().flatten() {
                if let Ok((kind, at)) = parse_unit(map, u.as_str().unwrap_or_default()) {
                    units.push(Unit { power: p, kind, at });
                }
            }
        }
        let mut b = Board { orders: vec![Order::Hold; units.len()], units };
        for (name, list) in v["orders"].as_object().into_iter().flatten() {
            let Some(p) = map.power(name) else { continue };
            for o in list.as_array().into_iter().flatten() {
                let checked = parse(map, o.as_str().unwrap_or_default())
                    .and_then(|w| check(map, p, &w, |prov| b.unit_in(map, prov).map(|i| b.units[i])));
                if let Ok((unit, order)) = checked {
                    if let Some(i) = b.units.iter().position(|u| *u == unit) {
                        b.orders[i] = order;
                    }
                }
            }
        }
        b
    };
    let boards: Vec<Board> = phases.iter().map(board).collect();
    let units = boards.iter().map(|b| b.units.len()).sum::<usize>() as f64 / boards.len().max(1) as f64;
    let start = Instant::now();
    let mut moved = 0usize;
    for _ in 0..rounds {
        for b in &boards {
            moved += adjudicate(map, b).succeeded.iter().filter(|s| **s).count();
        }
    }
    let adjudicated = (rounds * boards.len()) as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    for _ in 0..rounds {
        for v in &phases {
            moved += adjudicate(map, &board(v)).succeeded.len();
        }
    }
    let with_orders = (rounds * phases.len()) as f64 / start.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({ "phases": boards.len(), "units": units, "adjudicated_per_s": adjudicated, "read_and_adjudicated_per_s": with_orders, "check": moved })
    );
}
