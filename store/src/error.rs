use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {what}")]
    Sqlite { path: PathBuf, what: String },
    #[error("{0} is not an Arbiter saved game")]
    NotAGame(PathBuf),
    #[error("{path} uses save schema version {found}, newer than this Arbiter reads ({supported}); upgrade Arbiter to open it")]
    NewerSchema { path: PathBuf, found: i64, supported: i64 },
    #[error("{path} uses unknown save schema version {found} (this Arbiter reads {supported})")]
    UnknownSchema { path: PathBuf, found: i64, supported: i64 },
    #[error("{0} already exists")]
    Exists(PathBuf),
    #[error("{path}: row {seq}: {what}")]
    BadRow { path: PathBuf, seq: u64, what: String },
    /// The integrity chain breaks: a stored value changed outside Arbiter, or the file is damaged.
    #[error("{path} is damaged {}: {what}", if *seq == 0 { "in its header".to_string() } else { format!("at move {seq}") })]
    Damaged { path: PathBuf, seq: u64, what: String },
    /// Rows at the end are missing.
    #[error("{path} is truncated: it records {head} move(s) but holds only {found}")]
    Truncated { path: PathBuf, head: u64, found: u64 },
    /// The file itself is shorter than its own header says (a copy or a save cut short);
    /// `expected` is `None` when not even the header is whole.
    #[error("{path} is truncated: the file is cut short ({})", match expected {
        Some(n) => format!("{size} of its {n} bytes"),
        None => format!("{size} bytes, not even its whole header"),
    })]
    CutShort { path: PathBuf, size: u64, expected: Option<u64> },
    /// Opened read-only (the file or its folder cannot be written): reading works, moves cannot
    /// be stored.
    #[error("{0} is read-only: nothing was stored")]
    ReadOnly(PathBuf),
    /// Another process holds the write lock for longer than the wait allows.
    #[error("{0} is busy: another Arbiter is writing to it; nothing was stored, try again")]
    Busy(PathBuf),
    /// A write failed (disk full, a file-size limit…): the move was not stored.
    #[error("{path}: the move was not stored: {what}")]
    WriteFailed { path: PathBuf, what: String },
    /// A database store (PostgreSQL) failed as a whole: unreachable, a refused login, no
    /// permission… `place` names the database, never its password.
    #[error("{place}: {what}")]
    Database { place: String, what: String },
    /// A game the store does not hold (`path` names it: `game ID`).
    #[error("{0}: no such saved game")]
    NoSuchGame(PathBuf),
    /// Another process stored move `seq` first (the store's unique key on the game and the
    /// move number refused a second one): nothing was stored; reload and judge again.
    #[error("{path}: another process stored move {seq} first: reload")]
    Conflict { path: PathBuf, seq: u64 },
    /// The database aborted the write to keep it apart from another transaction (a
    /// serialization failure or a deadlock, SQLSTATE 40001 or 40P01; CockroachDB's "restart
    /// transaction"): nothing was stored, and running it again is safe. [`crate::Session`]
    /// retries it with a short backoff and answers [`StoreError::Busy`] if it keeps failing.
    #[error("{0}: the database aborted the write to keep it apart from another; nothing was stored, try again")]
    Contended(PathBuf),
    /// A database store lost its connection during a write's `COMMIT` and could not be asked
    /// again whether the write was stored (unreachable still): it may or may not be.
    #[error("{0}: the database did not confirm the write (its connection was lost) and cannot be asked again yet: it may or may not be stored; reload to see")]
    Unconfirmed(PathBuf),
    /// This process's handle is fenced ([`crate::PgDatabase::fenced`], the server's lease) and
    /// the fence does not hold now (the lease expired, and perhaps another process took the
    /// game over): nothing was stored. The process's copy of the game may be stale.
    #[error("{0}: this process no longer holds the game's lease (another may serve it now): nothing was stored")]
    LeaseLost(PathBuf),
    /// A game id the store cannot hold.
    #[error("{0:?} is not a game id: 1 to 200 characters, none of them control characters")]
    BadId(String),
}

/// The first point where a saved game and this engine disagree. Its text is player-facing:
/// it never shows a random outcome (the deck order, the cards drawn), the seed, or the move
/// text of a move still secret; it says which comparison failed and, where that is
/// harmless (a state hash, a sequence number, a side), the two values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("replay diverges at {}: {}{}", self.place(), self.detail(), versions_note(created_by, running))]
pub struct ReplayError {
    /// 0 for the setup record.
    pub seq: u64,
    /// The move's text as an observer may read it (a secret move is not named).
    pub move_text: String,
    /// "state hash", "random outcomes", "move accepted"…
    pub what: String,
    /// The stored and the computed values, empty when they may not be shown (random
    /// outcomes hold the deck order; a secret move names its card).
    pub expected: String,
    pub actual: String,
    /// (engine, rules) versions that wrote the game.
    pub created_by: (String, String),
    /// (engine, rules) versions replaying it.
    pub running: (String, String),
}

impl ReplayError {
    fn place(&self) -> String {
        if self.seq == 0 {
            "game setup".to_string()
        } else {
            format!("move {} ({:?})", self.seq, self.move_text)
        }
    }

    fn detail(&self) -> String {
        let of = if self.seq == 0 { "the game setup".to_string() } else { format!("move {}", self.seq) };
        if self.what == "random outcomes" {
            format!("the random outcomes of {of} differ from the record (die rolls, draws or shuffles)")
        } else if self.expected.is_empty() && self.actual.is_empty() {
            format!("{}: {of} differs from the record (the values are secret and not shown)", self.what)
        } else {
            format!("{}: expected {}, got {}", self.what, self.expected, self.actual)
        }
    }
}

fn versions_note(created: &(String, String), running: &(String, String)) -> String {
    if created.1 != running.1 {
        format!(
            "; the game was created under rules version {} (engine {}), this engine implements rules version {} (engine {})",
            created.1, created.0, running.1, running.0
        )
    } else {
        format!(" (engine {}, rules {})", running.0, running.1)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The move was refused, with the rule that decides when a game's rule does: nothing was
    /// stored.
    #[error("{0}")]
    Rejected(arbiter_kernel::Refusal),
    /// The saved game is of a kind this build does not offer.
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
}
