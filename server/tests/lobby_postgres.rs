//! `lobby.rs`'s tests (the lobby's list and pages, watching, chat's audiences, histories,
//! limits and rate, rematches, replays, abandoned games, a restart) with the games kept in a
//! real PostgreSQL (`arbiter serve --store`, one process). Without PostgreSQL each test prints
//! `arbiter-pgtest`'s skip line and passes (`ARBITER_REQUIRE_POSTGRES=1` makes that a failure).

/// Read by the included tests' `server_with` helper.
const ON_POSTGRES: bool = true;

#[path = "lobby.rs"]
mod on_postgres;
