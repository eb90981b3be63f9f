//! Verified replay: rebuild a game from its kind, seed and options, one row at a time, checking
//! each row's move, random outcomes and state hash against what this build computes.

use crate::record::seat_name;
use crate::{move_text_for, EventRow, GameHeader, Record, ReplayError, ENGINE_VERSION};
use arbiter_kernel::{seat_id, GameKind, Match, SavedMove, Seat};

pub struct Replay {
    header: GameHeader,
    rows: Vec<EventRow>,
    kind: &'static dyn GameKind,
    game: Box<dyn Match>,
    next: usize,
    /// The seats acting when each replayed row was made (see [`crate::Session::acting`]).
    acting: Vec<Vec<Seat>>,
}

impl Replay {
    /// Start a replay of a game of `kind`: rebuild its creation and check it against the header.
    pub fn new(header: GameHeader, rows: Vec<EventRow>, kind: &'static dyn GameKind) -> Result<Replay, ReplayError> {
        let setup_error = |what: &str, expected: String, actual: String| ReplayError {
            seq: 0,
            move_text: String::new(),
            what: what.into(),
            expected,
            actual,
            created_by: (header.engine_version.clone(), header.rules_version.clone()),
            running: (ENGINE_VERSION.into(), kind.rules_version().into()),
        };
        let options: serde_json::Value = serde_json::from_str(&header.options)
            .map_err(|_| setup_error("readable options", "options in JSON".into(), "options this build cannot read".into()))?;
        let (game, report) =
            kind.create(&options, header.seed).map_err(|r| setup_error("options accepted", "accepted".into(), r.to_string()))?;
        let seats: Vec<String> = game.seats().iter().map(|s| seat_id(s)).collect();
        if seats != header.seats {
            return Err(setup_error("seats", header.seats.join(", "), seats.join(", ")));
        }
        let actual = Record::new(&report, game.state_hash(), seats.len());
        let r = Replay { header, rows, kind, game, next: 0, acting: Vec::new() };
        r.compare(0, "", &r.header.setup, &actual)?;
        Ok(r)
    }

    /// Go on with a replay of `rows` from a position reached before: `game` is the game after
    /// row `seq` as a verified replay of this record left it (a copy its caller kept). Its seats
    /// and state hash are checked against the header and the stored hash of row `seq` (the
    /// setup's for 0); every row after it is replayed and verified as [`Replay::step`] does.
    /// The seats acting ([`Replay::into_parts`]) are then those of the rows after `seq`.
    pub fn resume(
        header: GameHeader,
        rows: Vec<EventRow>,
        kind: &'static dyn GameKind,
        game: Box<dyn Match>,
        seq: u64,
    ) -> Result<Replay, ReplayError> {
        let r = Replay { header, rows, kind, game, next: 0, acting: Vec::new() };
        let stored = match seq {
            0 => Some(&r.header.setup),
            s => r.rows.get(s as usize - 1).map(|row| &row.record),
        };
        let Some(stored) = stored else {
            let have = r.rows.len();
            return Err(r.error(
                seq,
                String::new(),
                "a position of the record",
                format!("move {seq} at most {have}"),
                format!("move {seq}"),
            ));
        };
        let seats: Vec<String> = r.game.seats().iter().map(|s| seat_id(s)).collect();
        if seats != r.header.seats {
            return Err(r.error(seq, String::new(), "seats", r.header.seats.join(", "), seats.join(", ")));
        }
        let actual = crate::record::hash_text(r.game.state_hash());
        if stored.state_hash != actual {
            // The position itself is the caller's: its hash is no secret of the record's.
            return Err(r.error(seq, String::new(), "state hash", stored.state_hash.clone(), actual));
        }
        Ok(Replay { next: seq as usize, ..r })
    }

    pub fn header(&self) -> &GameHeader {
        &self.header
    }
    pub fn game(&self) -> &dyn Match {
        self.game.as_ref()
    }
    pub fn into_game(self) -> Box<dyn Match> {
        self.game
    }
    /// The game and, for each row this replay replayed (from its start: the setup, or where it
    /// resumed), the seats that were acting when it was made.
    pub fn into_parts(self) -> (Box<dyn Match>, Vec<Vec<Seat>>) {
        (self.game, self.acting)
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
    /// secret move not yet revealed).
    fn shown_move(&self, seq: u64, move_text: &str) -> (String, bool) {
        let i = seq as usize;
        if i == 0 || i > self.rows.len() {
            return (move_text.to_string(), false);
        }
        // Asked of the game after the move: as the replay stands if the move was applied
        // (a later comparison failed), else on a copy where it is applied, if it can be.
        let row = &self.rows[i - 1];
        let mut shown = move_text_for(&self.rows[..i], i - 1, None, self.game.as_ref());
        if shown == row.move_text {
            let mut after = self.game.boxed_clone();
            if after.play_json(row.seat, &row.move_json).is_ok() {
                shown = move_text_for(&self.rows[..i], i - 1, None, after.as_ref());
            }
        }
        let secret = shown != row.move_text;
        (shown, secret)
    }

    /// The divergence at row `seq`; `expected` and `actual` are shown unless the move is secret.
    fn diverged(&self, seq: u64, move_text: &str, what: &str, expected: impl ToString, actual: impl ToString) -> ReplayError {
        let (shown, secret) = self.shown_move(seq, move_text);
        let (expected, actual) = if secret { (String::new(), String::new()) } else { (expected.to_string(), actual.to_string()) };
        self.error(seq, shown, what, expected, actual)
    }

    /// The divergence at row `seq`, its values never shown.
    fn diverged_hidden(&self, seq: u64, move_text: &str, what: &str) -> ReplayError {
        self.error(seq, self.shown_move(seq, move_text).0, what, String::new(), String::new())
    }

    /// `shown`: the move as an observer may read it.
    fn error(&self, seq: u64, shown: String, what: &str, expected: String, actual: String) -> ReplayError {
        ReplayError {
            seq,
            move_text: shown,
            what: what.into(),
            expected,
            actual,
            created_by: (self.header.engine_version.clone(), self.header.rules_version.clone()),
            running: (ENGINE_VERSION.into(), self.kind.rules_version().into()),
        }
    }

    /// Random outcomes, the reveal flag and the state hash must match. (Log wording is the
    /// referee's notes as written at the time and is not compared.)
    fn compare(&self, seq: u64, text: &str, stored: &Record, actual: &Record) -> Result<(), ReplayError> {
        if stored.random_json != actual.random_json {
            // Never their values: they may be secret (a deck's order, where hidden pieces are).
            return Err(self.diverged_hidden(seq, text, "random outcomes"));
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
        let decision = self.game.decision();
        let acting = decision.as_ref().is_some_and(|d| d.includes(row.seat));
        // A row of a seat not deciding is an interjection (an "at any time" move).
        let interjection = decision.is_some() && !acting && self.game.interjections(row.seat).contains(&row.move_text);
        if !acting && !interjection {
            let name = |s| seat_name(self.game.as_ref(), s);
            let deciding = decision.map(|d| d.seats().map(name).collect::<Vec<_>>().join(" and ")).unwrap_or_else(|| "nobody".into());
            return Err(self.diverged(row.seq, &row.move_text, "seat to move", name(row.seat), deciding));
        }
        // One reading of the stored JSON: its text checked, then played. Never the JSON nor a
        // reader's message, which may quote it (a secret move).
        let report = match self.game.replay_json(row.seat, &row.move_json, &row.move_text) {
            Ok(report) => report,
            Err(SavedMove::Unreadable) => {
                return Err(self.diverged(row.seq, &row.move_text, "readable move", "a move this build reads", "a move it cannot read"))
            }
            Err(SavedMove::Text(canonical)) => return Err(self.diverged(row.seq, &row.move_text, "move text", &row.move_text, &canonical)),
            Err(SavedMove::Refused(e)) => return Err(self.diverged(row.seq, &row.move_text, "move accepted", "accepted", e)),
        };
        let actual = Record::new(&report, self.game.state_hash(), self.header.seats.len());
        self.compare(row.seq, &row.move_text, &row.record, &actual)?;
        self.acting.push(acting_seats(decision.as_ref(), row.seat));
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

/// The seats acting when a row of `seat` was made at `decision`: every seat of the decision (an
/// interjection's row too: the seats that were deciding), or the row's own seat when nothing was
/// pending.
pub(crate) fn acting_seats(decision: Option<&arbiter_kernel::Decision>, seat: Seat) -> Vec<Seat> {
    match decision {
        Some(d) => d.seats().collect(),
        None => vec![seat],
    }
}
