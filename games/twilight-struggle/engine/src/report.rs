//! What one accepted move produced: log lines (public or private to one side) and the random
//! outcomes drawn while resolving it.

use crate::card::CardId;
use crate::side::Side;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Audience {
    Public,
    /// Only this side may read it (e.g. the cards it drew).
    Private(Side),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub to: Audience,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RandomOutcome {
    Die {
        side: Side,
        value: u8,
    },
    /// A pile was shuffled into the draw deck; `order` is the new deck, top last.
    Shuffle {
        order: Vec<CardId>,
    },
    Draw {
        side: Side,
        card: CardId,
    },
    /// A random card taken from a hand.
    RandomCard {
        side: Side,
        card: CardId,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub log: Vec<LogLine>,
    pub random: Vec<RandomOutcome>,
    /// Hidden information was revealed (a headline, a hand...), besides random outcomes.
    pub revealed: bool,
    /// The card events that took place during the move, in order (for statistics and tests;
    /// not stored, the log says the same in words).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<CardId>,
}

impl Report {
    /// Empty, keeping the vectors' allocations (`Game::play_quiet_into`).
    pub fn clear(&mut self) {
        let Report { log, random, revealed, events } = self;
        log.clear();
        random.clear();
        *revealed = false;
        events.clear();
    }

    /// Did this move reveal anything: a random outcome or hidden information? Undo may not go
    /// back past such a move.
    pub fn reveals(&self) -> bool {
        self.revealed || !self.random.is_empty()
    }

    /// The lines `viewer` may read (`None` = an observer: public lines only).
    pub fn lines_for(&self, viewer: Option<Side>) -> impl Iterator<Item = &str> {
        self.log
            .iter()
            .filter(move |l| match l.to {
                Audience::Public => true,
                Audience::Private(s) => Some(s) == viewer,
            })
            .map(|l| l.text.as_str())
    }
}
