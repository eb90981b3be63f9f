//! How well the computer plays Minesweeper: it plays N boards (board i from seed S + i) and
//! prints its win rate and the time its decisions take.
//!
//! ```text
//! cargo run --release -p arbiter-minesweeper --example strength -- [--size 9x9] [--mines 10]
//!     [--games 200] [--level 3] [--seed 1] [--threads 2]
//! ```
//!
//! Each decision is one search on one thread (`decide` with the default plan, seeded from the
//! board and the move number), so the result is the same on any number of `--threads`, which
//! play boards side by side.

use arbiter_kernel::search::{decide, Agent, Level, Plan};
use arbiter_kernel::{Game, Randomness, Searchable, Seat};
use arbiter_minesweeper::{End, Minesweeper, Options};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Args {
    options: Options,
    games: usize,
    level: Level,
    seed: u64,
    threads: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args { options: Options::default(), games: 200, level: Level::DEFAULT, seed: 1, threads: 2 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}");
        match flag.as_str() {
            "--size" => {
                let (w, h) = Options::parse_size(&value).map_err(|e| bad(&e))?;
                (a.options.width, a.options.height) = (w, h);
            }
            "--mines" => a.options.mines = value.parse().map_err(|e| bad(&e))?,
            "--games" => a.games = value.parse().map_err(|e| bad(&e))?,
            "--level" => a.level = value.parse().map_err(|e| bad(&e))?,
            "--seed" => a.seed = value.parse().map_err(|e| bad(&e))?,
            "--threads" => a.threads = value.parse::<usize>().map_err(|e| bad(&e))?.max(1),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    a.options.check().map_err(|e| e.to_string())?;
    Ok(a)
}

/// One board's result: won, decisions, of them searched (more than one move weighed), time
/// deciding, time in searched decisions, the longest decision.
#[derive(Default, Clone, Copy)]
struct Board {
    won: bool,
    decisions: u32,
    searched: u32,
    time: Duration,
    searched_time: Duration,
    longest: Duration,
}

fn play(a: &Args, seed: u64) -> Board {
    let mut g = Minesweeper::new(a.options, Randomness::seeded(seed)).expect("checked options");
    let mut b = Board::default();
    let mut n = 0u64;
    while g.end().is_none() {
        let searched = g.search_moves().len() > 1;
        let plan = Plan::new(Agent::Computer(a.level), arbiter_kernel::stable_hash(&(seed, n)));
        let started = Instant::now();
        let m = decide(&g, Seat(0), &plan, &|_| {}).expect("the computer moves");
        let took = started.elapsed();
        g.play_as(Seat(0), &m).expect("a legal move");
        b.decisions += 1;
        b.time += took;
        b.longest = b.longest.max(took);
        if searched {
            b.searched += 1;
            b.searched_time += took;
        }
        n += 1;
    }
    b.won = g.end() == Some(End::Won);
    b
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("strength: {e}");
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let mut boards = vec![Board::default(); a.games];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..a.threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= a.games {
                            return mine;
                        }
                        mine.push((i, play(&a, a.seed + i as u64)));
                    }
                })
            })
            .collect();
        for w in workers {
            for (i, b) in w.join().expect("a board") {
                boards[i] = b;
            }
        }
    });
    let won = boards.iter().filter(|b| b.won).count();
    let n = a.games as f64;
    let p = won as f64 / n;
    // Wilson's 95 % interval.
    let z = 1.96;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    let decisions: u32 = boards.iter().map(|b| b.decisions).sum();
    let searched: u32 = boards.iter().map(|b| b.searched).sum();
    let time: Duration = boards.iter().map(|b| b.time).sum();
    let searched_time: Duration = boards.iter().map(|b| b.searched_time).sum();
    let longest = boards.iter().map(|b| b.longest).max().unwrap_or_default();
    let ms = |d: Duration, k: u32| if k == 0 { 0.0 } else { d.as_secs_f64() * 1e3 / k as f64 };
    let o = a.options;
    println!(
        "{}x{}, {} mines, computer level {} ({} iterations), {} boards from seed {}",
        o.width,
        o.height,
        o.mines,
        a.level.number(),
        a.level.iterations(),
        a.games,
        a.seed
    );
    println!(
        "won {won} of {} = {:.1} % (95 % interval {:.1}-{:.1} %)",
        a.games,
        100.0 * p,
        100.0 * (centre - half),
        100.0 * (centre + half)
    );
    println!(
        "{decisions} decisions, {:.2} ms each on average; {searched} searched (a guess among several cells), {:.1} ms each; longest {:.0} ms",
        ms(time, decisions),
        ms(searched_time, searched),
        longest.as_secs_f64() * 1e3
    );
    println!("{:.1} s in all on {} threads", started.elapsed().as_secs_f64(), a.threads);
}
