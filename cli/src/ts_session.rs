//! Twilight Struggle's typed view of a saved game, for the parts of the CLI written for it (the
//! full-screen table, the line mode, the board): the generic [`Session`] with the game as
//! `arbiter_twilight::Game` and seats as sides.

use arbiter_games::TwilightSession;
use arbiter_kernel::Report;
use arbiter_store::{EventRow, GameHeader, Session, SessionError};
use arbiter_twilight::contract::{seat, side};
use arbiter_twilight::{Game, Side};

pub struct TsSession(Session);

/// The side of a row of a Twilight Struggle game (seat 0 the US, 1 the USSR; the store
/// checked the seat against the game's seats).
pub fn row_side(r: &EventRow) -> Side {
    side(r.seat).unwrap_or(Side::Us)
}

impl TsSession {
    /// `s` if its game is Twilight Struggle, else `s` back.
    pub fn new(s: Session) -> Result<TsSession, Session> {
        if s.twilight().is_some() {
            Ok(TsSession(s))
        } else {
            Err(s)
        }
    }
    pub fn game(&self) -> &Game {
        self.0.ts()
    }
    pub fn rows(&self) -> &[EventRow] {
        self.0.rows()
    }
    pub fn header(&self) -> &GameHeader {
        self.0.header()
    }
    pub fn seq(&self) -> u64 {
        self.0.seq()
    }
    pub fn play(&mut self, text: &str, as_side: Option<Side>) -> Result<(&EventRow, Report), SessionError> {
        self.0.play(text, as_side.map(seat))
    }
    /// The last move's text as `viewer` (`None`: an observer) may read it now: the game's
    /// `hidden_move` stands in for a secret choice not yet revealed (a headline).
    pub fn last_move_for(&self, viewer: Option<Side>) -> String {
        let rows = self.0.rows();
        rows.len().checked_sub(1).map(|i| arbiter_store::move_text_for(rows, i, viewer.map(seat), self.0.game())).unwrap_or_default()
    }
    /// The moves made since `side`'s last one, as `side` may read them now.
    pub fn moves_since(&self, side: Side) -> Vec<String> {
        let rows = self.0.rows();
        let start = rows.iter().rposition(|r| row_side(r) == side).map_or(0, |i| i + 1);
        (start..rows.len()).map(|i| arbiter_store::move_text_for(rows, i, Some(seat(side)), self.0.game())).collect()
    }
    pub fn undo(&mut self) -> Result<EventRow, SessionError> {
        self.0.undo()
    }
    pub fn undo_check_for(&self, s: Option<Side>) -> Result<(), String> {
        self.0.undo_check_for(s.map(seat))
    }
    pub fn undo_before_hand_over(&mut self, s: Side) -> Result<EventRow, SessionError> {
        self.0.undo_before_hand_over(seat(s))
    }
}
