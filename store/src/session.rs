//! A game bound to its store: every accepted move is appended (one durable transaction) before
//! the player is told it was accepted.

use crate::{
    AnyStore, EventRow, EventStore, FolderDatabase, GameHeader, Journal, PgDatabase, Record, Replay, SessionError, SqliteStore, StoreError,
    ENGINE_VERSION,
};
use arbiter_kernel::{seat_id, Catalogue, GameKind, Match, Refusal, Report, Seat};
use std::path::Path;

pub struct Session<S: EventStore = SqliteStore> {
    store: S,
    kind: &'static dyn GameKind,
    header: GameHeader,
    rows: Vec<EventRow>,
    game: Box<dyn Match>,
    /// For each row, the seats that were acting when it was made (see [`Session::acting`]).
    acting: Vec<Vec<Seat>>,
    /// The store's head when the rows were read: another process wrote if it differs.
    head: (u64, String),
}

/// A refusal of the session's own (no game's rule decides it).
fn refused(reason: String) -> SessionError {
    SessionError::Rejected(Refusal::new(reason, ""))
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Session<SqliteStore> {
    /// Create a new game file: a game of `kind` with `options` (JSON; missing fields take the
    /// kind's defaults, an invalid one is refused with its reason) and randomness from `seed`.
    pub fn create(path: &Path, kind: &'static dyn GameKind, options: &serde_json::Value, seed: u64) -> Result<Self, SessionError> {
        Self::create_with(kind, options, seed, |header| SqliteStore::create(path, header))
    }

    /// Open a game file of one of the `games`, replaying and verifying every move.
    pub fn open(path: &Path, games: &Catalogue) -> Result<Self, SessionError> {
        Self::load(SqliteStore::open(path)?, games)
    }

    /// Open a game file only to read it (a log, a replay): never written, never upgraded.
    pub fn open_read_only(path: &Path, games: &Catalogue) -> Result<Self, SessionError> {
        Self::load(SqliteStore::open_read_only(path)?, games)
    }
}

/// Where a game is kept, for a host that chooses its store at run time.
#[derive(Clone, Copy, Debug)]
pub enum GamePlace<'a> {
    /// A SQLite file, its writes committed through the journal given.
    File(&'a Path, Journal),
    /// Game `id` of a PostgreSQL database.
    Postgres { db: &'a PgDatabase, id: &'a str },
    /// Game `id` of a data folder's database.
    Folder { db: &'a FolderDatabase, id: &'a str },
}

impl Session<AnyStore> {
    /// Create a new game at `place` (see [`Session::create`]).
    pub fn create_in(
        place: GamePlace<'_>,
        kind: &'static dyn GameKind,
        options: &serde_json::Value,
        seed: u64,
    ) -> Result<Self, SessionError> {
        Self::create_with(kind, options, seed, |header| match place {
            GamePlace::File(path, journal) => SqliteStore::create_with(path, header, journal).map(AnyStore::Sqlite),
            GamePlace::Postgres { db, id } => db.create_game(id, header).map(AnyStore::Postgres),
            GamePlace::Folder { db, id } => db.create_game(id, header, &[]).map(AnyStore::Folder),
        })
    }

    /// Open the game at `place`, replaying and verifying every move (see [`Session::open`]).
    pub fn open_in(place: GamePlace<'_>, games: &Catalogue) -> Result<Self, SessionError> {
        let store = match place {
            GamePlace::File(path, journal) => AnyStore::Sqlite(SqliteStore::open_with(path, journal)?),
            GamePlace::Postgres { db, id } => AnyStore::Postgres(db.open_game(id)?),
            GamePlace::Folder { db, id } => AnyStore::Folder(db.open_game(id)?),
        };
        Self::load(store, games)
    }
}

impl<S: EventStore> Session<S> {
    /// Create a new game of `kind` with `options` and `seed` in the store `make` creates from
    /// the game's header (a new file, a new database row).
    pub fn create_with(
        kind: &'static dyn GameKind,
        options: &serde_json::Value,
        seed: u64,
        make: impl FnOnce(&GameHeader) -> Result<S, crate::StoreError>,
    ) -> Result<Self, SessionError> {
        let (game, report) = kind
            .create(options, seed)
            .map_err(|r| SessionError::Rejected(Refusal::new(format!("cannot create the game: {}", r.reason), r.rule)))?;
        let seats: Vec<String> = game.seats().iter().map(|s| seat_id(s)).collect();
        let header = GameHeader {
            game: Some(kind.id().into()),
            created_at: now(),
            engine_version: ENGINE_VERSION.into(),
            rules_version: kind.rules_version().into(),
            seed,
            options: options.to_string(),
            setup: Record::new(&report, game.state_hash(), seats.len()),
            seats,
        };
        let store = make(&header)?;
        let head = crate::chain::head(&header, &[]);
        Ok(Session { store, kind, header, rows: Vec::new(), game, acting: Vec::new(), head })
    }
}

/// The kind of the game `header` describes, among `games`.
pub fn kind_of(header: &GameHeader, games: &Catalogue) -> Result<&'static dyn GameKind, SessionError> {
    match &header.game {
        Some(id) => games.find(id).map_err(|r| SessionError::Unsupported(r.reason)),
        None => games.unnamed().ok_or_else(|| {
            SessionError::Unsupported(
                "this saved game names no kind of game (an older Arbiter wrote it), and this build reads no such file".into(),
            )
        }),
    }
}

impl<S: EventStore> Session<S> {
    /// Load from any store, replaying and verifying every row.
    pub fn load(store: S, games: &Catalogue) -> Result<Self, SessionError> {
        let header = store.header()?;
        let kind = kind_of(&header, games)?;
        let (rows, head) = store.rows_and_head()?;
        let mut replay = Replay::new(header.clone(), rows.clone(), kind)?;
        replay.run_to(None)?;
        let (game, acting) = replay.into_parts();
        Ok(Session { store, kind, header, rows, game, acting, head })
    }

    /// Under the write lock: if another process wrote since this session read the file, read
    /// and replay it again, so that the move is judged against the latest state.
    fn refresh(&mut self) -> Result<(), SessionError> {
        if self.store.head()? == self.head {
            return Ok(());
        }
        let header = self.store.header()?;
        let (rows, head) = self.store.rows_and_head()?;
        let mut replay = Replay::new(header.clone(), rows.clone(), self.kind)?;
        replay.run_to(None)?;
        self.head = head;
        self.header = header;
        self.rows = rows;
        (self.game, self.acting) = replay.into_parts();
        Ok(())
    }

    /// Run `write` under the write lock, after `refresh`; commit if it succeeds, else roll back.
    /// If the store's unique key refused the row because another process stored that move
    /// first ([`StoreError::Conflict`]: a shared store whose writers did not take turns), the
    /// game is read again and `write` judged again against it, twice at most; never a second
    /// copy of a move.
    ///
    /// A write the database aborted to keep it apart from another transaction
    /// ([`StoreError::Contended`]: nothing was stored) is run again, lock to commit, after a
    /// short backoff; if it keeps failing the answer is [`StoreError::Busy`].
    fn locked<T>(&mut self, mut write: impl FnMut(&mut Self) -> Result<T, SessionError>) -> Result<T, SessionError> {
        let mut conflicts = 0;
        let mut contended = 0;
        loop {
            let failed = match self.store.lock() {
                Ok(()) => match self.refresh().and_then(|()| write(self)) {
                    Ok(v) => match self.store.commit() {
                        Ok(()) => return Ok(v),
                        // The commit ended the transaction, whatever its outcome.
                        Err(e) => SessionError::Store(e),
                    },
                    Err(e) => {
                        self.store.rollback();
                        e
                    }
                },
                Err(e) => SessionError::Store(e),
            };
            match failed {
                SessionError::Store(StoreError::Conflict { .. }) if conflicts < 2 => {
                    conflicts += 1;
                    // Whatever the stored head says, read the game again.
                    self.head = (u64::MAX, String::new());
                }
                SessionError::Store(StoreError::Contended(place)) => match crate::postgres::contention_backoff(contended) {
                    Some(pause) => {
                        contended += 1;
                        std::thread::sleep(pause);
                    }
                    None => return Err(SessionError::Store(StoreError::Busy(place))),
                },
                e => return Err(e),
            }
        }
    }

    pub fn kind(&self) -> &'static dyn GameKind {
        self.kind
    }
    pub fn game(&self) -> &dyn Match {
        self.game.as_ref()
    }
    /// The game as its own type, for a host part written for that game (its table, its views).
    pub fn game_as<G: 'static>(&self) -> Option<&G> {
        arbiter_kernel::downcast::<G>(self.game.as_ref())
    }
    pub fn header(&self) -> &GameHeader {
        &self.header
    }
    pub fn rows(&self) -> &[EventRow] {
        &self.rows
    }
    /// The name of `seat` ("Player", "White").
    pub fn seat_name(&self, seat: Seat) -> String {
        crate::record::seat_name(self.game.as_ref(), seat)
    }
    /// For each row, the seats that were acting when it was made: the seats of the decision
    /// then (one at a turn, several at a simultaneous step; an interjection's row, a move "at
    /// any time", has the seats that were deciding). A chess clock charges the time before a
    /// row to each of them.
    pub fn acting(&self) -> &[Vec<Seat>] {
        &self.acting
    }
    /// The number of moves recorded.
    pub fn seq(&self) -> u64 {
        self.rows.len() as u64
    }
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Parse, validate, apply and store one move (as `as_seat`, if given). The move is judged
    /// under the write lock against the latest stored state (another process may have moved
    /// or undone meanwhile). A refused or unstored move changes neither the game nor the store.
    pub fn play(&mut self, text: &str, as_seat: Option<Seat>) -> Result<(&EventRow, Report), SessionError> {
        let (row, next, report) = self.locked(|s| {
            let (row, next, report) = s.judge(text, as_seat)?;
            s.store.append(&row)?;
            Ok((row, next, report))
        })?;
        self.head = (row.seq, crate::chain::extend(&self.head.1, &row, &self.header.seats));
        self.acting.push(crate::replay::acting_seats(self.game.decision().as_ref(), row.seat));
        self.game = next;
        self.rows.push(row);
        Ok((self.rows.last().expect("just pushed"), report))
    }

    /// The row and the game after `text`, without storing anything.
    fn judge(&self, text: &str, as_seat: Option<Seat>) -> Result<(EventRow, Box<dyn Match>, Report), SessionError> {
        let shown = arbiter_kernel::echo(text);
        let decider = match (self.game.decision(), self.game.outcome()) {
            (_, Some(o)) => return Err(refused(format!("cannot {shown}: the game is over ({})", o.text))),
            (None, None) => return Err(refused(format!("cannot {shown}: no decision is pending"))),
            (Some(d), None) => d.first().seat,
        };
        // Without a seat named, the seat deciding first moves. A seat that need not act may
        // only interject (a move an effect allows "at any time"); the game judges that and
        // says what is open.
        let seat = as_seat.unwrap_or(decider);
        let mut next = self.game.boxed_clone();
        let played = next.play(seat, text).map_err(SessionError::Rejected)?;
        let row = EventRow {
            seq: self.seq() + 1,
            at: now(),
            seat,
            move_text: played.text,
            move_json: played.json,
            record: Record::new(&played.report, next.state_hash(), self.header.seats.len()),
        };
        Ok((row, next, played.report))
    }

    /// Why the last move cannot be undone, if it cannot: only the seat to move may undo its
    /// own moves, back to the last random outcome, revealed information or another seat's move.
    pub fn undo_check(&self) -> Result<(), String> {
        self.undo_check_for(self.game.decision().map(|d| d.first().seat))
    }

    /// `undo_check` for `seat`, which may have just handed the decision to another seat
    /// without that seat having seen anything yet (hot-seat, before the hand-over).
    pub fn undo_check_for(&self, seat: Option<Seat>) -> Result<(), String> {
        let Some(last) = self.rows.last() else {
            return Err("nothing to undo".into());
        };
        if self.game.outcome().is_some() {
            return Err("the game is over".into());
        }
        if seat != Some(last.seat) {
            return Err(format!("the last move was the {}'s; only the side to move may undo its own moves", self.seat_name(last.seat)));
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

    /// Undo the last move of `seat` before the next seat has taken the keyboard (hot-seat):
    /// the same rules as `undo`, except that the decision may already be the other seat's.
    pub fn undo_before_hand_over(&mut self, seat: Seat) -> Result<EventRow, SessionError> {
        self.undo_for(Some(seat))
    }

    /// Why `seat` cannot take back its own choice at the simultaneous step now, if it cannot;
    /// otherwise the index of that choice's row. The game must allow it
    /// ([`arbiter_kernel::Game::choices_revocable`]), and the step must not have resolved: its row and
    /// every row after it are of the same step (other seats' choices, made while `seat` had
    /// chosen and the step went on), none revealing anything, and the step still waits for
    /// some seat.
    pub fn own_choice_check(&self, seat: Seat) -> Result<usize, String> {
        if self.game.outcome().is_some() {
            return Err("the game is over".into());
        }
        if !self.game.choices_revocable() {
            return Err("in this game a choice is final".into());
        }
        let Some(now) = self.game.decision() else { return Err("no decision is pending".into()) };
        let Some(i) = self.rows.iter().rposition(|r| r.seat == seat) else { return Err("you have made no move".into()) };
        let step = &self.acting[i];
        if step.len() < 2 {
            return Err(format!("your last move (#{}) was not a choice of a simultaneous step", self.rows[i].seq));
        }
        if let Some(r) = self.rows[i..].iter().find(|r| r.record.reveals) {
            return Err(format!("move {} ({}) revealed a random outcome or hidden information", r.seq, r.move_text));
        }
        // The step goes on: since the seat's move every decision is of the same step, whose
        // seats only leave it (a seat's part made) and never join it (a new step calls seats
        // again). A seat with several moves in a step (an order for each unit) stays in it.
        let now: Vec<Seat> = now.seats().collect();
        let mut before: &[Seat] = step;
        for seats in self.acting[i + 1..].iter().map(Vec::as_slice).chain([now.as_slice()]) {
            if !seats.iter().all(|s| before.contains(s)) {
                return Err(format!("the step of your move #{} is over", self.rows[i].seq));
            }
            before = seats;
        }
        Ok(i)
    }

    /// Take back `seat`'s own choice at a simultaneous step that has not resolved
    /// ([`Session::own_choice_check`]): its row is deleted and the other seats' choices made
    /// after it are stored again after the rows before it (numbered one less, recorded anew,
    /// their times kept), in one transaction; `seat` acts again. Returns the row taken back.
    pub fn undo_own_choice(&mut self, seat: Seat) -> Result<EventRow, SessionError> {
        let (removed, game, again) = self.locked(|s| {
            let i = s.own_choice_check(seat).map_err(|why| refused(format!("cannot undo: {why}")))?;
            let removed = s.rows[i].clone();
            let mut replay = Replay::new(s.header.clone(), s.rows[..i].to_vec(), s.kind)?;
            replay.run_to(None)?;
            let mut game = replay.into_game();
            let mut again = Vec::new();
            for r in &s.rows[i + 1..] {
                let acting = crate::replay::acting_seats(game.decision().as_ref(), r.seat);
                let played = game
                    .play_json(r.seat, &r.move_json)
                    .map_err(|e| refused(format!("cannot undo: move {} ({}) would not stand without it: {e}", r.seq, r.move_text)))?;
                let record = Record::new(&played.report, game.state_hash(), s.header.seats.len());
                let row =
                    EventRow { seq: r.seq - 1, at: r.at.clone(), seat: r.seat, move_text: played.text, move_json: played.json, record };
                again.push((row, acting));
            }
            if !game.decision().is_some_and(|d| d.includes(seat)) {
                return Err(refused(format!("cannot undo: the {} would not act again", s.seat_name(seat))));
            }
            s.store.truncate_after(removed.seq - 1)?;
            for (row, _) in &again {
                s.store.append(row)?;
            }
            Ok((removed, game, again))
        })?;
        let i = removed.seq as usize - 1;
        self.rows.truncate(i);
        self.acting.truncate(i);
        for (row, acting) in again {
            self.rows.push(row);
            self.acting.push(acting);
        }
        self.game = game;
        self.head = crate::chain::head(&self.header, &self.rows);
        Ok(removed)
    }

    fn undo_for(&mut self, seat: Option<Seat>) -> Result<EventRow, SessionError> {
        let (last, game) = self.locked(|s| {
            let who = seat.or(s.game.decision().map(|d| d.first().seat));
            s.undo_check_for(who).map_err(|why| refused(format!("cannot undo: {why}")))?;
            let last = s.rows.last().expect("checked").clone();
            let mut replay = Replay::new(s.header.clone(), s.rows[..s.rows.len() - 1].to_vec(), s.kind)?;
            replay.run_to(None)?;
            s.store.truncate_after(last.seq - 1)?;
            Ok((last, replay.into_game()))
        })?;
        self.rows.pop();
        self.acting.pop();
        self.game = game;
        self.head = crate::chain::head(&self.header, &self.rows);
        Ok(last)
    }
}
