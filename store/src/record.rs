use arbiter_engine::report::{Audience, Report};
use arbiter_engine::{Options, Side};
use serde::{Deserialize, Serialize};

/// What one step produced: log texts (public, and private to each side), random outcomes
/// (JSON), whether it revealed anything, and the state hash after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub public_log: String,
    pub us_log: String,
    pub ussr_log: String,
    pub random_json: String,
    pub reveals: bool,
    /// `State::hash64` in hex.
    pub state_hash: String,
}

/// A private line is stored as `@N\t` + its text, N being the number of public lines before it
/// in the step, so that a side's log reads in the order things happened (a draw at the end of
/// a turn after the move that ended it). Lines stored without the mark (by Arbiter before
/// 0.1 of 2026-11-23) come first, as they were read then.
const AT: char = '@';

impl Record {
    pub fn new(report: &Report, hash: u64) -> Record {
        let public = || report.log.iter().filter(|l| l.to == Audience::Public);
        let private = |side: Side| {
            let mut before = 0usize;
            let mut out = Vec::new();
            for l in &report.log {
                match l.to {
                    Audience::Public => before += 1,
                    Audience::Private(s) if s == side => out.push(format!("{AT}{before}\t{}", l.text)),
                    Audience::Private(_) => {}
                }
            }
            out.join("\n")
        };
        Record {
            public_log: public().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n"),
            us_log: private(Side::Us),
            ussr_log: private(Side::Ussr),
            random_json: serde_json::to_string(&report.random).expect("random outcomes serialise"),
            reveals: report.reveals(),
            state_hash: format!("{hash:016x}"),
        }
    }

    /// `side`'s private lines with their places: (public lines before it, text).
    fn private(&self, side: Side) -> impl Iterator<Item = (usize, &str)> {
        let text = match side {
            Side::Us => self.us_log.as_str(),
            Side::Ussr => self.ussr_log.as_str(),
        };
        text.lines().map(|l| {
            let placed = l.strip_prefix(AT).and_then(|r| r.split_once('\t')).and_then(|(n, t)| Some((n.parse::<usize>().ok()?, t)));
            placed.unwrap_or((0, l))
        })
    }

    /// `side`'s private lines alone, in order.
    pub fn private_lines(&self, side: Side) -> Vec<&str> {
        self.private(side).map(|(_, t)| t).collect()
    }

    /// The log lines `viewer` may read (`None`: an observer), in the order they happened.
    pub fn lines_for(&self, viewer: Option<Side>) -> Vec<&str> {
        let public: Vec<&str> = self.public_log.lines().collect();
        let Some(side) = viewer else { return public };
        let mut out = Vec::with_capacity(public.len() + 4);
        let mut next = 0;
        for (before, text) in self.private(side) {
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

/// One line of a game's log as a viewer may read it: a move's heading (`#12 USSR: coup Iran`,
/// a secret headline not named) or a line of what it did. `seq` is 0 for the setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub seq: u64,
    pub heading: bool,
    pub text: String,
}

/// The whole log `viewer` may read (`None`: an observer), the setup first; `game` is the game
/// after the last row (see [`move_text_for`]).
pub fn log_for(header: &GameHeader, rows: &[EventRow], viewer: Option<Side>, game: &arbiter_engine::Game) -> Vec<LogEntry> {
    let line = |seq, text: &str| LogEntry { seq, heading: false, text: text.to_string() };
    let mut out: Vec<LogEntry> = header.setup.lines_for(viewer).into_iter().map(|l| line(0, l)).collect();
    for (i, r) in rows.iter().enumerate() {
        out.push(LogEntry { seq: r.seq, heading: true, text: format!("#{} {}: {}", r.seq, r.side, move_text_for(rows, i, viewer, game)) });
        out.extend(r.record.lines_for(viewer).into_iter().map(|l| line(r.seq, l)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_engine::report::LogLine;

    fn line(to: Audience, text: &str) -> LogLine {
        LogLine { to, text: text.into() }
    }

    #[test]
    fn a_side_reads_its_private_lines_where_they_happened() {
        let report = Report {
            log: vec![
                line(Audience::Public, "#58 placed"),
                line(Audience::Public, "=== Turn 2 ==="),
                line(Audience::Private(Side::Us), "US draws NATO"),
                line(Audience::Private(Side::Ussr), "USSR draws Fidel"),
                line(Audience::Public, "Deal: USSR draws 1, US draws 1"),
            ],
            ..Report::default()
        };
        let r = Record::new(&report, 0);
        assert_eq!(r.lines_for(Some(Side::Us)), ["#58 placed", "=== Turn 2 ===", "US draws NATO", "Deal: USSR draws 1, US draws 1"]);
        assert_eq!(r.lines_for(Some(Side::Ussr))[2], "USSR draws Fidel");
        assert_eq!(r.lines_for(None), ["#58 placed", "=== Turn 2 ===", "Deal: USSR draws 1, US draws 1"]);
        assert_eq!(r.private_lines(Side::Us), ["US draws NATO"]);
    }

    #[test]
    fn private_lines_stored_without_a_place_come_first_as_before() {
        let r = Record {
            public_log: "a\nb".into(),
            us_log: "US draws NATO".into(),
            ussr_log: String::new(),
            random_json: "[]".into(),
            reveals: false,
            state_hash: String::new(),
        };
        assert_eq!(r.lines_for(Some(Side::Us)), ["US draws NATO", "a", "b"]);
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameHeader {
    /// RFC 3339, UTC.
    pub created_at: String,
    pub engine_version: String,
    pub rules_version: String,
    pub seed: u64,
    pub options: Options,
    /// The record of game creation (the setup deal).
    pub setup: Record,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    /// 1, 2, 3… in order.
    pub seq: u64,
    /// RFC 3339, UTC.
    pub at: String,
    pub side: Side,
    pub move_text: String,
    pub move_json: String,
    pub record: Record,
}

/// The move text of `rows[i]` as `viewer` (`None`: an observer) may read it, `game` being the
/// game after the last row. Only the last move can still be hidden, and the game decides
/// whether it is (a secret choice not yet revealed: a headline; `Game::hidden_move`).
pub fn move_text_for(rows: &[EventRow], i: usize, viewer: Option<Side>, game: &arbiter_engine::Game) -> String {
    let Some(row) = rows.get(i) else { return String::new() };
    let hidden = if i + 1 == rows.len() { game.hidden_move(&row.move_text, row.side, viewer) } else { None };
    hidden.unwrap_or_else(|| row.move_text.clone())
}
