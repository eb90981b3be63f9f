//! Verified replay: rebuild a game from its seed and options, one row at a time, checking
//! each row's move, random outcomes and state hash against what this engine computes.

use crate::{move_text_for, EventRow, GameHeader, Record, ReplayError};
use arbiter_engine::{Game, Move, Randomness, ENGINE_VERSION, RULES_VERSION};

pub struct Replay {
    header: GameHeader,
    rows: Vec<EventRow>,
    game: Game,
    next: usize,
    /// The side deciding when each replayed row was made: the row's own side, except for an
    /// interjection (a move "at any time" while the other side decides).
    deciding: Vec<arbiter_engine::Side>,
}

impl Replay {
    /// Start a replay: rebuild the game's creation and check it against the header.
    pub fn new(header: GameHeader, rows: Vec<EventRow>) -> Result<Replay, ReplayError> {
        let (game, report) = Game::new(arbiter_cards::ruleset(), header.options, Randomness::seeded(header.seed));
        let r = Replay { header, rows, game, next: 0, deciding: Vec::new() };
        let actual = Record::new(&report, r.game.hash64());
        r.compare(0, "", &r.header.setup, &actual)?;
        Ok(r)
    }

    pub fn header(&self) -> &GameHeader {
        &self.header
    }
    pub fn game(&self) -> &Game {
        &self.game
    }
    pub fn into_game(self) -> Game {
        self.game
    }
    /// The game and, for each replayed row, the side that was deciding when it was made.
    pub fn into_parts(self) -> (Game, Vec<arbiter_engine::Side>) {
        (self.game, self.deciding)
    }
    pub fn rows(&self) -> &[EventRow] {
        &self.rows
    }
    /// How many rows have been replayed.
    pub fn seq(&self) -> u64 {
        self.next as u64
    }
    pub fn done(&self) -> bool {
        self.next >= self.rows.len()
    }

    /// Row `seq`'s move as an observer may read it, and whether that hides the stored text (a
    /// headline not yet revealed).
    fn shown_move(&self, seq: u64, move_text: &str) -> (String, bool) {
        let i = seq as usize;
        if i == 0 || i > self.rows.len() {
            return (move_text.to_string(), false);
        }
        // Asked of the game after the move: as the replay stands if the move was applied
        // (a later comparison failed), else on a copy where it is applied, if it can be.
        let row = &self.rows[i - 1];
        let mut shown = move_text_for(&self.rows[..i], i - 1, None, &self.game);
        if shown == row.move_text {
            let mut after = self.game.clone();
            if let Ok(m) = after.parse(&row.move_text) {
                if after.play_as(row.side, &m).is_ok() {
                    shown = move_text_for(&self.rows[..i], i - 1, None, &after);
                }
            }
        }
        let secret = shown != row.move_text;
        (shown, secret)
    }

    /// The divergence at row `seq`; `expected` and `actual` are shown unless the move is secret.
    fn diverged(&self, seq: u64, move_text: &str, what: &str, expected: impl ToString, actual: impl ToString) -> ReplayError {
        let (shown, secret) = self.shown_move(seq, move_text);
        let (expected, actual) = if secret { (String::new(), String::new()) } else { (expected.to_string(), actual.to_string()) };
        self.diverged_hidden(seq, &shown, what, expected, actual)
    }

    fn diverged_hidden(&self, seq: u64, move_text: &str, what: &str, expected: String, actual: String) -> ReplayError {
        ReplayError {
            seq,
            move_text: self.shown_move(seq, move_text).0,
            what: what.into(),
            expected,
            actual,
            created_by: (self.header.engine_version.clone(), self.header.rules_version.clone()),
            running: (ENGINE_VERSION.into(), RULES_VERSION.into()),
        }
    }

    /// Random outcomes, the reveal flag and the state hash must match. (Log wording is the
    /// referee's notes as written at the time and is not compared.)
    fn compare(&self, seq: u64, text: &str, stored: &Record, actual: &Record) -> Result<(), ReplayError> {
        if stored.random_json != actual.random_json {
            // Never their values: shuffles and draws are the deck order and the hands.
            return Err(self.diverged_hidden(seq, text, "random outcomes", String::new(), String::new()));
        }
        if stored.reveals != actual.reveals {
            return Err(self.diverged(seq, text, "revealed information", stored.reveals, actual.reveals));
        }
        if stored.state_hash != actual.state_hash {
            return Err(self.diverged(seq, text, "state hash", &stored.state_hash, &actual.state_hash));
        }
        Ok(())
    }

    /// Replay the next row; `Ok(None)` at the end.
    pub fn step(&mut self) -> Result<Option<&EventRow>, ReplayError> {
        let Some(row) = self.rows.get(self.next) else {
            return Ok(None);
        };
        let row = row.clone();
        let want = self.next as u64 + 1;
        if row.seq != want {
            return Err(self.diverged(want, &row.move_text, "sequence number", want, row.seq));
        }
        // Not the stored JSON nor the parser's message, which quotes it (a secret card).
        let m: Move = serde_json::from_str(&row.move_json)
            .map_err(|_| self.diverged(row.seq, &row.move_text, "readable move", "a move this engine reads", "a move it cannot read"))?;
        let decider = self.game.to_move();
        // A row of the side not deciding is an interjection (an "at any time" move).
        let interjection = decider.is_some() && decider != Some(row.side) && self.game.interjections(row.side).contains(&m);
        if decider != Some(row.side) && !interjection {
            return Err(self.diverged(
                row.seq,
                &row.move_text,
                "side to move",
                row.side,
                decider.map(|s| s.to_string()).unwrap_or_else(|| "nobody".into()),
            ));
        }
        let canonical = self.game.move_text(&m);
        if canonical != row.move_text {
            return Err(self.diverged(row.seq, &row.move_text, "move text", &row.move_text, &canonical));
        }
        let report = self.game.play_as(row.side, &m).map_err(|e| self.diverged(row.seq, &row.move_text, "move accepted", "accepted", e))?;
        let actual = Record::new(&report, self.game.hash64());
        self.compare(row.seq, &row.move_text, &row.record, &actual)?;
        self.deciding.push(decider.unwrap_or(row.side));
        self.next += 1;
        Ok(self.rows.get(self.next - 1))
    }

    /// Replay up to and including row `seq` (or to the end).
    pub fn run_to(&mut self, seq: Option<u64>) -> Result<(), ReplayError> {
        while !self.done() && seq.is_none_or(|s| self.seq() < s) {
            self.step()?;
        }
        Ok(())
    }
}
