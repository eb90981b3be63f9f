//! A bounded load test on loopback: G concurrent games, each playing random legal moves over
//! HTTP for at most M moves (or to its end), against an in-process server with its saved games
//! in a temporary folder (or `--addr` for a running `arbiter serve`). Prints moves per second
//! and the p50/p99/max round trip of a move (POST until its answer: judged, stored durably,
//! broadcast), and of a game's creation (with when the last one was answered).
//!
//! `cargo run --release -p arbiter-server --example load -- [--games 200] [--moves 40] [--addr HOST:PORT[,HOST:PORT…]]`
//!
//! `--created-first`: every game is created before any plays (a barrier), and moves per second
//! are timed from then: the moves of games under way, without the creations running beside the
//! first moves.
//!
//! An in-process server on a data folder also prints how many commits its database made: each
//! commit is one sync for every write it holds, so moves per commit is how well writes batch.
//!
//! `--timeline`: the moves again by the tenth of a second they were sent in (how many, p50,
//! p99, max): whether the slow ones come together (the creations, a checkpoint of the
//! write-ahead log) or are spread over the run.
//!
//! The temporary folder is made under `TMPDIR` and removed at the end.
//!
//! On PostgreSQL: `--postgres` (a throwaway server, arbiter-pgtest) or `--store URL`, and
//! `--servers N` in-process servers on that one database (each request to the next server in
//! turn: the owner of a game serves a share, the others forward).

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The allocator `arbiter serve` runs with (cli/src/main.rs): the server measured as it ships.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let games: usize = arg("--games").and_then(|v| v.parse().ok()).unwrap_or(200).clamp(1, 2000);
    let moves: usize = arg("--moves").and_then(|v| v.parse().ok()).unwrap_or(40).clamp(1, 10_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let servers: usize = arg("--servers").and_then(|v| v.parse().ok()).unwrap_or(1).clamp(1, 8);
    // `--postgres`: a throwaway PostgreSQL (arbiter-pgtest); `--store URL`: an existing one.
    let pg = std::env::args().any(|a| a == "--postgres").then(|| arbiter_pgtest::PgServer::start().expect("PostgreSQL is installed"));
    let store = arg("--store").or_else(|| pg.as_ref().map(|p| p.new_database("load")));
    assert!(servers == 1 || store.is_some(), "several servers share a database: --postgres or --store URL");
    let (bases, running_servers): (Vec<String>, Vec<arbiter_server::Running>) = match arg("--addr") {
        Some(a) => (a.split(',').map(|a| format!("http://{a}")).collect(), Vec::new()),
        None => {
            let mut running = Vec::new();
            for _ in 0..servers {
                let mut config = arbiter_server::Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
                // Every client task is on one address: the limits meant for strangers (30 new
                // games per 10 minutes, 32 connections per address) would refuse the test itself.
                config.games_per_address = games as u32;
                config.max_connections = 4 * games + 64;
                config.max_connections_per_address = config.max_connections;
                config.store = store.clone();
                running.push(arbiter_server::start(config, arbiter_games::web::offered()).await.expect("the server starts"));
            }
            (running.iter().map(|r| format!("http://{}", r.addr)).collect(), running)
        }
    };
    println!(
        "{} server(s) on {}",
        bases.len(),
        if store.is_some() { "one PostgreSQL database" } else { "a data folder (one SQLite database)" }
    );
    let http = reqwest::Client::builder().pool_max_idle_per_host(games).build().unwrap();
    let created_first = std::env::args().any(|a| a == "--created-first");
    let barrier = created_first.then(|| std::sync::Arc::new(tokio::sync::Barrier::new(games)));
    // When the last game was created (with --created-first): the moves are timed from then.
    let all_created = std::sync::Arc::new(std::sync::OnceLock::new());
    let started = Instant::now();
    let under_way = std::sync::Arc::new(UnderWay::new(games));
    let mut tasks = Vec::new();
    for g in 0..games {
        let (http, bases, barrier, all_created) = (http.clone(), bases.clone(), barrier.clone(), all_created.clone());
        let under_way = under_way.clone();
        tasks.push(tokio::spawn(async move {
            play(&http, &bases, g as u64, moves, &under_way, || async move {
                if let Some(b) = barrier {
                    if b.wait().await.is_leader() {
                        let _ = all_created.set(Instant::now());
                    }
                }
            })
            .await
        }));
    }
    let mut latencies: Vec<Duration> = Vec::new();
    // The moves sent while some game was still being created, and the others.
    let (mut burst, mut settled): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    // Each move's round trip by the tenth of a second it was sent in (`--timeline`).
    let mut timeline: std::collections::BTreeMap<u128, Vec<Duration>> = std::collections::BTreeMap::new();
    let mut ended = 0;
    for t in tasks {
        let (l, over) = t.await.expect("a game task");
        for (sent, d, creating) in l {
            latencies.push(d);
            timeline.entry(sent.duration_since(started).as_millis() / 100).or_default().push(d);
            if creating {
                burst.push(d)
            } else {
                settled.push(d)
            }
        }
        ended += usize::from(over);
    }
    let wall = all_created.get().copied().unwrap_or(started).elapsed();
    latencies.sort();
    let pct_of =
        |l: &[Duration], p: f64| l.get(((l.len() as f64 * p) as usize).min(l.len().saturating_sub(1))).copied().unwrap_or_default();
    let pct = |p: f64| pct_of(&latencies, p);
    println!(
        "{games} concurrent games, up to {moves} moves each, {} moves in {:.2} s ({ended} games ended){}",
        latencies.len(),
        wall.as_secs_f64(),
        if created_first { ", every game created before the first move" } else { "" }
    );
    println!("{:.0} moves/s", latencies.len() as f64 / wall.as_secs_f64());
    // How many games were under way (created, not yet done) as each move was sent: the load a
    // move met, whatever the order of creations and moves.
    let sent = under_way.moves.load(Ordering::Relaxed).max(1);
    println!(
        "games under way as a move was sent: mean {:.0}, fewest {}",
        under_way.sum.load(Ordering::Relaxed) as f64 / sent as f64,
        under_way.fewest.load(Ordering::Relaxed)
    );
    println!(
        "move round trip: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
    // The creations themselves: a server that answered the burst's moves sooner by making its
    // games later would show here (and in the games under way above).
    {
        let mut c = under_way.creations.lock().unwrap();
        let last = c.1.map(|t| t.duration_since(started)).unwrap_or_default();
        c.0.sort();
        println!(
            "game creation round trip: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; the last answered {:.1} ms after the start",
            pct_of(&c.0, 0.50).as_secs_f64() * 1e3,
            pct_of(&c.0, 0.99).as_secs_f64() * 1e3,
            c.0.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            last.as_secs_f64() * 1e3
        );
    }
    // Whether the moves sent beside the creations wait longer than the others (the creations
    // share the disk, the folder and the cores with them).
    for (what, l) in [("while games were still being created", &mut burst), ("once every game was created", &mut settled)] {
        l.sort();
        println!(
            "  {} moves sent {what}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            l.len(),
            pct_of(l, 0.50).as_secs_f64() * 1e3,
            pct_of(l, 0.99).as_secs_f64() * 1e3,
            l.last().copied().unwrap_or_default().as_secs_f64() * 1e3
        );
    }
    // The disk's share: each commit is one sync for every write it holds (an in-process
    // server on a data folder).
    for (i, running) in running_servers.iter().enumerate() {
        if let arbiter_server::storage::Storage::Folder { db } = &**running.hub.storage() {
            println!("server {}'s database: {} commits, each one sync for every write in it", i + 1, db.commits());
        }
    }
    if std::env::args().any(|a| a == "--timeline") {
        println!("moves by the tenth of a second they were sent in (from the start):");
        for (tenth, l) in &mut timeline {
            l.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            println!(
                "  {:>5.1} s: {:>5} moves, p50 {:>5.1} ms, p99 {:>5.1} ms, max {:>5.1} ms",
                *tenth as f64 / 10.0,
                l.len(),
                ms(pct_of(l, 0.50)),
                ms(pct_of(l, 0.99)),
                ms(l.last().copied().unwrap_or_default())
            );
        }
    }
}

/// The games created and not yet done, and what the moves met of them.
struct UnderWay {
    now: AtomicUsize,
    /// The games whose creation was answered (of `games`).
    created: AtomicUsize,
    games: usize,
    /// Over every move sent: the sum of `now`, the moves, the smallest `now`.
    sum: AtomicUsize,
    moves: AtomicUsize,
    fewest: AtomicUsize,
    /// Each creation's round trip (`POST /api/games` until its answer), and when the last was
    /// answered.
    creations: std::sync::Mutex<(Vec<Duration>, Option<Instant>)>,
}

impl UnderWay {
    fn new(games: usize) -> UnderWay {
        UnderWay {
            now: AtomicUsize::new(0),
            created: AtomicUsize::new(0),
            games,
            sum: AtomicUsize::new(0),
            moves: AtomicUsize::new(0),
            fewest: AtomicUsize::new(usize::MAX),
            creations: std::sync::Mutex::new((Vec::new(), None)),
        }
    }

    /// A game's creation was answered: how long it took, and when (the last one ends the burst).
    fn creation(&self, asked: Instant) {
        let mut c = self.creations.lock().unwrap();
        c.0.push(asked.elapsed());
        c.1 = Some(Instant::now());
    }

    /// A move is sent now: counted; whether some game is still being created.
    fn sent(&self) -> bool {
        let now = self.now.load(Ordering::Relaxed);
        self.sum.fetch_add(now, Ordering::Relaxed);
        self.moves.fetch_add(1, Ordering::Relaxed);
        self.fewest.fetch_min(now, Ordering::Relaxed);
        self.created.load(Ordering::Relaxed) < self.games
    }
}

/// What the client reads of a seat's decision (`GET .../moves`); the rest of the answer (the
/// prompt, interjections, undo) is skipped unparsed, not built into a JSON tree it never reads.
#[derive(serde::Deserialize)]
struct Decision {
    yours: bool,
    moves: Vec<String>,
    outcome: Option<serde::de::IgnoredAny>,
}

/// One game: random legal moves as whoever decides. Returns each move's time sent and round
/// trip (and whether it was sent while some game was still being created) and whether the game ended. With several servers, each request goes to the next one in turn (as
/// a load balancer spreading requests would): a game's owner serves some, the others forward.
async fn play<F: std::future::Future<Output = ()>>(
    http: &reqwest::Client,
    bases: &[String],
    seed: u64,
    moves: usize,
    under_way: &UnderWay,
    created: impl FnOnce() -> F,
) -> (Vec<(Instant, Duration, bool)>, bool) {
    // Counted from its creation (in `play_game`, which panics if it fails) to its end.
    let r = play_game(http, bases, seed, moves, under_way, created).await;
    under_way.now.fetch_sub(1, Ordering::Relaxed);
    r
}

async fn play_game<F: std::future::Future<Output = ()>>(
    http: &reqwest::Client,
    bases: &[String],
    seed: u64,
    moves: usize,
    under_way: &UnderWay,
    created: impl FnOnce() -> F,
) -> (Vec<(Instant, Duration, bool)>, bool) {
    let mut turn = seed as usize;
    let mut next = || {
        turn += 1;
        bases[turn % bases.len()].clone()
    };
    let base = next();
    let asked = Instant::now();
    let v: Value =
        http.post(format!("{base}/api/games")).body(json!({ "seed": seed }).to_string()).send().await.unwrap().json().await.unwrap();
    under_way.creation(asked);
    let id = v["id"].as_str().unwrap_or_else(|| panic!("no game made: {v}")).to_string();
    let token = |s: &str| v["tokens"][s].as_str().unwrap().to_string();
    let (us, ussr) = (token("us"), token("ussr"));
    under_way.now.fetch_add(1, Ordering::Relaxed);
    under_way.created.fetch_add(1, Ordering::Relaxed);
    created().await;
    let mut x = seed.wrapping_add(1);
    let mut out = Vec::new();
    for _ in 0..moves {
        // Ask both seats; the one whose decision it is gets the moves.
        let mut mine = None;
        for t in [&us, &ussr] {
            let base = next();
            let m: Decision = http.get(format!("{base}/api/games/{id}/moves?token={t}")).send().await.unwrap().json().await.unwrap();
            if m.outcome.is_some() {
                return (out, true);
            }
            if m.yours {
                mine = Some((t.clone(), m));
            }
        }
        let Some((t, m)) = mine else { return (out, true) };
        let list = m.moves;
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let text = list[(x >> 33) as usize % list.len()].clone();
        let creating = under_way.sent();
        let start = Instant::now();
        let base = next();
        let r = http.post(format!("{base}/api/games/{id}/moves?token={t}")).body(json!({ "move": text }).to_string()).send().await.unwrap();
        let status = r.status();
        let _ = r.bytes().await;
        out.push((start, start.elapsed(), creating));
        assert_eq!(status, 200, "{text}");
    }
    (out, false)
}
