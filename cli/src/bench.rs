//! `arbiter bench`: random playouts in memory, timed. Every move goes through the same
//! validation as real play (`Game::play_quiet` differs from `play` only in not composing log
//! text). Game `i` uses seed `S + i` (wrapping past 2^64 - 1 to 0), so the games played do not
//! depend on the thread count.

use arbiter_twilight::playout::{random_game, Playout};
use arbiter_twilight::Options;
use std::collections::BTreeMap;
use std::time::Instant;

#[derive(serde::Serialize)]
pub struct BenchResult {
    pub games: u64,
    pub threads: usize,
    pub seconds: f64,
    pub games_per_sec: f64,
    pub decisions_per_sec: f64,
    pub mean_decisions_per_game: f64,
    pub end_reasons: BTreeMap<String, u64>,
    pub peak_rss_bytes: Option<u64>,
    /// A digest of every game's final state, in seed order: equal across thread counts.
    pub digest: String,
}

/// Peak resident memory of this process (Linux: VmHWM).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What one thread keeps of its games (game `i` is thread `i % threads`'s `i / threads`-th):
/// each final state's hash, in order, and running totals. A few bytes a game, so that a
/// benchmark of many games measures the engine, not its own bookkeeping.
#[derive(Default)]
struct Tally {
    hashes: Vec<u64>,
    decisions: u64,
    end_reasons: BTreeMap<String, u64>,
}

pub fn run(games: u64, seed: u64, threads: usize, options: Options) -> Result<BenchResult, String> {
    let rules = arbiter_twilight_cards::ruleset();
    let threads = threads.max(1);
    let start = Instant::now();
    let tallies: Vec<Result<Tally, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let rules = rules.clone();
                s.spawn(move || {
                    let mut tally = Tally::default();
                    for i in (t as u64..games).step_by(threads) {
                        let p: Playout = random_game(&rules, options, seed.wrapping_add(i))?;
                        tally.hashes.push(p.final_hash);
                        tally.decisions += p.decisions;
                        *tally.end_reasons.entry(format!("{:?}", p.outcome.reason)).or_insert(0) += 1;
                    }
                    Ok(tally)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a benchmark thread panicked".into()))).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let tallies = tallies.into_iter().collect::<Result<Vec<Tally>, String>>()?;
    let decisions: u64 = tallies.iter().map(|t| t.decisions).sum();
    let mut end_reasons = BTreeMap::new();
    for t in &tallies {
        for (k, v) in &t.end_reasons {
            *end_reasons.entry(k.clone()).or_insert(0) += v;
        }
    }
    // In game order, whatever the thread count.
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for i in 0..games {
        let hash = tallies[(i % threads as u64) as usize].hashes[(i / threads as u64) as usize];
        digest = (digest ^ hash).wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(BenchResult {
        games,
        threads,
        seconds,
        games_per_sec: games as f64 / seconds,
        decisions_per_sec: decisions as f64 / seconds,
        mean_decisions_per_game: decisions as f64 / games.max(1) as f64,
        end_reasons,
        peak_rss_bytes: peak_rss_bytes(),
        digest: format!("{digest:016x}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Any seed (the largest included: game seeds wrap), any small count and thread count:
        /// no panic, every game played, the digest independent of the threads.
        #[test]
        fn any_seed_games_and_threads(seed in prop_oneof![Just(u64::MAX), Just(u64::MAX - 1), any::<u64>()], games in 0u64..4, threads in 0usize..4) {
            let one = run(games, seed, 1, Options::default()).unwrap();
            let many = run(games, seed, threads, Options::default()).unwrap();
            prop_assert_eq!(one.games, games);
            prop_assert_eq!(one.end_reasons.values().sum::<u64>(), games);
            prop_assert_eq!(one.digest, many.digest);
        }
    }

    /// Every game of the catalogue decides from reached positions; Twilight Struggle's search
    /// does every iteration its level gives (level 1: 1,000), on one thread or two.
    #[test]
    fn the_search_bench_searches_every_game() {
        let level = arbiter_kernel::search::Level::new(1).unwrap();
        for id in ["twilight-struggle", "minesweeper"] {
            let kind = arbiter_games::catalogue().find(id).unwrap();
            for threads in [1, 2] {
                let r = search(kind, 2, 5, level, threads, 3).unwrap();
                assert_eq!(r.positions, 2, "{id}");
                assert!(r.decisions_per_sec > 0.0, "{id}");
                if id == "twilight-struggle" {
                    assert_eq!(r.iterations, 2 * u64::from(level.iterations()));
                    assert!(r.iterations_per_sec > 0.0);
                }
            }
        }
    }
}

/// What `arbiter bench-search` measured: the computer opponent's search (the kernel's ISMCTS at
/// a level) from mid-game positions reached by random play.
#[derive(serde::Serialize)]
pub struct SearchResult {
    pub game: String,
    pub level: u8,
    pub threads: usize,
    /// Positions searched (decisions with more than one legal move).
    pub positions: u64,
    /// The number of random decisions played before each position.
    pub at_decision: u64,
    pub iterations: u64,
    pub seconds: f64,
    /// Iterations (a sampled hidden state, a walk down the tree, one playout) per second, as
    /// the search reports them (a game whose computer decides without searching, as
    /// Minesweeper's often does by exact odds, reports fewer or none).
    pub iterations_per_sec: f64,
    /// Decisions made per second.
    pub decisions_per_sec: f64,
}

/// Search `positions` positions of `kind`: game `i` (seed `seed + i`) is played with random legal
/// moves for `at` decisions, on to the next decision with a choice, and the deciding seat's
/// computer opponent then chooses its move (timed). Games that end before are skipped.
pub fn search(
    kind: &'static dyn arbiter_kernel::GameKind,
    positions: u64,
    at: u64,
    level: arbiter_kernel::search::Level,
    threads: usize,
    seed: u64,
) -> Result<SearchResult, String> {
    use arbiter_kernel::search::{Agent, Plan};
    use std::sync::atomic::{AtomicU64, Ordering};
    let options = kind.default_options();
    let (mut searched, mut iterations, mut seconds) = (0u64, 0u64, 0f64);
    let mut i = 0u64;
    // At most ten tries a position: a game that ends before `at` is skipped.
    while searched < positions && i < positions.saturating_mul(10).max(10) {
        let s = seed.wrapping_add(i);
        i += 1;
        let (mut game, _) = kind.create(&options, s).map_err(|r| r.to_string())?;
        let mut rng = arbiter_kernel::Randomness::seeded(s);
        let mut played = 0u64;
        let turn = loop {
            let Some(turn) = game.decision() else { break None };
            let moves = game.first_moves();
            if played >= at && moves.len() > 1 {
                break Some(turn);
            }
            let pick = rng.pick(moves.len()).map_err(|e| format!("seed {s}: {e}"))?;
            let m = &moves[pick];
            game.play(turn.first().seat, m).map_err(|r| format!("seed {s}: the listed move {m} was refused: {r}"))?;
            played += 1;
        };
        let Some(turn) = turn else { continue };
        let done = AtomicU64::new(0);
        let plan = Plan { agent: Agent::Computer(level), seed: s, threads, time: None };
        let started = std::time::Instant::now();
        game.computer()
            .agent_move(turn.first().seat, &plan, &|p| {
                done.fetch_max(p.done, Ordering::Relaxed);
            })
            .map_err(|r| format!("seed {s}: the search failed: {r}"))?;
        seconds += started.elapsed().as_secs_f64();
        iterations += done.load(Ordering::Relaxed);
        searched += 1;
    }
    Ok(SearchResult {
        game: kind.id().to_string(),
        level: level.number(),
        threads,
        positions: searched,
        at_decision: at,
        iterations,
        seconds,
        iterations_per_sec: iterations as f64 / seconds.max(f64::MIN_POSITIVE),
        decisions_per_sec: searched as f64 / seconds.max(f64::MIN_POSITIVE),
    })
}
