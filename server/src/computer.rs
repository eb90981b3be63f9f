//! The computer's share of the server: the pool its searches run on ([`Pool`]), a game's
//! computer seats ([`Seats`]: which seat thinks next, one search at a time), and the games
//! against it each client address has in play ([`InPlay`]).
//!
//! A search is a core's work for as long as its level asks. On tokio's blocking threads, as
//! many ran at once as games asked, sharing the cores (and those threads) with every person's
//! move. The pool runs at most `Config::computer_threads` at once, on threads of its own at a
//! lower scheduling priority; the others wait their turn in order. A person's move never waits
//! for a search: it runs on tokio's threads, none of which a search holds.

use crate::storage::Session;
use arbiter_kernel::search::{Agent, Plan};
use arbiter_kernel::{Match, Seat};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The searches by default: half the cores (at least one), so that the players' moves always
/// have the other half.
pub fn default_threads() -> usize {
    (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).max(1)
}

/// How much the pool's threads step back in the scheduler (a `nice` value): a busy core runs a
/// person's move before a search.
const NICENESS: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Searches under way (a thread has taken each).
    running: usize,
    /// The most under way at once since the pool was made.
    peak: usize,
    /// Tests hold the searches taken before they start ([`Pool::hold`]).
    held: bool,
    /// The pool was dropped: its threads end once their search is done.
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Told when a job is queued, a hold released, or the pool closed.
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A fixed number of threads that run the computer's searches, one each at a time, in the
/// order they were asked for.
pub struct Pool {
    threads: usize,
    shared: Arc<Shared>,
    /// The threads are started with the first search (a server nobody plays the computer on
    /// starts none).
    started: std::sync::Once,
}

impl Pool {
    /// A pool of `threads` (at least one).
    pub fn new(threads: usize) -> Pool {
        Pool {
            threads: threads.max(1),
            shared: Arc::new(Shared { state: Mutex::new(State::default()), changed: Condvar::new() }),
            started: std::sync::Once::new(),
        }
    }

    /// The searches it runs at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Run `job` on one of the pool's threads, after the jobs queued before it. A job dropped
    /// unrun (the pool closed first) is dropped with what it holds.
    pub fn submit(&self, job: impl FnOnce() + Send + 'static) {
        self.started.call_once(|| {
            for i in 0..self.threads {
                let shared = self.shared.clone();
                let spawned = std::thread::Builder::new().name(format!("arbiter-computer-{i}")).spawn(move || work(&shared));
                if let Err(e) = spawned {
                    eprintln!("arbiter serve: a thread for the computer's searches could not be started: {e}");
                }
            }
        });
        self.shared.lock().queue.push_back(Box::new(job));
        self.shared.changed.notify_one();
    }

    /// Searches under way now.
    pub fn running(&self) -> usize {
        self.shared.lock().running
    }

    /// Searches waiting for a thread.
    pub fn queued(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// The most searches under way at once since the pool was made.
    pub fn peak(&self) -> usize {
        self.shared.lock().peak
    }

    /// While held, a thread that takes a search waits before starting it (it counts as under
    /// way): tests fill the pool and look at the server meanwhile.
    #[doc(hidden)]
    pub fn hold(&self, held: bool) {
        self.shared.lock().held = held;
        self.shared.changed.notify_all();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let queued = {
            let mut s = self.shared.lock();
            s.closed = true;
            s.held = false;
            std::mem::take(&mut s.queue)
        };
        // Dropped outside the lock: a job's own drop may reach the pool.
        drop(queued);
        self.shared.changed.notify_all();
    }
}

/// A pool thread: one job after another until the pool closes.
fn work(shared: &Shared) {
    lower_priority();
    loop {
        let job = {
            let mut s = shared.lock();
            let job = loop {
                if s.closed {
                    return;
                }
                if let Some(job) = s.queue.pop_front() {
                    break job;
                }
                s = shared.changed.wait(s).unwrap_or_else(|p| p.into_inner());
            };
            s.running += 1;
            s.peak = s.peak.max(s.running);
            while s.held && !s.closed {
                s = shared.changed.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            job
        };
        // A job that panics ends, not its thread; the room's own guard says the search is over.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        shared.lock().running -= 1;
    }
}

/// This thread's scheduling priority lowered by [`NICENESS`] (on Linux a thread's nice value is
/// its own). Elsewhere, and if refused, it stays as it is: the pool's size still bounds it.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain calls with no pointers; `who` 0 is the calling thread on Linux.
        unsafe {
            let now = libc::getpriority(libc::PRIO_PROCESS, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, (now + NICENESS).min(19));
        }
    }
}

/// A game's computer seats: the part of a room that reacts to "a move was stored" by thinking
/// for the computer seat that must act now, one search at a time, on the server's pool.
pub struct Seats {
    seats: Vec<crate::seats::ComputerSeat>,
    /// A search is under way, or waiting on the pool for its turn.
    thinking: Arc<AtomicBool>,
    pool: Arc<Pool>,
}

/// A search to run: for `seat`, on a copy of the game at move `seq`.
pub struct Turn {
    pub seat: Seat,
    pub seq: u64,
    plan: Plan,
    game: Box<dyn Match>,
}

/// Clears `thinking` however a search ends: done, failed or panicked, or its job dropped unrun.
struct Thinking(Arc<AtomicBool>);

impl Drop for Thinking {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Seats {
    pub fn new(seats: Vec<crate::seats::ComputerSeat>, pool: Arc<Pool>) -> Seats {
        Seats { seats, thinking: Arc::new(AtomicBool::new(false)), pool }
    }

    /// The seats the computer plays.
    pub fn seats(&self) -> impl Iterator<Item = usize> + '_ {
        self.seats.iter().map(|c| usize::from(c.seat))
    }

    pub fn is_thinking(&self) -> bool {
        self.thinking.load(Ordering::SeqCst)
    }

    /// The search the computer must make now in game `s`, if a computer seat must act: the
    /// first that can think now (at a simultaneous step, a seat the game's sampler cannot put
    /// first waits for the seats before it; the next computer seat thinks once this one's move
    /// is stored). Its seed comes from the game's seed and the move's number.
    pub fn turn(&self, s: &Session) -> Option<Turn> {
        if self.seats.is_empty() {
            return None;
        }
        let d = s.game().decision()?;
        let seed = arbiter_kernel::stable_hash(&(s.header().seed, s.seq()));
        let (seat, c) = d.seats().enumerate().find_map(|(k, a)| {
            let c = self.seats.iter().find(|c| c.seat == a.0)?;
            (k == 0 || s.game().computer().sample_hidden(a, seed).is_ok()).then_some((a, c))
        })?;
        Some(Turn { seat, seq: s.seq(), plan: Plan::new(c.agent, seed), game: s.game().boxed_clone() })
    }

    /// Think for `turn` on the pool, unless a search is under way already (its move, once
    /// stored, asks for the next). `then` gets the move chosen (on tokio's blocking threads,
    /// not the pool's: the pool goes on to the next search) unless `retired` says the game's
    /// copy was unloaded meanwhile. A search that fails (an engine fault) must not stall the
    /// game: a random legal move stands in, said in the server's log. `thinking` is clear again
    /// when `then` is called.
    pub fn think(
        &self,
        id: &str,
        turn: Turn,
        retired: impl Fn() -> bool + Send + 'static,
        then: impl FnOnce(Seat, u64, Result<String, arbiter_kernel::Refusal>) + Send + 'static,
    ) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        if self.thinking.swap(true, Ordering::SeqCst) {
            return;
        }
        let guard = Thinking(self.thinking.clone());
        let id = id.to_string();
        self.pool.submit(move || {
            if retired() {
                return;
            }
            let Turn { seat, seq, plan, game } = turn;
            let chosen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.computer().agent_move(seat, &plan, &|_| {})));
            let chosen = match chosen {
                Ok(Ok(text)) => Ok(text),
                other => {
                    eprintln!("arbiter serve: game {id}: the computer's search failed ({other:?}); it plays a random legal move");
                    game.computer().agent_move(seat, &Plan::new(Agent::Random, plan.seed), &|_| {})
                }
            };
            if retired() {
                return;
            }
            rt.spawn_blocking(move || {
                // The search is over: once the move is stored, the next computer seat may think.
                drop(guard);
                then(seat, seq, chosen);
            });
        });
    }
}

/// The games against the computer each client address created that are in play (loaded, not
/// over, not abandoned): a new one beyond `Config::computer_games_per_address` is refused.
#[derive(Default)]
pub struct InPlay {
    by_client: Mutex<HashMap<IpAddr, Vec<Entry>>>,
}

enum Entry {
    /// A creation under way (its number), counted from before it starts.
    Making(u64),
    Game(String),
}

/// A creation's place in its client's count: [`Reserved::made`] names its game; dropped
/// otherwise (the creation failed), the place is given back.
pub struct Reserved<'a> {
    in_play: &'a InPlay,
    client: IpAddr,
    n: u64,
}

impl InPlay {
    /// A place for a new game against the computer by `client`, unless it has `most` in play
    /// already. `live` says whether a game of its is still in play (the others are forgotten).
    pub fn reserve(&self, client: IpAddr, most: usize, live: impl Fn(&str) -> bool) -> Result<Reserved<'_>, usize> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut by = self.by_client.lock().unwrap_or_else(|p| p.into_inner());
        let held = by.entry(client).or_default();
        held.retain(|e| match e {
            Entry::Making(_) => true,
            Entry::Game(id) => live(id),
        });
        if held.len() >= most {
            let n = held.len();
            if n == 0 {
                by.remove(&client);
            }
            return Err(n);
        }
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        held.push(Entry::Making(n));
        Ok(Reserved { in_play: self, client, n })
    }

    /// Forget the clients with nothing in play.
    pub fn prune(&self, live: impl Fn(&str) -> bool) {
        let mut by = self.by_client.lock().unwrap_or_else(|p| p.into_inner());
        by.retain(|_, held| {
            held.retain(|e| match e {
                Entry::Making(_) => true,
                Entry::Game(id) => live(id),
            });
            !held.is_empty()
        });
    }
}

impl Reserved<'_> {
    /// The creation made game `id`: it counts until it is no longer in play.
    pub fn made(self, id: &str) {
        let mut by = self.in_play.by_client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = by.get_mut(&self.client).and_then(|h| h.iter_mut().find(|e| matches!(e, Entry::Making(n) if *n == self.n))) {
            *e = Entry::Game(id.to_string());
        }
        drop(by);
        std::mem::forget(self);
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        let mut by = self.in_play.by_client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = by.get_mut(&self.client) {
            held.retain(|e| !matches!(e, Entry::Making(n) if *n == self.n));
            if held.is_empty() {
                by.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_runs_at_most_its_threads_at_once_and_every_job_in_the_end() {
        let pool = Pool::new(2);
        pool.hold(true);
        let (tx, rx) = std::sync::mpsc::channel();
        for i in 0..5 {
            let tx = tx.clone();
            pool.submit(move || tx.send(i).unwrap());
        }
        // Two taken and held, three waiting.
        while pool.running() < 2 {
            std::thread::yield_now();
        }
        assert_eq!((pool.running(), pool.queued()), (2, 3));
        assert!(rx.try_recv().is_err(), "nothing ran while held");
        pool.hold(false);
        let mut done: Vec<i32> = (0..5).map(|_| rx.recv().unwrap()).collect();
        done.sort();
        assert_eq!(done, vec![0, 1, 2, 3, 4]);
        assert_eq!(pool.peak(), 2);
    }

    #[test]
    fn a_job_that_panics_leaves_its_thread_working() {
        let pool = Pool::new(1);
        pool.submit(|| panic!("a fault"));
        let (tx, rx) = std::sync::mpsc::channel();
        pool.submit(move || tx.send(()).unwrap());
        rx.recv().unwrap();
    }

    #[test]
    fn a_client_has_its_share_of_games_in_play() {
        let in_play = InPlay::default();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let live = |id: &str| id != "over";
        in_play.reserve(a, 2, live).unwrap().made("g1");
        let failed = in_play.reserve(a, 2, live).unwrap();
        // A creation under way counts; one that failed is given back.
        assert_eq!(in_play.reserve(a, 2, live).err(), Some(2));
        drop(failed);
        in_play.reserve(a, 2, live).unwrap().made("over");
        // The game over is no longer counted.
        in_play.reserve(a, 2, live).unwrap().made("g2");
        assert_eq!(in_play.reserve(a, 2, live).err(), Some(2));
        assert!(in_play.reserve("192.0.2.2".parse().unwrap(), 2, live).is_ok(), "another client has its own");
        in_play.prune(|_| false);
        assert!(in_play.by_client.lock().unwrap().is_empty());
    }
}
