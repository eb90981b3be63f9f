//! The games this build offers: the one place where the generic host (store, server, CLI) meets
//! the games. The first is the default: Twilight Struggle, also the kind of every game saved
//! before saved games named their kind.
//!
//! A host part written for one game (the Twilight Struggle table, its browser views) reaches
//! that game's own type through [`TwilightSession::ts`]; everything else speaks the kernel's
//! [`arbiter_kernel::Match`].

pub mod web;

use arbiter_kernel::{Catalogue, GameKind};
use arbiter_store::{EventStore, Session};

pub use arbiter_diplomacy::Kind as Diplomacy;
pub use arbiter_mafia::Kind as Mafia;
pub use arbiter_minesweeper::Kind as Minesweeper;
pub use arbiter_twilight_cards::TwilightStruggle;

/// Twilight Struggle's kind.
pub static TWILIGHT_STRUGGLE: TwilightStruggle = TwilightStruggle;
/// Minesweeper's kind.
pub static MINESWEEPER: Minesweeper = Minesweeper;
/// Mafia's kind.
pub static MAFIA: Mafia = Mafia;
/// Diplomacy's kind.
pub static DIPLOMACY: Diplomacy = Diplomacy;

/// Every game this build offers, the default first; a saved game that names no kind is
/// Twilight Struggle's (Arbiter played only it then).
pub fn catalogue() -> Catalogue {
    Catalogue::new(vec![&TWILIGHT_STRUGGLE as &'static dyn GameKind, &MINESWEEPER, &MAFIA, &DIPLOMACY])
        .reading_unnamed_as(&TWILIGHT_STRUGGLE)
}

/// Twilight Struggle's options as a host passes them.
pub fn ts_options(o: arbiter_twilight::Options) -> serde_json::Value {
    serde_json::to_value(o).expect("options serialise")
}

/// Typed access to a session's game when it is Twilight Struggle.
pub trait TwilightSession {
    /// The game, if this session's game is Twilight Struggle.
    fn twilight(&self) -> Option<&arbiter_twilight::Game>;
    /// The game, for code that only ever opens Twilight Struggle (tests, the TS table after
    /// dispatch). Panics on another game: a caller's fault, never a user's.
    fn ts(&self) -> &arbiter_twilight::Game {
        self.twilight().expect("a Twilight Struggle game")
    }
}

impl<S: EventStore> TwilightSession for Session<S> {
    fn twilight(&self) -> Option<&arbiter_twilight::Game> {
        self.game_as::<arbiter_twilight::Game>()
    }
}

/// Saved games as Arbiter wrote them before the store was generic, for the tests that check
/// they still open.
pub mod legacy {
    /// Rewrite the Twilight Struggle game saved at `path` as a schema-version-1 file: no
    /// integrity chain, no kind, a log column per side (`us_log`, `ussr_log`). Opening it for
    /// writing upgrades it, chaining its rows as they are (so a test also gets a file resealed
    /// as a forger with other tools would).
    pub fn rewrite_as_version_1(path: &std::path::Path) -> rusqlite::Result<()> {
        let c = rusqlite::Connection::open(path)?;
        c.execute_batch(
            "CREATE TABLE g1 AS SELECT id, created_at, engine_version, rules_version, seed, options_json, setup_public_log, \
                 json_extract(setup_seat_logs, '$[0]') AS setup_us_log, json_extract(setup_seat_logs, '$[1]') AS setup_ussr_log, \
                 setup_random_json, setup_reveals, setup_state_hash FROM game;
             CREATE TABLE e1 AS SELECT seq, at, seat AS side, move_text, move_json, random_json, reveals, public_log, \
                 json_extract(seat_logs, '$[0]') AS us_log, json_extract(seat_logs, '$[1]') AS ussr_log, state_hash FROM events;
             DROP TABLE game; DROP TABLE events; ALTER TABLE g1 RENAME TO game; ALTER TABLE e1 RENAME TO events;
             PRAGMA user_version = 1;",
        )
    }
}
