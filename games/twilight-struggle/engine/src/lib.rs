//! # Arbiter engine
//!
//! The arbitration kernel and the base rules of Twilight Struggle (Deluxe).
//!
//! * State ([`state::State`]) changes only through instructions ([`instr::Instr`]) applied by
//!   the mutation context ([`ctx::Ctx`]).
//! * Player input is accepted only by arbitrators: the rule modules (`setup`, `headline`,
//!   `action_round`, `ops`, `turn`, and card events through [`registry::CardEvent`]) validate a
//!   move against the state and emit instructions.
//! * The game flow is a work stack ([`flow::Task`]) that unfolds lazily.
//! * Ops values and die rolls go through ordered modifier pipelines ([`pipeline`]); permission
//!   vetoes are data ([`permission::Veto`]); lasting effects are data ([`effect::Effect`]).
//! * Randomness is one seeded or scripted source ([`rng::Randomness`]); every outcome is
//!   reported ([`report::Report`]).
//!
//! ## Move notation
//!
//! See [`moves`] for the full table. Examples: `play "Duck and Cover" ops`,
//! `play Fidel ops then event`, `headline "Red Scare/Purge"`, `influence Poland`, `coup Iran`,
//! `realign "North Korea"`, `choose boycott`, `pass`. Names match case-insensitively, an
//! unambiguous prefix is accepted, quotes are optional.

/// The version of the rules this engine implements. A saved game records it; a game that
/// diverges on replay under another rules version is reported as such.
pub const RULES_VERSION: &str = "ts-deluxe-2026.11.5";

/// The engine's own version.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod action_round;
pub mod advice;
pub mod bits;
pub mod card;
pub mod computer;
pub mod contract;
pub mod coup;
pub(crate) mod cpu;
pub mod ctx;
pub mod defcon;
pub mod effect;
pub mod encode;
pub mod error;
pub mod flow;
pub mod game;
pub mod headline;
pub mod instr;
pub mod listing;
pub mod map;
pub mod moves;
pub mod odds;
pub mod ops;
pub mod permission;
pub mod pipeline;
pub mod playout;
pub mod realign;
pub mod registry;
pub mod report;
pub mod rng;
pub mod scoring;
pub mod setup;
pub mod side;
pub mod space_race;
pub mod state;
pub mod task;
pub mod turn;
pub mod view;

pub use card::{CardDb, CardId, CardInfo, CardSet};
pub use error::{Illegal, ParseError, PlayError};
pub use flow::Decision;
pub use game::Game;
pub use map::{CountryId, CountrySet, Map, Region};
pub use moves::{Concession, Move, Notation, PlayMode};
pub use registry::{
    Ask, CardEvent, Cause, Intent, IntentKind, Interest, Lasting, NoStep, Position, Prerequisite, Priority, Prompt, Ruleset,
    ScoringModifier, ScoringTime, Verdict, Words,
};
pub use report::Report;
pub use rng::Randomness;
pub use side::Side;
pub use state::{Options, Outcome, State};
pub use task::{Arg, EventTask, Modes, OpsKind, OpsTask, Pending, Picked, PlayTask, Source, Task};
