//! `arbiter._arbiter`: Arbiter's games for Python, through the kernel's generic contract only
//! (`Match`, `GameKind`, the catalogue): no game is named here, so every game the catalogue
//! offers is reachable, with the encodings each game gives ([`arbiter_kernel::learn`]).
//!
//! - [`Game`]: one game (moves as text or action ids, views as the CLI's JSON, save and load
//!   through the store, the computer opponent's sampler and its moves).
//! - [`VecGame`]: N games stepped together in Rust with the GIL released, writing observations,
//!   masks, rewards and frames into NumPy arrays allocated once, each game reset when it ends.
//! - `arena`: the kernel's arena (what `arbiter arena` runs), for agents against each other.

use arbiter_kernel::learn::Encoding;
use arbiter_kernel::search::{Agent, Plan};
use arbiter_kernel::{GameKind, Match, Refusal, Seat};
use arbiter_store::Session;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyReadwriteArray2};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

// The arena of `arbiter arena`: the kernel's, so that both run the same code.
use arbiter_kernel::arena;

/// The extension's Rust allocations go through mimalloc (Python's own objects do not).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    arbiter,
    IllegalMove,
    PyValueError,
    "A move the game refuses: `reason` says why, `rule` names the rule (empty when no rule of the game decides)."
);
create_exception!(arbiter, SaveError, PyOSError, "A game file that cannot be written or read back.");

fn illegal(r: Refusal) -> PyErr {
    Python::attach(|py| {
        let e = IllegalMove::new_err(r.to_string());
        let v = e.value(py);
        // Best effort: the message already holds both.
        let _ = v.setattr("reason", r.reason.clone());
        let _ = v.setattr("rule", r.rule.clone());
        e
    })
}

fn kind_of(id: &str) -> PyResult<&'static dyn GameKind> {
    arbiter_games::catalogue().find(id).map_err(|r| PyValueError::new_err(r.reason))
}

fn seat_in(game: &dyn Match, seat: i64) -> PyResult<Seat> {
    let n = game.seats().len();
    u8::try_from(seat).ok().filter(|s| (*s as usize) < n).map(Seat).ok_or_else(|| {
        PyValueError::new_err(format!("no seat {seat}: the seats are 0 to {} ({})", n.saturating_sub(1), game.seats().join(", ")))
    })
}

fn encoding_of(game: &dyn Match) -> PyResult<Encoding> {
    game.learning().encoding().ok_or_else(|| PyValueError::new_err("this game offers no action space or observation encoding"))
}

/// Each seat's return at the end ([`arbiter_kernel::Outcome::returns`]: won +1, lost -1, drew
/// 0, a rank from +1 down to -1). Zeros while it goes on.
fn returns_of(game: &dyn Match, out: &mut [f32]) {
    out.fill(0.0);
    let Some(o) = game.outcome() else { return };
    for (r, v) in out.iter_mut().zip(o.returns()) {
        *r = v as f32;
    }
}

fn parse_options(kind: &dyn GameKind, options_json: &str) -> PyResult<serde_json::Value> {
    let given: serde_json::Value = serde_json::from_str(options_json).map_err(|e| PyValueError::new_err(format!("options: {e}")))?;
    // Missing fields take the kind's defaults (kept whole, so that a saved file names them all).
    let mut options = kind.default_options();
    match (&mut options, given) {
        (serde_json::Value::Object(o), serde_json::Value::Object(g)) => o.extend(g),
        (_, serde_json::Value::Null) => {}
        (_, other) => return Err(PyValueError::new_err(format!("options are keyword arguments, not {other}"))),
    }
    Ok(options)
}

fn create(kind: &'static dyn GameKind, options: &serde_json::Value, seed: u64) -> PyResult<Box<dyn Match>> {
    kind.create(options, seed).map(|(g, _)| g).map_err(|r| PyValueError::new_err(format!("cannot create the game: {r}")))
}

/// One game of any kind the catalogue offers.
#[pyclass(module = "arbiter")]
pub struct Game {
    kind: &'static dyn GameKind,
    options: serde_json::Value,
    seed: u64,
    game: Box<dyn Match>,
    /// The moves played since creation, by seat: what a saved file records. `None` for a
    /// sample of hidden information, which no file can hold (it was never played).
    history: Option<Vec<(Seat, String)>>,
}

#[pymethods]
impl Game {
    /// A new game of `kind` (`arbiter.games()` lists them) with options as JSON text.
    #[new]
    #[pyo3(signature = (kind, seed=0, options_json="{}"))]
    fn new(kind: &str, seed: u64, options_json: &str) -> PyResult<Game> {
        let kind = kind_of(kind)?;
        let options = parse_options(kind, options_json)?;
        let game = create(kind, &options, seed)?;
        Ok(Game { kind, options, seed, game, history: Some(Vec::new()) })
    }

    /// Open a `.arbiter` file (as `arbiter` saves them): every move is replayed and checked; the
    /// game resumes at the decision where it was saved.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Game> {
        // Read-only: loading never rewrites the user's file (an older file is not upgraded).
        let session = Session::open_read_only(&path, &arbiter_games::catalogue())
            .map_err(|e| SaveError::new_err(format!("{}: {e}", path.display())))?;
        let header = session.header();
        let options: serde_json::Value = serde_json::from_str(&header.options).unwrap_or(serde_json::Value::Null);
        let history = session.rows().iter().map(|r| (r.seat, r.move_text.clone())).collect();
        Ok(Game { kind: session.kind(), options, seed: header.seed, game: session.game().boxed_clone(), history: Some(history) })
    }

    /// Write this game to a new `.arbiter` file at `path` (through the store: the same file
    /// `arbiter` and `arbiter serve` open). Refused if the file exists.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let Some(history) = &self.history else {
            return Err(SaveError::new_err("a sample of hidden information was never played: it cannot be saved"));
        };
        if path.exists() {
            return Err(SaveError::new_err(format!("{} exists: save writes a new file", path.display())));
        }
        py.detach(|| {
            let mut session = Session::create(&path, self.kind, &self.options, self.seed)
                .map_err(|e| SaveError::new_err(format!("{}: {e}", path.display())))?;
            for (seat, text) in history {
                if let Err(e) = session.play(text, Some(*seat)) {
                    // Not half a game: the file this call created goes (a retry may then save).
                    drop(session);
                    let _ = std::fs::remove_file(&path);
                    return Err(SaveError::new_err(format!("{}: the move {text:?} was not stored: {e}", path.display())));
                }
            }
            Ok(())
        })
    }

    /// The kind's id ("twilight-struggle", "minesweeper").
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind.id()
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }
    /// The options as JSON text (every field, defaults included).
    #[getter]
    fn options_json(&self) -> String {
        self.options.to_string()
    }
    #[getter]
    fn rules_version(&self) -> &'static str {
        self.kind.rules_version()
    }
    /// The seats' names, in seat order.
    #[getter]
    fn seats(&self) -> Vec<String> {
        self.game.seats()
    }
    /// The moves played so far, as (seat, canonical text).
    #[getter]
    fn history(&self) -> Option<Vec<(u8, String)>> {
        self.history.as_ref().map(|h| h.iter().map(|(s, t)| (s.0, t.clone())).collect())
    }

    /// The seat deciding (first, at a simultaneous step) now, or None when the game is over.
    fn current_seat(&self) -> Option<u8> {
        self.game.decision().map(|d| d.first().seat.0)
    }
    /// Every seat that must act now (several at a simultaneous step).
    fn acting_seats(&self) -> Vec<u8> {
        self.game.decision().map(|d| d.seats().map(|s| s.0).collect()).unwrap_or_default()
    }
    /// What the decision asks of `seat` (the seat deciding first by default).
    #[pyo3(signature = (seat=None))]
    fn prompt(&self, seat: Option<i64>) -> PyResult<Option<String>> {
        let Some(d) = self.game.decision() else { return Ok(None) };
        Ok(match seat {
            None => Some(d.first().prompt.clone()),
            Some(s) => d.prompt(seat_in(&*self.game, s)?).map(String::from),
        })
    }
    /// The legal moves of `seat` now (the seat deciding first by default), in canonical text.
    #[pyo3(signature = (seat=None))]
    fn legal_moves(&self, seat: Option<i64>) -> PyResult<Vec<String>> {
        Ok(match seat {
            None => self.game.first_moves(),
            Some(s) => self.game.legal_moves(seat_in(&*self.game, s)?),
        })
    }
    /// Moves `seat` may make although it is not deciding ("at any time").
    fn interjections(&self, seat: i64) -> PyResult<Vec<String>> {
        Ok(self.game.interjections(seat_in(&*self.game, seat)?))
    }
    /// Play `move` (canonical or any text the game reads, or an action id) as `seat` (the
    /// deciding seat by default; another seat only interjects). Returns the move's canonical
    /// text; raises IllegalMove with the game's reason, and then nothing changed.
    #[pyo3(signature = (mv, seat=None))]
    fn play(&mut self, py: Python<'_>, mv: &Bound<'_, PyAny>, seat: Option<i64>) -> PyResult<String> {
        let seat = match seat {
            Some(s) => seat_in(&*self.game, s)?,
            None => match (self.game.decision(), self.game.outcome()) {
                (_, Some(o)) => return Err(illegal(Refusal::new(format!("the game is over ({})", o.text), ""))),
                (Some(d), None) => d.first().seat,
                (None, None) => return Err(illegal(Refusal::new("no decision is pending", ""))),
            },
        };
        let played = if let Ok(id) = mv.extract::<i64>() {
            let id = u32::try_from(id)
                .map_err(|_| illegal(Refusal::new(format!("no action {id}: action ids are 0 or more"), "action space")))?;
            let game = &mut self.game;
            py.detach(|| game.learning_mut().play_action(seat, id))
        } else if let Ok(text) = mv.extract::<String>() {
            let game = &mut self.game;
            py.detach(|| game.play(seat, &text))
        } else {
            return Err(PyValueError::new_err("a move is its text (str) or its action id (int)"));
        }
        .map_err(illegal)?;
        if let Some(h) = &mut self.history {
            h.push((seat, played.text.clone()));
        }
        Ok(played.text)
    }
    /// What `seat` may see (None: an observer), as the CLI's `state --json` and the server
    /// send it.
    #[pyo3(signature = (seat=None))]
    fn view(&self, py: Python<'_>, seat: Option<i64>) -> PyResult<Py<PyAny>> {
        let viewer = seat.map(|s| seat_in(&*self.game, s)).transpose()?;
        let text = self.game.view(viewer).to_string();
        Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
    }
    fn clone(&self) -> Game {
        Game {
            kind: self.kind,
            options: self.options.clone(),
            seed: self.seed,
            game: self.game.boxed_clone(),
            history: self.history.clone(),
        }
    }
    fn __copy__(&self) -> Game {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        self.clone()
    }
    fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }
    /// Each seat's return: +1 the winner, -1 the others, 0 in a draw or while playing; a game of
    /// one seat: +1 won, -1 lost.
    fn returns(&self) -> Vec<f32> {
        let mut r = vec![0.0; self.game.seats().len()];
        returns_of(&*self.game, &mut r);
        r
    }
    /// The outcome as a dict (winner, reason, text), or None while playing.
    fn outcome(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(o) = self.game.outcome() else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("winner", o.winner().map(|w| w.0))?;
        let results: Vec<String> = o.results.iter().map(|r| serde_json::to_value(r).map(|v| v.to_string()).unwrap_or_default()).collect();
        d.set_item("results", results)?;
        d.set_item("reason", o.reason)?;
        d.set_item("text", o.text)?;
        Ok(Some(d.into_any().unbind()))
    }
    /// The state hash (equal states, equal hashes; stable across runs).
    fn state_hash(&self) -> u64 {
        self.game.state_hash()
    }
    /// A full game consistent with everything `seat` may know now, the rest drawn from
    /// `rng_seed`, as the computer opponent samples it (only at `seat`'s own decision). It
    /// cannot be saved.
    fn sample_hidden(&self, seat: i64, rng_seed: u64) -> PyResult<Game> {
        let seat = seat_in(&*self.game, seat)?;
        let game = self.game.computer().sample_hidden(seat, rng_seed).map_err(illegal)?;
        // The sample's seed is the one it was drawn with: the real game's seed would let its
        // holder replay the real game and read everything hidden from `seat`.
        Ok(Game { kind: self.kind, options: self.options.clone(), seed: rng_seed, game, history: None })
    }
    /// The move an agent makes for the deciding seat: `random`, `greedy`, `computer` or
    /// `computer:LEVEL` (1-5), from what that seat may see; the same seed, the same move.
    #[pyo3(signature = (agent="computer", seed=0, threads=1, seat=None))]
    fn agent_move(&self, py: Python<'_>, agent: &str, seed: u64, threads: usize, seat: Option<i64>) -> PyResult<String> {
        let agent: Agent = agent.parse().map_err(|r: Refusal| PyValueError::new_err(r.reason))?;
        let Some(turn) = self.game.decision() else {
            return Err(illegal(Refusal::new("the game is over: there is nothing to decide", "")));
        };
        let seat = match seat {
            None => turn.first().seat,
            Some(s) => seat_in(&*self.game, s)?,
        };
        let plan = Plan { threads: threads.max(1), ..Plan::new(agent, seed) };
        let game = &self.game;
        py.detach(|| game.computer().agent_move(seat, &plan, &|_| {})).map_err(illegal)
    }

    // Learning.

    /// The size of the action space (action ids are 0 to size - 1).
    #[getter]
    fn action_space_size(&self) -> PyResult<u32> {
        Ok(encoding_of(&*self.game)?.actions)
    }
    /// The shape of one seat's observation.
    #[getter]
    fn observation_shape(&self) -> PyResult<Vec<usize>> {
        Ok(encoding_of(&*self.game)?.observation)
    }
    /// The names of the kinds of decision (`frame()`'s second value indexes this).
    #[getter]
    fn frame_kinds(&self) -> PyResult<Vec<String>> {
        Ok(encoding_of(&*self.game)?.frames)
    }
    /// The names of the groups the action space splits into (empty: none). Diplomacy's are
    /// its provinces: a power gives at most one order of each (its unit there, or a build).
    #[getter]
    fn group_names(&self) -> PyResult<Vec<String>> {
        Ok(encoding_of(&*self.game)?.groups)
    }
    /// An int32 array over the action space: each action's group (an index into
    /// `group_names`), -1 for an action of no group. Fixed for the game's encoding.
    #[getter]
    fn action_groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i32>>> {
        let e = encoding_of(&*self.game)?;
        let learning = self.game.learning();
        Ok(PyArray1::from_vec(py, (0..e.actions).map(|id| learning.action_group(id).map_or(-1, i32::from)).collect()))
    }
    /// The decision now as (seat, kind index), or None when the game is over.
    fn frame(&self) -> Option<(u8, u16)> {
        self.game.learning().frame().map(|f| (f.seat.0, f.kind))
    }
    /// The action ids of the legal moves, in the order of `legal_moves()`.
    fn legal_actions(&self) -> Vec<u32> {
        let mut v = Vec::new();
        self.game.learning().legal_actions(&mut v);
        v
    }
    /// A boolean array over the action space: True for the legal moves' ids of `seat` (the
    /// seat deciding first by default; all False for a seat that need not act).
    #[pyo3(signature = (seat=None))]
    fn action_mask<'py>(&self, py: Python<'py>, seat: Option<i64>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let e = encoding_of(&*self.game)?;
        let mut mask = vec![false; e.actions as usize];
        let mut ids = Vec::new();
        match seat {
            None => self.game.learning().legal_actions(&mut ids),
            Some(s) => {
                let seat = seat_in(&*self.game, s)?;
                ids.extend(self.game.legal_moves(seat).iter().filter_map(|m| self.game.learning().action_of(m).ok()));
            }
        }
        for id in ids {
            if let Some(m) = mask.get_mut(id as usize) {
                *m = true;
            }
        }
        Ok(PyArray1::from_vec(py, mask))
    }
    /// The action id of the move written `text`.
    fn action_id(&self, text: &str) -> PyResult<u32> {
        self.game.learning().action_of(text).map_err(illegal)
    }
    /// The canonical text of action `id` here.
    fn action_text(&self, id: u32) -> PyResult<String> {
        self.game.learning().action_text(id).map_err(illegal)
    }
    /// What `seat` may know, as a float32 array of `observation_shape`.
    fn observe<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyAny>> {
        let seat = seat_in(&*self.game, seat)?;
        let e = encoding_of(&*self.game)?;
        let mut out = vec![0.0f32; e.observation_len()];
        self.game.learning().observe(seat, &mut out).map_err(illegal)?;
        PyArray1::from_vec(py, out).reshape(e.observation).map(|a| a.into_any())
    }
    fn __repr__(&self) -> String {
        let state = match (self.game.outcome(), self.game.decision()) {
            (Some(o), _) => o.text,
            (None, Some(d)) => format!("seat {} to move", d.seats().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", ")),
            (None, None) => "no decision".into(),
        };
        format!("<arbiter.Game {} seed={} moves={}: {state}>", self.kind.id(), self.seed, self.history.as_ref().map_or(0, |h| h.len()))
    }
}

/// The preallocated arrays a [`VecGame`] writes, as plain slices (no Python object touched
/// while the GIL is released).
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    dones: &'a mut [bool],
    seats: &'a mut [i64],
    frames: &'a mut [i64],
}

/// The batch's arrays, borrowed for writing while a step or a reset writes them.
struct Arrays<'py> {
    obs: PyReadwriteArray2<'py, f32>,
    mask: PyReadwriteArray2<'py, bool>,
    rewards: PyReadwriteArray2<'py, f32>,
    dones: PyReadwriteArray1<'py, bool>,
    seats: PyReadwriteArray1<'py, i64>,
    frames: PyReadwriteArray1<'py, i64>,
}

impl Arrays<'_> {
    /// Their contents as the slices the rows are written into.
    fn out(&mut self) -> PyResult<Out<'_>> {
        Ok(Out {
            obs: self.obs.as_slice_mut()?,
            mask: self.mask.as_slice_mut()?,
            rewards: self.rewards.as_slice_mut()?,
            dones: self.dones.as_slice_mut()?,
            seats: self.seats.as_slice_mut()?,
            frames: self.frames.as_slice_mut()?,
        })
    }
}

/// One game of a batch, its seed for the next reset and what it needs to write its rows.
struct Slot {
    game: Box<dyn Match>,
    /// Games this slot has started (the next reset's seed is drawn from the base seed, the
    /// slot's index and this count: independent of the thread count).
    episodes: u64,
    /// The legal action ids of the decision its row shows (what `step` checks an action
    /// against: never the `mask` array, which Python may write to).
    scratch: Vec<u32>,
    /// The same ids as a bit set (one bit per action id), so that checking an action costs
    /// one lookup, not a pass over the list.
    legal: Vec<u64>,
    /// The seat deciding there (never read back from the `seats` array).
    decider: Seat,
}

struct Shape {
    kind: &'static dyn GameKind,
    options: serde_json::Value,
    seed: u64,
    obs: usize,
    actions: usize,
    seats: usize,
}

impl Shape {
    fn seed_of(&self, index: usize, episode: u64) -> u64 {
        arbiter_kernel::stable_hash(&(self.seed, index as u64, episode))
    }

    /// Write row `i`'s observation (for the deciding seat), mask, seat and frame.
    fn write_row(&self, slot: &mut Slot, obs: &mut [f32], mask: &mut [bool], seat: &mut i64, frame: &mut i64) -> Result<(), String> {
        self.write_observation(slot, obs, seat, frame)?;
        self.write_mask(slot, mask)
    }

    /// Row `i`'s observation (for the deciding seat), seat and frame; the decider recorded.
    fn write_observation(&self, slot: &mut Slot, obs: &mut [f32], seat: &mut i64, frame: &mut i64) -> Result<(), String> {
        match slot.game.learning().observe_decider(obs).map_err(|r| r.to_string())? {
            Some(f) => {
                *seat = f.seat.0 as i64;
                *frame = f.kind as i64;
                slot.decider = f.seat;
                Ok(())
            }
            None => Err("a game with neither a decision nor an outcome".into()),
        }
    }

    /// Row `i`'s mask, and the batch's own record of the legal ids (the list and its bit set).
    fn write_mask(&self, slot: &mut Slot, mask: &mut [bool]) -> Result<(), String> {
        mask.fill(false);
        slot.legal.fill(0);
        slot.game.learning().legal_actions(&mut slot.scratch);
        if slot.scratch.is_empty() {
            return Err("the decision has legal moves but none in the action space (the game's encoding leaves them out)".into());
        }
        for &id in &slot.scratch {
            if let Some(m) = mask.get_mut(id as usize) {
                *m = true;
                if let Some(w) = slot.legal.get_mut(id as usize / 64) {
                    *w |= 1u64 << (id % 64);
                }
            }
        }
        Ok(())
    }

    fn reset(&self, index: usize, slot: &mut Slot) -> Result<(), String> {
        let seed = self.seed_of(index, slot.episodes);
        slot.game = self.kind.create(&self.options, seed).map(|(g, _)| g).map_err(|r| r.to_string())?;
        slot.episodes += 1;
        Ok(())
    }

    /// Play `actions` (already checked against the masks) on `slots`, starting at index
    /// `first`, writing their rows. Every game is stepped first, then every row written: each
    /// phase runs its own code over all the games, whose instructions then stay in the cache
    /// (a game's step and its observation together overflow it; measured with cachegrind:
    /// docs/benchmarks-history.md, "The Python batch in phases").
    fn step(&self, first: usize, slots: &mut [Slot], actions: &[i64], out: Out) -> Result<(), String> {
        let Out { obs, mask, rewards, dones, seats, frames } = out;
        let mut stepped = slots.len();
        let mut failed = Ok(());
        for (k, slot) in slots.iter_mut().enumerate() {
            let i = first + k;
            let seat = slot.decider;
            let played = slot.game.learning_mut().step_action(seat, actions[k] as u32).map_err(|r| format!("game {i}: {r}")).and_then(|()| {
                let reward = &mut rewards[k * self.seats..(k + 1) * self.seats];
                dones[k] = slot.game.outcome().is_some();
                returns_of(&*slot.game, reward);
                if dones[k] {
                    self.reset(i, slot)?;
                }
                Ok(())
            });
            if let Err(e) = played {
                // The games stepped so far still get their rows; this one and the rest keep
                // theirs, as they are.
                (stepped, failed) = (k, Err(e));
                break;
            }
        }
        for (k, slot) in slots.iter_mut().enumerate().take(stepped) {
            self.write_observation(slot, &mut obs[k * self.obs..(k + 1) * self.obs], &mut seats[k], &mut frames[k])
                .map_err(|e| format!("game {}: {e}", first + k))?;
        }
        for (k, slot) in slots.iter_mut().enumerate().take(stepped) {
            self.write_mask(slot, &mut mask[k * self.actions..(k + 1) * self.actions]).map_err(|e| format!("game {}: {e}", first + k))?;
        }
        failed
    }
}

/// N games of one kind stepped together: each `step(actions)` plays one action in every game
/// (the deciding seat's), in Rust with the GIL released, on `threads` threads, and writes
/// the arrays `obs` [N, *observation_shape] float32 (the deciding seat's observation), `mask`
/// [N, actions] bool, `rewards` [N, seats] float32 (each seat's return when a game ended this
/// step, else 0), `dones` [N] bool, `seats` [N] int64 (who decides next) and `frames` [N]
/// int64 (the kind of decision). They are allocated once and rewritten in place. A game that
/// ends is replaced by a new one at once (its seed drawn from the batch's seed, the game's
/// index and its count of games), whose first decision the rows then show.
#[pyclass(module = "arbiter")]
pub struct VecGame {
    shape: Shape,
    slots: Vec<Slot>,
    threads: usize,
    #[pyo3(get)]
    obs: Py<PyAny>,
    #[pyo3(get)]
    mask: Py<PyArray2<bool>>,
    #[pyo3(get)]
    rewards: Py<PyArray2<f32>>,
    #[pyo3(get)]
    dones: Py<PyArray1<bool>>,
    #[pyo3(get)]
    seats: Py<PyArray1<i64>>,
    #[pyo3(get)]
    frames: Py<PyArray1<i64>>,
    obs_flat: Py<PyArray2<f32>>,
    /// The source of `random_actions`.
    rng: arbiter_kernel::Randomness,
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (kind, num_games, seed=0, options_json="{}", threads=1))]
    fn new(py: Python<'_>, kind: &str, num_games: usize, seed: u64, options_json: &str, threads: usize) -> PyResult<VecGame> {
        if !(1..=MAX_GAMES).contains(&num_games) {
            return Err(PyValueError::new_err(format!("a batch holds 1 to {MAX_GAMES} games (got {num_games})")));
        }
        let kind = kind_of(kind)?;
        let options = parse_options(kind, options_json)?;
        let probe = create(kind, &options, seed)?;
        let e = encoding_of(&*probe)?;
        let shape = Shape { kind, options, seed, obs: e.observation_len(), actions: e.actions as usize, seats: probe.seats().len() };
        let mut slots: Vec<Slot> = (0..num_games)
            .map(|_| Slot {
                game: probe.boxed_clone(),
                episodes: 0,
                scratch: Vec::new(),
                legal: vec![0; shape.actions.div_ceil(64)],
                decider: Seat(0),
            })
            .collect();
        for (i, s) in slots.iter_mut().enumerate() {
            shape.reset(i, s).map_err(PyValueError::new_err)?;
        }
        let obs_flat = PyArray2::<f32>::zeros(py, [num_games, shape.obs], false);
        let mut dims = vec![num_games];
        dims.extend(&e.observation);
        let obs = obs_flat.reshape(dims)?.into_any().unbind();
        let mut v = VecGame {
            mask: PyArray2::<bool>::zeros(py, [num_games, shape.actions], false).unbind(),
            rewards: PyArray2::<f32>::zeros(py, [num_games, shape.seats], false).unbind(),
            dones: PyArray1::<bool>::zeros(py, num_games, false).unbind(),
            seats: PyArray1::<i64>::zeros(py, num_games, false).unbind(),
            frames: PyArray1::<i64>::zeros(py, num_games, false).unbind(),
            obs_flat: obs_flat.unbind(),
            obs,
            rng: arbiter_kernel::Randomness::seeded(arbiter_kernel::stable_hash(&(seed, "random actions"))),
            shape,
            slots,
            // No more threads than games (each thread steps a share) nor than `MAX_THREADS`.
            threads: threads.clamp(1, num_games.min(MAX_THREADS)),
        };
        v.write_all(py)?;
        Ok(v)
    }

    #[getter]
    fn num_games(&self) -> usize {
        self.slots.len()
    }
    #[getter]
    fn action_space_size(&self) -> usize {
        self.shape.actions
    }
    #[getter]
    fn num_seats(&self) -> usize {
        self.shape.seats
    }

    /// Start every game afresh (seeds from `seed`, or the batch's), rewriting the rows.
    #[pyo3(signature = (seed=None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        if let Some(s) = seed {
            self.shape.seed = s;
            // `random_actions` then draws as a batch made with this seed does.
            self.rng = arbiter_kernel::Randomness::seeded(arbiter_kernel::stable_hash(&(s, "random actions")));
        }
        for (i, s) in self.slots.iter_mut().enumerate() {
            s.episodes = 0;
            self.shape.reset(i, s).map_err(PyValueError::new_err)?;
        }
        self.write_all(py)
    }

    /// Play `actions[i]` in game `i` for every game. Every action is checked against the
    /// legal actions of its game's decision first (the batch's own record, not the `mask`
    /// array, which Python may change): one illegal action raises IllegalMove and no game
    /// moves.
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        // A copy, its borrow released, so that `actions` may be any array, one of the batch's
        // own included.
        let copied: Vec<i64> = actions.as_slice()?.to_vec();
        drop(actions);
        let actions = copied.as_slice();
        let n = self.slots.len();
        if actions.len() != n {
            return Err(PyValueError::new_err(format!("{} actions for {n} games", actions.len())));
        }
        let mut arrays = self.arrays(py)?;
        let Out { obs, mask, rewards, dones, seats, frames } = arrays.out()?;
        for (i, &act) in actions.iter().enumerate() {
            let legal = usize::try_from(act).is_ok_and(|id| self.slots[i].legal.get(id / 64).is_some_and(|w| w & (1u64 << (id % 64)) != 0));
            if !legal {
                let text = u32::try_from(act).ok().and_then(|id| self.slots[i].game.learning().action_text(id).ok());
                return Err(illegal(Refusal::new(
                    format!(
                        "game {i}: action {act}{} is not legal now (its mask row lists the legal ones)",
                        text.map(|t| format!(" ({t})")).unwrap_or_default()
                    ),
                    "action space",
                )));
            }
        }
        let (shape, slots, threads) = (&self.shape, &mut self.slots, self.threads);
        let result = py.detach(|| {
            let per = n.div_ceil(threads);
            if threads == 1 {
                return shape.step(0, slots, actions, Out { obs, mask, rewards, dones, seats, frames });
            }
            std::thread::scope(|scope| {
                let handles: Vec<_> = slots
                    .chunks_mut(per)
                    .zip(actions.chunks(per))
                    .zip(obs.chunks_mut(per * shape.obs))
                    .zip(mask.chunks_mut(per * shape.actions))
                    .zip(rewards.chunks_mut(per * shape.seats))
                    .zip(dones.chunks_mut(per))
                    .zip(seats.chunks_mut(per))
                    .zip(frames.chunks_mut(per))
                    .enumerate()
                    .map(|(c, (((((((slots, actions), obs), mask), rewards), dones), seats), frames))| {
                        scope.spawn(move || shape.step(c * per, slots, actions, Out { obs, mask, rewards, dones, seats, frames }))
                    })
                    .collect();
                handles.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err("a stepping thread failed".into())))
            })
        });
        result.map_err(pyo3::exceptions::PyRuntimeError::new_err)
    }

    /// One uniformly random legal action per game, drawn in Rust from the batch's own random
    /// source (seeded by the batch's seed): a random player or an exploration policy without
    /// a pass over the masks.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let rng = &mut self.rng;
        let actions: Vec<i64> = self
            .slots
            .iter()
            .map(|s| {
                // Every row shows a decision (games are reset when they end): never empty.
                let k = rng.pick(s.scratch.len().max(1)).unwrap_or(0);
                s.scratch.get(k).map_or(-1, |&id| id as i64)
            })
            .collect();
        PyArray1::from_vec(py, actions)
    }

    /// Game `i` as a [`Game`] (a copy: playing it does not move the batch).
    fn game(&self, i: usize) -> PyResult<Game> {
        let s = self.slots.get(i).ok_or_else(|| PyValueError::new_err(format!("no game {i}: the batch holds {}", self.slots.len())))?;
        Ok(Game {
            kind: self.shape.kind,
            options: self.shape.options.clone(),
            seed: self.shape.seed_of(i, s.episodes.saturating_sub(1)),
            game: s.game.boxed_clone(),
            history: None,
        })
    }
}

impl VecGame {
    /// The six output arrays, borrowed for writing: refused (not a panic) when another borrow
    /// holds one or one was made read-only.
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Arrays<'py>> {
        Ok(Arrays {
            obs: self.obs_flat.bind(py).try_readwrite().map_err(borrowed)?,
            mask: self.mask.bind(py).try_readwrite().map_err(borrowed)?,
            rewards: self.rewards.bind(py).try_readwrite().map_err(borrowed)?,
            dones: self.dones.bind(py).try_readwrite().map_err(borrowed)?,
            seats: self.seats.bind(py).try_readwrite().map_err(borrowed)?,
            frames: self.frames.bind(py).try_readwrite().map_err(borrowed)?,
        })
    }

    fn write_all(&mut self, py: Python<'_>) -> PyResult<()> {
        let mut arrays = self.arrays(py)?;
        let Out { obs, mask, rewards, dones, seats, frames } = arrays.out()?;
        rewards.fill(0.0);
        dones.fill(false);
        let (o, a) = (self.shape.obs, self.shape.actions);
        for (i, slot) in self.slots.iter_mut().enumerate() {
            self.shape
                .write_row(slot, &mut obs[i * o..(i + 1) * o], &mut mask[i * a..(i + 1) * a], &mut seats[i], &mut frames[i])
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("game {i}: {e}")))?;
        }
        Ok(())
    }
}

/// The most games a batch holds (its arrays are allocated at once: a typo of a few zeros must
/// not exhaust the memory), and the most threads a batch or the arena uses.
const MAX_GAMES: usize = 1 << 16;
const MAX_THREADS: usize = 256;

/// A batch array another borrow holds (an array passed back into the batch while it writes,
/// or one made read-only): refused with a reason, never a panic.
fn borrowed(e: numpy::BorrowError) -> PyErr {
    PyValueError::new_err(format!("the batch cannot write its arrays now ({e}): pass a copy, and leave the arrays writeable"))
}

/// The ids of the games this build offers, the default first.
#[pyfunction]
fn games() -> Vec<&'static str> {
    arbiter_games::catalogue().kinds().iter().map(|k| k.id()).collect()
}

/// A kind's default options as JSON text.
#[pyfunction]
fn default_options_json(kind: &str) -> PyResult<String> {
    Ok(kind_of(kind)?.default_options().to_string())
}

/// `arbiter arena`: `games` games of `kind` (its default options with `options_json` over
/// them) between agents `a` and `b`, split by `seat` or by `side` (game `i` on seed
/// `seed + i`), on `threads` threads; the result as JSON text.
#[pyfunction]
#[pyo3(signature = (kind, a, b, games=20, seed=0, threads=1, split="seat", options_json="{}"))]
#[allow(clippy::too_many_arguments)]
fn arena_json(
    py: Python<'_>,
    kind: &str,
    a: &str,
    b: &str,
    games: u64,
    seed: u64,
    threads: usize,
    split: &str,
    options_json: &str,
) -> PyResult<String> {
    let kind = kind_of(kind)?;
    let parse = |s: &str| s.parse::<Agent>().map_err(|r| PyValueError::new_err(r.reason));
    let (a, b) = (parse(a)?, parse(b)?);
    let split = split.parse::<arena::Split>().map_err(PyValueError::new_err)?;
    let given: serde_json::Value = serde_json::from_str(options_json).map_err(|e| PyValueError::new_err(format!("options: {e}")))?;
    let mut options = kind.default_options();
    if let (Some(o), serde_json::Value::Object(g)) = (options.as_object_mut(), given) {
        o.extend(g);
    }
    // No more threads than games, nor than `MAX_THREADS`: each is an OS thread.
    let threads = threads.clamp(1, usize::try_from(games).unwrap_or(usize::MAX).clamp(1, MAX_THREADS));
    let setup = arena::Setup { games, a, b, seed, threads, split };
    let result = py.detach(|| arena::run(kind, &options, &setup)).map_err(PyValueError::new_err)?;
    serde_json::to_string(&result).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Timings (ns per decision) of a game step and of what learning adds to it, for
/// `arbiter.bench`: `games` random games are played and recorded first, then replayed
/// `repeats` times three ways (the moves alone; each decision's frame and observation too;
/// its legal actions and mask too), the fastest replay of each kept. Differences of whole
/// replays, so no clock is read inside the loop.
#[pyfunction]
#[pyo3(signature = (kind, games=200, seed=0, options_json="{}", repeats=3))]
fn profile_json(py: Python<'_>, kind: &str, games: u64, seed: u64, options_json: &str, repeats: u32) -> PyResult<String> {
    let kind = kind_of(kind)?;
    let options = parse_options(kind, options_json)?;
    let e = encoding_of(&*create(kind, &options, seed)?)?;
    let err = |e: String| pyo3::exceptions::PyRuntimeError::new_err(e);
    py.detach(|| {
        let mut rng = arbiter_kernel::Randomness::seeded(seed);
        let mut ids = Vec::new();
        let mut recorded: Vec<(u64, Vec<(Seat, u32)>)> = Vec::new();
        for g in 0..games {
            let s = seed.wrapping_add(g);
            let mut game = create(kind, &options, s).map_err(|e| e.to_string())?;
            let mut moves = Vec::new();
            while let Some(d) = game.decision() {
                let seat = d.first().seat;
                game.learning().legal_actions(&mut ids);
                let Some(&id) = ids.get(rng.pick(ids.len().max(1)).unwrap_or(0)) else {
                    return Err("a decision with no move in the action space".to_string());
                };
                game.learning_mut().step_action(seat, id).map_err(|r| r.to_string())?;
                moves.push((seat, id));
            }
            recorded.push((s, moves));
        }
        let decisions: usize = recorded.iter().map(|(_, m)| m.len()).sum();
        let mut obs = vec![0.0f32; e.observation_len()];
        let mut mask = vec![false; e.actions as usize];
        // 0: moves only; 1: + frame and observation; 2: + legal actions and mask.
        let mut best = [f64::INFINITY; 3];
        for _ in 0..repeats.max(1) {
            for (way, b) in best.iter_mut().enumerate() {
                let started = std::time::Instant::now();
                for (s, moves) in &recorded {
                    let mut game = create(kind, &options, *s).map_err(|e| e.to_string())?;
                    for &(seat, id) in moves {
                        match way {
                            1 => {
                                game.learning().observe_decider(&mut obs).map_err(|r| r.to_string())?;
                                std::hint::black_box(&obs);
                            }
                            2 => {
                                mask.fill(false);
                                game.learning().legal_actions(&mut ids);
                                for &i in &ids {
                                    if let Some(m) = mask.get_mut(i as usize) {
                                        *m = true;
                                    }
                                }
                                std::hint::black_box(&mask);
                            }
                            _ => {}
                        }
                        game.learning_mut().step_action(seat, id).map_err(|r| r.to_string())?;
                    }
                }
                *b = b.min(started.elapsed().as_secs_f64());
            }
        }
        let per = |x: f64| x * 1e9 / decisions.max(1) as f64;
        Ok::<_, String>(
            serde_json::json!({
                "games": games,
                "decisions": decisions,
                "step_ns": per(best[0]),
                "observe_ns": per(best[1] - best[0]),
                "mask_ns": per(best[2] - best[0]),
                "observation_values": e.observation_len(),
                "actions": e.actions,
            })
            .to_string(),
        )
    })
    .map_err(err)
}

#[pymodule]
fn _arbiter(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<VecGame>()?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(default_options_json, m)?)?;
    m.add_function(wrap_pyfunction!(arena_json, m)?)?;
    m.add_function(wrap_pyfunction!(profile_json, m)?)?;
    m.add("IllegalMove", m.py().get_type::<IllegalMove>())?;
    m.add("SaveError", m.py().get_type::<SaveError>())?;
    Ok(())
}
