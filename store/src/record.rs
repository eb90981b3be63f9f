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

impl Record {
    pub fn new(report: &Report, hash: u64) -> Record {
        let text = |want: Audience| report.log.iter().filter(|l| l.to == want).map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n");
        Record {
            public_log: text(Audience::Public),
            us_log: text(Audience::Private(Side::Us)),
            ussr_log: text(Audience::Private(Side::Ussr)),
            random_json: serde_json::to_string(&report.random).expect("random outcomes serialise"),
            reveals: report.reveals(),
            state_hash: format!("{hash:016x}"),
        }
    }

    /// The log lines `viewer` may read (`None`: an observer).
    pub fn lines_for(&self, viewer: Option<Side>) -> Vec<&str> {
        let private = match viewer {
            Some(Side::Us) => self.us_log.as_str(),
            Some(Side::Ussr) => self.ussr_log.as_str(),
            None => "",
        };
        // Private lines (draws) come before the public summary of the same step.
        private.lines().chain(self.public_log.lines()).collect()
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

/// The move text of `rows[i]` as `viewer` (`None`: an observer) may read it. A headline choice
/// is secret from the other side and from observers until the headlines are revealed, which
/// happens with the next row (the other side's choice); a headline revealed at once (Man in
/// Earth Orbit) names its card in the public log.
pub fn move_text_for(rows: &[EventRow], i: usize, viewer: Option<Side>) -> String {
    let Some(row) = rows.get(i) else { return String::new() };
    let headline = serde_json::from_str::<arbiter_engine::Move>(&row.move_json).is_ok_and(|m| matches!(m, arbiter_engine::Move::Headline(_)));
    let card = row.move_text.strip_prefix("headline ").unwrap_or("").trim_matches('"');
    let secret = headline && i + 1 == rows.len() && !row.record.public_log.contains(card) && viewer != Some(row.side);
    if secret {
        "headline (a secret choice until both headlines are revealed)".into()
    } else {
        row.move_text.clone()
    }
}
