//! The computer opponent's side of Minesweeper: what the player knows of the mines (as exactly
//! as a bounded amount of work allows) and the kernel's search hooks built on it.
//!
//! Everything here starts from a [`Sight`], the board as the player sees it: its size, the mine
//! count and each open cell's number. Flags are the player's notes, not knowledge: a flagged
//! cell is a closed cell. Every function of a sight is pure (its result depends on the sight
//! alone), so the per-thread cache of analyses changes no result, only the time. A search's
//! sample also carries the [`Hint`] of the view it was drawn for: a head start, never a result
//! the view could not give.

use crate::{Cell, Minefield, Minesweeper, Move, Square};
use arbiter_kernel::Randomness;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

/// A closed cell in a [`Sight`].
const CLOSED: u8 = u8::MAX;

/// What is known of each cell in the view a sample was drawn for ([`Analysis::fate`]), kept
/// with the sample: its later positions only add to that view, so what was proved then still
/// holds, and the rules ([`Deducer`]) start from there instead of from nothing. Not part of the
/// game's state: every two hints are equal, and a hint hashes as nothing.
#[derive(Clone, Default)]
pub(crate) struct Hint(Option<Arc<Vec<Fate>>>);

impl PartialEq for Hint {
    fn eq(&self, _: &Hint) -> bool {
        true
    }
}
impl Eq for Hint {}
impl std::hash::Hash for Hint {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}
impl std::fmt::Debug for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Hint(..)" } else { "Hint(none)" })
    }
}

/// How much work a component's analysis may do: first counted layer by layer ([`Layered`],
/// exact, as long as a layer holds at most `states` states), else listed one by one
/// ([`Enumeration`]) until `nodes` search nodes (a cell tried safe or mined) or `solutions`
/// solutions, after which it gives up on being exact (see [`Analysis::exact`]).
#[derive(Clone, Copy, Debug)]
struct Limits {
    nodes: u64,
    solutions: usize,
    /// 0: never counted, always listed.
    states: usize,
}

/// The limits of every analysis. Frontiers are thin lines, which [`Layered`] counts whatever
/// their length (in 130 games measured on 16×30 and 26×50 boards it never gave up); the
/// listing, for a thick frontier, takes a few milliseconds and a few megabytes at most.
const LIMITS: Limits = Limits { nodes: 400_000, solutions: 50_000, states: LAYER_STATES };
/// The search nodes the one placement that starts the Markov chain may take (see
/// [`Analysis::start`]).
const START_NODES: u64 = 4_000_000;
/// When the enumeration was cut short, each sample is moved on by a Markov chain (see [`mix`]):
/// blocks of this many frontier cells, redrawn this many times per block of the frontier.
const MIX_BLOCK: usize = 14;
const MIX_SWEEPS: usize = 6;
/// A block's enumeration (at most 2^14 placements).
const MIX_LIMITS: Limits = Limits { nodes: 1 << 16, solutions: 1 << 14, states: 0 };
/// A guess weighs the cells whose chance of a mine is the lowest (within this rounding), at
/// most [`GUESS_CANDIDATES`] of them: the search chooses among equally safe cells by what they
/// open up, never trading safety for progress (a margin of 0.05 lost about 3 games in 100 on
/// 9×9, measured with `examples/strength.rs`).
const GUESS_MARGIN: f64 = 1e-9;
const GUESS_CANDIDATES: usize = 6;
/// How much an unfinished position loses for the safe cells still closed: its value is
/// `1 - UNFINISHED × (fraction of the safe cells closed)` (a win scores 1, a loss 0).
const UNFINISHED: f64 = 0.9;
/// Analyses kept per thread.
const CACHED: usize = 64;

/// The board as the player sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Sight {
    width: usize,
    height: usize,
    mines: usize,
    /// Row by row: the number of an open cell, or [`CLOSED`].
    cells: Vec<u8>,
}

impl Sight {
    pub(crate) fn of(g: &Minesweeper) -> Sight {
        Sight {
            width: g.options.width as usize,
            height: g.options.height as usize,
            mines: g.options.mines as usize,
            cells: g
                .squares
                .iter()
                .map(|s| match s {
                    Square::Open(n) => *n,
                    Square::Closed | Square::Flagged => CLOSED,
                })
                .collect(),
        }
    }
    fn is_open(&self, i: usize) -> bool {
        self.cells[i] != CLOSED
    }
    fn any_open(&self) -> bool {
        self.cells.iter().any(|&c| c != CLOSED)
    }
    /// The cells around `i` (up to 8), in board order.
    fn around(&self, i: usize) -> impl Iterator<Item = usize> {
        const STEPS: [(isize, isize); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];
        let (w, h) = (self.width as isize, self.height as isize);
        let (r, c) = ((i / self.width) as isize, (i % self.width) as isize);
        STEPS.iter().filter_map(move |&(dr, dc)| {
            let (rr, cc) = (r + dr, c + dc);
            (0..h).contains(&rr).then_some(())?;
            (0..w).contains(&cc).then(|| (rr * w + cc) as usize)
        })
    }
    /// The cells at most two steps from `i` (a king's two moves), `i` left out.
    fn near(&self, i: usize) -> impl Iterator<Item = usize> {
        let (w, h) = (self.width, self.height);
        let (r, c) = (i / w, i % w);
        (r.saturating_sub(2)..=(r + 2).min(h - 1))
            .flat_map(move |rr| (c.saturating_sub(2)..=(c + 2).min(w - 1)).map(move |cc| rr * w + cc))
            .filter(move |&j| j != i)
    }
    /// Open numbers with a closed cell around them.
    fn numbers(&self) -> Vec<usize> {
        (0..self.cells.len()).filter(|&i| self.is_open(i) && self.around(i).any(|j| !self.is_open(j))).collect()
    }
}

/// What is known of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    Open,
    Unknown,
    Safe,
    Mine,
}

/// The cells around a number that are still unknown (at most 8, in board order).
#[derive(Clone, Copy)]
struct Around {
    cells: [usize; 8],
    len: usize,
}

impl Around {
    fn as_slice(&self) -> &[usize] {
        &self.cells[..self.len]
    }
    /// Every cell of `self` is in `other` (both in board order).
    fn within(&self, other: &Around) -> bool {
        let mut k = 0;
        self.as_slice().iter().all(|c| {
            while k < other.len && other.cells[k] < *c {
                k += 1;
            }
            k < other.len && other.cells[k] == *c
        })
    }
}

/// What the numbers tell one by one, and two by two: all the closed cells around a number are
/// safe once it counts its known mines, all mines when it needs every one of them; and when the
/// unknown cells of one number lie among another's, the difference holds the difference of
/// their needs. Sound (never wrong), not complete (the enumeration of [`Analysis`] is).
struct Deducer {
    sight: Sight,
    fate: Vec<Fate>,
    /// Numbers to look at again (their surroundings changed).
    queue: Vec<usize>,
    queued: Vec<bool>,
    /// Cells found safe, to open when the deducer may open cells.
    found_safe: Vec<usize>,
    /// Numbers whose surroundings changed since the rule for pairs last looked.
    dirty: Vec<bool>,
}

impl Deducer {
    fn new(s: Sight) -> Deducer {
        let fate = s.cells.iter().map(|&c| if c == CLOSED { Fate::Unknown } else { Fate::Open }).collect();
        let queue = s.numbers();
        let mut queued = vec![false; s.cells.len()];
        queue.iter().for_each(|&i| queued[i] = true);
        let dirty = queued.clone();
        Deducer { sight: s, fate, queue, queued, found_safe: Vec::new(), dirty }
    }

    /// The rules on `s`, from what was proved (`hint`) on a view `s` only adds to: only the
    /// numbers new since, and those around them, are looked at again.
    fn from_hint(s: Sight, hint: &[Fate]) -> Deducer {
        let n = s.cells.len();
        let mut d = Deducer {
            fate: Vec::with_capacity(n),
            queue: Vec::new(),
            queued: vec![false; n],
            found_safe: Vec::new(),
            dirty: vec![false; n],
            sight: s,
        };
        for (i, &known) in hint.iter().enumerate() {
            let f = match (d.sight.is_open(i), known) {
                (true, _) => Fate::Open,
                (false, Fate::Mine) => Fate::Mine,
                (false, Fate::Safe) => Fate::Safe,
                (false, Fate::Open | Fate::Unknown) => Fate::Unknown,
            };
            d.fate.push(f);
            if f == Fate::Safe {
                d.found_safe.push(i);
            }
        }
        for (i, &known) in hint.iter().enumerate() {
            if d.sight.is_open(i) && known != Fate::Open {
                d.opened(i, d.sight.cells[i]);
            }
        }
        d
    }

    /// The unknown cells around number `i` and the mines it still needs among them (`None`
    /// if the view contradicts itself, which no real view does).
    fn pending(&self, i: usize) -> Option<(Around, usize)> {
        let mut a = Around { cells: [0; 8], len: 0 };
        let mut mines = 0;
        for j in self.sight.around(i) {
            match self.fate[j] {
                Fate::Unknown => {
                    a.cells[a.len] = j;
                    a.len += 1;
                }
                Fate::Mine => mines += 1,
                Fate::Open | Fate::Safe => {}
            }
        }
        let need = (self.sight.cells[i] as usize).checked_sub(mines)?;
        (need <= a.len).then_some((a, need))
    }

    fn look_again_around(&mut self, j: usize) {
        for n in self.sight.around(j) {
            if self.sight.is_open(n) {
                self.dirty[n] = true;
                if !self.queued[n] {
                    self.queued[n] = true;
                    self.queue.push(n);
                }
            }
        }
    }

    /// Settle the unknown ones among `cells`: whether any was.
    fn settle(&mut self, cells: &[usize], to: Fate) -> bool {
        let mut changed = false;
        for &j in cells {
            if self.fate[j] == Fate::Unknown {
                self.fate[j] = to;
                changed = true;
                if to == Fate::Safe {
                    self.found_safe.push(j);
                }
                self.look_again_around(j);
            }
        }
        changed
    }

    /// Open cell `i`, which shows `n`.
    fn opened(&mut self, i: usize, n: u8) {
        self.sight.cells[i] = n;
        self.fate[i] = Fate::Open;
        self.dirty[i] = true;
        if !self.queued[i] {
            self.queued[i] = true;
            self.queue.push(i);
        }
        self.look_again_around(i);
    }

    /// Deduce all the rules give. `reveal`, if given, opens each cell found safe and tells its
    /// number (the deductions go on from it).
    fn run(&mut self, mut reveal: Option<&mut dyn FnMut(usize) -> u8>) {
        loop {
            while let Some(i) = self.queue.pop() {
                self.queued[i] = false;
                let Some((a, need)) = self.pending(i) else { continue };
                if a.len == 0 {
                    continue;
                }
                if need == 0 {
                    self.settle(a.as_slice(), Fate::Safe);
                } else if need == a.len {
                    self.settle(a.as_slice(), Fate::Mine);
                }
            }
            if let Some(reveal) = reveal.as_mut() {
                if !self.found_safe.is_empty() {
                    for j in std::mem::take(&mut self.found_safe) {
                        let n = reveal(j);
                        self.opened(j, n);
                    }
                    continue;
                }
            }
            if !self.pairs() {
                return;
            }
        }
    }

    /// The rule for two numbers whose unknown cells nest, for the pairs of which one changed
    /// since the last look; whether it settled anything. From one snapshot of every number: a
    /// pair's conclusion stays true of the mines whatever is settled meanwhile.
    fn pairs(&mut self) -> bool {
        let was = std::mem::replace(&mut self.dirty, vec![false; self.fate.len()]);
        // Only numbers near a changed one can be in a pair worth a look.
        let mut near_dirty = vec![false; self.fate.len()];
        let mut numbers = Vec::new();
        for d in (0..was.len()).filter(|&d| was[d]) {
            for x in std::iter::once(d).chain(self.sight.near(d)) {
                if self.sight.is_open(x) && !near_dirty[x] {
                    near_dirty[x] = true;
                    numbers.push(x);
                }
            }
        }
        let mut slot = vec![u32::MAX; self.fate.len()];
        let mut active: Vec<(usize, Around, usize)> = Vec::new();
        for i in numbers {
            if let Some((a, need)) = self.pending(i).filter(|(a, _)| a.len > 0) {
                slot[i] = active.len() as u32;
                active.push((i, a, need));
            }
        }
        let mut changed = false;
        for &(i, a, need_a) in &active {
            for j in self.sight.near(i) {
                if slot[j] == u32::MAX || !(was[i] || was[j]) {
                    continue;
                }
                let (_, b, need_b) = active[slot[j] as usize];
                if b.len <= a.len || !a.within(&b) {
                    continue;
                }
                let rest: Vec<usize> = b.as_slice().iter().copied().filter(|x| !a.as_slice().contains(x)).collect();
                let Some(d) = need_b.checked_sub(need_a) else { continue };
                if d == 0 {
                    changed |= self.settle(&rest, Fate::Safe);
                } else if d == rest.len() {
                    changed |= self.settle(&rest, Fate::Mine);
                }
            }
        }
        changed
    }
}

/// The fates the rules of [`Deducer`] prove from the sight alone.
pub(crate) fn deduce(s: &Sight) -> Vec<Fate> {
    let mut d = Deducer::new(s.clone());
    d.run(None);
    d.fate
}

impl Hint {
    /// The rules on `s`, from this hint if there is one (a view `s` adds to).
    fn deducer(&self, s: Sight) -> Deducer {
        match &self.0 {
            Some(fate) if fate.len() == s.cells.len() => Deducer::from_hint(s, fate),
            _ => Deducer::new(s),
        }
    }
}

/// ln(n!) for n up to the largest board (26 × 50 cells).
fn ln_factorial(n: usize) -> f64 {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = vec![0.0; 26 * 50 + 1];
        for k in 1..t.len() {
            t[k] = t[k - 1] + (k as f64).ln();
        }
        t
    });
    t[n]
}

/// ln C(n, k), or minus infinity when `k > n`.
fn ln_choose(n: usize, k: usize) -> f64 {
    if k > n {
        f64::NEG_INFINITY
    } else {
        ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
    }
}

/// A uniform number in [0, 1) from `rng`.
fn uniform(rng: &mut Randomness) -> Option<f64> {
    let hi = rng.pick(1 << 26).ok()? as f64;
    let lo = rng.pick(1 << 27).ok()? as f64;
    Some((hi * (1u64 << 27) as f64 + lo) / (1u64 << 53) as f64)
}

/// An index drawn with probability proportional to `weights` (finite, non-negative), or `None`
/// if they are all zero.
fn weighted(weights: &[f64], rng: &mut Randomness) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let mut u = uniform(rng)? * total;
    let last = weights.iter().rposition(|&w| w > 0.0)?;
    for (i, &w) in weights.iter().enumerate() {
        if u < w {
            return Some(i);
        }
        u -= w;
    }
    Some(last)
}

/// `weights` (as natural logarithms) made linear, the largest 1 (all zero if none is finite).
fn from_logs(logs: &[f64]) -> Vec<f64> {
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return vec![0.0; logs.len()];
    }
    logs.iter().map(|&l| (l - top).exp()).collect()
}

/// The convolution of two counts by mine number, truncated at `most` mines and scaled so that
/// its largest entry is 1 (the scale is the same for every entry: it cancels in every draw).
fn convolve(a: &[f64], b: &[f64], most: usize) -> Vec<f64> {
    let len = (a.len() + b.len() - 1).min(most + 1);
    let mut out = vec![0.0; len];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            if i + j < len {
                out[i + j] += x * y;
            }
        }
    }
    let top = out.iter().copied().fold(0.0, f64::max);
    if top > 0.0 {
        out.iter_mut().for_each(|x| *x /= top);
    }
    out
}

/// Which totals are possible: the boolean convolution (no rounding can lose one).
fn convolve_possible(a: &[bool], b: &[bool], most: usize) -> Vec<bool> {
    let len = (a.len() + b.len() - 1).min(most + 1);
    let mut out = vec![false; len];
    for (i, _) in a.iter().enumerate().filter(|(_, &x)| x) {
        for (j, _) in b.iter().enumerate().filter(|(_, &y)| y) {
            if i + j < len {
                out[i + j] = true;
            }
        }
    }
    out
}

/// Solutions listed one by one: the ways to place mines on some cells that satisfy every number
/// around them.
struct Solutions {
    cells: Vec<usize>,
    /// u64 words per solution.
    words: usize,
    /// The solutions, `words` each (bit k: a mine at `cells[k]`).
    bits: Vec<u64>,
    /// Solution indices by their number of mines.
    by_count: Vec<Vec<u32>>,
    /// Per cell, per number of mines: the solutions with a mine at that cell.
    mines_at: Vec<Vec<u32>>,
    /// Every solution was found (the enumeration stayed within its budget).
    complete: bool,
}

impl Solutions {
    fn counts(&self) -> Vec<f64> {
        self.by_count.iter().map(|v| v.len() as f64).collect()
    }
    fn has_mine(&self, solution: u32, k: usize) -> bool {
        self.bits[solution as usize * self.words + k / 64] >> (k % 64) & 1 == 1
    }
}

/// Enumerates one component's solutions by backtracking, cells in breadth-first order so that
/// each number is settled soon after its first cell is tried.
struct Enumeration {
    /// Per cell (component order), the constraints it is in.
    cell_constraints: Vec<Vec<usize>>,
    need: Vec<usize>,
    placed: Vec<usize>,
    open: Vec<usize>,
    current: Vec<u64>,
    mines: usize,
    least: usize,
    most: usize,
    nodes: u64,
    limits: Limits,
    out: Solutions,
}

impl Enumeration {
    /// The solutions with `least` to `most` mines on `cells` (every cell of a constraint given
    /// is among them), within `limits`.
    fn run(cells: Vec<usize>, constraints: &[(Vec<usize>, usize)], least: usize, most: usize, limits: Limits) -> Solutions {
        let n = cells.len();
        let local = |c: usize| cells.iter().position(|&x| x == c);
        let mut cell_constraints = vec![Vec::new(); n];
        let mut need = Vec::new();
        let mut open = Vec::new();
        for (k, (cs, nd)) in constraints.iter().enumerate() {
            for &c in cs {
                if let Some(l) = local(c) {
                    cell_constraints[l].push(k);
                }
            }
            need.push(*nd);
            open.push(cs.len());
        }
        let words = n.div_ceil(64).max(1);
        let top = most.min(n);
        let mut e = Enumeration {
            cell_constraints,
            placed: vec![0; need.len()],
            need,
            open,
            current: vec![0; words],
            mines: 0,
            least,
            most: top,
            nodes: 0,
            limits,
            out: Solutions {
                cells,
                words,
                bits: Vec::new(),
                by_count: vec![Vec::new(); top + 1],
                mines_at: vec![vec![0; top + 1]; n],
                complete: true,
            },
        };
        e.go(0);
        e.out
    }

    fn go(&mut self, i: usize) {
        let n = self.out.cells.len();
        if self.mines + (n - i) < self.least {
            return;
        }
        if i == n {
            let id = self.out.by_count.iter().map(Vec::len).sum::<usize>();
            if id >= self.limits.solutions {
                self.out.complete = false;
                return;
            }
            self.out.bits.extend_from_slice(&self.current);
            self.out.by_count[self.mines].push(id as u32);
            for k in 0..i {
                if self.current[k / 64] >> (k % 64) & 1 == 1 {
                    self.out.mines_at[k][self.mines] += 1;
                }
            }
            return;
        }
        for v in [0usize, 1] {
            if v == 1 && self.mines == self.most {
                continue;
            }
            self.nodes += 1;
            if self.nodes > self.limits.nodes {
                self.out.complete = false;
                return;
            }
            let mut ok = true;
            for &c in &self.cell_constraints[i] {
                self.open[c] -= 1;
                self.placed[c] += v;
                ok &= self.placed[c] <= self.need[c] && self.placed[c] + self.open[c] >= self.need[c];
            }
            if ok {
                if v == 1 {
                    self.current[i / 64] |= 1 << (i % 64);
                    self.mines += 1;
                }
                self.go(i + 1);
                if v == 1 {
                    self.current[i / 64] &= !(1 << (i % 64));
                    self.mines -= 1;
                }
            }
            for &c in &self.cell_constraints[i] {
                self.open[c] += 1;
                self.placed[c] -= v;
            }
            if !self.out.complete {
                return;
            }
        }
    }
}

/// A component's solutions counted, not listed: dynamic programming along the cells' order.
/// After the first i cells are given a fate, what matters of them to the rest is the fate of
/// the "active" ones (those in a number whose last cell is still to come): a layer's states.
/// A frontier is mostly a thin line, so few cells are active at once and the layers stay small,
/// however long the line: the counts, the chances and the draws are exact. A thick frontier
/// (too many states) is left to [`Enumeration`].
struct Layered {
    /// layers[i]: the states once cells 0..i have their fates (layers[0]: one, nothing given;
    /// layers[n]: one, everything given).
    layers: Vec<Layer>,
}

struct Layer {
    /// Per state: the state of the next layer reached with the next cell safe (0) or mined
    /// (1), or [`NONE`] if a number forbids it.
    next: Vec<[u32; 2]>,
    /// Per state, per number of mines so far: the ways to reach it (scaled per layer).
    reach: Vec<Vec<f64>>,
    /// Per state, per number of mines still to place: the ways to finish (scaled per layer).
    finish: Vec<Vec<f64>>,
}

const NONE: u32 = u32::MAX;
/// Counting gives up beyond this many states in a layer, or this many counts in all (8 bytes
/// each), or this many cells (the scaled counts could underflow).
const LAYER_STATES: usize = 1 << 12;
const LAYERED_COUNTS: usize = 4_000_000;
const LAYERED_CELLS: usize = 800;

impl Layered {
    /// `cells` in order, the constraints on them, at most `most` mines; `None` if too large.
    fn solve(cells: &[usize], constraints: &[(Vec<usize>, usize)], most: usize, limit: usize) -> Option<Layered> {
        let n = cells.len();
        if n > LAYERED_CELLS {
            return None;
        }
        let local = |c: usize| cells.iter().position(|&x| x == c);
        let mut members: Vec<(Vec<usize>, usize)> = Vec::new();
        for (cs, need) in constraints {
            let mut l: Vec<usize> = cs.iter().filter_map(|&c| local(c)).collect();
            l.sort_unstable();
            members.push((l, *need));
        }
        let mut in_constraints = vec![Vec::new(); n];
        for (j, (l, _)) in members.iter().enumerate() {
            l.iter().for_each(|&k| in_constraints[k].push(j));
        }
        // active[i]: the cells before i in a constraint whose last cell is i or later.
        let last: Vec<usize> = members.iter().map(|(l, _)| l.last().copied().unwrap_or(0)).collect();
        let active: Vec<Vec<usize>> =
            (0..=n).map(|i| (0..i).filter(|&k| in_constraints[k].iter().any(|&j| last[j] >= i)).collect()).collect();
        if active.iter().any(|a| a.len() > 63) {
            return None;
        }
        let bit = |i: usize, k: usize| active[i].iter().position(|&x| x == k);
        // The states, layer by layer, and their transitions.
        let mut states: Vec<Vec<u64>> = vec![vec![0]];
        let mut nexts: Vec<Vec<[u32; 2]>> = Vec::new();
        let mut counts = 1usize;
        for i in 0..n {
            let mut found: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
            let mut following: Vec<u64> = Vec::new();
            let mut next = Vec::with_capacity(states[i].len());
            let value = |st: u64, k: usize, v: u64| if k == i { v } else { bit(i, k).map_or(0, |b| st >> b & 1) };
            for &st in &states[i] {
                let mut to = [NONE; 2];
                for v in 0..2u64 {
                    let allowed = in_constraints[i].iter().all(|&j| {
                        let (l, need) = &members[j];
                        let placed = l.iter().filter(|&&k| k <= i).map(|&k| value(st, k, v) as usize).sum::<usize>();
                        let open = l.iter().filter(|&&k| k > i).count();
                        placed <= *need && placed + open >= *need
                    });
                    if !allowed {
                        continue;
                    }
                    let mut ns = 0u64;
                    for (b, &k) in active[i + 1].iter().enumerate() {
                        ns |= value(st, k, v) << b;
                    }
                    let id = *found.entry(ns).or_insert_with(|| {
                        following.push(ns);
                        (following.len() - 1) as u32
                    });
                    to[v as usize] = id;
                }
                next.push(to);
            }
            if following.len() > limit {
                return None;
            }
            counts += following.len() * (2 + (i + 1).min(most) + (n - i).min(most));
            if counts > LAYERED_COUNTS {
                return None;
            }
            nexts.push(next);
            states.push(following);
        }
        nexts.push(vec![[NONE; 2]; states[n].len()]);
        let scale = |v: &mut Vec<Vec<f64>>| {
            let top = v.iter().flatten().copied().fold(0.0, f64::max);
            if top > 0.0 {
                v.iter_mut().flatten().for_each(|x| *x /= top);
            }
        };
        // Forward: the ways to reach each state with m mines.
        let mut reach: Vec<Vec<Vec<f64>>> = vec![vec![vec![1.0]]];
        for i in 0..n {
            let width = (i + 1).min(most) + 1;
            let mut r = vec![vec![0.0; width]; states[i + 1].len()];
            for (st, to) in nexts[i].iter().enumerate() {
                for (v, &t) in to.iter().enumerate() {
                    if t == NONE {
                        continue;
                    }
                    for (m, &w) in reach[i][st].iter().enumerate() {
                        if w > 0.0 && m + v < width {
                            r[t as usize][m + v] += w;
                        }
                    }
                }
            }
            scale(&mut r);
            reach.push(r);
        }
        // Backward: the ways to finish from each state with r more mines.
        let mut finish: Vec<Vec<Vec<f64>>> = vec![Vec::new(); n + 1];
        finish[n] = vec![vec![1.0]; states[n].len()];
        for i in (0..n).rev() {
            let width = (n - i).min(most) + 1;
            let mut f = vec![vec![0.0; width]; states[i].len()];
            for (st, to) in nexts[i].iter().enumerate() {
                for (v, &t) in to.iter().enumerate() {
                    if t == NONE {
                        continue;
                    }
                    for (r, &w) in finish[i + 1][t as usize].iter().enumerate() {
                        if w > 0.0 && r + v < width {
                            f[st][r + v] += w;
                        }
                    }
                }
            }
            scale(&mut f);
            finish[i] = f;
        }
        let layers = nexts.into_iter().zip(reach).zip(finish).map(|((next, reach), finish)| Layer { next, reach, finish }).collect();
        Some(Layered { layers })
    }

    /// The ways to place each number of mines (scaled).
    fn counts(&self) -> Vec<f64> {
        self.layers[0].finish.first().cloned().unwrap_or_default()
    }

    /// Each cell's chance of a mine when the component's total m weighs `weights[m]`, and its
    /// certain fate when the totals `feasible` are those possible.
    fn marginals(&self, weights: &[f64], feasible: &[bool]) -> Vec<(f64, Option<Fate>)> {
        let n = self.layers.len() - 1;
        let mut out = vec![(0.0, None); n];
        // Backward with the weights (`ahead`) and the feasible totals (`can`): per state, per
        // mines so far.
        let last = &self.layers[n];
        let mut ahead: Vec<Vec<f64>> = vec![weights.to_vec(); last.reach.len()];
        let mut can: Vec<Vec<bool>> = vec![feasible.to_vec(); last.reach.len()];
        for i in (0..n).rev() {
            let layer = &self.layers[i];
            let width = layer.reach.first().map_or(1, Vec::len);
            let (mut sums, mut possible) = ([0.0; 2], [false; 2]);
            let mut a = vec![vec![0.0; width]; layer.next.len()];
            let mut c = vec![vec![false; width]; layer.next.len()];
            for (st, to) in layer.next.iter().enumerate() {
                for (v, &t) in to.iter().enumerate() {
                    if t == NONE {
                        continue;
                    }
                    for m in 0..width {
                        let (w, ok) =
                            (ahead[t as usize].get(m + v).copied().unwrap_or(0.0), can[t as usize].get(m + v).copied().unwrap_or(false));
                        a[st][m] += w;
                        c[st][m] |= ok;
                        let r = layer.reach[st][m];
                        sums[v] += r * w;
                        possible[v] |= ok && r > 0.0;
                    }
                }
            }
            let total = sums[0] + sums[1];
            let chance = if total > 0.0 { sums[1] / total } else { 0.0 };
            let fate = match possible {
                [true, false] => Some(Fate::Safe),
                [false, true] => Some(Fate::Mine),
                _ => None,
            };
            out[i] = (chance, fate);
            let top = a.iter().flatten().copied().fold(0.0, f64::max);
            if top > 0.0 {
                a.iter_mut().flatten().for_each(|x| *x /= top);
            }
            ahead = a;
            can = c;
        }
        out
    }

    /// A placement with `m` mines, uniform among them, drawn from `rng`.
    fn draw(&self, m: usize, rng: &mut Randomness) -> Option<Vec<bool>> {
        let n = self.layers.len() - 1;
        let (mut st, mut placed) = (0usize, 0usize);
        let mut out = vec![false; n];
        for (i, cell) in out.iter_mut().enumerate() {
            let to = self.layers[i].next[st];
            let weights: Vec<f64> = (0..2)
                .map(|v| match (to[v], m.checked_sub(placed + v)) {
                    (t, Some(r)) if t != NONE => self.layers[i + 1].finish[t as usize].get(r).copied().unwrap_or(0.0),
                    _ => 0.0,
                })
                .collect();
            let v = weighted(&weights, rng)?;
            *cell = v == 1;
            placed += v;
            st = to[v] as usize;
        }
        Some(out)
    }
}

/// A connected group of frontier cells (closed cells next to a number whose fate the numbers
/// alone do not settle) and its solutions: the ways to place mines there that satisfy every
/// number around them.
struct Component {
    /// In the order the solutions were found.
    cells: Vec<usize>,
    /// The solutions by their number of mines (scaled alike).
    counts: Vec<f64>,
    solutions: Solved,
    /// Every solution is counted (none was left out to stay within the limits).
    complete: bool,
}

enum Solved {
    Counted(Layered),
    Listed(Solutions),
}

impl Component {
    fn new(cells: &[usize], constraints: &[(Vec<usize>, usize)], most: usize, limits: Limits) -> Component {
        let cells = order(cells, constraints);
        if let Some(layered) = Layered::solve(&cells, constraints, most, limits.states) {
            return Component { counts: layered.counts(), cells, solutions: Solved::Counted(layered), complete: true };
        }
        let list = Enumeration::run(cells, constraints, 0, most, limits);
        Component { cells: list.cells.clone(), counts: list.counts(), complete: list.complete, solutions: Solved::Listed(list) }
    }

    /// Each cell's chance of a mine when the component's total m weighs `weights[m]`, and its
    /// certain fate when the totals `feasible` are those possible (meaningful only when
    /// complete).
    fn marginals(&self, weights: &[f64], feasible: &[bool]) -> Vec<(f64, Option<Fate>)> {
        match &self.solutions {
            Solved::Counted(layered) => layered.marginals(weights, feasible),
            Solved::Listed(list) => {
                let ms: Vec<usize> = (0..list.by_count.len()).filter(|&m| !list.by_count[m].is_empty()).collect();
                let possible: Vec<usize> = ms.iter().copied().filter(|&m| feasible.get(m).copied().unwrap_or(false)).collect();
                let weight = |m: usize| weights.get(m).copied().unwrap_or(0.0);
                let all: f64 = ms.iter().map(|&m| weight(m) * list.by_count[m].len() as f64).sum();
                (0..list.cells.len())
                    .map(|l| {
                        let mined: f64 = ms.iter().map(|&m| weight(m) * list.mines_at[l][m] as f64).sum();
                        let fate = if possible.is_empty() {
                            None
                        } else if possible.iter().all(|&m| list.mines_at[l][m] == 0) {
                            Some(Fate::Safe)
                        } else if possible.iter().all(|&m| list.mines_at[l][m] as usize == list.by_count[m].len()) {
                            Some(Fate::Mine)
                        } else {
                            None
                        };
                        (if all > 0.0 { mined / all } else { 0.0 }, fate)
                    })
                    .collect()
            }
        }
    }

    /// A solution with `m` mines, uniform among those (among those found, if not complete),
    /// drawn from `rng`: a mine or not, per cell.
    fn draw(&self, m: usize, rng: &mut Randomness) -> Option<Vec<bool>> {
        match &self.solutions {
            Solved::Counted(layered) => layered.draw(m, rng),
            Solved::Listed(list) => {
                let options = list.by_count.get(m)?;
                let pick = options[rng.pick(options.len()).ok()?];
                Some((0..list.cells.len()).map(|l| list.has_mine(pick, l)).collect())
            }
        }
    }
}

/// What the player can know of a board's mines, and the sampler of placements consistent with
/// it.
pub(crate) struct Analysis {
    /// Each cell's fate as far as it is certain.
    pub(crate) fate: Arc<Vec<Fate>>,
    /// Each cell's chance of holding a mine (0 for an open cell): exact when [`Self::exact`],
    /// else estimated from the solutions found.
    pub(crate) chance: Vec<f64>,
    /// Every frontier solution was counted (or listed): the chances are exact, the certain
    /// fates are all there are, and samples are exactly uniform.
    pub(crate) exact: bool,
    components: Vec<Component>,
    /// Closed cells not next to any number (and not settled).
    interior: Vec<usize>,
    /// Mines left for the components and the interior (the settled mines taken off).
    left: usize,
    /// The guesses worth weighing ([`Self::guesses`]), once asked.
    guesses: std::cell::OnceCell<Vec<usize>>,
    /// prefix[k][s]: the ways the first k components hold s mines (scaled per k).
    prefix: Vec<Vec<f64>>,
    /// The weight of each frontier total s: the ways with s mines in the components times the
    /// ways to put the rest in the interior (scaled).
    totals: Vec<f64>,
    /// Where the Markov chain starts when the solutions kept fit no total (never when exact).
    start: Option<Vec<bool>>,
}

impl Analysis {
    fn of(s: &Sight) -> Analysis {
        Analysis::within(s, LIMITS)
    }

    fn within(s: &Sight, limits: Limits) -> Analysis {
        let mut fate = deduce(s);
        let settled_mines = fate.iter().filter(|&&f| f == Fate::Mine).count();
        let left = s.mines.saturating_sub(settled_mines);
        // The numbers' constraints on the cells still unknown.
        let mut constraints: Vec<(Vec<usize>, usize)> = Vec::new();
        for i in s.numbers() {
            let unknown: Vec<usize> = s.around(i).filter(|&j| fate[j] == Fate::Unknown).collect();
            if unknown.is_empty() {
                continue;
            }
            let mines = s.around(i).filter(|&j| fate[j] == Fate::Mine).count();
            constraints.push((unknown, (s.cells[i] as usize).saturating_sub(mines)));
        }
        // Components: cells joined by a shared constraint (union-find).
        let mut parent: Vec<usize> = (0..s.cells.len()).collect();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut on_frontier = vec![false; s.cells.len()];
        for (cs, _) in &constraints {
            for &c in cs {
                on_frontier[c] = true;
                let (a, b) = (root(&mut parent, cs[0]), root(&mut parent, c));
                parent[a] = b;
            }
        }
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for c in (0..s.cells.len()).filter(|&c| on_frontier[c]) {
            let r = root(&mut parent, c);
            match groups.iter_mut().find(|(g, _)| *g == r) {
                Some((_, v)) => v.push(c),
                None => groups.push((r, vec![c])),
            }
        }
        let components: Vec<Component> = groups
            .into_iter()
            .map(|(_, cells)| {
                let mine: Vec<(Vec<usize>, usize)> = constraints.iter().filter(|(cs, _)| cells.contains(&cs[0])).cloned().collect();
                Component::new(&cells, &mine, left, limits)
            })
            .collect();
        let interior: Vec<usize> = (0..s.cells.len()).filter(|&c| fate[c] == Fate::Unknown && !on_frontier[c]).collect();
        let exact = components.iter().all(|c| c.complete);
        let n_in = interior.len();
        let ln_rest = |s_: usize| if s_ > left { f64::NEG_INFINITY } else { ln_choose(n_in, left - s_) };
        // The ways to hold each total, first k components, and the last k.
        let counts: Vec<Vec<f64>> = components.iter().map(|c| c.counts.clone()).collect();
        let possible: Vec<Vec<bool>> = counts.iter().map(|c| c.iter().map(|&x| x > 0.0).collect()).collect();
        let k_all = components.len();
        let mut prefix = vec![vec![1.0]];
        let mut prefix_ok = vec![vec![true]];
        for k in 0..k_all {
            prefix.push(convolve(&prefix[k], &counts[k], left));
            prefix_ok.push(convolve_possible(&prefix_ok[k], &possible[k], left));
        }
        let mut suffix = vec![vec![1.0]; k_all + 1];
        let mut suffix_ok = vec![vec![true]; k_all + 1];
        for k in (0..k_all).rev() {
            suffix[k] = convolve(&suffix[k + 1], &counts[k], left);
            suffix_ok[k] = convolve_possible(&suffix_ok[k + 1], &possible[k], left);
        }
        let logs: Vec<f64> = prefix[k_all].iter().enumerate().map(|(t, &w)| w.ln() + ln_rest(t)).collect();
        let totals = from_logs(&logs);
        let total_ok = |t: usize| prefix_ok[k_all].get(t).copied().unwrap_or(false) && t <= left && left - t <= n_in;
        let mut chance = vec![0.0; s.cells.len()];
        for (c, f) in fate.iter().enumerate() {
            if *f == Fate::Mine {
                chance[c] = 1.0;
            }
        }
        // The interior: the mines left over, spread evenly.
        let sum: f64 = totals.iter().sum();
        if n_in > 0 && sum > 0.0 {
            let expected: f64 = totals.iter().enumerate().map(|(t, w)| w * (left.saturating_sub(t)) as f64).sum::<f64>() / sum;
            let p = expected / n_in as f64;
            let feasible: Vec<usize> = (0..totals.len()).filter(|&t| total_ok(t)).collect();
            for &c in &interior {
                chance[c] = p;
                if exact && !feasible.is_empty() {
                    if feasible.iter().all(|&t| left - t == 0) {
                        fate[c] = Fate::Safe;
                    } else if feasible.iter().all(|&t| left - t == n_in) {
                        fate[c] = Fate::Mine;
                    }
                }
            }
        }
        // Each component: its totals weighed by the ways the others and the interior hold the
        // rest.
        for (k, comp) in components.iter().enumerate() {
            let others = convolve(&prefix[k], &suffix[k + 1], left);
            let others_ok = convolve_possible(&prefix_ok[k], &suffix_ok[k + 1], left);
            let weight_logs: Vec<f64> = (0..comp.counts.len())
                .map(|m| {
                    let terms: Vec<f64> =
                        others.iter().enumerate().filter(|(_, &w)| w > 0.0).map(|(t, &w)| w.ln() + ln_rest(t + m)).collect();
                    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    if top == f64::NEG_INFINITY {
                        f64::NEG_INFINITY
                    } else {
                        top + terms.iter().map(|l| (l - top).exp()).sum::<f64>().ln()
                    }
                })
                .collect();
            let weights = from_logs(&weight_logs);
            let feasible: Vec<bool> = (0..comp.counts.len())
                .map(|m| others_ok.iter().enumerate().any(|(t, &ok)| ok && t + m <= left && left - t - m <= n_in))
                .collect();
            for (&c, (p, certain)) in comp.cells.iter().zip(comp.marginals(&weights, &feasible)) {
                chance[c] = p;
                if let (true, Some(f)) = (exact, certain) {
                    fate[c] = f;
                }
            }
        }
        // Cut short, the solutions kept may not add up to the mine count (too few mines for a
        // small interior): then the Markov chain starts from one placement found over the whole
        // frontier at once.
        let start = (!exact && sum == 0.0)
            .then(|| {
                let frontier: Vec<usize> = (0..s.cells.len()).filter(|&c| on_frontier[c]).collect();
                let least = left.saturating_sub(n_in);
                let one = Enumeration::run(
                    order(&frontier, &constraints),
                    &constraints,
                    least,
                    left,
                    Limits { nodes: START_NODES, solutions: 1, states: 0 },
                );
                let m = one.by_count.iter().position(|v| !v.is_empty())?;
                let mut field: Vec<bool> = fate.iter().map(|&f| f == Fate::Mine).collect();
                for (l, &c) in one.cells.iter().enumerate() {
                    field[c] = one.has_mine(0, l);
                }
                interior.iter().take(left - m).for_each(|&c| field[c] = true);
                Some(field)
            })
            .flatten();
        Analysis {
            fate: Arc::new(fate),
            chance,
            exact,
            components,
            interior,
            left,
            guesses: std::cell::OnceCell::new(),
            prefix,
            totals,
            start,
        }
    }

    /// The guesses worth weighing: the unknown cells whose chance of a mine is at most the
    /// lowest plus [`GUESS_MARGIN`], safest first (then those with fewer closed cells around,
    /// likelier to tell something), at most [`GUESS_CANDIDATES`].
    fn guesses(&self, s: &Sight) -> Vec<usize> {
        let mut keyed: Vec<(f64, usize, usize)> = (0..self.fate.len())
            .filter(|&i| self.fate[i] == Fate::Unknown)
            .map(|i| (self.chance[i], s.around(i).filter(|&j| !s.is_open(j)).count(), i))
            .collect();
        let Some(low) = keyed.iter().map(|k| k.0).min_by(f64::total_cmp) else { return Vec::new() };
        keyed.retain(|k| k.0 <= low + GUESS_MARGIN);
        keyed.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        keyed.into_iter().take(GUESS_CANDIDATES).map(|k| k.2).collect()
    }

    /// A placement of the mines consistent with the sight, drawn from `rng`: uniform among all
    /// of them when [`Self::exact`]; else drawn among the solutions found, then moved on by a
    /// Markov chain whose stationary distribution is the uniform one (see [`mix`]).
    fn sample(&self, s: &Sight, rng: &mut Randomness) -> Option<Vec<bool>> {
        if let Some(start) = &self.start {
            let mut field = start.clone();
            mix(s, self, &mut field, rng)?;
            return Some(field);
        }
        let mut field: Vec<bool> = self.fate.iter().map(|&f| f == Fate::Mine).collect();
        let total = weighted(&self.totals, rng)?;
        let mut rest = total;
        for (k, comp) in self.components.iter().enumerate().rev() {
            let weights: Vec<f64> = (0..comp.counts.len())
                .map(|m| match rest.checked_sub(m) {
                    Some(t) => self.prefix[k].get(t).copied().unwrap_or(0.0) * comp.counts[m],
                    None => 0.0,
                })
                .collect();
            let m = weighted(&weights, rng)?;
            rest -= m;
            for (&c, mined) in comp.cells.iter().zip(comp.draw(m, rng)?) {
                field[c] = mined;
            }
        }
        let mut interior = self.interior.clone();
        for k in 0..self.left.checked_sub(total)? {
            let j = k + rng.pick(interior.len() - k).ok()?;
            interior.swap(k, j);
            field[interior[k]] = true;
        }
        if !self.exact {
            mix(s, self, &mut field, rng)?;
        }
        Some(field)
    }
}

/// `cells` (one component) in breadth-first order over shared constraints, from a cell in
/// the fewest constraints (an end of the frontier).
fn order(cells: &[usize], constraints: &[(Vec<usize>, usize)]) -> Vec<usize> {
    let degree = |c: usize| constraints.iter().filter(|(cs, _)| cs.contains(&c)).count();
    let mut done = Vec::with_capacity(cells.len());
    let mut queued = vec![false; cells.len()];
    while done.len() < cells.len() {
        let Some(start) = (0..cells.len()).filter(|&k| !queued[k]).min_by_key(|&k| degree(cells[k])) else { break };
        queued[start] = true;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(k) = queue.pop_front() {
            done.push(cells[k]);
            for (cs, _) in constraints.iter().filter(|(cs, _)| cs.contains(&cells[k])) {
                for &c in cs {
                    if let Some(l) = cells.iter().position(|&x| x == c) {
                        if !queued[l] {
                            queued[l] = true;
                            queue.push_back(l);
                        }
                    }
                }
            }
        }
    }
    done
}

/// Moves `field` (consistent with `s`) on by a random-scan block Gibbs sampler: each step
/// draws a frontier cell, takes the block of up to [`MIX_BLOCK`] frontier cells around it
/// (breadth first over shared numbers) and draws the mines of that block and of the interior
/// again, exactly from their distribution given every other cell: the block's placements that
/// satisfy the numbers, each weighed by the ways to put the rest in the interior, then the
/// interior uniformly. The uniform distribution over consistent placements is stationary. The
/// chain is finite and starts from one placement, and blocks connect placements that differ
/// within a block (and the interior), not every two placements of a component larger than a
/// block: so the samples are near uniform, not exactly.
fn mix(s: &Sight, a: &Analysis, field: &mut [bool], rng: &mut Randomness) -> Option<()> {
    let frontier: Vec<usize> = a.components.iter().flat_map(|c| c.cells.iter().copied()).collect();
    if frontier.is_empty() {
        return Some(());
    }
    let unknown = |c: usize| a.fate[c] == Fate::Unknown;
    let mut in_block = vec![false; field.len()];
    let steps = MIX_SWEEPS * frontier.len().div_ceil(MIX_BLOCK);
    for _ in 0..steps {
        // The block: breadth first from a random frontier cell over cells sharing a number.
        let mut block = vec![frontier[rng.pick(frontier.len()).ok()?]];
        in_block[block[0]] = true;
        let mut k = 0;
        while k < block.len() && block.len() < MIX_BLOCK {
            let c = block[k];
            k += 1;
            for n in s.around(c).filter(|&n| s.is_open(n)) {
                for d in s.around(n) {
                    if block.len() < MIX_BLOCK && unknown(d) && !in_block[d] {
                        in_block[d] = true;
                        block.push(d);
                    }
                }
            }
        }
        // The numbers around the block, and what each needs in it given the rest.
        let mut numbers: Vec<usize> = block.iter().flat_map(|&c| s.around(c)).filter(|&n| s.is_open(n)).collect();
        numbers.sort_unstable();
        numbers.dedup();
        let constraints: Vec<(Vec<usize>, usize)> = numbers
            .iter()
            .map(|&n| {
                let inside: Vec<usize> = s.around(n).filter(|&d| in_block[d]).collect();
                let outside = s.around(n).filter(|&d| !in_block[d] && field[d]).count();
                (inside, (s.cells[n] as usize).saturating_sub(outside))
            })
            .collect();
        let total = block.iter().chain(&a.interior).filter(|&&c| field[c]).count();
        let n_in = a.interior.len();
        let choices = Enumeration::run(block.clone(), &constraints, total.saturating_sub(n_in), total, MIX_LIMITS);
        let weights = from_logs(
            &choices
                .by_count
                .iter()
                .enumerate()
                .map(|(m, v)| if v.is_empty() { f64::NEG_INFINITY } else { (v.len() as f64).ln() + ln_choose(n_in, total - m) })
                .collect::<Vec<_>>(),
        );
        // The current placement is among the choices unless the block's search was cut short:
        // then the step is skipped (it would not be a Gibbs step).
        if choices.complete {
            let m = weighted(&weights, rng)?;
            let options = &choices.by_count[m];
            let pick = options[rng.pick(options.len()).ok()?];
            for (l, &c) in choices.cells.iter().enumerate() {
                field[c] = choices.has_mine(pick, l);
            }
            let mut interior = a.interior.clone();
            interior.iter().for_each(|&c| field[c] = false);
            for k in 0..total - m {
                let j = k + rng.pick(interior.len() - k).ok()?;
                interior.swap(k, j);
                field[interior[k]] = true;
            }
        }
        block.iter().for_each(|&c| in_block[c] = false);
    }
    Some(())
}

thread_local! {
    static ANALYSES: RefCell<Vec<(u64, Sight, Rc<Analysis>)>> = const { RefCell::new(Vec::new()) };
}

/// The analysis of `s`, from this thread's cache when it is there (the most recently used
/// kept: a search asks about the same few positions again and again).
pub(crate) fn analysis(s: &Sight) -> Rc<Analysis> {
    let hash = arbiter_kernel::stable_hash(s);
    ANALYSES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(k) = cache.iter().position(|(h, sight, _)| *h == hash && sight == s) {
            let entry = cache.remove(k);
            let a = entry.2.clone();
            cache.insert(0, entry);
            return a;
        }
        let a = Rc::new(Analysis::of(s));
        cache.insert(0, (hash, s.clone(), a.clone()));
        cache.truncate(CACHED);
        a
    })
}

impl Minesweeper {
    /// [`arbiter_kernel::Searchable::determinize`]: this game as the player may think it is. Before
    /// anything is open, unplaced (the first open stays safe) with a fresh random source; then
    /// the mines drawn uniformly among the placements that fit every number shown (see
    /// [`Analysis::sample`]). Never the game's own random source.
    pub(crate) fn sample(&self, rng: &mut Randomness) -> Option<Minesweeper> {
        let s = Sight::of(self);
        let (mines, hint) = if s.any_open() {
            let a = analysis(&s);
            (Minefield::Placed(a.sample(&s, rng)?), Hint(Some(a.fate.clone())))
        } else {
            (Minefield::Unplaced, Hint::default())
        };
        Some(Minesweeper { options: self.options, squares: self.squares.clone(), mines, rng: rng.split(), end: self.end, hint })
    }

    /// [`arbiter_kernel::Searchable::search_moves`]: before the first open, a corner; a cell certainly
    /// safe if there is one (which one does not matter: all of them are opened before any
    /// guess); a flag on a cell not certainly a mine is lifted before guessing (it may hide the
    /// best guess); else the safest guesses, safest first.
    pub(crate) fn computer_moves(&self) -> Vec<Move> {
        if self.end.is_some() {
            return Vec::new();
        }
        let s = Sight::of(self);
        if !s.any_open() {
            let c = Cell { col: 0, row: 0 };
            return vec![if self.squares[0] == Square::Flagged { Move::Unflag(c) } else { Move::Open(c) }];
        }
        let closed = |i: usize| self.squares[i] == Square::Closed;
        let flagged = |i: usize| self.squares[i] == Square::Flagged;
        let cells = 0..self.squares.len();
        // The rules first: they are quick, and usually enough (the search's own positions ask
        // this again and again, most of them new).
        let mut rules = self.hint.deducer(s.clone());
        rules.run(None);
        if let Some(i) = cells.clone().find(|&i| closed(i) && rules.fate[i] == Fate::Safe) {
            return vec![Move::Open(self.cell(i))];
        }
        let a = analysis(&s);
        if let Some(i) = cells.clone().find(|&i| closed(i) && a.fate[i] == Fate::Safe) {
            return vec![Move::Open(self.cell(i))];
        }
        if let Some(i) = cells.clone().find(|&i| flagged(i) && a.fate[i] != Fate::Mine) {
            return vec![Move::Unflag(self.cell(i))];
        }
        let guesses = a.guesses.get_or_init(|| a.guesses(&s));
        if guesses.is_empty() {
            // Only certain mines are closed: a view no real game shows. Any closed cell.
            return cells_closed(self).into_iter().map(|i| Move::Open(self.cell(i))).collect();
        }
        guesses.iter().map(|&i| Move::Open(self.cell(i))).collect()
    }

    /// [`arbiter_kernel::Searchable::evaluate`]: open every cell the numbers alone prove safe, again
    /// and again (no risk, so no choice), then score 1 for a win, else `1 - UNFINISHED × the
    /// fraction of safe cells still closed`. Asked of a search's sample.
    pub(crate) fn judge(&self) -> f64 {
        if self.mines == Minefield::Unplaced {
            return 1.0 - UNFINISHED;
        }
        let mut d = self.hint.deducer(Sight::of(self));
        let mut reveal = |i: usize| {
            debug_assert!(!self.is_mine(i), "the numbers prove {} safe", self.cell(i));
            self.count(self.cell(i))
        };
        d.run(Some(&mut reveal));
        let safe_cells = self.squares.len() - self.options.mines as usize;
        let open = d.fate.iter().filter(|&&f| f == Fate::Open).count();
        if open >= safe_cells {
            return 1.0;
        }
        1.0 - UNFINISHED * (1.0 - open as f64 / safe_cells as f64)
    }
}

fn cells_closed(g: &Minesweeper) -> Vec<usize> {
    (0..g.squares.len()).filter(|&i| g.squares[i] == Square::Closed).collect()
}

#[cfg(test)]
mod tests;
