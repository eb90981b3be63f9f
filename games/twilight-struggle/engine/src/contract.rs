//! Twilight Struggle under the kernel's contract ([`arbiter_kernel::Game`]): seat 0 is the US,
//! seat 1 the USSR (`Side::idx`); moves, views and refusals are the engine's own, translated.

use crate::error::PlayError;
use crate::game::Game;
use crate::moves::Move;
use crate::report::{Audience, Report};
use crate::side::Side;
use crate::view::View;
use arbiter_kernel::{Decision, Outcome, Refusal, Seat, Turn, Viewer};

/// The seat of `side`.
pub fn seat(side: Side) -> Seat {
    Seat(side.idx() as u8)
}

/// The side at `seat`, if it is one of the two.
pub fn side(seat: Seat) -> Option<Side> {
    Side::BOTH.into_iter().find(|s| s.idx() == seat.idx())
}

fn viewer_side(viewer: Viewer) -> Option<Side> {
    viewer.and_then(side)
}

impl From<PlayError> for Refusal {
    fn from(e: PlayError) -> Refusal {
        match e {
            PlayError::Illegal { action, why } => Refusal::new(format!("cannot {action}: {}", why.reason), why.rule),
            PlayError::GameOver(o) => Refusal::new(format!("the game is over ({o})"), "§10.3"),
            PlayError::Randomness { action, why } => Refusal::new(format!("cannot {action}: {why}"), "scripted randomness"),
            PlayError::Fault { action, what } => Refusal::new(format!("cannot {action}: engine fault: {what}"), "engine fault"),
        }
    }
}

/// Moved, not copied: a move's log text is built once.
impl From<Report> for arbiter_kernel::Report {
    fn from(r: Report) -> arbiter_kernel::Report {
        arbiter_kernel::Report {
            log: r
                .log
                .into_iter()
                .map(|l| arbiter_kernel::LogLine {
                    to: match l.to {
                        Audience::Public => arbiter_kernel::Audience::Public,
                        Audience::Private(s) => arbiter_kernel::Audience::Seat(seat(s)),
                    },
                    text: l.text,
                })
                .collect(),
            random: r.random.iter().map(|o| serde_json::to_string(o).unwrap_or_default()).collect(),
            revealed: r.revealed,
        }
    }
}

impl arbiter_kernel::Game for Game {
    type Move = Move;
    type View = View;

    fn seats(&self) -> Vec<String> {
        Side::BOTH.iter().map(|s| s.to_string()).collect()
    }
    /// The seats acting now: the side deciding, then a side acting at the same time (§4.5C: both
    /// headlines are chosen at once, a simultaneous step).
    fn decision(&self) -> Option<Decision> {
        let d = self.decision()?;
        let at_once = self.acting().into_iter().skip(1).map(|s| Turn { seat: seat(s), prompt: crate::headline::AT_ONCE.into() });
        Decision::step(std::iter::once(Turn { seat: seat(d.side), prompt: d.prompt }).chain(at_once))
    }
    fn legal_moves(&self) -> Vec<Move> {
        self.legal_moves()
    }
    fn moves_for(&self, at: Seat) -> Vec<Move> {
        side(at).map(|s| Game::moves_for(self, s)).unwrap_or_default()
    }
    /// The moves open to a side "at any time" while the other decides (cancelling an effect).
    fn interjections(&self, at: Seat) -> Vec<Move> {
        side(at).map(|s| self.interjections(s)).unwrap_or_default()
    }
    fn play_as(&mut self, at: Seat, m: &Move) -> Result<arbiter_kernel::Report, Refusal> {
        let s = side(at).ok_or_else(|| Refusal::new(format!("no seat {} in Twilight Struggle (0: US, 1: USSR)", at.0), "§1"))?;
        let report = Game::play_as(self, s, m)?;
        Ok(report.into())
    }
    fn view(&self, viewer: Viewer) -> View {
        Game::view(self, viewer_side(viewer))
    }
    fn state_hash(&self) -> u64 {
        self.hash64()
    }
    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self).map(|o| match o.winner {
            Some(w) => Outcome::won_by(&[seat(w)], 2, format!("{:?}", o.reason), o.to_string()),
            None => Outcome::drawn(2, format!("{:?}", o.reason), o.to_string()),
        })
    }
    fn move_text(&self, m: &Move) -> String {
        Game::move_text(self, m)
    }
    /// Only the last move can still be hidden (a headline chosen first, until the second).
    fn hidden_move(&self, text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String> {
        if age > 0 {
            return None;
        }
        Game::hidden_move(self, text, side(by)?, viewer_side(viewer))
    }
    /// §4.5C: a headline chosen at the same time as the other side's may be taken back until
    /// both are chosen (it is still face down).
    fn choices_revocable(&self) -> bool {
        true
    }
    /// §10.3 as the server plays it: a chess clock that runs out loses the game.
    fn timeout_move(&self, _seat: Seat) -> Option<Move> {
        Some(Move::Concede(crate::moves::Concession::Time))
    }
    /// Warnings and odds (`crate::advice`): from the game's position with made-up dice, so no
    /// roll or draw to come is told.
    fn advice(&self, at: Seat, m: &Move) -> arbiter_kernel::Advice {
        let Some(s) = side(at) else { return arbiter_kernel::Advice::default() };
        arbiter_kernel::Advice { warnings: crate::advice::warnings(self, s, m), odds: crate::advice::move_odds(self, s, m) }
    }
    fn deciding(&self) -> Option<Seat> {
        self.to_move().map(seat)
    }
    fn play_quiet(&mut self, at: Seat, m: &Move) -> Result<(), Refusal> {
        let s = side(at).ok_or_else(|| Refusal::new(format!("no seat {} in Twilight Struggle", at.0), "§1"))?;
        if self.to_move() == Some(s) {
            let mut report = std::mem::take(&mut self.quiet);
            let played = Game::play_quiet_into(self, m, &mut report);
            // Emptied, its vectors kept: a clone of the game copies no stale lines.
            report.clear();
            self.quiet = report;
            played.map_err(Refusal::from)
        } else {
            Game::play_as(self, s, m).map(|_| ()).map_err(Refusal::from)
        }
    }
    fn parse_move(&self, text: &str) -> Result<Move, Refusal> {
        self.parse(text).map_err(|e| Refusal::new(format!("cannot read {:?}: {e}", arbiter_kernel::echo(text)), "notation"))
    }
}

/// The computer opponent's hooks are `crate::computer`'s.
impl arbiter_kernel::Searchable for Game {
    fn determinize(&self, at: Seat, rng: &mut arbiter_kernel::Randomness) -> Option<Game> {
        Some(crate::computer::determinize(self, side(at)?, rng))
    }
    fn search_moves(&self) -> Vec<Move> {
        self.legal().to_vec()
    }
    fn playout_move(&self, moves: &[Move], rng: &mut arbiter_kernel::Randomness) -> usize {
        crate::computer::playout_move(self, moves, rng)
    }
    fn playout_depth(&self) -> Option<u32> {
        Some(crate::computer::PLAYOUT_DEPTH)
    }
    fn evaluate(&self, at: Seat) -> f64 {
        side(at).map_or(0.5, |s| crate::computer::evaluate(self, s))
    }
}

/// Learning: the action space, frames and observation are `crate::encode`'s.
impl arbiter_kernel::Encodable for Game {
    fn encoding(&self) -> Option<arbiter_kernel::learn::Encoding> {
        Some(crate::encode::encoding())
    }
    fn action_id(&self, m: &Move) -> Option<u32> {
        crate::encode::action_id(m)
    }
    fn legal_action_ids(&self, out: &mut Vec<u32>) {
        // The legal moves are kept listed (`Game::listing`): numbered from its sets, not written.
        crate::encode::legal_ids(self.listing(), out);
    }
    fn move_of(&self, id: u32) -> Option<Move> {
        crate::encode::move_of(self, id)
    }
    fn frame(&self) -> Option<arbiter_kernel::learn::Frame> {
        crate::encode::frame(self)
    }
    fn observation_len(&self) -> usize {
        crate::encode::OBSERVATION
    }
    fn observe(&self, at: Seat, out: &mut [f32]) {
        match side(at) {
            Some(s) => crate::encode::observe(self, s, out),
            None => out.fill(0.0),
        }
    }
    fn observe_decider(&self, out: &mut [f32]) -> Option<arbiter_kernel::learn::Frame> {
        crate::encode::observe_decider(self, out)
    }
}
