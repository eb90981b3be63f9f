//! Arbiter's kernel: what every game offers a host, whatever the game.
//!
//! A game is a small definition that a generic host runs (boardgame.io, OpenSpiel): the host
//! knows seats, views and moves, never the game's concepts. Two layers:
//!
//! - [`Game`], the typed contract a game implements: its seats, the decision now, its legal
//!   moves as values of its own `Move` type, `play_as(seat, move) -> Result<Report, Refusal>`
//!   with a reason that names the rule, a per-seat view, the state hash, the notation (the
//!   canonical text of a move, parsed back) and the outcome. Researchers and tests drive this.
//! - Two capabilities beside the rules, each in its own trait and module: [`Searchable`] (what
//!   the computer opponent asks: sampling what a seat may not see, playouts) and
//!   [`Encodable`] (what a learning program asks: action ids, observations). A game that
//!   offers neither writes an empty impl of each.
//! - [`Match`], the same game as a host drives it: moves in notation, views as JSON, the
//!   capabilities reached through [`Match::computer`] and [`Match::learning`]. Every game is a
//!   [`Match`]; a [`GameKind`] creates them from options and a seed. The store, the server and
//!   the CLI speak only this.
//!
//! Randomness is drawn only through [`rng::Randomness`], seeded or scripted, and every outcome
//! is recorded in the move's [`Report`] (so a replay checks it). Log lines have an audience
//! (public, or one seat), so secrecy is the game's decision, never the host's.
//!
//! This crate names no game.

pub mod agenda;
pub mod arena;
pub mod effects;
pub mod kind;
pub mod learn;
pub mod pipeline;
pub mod rng;
pub mod search;

pub use learn::Encodable;
pub use rng::{Exhausted, Randomness};
pub use search::Searchable;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt;

/// A seat at the table: an index into the game's [`Game::seats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Seat(pub u8);

impl Seat {
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// Who looks: a seat, or `None` for an observer (public information only).
pub type Viewer = Option<Seat>;

/// Who may read a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Audience {
    Public,
    /// Only this seat (a card it drew, a hand it was shown).
    Seat(Seat),
}

impl Audience {
    /// May `viewer` read a line for this audience?
    pub fn admits(self, viewer: Viewer) -> bool {
        match self {
            Audience::Public => true,
            Audience::Seat(s) => viewer == Some(s),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub to: Audience,
    pub text: String,
}

/// What one accepted move produced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub log: Vec<LogLine>,
    /// The random outcomes drawn, each as the game records it (JSON text): kept with the move
    /// so that a replay checks them, never shown to a player (they may be secret: a deck's
    /// order, where hidden pieces are).
    pub random: Vec<String>,
    /// Hidden information was revealed besides random outcomes (a secret choice, a hidden tile).
    pub revealed: bool,
}

impl Report {
    /// The random outcomes as one JSON array (what a store keeps and a replay compares).
    pub fn random_json(&self) -> String {
        format!("[{}]", self.random.join(","))
    }
    /// Record a random outcome.
    pub fn drew(&mut self, outcome: &impl Serialize) {
        self.random.push(serde_json::to_string(outcome).unwrap_or_else(|_| "null".into()));
    }
    /// Undo may not go back past a move that drew randomness or revealed anything.
    pub fn reveals(&self) -> bool {
        self.revealed || !self.random.is_empty()
    }
    /// The lines `viewer` may read.
    pub fn lines_for(&self, viewer: Viewer) -> impl Iterator<Item = &str> {
        self.log.iter().filter(move |l| l.to.admits(viewer)).map(|l| l.text.as_str())
    }
    pub fn public(&mut self, text: impl Into<String>) {
        self.log.push(LogLine { to: Audience::Public, text: text.into() });
    }
}

/// Why a move or a configuration is refused: the reason in a player's words and the rule that
/// decides (empty when no rule of the game does: a host's own refusal). Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub reason: String,
    pub rule: String,
}

impl Refusal {
    pub fn new(reason: impl Into<String>, rule: impl Into<String>) -> Refusal {
        Refusal { reason: reason.into(), rule: rule.into() }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.rule.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{} ({})", self.reason, self.rule)
        }
    }
}

impl std::error::Error for Refusal {}

/// One seat's part of the decision now: the seat that must act, and what it asks (as that
/// seat reads it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub seat: Seat,
    pub prompt: String,
}

/// The decision now: every seat that must act, each with its prompt. One seat: a turn. Several:
/// a simultaneous step, at which each acts without seeing the others' choices until the step
/// resolves (the game decides what each seat sees; hosts only carry it). A seat that has acted
/// at a step leaves the decision unless the game lets it change its choice.
///
/// The first seat is the one a host that moves seats one at a time (the search, a batch of
/// games for learning) moves first: [`Game::deciding`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Turn>", into = "Vec<Turn>")]
pub struct Decision {
    turns: Vec<Turn>,
}

impl Decision {
    /// One seat decides.
    pub fn turn(seat: Seat, prompt: impl Into<String>) -> Decision {
        Decision { turns: vec![Turn { seat, prompt: prompt.into() }] }
    }
    /// The seats of `turns` act at once (a seat named twice keeps its first prompt); `None`
    /// when no seat must act.
    pub fn step(turns: impl IntoIterator<Item = Turn>) -> Option<Decision> {
        let mut kept: Vec<Turn> = Vec::new();
        for t in turns {
            if !kept.iter().any(|k| k.seat == t.seat) {
                kept.push(t);
            }
        }
        (!kept.is_empty()).then_some(Decision { turns: kept })
    }
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }
    /// The seats that must act, the first first.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + '_ {
        self.turns.iter().map(|t| t.seat)
    }
    /// The seat moved first by a host that moves one seat at a time.
    pub fn first(&self) -> &Turn {
        &self.turns[0]
    }
    /// Must `seat` act now?
    pub fn includes(&self, seat: Seat) -> bool {
        self.turns.iter().any(|t| t.seat == seat)
    }
    /// What the decision asks of `seat`, if it must act.
    pub fn prompt(&self, seat: Seat) -> Option<&str> {
        self.turns.iter().find(|t| t.seat == seat).map(|t| t.prompt.as_str())
    }
    /// Several seats act at once.
    pub fn is_simultaneous(&self) -> bool {
        self.turns.len() > 1
    }
}

impl TryFrom<Vec<Turn>> for Decision {
    type Error = &'static str;
    fn try_from(turns: Vec<Turn>) -> Result<Decision, &'static str> {
        Decision::step(turns).ok_or("a decision names at least one seat")
    }
}

impl From<Decision> for Vec<Turn> {
    fn from(d: Decision) -> Vec<Turn> {
        d.turns
    }
}

/// What a player should hear before making a move ([`Game::advice`]): warnings that ask for
/// confirmation (the move loses the game, breaks a rule's threshold…), and the odds of a move
/// that rolls dice, in the game's words. Empty by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advice {
    pub warnings: Vec<String>,
    pub odds: Option<String>,
}

/// One seat's result at the end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatResult {
    Won,
    Lost,
    Drew,
    /// A place (1 first; seats that tie share one) and the score it was decided by.
    Ranked {
        rank: u16,
        score: i64,
    },
}

/// How a game ended: each seat's result (teams: every seat of the winning side won), with the
/// way it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Each seat's result, in seat order (a seat eliminated during the game has its result
    /// too).
    pub results: Vec<SeatResult>,
    /// A short name for the way it ended, stable for programs, in the game's own words (`won`,
    /// `lost`, `Resigned`, `Time`…).
    pub reason: String,
    /// The same in words, for people.
    pub text: String,
}

impl Outcome {
    /// The seats of `winners` won (one seat, or a side of several), every other of `seats`
    /// lost.
    pub fn won_by(winners: &[Seat], seats: usize, reason: impl Into<String>, text: impl Into<String>) -> Outcome {
        let results = (0..seats).map(|s| if winners.iter().any(|w| w.idx() == s) { SeatResult::Won } else { SeatResult::Lost }).collect();
        Outcome { results, reason: reason.into(), text: text.into() }
    }
    /// Every one of `seats` drew.
    pub fn drawn(seats: usize, reason: impl Into<String>, text: impl Into<String>) -> Outcome {
        Outcome { results: vec![SeatResult::Drew; seats], reason: reason.into(), text: text.into() }
    }
    /// The seats that won.
    pub fn winners(&self) -> Vec<Seat> {
        (0..self.results.len()).filter(|&s| self.results[s] == SeatResult::Won).map(|s| Seat(s as u8)).collect()
    }
    /// The one seat that won, if exactly one did.
    pub fn winner(&self) -> Option<Seat> {
        match self.winners()[..] {
            [w] => Some(w),
            _ => None,
        }
    }
    /// `seat`'s result (`None`: no such seat).
    pub fn result(&self, seat: Seat) -> Option<SeatResult> {
        self.results.get(seat.idx()).copied()
    }
    /// Each seat's return for learning, in [-1, 1]: won 1, lost -1, drew 0; a rank from 1 (first)
    /// down to -1 (last), shared places alike.
    pub fn returns(&self) -> Vec<f64> {
        let worst =
            self.results.iter().filter_map(|r| if let SeatResult::Ranked { rank, .. } = r { Some(*rank) } else { None }).max().unwrap_or(1);
        self.results
            .iter()
            .map(|r| match r {
                SeatResult::Won => 1.0,
                SeatResult::Lost => -1.0,
                SeatResult::Drew => 0.0,
                SeatResult::Ranked { .. } if worst <= 1 => 1.0,
                SeatResult::Ranked { rank, .. } => 1.0 - 2.0 * f64::from(rank.saturating_sub(1)) / f64::from(worst - 1),
            })
            .collect()
    }
}

/// The typed contract of a game. Implement it; [`Match`] comes with it.
///
/// Invariants a host relies on (the contract tests check them for every game):
/// - `moves_for(seat)` lists exactly the moves `play_as(seat, m)` accepts of each seat of the
///   decision (`legal_moves()` those of the seat deciding first); a refused move changes
///   nothing (the state hash is unchanged).
/// - `parse_move(move_text(m)) == m` for every listed move.
/// - Two games created alike and given the same moves have the same state hash after each.
/// - `view(viewer)` and the log lines for `viewer` hold only what that seat may know.
pub trait Game: Clone + Send + Sync + 'static {
    /// A move; its JSON is what a saved game keeps (replayed as it was, whatever the notation).
    type Move: Clone + Eq + std::hash::Hash + fmt::Debug + Send + Sync + Serialize + DeserializeOwned;
    type View: Serialize;

    /// The seats' names, in seat order ("white", "black"; "player").
    fn seats(&self) -> Vec<String>;
    /// The decision now (the seats that must act), if the game is not over.
    fn decision(&self) -> Option<Decision>;
    /// Every legal move of the seat deciding first ([`Game::deciding`]).
    fn legal_moves(&self) -> Vec<Self::Move>;
    /// Every legal move of `seat` now: its part of the decision's (none if it need not act).
    /// By default the moves of the seat deciding first: a game with simultaneous steps answers
    /// for each seat.
    fn moves_for(&self, seat: Seat) -> Vec<Self::Move> {
        if self.deciding() == Some(seat) {
            self.legal_moves()
        } else {
            Vec::new()
        }
    }
    /// The seats out of the game (eliminated: no more decisions; they keep watching). None by
    /// default.
    fn eliminated(&self) -> Vec<Seat> {
        Vec::new()
    }
    /// Moves `seat` may make although it is not deciding ("at any time"). None by default.
    fn interjections(&self, _seat: Seat) -> Vec<Self::Move> {
        Vec::new()
    }
    /// Play `m` as `seat`: a move of its part of the decision, or an interjection. Refused with the reason and
    /// the rule; a refused move changes nothing.
    fn play_as(&mut self, seat: Seat, m: &Self::Move) -> Result<Report, Refusal>;
    /// What `viewer` may see.
    fn view(&self, viewer: Viewer) -> Self::View;
    /// A hash of the whole state, stable across runs and processes (replay checks it).
    fn state_hash(&self) -> u64;
    fn outcome(&self) -> Option<Outcome>;
    /// The canonical text of `m` here.
    fn move_text(&self, m: &Self::Move) -> String;
    /// Read a move typed in this position.
    fn parse_move(&self, text: &str) -> Result<Self::Move, Refusal>;
    /// Asked of the game as it stands now about one of the moves made (`text`, made by `by`,
    /// `age` moves before the last: 0 for the last): if `viewer` may not read it (a secret
    /// choice not yet revealed, or never), what it reads instead. `None` (the default): the
    /// move is readable by all.
    fn hidden_move(&self, _text: &str, _by: Seat, _age: usize, _viewer: Viewer) -> Option<String> {
        None
    }
    /// Whether a seat may take back its choice at a simultaneous step, and choose again, until
    /// the step resolves (a store's undo of it asks); `false` (the default): a choice is final.
    fn choices_revocable(&self) -> bool {
        false
    }
    /// The private chat channels `seat` belongs to now (a team's own), each saying
    /// whether `seat` may write there now; none by default. A host lets a channel's messages
    /// reach only its members, and tells a seat only of its own channels.
    fn channels(&self, _seat: Seat) -> Vec<Channel> {
        Vec::new()
    }
    /// The move a host makes for `seat` when its time runs out (a chess clock), if the game
    /// has one; `None` (the default): the game is not played on a clock.
    fn timeout_move(&self, _seat: Seat) -> Option<Self::Move> {
        None
    }
    /// What `seat` should hear before making `m` (one of its legal moves or interjections):
    /// warnings a host asks the player to confirm, and odds. Judged on what `seat` may know
    /// (a game must not let advice tell a secret: a die to come, a hidden card). Nothing by
    /// default.
    fn advice(&self, _seat: Seat, _m: &Self::Move) -> Advice {
        Advice::default()
    }

    /// The seat deciding first now ([`Decision::first`]; cheaper than [`Game::decision`],
    /// which words the prompts).
    fn deciding(&self) -> Option<Seat> {
        self.decision().map(|d| d.first().seat)
    }
    /// Play `m` as `seat` quietly: as [`Game::play_as`] (the same checks), without the report
    /// where the game can spare its cost (a search's playouts, a batch's steps).
    fn play_quiet(&mut self, seat: Seat, m: &Self::Move) -> Result<(), Refusal> {
        self.play_as(seat, m).map(|_| ())
    }
}

/// A move accepted by a [`Match`]: its canonical text, its JSON (what a store keeps) and what
/// it produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    pub text: String,
    pub json: String,
    pub report: Report,
}

/// A private chat channel a game defines ([`Game::channels`]): its name, and whether the seat
/// asked about may write there now (a channel may be read always and written only at times:
/// a team's, at night).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channel {
    pub name: String,
    pub open: bool,
}

/// Why a saved move does not replay ([`Match::replay_json`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SavedMove {
    /// Not a move of this game.
    Unreadable,
    /// Its canonical text here differs from the text stored (this one).
    Text(String),
    /// The game refuses it.
    Refused(Refusal),
}

/// A game in progress as a host drives it: moves in notation (or the JSON a store kept), views
/// as JSON.
pub trait Match: Any + Send + Sync {
    fn seats(&self) -> Vec<String>;
    fn decision(&self) -> Option<Decision>;
    /// See [`Game::moves_for`].
    fn legal_moves(&self, seat: Seat) -> Vec<String>;
    /// The moves of the seat deciding first ([`Decision::first`]): what a host that moves one
    /// seat at a time offers (none when the game is over).
    fn first_moves(&self) -> Vec<String> {
        self.decision().map(|d| self.legal_moves(d.first().seat)).unwrap_or_default()
    }
    fn interjections(&self, seat: Seat) -> Vec<String>;
    /// See [`Game::eliminated`].
    fn eliminated(&self) -> Vec<Seat>;
    /// Play the move written `text` as `seat`.
    fn play(&mut self, seat: Seat, text: &str) -> Result<Played, Refusal>;
    /// Play a move as a store kept it ([`Played::json`]), as `seat`.
    fn play_json(&mut self, seat: Seat, json: &str) -> Result<Played, Refusal>;
    /// Replay a move as a store kept it, as `seat`: read once, its canonical text checked
    /// against `text` (what the store recorded) before it is played.
    fn replay_json(&mut self, seat: Seat, json: &str, text: &str) -> Result<Report, SavedMove>;
    fn view(&self, viewer: Viewer) -> serde_json::Value;
    fn state_hash(&self) -> u64;
    fn outcome(&self) -> Option<Outcome>;
    /// See [`Game::hidden_move`].
    fn hidden_move(&self, text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String>;
    /// See [`Game::choices_revocable`].
    fn choices_revocable(&self) -> bool;
    /// See [`Game::channels`].
    fn channels(&self, seat: Seat) -> Vec<Channel>;
    /// See [`Game::timeout_move`]: its text.
    fn timeout_move(&self, seat: Seat) -> Option<String>;
    /// See [`Game::advice`]: for the move written `text`, which must be a move `seat` may make
    /// now (its decision's, or an interjection); refused, with the game's reason, otherwise.
    fn advice(&self, seat: Seat, text: &str) -> Result<Advice, Refusal>;
    /// The canonical text of the move written `text` here, or why it cannot be read.
    fn canonical(&self, text: &str) -> Result<String, Refusal>;
    fn boxed_clone(&self) -> Box<dyn Match>;
    /// The computer opponent's hooks ([`Computer`]): every game offers the random agent; the
    /// search needs the game's sampler ([`Searchable::determinize`]).
    fn computer(&self) -> &dyn Computer;
    /// Learning's hooks ([`Learning`]): each refuses when the game offers no encoding.
    fn learning(&self) -> &dyn Learning;
    /// [`Match::learning`], for the hooks that play.
    fn learning_mut(&mut self) -> &mut dyn Learning;
}

/// The computer opponent's hooks of a game in progress ([`Match::computer`]).
pub trait Computer {
    /// The move `plan`'s agent makes for `seat`, which decides now, in notation (see
    /// [`search`]); `progress` hears how far a search has come.
    fn agent_move(&self, seat: Seat, plan: &search::Plan, progress: &(dyn Fn(search::Progress) + Sync)) -> Result<String, Refusal>;
    /// A full state consistent with what `seat` may know ([`Searchable::determinize`]), its hidden
    /// part drawn from `seed`, as the computer opponent samples it: only while `seat` decides;
    /// refused when the game offers no sampler.
    fn sample_hidden(&self, seat: Seat, seed: u64) -> Result<Box<dyn Match>, Refusal>;
    /// The side `seat` plays for ([`Searchable::side`]): a secret in a game of hidden teams,
    /// never for a seat's eyes (the arena's split by side asks it).
    fn side(&self, seat: Seat) -> Option<String>;
}

/// Learning's hooks of a game in progress ([`Match::learning`], see [`learn`] and the hooks of
/// [`Encodable`] of the same names).
pub trait Learning {
    /// See [`Encodable::encoding`].
    fn encoding(&self) -> Option<learn::Encoding>;
    /// The action ids of the legal moves now, appended to `out` (cleared first), in the order
    /// of [`Match::legal_moves`]; a listed move outside the action space is left out.
    fn legal_actions(&self, out: &mut Vec<u32>);
    /// The action id of the move written `text` here, or why there is none.
    fn action_of(&self, text: &str) -> Result<u32, Refusal>;
    /// The canonical text of action `id` here, or why there is none.
    fn action_text(&self, id: u32) -> Result<String, Refusal>;
    /// See [`Encodable::action_group`].
    fn action_group(&self, id: u32) -> Option<u16>;
    /// Play action `id` as `seat`, as [`Match::play`] plays its text.
    fn play_action(&mut self, seat: Seat, id: u32) -> Result<Played, Refusal>;
    /// Play action `id` as `seat` with the same checks but no report ([`Game::play_quiet`]):
    /// for batched stepping, where nothing reads the log.
    fn step_action(&mut self, seat: Seat, id: u32) -> Result<(), Refusal>;
    /// See [`Encodable::frame`].
    fn frame(&self) -> Option<learn::Frame>;
    /// See [`Encodable::observe`]; refused when the game has no encoding or `out` has not the
    /// observation's length (a seat not at the table observes zeros).
    fn observe(&self, seat: Seat, out: &mut [f32]) -> Result<(), Refusal>;
    /// See [`Encodable::observe_decider`]: `Ok(None)` when the game is over; refused as
    /// [`Match::observe`].
    fn observe_decider(&self, out: &mut [f32]) -> Result<Option<learn::Frame>, Refusal>;
}

/// The game itself behind a host's `dyn Match`, for a host part written for one game (its
/// table, its client).
pub fn downcast<G: Any>(m: &dyn Match) -> Option<&G> {
    (m as &dyn Any).downcast_ref::<G>()
}

impl Clone for Box<dyn Match> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

impl<G: Searchable + Encodable> Match for G {
    fn seats(&self) -> Vec<String> {
        Game::seats(self)
    }
    fn decision(&self) -> Option<Decision> {
        Game::decision(self)
    }
    fn legal_moves(&self, seat: Seat) -> Vec<String> {
        Game::moves_for(self, seat).iter().map(|m| self.move_text(m)).collect()
    }
    fn interjections(&self, seat: Seat) -> Vec<String> {
        Game::interjections(self, seat).iter().map(|m| self.move_text(m)).collect()
    }
    fn eliminated(&self) -> Vec<Seat> {
        Game::eliminated(self)
    }
    fn play(&mut self, seat: Seat, text: &str) -> Result<Played, Refusal> {
        let m = self.parse_move(text)?;
        play_typed(self, seat, &m)
    }
    fn play_json(&mut self, seat: Seat, json: &str) -> Result<Played, Refusal> {
        // Not serde's message, which quotes the JSON (a secret move).
        let m: G::Move = serde_json::from_str(json).map_err(|_| Refusal::new("a move this game cannot read", "saved move"))?;
        play_typed(self, seat, &m)
    }
    fn replay_json(&mut self, seat: Seat, json: &str, text: &str) -> Result<Report, SavedMove> {
        let m: G::Move = serde_json::from_str(json).map_err(|_| SavedMove::Unreadable)?;
        let canonical = self.move_text(&m);
        if canonical != text {
            return Err(SavedMove::Text(canonical));
        }
        self.play_as(seat, &m).map_err(SavedMove::Refused)
    }
    fn view(&self, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(Game::view(self, viewer)).unwrap_or(serde_json::Value::Null)
    }
    fn state_hash(&self) -> u64 {
        Game::state_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }
    fn hidden_move(&self, text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String> {
        Game::hidden_move(self, text, by, age, viewer)
    }
    fn choices_revocable(&self) -> bool {
        Game::choices_revocable(self)
    }
    fn channels(&self, seat: Seat) -> Vec<Channel> {
        Game::channels(self, seat)
    }
    fn timeout_move(&self, seat: Seat) -> Option<String> {
        Game::timeout_move(self, seat).map(|m| self.move_text(&m))
    }
    fn advice(&self, seat: Seat, text: &str) -> Result<Advice, Refusal> {
        let m = self.parse_move(text)?;
        if Game::decision(self).is_none() {
            return Err(Refusal::new("no decision is pending", ""));
        }
        let listed = Game::moves_for(self, seat).contains(&m) || Game::interjections(self, seat).contains(&m);
        if !listed {
            // A move a game accepts without listing it (resigning) is open too: asked of a copy,
            // and only whether it was refused is used.
            self.clone().play_as(seat, &m)?;
        }
        Ok(Game::advice(self, seat, &m))
    }
    fn canonical(&self, text: &str) -> Result<String, Refusal> {
        self.parse_move(text).map(|m| self.move_text(&m))
    }
    fn boxed_clone(&self) -> Box<dyn Match> {
        Box::new(self.clone())
    }
    fn computer(&self) -> &dyn Computer {
        self
    }
    fn learning(&self) -> &dyn Learning {
        self
    }
    fn learning_mut(&mut self) -> &mut dyn Learning {
        self
    }
}

impl<G: Searchable + Encodable> Computer for G {
    fn agent_move(&self, seat: Seat, plan: &search::Plan, progress: &(dyn Fn(search::Progress) + Sync)) -> Result<String, Refusal> {
        search::decide(self, seat, plan, progress).map(|m| self.move_text(&m))
    }
    fn sample_hidden(&self, seat: Seat, seed: u64) -> Result<Box<dyn Match>, Refusal> {
        // As the computer samples: only while the seat must act (what `determinize` asks).
        let seen = search::Seen::new(self, seat).map_err(|r| match Game::decision(self) {
            Some(d) if !d.includes(seat) => {
                let now: Vec<String> = d.seats().map(|s| s.0.to_string()).collect();
                Refusal::new(format!("seat {} samples only at its own decision; seat {} decides now", seat.0, now.join(", ")), "")
            }
            _ => r,
        })?;
        let mut rng = Randomness::seeded(seed);
        Ok(Box::new(seen.sample(&mut rng)?))
    }
    fn side(&self, seat: Seat) -> Option<String> {
        Searchable::side(self, seat)
    }
}

impl<G: Encodable> Learning for G {
    fn encoding(&self) -> Option<learn::Encoding> {
        Encodable::encoding(self)
    }
    fn legal_actions(&self, out: &mut Vec<u32>) {
        Encodable::legal_action_ids(self, out)
    }
    fn action_of(&self, text: &str) -> Result<u32, Refusal> {
        let m = self.parse_move(text)?;
        self.action_id(&m).ok_or_else(|| {
            Refusal::new(format!("{:?} has no action id (the game's action space leaves it out)", self.move_text(&m)), "action space")
        })
    }
    fn action_text(&self, id: u32) -> Result<String, Refusal> {
        move_of_id(self, id).map(|m| self.move_text(&m))
    }
    fn action_group(&self, id: u32) -> Option<u16> {
        Encodable::action_group(self, id)
    }
    fn play_action(&mut self, seat: Seat, id: u32) -> Result<Played, Refusal> {
        let m = move_of_id(self, id)?;
        play_typed(self, seat, &m)
    }
    fn step_action(&mut self, seat: Seat, id: u32) -> Result<(), Refusal> {
        let m = move_of_id(self, id)?;
        self.play_quiet(seat, &m)
    }
    fn frame(&self) -> Option<learn::Frame> {
        Encodable::frame(self)
    }
    fn observe(&self, seat: Seat, out: &mut [f32]) -> Result<(), Refusal> {
        check_observation(self, out)?;
        Encodable::observe(self, seat, out);
        Ok(())
    }
    fn observe_decider(&self, out: &mut [f32]) -> Result<Option<learn::Frame>, Refusal> {
        check_observation(self, out)?;
        Ok(Encodable::observe_decider(self, out))
    }
}

/// Is `out` an observation's length? Asked at every step of a batch: nothing here allocates.
fn check_observation<G: Encodable>(g: &G, out: &[f32]) -> Result<(), Refusal> {
    let len = Encodable::observation_len(g);
    if len == 0 {
        return Err(Refusal::new("this game offers no observation encoding", "action space"));
    }
    if out.len() != len {
        return Err(Refusal::new(format!("an observation here holds {len} values, not {}", out.len()), "action space"));
    }
    Ok(())
}

/// The move numbered `id`, or the refusal naming the action space's size. Asked at every step
/// of a batch: the encoding (which allocates) is built only to word a refusal.
fn move_of_id<G: Encodable>(g: &G, id: u32) -> Result<G::Move, Refusal> {
    if let Some(m) = g.move_of(id) {
        return Ok(m);
    }
    Err(match Encodable::encoding(g) {
        None => Refusal::new("this game offers no action space", "action space"),
        Some(e) if id >= e.actions => {
            Refusal::new(format!("no action {id}: the actions are 0 to {}", e.actions.saturating_sub(1)), "action space")
        }
        Some(_) => Refusal::new(format!("action {id} names no move here"), "action space"),
    })
}

fn play_typed<G: Game>(g: &mut G, seat: Seat, m: &G::Move) -> Result<Played, Refusal> {
    let text = g.move_text(m);
    let json = serde_json::to_string(m).map_err(|e| Refusal::new(format!("the move cannot be saved: {e}"), "saved move"))?;
    let report = g.play_as(seat, m)?;
    Ok(Played { text, json, report })
}

/// `text` as a refusal may quote it: trimmed, and at most 60 characters (then `…`), so that a
/// huge input is never echoed whole.
pub fn echo(text: &str) -> String {
    let t = text.trim();
    let shown: String = t.chars().take(60).collect();
    if shown.len() < t.len() {
        format!("{shown}…")
    } else {
        shown
    }
}

/// How a seat is named in a saved game and on the command line: its name in lower case, words
/// joined by `-` ("White" → `white`, "Player Two" → `player-two`).
pub fn seat_id(name: &str) -> String {
    name.split_whitespace().map(|w| w.to_lowercase()).collect::<Vec<_>>().join("-")
}

/// A kind of game: what a host needs to offer it and create games of it.
pub trait GameKind: Send + Sync {
    /// A stable identifier, stored with every saved game ("chess", "go-19x19").
    fn id(&self) -> &'static str;
    /// The name people know it by.
    fn title(&self) -> &'static str;
    /// The version of the rules this build implements (a saved game names the one it was made
    /// with).
    fn rules_version(&self) -> &'static str;
    /// What the kind is: its seats, options, information and capabilities.
    fn shape(&self) -> kind::Shape;
    /// The options of a new game with their defaults (a JSON object).
    fn default_options(&self) -> serde_json::Value {
        self.shape().default_options()
    }
    /// The whole options of a new game from those `given` (an object of some options), as a
    /// saved game records them, so that it replays alike whatever later defaults: by default
    /// the defaults with `given` over them. A kind whose option sets others (a preset of a
    /// board's size) resolves it here. Refused as [`GameKind::create`] refuses.
    fn complete_options(&self, given: &serde_json::Value) -> Result<serde_json::Value, Refusal> {
        let mut o = self.default_options();
        match (o.as_object_mut(), given) {
            (Some(o), serde_json::Value::Object(g)) => o.extend(g.iter().map(|(k, v)| (k.clone(), v.clone()))),
            (_, serde_json::Value::Null) => {}
            _ => return Err(Refusal::new("the options are a JSON object", "game options")),
        }
        Ok(o)
    }
    /// A new game from `options` (missing fields take their defaults; an invalid or unknown
    /// one is refused with the reason) whose randomness is `Randomness::seeded(seed)`, and what
    /// its creation produced (a deal).
    fn create(&self, options: &serde_json::Value, seed: u64) -> Result<(Box<dyn Match>, Report), Refusal>;
}

/// The kinds of game a host offers, the first being its default for new games; and, if any,
/// the kind of a game saved before saved games named theirs.
#[derive(Clone)]
pub struct Catalogue {
    kinds: Vec<&'static dyn GameKind>,
    unnamed: Option<&'static dyn GameKind>,
}

impl Catalogue {
    /// `kinds` must not be empty; the first is the default.
    pub fn new(kinds: Vec<&'static dyn GameKind>) -> Catalogue {
        assert!(!kinds.is_empty(), "a catalogue offers at least one game");
        Catalogue { kinds, unnamed: None }
    }
    /// Saved games that name no kind (written when Arbiter played one game) are of `kind`.
    pub fn reading_unnamed_as(mut self, kind: &'static dyn GameKind) -> Catalogue {
        self.unnamed = Some(kind);
        self
    }
    /// The kind of a saved game that names none, if this host reads such files.
    pub fn unnamed(&self) -> Option<&'static dyn GameKind> {
        self.unnamed
    }
    pub fn default_kind(&self) -> &'static dyn GameKind {
        self.kinds[0]
    }
    pub fn kinds(&self) -> &[&'static dyn GameKind] {
        &self.kinds
    }
    /// The kind whose id is `id`, or the refusal naming those offered.
    pub fn find(&self, id: &str) -> Result<&'static dyn GameKind, Refusal> {
        self.kinds.iter().copied().find(|k| k.id() == id).ok_or_else(|| {
            let ids: Vec<&str> = self.kinds.iter().map(|k| k.id()).collect();
            Refusal::new(format!("no game {id:?} here; the games are: {}", ids.join(", ")), "catalogue")
        })
    }
}

/// FNV-1a: a fixed, dependency-free [`std::hash::Hasher`], stable across runs and processes,
/// for [`Game::state_hash`].
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for StableHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The stable hash of `value` (see [`StableHasher`]).
pub fn stable_hash(value: &impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = StableHasher::default();
    value.hash(&mut h);
    h.finish()
}
