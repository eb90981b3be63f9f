use arbiter_kernel::{Audience, Match, Report, Seat, Viewer};

/// What one step produced: log texts (public, and private to each seat), random outcomes
/// (JSON), whether it revealed anything, and the state hash after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub public_log: String,
    /// One per seat, in seat order: the lines only that seat may read.
    pub seat_logs: Vec<String>,
    pub random_json: String,
    pub reveals: bool,
    /// The game's state hash in hex.
    pub state_hash: String,
}

/// A state hash as a record stores it: 16 hex digits.
pub(crate) fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A private line is stored as `@N\t` + its text, N being the number of public lines before it
/// in the step, so that a seat's log reads in the order things happened (a draw at the end of
/// a turn after the move that ended it). Lines stored without the mark (by Arbiter before
/// 0.1 of 2026-11-23) come first, as they were read then.
const AT: char = '@';

impl Record {
    /// The seats' private logs as a store keeps them (one JSON array), or what is wrong.
    pub(crate) fn seat_logs_from(json: &str) -> Result<Vec<String>, &'static str> {
        serde_json::from_str(json).map_err(|_| "the seats' logs cannot be read")
    }

    /// The record of `report`, for a game of `seats` seats whose state hash is now `hash`.
    pub fn new(report: &Report, hash: u64, seats: usize) -> Record {
        let public = || report.log.iter().filter(|l| l.to == Audience::Public);
        let private = |seat: Seat| {
            let mut before = 0usize;
            let mut out = Vec::new();
            for l in &report.log {
                match l.to {
                    Audience::Public => before += 1,
                    Audience::Seat(s) if s == seat => out.push(format!("{AT}{before}\t{}", l.text)),
                    Audience::Seat(_) => {}
                }
            }
            out.join("\n")
        };
        Record {
            public_log: public().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n"),
            seat_logs: (0..seats).map(|i| private(Seat(i as u8))).collect(),
            random_json: report.random_json(),
            reveals: report.reveals(),
            state_hash: hash_text(hash),
        }
    }

    /// `seat`'s private lines with their places: (public lines before it, text).
    fn private(&self, seat: Seat) -> impl Iterator<Item = (usize, &str)> {
        let text = self.seat_logs.get(seat.idx()).map(String::as_str).unwrap_or("");
        text.lines().map(|l| {
            let placed = l.strip_prefix(AT).and_then(|r| r.split_once('\t')).and_then(|(n, t)| Some((n.parse::<usize>().ok()?, t)));
            placed.unwrap_or((0, l))
        })
    }

    /// `seat`'s private lines alone, in order.
    pub fn private_lines(&self, seat: Seat) -> Vec<&str> {
        self.private(seat).map(|(_, t)| t).collect()
    }

    /// The log lines `viewer` may read (`None`: an observer), in the order they happened.
    pub fn lines_for(&self, viewer: Viewer) -> Vec<&str> {
        let public: Vec<&str> = self.public_log.lines().collect();
        let Some(seat) = viewer else { return public };
        let mut out = Vec::with_capacity(public.len() + 4);
        let mut next = 0;
        for (before, text) in self.private(seat) {
            while next < before.min(public.len()) {
                out.push(public[next]);
                next += 1;
            }
            out.push(text);
        }
        out.extend(&public[next..]);
        out
    }
}

/// One line of a game's log as a viewer may read it: a move's heading (`#12 Player: open c4`,
/// a secret move not named) or a line of what it did. `seq` is 0 for the setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub seq: u64,
    pub heading: bool,
    pub text: String,
}

/// The name of `seat` in `game` ("Player"), or `seat N` for a seat it does not have.
pub(crate) fn seat_name(game: &dyn Match, seat: Seat) -> String {
    game.seats().get(seat.idx()).cloned().unwrap_or_else(|| format!("seat {}", seat.0))
}

/// The whole log `viewer` may read (`None`: an observer), the setup first; `game` is the game
/// after the last row (see [`move_text_for`]).
pub fn log_for(header: &GameHeader, rows: &[EventRow], viewer: Viewer, game: &dyn Match) -> Vec<LogEntry> {
    let line = |seq, text: &str| LogEntry { seq, heading: false, text: text.to_string() };
    let mut out: Vec<LogEntry> = header.setup.lines_for(viewer).into_iter().map(|l| line(0, l)).collect();
    for (i, r) in rows.iter().enumerate() {
        let who = seat_name(game, r.seat);
        out.push(LogEntry { seq: r.seq, heading: true, text: format!("#{} {who}: {}", r.seq, move_text_for(rows, i, viewer, game)) });
        out.extend(r.record.lines_for(viewer).into_iter().map(|l| line(r.seq, l)));
    }
    out
}

/// How a game was created: its kind, versions, seed, options, seats and what its creation
/// produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameHeader {
    /// The kind of game (`GameKind::id`); `None` in a game saved before saved games named
    /// their kind (Arbiter 0.1 before 2026-11-25), which is the host's default kind.
    pub game: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub engine_version: String,
    pub rules_version: String,
    pub seed: u64,
    /// The options as JSON text, exactly as stored.
    pub options: String,
    /// The seats' ids ([`arbiter_kernel::seat_id`]), in seat order.
    pub seats: Vec<String>,
    /// The record of game creation (a setup deal).
    pub setup: Record,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    /// 1, 2, 3… in order.
    pub seq: u64,
    /// RFC 3339, UTC.
    pub at: String,
    /// The seat whose move it is.
    pub seat: Seat,
    /// The move's canonical text.
    pub move_text: String,
    /// The move as the game serialises it: what replay plays.
    pub move_json: String,
    pub record: Record,
}

/// The move text of `rows[i]` as `viewer` (`None`: an observer) may read it, `game` being the
/// game after the last row: the game decides whether a move is hidden from `viewer` (a secret
/// choice not yet revealed, or never; `Game::hidden_move`).
pub fn move_text_for(rows: &[EventRow], i: usize, viewer: Viewer, game: &dyn Match) -> String {
    let Some(row) = rows.get(i) else { return String::new() };
    let age = rows.len() - 1 - i;
    game.hidden_move(&row.move_text, row.seat, age, viewer).unwrap_or_else(|| row.move_text.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_kernel::LogLine;

    fn line(to: Audience, text: &str) -> LogLine {
        LogLine { to, text: text.into() }
    }

    #[test]
    fn a_seat_reads_its_private_lines_where_they_happened() {
        let report = Report {
            log: vec![
                line(Audience::Public, "#58 placed"),
                line(Audience::Public, "=== Turn 2 ==="),
                line(Audience::Seat(Seat(0)), "A draws 7"),
                line(Audience::Seat(Seat(1)), "B draws 9"),
                line(Audience::Public, "Deal: B draws 1, A draws 1"),
            ],
            ..Report::default()
        };
        let r = Record::new(&report, 0, 2);
        assert_eq!(r.lines_for(Some(Seat(0))), ["#58 placed", "=== Turn 2 ===", "A draws 7", "Deal: B draws 1, A draws 1"]);
        assert_eq!(r.lines_for(Some(Seat(1)))[2], "B draws 9");
        assert_eq!(r.lines_for(None), ["#58 placed", "=== Turn 2 ===", "Deal: B draws 1, A draws 1"]);
        assert_eq!(r.private_lines(Seat(0)), ["A draws 7"]);
        assert_eq!(r.private_lines(Seat(7)), Vec::<&str>::new());
    }

    #[test]
    fn private_lines_stored_without_a_place_come_first_as_before() {
        let r = Record {
            public_log: "a\nb".into(),
            seat_logs: vec!["A draws 7".into(), String::new()],
            random_json: "[]".into(),
            reveals: false,
            state_hash: String::new(),
        };
        assert_eq!(r.lines_for(Some(Seat(0))), ["A draws 7", "a", "b"]);
    }
}

/// A list of strings as the stores keep it: a JSON array.
pub(crate) fn json_strings(list: &[String]) -> String {
    serde_json::to_string(list).expect("strings serialise")
}

/// A game's header as a store read it, checked by [`StoredHeader::check`] as every store checks
/// it.
pub(crate) struct StoredHeader {
    pub game: Option<String>,
    pub created_at: String,
    pub engine_version: String,
    pub rules_version: String,
    /// The u64's bits, as SQL stores them.
    pub seed: i64,
    pub options: String,
    pub seats: StoredSeats,
    /// The setup's record, or what is wrong with its seats' logs.
    pub setup: Result<Record, &'static str>,
}

/// A header's seats as stored.
pub(crate) enum StoredSeats {
    /// A JSON array of the seats' ids.
    Json(String),
    /// The ids themselves (an old file names them by its columns).
    Ids(Vec<String>),
}

impl StoredHeader {
    /// The header, or what is damaged in it: options that are not JSON, seats that cannot be
    /// read, private logs that do not match the seats.
    pub(crate) fn check(self) -> Result<GameHeader, String> {
        let StoredHeader { game, created_at, engine_version, rules_version, seed, options, seats, setup } = self;
        if serde_json::from_str::<serde_json::Value>(&options).is_err() {
            return Err("the game options cannot be read".into());
        }
        let seats = match seats {
            StoredSeats::Ids(ids) => ids,
            StoredSeats::Json(json) => serde_json::from_str(&json).map_err(|_| "the seats cannot be read".to_string())?,
        };
        let setup = setup.map_err(String::from)?;
        if setup.seat_logs.len() != seats.len() {
            return Err("its private logs do not match the game's seats".into());
        }
        Ok(GameHeader { game, created_at, engine_version, rules_version, seed: seed as u64, options, seats, setup })
    }
}
