//! The computer opponent, for every game on the kernel: single-observer information-set Monte
//! Carlo tree search (SO-ISMCTS: Cowling, Powley & Whitehouse, "Information Set Monte Carlo
//! Tree Search", IEEE TCIAIG 2012) over the game's own legal moves and playouts.
//!
//! The search never holds the game: it holds a [`Seen`], the game as the deciding seat sees it.
//! Each iteration asks the game for a full state consistent with that view
//! ([`Searchable::determinize`]: the other hand and the deck from the unseen cards, hidden pieces
//! where they may be, the dice to come), walks the tree over the moves legal in that sample
//! (a child's chance of being chosen counts the iterations in which its move was available:
//! UCB1 with availability), adds one move, plays the game's playout policy to the end or to the
//! game's depth ([`Searchable::playout_depth`], then [`Searchable::evaluate`]) and credits each move with
//! the result for the seat that made it.
//!
//! Moves are played through [`Game::play_quiet`], which checks them as a person's move is
//! checked: the computer plays by the same rules. With the same view, seed and iteration
//! budget it makes the same move, on any number of threads: the budget is split over a fixed
//! number of trees (root parallelism), tree `k` seeded from the seed and `k`, and their root
//! statistics summed.

mod seen;

pub use seen::Seen;

use crate::{Game, Randomness, Refusal, Seat};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What the computer opponent asks of a game, beside its rules ([`Game`]): how to sample what
/// a seat may not see, and how to play and judge a playout. A game offers a computer opponent
/// by answering [`Searchable::determinize`]; `impl Searchable for MyGame {}` (every default)
/// says it offers none. Every [`Match`](crate::Match) is a `Searchable`.
pub trait Searchable: Game {
    /// A full state consistent with everything `seat` may know here and nothing else: what it
    /// may not see (another hand, a draw pile's order, where hidden pieces are, the dice to come)
    /// drawn from `rng`, so that two positions `seat` sees alike give the same samples. Only
    /// asked while `seat` must act; in the sample `seat` decides first ([`Game::deciding`]):
    /// at a simultaneous step the choices `seat` may not see, made or to come before its own,
    /// are drawn too. `None` (the default): the game offers no computer opponent.
    /// A game of perfect information answers a copy whose random source is drawn from `rng`.
    fn determinize(&self, _seat: Seat, _rng: &mut Randomness) -> Option<Self> {
        None
    }
    /// The side `seat` plays for (its seats win together), in the game's words, as the whole
    /// state holds it: in a game of hidden teams a secret, asked only where every seat is
    /// played by the asker and nothing is shown to a seat (the arena's split by side). `None`
    /// (the default): a seat plays for itself.
    fn side(&self, _seat: Seat) -> Option<String> {
        None
    }
    /// The moves the computer considers among the legal ones (all by default; a game may leave
    /// out moves no player gains by: resigning, a flag that changes nothing).
    fn search_moves(&self) -> Vec<Self::Move> {
        self.legal_moves()
    }
    /// The playout policy: the index of the move to play among `moves` (never empty; the
    /// search moves) in a playout. Uniformly random by default; a game may prefer what a
    /// player would (not losing on the spot, scoring in time).
    fn playout_move(&self, moves: &[Self::Move], rng: &mut Randomness) -> usize {
        rng.pick(moves.len()).unwrap_or(0)
    }
    /// `Some(cap)`: a playout stops and asks [`Searchable::evaluate`] when the seat that is searching
    /// decides again after another seat has (its next turn: positions are judged at the same
    /// point of the game's rhythm), or after `cap` decisions. `None` (the default): playouts go
    /// to the end of the game.
    fn playout_depth(&self) -> Option<u32> {
        None
    }
    /// How good this unfinished position is for `seat`, from 0 (lost) to 1 (won): what a
    /// playout stopped early scores. Even (0.5) by default. Judged on what the state holds,
    /// which in a search is a sample: it may look at everything.
    fn evaluate(&self, _seat: Seat) -> f64 {
        0.5
    }
}

/// How strong the computer plays: 1 (quick) to 5 (slow), [`Level::DEFAULT`] 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8")]
pub struct Level(u8);

/// Read through [`Level::new`]: a saved level out of range is refused, never indexed.
impl TryFrom<u8> for Level {
    type Error = String;
    fn try_from(n: u8) -> Result<Level, String> {
        Level::new(n).map_err(|r| r.reason)
    }
}

impl Level {
    pub const DEFAULT: Level = Level(3);
    pub const ALL: [Level; 5] = [Level(1), Level(2), Level(3), Level(4), Level(5)];

    pub fn new(n: u8) -> Result<Level, Refusal> {
        if (1..=5).contains(&n) {
            Ok(Level(n))
        } else {
            Err(Refusal::new(format!("no level {n}: the levels are 1 (quick) to 5 (slow), 3 by default"), ""))
        }
    }
    pub fn number(self) -> u8 {
        self.0
    }
    /// The iterations a decision gets at this level, 10,000 at the default (what each costs
    /// and how strong it plays, game by game: BENCHMARKS.md).
    pub fn iterations(self) -> u32 {
        [1_000, 3_000, 10_000, 20_000, 40_000][(self.0 - 1) as usize]
    }
}

impl std::str::FromStr for Level {
    type Err = Refusal;
    fn from_str(s: &str) -> Result<Level, Refusal> {
        let n: u8 = s.trim().parse().map_err(|_| Level::new(0).unwrap_err())?;
        Level::new(n)
    }
}

/// Who plays a seat automatically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Agent {
    /// A uniformly random legal move.
    Random,
    /// The one-move baseline ([`greedy`]).
    Greedy,
    /// The search ([`think`]) at a level.
    Computer(Level),
}

impl Agent {
    /// The samples the greedy agent judges each move on.
    pub const GREEDY_SAMPLES: u32 = 4;
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Agent::Random => f.write_str("random"),
            Agent::Greedy => f.write_str("greedy"),
            Agent::Computer(l) => write!(f, "computer:{}", l.number()),
        }
    }
}

impl std::str::FromStr for Agent {
    type Err = Refusal;
    /// `random`, `greedy`, `computer` (the default level) or `computer:LEVEL`.
    fn from_str(s: &str) -> Result<Agent, Refusal> {
        match s.trim() {
            "random" => Ok(Agent::Random),
            "greedy" => Ok(Agent::Greedy),
            "computer" => Ok(Agent::Computer(Level::DEFAULT)),
            t => match t.strip_prefix("computer:") {
                Some(level) => level.parse().map(Agent::Computer),
                None => Err(Refusal::new(
                    format!("no agent {:?}; the agents are: random, greedy, computer, computer:LEVEL (1-5)", crate::echo(t)),
                    "",
                )),
            },
        }
    }
}

/// How an agent chooses one move: its seed (the same seed, the same move), threads, and a
/// time limit for the search (then the move depends on the machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub agent: Agent,
    pub seed: u64,
    pub threads: usize,
    pub time: Option<Duration>,
}

impl Plan {
    pub fn new(agent: Agent, seed: u64) -> Plan {
        Plan { agent, seed, threads: 1, time: None }
    }
}

/// The move `plan`'s agent makes for `seat` in `game`, as `seat` sees it.
pub fn decide<G: Searchable>(game: &G, seat: Seat, plan: &Plan, progress: &(dyn Fn(Progress) + Sync)) -> Result<G::Move, Refusal> {
    let seen = Seen::new(game, seat)?;
    match plan.agent {
        Agent::Random => {
            let moves = seen.legal_moves();
            let mut rng = Randomness::seeded(plan.seed);
            let i = rng.pick(moves.len().max(1)).unwrap_or(0);
            moves.into_iter().nth(i).ok_or_else(|| Refusal::new("the game lists no move to choose from", "engine"))
        }
        Agent::Greedy => greedy(&seen, Agent::GREEDY_SAMPLES, plan.seed),
        Agent::Computer(level) => {
            let budget = Budget { time: plan.time, ..Budget::level(level, plan.seed).with_threads(plan.threads) };
            think(&seen, &budget, progress).map(|t| t.best)
        }
    }
}

/// What a decision may spend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Iterations, over all trees.
    pub iterations: u32,
    /// Stop at this time even if iterations remain (then the move depends on the machine).
    pub time: Option<Duration>,
    /// Independent trees whose root statistics are summed (root parallelism). Fixed, so that
    /// the thread count does not change the move.
    pub trees: u32,
    /// Threads that grow the trees (at most `trees` are used).
    pub threads: usize,
    pub seed: u64,
}

impl Budget {
    /// The trees of every budget: enough for two to four cores, few enough that each tree
    /// still grows deep at level 1.
    pub const TREES: u32 = 4;

    pub fn level(level: Level, seed: u64) -> Budget {
        Budget { iterations: level.iterations(), time: None, trees: Budget::TREES, threads: 1, seed }
    }
    pub fn with_threads(mut self, threads: usize) -> Budget {
        self.threads = threads.max(1);
        self
    }
}

/// How far a search has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub of: u64,
}

/// A move the search weighed: how often it was chosen and its mean result for the seat.
#[derive(Clone, Debug, PartialEq)]
pub struct Weighed<M> {
    pub mv: M,
    pub visits: u64,
    pub value: f64,
}

/// What a search decided, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought<M> {
    pub best: M,
    /// Every root move, most visited first (empty when there was only one move).
    pub weighed: Vec<Weighed<M>>,
    pub iterations: u64,
    pub elapsed: Duration,
}

/// UCB1's exploration constant for results in [0, 1].
const EXPLORE: f64 = 0.7;

/// Choose a move for the seat of `seen` by ISMCTS within `budget`; `progress` is told how far
/// it has come (from the threads that search, now and then).
pub fn think<G: Searchable>(seen: &Seen<G>, budget: &Budget, progress: &(dyn Fn(Progress) + Sync)) -> Result<Thought<G::Move>, Refusal> {
    let started = Instant::now();
    let mut rng = Randomness::seeded(budget.seed);
    let first = seen.sample(&mut rng)?;
    let moves = first.search_moves();
    let Some(only) = moves.first() else {
        return Err(Refusal::new("the game lists no move to choose from", "engine"));
    };
    if moves.len() == 1 {
        return Ok(Thought { best: only.clone(), weighed: Vec::new(), iterations: 0, elapsed: started.elapsed() });
    }
    let trees = budget.trees.max(1);
    let per_tree = |k: u32| budget.iterations / trees + u32::from(k < budget.iterations % trees);
    let deadline = budget.time.map(|t| started + t);
    let done = AtomicU64::new(0);
    let of = u64::from(budget.iterations);
    let threads = budget.threads.clamp(1, trees as usize);
    let grown: Vec<Result<Vec<Weighed<G::Move>>, Refusal>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (done, per_tree) = (&done, &per_tree);
                scope.spawn(move || {
                    (t as u32..trees)
                        .step_by(threads)
                        .map(|k| {
                            let seed = crate::stable_hash(&(budget.seed, k));
                            let tree = grow(seen, per_tree(k), seed, deadline, &|| {
                                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                                if n % 32 == 0 {
                                    progress(Progress { done: n, of });
                                }
                            });
                            (k, tree)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<_> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|_| vec![(0, Err(Refusal::new("a search thread failed", "engine")))]))
            .collect();
        // In tree order, whichever thread grew them: sums of floating-point numbers depend on
        // their order.
        all.sort_by_key(|(k, _)| *k);
        all.into_iter().map(|(_, t)| t).collect()
    });
    // Sum the trees' root statistics, in the order of the root's moves.
    let mut weighed: Vec<Weighed<G::Move>> = moves.iter().map(|m| Weighed { mv: m.clone(), visits: 0, value: 0.0 }).collect();
    let mut totals = vec![0.0; moves.len()];
    for tree in grown {
        for w in tree? {
            if let Some(i) = moves.iter().position(|m| *m == w.mv) {
                weighed[i].visits += w.visits;
                totals[i] += w.value * w.visits as f64;
            }
        }
    }
    for (w, t) in weighed.iter_mut().zip(&totals) {
        w.value = if w.visits == 0 { 0.0 } else { t / w.visits as f64 };
    }
    let iterations = done.load(Ordering::Relaxed);
    progress(Progress { done: iterations, of });
    // Most visited; ties to the better mean, then to the first listed (a stable sort).
    weighed.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.value.total_cmp(&a.value)));
    Ok(Thought { best: weighed[0].mv.clone(), weighed, iterations, elapsed: started.elapsed() })
}

struct Node<M> {
    /// The seat that made the move leading here (its results are credited to that seat).
    by: Seat,
    children: Vec<(M, usize)>,
    visits: u32,
    /// Iterations in which this node's move was available at its parent.
    available: u32,
    total: f64,
}

impl<M> Node<M> {
    fn new(by: Seat) -> Node<M> {
        Node { by, children: Vec::new(), visits: 0, available: 0, total: 0.0 }
    }
}

/// One tree of `iterations` iterations seeded `seed`: the root's moves with their statistics.
fn grow<G: Searchable>(
    seen: &Seen<G>,
    iterations: u32,
    seed: u64,
    deadline: Option<Instant>,
    tick: &dyn Fn(),
) -> Result<Vec<Weighed<G::Move>>, Refusal> {
    let mut rng = Randomness::seeded(seed);
    let seats = seen.seats();
    let mut nodes: Vec<Node<G::Move>> = vec![Node::new(seen.seat())];
    let mut path: Vec<usize> = Vec::new();
    let mut results = vec![0.0; seats];
    for _ in 0..iterations {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let mut g = seen.sample(&mut rng)?;
        path.clear();
        path.push(0);
        let mut node = 0;
        // Selection, then expansion of one move.
        while g.outcome().is_none() {
            let Some(seat) = g.deciding() else { break };
            let moves = g.search_moves();
            let mut untried: Vec<&G::Move> = Vec::new();
            let mut best: Option<(f64, usize)> = None;
            for m in &moves {
                match nodes[node].children.iter().find(|(c, _)| c == m) {
                    Some(&(_, child)) => {
                        let c = &mut nodes[child];
                        c.available += 1;
                        let ucb = c.total / c.visits as f64 + EXPLORE * ((c.available as f64).ln() / c.visits as f64).sqrt();
                        if best.map_or(true, |(b, _)| ucb > b) {
                            best = Some((ucb, child));
                        }
                    }
                    None => untried.push(m),
                }
            }
            if !untried.is_empty() {
                let m = untried[rng.pick(untried.len()).unwrap_or(0)].clone();
                g.play_quiet(seat, &m).map_err(|r| listed_refused(&g, &m, r))?;
                let child = nodes.len();
                let mut n = Node::new(seat);
                n.available = 1;
                nodes.push(n);
                nodes[node].children.push((m, child));
                path.push(child);
                break;
            }
            let Some((_, child)) = best else { break };
            let m = nodes[node]
                .children
                .iter()
                .find(|(_, c)| *c == child)
                .map(|(m, _)| m.clone())
                .ok_or_else(|| Refusal::new("search tree", "engine"))?;
            g.play_quiet(seat, &m).map_err(|r| listed_refused(&g, &m, r))?;
            node = child;
            path.push(child);
        }
        playout(&mut g, seen.seat(), &mut rng, &mut results)?;
        for &n in &path {
            let node = &mut nodes[n];
            node.visits += 1;
            node.total += results[node.by.idx()];
        }
        tick();
    }
    Ok(nodes[0]
        .children
        .iter()
        .map(|(m, c)| {
            let n = &nodes[*c];
            Weighed { mv: m.clone(), visits: u64::from(n.visits), value: if n.visits == 0 { 0.0 } else { n.total / n.visits as f64 } }
        })
        .collect())
}

/// Play `g` on with its playout policy to its end or, for a game with a playout depth, until
/// `root` decides again after another seat has (so that positions are judged at the same
/// point of the game's rhythm, as the greedy agent judges them) or the depth is reached; then
/// write each seat's result.
fn playout<G: Searchable>(g: &mut G, root: Seat, rng: &mut Randomness, results: &mut [f64]) -> Result<(), Refusal> {
    let depth = g.playout_depth();
    let mut steps = 0u32;
    let mut away = false;
    while g.outcome().is_none() && depth.map_or(true, |d| steps < d) {
        let Some(seat) = g.deciding() else { break };
        away |= seat != root;
        if depth.is_some() && away && seat == root {
            break;
        }
        let moves = g.search_moves();
        if moves.is_empty() {
            break;
        }
        let m = &moves[g.playout_move(&moves, rng).min(moves.len() - 1)];
        g.play_quiet(seat, m).map_err(|r| listed_refused(g, m, r))?;
        steps += 1;
    }
    score(g, results);
    Ok(())
}

/// Each seat's result in [0, 1]: its return ([`crate::Outcome::returns`]) scaled (won 1, lost 0,
/// drew ½); unfinished, the game's evaluation.
pub fn score<G: Searchable>(g: &G, results: &mut [f64]) {
    match g.outcome() {
        Some(o) => {
            let returns = o.returns();
            for (s, r) in results.iter_mut().enumerate() {
                *r = returns.get(s).map_or(0.0, |v| (v + 1.0) / 2.0);
            }
        }
        None => {
            for (s, r) in results.iter_mut().enumerate() {
                *r = g.evaluate(Seat(s as u8)).clamp(0.0, 1.0);
            }
        }
    }
}

fn listed_refused<G: Searchable>(g: &G, m: &G::Move, r: Refusal) -> Refusal {
    Refusal::new(format!("the search's sample refused its own listed move {}: {r}", g.move_text(m)), "engine")
}

/// The decisions the greedy agent plays on after its move, at most.
const GREEDY_HORIZON: usize = 200;

/// The baseline agent: each move is tried on `samples` samples of the hidden state, followed
/// by the playout policy until the seat decides again (the rest of its turn and what follows
/// from it: an event the other side resolves, the other side's reply), and judged by the game's
/// evaluation; the best mean wins (ties to the first listed).
pub fn greedy<G: Searchable>(seen: &Seen<G>, samples: u32, seed: u64) -> Result<G::Move, Refusal> {
    let mut rng = Randomness::seeded(seed);
    let first = seen.sample(&mut rng)?;
    let moves = first.search_moves();
    if moves.len() <= 1 {
        return moves.into_iter().next().ok_or_else(|| Refusal::new("the game lists no move to choose from", "engine"));
    }
    let me = seen.seat();
    let mut results = vec![0.0; seen.seats()];
    let mut sums = vec![0.0; moves.len()];
    for k in 0..samples.max(1) {
        let sample = if k == 0 { first.clone() } else { seen.sample(&mut rng)? };
        for (m, sum) in moves.iter().zip(sums.iter_mut()) {
            let mut g = sample.clone();
            g.play_quiet(me, m).map_err(|r| listed_refused(&g, m, r))?;
            // On by the playout policy until the seat decides again (bounded).
            let mut away = false;
            for _ in 0..GREEDY_HORIZON {
                away |= g.deciding() != Some(me);
                if g.outcome().is_some() || (away && g.deciding() == Some(me)) {
                    break;
                }
                let next = g.search_moves();
                if next.is_empty() {
                    break;
                }
                let n = &next[g.playout_move(&next, &mut rng).min(next.len() - 1)];
                let Some(who) = g.deciding() else { break };
                g.play_quiet(who, n).map_err(|r| listed_refused(&g, n, r))?;
            }
            score(&g, &mut results);
            *sum += results[me.idx()];
        }
    }
    let best = sums.iter().enumerate().fold(0, |b, (i, s)| if *s > sums[b] { i } else { b });
    Ok(moves[best].clone())
}

#[cfg(test)]
mod tests;
