//! Typed errors. An illegal move names the reason and the rule that decided it, e.g.
//! `cannot coup Poland: DEFCON 4 closes Europe to coups (§8.1.5)`.

use crate::rng::Exhausted;
use crate::state::Outcome;
use std::borrow::Cow;

/// Why a move is not legal, and which rule says so.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason} ({rule})")]
pub struct Illegal {
    /// Empty when the arbitrator was asked not to explain (listing legal moves).
    pub reason: Cow<'static, str>,
    pub rule: &'static str,
}

impl Illegal {
    pub fn new(reason: impl Into<Cow<'static, str>>, rule: &'static str) -> Illegal {
        Illegal { reason: reason.into(), rule }
    }
    /// Compose the reason only if it will be shown.
    pub fn lazy(explain: bool, rule: &'static str, reason: impl FnOnce() -> String) -> Illegal {
        Illegal { reason: if explain { Cow::Owned(reason()) } else { Cow::Borrowed("") }, rule }
    }
}

/// Shorthand for building an `Err(Illegal)`.
pub fn illegal<T>(reason: impl Into<Cow<'static, str>>, rule: &'static str) -> Result<T, Illegal> {
    Err(Illegal::new(reason, rule))
}

/// `refuse!(explain, rule, "format", args…)`: an `Err(Illegal)` whose message is composed only
/// when `explain` is true, so listing legal moves formats nothing.
#[macro_export]
macro_rules! refuse {
    ($explain:expr, $rule:expr, $($fmt:tt)+) => {
        Err($crate::error::Illegal::lazy($explain, $rule, || format!($($fmt)+)))
    };
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over ({0})")]
    GameOver(Outcome),
    /// `action` is the move in words ("coup Poland").
    #[error("cannot {action}: {why}")]
    Illegal { action: String, why: Illegal },
    #[error("cannot {action}: {why}")]
    Randomness { action: String, why: Exhausted },
    /// An engine fault: card code met a step or move it does not know. Never caused by a
    /// player's input alone (the move was validated first); the soak tests fail on it.
    #[error("cannot {action}: engine fault: {what}")]
    Fault { action: String, what: String },
}

pub use crate::moves::ParseError;
