//! Attack probes against real `arbiter serve` processes on loopback. Each scenario prints its
//! figures and exits 1 if the server broke its promise (0 if it held, 2 if it could not run).
//!
//! `cargo run --release -p arbiter-server --example probe -- kill|flood|pause [options]`
//!
//! The `arbiter` binary is `--bin PATH`, else the one beside this example in the target folder
//! (`cargo build --release -p arbiter-cli` builds it).
//!
//! - `kill [--cycles 30] [--games 32] [--data DIR] [--seed S]`: `arbiter serve --data DIR` as a
//!   child, its games (Twilight Struggle and Minesweeper) played by one client each over HTTP,
//!   random legal moves, every move answered 200 recorded, a new game made when one ends; the
//!   server SIGKILLed after 0.2–2 s of load, restarted on the same folder, and the games of the
//!   cycle (and 32 older ones) read back over HTTP; again, `--cycles` times. Last, the server is
//!   stopped (SIGINT) and every game of the folder is replayed and verified: its moves must be exactly
//!   those acknowledged (and those in flight at a kill that it kept). Promise: no acknowledged
//!   move lost, no game damaged.
//! - `flood [--addresses 26] [--sockets 20] [--half 6] [--burst 300] [--secs 25] [--tries 80]
//!   [--reconnect-ms 0] [--addr HOST:PORT --pid PID]`: sockets from many loopback addresses
//!   (127.0.1.X each hold `--sockets` that never send a request, 127.0.2.X the same with half a
//!   request's head, and 127.0.3.1 opens `--burst` sockets at a time and never reads), each
//!   opened again as soon as the server closes it (or `--reconnect-ms` later); meanwhile a well-behaved client (127.0.9.1–4, a fresh connection for
//!   each request) creates a game, reads its state and opens its WebSocket, `--tries` times.
//!   Then the server's descriptors (`/proc/PID/fd`) are followed back to their baseline.
//!   Promise: every try served; the descriptors back near the baseline.
//! - `pause [--rounds 8] [--lease-ttl 1.5]`: two servers on one throwaway PostgreSQL
//!   (`arbiter-pgtest`); each round, A makes a game with one seat taken, is SIGSTOPped past its
//!   lease, B takes the game over (a join, the USSR's setup moves), a join, a read of the US's
//!   decision and the US's move are queued to A, A is resumed (SIGCONT) and the same move sent
//!   to B; then the join and the read are asked again through A (forwarded to B by then). Last,
//!   both stop and a third server reads every game back. Promise: each seat given once (B's
//!   joiner keeps it), every acknowledged move stored once and nothing else, nothing answered
//!   from A's old copy (503 until it knows the game is B's). Exit 2 without PostgreSQL.
//!
//! Network errors are counted, never a panic: a kill makes many.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The command line after the scenario: `--name value` pairs.
struct Args(Vec<String>);

impl Args {
    fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.0.iter().position(|a| a == name).and_then(|i| self.0.get(i + 1)) {
            Some(v) => v.parse().unwrap_or_else(|_| usage(&format!("{name} {v}: not a valid value"))),
            None => default,
        }
    }

    fn text(&self, name: &str) -> Option<String> {
        self.0.iter().position(|a| a == name).and_then(|i| self.0.get(i + 1)).cloned()
    }
}

fn usage(why: &str) -> ! {
    eprintln!("probe: {why}");
    eprintln!("usage: probe kill|flood|pause [options] (see server/examples/probe.rs)");
    std::process::exit(2)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        usage("which scenario?");
    }
    let scenario = args.remove(0);
    let args = Args(args);
    raise_own_descriptor_limit();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let held = rt.block_on(async {
        match scenario.as_str() {
            "kill" => kill(&args).await,
            "flood" => flood(&args).await,
            "pause" => pause(&args).await,
            other => usage(&format!("no scenario {other:?}")),
        }
    });
    println!("{}", if held { "PROMISE HELD" } else { "PROMISE BROKEN" });
    rt.shutdown_timeout(Duration::from_secs(1));
    std::process::exit(if held { 0 } else { 1 })
}

/// The probe's own soft limit on open files raised to its hard one: a flood holds hundreds.
fn raise_own_descriptor_limit() {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid rlimit for the call to fill, then to read.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max.min(1 << 20);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// A small random source (splitmix64): the kills' moments and the moves chosen.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
}

/// The `arbiter` binary: `--bin`, else the one in the target folder this example was built in.
fn arbiter_bin(args: &Args) -> PathBuf {
    let bin = args.text("--bin").map(PathBuf::from).or_else(|| {
        // target/release/examples/probe -> target/release/arbiter
        let exe = std::env::current_exe().ok()?;
        Some(exe.parent()?.parent()?.join("arbiter"))
    });
    match bin {
        Some(b) if b.is_file() => b,
        other => usage(&format!(
            "no arbiter binary at {}: build it (cargo build --release -p arbiter-cli) or give --bin PATH",
            other.map(|b| b.display().to_string()).unwrap_or_default()
        )),
    }
}

/// A free loopback port (taken by the kernel, given back at once).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| usage(&format!("no free port: {e}")))
}

/// One `arbiter serve` process, its output appended to `log`.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn spawn(bin: &Path, addr: SocketAddr, extra: &[String], log: &Path) -> Server {
        let out =
            std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap_or_else(|e| usage(&format!("{}: {e}", log.display())));
        let err = out.try_clone().unwrap_or_else(|e| usage(&format!("{}: {e}", log.display())));
        let child = Command::new(bin)
            .args(["serve", "--addr", &addr.to_string()])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| usage(&format!("{} serve: {e}", bin.display())));
        Server { child, base: format!("http://{addr}") }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    fn signal(&self, sig: i32) {
        // SAFETY: a signal to our own child, whose pid we hold until it is waited for.
        unsafe {
            libc::kill(self.pid(), sig);
        }
    }

    /// SIGKILL, and wait until it is gone.
    fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }

    /// SIGINT (`arbiter serve`'s Ctrl-C: every game unloaded), waited for up to `within`;
    /// whether it exited by itself (else it is killed).
    fn stop(&mut self, within: Duration) -> bool {
        self.signal(libc::SIGINT);
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill9();
        false
    }

    /// Wait until it answers `GET /api/kinds` (its storage open, a restart's redo log applied).
    async fn ready(&mut self, within: Duration) -> Option<Duration> {
        let started = Instant::now();
        let http = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().ok()?;
        while started.elapsed() < within {
            if let Ok(Some(_)) = self.child.try_wait() {
                return None;
            }
            if let Ok(r) = http.get(format!("{}/api/kinds", self.base)).send().await {
                if r.status() == 200 {
                    return Some(started.elapsed());
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill9();
        }
    }
}

/// An HTTP client whose connections leave from `from` (another client, as the server counts
/// them); `pool`: whether it keeps connections alive between requests.
fn client(from: IpAddr, pool: bool) -> reqwest::Client {
    let mut b = reqwest::Client::builder().local_address(from).timeout(Duration::from_secs(10)).connect_timeout(Duration::from_secs(5));
    if !pool {
        b = b.pool_max_idle_per_host(0);
    }
    b.build().expect("an HTTP client")
}

/// One request's status and JSON body, or the network error's text.
async fn send(req: reqwest::RequestBuilder) -> Result<(u16, Value), String> {
    match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            Ok((status, r.json().await.unwrap_or(Value::Null)))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// A request sent again while the answer is 503 (a game changing servers, being unloaded) or the
/// network fails, `within` at most: the last status and body (0 for a network error).
async fn ask(within: Duration, mut make: impl FnMut() -> reqwest::RequestBuilder) -> (u16, Value) {
    let deadline = Instant::now() + within;
    loop {
        let last = match send(make()).await {
            Ok((503, v)) => (503, v),
            Ok(answer) => return answer,
            Err(e) => (0, json!({ "error": e })),
        };
        if Instant::now() >= deadline {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted.get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1))).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The games this build offers, for replaying saved records.
fn catalogue() -> arbiter_kernel::Catalogue {
    arbiter_kernel::Catalogue::new(arbiter_games::web::offered().iter().map(|o| o.kind).collect())
}

// ---------------------------------------------------------------------------------------------
// kill: SIGKILL under load, restart, every acknowledged move still there.

/// One game as its client knows it.
#[derive(Clone)]
struct Track {
    id: String,
    /// The seats' tokens, in the game's order.
    tokens: Vec<String>,
    /// The address its client connects from.
    from: IpAddr,
    minesweeper: bool,
    /// The moves the game holds: each one's text and whether it was acknowledged (a 200), or
    /// only found stored after a kill cut its answer off.
    history: Vec<(String, bool)>,
    /// A move sent when the server died, its answer not read: stored or not.
    in_doubt: Option<String>,
    over: bool,
    /// What was found wrong with it (then it is played no more).
    damaged: Option<String>,
    rng: u64,
}

impl Track {
    fn acked(&self) -> usize {
        self.history.iter().filter(|(_, a)| *a).count()
    }
}

/// Figures shared by the clients.
#[derive(Default)]
struct Counts {
    acked: AtomicU64,
    network_errors: AtomicU64,
    statuses: Mutex<BTreeMap<u16, u64>>,
}

impl Counts {
    fn status(&self, s: u16) {
        *self.statuses.lock().unwrap_or_else(|p| p.into_inner()).entry(s).or_default() += 1;
    }
}

/// What a seat's `GET …/moves` says.
enum Turn {
    Over,
    Mine(Vec<String>),
    NotMine,
}

fn turn_of(v: &Value) -> Turn {
    if !v["outcome"].is_null() {
        return Turn::Over;
    }
    if v["yours"] == true {
        let moves = v["moves"].as_array().map(|a| a.iter().filter_map(|m| m.as_str().map(String::from)).collect()).unwrap_or_default();
        return Turn::Mine(moves);
    }
    Turn::NotMine
}

/// A random legal move; in Minesweeper a cell is opened one time in eight, else one is flagged
/// or unflagged (a game of random opens ends in a dozen moves: a folder of thousands of games).
fn pick<'a>(moves: &'a [String], rng: &mut Rng, minesweeper: bool) -> &'a str {
    if minesweeper && rng.below(8) != 0 {
        let flags: Vec<&String> = moves.iter().filter(|m| !m.starts_with("open")).collect();
        if !flags.is_empty() {
            return flags[rng.below(flags.len())];
        }
    }
    &moves[rng.below(moves.len())]
}

/// Play `t` until `stop` or the server stops answering: random legal moves as whoever decides.
async fn play(mut t: Track, http: reqwest::Client, base: String, stop: Arc<AtomicBool>, counts: Arc<Counts>) -> Track {
    let mut rng = Rng(t.rng);
    while !stop.load(Ordering::Relaxed) && !t.over && t.damaged.is_none() {
        let mut mine = None;
        for (seat, token) in t.tokens.iter().enumerate() {
            match send(http.get(format!("{base}/api/games/{}/moves?token={token}", t.id))).await {
                Ok((200, v)) => match turn_of(&v) {
                    Turn::Over => t.over = true,
                    Turn::Mine(moves) if !moves.is_empty() => mine = Some((seat, moves)),
                    _ => {}
                },
                Ok((status, _)) => counts.status(status),
                Err(_) => {
                    counts.network_errors.fetch_add(1, Ordering::Relaxed);
                    t.rng = rng.0;
                    return t;
                }
            }
        }
        if t.over {
            break;
        }
        let Some((seat, moves)) = mine else {
            // Nobody decides yet (a 503 while a game loads): asked again.
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let text = pick(&moves, &mut rng, t.minesweeper).to_string();
        let url = format!("{base}/api/games/{}/moves?token={}", t.id, t.tokens[seat]);
        match send(http.post(url).body(json!({ "move": text }).to_string())).await {
            Ok((200, v)) => {
                let seq = v["seq"].as_u64().unwrap_or(0) as usize;
                if seq != t.history.len() + 1 {
                    t.damaged = Some(format!("move {text:?} acknowledged as move {seq}, the game's move {}", t.history.len() + 1));
                }
                t.history.push((text, true));
                counts.acked.fetch_add(1, Ordering::Relaxed);
            }
            Ok((status, _)) => counts.status(status),
            Err(_) => {
                counts.network_errors.fetch_add(1, Ordering::Relaxed);
                t.in_doubt = Some(text);
                break;
            }
        }
    }
    t.rng = rng.0;
    t
}

/// A new game made from address `from` (Twilight Struggle, or Minesweeper on a 16×16 board),
/// asked once: `Err(None)` for a network error (the server died: made or not, nobody knows),
/// `Err(Some(answer))` for a refusal.
async fn create_game(base: &str, from: IpAddr, minesweeper: bool, seed: u64) -> Result<Track, Option<String>> {
    let http = client(from, true);
    let body = if minesweeper { json!({ "game": "minesweeper", "preset": "intermediate" }) } else { json!({}) };
    let (status, v) = send(http.post(format!("{base}/api/games")).body(body.to_string())).await.map_err(|_| None)?;
    if status != 201 {
        return Err(Some(format!("{status} {v}")));
    }
    let seats: &[&str] = if minesweeper { &["player"] } else { &["us", "ussr"] };
    let tokens = seats.iter().map(|s| v["tokens"][s].as_str().unwrap_or_default().to_string()).collect();
    Ok(Track {
        id: v["id"].as_str().unwrap_or_default().to_string(),
        tokens,
        from,
        minesweeper,
        history: Vec::new(),
        in_doubt: None,
        over: false,
        damaged: None,
        rng: seed,
    })
}

/// What one client does in a cycle: plays its game, and when it ends makes another (from an
/// address of its own) and plays that, until `stop` or the server stops answering. Returns the
/// games it played (the last possibly unfinished) and its creations cut off or refused.
async fn slot(
    mut current: Option<Track>,
    base: String,
    next_address: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
    mut rng: Rng,
    minesweeper: bool,
) -> (Vec<Track>, usize, Vec<String>) {
    let mut played = Vec::new();
    let (mut cut_off, mut refused) = (0, Vec::new());
    while !stop.load(Ordering::Relaxed) {
        let g = match current.take() {
            Some(g) => g,
            None => {
                let n = next_address.fetch_add(1, Ordering::Relaxed) as usize;
                match create_game(&base, game_address(n), minesweeper, rng.next()).await {
                    Ok(g) => g,
                    Err(None) => {
                        counts.network_errors.fetch_add(1, Ordering::Relaxed);
                        cut_off += 1;
                        break;
                    }
                    Err(Some(answer)) => {
                        refused.push(answer);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                }
            }
        };
        let http = client(g.from, true);
        let g = play(g, http, base.clone(), stop.clone(), counts.clone()).await;
        let done = g.over || g.damaged.is_some();
        played.push(g);
        if !done {
            break;
        }
    }
    if let Some(g) = current {
        played.push(g);
    }
    (played, cut_off, refused)
}

/// The client address of the `n`th game: 127.1.X.Y, each game its own client (the cap on new
/// games per address would refuse one address's 31st).
fn game_address(n: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 1, (n / 250) as u8, (n % 250 + 1) as u8))
}

/// After a restart: what game `t` holds, against what its client knows. Returns the
/// acknowledged moves lost.
async fn reconcile(t: &mut Track, base: &str) -> usize {
    let http = client(t.from, false);
    let (status, v) = ask(Duration::from_secs(15), || http.get(format!("{base}/api/games/{}/moves?token={}", t.id, t.tokens[0]))).await;
    let doubt = t.in_doubt.take();
    if status != 200 {
        t.damaged = Some(format!("read back after the restart: {status} {v}"));
        return t.acked();
    }
    let seq = v["seq"].as_u64().unwrap_or(0) as usize;
    let n = t.history.len();
    if seq == n + 1 && doubt.is_some() {
        // The move in flight at the kill was stored: the game goes on from it.
        t.history.push((doubt.unwrap_or_default(), false));
    } else if seq < n {
        let lost = t.history[seq..].iter().filter(|(_, a)| *a).count();
        t.damaged = Some(format!("holds {seq} moves after the restart, {n} were stored ({lost} acknowledged lost)"));
        return lost;
    } else if seq != n {
        t.damaged = Some(format!("holds {seq} moves after the restart, {n} were stored and {} in flight", usize::from(doubt.is_some())));
    }
    t.over = matches!(turn_of(&v), Turn::Over);
    0
}

async fn kill(args: &Args) -> bool {
    let cycles: usize = args.get("--cycles", 30);
    let live: usize = args.get("--games", 32).clamp(1, 400);
    let seed: u64 =
        args.get("--seed", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(1));
    let bin = arbiter_bin(args);
    let tmp = tempfile::tempdir().unwrap_or_else(|e| usage(&format!("a temporary folder: {e}")));
    let data = args.text("--data").map(PathBuf::from).unwrap_or_else(|| tmp.path().join("games"));
    let log = tmp.path().join("serve.log");
    let addr: SocketAddr = ([127, 0, 0, 1], free_port()).into();
    let serve_args = vec!["--data".to_string(), data.display().to_string()];
    println!("kill: {} on {addr}, data folder {}, seed {seed}", bin.display(), data.display());
    println!("  {cycles} cycles: {live} clients each playing a game at a time (one in eight Minesweeper, the others Twilight Struggle), SIGKILL after 0.2–2 s of load, restart");
    let mut rng = Rng(seed);
    let mut server = Server::spawn(&bin, addr, &serve_args, &log);
    if server.ready(Duration::from_secs(30)).await.is_none() {
        eprintln!("probe: the server did not start (its log: {})", log.display());
        return false;
    }
    let counts = Arc::new(Counts::default());
    let next_address = Arc::new(AtomicU64::new(0));
    // Every game made, and each client's game under way.
    let mut games: Vec<Track> = Vec::new();
    let mut current: Vec<Option<Track>> = vec![None; live];
    let (mut creations_cut_off, mut refusals) = (0usize, Vec::new());
    let (mut lost, mut in_doubt_kept, mut in_doubt_dropped) = (0usize, 0usize, 0usize);
    let mut restarts: Vec<Duration> = Vec::new();
    let mut loads: Vec<Duration> = Vec::new();
    let mut playing_at_kill: Vec<usize> = Vec::new();
    let mut read_back = 0usize;
    for cycle in 0..cycles {
        let stop = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = current
            .iter_mut()
            .enumerate()
            .map(|(i, c)| {
                let rng = Rng(rng.next());
                // One client in eight plays Minesweeper (its games are short: a folder of many).
                let minesweeper = i % 8 == 7;
                tokio::spawn(slot(c.take(), server.base.clone(), next_address.clone(), stop.clone(), counts.clone(), rng, minesweeper))
            })
            .collect();
        let load = Duration::from_secs_f64(rng.between(0.2, 2.0));
        tokio::time::sleep(load).await;
        loads.push(load);
        server.kill9();
        stop.store(true, Ordering::Relaxed);
        let mut under_way = 0;
        let mut touched = 0;
        for (i, t) in tasks.into_iter().enumerate() {
            match t.await {
                Ok((mut played, cut_off, refused)) => {
                    creations_cut_off += cut_off;
                    refusals.extend(refused);
                    // The client's last game goes on next cycle unless it ended.
                    if played.last().is_some_and(|g| !g.over && g.damaged.is_none()) {
                        under_way += 1;
                        current[i] = played.pop();
                    }
                    touched += played.len();
                    games.extend(played);
                }
                Err(e) => eprintln!("probe: a client task failed: {e}"),
            }
        }
        playing_at_kill.push(under_way);
        server = Server::spawn(&bin, addr, &serve_args, &log);
        match server.ready(Duration::from_secs(60)).await {
            Some(d) => restarts.push(d),
            None => {
                eprintln!("probe: cycle {cycle}: the server did not start again within 60 s (its log: {})", log.display());
                return false;
            }
        }
        // Read back: every game played this cycle, and 32 of those ended before, drawn at random
        // (every file is replayed at the end).
        let old = games.len() - touched;
        let sample: std::collections::HashSet<usize> = (0..32.min(old)).map(|_| rng.below(old)).collect();
        read_back += touched + current.iter().flatten().count() + sample.len();
        let (before_cycle, this_cycle) = games.split_at_mut(old);
        let sampled = before_cycle.iter_mut().enumerate().filter(|(i, _)| sample.contains(i)).map(|(_, g)| g);
        for g in this_cycle.iter_mut().chain(sampled).chain(current.iter_mut().flatten()).filter(|g| g.damaged.is_none()) {
            let doubt = g.in_doubt.is_some();
            let before = g.history.len();
            lost += reconcile(g, &server.base).await;
            if doubt && g.damaged.is_none() {
                if g.history.len() > before {
                    in_doubt_kept += 1
                } else {
                    in_doubt_dropped += 1
                }
            }
        }
        // A game found damaged or over is played no more.
        for c in current.iter_mut() {
            if c.as_ref().is_some_and(|g| g.over || g.damaged.is_some()) {
                games.extend(c.take());
            }
        }
    }
    games.extend(current.into_iter().flatten());
    // The last restart's games, then the files themselves: stopped, each replayed and verified.
    let stopped = server.stop(Duration::from_secs(30));
    let catalogue = catalogue();
    let mut files_checked = 0usize;
    let folder = arbiter_store::FolderDatabase::open(&data);
    for g in &mut games {
        let stored: Result<Vec<String>, String> = folder
            .as_ref()
            .map_err(|e| e.to_string())
            .and_then(|db| {
                arbiter_store::Session::open_in(arbiter_store::GamePlace::Folder { db, id: &g.id }, &catalogue).map_err(|e| e.to_string())
            })
            .map(|s| s.rows().iter().map(|r| r.move_text.clone()).collect());
        files_checked += 1;
        match stored {
            Err(e) => {
                g.damaged.get_or_insert(format!("the stored game does not replay: {e}"));
            }
            Ok(rows) => {
                let known: Vec<String> = g.history.iter().map(|(t, _)| t.clone()).collect();
                if rows != known {
                    let at = rows.iter().zip(&known).take_while(|(a, b)| a == b).count();
                    let missing = g.history.iter().skip(at).filter(|(_, a)| *a).count();
                    if rows.len() < known.len() || at < known.len() {
                        lost += missing;
                    }
                    g.damaged.get_or_insert(format!(
                        "the database holds {} moves, {} were acknowledged; they differ from move {}",
                        rows.len(),
                        known.len(),
                        at + 1
                    ));
                }
            }
        }
    }
    let damaged: Vec<&Track> = games.iter().filter(|g| g.damaged.is_some()).collect();
    let acked: usize = games.iter().map(Track::acked).sum();
    restarts.sort();
    loads.sort();
    let statuses = counts.statuses.lock().unwrap_or_else(|p| p.into_inner()).clone();
    playing_at_kill.sort();
    println!(
        "  cycles: {cycles}; games made: {} ({} ended); games under way at a kill: p50 {}, fewest {}",
        games.len(),
        games.iter().filter(|g| g.over).count(),
        playing_at_kill.get(playing_at_kill.len() / 2).copied().unwrap_or(0),
        playing_at_kill.first().copied().unwrap_or(0)
    );
    for (kind, ms) in [("Twilight Struggle", false), ("Minesweeper", true)] {
        let of: Vec<&Track> = games.iter().filter(|g| g.minesweeper == ms).collect();
        println!("    {kind}: {} games, {} moves", of.len(), of.iter().map(|g| g.history.len()).sum::<usize>());
    }
    println!(
        "  creations cut off by a kill: {creations_cut_off}; refused: {}{}",
        refusals.len(),
        refusals.first().map(|r| format!(" (the first: {r})")).unwrap_or_default()
    );
    println!(
        "  acknowledged moves (200): {acked} ({} counted by the clients); in flight at a kill: {} stored, {} not",
        counts.acked.load(Ordering::Relaxed),
        in_doubt_kept,
        in_doubt_dropped
    );
    println!(
        "  load before each kill: p50 {}, max {}; restart until it answers: p50 {}, max {}",
        ms(pct(&loads, 0.5)),
        ms(loads.last().copied().unwrap_or_default()),
        ms(pct(&restarts, 0.5)),
        ms(restarts.last().copied().unwrap_or_default())
    );
    println!("  network errors (counted): {}; other answers: {statuses:?}", counts.network_errors.load(Ordering::Relaxed));
    println!("  games read back over HTTP after a restart: {read_back} (a game each time)");
    println!(
        "  the last stop (SIGINT): {}; games replayed and verified: {files_checked}",
        if stopped { "exited" } else { "killed after 30 s" }
    );
    println!("  moves lost: {lost}");
    println!("  games damaged: {}", damaged.len());
    for g in &damaged {
        println!("    game {}: {}", g.id, g.damaged.as_deref().unwrap_or_default());
    }
    lost == 0 && damaged.is_empty() && stopped
}

// ---------------------------------------------------------------------------------------------
// flood: many addresses' slow sockets; another client still served; descriptors given back.

/// The server's open descriptors: sockets, and the rest (files, the runtime's own).
fn descriptors(pid: i32) -> Option<(usize, usize)> {
    let mut sockets = 0;
    let mut other = 0;
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        match std::fs::read_link(e.path()) {
            Ok(l) if l.to_string_lossy().starts_with("socket:") => sockets += 1,
            _ => other += 1,
        }
    }
    Some((sockets, other))
}

/// What the flood's sockets met.
#[derive(Default)]
struct FloodCounts {
    opened: AtomicU64,
    connect_failed: AtomicU64,
    /// Closed by the server without an answer, within a second / later.
    closed_soon: AtomicU64,
    closed_late: AtomicU64,
    /// Closed by the server after an answer (a refusal: 429, 503; or 408).
    answered: Mutex<BTreeMap<String, u64>>,
    /// How long each socket the server closed was held.
    held: Mutex<Vec<Duration>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Slow {
    /// Connects and sends nothing.
    Silent,
    /// Sends half a request's head, then nothing.
    Half,
}

/// A socket from `from` to `to`, connected within 5 s.
async fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
    let s = tokio::net::TcpSocket::new_v4()?;
    s.bind((from, 0).into())?;
    match tokio::time::timeout(Duration::from_secs(5), s.connect(to)).await {
        Ok(r) => r,
        Err(_) => Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "connect timed out")),
    }
}

/// One slow client's socket, opened again each time the server closes it, until `stop`.
async fn slow_socket(from: Ipv4Addr, to: SocketAddr, how: Slow, again: Duration, stop: Arc<AtomicBool>, counts: Arc<FloodCounts>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    while !stop.load(Ordering::Relaxed) {
        let mut s = match connect_from(from, to).await {
            Ok(s) => s,
            Err(_) => {
                counts.connect_failed.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        counts.opened.fetch_add(1, Ordering::Relaxed);
        let opened = Instant::now();
        if how == Slow::Half {
            let _ = s.write_all(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le").await;
        }
        let mut got = Vec::new();
        let mut buf = [0u8; 512];
        loop {
            let read = tokio::select! {
                r = s.read(&mut buf) => r,
                () = until(&stop) => return,
            };
            match read {
                Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        let held = opened.elapsed();
        counts.held.lock().unwrap_or_else(|p| p.into_inner()).push(held);
        if got.is_empty() {
            if held < Duration::from_secs(1) { &counts.closed_soon } else { &counts.closed_late }.fetch_add(1, Ordering::Relaxed);
        } else {
            let head = String::from_utf8_lossy(&got);
            let status = head.split_whitespace().nth(1).unwrap_or("?").to_string();
            *counts.answered.lock().unwrap_or_else(|p| p.into_inner()).entry(status).or_default() += 1;
        }
        if !again.is_zero() {
            tokio::time::sleep(again).await;
        }
    }
}

/// Resolves once `stop` is set.
async fn until(stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What one address's bursts of sockets that never read met: closed at once unanswered,
/// answered (a refusal), still open after a second (at most the address's share and its
/// refusals under way).
#[derive(Default)]
struct BurstCounts {
    bursts: u64,
    opened: u64,
    closed_unanswered: u64,
    answered: u64,
    open_after_1s_max: u64,
}

/// Bursts of `n` sockets from `from`, none read from until a second later, every 4 s until
/// `stop`.
async fn bursts(from: Ipv4Addr, to: SocketAddr, n: usize, stop: Arc<AtomicBool>) -> BurstCounts {
    use tokio::io::AsyncReadExt;
    let mut c = BurstCounts::default();
    while !stop.load(Ordering::Relaxed) {
        let mut socks = Vec::new();
        for _ in 0..n {
            if let Ok(s) = connect_from(from, to).await {
                socks.push(s);
            }
        }
        c.bursts += 1;
        c.opened += socks.len() as u64;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut open = 0;
        for s in &mut socks {
            let mut buf = [0u8; 512];
            match tokio::time::timeout(Duration::from_millis(5), s.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => c.closed_unanswered += 1,
                Ok(Ok(_)) => c.answered += 1,
                Err(_) => open += 1,
            }
        }
        c.open_after_1s_max = c.open_after_1s_max.max(open);
        drop(socks);
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    c
}

/// One try of the well-behaved client from `from`: a game made, its state read, its
/// WebSocket's first message a `sync`. `Err` says which step failed and how.
async fn good_try(from: Ipv4Addr, server: SocketAddr) -> Result<Duration, String> {
    use futures_util::StreamExt;
    let started = Instant::now();
    let base = format!("http://{server}");
    let http = client(IpAddr::V4(from), false);
    let (status, v) = send(http.post(format!("{base}/api/games")).body(json!({ "game": "minesweeper" }).to_string()))
        .await
        .map_err(|e| format!("create: {e}"))?;
    if status != 201 {
        return Err(format!("create: {status} {v}"));
    }
    let id = v["id"].as_str().unwrap_or_default().to_string();
    let token = v["tokens"]["player"].as_str().unwrap_or_default().to_string();
    let (status, v) = send(http.get(format!("{base}/api/games/{id}/state?token={token}"))).await.map_err(|e| format!("state: {e}"))?;
    if status != 200 {
        return Err(format!("state: {status} {v}"));
    }
    let stream = connect_from(from, server).await.map_err(|e| format!("websocket connect: {e}"))?;
    let url = format!("ws://{server}/api/games/{id}/ws?token={token}");
    let (mut ws, _) = tokio::time::timeout(Duration::from_secs(10), tokio_tungstenite::client_async(url, stream))
        .await
        .map_err(|_| "websocket handshake: no answer in 10 s".to_string())?
        .map_err(|e| format!("websocket handshake: {e}"))?;
    let first = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.map_err(|_| "websocket: no sync in 10 s".to_string())?;
    let sync = match first {
        Some(Ok(tokio_tungstenite::tungstenite::Message::Text(t))) => serde_json::from_str::<Value>(&t).unwrap_or(Value::Null),
        other => return Err(format!("websocket: {other:?}")),
    };
    if sync["type"] != "sync" {
        return Err(format!("websocket: first message {sync}"));
    }
    let _ = ws.close(None).await;
    Ok(started.elapsed())
}

async fn flood(args: &Args) -> bool {
    let addresses: usize = args.get("--addresses", 26).clamp(1, 250);
    let per: usize = args.get("--sockets", 20).clamp(1, 1000);
    let half: usize = args.get("--half", 6).clamp(0, 250);
    let burst: usize = args.get("--burst", 300).clamp(0, 5000);
    let secs: f64 = args.get("--secs", 25.0f64).max(5.0);
    let tries: usize = args.get("--tries", 80).max(1);
    let again = Duration::from_millis(args.get("--reconnect-ms", 0u64));
    let tmp = tempfile::tempdir().unwrap_or_else(|e| usage(&format!("a temporary folder: {e}")));
    // A running server (`--addr`, `--pid` for its descriptors), or a child of ours.
    let mut own = None;
    let (addr, pid): (SocketAddr, i32) = match args.text("--addr") {
        Some(a) => (a.parse().unwrap_or_else(|_| usage("--addr HOST:PORT")), args.get("--pid", 0)),
        None => {
            let bin = arbiter_bin(args);
            let addr: SocketAddr = ([127, 0, 0, 1], free_port()).into();
            // Each 127.0.0.X its own client (the default, said anyway); a game closed by its
            // last WebSocket unloaded after 5 s (not 60), so its files are closed within the run.
            let extra: Vec<String> =
                ["--data", &tmp.path().join("games").display().to_string(), "--ipv4-prefix", "32", "--unload-after", "5"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            let mut s = Server::spawn(&bin, addr, &extra, &tmp.path().join("serve.log"));
            if s.ready(Duration::from_secs(30)).await.is_none() {
                eprintln!("probe: the server did not start");
                return false;
            }
            let pid = s.pid();
            own = Some(s);
            (addr, pid)
        }
    };
    println!(
        "flood: server {addr} (pid {pid}); {addresses} addresses × {per} silent sockets, {half} × {per} with half a request's head, one address opening {burst} at a time and never reading; each opened again {} after the server closes it; {secs:.0} s; {tries} tries of another client",
        if again.is_zero() { "at once".to_string() } else { ms(again) }
    );
    // The baseline: after one try, so that what a first request opens once is counted in it.
    let warm = good_try(Ipv4Addr::new(127, 0, 9, 9), addr).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = if pid > 0 { descriptors(pid) } else { None };
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(FloodCounts::default());
    let mut tasks = Vec::new();
    for a in 0..addresses {
        for _ in 0..per {
            tasks.push(tokio::spawn(slow_socket(
                Ipv4Addr::new(127, 0, 1, a as u8 + 1),
                addr,
                Slow::Silent,
                again,
                stop.clone(),
                counts.clone(),
            )));
        }
    }
    for a in 0..half {
        for _ in 0..per {
            tasks.push(tokio::spawn(slow_socket(
                Ipv4Addr::new(127, 0, 2, a as u8 + 1),
                addr,
                Slow::Half,
                again,
                stop.clone(),
                counts.clone(),
            )));
        }
    }
    let burster = (burst > 0).then(|| tokio::spawn(bursts(Ipv4Addr::new(127, 0, 3, 1), addr, burst, stop.clone())));
    // The server's descriptors while flooded: sampled every 200 ms.
    let peak = Arc::new(Mutex::new((0usize, 0usize)));
    let sampler = {
        let (stop, peak) = (stop.clone(), peak.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) && pid > 0 {
                if let Some((s, o)) = descriptors(pid) {
                    let mut p = peak.lock().unwrap_or_else(|p| p.into_inner());
                    *p = (p.0.max(s), p.1.max(o));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let started = Instant::now();
    // The flood builds up for 2 s; the tries are spread over the rest, less a second.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let gap = Duration::from_secs_f64((secs - 3.0) / tries as f64);
    let mut served = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for i in 0..tries {
        let from = Ipv4Addr::new(127, 0, 9, (i % 4) as u8 + 1);
        let at = Instant::now();
        match good_try(from, addr).await {
            Ok(d) => served.push(d),
            Err(e) => failures.push(format!("try {}: {e}", i + 1)),
        }
        tokio::time::sleep(gap.saturating_sub(at.elapsed())).await;
    }
    let remaining = Duration::from_secs_f64(secs).saturating_sub(started.elapsed());
    tokio::time::sleep(remaining).await;
    let flood_ended = Instant::now();
    let during = if pid > 0 { descriptors(pid) } else { None };
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = t.await;
    }
    let burst_counts = match burster {
        Some(b) => b.await.unwrap_or_default(),
        None => BurstCounts::default(),
    };
    let _ = sampler.await;
    // After: followed until back within 8 of the baseline (sockets and the rest), 20 s at most.
    let mut after = None;
    let mut back_after = None;
    if let Some((bs, bo)) = baseline {
        while flood_ended.elapsed() < Duration::from_secs(20) {
            after = descriptors(pid);
            if let Some((s, o)) = after {
                if s <= bs + 8 && o <= bo + 8 {
                    back_after = Some(flood_ended.elapsed());
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    served.sort();
    let c = &counts;
    println!(
        "  another client's tries served: {} of {tries} (create, state, WebSocket sync: p50 {}, max {})",
        served.len(),
        ms(pct(&served, 0.5)),
        ms(served.last().copied().unwrap_or_default())
    );
    for f in failures.iter().take(10) {
        println!("    {f}");
    }
    if let Err(e) = &warm {
        println!("    (the try before the flood failed too: {e})");
    }
    let mut held = c.held.lock().unwrap_or_else(|p| p.into_inner()).clone();
    held.sort();
    println!(
        "  slow sockets: {} opened, {} connects failed; closed by the server unanswered {} within 1 s, {} later; answered then closed {:?}; held p50 {}, max {}",
        c.opened.load(Ordering::Relaxed),
        c.connect_failed.load(Ordering::Relaxed),
        c.closed_soon.load(Ordering::Relaxed),
        c.closed_late.load(Ordering::Relaxed),
        c.answered.lock().unwrap_or_else(|p| p.into_inner()),
        ms(pct(&held, 0.5)),
        ms(held.last().copied().unwrap_or_default())
    );
    println!(
        "  the address never reading: {} bursts, {} sockets: {} closed at once unanswered, {} answered; at most {} still open a second later",
        burst_counts.bursts, burst_counts.opened, burst_counts.closed_unanswered, burst_counts.answered, burst_counts.open_after_1s_max
    );
    let fmt = |d: Option<(usize, usize)>| d.map(|(s, o)| format!("{s} sockets + {o} other")).unwrap_or_else(|| "not read (--pid)".into());
    println!(
        "  server descriptors: baseline {}; peak {} (at the end of the flood {}); after {}",
        fmt(baseline),
        fmt(Some(*peak.lock().unwrap_or_else(|p| p.into_inner()))),
        fmt(during),
        fmt(after)
    );
    match back_after {
        Some(d) => println!("  back within 8 of the baseline {} after the flood ended", ms(d)),
        None if baseline.is_some() => println!("  NOT back within 8 of the baseline 20 s after the flood ended"),
        None => {}
    }
    drop(own);
    let burst_ok = burst == 0 || burst_counts.open_after_1s_max as usize <= 32 + arbiter_server::limits::REFUSALS_PER_ADDRESS;
    served.len() == tries && (baseline.is_none() || back_after.is_some()) && burst_ok
}

// ---------------------------------------------------------------------------------------------
// pause: a stopped owner past its lease, its game taken over; what it was sent meanwhile.

/// The moves PostgreSQL holds for game `id`, replayed and verified by the store.
async fn stored_moves(url: &str, id: &str) -> Result<Vec<String>, String> {
    let (url, id) = (url.to_string(), id.to_string());
    tokio::task::spawn_blocking(move || {
        let db = arbiter_store::PgDatabase::connect(&url).map_err(|e| e.to_string())?;
        let s = arbiter_store::Session::open_in(arbiter_store::GamePlace::Postgres { db: &db, id: &id }, &catalogue())
            .map_err(|e| e.to_string())?;
        Ok(s.rows().iter().map(|r| r.move_text.clone()).collect())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// A game of the pause scenario: its id, the US's token, B's joiner's token, the moves
/// acknowledged.
struct Paused {
    id: String,
    us: String,
    ussr: Option<String>,
    acked: Vec<String>,
}

/// The deciding seat's legal moves (`token` asked), through `base`.
async fn legal(http: &reqwest::Client, base: &str, id: &str, token: &str) -> Option<Vec<String>> {
    let (status, v) = ask(Duration::from_secs(30), || http.get(format!("{base}/api/games/{id}/moves?token={token}"))).await;
    match (status, turn_of(&v)) {
        (200, Turn::Mine(m)) if !m.is_empty() => Some(m),
        _ => None,
    }
}

async fn pause(args: &Args) -> bool {
    let rounds: usize = args.get("--rounds", 8).max(1);
    let ttl: f64 = args.get("--lease-ttl", 1.5f64).clamp(0.2, 60.0);
    let bin = arbiter_bin(args);
    let Some(pg) = arbiter_pgtest::PgServer::start() else {
        eprintln!("probe: PostgreSQL is not installed: the pause scenario cannot run");
        std::process::exit(2)
    };
    let url = pg.new_database("probe_pause");
    let tmp = tempfile::tempdir().unwrap_or_else(|e| usage(&format!("a temporary folder: {e}")));
    let log = tmp.path().join("serve.log");
    let start = |name: &str| {
        let extra: Vec<String> = ["--store", &url, "--lease-ttl", &ttl.to_string(), "--data", &tmp.path().join(name).display().to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        Server::spawn(&bin, ([127, 0, 0, 1], free_port()).into(), &extra, &log)
    };
    let (mut a, mut b) = (start("a"), start("b"));
    if a.ready(Duration::from_secs(30)).await.is_none() || b.ready(Duration::from_secs(30)).await.is_none() {
        eprintln!("probe: the servers did not start (their log: {})", log.display());
        return false;
    }
    println!("pause: servers A {} and B {} on one PostgreSQL database, lease {ttl} s; {rounds} rounds", a.base, b.base);
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("an HTTP client");
    let mut violations: Vec<String> = Vec::new();
    let mut games: Vec<Paused> = Vec::new();
    // Each answer seen (its status and error), how many times.
    let mut a_join: BTreeMap<String, u64> = BTreeMap::new();
    let mut a_move: BTreeMap<String, u64> = BTreeMap::new();
    let mut b_move: BTreeMap<String, u64> = BTreeMap::new();
    let mut a_read: BTreeMap<String, u64> = BTreeMap::new();
    let mut stale = 0usize;
    let mut takeovers: Vec<Duration> = Vec::new();
    for round in 0..rounds {
        // A makes the game, the US seat taken, the USSR's free: A holds it.
        let (status, made) =
            ask(Duration::from_secs(10), || http.post(format!("{}/api/games", a.base)).body(json!({ "seat": "us" }).to_string())).await;
        if status != 201 {
            violations.push(format!("round {round}: A made no game: {status} {made}"));
            continue;
        }
        let mut g = Paused {
            id: made["id"].as_str().unwrap_or_default().to_string(),
            us: made["tokens"]["us"].as_str().unwrap_or_default().to_string(),
            ussr: None,
            acked: Vec::new(),
        };
        let _ = send(http.get(format!("{}/api/games/{}/state?token={}", a.base, g.id, g.us))).await;
        // A stops past its lease; B takes the game over and gives the USSR seat.
        a.signal(libc::SIGSTOP);
        tokio::time::sleep(Duration::from_secs_f64(ttl + 0.5)).await;
        let asked = Instant::now();
        let (status, joined) = ask(Duration::from_secs(30), || {
            http.post(format!("{}/api/games/{}/join", b.base, g.id)).body(json!({ "seat": "ussr" }).to_string())
        })
        .await;
        takeovers.push(asked.elapsed());
        if status != 201 {
            violations.push(format!("round {round}: B's join: {status} {joined}"));
            a.signal(libc::SIGCONT);
            games.push(g);
            continue;
        }
        let ussr = joined["token"].as_str().unwrap_or_default().to_string();
        g.ussr = Some(ussr.clone());
        // The USSR's setup through B, until the US decides.
        let mut rng = Rng(round as u64 + 1);
        for _ in 0..12 {
            let Some(moves) = legal(&http, &b.base, &g.id, &ussr).await else { break };
            let text = moves[rng.below(moves.len())].clone();
            let (status, v) = ask(Duration::from_secs(30), || {
                http.post(format!("{}/api/games/{}/moves?token={ussr}", b.base, g.id)).body(json!({ "move": text }).to_string())
            })
            .await;
            if status == 200 {
                g.acked.push(text);
            } else {
                violations.push(format!("round {round}: B refused the USSR's move {text:?}: {status} {v}"));
                break;
            }
        }
        let Some(us_moves) = legal(&http, &b.base, &g.id, &g.us).await else {
            violations.push(format!("round {round}: the US does not decide after the USSR's setup"));
            a.signal(libc::SIGCONT);
            games.push(g);
            continue;
        };
        // Queued to A while it is stopped: a join for the seat B gave, a read of the US's
        // decision, and the US's move. Then A wakes, and the same move goes to B.
        let before = g.acked.len() as u64;
        let body = json!({ "move": us_moves[0] }).to_string();
        let game_a = format!("{}/api/games/{}", a.base, g.id);
        let join_a = tokio::spawn(send(http.post(format!("{game_a}/join")).body(json!({ "seat": "ussr" }).to_string())));
        let read_a = tokio::spawn(send(http.get(format!("{game_a}/moves?token={}", g.us))));
        let move_a = tokio::spawn(send(http.post(format!("{game_a}/moves?token={}", g.us)).body(body.clone())));
        tokio::time::sleep(Duration::from_millis(200)).await;
        a.signal(libc::SIGCONT);
        let move_b = send(http.post(format!("{}/api/games/{}/moves?token={}", b.base, g.id, g.us)).body(body)).await;
        let answer = |r: Result<Result<(u16, Value), String>, tokio::task::JoinError>| match r {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => (0, json!({ "error": e })),
            Err(e) => (0, json!({ "error": e.to_string() })),
        };
        let (ja, ra, ma, mb) = (answer(join_a.await), answer(read_a.await), answer(move_a.await), answer(Ok(move_b)));
        let said = |(status, v): &(u16, Value)| format!("{status} {}", v["error"].as_str().unwrap_or_default()).trim().to_string();
        for (seen, a) in [(&mut a_join, &ja), (&mut a_move, &ma), (&mut b_move, &mb)] {
            *seen.entry(said(a)).or_default() += 1;
        }
        let read = match &ra {
            (200, v) => format!("200 seq {} yours {}", v["seq"], v["yours"]),
            other => said(other),
        };
        *a_read.entry(read).or_default() += 1;
        if ja.0 == 201 {
            violations.push(format!("round {round}: game {}: A gave the USSR seat B had given", g.id));
        }
        // A read of the old position (the US not deciding, fewer moves), or the US's move refused
        // as not its decision: an answer from A's old copy.
        if ra.0 == 200 && (ra.1["yours"] != true || ra.1["seq"].as_u64().is_none_or(|s| s < before)) {
            stale += 1;
            violations.push(format!("round {round}: game {}: A read the US's decision at move {before} as {}", g.id, ra.1));
        }
        if ma.0 == 409 {
            stale += 1;
            violations.push(format!("round {round}: game {}: A refused the US's move: {}", g.id, ma.1));
        }
        // Each 200 is a move stored, numbered by its answer: never one number twice.
        let mut stored: Vec<u64> = [&ma, &mb].iter().filter(|(s, _)| *s == 200).map(|(_, v)| v["seq"].as_u64().unwrap_or(0)).collect();
        stored.sort();
        if stored.len() == 2 && stored[0] == stored[1] {
            violations.push(format!("round {round}: game {}: the US's move acknowledged by both servers as move {}", g.id, stored[0]));
            stored.pop();
        }
        for seq in stored {
            if seq != g.acked.len() as u64 + 1 {
                violations.push(format!(
                    "round {round}: game {}: the US's move acknowledged as move {seq}, after {} moves",
                    g.id,
                    g.acked.len()
                ));
            }
            g.acked.push(us_moves[0].clone());
        }
        // Asked again through A (a client retrying after the 503): B's answers, forwarded.
        let (status, v) =
            ask(Duration::from_secs(30), || http.post(format!("{game_a}/join")).body(json!({ "seat": "ussr" }).to_string())).await;
        if status != 409 {
            violations.push(format!("round {round}: game {}: the join retried through A: {status} {v}", g.id));
        }
        let (status, v) = ask(Duration::from_secs(30), || http.get(format!("{game_a}/moves?token={}", g.us))).await;
        if status != 200 || v["seq"].as_u64() != Some(g.acked.len() as u64) {
            violations.push(format!("round {round}: game {}: the read retried through A at move {}: {status} {v}", g.id, g.acked.len()));
        }
        match stored_moves(&url, &g.id).await {
            Ok(rows) if rows == g.acked => {}
            Ok(rows) => violations.push(format!("round {round}: game {}: stored {rows:?}, acknowledged {:?}", g.id, g.acked)),
            Err(e) => violations.push(format!("round {round}: game {}: the record does not replay: {e}", g.id)),
        }
        games.push(g);
    }
    // Both stop; a third server reads every game again from the database.
    let stopped = (a.stop(Duration::from_secs(30)), b.stop(Duration::from_secs(30)));
    let mut c = start("c");
    if c.ready(Duration::from_secs(30)).await.is_none() {
        eprintln!("probe: the third server did not start (its log: {})", log.display());
        return false;
    }
    for g in &games {
        let Some(ussr) = &g.ussr else { continue };
        let (status, v) = ask(Duration::from_secs(30), || http.get(format!("{}/api/games/{}/state?token={ussr}", c.base, g.id))).await;
        if status != 200 {
            violations.push(format!("game {}: after the restart B's joiner's token is refused: {status} {v}", g.id));
        }
        let (status, v) = ask(Duration::from_secs(30), || {
            http.post(format!("{}/api/games/{}/join", c.base, g.id)).body(json!({ "seat": "ussr" }).to_string())
        })
        .await;
        if status != 409 {
            violations.push(format!("game {}: after the restart the USSR seat is given again: {status} {v}", g.id));
        }
        match stored_moves(&url, &g.id).await {
            Ok(rows) if rows == g.acked => {}
            Ok(rows) => violations.push(format!("game {}: after the restart stored {rows:?}, acknowledged {:?}", g.id, g.acked)),
            Err(e) => violations.push(format!("game {}: after the restart the record does not replay: {e}", g.id)),
        }
    }
    drop(c);
    takeovers.sort();
    let moves: usize = games.iter().map(|g| g.acked.len()).sum();
    println!(
        "  rounds: {rounds}; acknowledged moves: {moves}; B's takeover (its first join answered): p50 {}, max {}",
        ms(pct(&takeovers, 0.5)),
        ms(takeovers.last().copied().unwrap_or_default())
    );
    println!("  A's answers once resumed (0: a network error):");
    for (what, seen) in [("the join of the seat B gave", &a_join), ("the US's move", &a_move)] {
        for (answer, n) in seen {
            println!("    {what}: {n} × {answer}");
        }
    }
    for (answer, n) in &a_read {
        println!("    the read of the US's decision: {n} × {answer}");
    }
    println!("  answers from A's old copy (a read of the old position, a move refused as not the US's): {stale}");
    for (answer, n) in &b_move {
        println!("  B's answers to the same move: {n} × {answer}");
    }
    println!("  A and B stopped by SIGINT: {}", if stopped == (true, true) { "both exited" } else { "one was killed after 30 s" });
    println!("  violations: {}", violations.len());
    for v in &violations {
        println!("    {v}");
    }
    drop(pg);
    violations.is_empty()
}
