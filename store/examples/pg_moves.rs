//! Moves per second through a `Session` on each store: a throwaway PostgreSQL server of its own
//! (`arbiter-pgtest`, default settings: `fsync` on, `synchronous_commit` on) and a SQLite file
//! (`synchronous = FULL`), the same Minesweeper moves (flag and unflag a cell, each one durable
//! write), one writer and then several at once on different games. The store's side of a
//! served move, without HTTP.
//!
//! `cargo run --release -p arbiter-store --example pg_moves [MOVES] [WRITERS]`

use arbiter_games::MINESWEEPER;
use arbiter_store::{EventStore, PgDatabase, Session, SqliteStore};
use serde_json::json;
use std::time::{Duration, Instant};

fn moves<S: EventStore>(s: &mut Session<S>, n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let text = if i % 2 == 0 { "flag a1" } else { "unflag a1" };
        let t = Instant::now();
        s.play(text, None).unwrap_or_else(|e| panic!("{text}: {e}"));
        times.push(t.elapsed());
    }
    times
}

fn report(what: &str, writers: usize, wall: Duration, mut times: Vec<Duration>) {
    times.sort();
    let p = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "{what:<10} {writers} writer(s): {:>7.0} moves/s, per move p50 {:>6.2} ms, p99 {:>6.2} ms",
        times.len() as f64 / wall.as_secs_f64(),
        p(0.5).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3
    );
}

fn run<S: EventStore + Send + 'static>(what: &str, writers: usize, n: usize, make: impl Fn(usize) -> Session<S>) {
    let sessions: Vec<Session<S>> = (0..writers).map(&make).collect();
    let start = Instant::now();
    let threads: Vec<_> = sessions.into_iter().map(|mut s| std::thread::spawn(move || moves(&mut s, n))).collect();
    let times: Vec<Duration> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    report(what, writers, start.elapsed(), times);
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("MOVES and WRITERS are numbers")).collect();
    let n = args.first().copied().unwrap_or(2000);
    let writers = args.get(1).copied().unwrap_or(4);
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let db = PgDatabase::connect(pg.url()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = json!({"width": 9, "height": 9, "mines": 10});
    for w in [1, writers] {
        let (d, o) = (db.clone(), options.clone());
        run("postgres", w, n, move |i| Session::create_with(&MINESWEEPER, &o, 1, |h| d.create_game(&format!("w{w}-{i}"), h)).unwrap());
        let (p, o) = (dir.path().to_path_buf(), options.clone());
        run("sqlite", w, n, move |i| Session::<SqliteStore>::create(&p.join(format!("w{w}-{i}.arbiter")), &MINESWEEPER, &o, 1).unwrap());
    }
}
