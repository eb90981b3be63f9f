//! A game bound to its store: every accepted move is appended (one durable transaction) before
//! the player is told it was accepted.

use crate::{EventRow, EventStore, GameHeader, Record, Replay, SessionError, SqliteStore};
use arbiter_engine::{Game, Options, Randomness, Report, Side, ENGINE_VERSION, RULES_VERSION};
use std::path::Path;

pub struct Session<S: EventStore = SqliteStore> {
    store: S,
    header: GameHeader,
    rows: Vec<EventRow>,
    game: Game,
    /// For each row, the side that was deciding when it was made (see [`Session::deciding`]).
    deciding: Vec<Side>,
    /// The store's head when the rows were read: another process wrote if it differs.
    head: (u64, String),
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Session<SqliteStore> {
    /// Create a new game file.
    pub fn create(path: &Path, seed: u64, options: Options) -> Result<Self, SessionError> {
        let (game, report) = Game::new(arbiter_cards::ruleset(), options, Randomness::seeded(seed));
        let header = GameHeader {
            created_at: now(),
            engine_version: ENGINE_VERSION.into(),
            rules_version: RULES_VERSION.into(),
            seed,
            options,
            setup: Record::new(&report, game.hash64()),
        };
        let store = SqliteStore::create(path, &header)?;
        let head = crate::chain::head(&header, &[]);
        Ok(Session { store, header, rows: Vec::new(), game, deciding: Vec::new(), head })
    }

    /// Open a game file, replaying and verifying every move.
    pub fn open(path: &Path) -> Result<Self, SessionError> {
        Self::load(SqliteStore::open(path)?)
    }
}

impl<S: EventStore> Session<S> {
    /// Load from any store, replaying and verifying every row.
    pub fn load(store: S) -> Result<Self, SessionError> {
        let header = store.header()?;
        let rows = store.rows()?;
        let head = crate::chain::head(&header, &rows);
        let mut replay = Replay::new(header.clone(), rows.clone())?;
        replay.run_to(None)?;
        let (game, deciding) = replay.into_parts();
        Ok(Session { store, header, rows, game, deciding, head })
    }

    /// Under the write lock: if another process wrote since this session read the file, read
    /// and replay it again, so that the move is judged against the latest state.
    fn refresh(&mut self) -> Result<(), SessionError> {
        if self.store.head()? == self.head {
            return Ok(());
        }
        let header = self.store.header()?;
        let rows = self.store.rows()?;
        let mut replay = Replay::new(header.clone(), rows.clone())?;
        replay.run_to(None)?;
        self.head = crate::chain::head(&header, &rows);
        self.header = header;
        self.rows = rows;
        (self.game, self.deciding) = replay.into_parts();
        Ok(())
    }

    /// Run `write` under the write lock, after `refresh`; commit if it succeeds, else roll back.
    fn locked<T>(&mut self, write: impl FnOnce(&mut Self) -> Result<T, SessionError>) -> Result<T, SessionError> {
        self.store.lock()?;
        let result = self.refresh().and_then(|()| write(self));
        match result {
            Ok(v) => {
                self.store.commit()?;
                Ok(v)
            }
            Err(e) => {
                self.store.rollback();
                Err(e)
            }
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }
    pub fn header(&self) -> &GameHeader {
        &self.header
    }
    pub fn rows(&self) -> &[EventRow] {
        &self.rows
    }
    /// The number of moves recorded.
    /// For each row, the side that was deciding when it was made: the row's own side, except
    /// for an interjection (a move "at any time" while the other side decided). A chess clock
    /// charges the time before a row to this side.
    pub fn deciding(&self) -> &[Side] {
        &self.deciding
    }
    pub fn seq(&self) -> u64 {
        self.rows.len() as u64
    }
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Parse, validate, apply and store one move (as `as_side`, if given). The move is judged
    /// under the write lock against the latest stored state (another process may have moved
    /// or undone meanwhile). A refused or unstored move changes neither the game nor the store.
    pub fn play(&mut self, text: &str, as_side: Option<Side>) -> Result<(&EventRow, Report), SessionError> {
        let (row, next, report) = self.locked(|s| {
            let (row, next, report) = s.judge(text, as_side)?;
            s.store.append(&row)?;
            Ok((row, next, report))
        })?;
        self.head = (row.seq, crate::chain::extend(&self.head.1, &row));
        self.deciding.push(self.game.to_move().unwrap_or(row.side));
        self.game = next;
        self.rows.push(row);
        Ok((self.rows.last().expect("just pushed"), report))
    }

    /// The row and the game after `text`, without storing anything.
    fn judge(&self, text: &str, as_side: Option<Side>) -> Result<(EventRow, Game, Report), SessionError> {
        // Echo at most the start of what was typed.
        let shown: String = text.trim().chars().take(60).collect();
        let shown = if shown.len() < text.trim().len() { format!("{shown}…") } else { shown };
        let text_for_errors = shown.as_str();
        let decider = match (self.game.to_move(), self.game.outcome()) {
            (_, Some(o)) => return Err(SessionError::Rejected(format!("cannot {}: the game is over ({o})", text_for_errors))),
            (None, None) => return Err(SessionError::Rejected(format!("cannot {}: no decision is pending", text_for_errors))),
            (Some(s), None) => s,
        };
        // A side that is not deciding may only interject (a move an effect allows "at any
        // time"); the engine judges that and says what is open.
        let side = as_side.unwrap_or(decider);
        let m = self.game.parse(text).map_err(|e| SessionError::Rejected(format!("cannot read {:?}: {e}", text_for_errors)))?;
        let move_text = self.game.move_text(&m);
        let mut next = self.game.clone();
        let report = next.play_as(side, &m).map_err(|e| SessionError::Rejected(e.to_string()))?;
        let row = EventRow {
            seq: self.seq() + 1,
            at: now(),
            side,
            move_text,
            move_json: serde_json::to_string(&m).expect("moves serialise"),
            record: Record::new(&report, next.hash64()),
        };
        Ok((row, next, report))
    }

    /// Why the last move cannot be undone, if it cannot: only the side to move may undo its
    /// own moves, back to the last random outcome, revealed information or opponent's move.
    pub fn undo_check(&self) -> Result<(), String> {
        self.undo_check_for(self.game.to_move())
    }

    /// `undo_check` for `side`, which may have just handed the decision to the other side
    /// without the other side having seen anything yet (hot-seat, before the hand-over).
    pub fn undo_check_for(&self, side: Option<Side>) -> Result<(), String> {
        let Some(last) = self.rows.last() else {
            return Err("nothing to undo".into());
        };
        if self.game.outcome().is_some() {
            return Err("the game is over".into());
        }
        if side != Some(last.side) {
            return Err(format!("the last move was the {}'s; only the side to move may undo its own moves", last.side));
        }
        if last.record.reveals {
            return Err(format!("move {} ({}) revealed a random outcome or hidden information", last.seq, last.move_text));
        }
        Ok(())
    }

    /// Undo the last move. The row is deleted: undone moves leave no trace in the log, and the
    /// game is rebuilt exactly as if they had never been made. Judged under the write lock
    /// against the latest stored state, so it never deletes a move it has not seen.
    pub fn undo(&mut self) -> Result<EventRow, SessionError> {
        self.undo_for(None)
    }

    /// Undo the last move of `side` before the other side has taken the keyboard (hot-seat):
    /// the same rules as `undo`, except that the decision may already be the other side's.
    pub fn undo_before_hand_over(&mut self, side: Side) -> Result<EventRow, SessionError> {
        self.undo_for(Some(side))
    }

    fn undo_for(&mut self, side: Option<Side>) -> Result<EventRow, SessionError> {
        let (last, game) = self.locked(|s| {
            let who = side.or(s.game.to_move());
            s.undo_check_for(who).map_err(|why| SessionError::Rejected(format!("cannot undo: {why}")))?;
            let last = s.rows.last().expect("checked").clone();
            let mut replay = Replay::new(s.header.clone(), s.rows[..s.rows.len() - 1].to_vec())?;
            replay.run_to(None)?;
            s.store.truncate_after(last.seq - 1)?;
            Ok((last, replay.into_game()))
        })?;
        self.rows.pop();
        self.deciding.pop();
        self.game = game;
        self.head = crate::chain::head(&self.header, &self.rows);
        Ok(last)
    }
}
