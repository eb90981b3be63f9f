//! Stepping through a replay, measured: every position of a Twilight Struggle record made by
//! random play, rebuilt as a replay request rebuilds it, from the setup each time and then from
//! the positions `ReplayCache` keeps. Prints the wall time and the moves replayed of each.
//!
//! `cargo run --release -p arbiter-server --example replay_steps -- --moves 200`

use arbiter_server::replay::ReplayCache;
use arbiter_store::{Replay, Session};
use std::time::Instant;

fn main() {
    let mut moves = 200usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--moves", Some(n)) => moves = n,
            _ => {
                eprintln!("usage: replay_steps [--moves N]");
                std::process::exit(2);
            }
        }
    }
    let options = arbiter_twilight::Options { optional_cards: true, us_bonus: 2 };
    let rules = arbiter_twilight_cards::ruleset();
    let reached =
        arbiter_twilight::playout::random_until(&rules, options, 0..200, |g| g.state().turn >= 10).expect("a random game reaching turn 10");
    let moves = moves.min(reached.moves.len());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let kind = &arbiter_games::TWILIGHT_STRUGGLE;
    let opts = serde_json::json!({ "optional_cards": true });
    let mut s = Session::create(&dir.path().join("g.arbiter"), kind, &opts, reached.seed).expect("a new game");
    for (_, text) in &reached.moves[..moves] {
        s.play(text, None).expect("a move of the random game");
    }
    let (header, rows) = (s.header().clone(), s.rows().to_vec());
    let total = rows.len() as u64;

    let t = Instant::now();
    let mut replayed = 0u64;
    for at in 0..=total {
        let mut r = Replay::new(header.clone(), rows[..at as usize].to_vec(), kind).expect("a replay");
        r.run_to(None).expect("a verified replay");
        replayed += at;
    }
    let setup = t.elapsed();
    println!("from the setup:       {total} moves, {} positions, {replayed} moves replayed, {:.1} ms", total + 1, ms(setup));

    // The first request replays the record to its end once (the turns, the positions kept);
    // the others each from the kept position at or before theirs.
    let cache = ReplayCache::default();
    let t = Instant::now();
    cache.position("g", &header, &rows, kind, 0).expect("a verified replay");
    let first = t.elapsed();
    let once = cache.moves_replayed();
    let t = Instant::now();
    for at in 1..=total {
        cache.position("g", &header, &rows, kind, at).expect("a verified replay");
    }
    let kept = t.elapsed();
    println!(
        "from kept positions:  the first, {once} moves replayed, {:.1} ms; then {total} positions, {} moves replayed, {:.1} ms",
        ms(first),
        cache.moves_replayed() - once,
        ms(kept)
    );
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
