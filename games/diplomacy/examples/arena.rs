//! The computer against random powers: `cargo run --release -p arbiter-diplomacy --example arena
//! -- GAMES A B [LAST_YEAR]` (agents as `arbiter arena` names them), the arena's result as JSON.

use arbiter_kernel::arena::{run, Setup, Split};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games = args.first().and_then(|g| g.parse().ok()).unwrap_or(4);
    let a = args.get(1).map_or("computer:1", String::as_str).parse().expect("agent a");
    let b = args.get(2).map_or("random", String::as_str).parse().expect("agent b");
    let last: u16 = args.get(3).and_then(|y| y.parse().ok()).unwrap_or(1930);
    let setup = Setup { games, a, b, seed: 1, threads: 2, split: Split::Seat };
    let kind: &'static arbiter_diplomacy::Kind = &arbiter_diplomacy::Kind;
    match run(kind, &serde_json::json!({ "last_year": last }), &setup) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("json")),
        Err(e) => eprintln!("{e}"),
    }
}
