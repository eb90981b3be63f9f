//! The disk alone, without Arbiter: how long a small write and its `fdatasync` take, as the
//! redo log's batches do. Two threads, each on its own file in
//! a temporary folder, append 8 KiB and sync it, 2 ms apart, for S seconds; then every sync of
//! 20 ms or more (the redo log's `SLOW_SYNC`), with the longest sync of the other thread
//! overlapping it. When both threads' syncs stall together, the stall is below the files (the
//! disk, or the file system as a whole), not one file's: no second log file would get around
//! it.
//!
//! `cargo run --release -p arbiter-store --example disk_syncs -- [--seconds 20]`
//! (the folder under `TMPDIR`: run it where the server's data folder would be).

use arbiter_store::SLOW_SYNC as SLOW;
use std::io::Write;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds: u64 =
        args.iter().position(|a| a == "--seconds").and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(20).clamp(1, 3600);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let path = dir.path().join(format!("log-{t}"));
            std::thread::spawn(move || {
                let mut file = std::fs::File::create(&path).expect("a file in the temporary folder");
                let block = [t as u8; 8192];
                let mut syncs = Vec::new();
                while Instant::now() < end {
                    let began = Instant::now();
                    file.write_all(&block).and_then(|()| file.sync_data()).expect("a write and its sync");
                    syncs.push((began, began.elapsed()));
                    std::thread::sleep(Duration::from_millis(2));
                }
                syncs
            })
        })
        .collect();
    let syncs: Vec<Vec<(Instant, Duration)>> = threads.into_iter().map(|t| t.join().expect("a syncing thread")).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (t, mine) in syncs.iter().enumerate() {
        let other = &syncs[1 - t];
        let slow: Vec<_> = mine.iter().filter(|(_, took)| *took >= SLOW).collect();
        let total: Duration = mine.iter().map(|(_, took)| *took).sum();
        println!(
            "file {}: {} syncs, mean {:.2} ms, slowest {:.1} ms, {} of {:.0} ms or more",
            t + 1,
            mine.len(),
            ms(total) / mine.len().max(1) as f64,
            mine.iter().map(|(_, took)| ms(*took)).fold(0.0, f64::max),
            slow.len(),
            ms(SLOW)
        );
        for (began, took) in slow {
            let finished = *began + *took;
            let overlapping = other.iter().filter(|(b, d)| *b < finished && *b + *d > *began).map(|(_, d)| ms(*d)).fold(0.0, f64::max);
            println!(
                "  {:>7.3} s: {:>6.1} ms; the other file's longest sync meanwhile {:.1} ms",
                began.duration_since(start).as_secs_f64(),
                ms(*took),
                overlapping
            );
        }
    }
}
