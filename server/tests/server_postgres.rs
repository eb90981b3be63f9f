//! `server.rs`'s tests (random games over HTTP and WebSocket searched for leaks, tokens, racing
//! moves, reconnects and presence, unloading, the flood and idle limits, a restart, the clock,
//! resigning, secret headlines, interjections, the generic contract, the computer) with the
//! games kept in a real PostgreSQL (`arbiter serve --store`, one process). Without PostgreSQL
//! each test prints `arbiter-pgtest`'s skip line and passes (`ARBITER_REQUIRE_POSTGRES=1`
//! makes that a failure).

/// Read by the included tests' `server` helper.
const ON_POSTGRES: bool = true;

#[path = "server.rs"]
mod on_postgres;
