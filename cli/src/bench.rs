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

pub fn run(games: u64, seed: u64, threads: usize, options: Options) -> Result<BenchResult, String> {
    let rules = arbiter_twilight_cards::ruleset();
    let threads = threads.max(1);
    let start = Instant::now();
    let chunks: Vec<Result<Vec<Playout>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let rules = rules.clone();
                s.spawn(move || {
                    (0..games)
                        .filter(|i| i % threads as u64 == t as u64)
                        .map(|i| random_game(&rules, options, seed.wrapping_add(i)))
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a benchmark thread panicked".into()))).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut all: Vec<Playout> = Vec::new();
    for c in chunks {
        all.extend(c?);
    }
    // In game order (the seeds may wrap past the largest).
    all.sort_by_key(|p| p.seed.wrapping_sub(seed));
    let decisions: u64 = all.iter().map(|p| p.decisions).sum();
    let mut end_reasons = BTreeMap::new();
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for p in &all {
        *end_reasons.entry(format!("{:?}", p.outcome.reason)).or_insert(0) += 1;
        digest = (digest ^ p.final_hash).wrapping_mul(0x0000_0100_0000_01b3);
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
}
