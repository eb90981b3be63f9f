//! The PostgreSQL store against a real PostgreSQL (`arbiter-pgtest`: a server of its own in a
//! temporary folder, a database per test). Without PostgreSQL each test prints the skip line
//! and passes; `ARBITER_REQUIRE_POSTGRES=1` (`.ci/run`) makes that a failure.

use arbiter_games::{catalogue, MINESWEEPER};
use arbiter_kernel::Seat;
use arbiter_pgtest::{Cut, CutProxy, PgServer};
use arbiter_store::{
    log_for, AnyStore, EventStore, Fence, GamePlace, PgDatabase, PgStore, Session, SessionError, SqliteStore, StoreError, PG_SCHEMA_VERSION,
};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::sync::{Arc, Barrier};

/// A fresh database of the shared test server, named after the test.
fn database(name: &str) -> Option<(&'static PgServer, PgDatabase)> {
    let pg = arbiter_pgtest::shared()?;
    let url = pg.new_database(name);
    Some((pg, PgDatabase::connect(&url).unwrap_or_else(|e| panic!("connect {url}: {e}"))))
}

/// A small deterministic choice (xorshift): the same moves in every run.
fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
}

/// A board large enough for a long game.
fn board() -> serde_json::Value {
    json!({"width": 20, "height": 20, "mines": 40})
}

/// Play up to `n` moves chosen among the legal ones by `seed` (an open one move in eight, so
/// that the game lasts: opens reveal, flags do not); the texts played.
fn play_moves<S: EventStore>(s: &mut Session<S>, seed: u64, n: usize) -> Vec<String> {
    let mut state = seed | 1;
    let mut played = Vec::new();
    for i in 0..n {
        if s.game().decision().is_none() {
            break;
        }
        let all = s.game().first_moves();
        let quiet: Vec<String> = all.iter().filter(|m| !m.starts_with("open")).cloned().collect();
        let moves = if i % 8 == 3 || quiet.is_empty() { all } else { quiet };
        let m = moves[pick(&mut state, moves.len())].clone();
        s.play(&m, None).unwrap_or_else(|e| panic!("{m}: {e}"));
        played.push(m);
    }
    played
}

fn pg_session(
    db: &PgDatabase,
    id: &str,
    kind: &'static dyn arbiter_kernel::GameKind,
    options: serde_json::Value,
    seed: u64,
) -> Session<PgStore> {
    Session::create_with(kind, &options, seed, |header| db.create_game(id, header)).unwrap()
}

fn open(db: &PgDatabase, id: &str) -> Result<Session<PgStore>, SessionError> {
    Session::load(db.open_game(id)?, &catalogue())
}

/// (seq, chain) of every row, as stored.
fn sqlite_chains(path: &std::path::Path) -> Vec<(i64, String)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut q = c.prepare("SELECT seq, chain FROM events ORDER BY seq").unwrap();
    q.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap()
}

fn pg_chains(pg: &PgServer, db: &str, id: &str) -> Vec<(i64, String)> {
    pg.psql(db, &format!("SELECT seq, chain FROM events WHERE game_id = '{id}' ORDER BY seq"))
        .lines()
        .map(|l| {
            let (seq, chain) = l.split_once('|').unwrap();
            (seq.parse().unwrap(), chain.to_string())
        })
        .collect()
}

#[test]
fn the_same_game_gives_identical_rows_chains_and_replay_in_both_stores() {
    let Some((pg, db)) = database("same_game") else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.arbiter");
    let mut sqlite = Session::create(&path, &MINESWEEPER, &board(), 11).unwrap();
    let played = play_moves(&mut sqlite, 3, 80);
    assert!(played.len() > 40, "a game long enough, with random outcomes and reveals: {}", played.len());
    assert!(sqlite.rows().iter().any(|r| r.record.reveals && r.record.random_json != "[]"));

    // The SQLite rows appended one by one into PostgreSQL: the same chain, row for row.
    let mut store = db.create_game("copied", sqlite.header()).unwrap();
    for row in sqlite.rows() {
        store.lock().unwrap();
        store.append(row).unwrap();
        store.commit().unwrap();
    }
    let copied = open(&db, "copied").unwrap();
    assert_eq!(copied.header(), sqlite.header());
    assert_eq!(copied.rows(), sqlite.rows());
    assert_eq!(copied.game().state_hash(), sqlite.game().state_hash());
    assert_eq!(copied.store().head().unwrap(), sqlite.store().head().unwrap());
    assert_eq!(pg_chains(pg, "same_game", "copied"), sqlite_chains(&path));
    for viewer in [None, Some(Seat(0))] {
        assert_eq!(
            log_for(copied.header(), copied.rows(), viewer, copied.game()),
            log_for(sqlite.header(), sqlite.rows(), viewer, sqlite.game())
        );
    }

    // The same moves played through a session on PostgreSQL: the same records (only the
    // times differ), the same game.
    let mut live = pg_session(&db, "live", &MINESWEEPER, board(), 11);
    for m in &played {
        live.play(m, None).unwrap();
    }
    let strip = |rows: &[arbiter_store::EventRow]| -> Vec<_> {
        rows.iter().map(|r| (r.seq, r.seat, r.move_text.clone(), r.move_json.clone(), r.record.clone())).collect()
    };
    let reopened = open(&db, "live").unwrap();
    assert_eq!(strip(reopened.rows()), strip(sqlite.rows()));
    assert_eq!(reopened.game().state_hash(), sqlite.game().state_hash());
    assert_eq!(reopened.game().view(Some(Seat(0))), sqlite.game().view(Some(Seat(0))));
}

#[test]
fn undo_deletes_the_row_and_moves_the_head_back() {
    let Some((_pg, db)) = database("undo") else { return };
    let mut s = pg_session(&db, "m", &MINESWEEPER, json!({"width": 9, "height": 9, "mines": 10}), 5);
    s.play("flag a1", None).unwrap();
    s.play("flag b2", None).unwrap();
    let undone = s.undo().unwrap();
    assert_eq!(undone.move_text, "flag b2");
    assert_eq!(s.seq(), 1);
    let reopened = open(&db, "m").unwrap();
    assert_eq!(reopened.rows(), s.rows());
    assert_eq!(reopened.store().head().unwrap().0, 1);
    // Undo back to no move at all, then play on.
    s.undo().unwrap();
    assert_eq!(open(&db, "m").unwrap().seq(), 0);
    s.play("open e5", None).unwrap();
    let e = s.undo().unwrap_err().to_string();
    assert!(e.contains("revealed"), "{e}");
    assert_eq!(open(&db, "m").unwrap().seq(), 1);
}

fn damaged_at(db: &PgDatabase, id: &str) -> u64 {
    match open(db, id) {
        Err(SessionError::Store(StoreError::Damaged { seq, .. })) => seq,
        Err(e) => panic!("not damage: {e}"),
        Ok(_) => panic!("the edit was not found"),
    }
}

#[test]
fn an_edited_row_is_damaged_at_its_move_and_a_deleted_last_row_is_truncated() {
    let Some((pg, db)) = database("tamper") else { return };
    for id in ["a", "b", "c", "d", "e"] {
        let mut s = pg_session(&db, id, &MINESWEEPER, board(), 2);
        play_moves(&mut s, 9, 12);
        assert_eq!(s.seq(), 12);
    }
    let sql = |q: &str| pg.psql("tamper", q);
    sql("UPDATE events SET state_hash = '0000000000000000' WHERE game_id = 'a' AND seq = 7");
    assert_eq!(damaged_at(&db, "a"), 7);
    sql("UPDATE events SET public_log = public_log || ' (edited)' WHERE game_id = 'b' AND seq = 3");
    assert_eq!(damaged_at(&db, "b"), 3);
    sql("UPDATE games SET seed = seed + 1 WHERE id = 'c'");
    assert_eq!(damaged_at(&db, "c"), 0);
    let e = open(&db, "c").err().unwrap().to_string();
    assert!(e.contains("game c is damaged in its header"), "{e}");
    sql("DELETE FROM events WHERE game_id = 'd' AND seq = 12");
    match open(&db, "d") {
        Err(SessionError::Store(e @ StoreError::Truncated { head: 12, found: 11, .. })) => {
            assert_eq!(e.to_string(), "game d is truncated: it records 12 move(s) but holds only 11")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a deleted row was not found"),
    }
    // A row in the middle: "move N is missing".
    sql("DELETE FROM events WHERE game_id = 'e' AND seq = 5");
    assert_eq!(damaged_at(&db, "e"), 5);
    // The others' edits did not touch anything else: no game is read from another's rows.
    for id in ["a", "b", "c", "d", "e"] {
        assert!(open(&db, id).is_err());
    }
    let fine = pg_session(&db, "f", &MINESWEEPER, json!({}), 1);
    drop(fine);
    assert!(open(&db, "f").is_ok());
}

#[test]
fn two_sessions_racing_to_append_the_same_move_number_never_both_succeed() {
    let Some((_pg, db)) = database("race") else { return };
    let options = json!({"width": 12, "height": 12, "mines": 10});
    drop(pg_session(&db, "race", &MINESWEEPER, options, 8));
    let rounds = 40;
    let barrier = Arc::new(Barrier::new(2));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (db, barrier) = (db.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut s = open(&db, "race").unwrap();
                let mut outcomes = Vec::new();
                for round in 0..rounds {
                    // Both sessions read the game at the same point, then both flag the same
                    // cell: move number round + 1 for each.
                    barrier.wait();
                    assert_eq!(s.seq(), round as u64, "each session saw the other's moves");
                    let cell = format!("{}{}", char::from(b'a' + (round % 12) as u8), round / 12 + 1);
                    let text = format!("flag {cell}");
                    let outcome = match s.play(&text, None) {
                        Ok((row, _)) => Ok(row.seq),
                        Err(SessionError::Rejected(r)) => Err(r.to_string()),
                        Err(e) => panic!("{text}: {e}"),
                    };
                    // The loser judged its move against the winner's: its session holds it.
                    assert_eq!(s.seq(), round as u64 + 1);
                    assert_eq!(s.rows().last().unwrap().move_text, text);
                    outcomes.push(outcome);
                    barrier.wait();
                }
                outcomes
            })
        })
        .collect();
    let results: Vec<Vec<Result<u64, String>>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let mut wins = [0, 0];
    for round in 0..rounds {
        let (a, b) = (&results[0][round], &results[1][round]);
        assert!(a.is_ok() != b.is_ok(), "round {round}: exactly one stores the move: {a:?} {b:?}");
        let won = a.as_ref().or(b.as_ref()).unwrap();
        assert_eq!(*won, round as u64 + 1);
        let lost = a.as_ref().err().or(b.as_ref().err()).unwrap();
        assert!(lost.contains("flagged already"), "{lost}");
        wins[usize::from(b.is_ok())] += 1;
    }
    let stored = open(&db, "race").unwrap();
    assert_eq!(stored.seq(), rounds as u64, "no move stored twice");
    eprintln!("race: wins {wins:?}");
}

#[test]
fn the_unique_key_refuses_a_second_copy_of_a_move_number() {
    let Some((pg, db)) = database("unique") else { return };
    let mut s = pg_session(&db, "u", &MINESWEEPER, json!({}), 4);
    s.play("flag a1", None).unwrap();
    let next = s.game().first_moves().into_iter().find(|m| m.starts_with("flag")).unwrap();
    // Another writer that did not take the game's lock stored move 2 without moving the head.
    pg.psql(
        "unique",
        "INSERT INTO events SELECT game_id, 2, at, seat, 'flag b1', move_json, random_json, reveals, public_log, seat_logs, state_hash, chain \
         FROM events WHERE game_id = 'u' AND seq = 1",
    );
    let mut store = db.open_game("u").unwrap();
    let row = arbiter_store::EventRow { seq: 2, ..s.rows()[0].clone() };
    store.lock().unwrap();
    let e = store.append(&row).unwrap_err();
    store.rollback();
    assert!(matches!(e, StoreError::Conflict { seq: 2, .. }), "{e}");
    assert_eq!(e.to_string(), "game u: another process stored move 2 first: reload");
    // Through a session: read again, never a second copy (the stray row is then damage).
    let e = s.play(&next, None).unwrap_err();
    assert!(matches!(e, SessionError::Store(StoreError::Damaged { .. })), "{e}");
    assert_eq!(pg.psql("unique", "SELECT COUNT(*) FROM events WHERE game_id = 'u'"), "2");
}

/// A host's table beside the store's, and a fence over it: `allowed` names the key whose
/// writes a game takes.
const GATES: &str =
    "CREATE TABLE IF NOT EXISTS gates (game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE, allowed TEXT NOT NULL)";
const GATE_HOLDS: &str = "SELECT COALESCE((SELECT allowed = $2 FROM gates WHERE game_id = $1), FALSE)";
const SET_GATE: &str =
    "INSERT INTO gates (game_id, allowed) VALUES ($1, $2) ON CONFLICT (game_id) DO UPDATE SET allowed = EXCLUDED.allowed";

#[test]
fn a_fenced_handle_writes_only_while_the_host_s_fence_holds() {
    let Some((_pg, db)) = database("fence") else { return };
    db.prepare_host_tables(GATES).unwrap();
    db.prepare_host_tables(GATES).expect("safe to run again");
    drop(pg_session(&db, "g", &MINESWEEPER, board(), 3));
    let gate = |key: &str| Fence { holds: GATE_HOLDS, key: key.into() };
    let (a, b) = (db.clone().fenced(gate("a")), db.clone().fenced(gate("b")));
    // No row for the game: the fence holds for nobody.
    assert!(matches!(a.put_doc("g", "seats", "{}"), Err(StoreError::LeaseLost(_))));
    db.host_query("open the gate", SET_GATE, &[&"g", &"a"]).unwrap();
    // a writes a document, a chat message and a move.
    let mut sa = open(&a, "g").unwrap();
    a.put_doc("g", "seats", r#"{"by":"a"}"#).unwrap();
    sa.store().add_chat("p", "all", "hello").unwrap();
    let first = play_moves(&mut sa, 5, 1);
    // b writes nothing.
    let mut sb = open(&b, "g").unwrap();
    let lost = |r: Result<(), StoreError>| matches!(r, Err(StoreError::LeaseLost(_)));
    assert!(lost(b.put_doc("g", "seats", r#"{"by":"b"}"#)));
    assert!(matches!(sb.store().add_chat("p", "all", "from b"), Err(StoreError::LeaseLost(_))));
    let legal = sb.game().first_moves()[0].clone();
    assert!(matches!(sb.play(&legal, None), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    // The gate turns to b: now a's writes are refused, b's stored.
    db.host_query("turn the gate", SET_GATE, &[&"g", &"b"]).unwrap();
    assert!(lost(a.put_doc("g", "seats", r#"{"by":"a, stale"}"#)));
    assert!(matches!(sa.store().add_chat("p", "all", "stale"), Err(StoreError::LeaseLost(_))));
    let legal = sa.game().first_moves()[0].clone();
    assert!(matches!(sa.play(&legal, None), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    assert!(matches!(sa.undo(), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    b.put_doc("g", "seats", r#"{"by":"b"}"#).unwrap();
    let second = play_moves(&mut sb, 7, 1);
    // The record: a's move, then b's; the document and the chat as their writers left them.
    assert_eq!(db.doc("g", "seats").unwrap().as_deref(), Some(r#"{"by":"b"}"#));
    let texts: Vec<String> = open(&db, "g").unwrap().store().chat().unwrap().into_iter().map(|m| m.text).collect();
    assert_eq!(texts, ["hello"]);
    let moves: Vec<String> = open(&db, "g").unwrap().rows().iter().map(|r| r.move_text.clone()).collect();
    assert_eq!(moves, [first, second].concat());
    // An unfenced handle is held to nothing; a host's rows go with their game.
    db.put_doc("g", "seats", "{}").unwrap();
    db.delete_game("g").unwrap();
    let left = db.host_query("count the gates", "SELECT COUNT(*) FROM gates", &[]).unwrap();
    assert_eq!(left[0].get::<_, i64>(0), 0);
}

#[test]
fn a_version_1_database_is_upgraded_and_its_lease_columns_left_unused() {
    let Some((pg, db)) = database("upgrade") else { return };
    drop(pg_session(&db, "g", &MINESWEEPER, board(), 3));
    // As version 1 left it: the version, and the lease columns in `games`.
    pg.psql(
        "upgrade",
        "UPDATE arbiter_schema SET version = 1; ALTER TABLE games ADD COLUMN owner TEXT, ADD COLUMN owner_address TEXT, \
         ADD COLUMN lease_until TIMESTAMPTZ; UPDATE games SET owner = 'old', lease_until = now() + INTERVAL '1 hour'",
    );
    let url = format!("{}/upgrade", pg.url().rsplit_once('/').map_or("", |(base, _)| base));
    let again = PgDatabase::connect(&url).unwrap();
    assert_eq!(pg.psql("upgrade", "SELECT version FROM arbiter_schema"), PG_SCHEMA_VERSION.to_string());
    let mut s = open(&again, "g").unwrap();
    assert_eq!(play_moves(&mut s, 9, 2).len(), 2, "the game plays on");
    drop(pg_session(&again, "h", &MINESWEEPER, board(), 4));
}

#[test]
fn heads_docs_ids_and_deletion() {
    let Some((_pg, db)) = database("heads") else { return };
    for (id, n) in [("one", 1), ("two", 2), ("three", 3)] {
        let mut s = pg_session(&db, id, &MINESWEEPER, json!({}), 1);
        for i in 0..n {
            s.play(&format!("flag a{}", i + 1), None).unwrap();
        }
    }
    assert_eq!(db.game_ids().unwrap(), ["one", "two", "three"], "oldest first");
    let ask: Vec<String> = ["three", "missing", "one", "two"].map(String::from).to_vec();
    assert_eq!(db.heads(&ask).unwrap(), [("three".to_string(), 3), ("one".to_string(), 1), ("two".to_string(), 2)]);
    assert_eq!(db.doc("two", "seats").unwrap(), None);
    db.put_doc("two", "seats", "{\"a\":1}").unwrap();
    db.put_doc("two", "other", "[]").unwrap();
    assert_eq!(db.doc("two", "seats").unwrap().as_deref(), Some("{\"a\":1}"));
    db.put_doc("two", "seats", "{\"a\":2}").unwrap();
    assert_eq!(db.doc("two", "seats").unwrap().as_deref(), Some("{\"a\":2}"));
    assert_eq!(db.doc("one", "seats").unwrap(), None);
    assert!(matches!(db.put_doc("missing", "seats", "{}"), Err(StoreError::NoSuchGame(_))));
    db.open_game("two").unwrap().add_chat("us", "all", "hello").unwrap();
    db.delete_game("two").unwrap();
    assert_eq!(db.game_ids().unwrap(), ["one", "three"]);
    assert_eq!(db.doc("two", "seats").unwrap(), None);
    assert!(matches!(db.open_game("two"), Err(StoreError::NoSuchGame(_))));
    assert!(matches!(db.delete_game("two"), Err(StoreError::NoSuchGame(_))));
    // The id is free again.
    drop(pg_session(&db, "two", &MINESWEEPER, json!({}), 1));
    assert_eq!(open(&db, "two").unwrap().seq(), 0);
}

#[test]
fn chat_is_numbered_in_order_even_from_four_writers_at_once() {
    let Some((_pg, db)) = database("chat") else { return };
    drop(pg_session(&db, "c", &MINESWEEPER, json!({}), 1));
    let store = db.open_game("c").unwrap();
    assert_eq!(store.chat().unwrap(), []);
    assert_eq!(store.chat_len().unwrap(), 0);
    let first = store.add_chat("p1", "all", "hi").unwrap();
    assert_eq!((first.id, first.from.as_str(), first.to.as_str(), first.text.as_str()), (1, "p1", "all", "hi"));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                let store = db.open_game("c").unwrap();
                (0..25).map(|i| store.add_chat(&format!("w{t}"), "all", &format!("{i}")).unwrap().id).collect::<Vec<_>>()
            })
        })
        .collect();
    let mut ids: Vec<u64> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, (2..=101).collect::<Vec<_>>());
    let chat = store.chat().unwrap();
    assert_eq!(chat.len(), 101);
    assert_eq!(store.chat_len().unwrap(), 101);
    assert!(chat.windows(2).all(|w| w[0].id + 1 == w[1].id));
    // Through AnyStore, as a host keeps it.
    let any = AnyStore::Postgres(db.open_game("c").unwrap());
    assert_eq!(any.chat().unwrap(), chat);
    assert_eq!(any.add_chat("p2", "us", "psst").unwrap().id, 102);
}

#[test]
fn create_and_open_refuse_clearly() {
    let Some((pg, db)) = database("refusals") else { return };
    let options = json!({});
    drop(pg_session(&db, "x", &MINESWEEPER, options.clone(), 1));
    let e = Session::create_with(&MINESWEEPER, &options, 1, |h| db.create_game("x", h)).err().unwrap();
    assert!(matches!(e, SessionError::Store(StoreError::Exists(_))), "{e}");
    assert_eq!(e.to_string(), "game x already exists");
    let e = open(&db, "y").err().unwrap();
    assert_eq!(e.to_string(), "game y: no such saved game");
    assert!(matches!(db.open_game(""), Err(StoreError::BadId(_))));
    assert!(matches!(db.open_game("a\nb"), Err(StoreError::BadId(_))));
    // The schema is made once; a database written by a newer Arbiter is refused.
    let again = PgDatabase::connect(&format!("postgres://arbiter@127.0.0.1:{}/refusals", pg.port())).unwrap();
    assert_eq!(again.game_ids().unwrap(), ["x"]);
    // Through the server's Unix socket (its folder percent-encoded as the URL's host).
    let folder = pg.socket_dir().display().to_string().replace('/', "%2F");
    let by_socket = PgDatabase::connect(&format!("postgres://arbiter@{folder}:{}/refusals", pg.port())).unwrap();
    assert_eq!(by_socket.game_ids().unwrap(), ["x"]);
    assert!(by_socket.label().starts_with("PostgreSQL database refusals at /"), "{}", by_socket.label());
    pg.psql("refusals", "UPDATE arbiter_schema SET version = 99");
    let e = PgDatabase::connect(&format!("postgres://arbiter@127.0.0.1:{}/refusals", pg.port())).unwrap_err();
    assert!(matches!(e, StoreError::NewerSchema { found: 99, .. }), "{e}");
    assert!(e.to_string().contains(&format!("newer than this Arbiter reads ({PG_SCHEMA_VERSION})")), "{e}");
    // A database that holds someone else's `games` table.
    let url = pg.new_database("foreign");
    pg.psql("foreign", "CREATE TABLE games (name TEXT)");
    let e = PgDatabase::connect(&url).unwrap_err().to_string();
    assert!(e.contains("a database of its own"), "{e}");
    // Nothing listens there: said plainly, no driver wording.
    let e = PgDatabase::connect("postgres://arbiter@127.0.0.1:1/none").unwrap_err().to_string();
    assert_eq!(e, "PostgreSQL database none at 127.0.0.1:1: the database cannot be reached (to connect)");
    let e = PgDatabase::connect(&format!("postgres://arbiter@127.0.0.1:{}/no_such_db", pg.port())).unwrap_err().to_string();
    assert!(e.ends_with("no such database"), "{e}");
    let e = PgDatabase::connect("mysql://nobody").unwrap_err().to_string();
    assert!(e.contains("expected postgres://USER@HOST[:PORT]/DATABASE"), "{e}");
}

#[test]
fn a_host_chooses_its_store_at_run_time() {
    let Some((_pg, db)) = database("any_store") else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let options = json!({"width": 9, "height": 9, "mines": 10});
    for place in [GamePlace::File(&path, arbiter_store::Journal::Rollback), GamePlace::Postgres { db: &db, id: "m" }] {
        let mut s = Session::<AnyStore>::create_in(place, &MINESWEEPER, &options, 5).unwrap();
        s.play("flag a1", None).unwrap();
        s.play("open e5", None).unwrap();
        s.store().add_chat("player", "all", "hello").unwrap();
        let reopened = Session::<AnyStore>::open_in(place, &catalogue()).unwrap();
        assert_eq!(reopened.seq(), 2);
        assert_eq!(reopened.game().state_hash(), s.game().state_hash());
        assert_eq!(reopened.store().chat_len().unwrap(), 1);
        assert!(!reopened.store().is_read_only());
    }
    let file = SqliteStore::open(&path).unwrap();
    let pg = db.open_game("m").unwrap();
    let strip = |rows: Vec<arbiter_store::EventRow>| -> Vec<_> { rows.into_iter().map(|r| (r.move_text, r.record)).collect() };
    assert_eq!(strip(file.rows().unwrap()), strip(pg.rows().unwrap()));
}

#[test]
fn a_restarted_database_is_reached_again() {
    let Some(pg) = PgServer::start() else { return };
    let db = PgDatabase::connect(pg.url()).unwrap();
    let mut s = pg_session(&db, "r", &MINESWEEPER, json!({}), 1);
    s.play("flag a1", None).unwrap();
    db.put_doc("r", "seats", "{}").unwrap();
    // Idle connections in the pool, then the server crashes and comes back.
    pg.restart();
    s.play("flag a2", None).unwrap();
    assert_eq!(db.game_ids().unwrap(), ["r"]);
    pg.restart();
    assert_eq!(db.doc("r", "seats").unwrap().as_deref(), Some("{}"));
    pg.restart();
    assert_eq!(open(&db, "r").unwrap().seq(), 2);
}

#[test]
fn the_last_handle_may_be_dropped_inside_an_async_runtime() {
    let Some((_pg, db)) = database("async_drop") else { return };
    let store = db.open_game("none").err();
    assert!(matches!(store, Some(StoreError::NoSuchGame(_))));
    // The pool now holds an idle connection, whose closing blocks on its own runtime: a server
    // dropping its last handle inside its async runtime must not panic.
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async move { drop(db) });
}

#[test]
fn a_store_dropped_while_it_holds_the_write_lock_rolls_back_even_inside_an_async_runtime() {
    let Some(pg) = arbiter_pgtest::shared() else { return };
    let url = pg.new_database("locked_drop");
    let db = PgDatabase::connect(&url).unwrap();
    let mut s = pg_session(&db, "g", &MINESWEEPER, json!({}), 4);
    s.play("flag a1", None).unwrap();
    drop(s);
    // A write begun (the move undone in the transaction), then the store dropped on an async
    // runtime's thread, its database's other handle kept: no panic, and the write rolled back.
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut store = db.open_game("g").unwrap();
    store.lock().unwrap();
    store.truncate_after(0).unwrap();
    runtime.block_on(async move { drop(store) });
    // The game's row is free again (a lock still held would make this wait 10 s, then busy).
    let mut again = db.open_game("g").unwrap();
    again.lock().unwrap();
    assert_eq!(again.head().unwrap().0, 1, "the undo was rolled back");
    again.rollback();
    // Likewise a locked store holding its database's last handle.
    let other = PgDatabase::connect(&url).unwrap();
    let mut store = other.open_game("g").unwrap();
    store.lock().unwrap();
    store.truncate_after(0).unwrap();
    drop(other);
    runtime.block_on(async move { drop(store) });
    let mut again = db.open_game("g").unwrap();
    again.lock().unwrap();
    assert_eq!(again.head().unwrap().0, 1, "the undo was rolled back");
    again.rollback();
    assert_eq!(open(&db, "g").unwrap().seq(), 1);
}

/// A fresh database reached through a proxy that can lose a `COMMIT`.
fn proxied(name: &str) -> Option<(CutProxy, PgDatabase)> {
    let pg = arbiter_pgtest::shared()?;
    let url = pg.new_database(name);
    let proxy = CutProxy::start(pg.port());
    let db = PgDatabase::connect(&proxy.url(&url)).unwrap_or_else(|e| panic!("connect through the proxy: {e}"));
    Some((proxy, db))
}

#[test]
fn a_move_whose_commit_got_no_answer_is_settled_by_asking_again() {
    let Some((proxy, db)) = proxied("lost_commit") else { return };
    let mut s = pg_session(&db, "g", &MINESWEEPER, json!({}), 4);
    s.play("flag a1", None).unwrap();
    // The COMMIT reached the database and its answer was lost: stored, and said so.
    proxy.arm(Cut::AfterCommit);
    let (row, _) = s.play("flag b1", None).unwrap();
    assert_eq!((row.seq, proxy.cuts()), (2, 1));
    assert_eq!(open(&db, "g").unwrap().rows().last().unwrap().move_text, "flag b1");
    // The COMMIT never reached it: nothing stored, and said so; the session has not moved.
    proxy.arm(Cut::BeforeCommit);
    let e = s.play("flag c1", None).unwrap_err();
    assert_eq!(proxy.cuts(), 2);
    assert!(matches!(e, SessionError::Store(StoreError::WriteFailed { .. })), "{e}");
    assert_eq!(
        e.to_string(),
        "game g: the move was not stored: the connection to the database was lost before the write was committed, and the \
         database, asked again on a new connection, does not hold it"
    );
    assert_eq!(s.seq(), 2);
    assert_eq!(open(&db, "g").unwrap().seq(), 2);
    s.play("flag c1", None).unwrap();
    // An undo likewise: stored when its COMMIT got through, absent when it did not.
    proxy.arm(Cut::BeforeCommit);
    assert!(matches!(s.undo(), Err(SessionError::Store(StoreError::WriteFailed { .. }))));
    assert_eq!((s.seq(), open(&db, "g").unwrap().seq()), (3, 3));
    proxy.arm(Cut::AfterCommit);
    assert_eq!(s.undo().unwrap().move_text, "flag c1");
    assert_eq!((s.seq(), open(&db, "g").unwrap().seq(), proxy.cuts()), (2, 2, 4));
    // The database unreachable when asked again: the old answer, "it may or may not be stored".
    proxy.arm(Cut::AfterCommitThenDown);
    let e = s.play("flag d1", None).unwrap_err();
    assert!(matches!(e, SessionError::Store(StoreError::Unconfirmed(_))), "{e}");
    assert_eq!(
        e.to_string(),
        "game g: the database did not confirm the write (its connection was lost) and cannot be asked again yet: it may or may \
         not be stored; reload to see"
    );
    proxy.up();
    let mut s = open(&db, "g").unwrap();
    assert_eq!(s.rows().last().unwrap().move_text, "flag d1", "it was stored");
    s.play("flag e1", None).unwrap();
    assert_eq!(open(&db, "g").unwrap().seq(), 4);
}

#[test]
fn a_created_game_whose_commit_got_no_answer_is_settled_by_asking_again() {
    let Some((proxy, db)) = proxied("lost_create") else { return };
    let create = |id: &str| Session::create_with(&MINESWEEPER, &json!({}), 3, |header| db.create_game(id, header));
    proxy.arm(Cut::AfterCommit);
    create("a").unwrap();
    assert_eq!(proxy.cuts(), 1);
    assert_eq!(open(&db, "a").unwrap().seq(), 0);
    proxy.arm(Cut::BeforeCommit);
    let e = create("b").err().unwrap();
    assert_eq!(proxy.cuts(), 2);
    assert!(matches!(e, SessionError::Store(StoreError::WriteFailed { .. })), "{e}");
    assert!(matches!(db.open_game("b"), Err(StoreError::NoSuchGame(_))));
    // Nothing was left behind: the id is free.
    create("b").unwrap();
    proxy.arm(Cut::AfterCommitThenDown);
    let e = create("c").err().unwrap();
    assert!(matches!(e, SessionError::Store(StoreError::Unconfirmed(_))), "{e}");
    proxy.up();
    assert_eq!(db.game_ids().unwrap(), ["a", "b", "c"]);
}

#[test]
fn a_write_is_repeated_on_a_new_connection_only_when_nothing_of_it_was_sent() {
    let Some((proxy, db)) = proxied("repeat") else { return };
    let mut s = pg_session(&db, "g", &MINESWEEPER, json!({}), 4);
    let chat = db.open_game("g").unwrap();
    chat.add_chat("s1", "all", "hello").unwrap();
    // The COMMIT's answer lost on a pooled connection: stored once (settled), never repeated.
    proxy.arm(Cut::AfterCommit);
    let m = chat.add_chat("s1", "all", "once").unwrap();
    assert_eq!((m.id, proxy.cuts()), (2, 1));
    assert_eq!(chat.chat().unwrap().iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["hello", "once"]);
    // Lost before the database had it: not stored, said so, not repeated behind the caller.
    proxy.arm(Cut::BeforeCommit);
    let e = chat.add_chat("s1", "all", "lost").unwrap_err();
    assert!(matches!(e, StoreError::WriteFailed { .. }), "{e}");
    assert_eq!((chat.chat_len().unwrap(), proxy.cuts()), (2, 2));
    // Every pooled connection closed while idle (the database restarted): each write's BEGIN
    // fails before anything of it is sent, so it is run again on a new connection.
    for round in 0..4 {
        proxy.down();
        proxy.up();
        match round {
            0 => assert_eq!(chat.add_chat("s1", "all", "again").unwrap().id, 3),
            1 => drop(pg_session(&db, "h", &MINESWEEPER, json!({}), 5)),
            2 => db.open_game("h").unwrap().restore_chat(&chat.chat().unwrap()).unwrap(),
            _ => drop(db.open_game("h").unwrap().chat().unwrap()),
        }
    }
    // A deletion whose COMMIT got no answer says it may or may not have happened (it did).
    proxy.arm(Cut::AfterCommit);
    let e = db.delete_game("h").unwrap_err();
    assert!(matches!(e, StoreError::Unconfirmed(_)), "{e}");
    proxy.down();
    proxy.up();
    s.play("flag a1", None).unwrap();
    assert_eq!((chat.chat_len().unwrap(), db.game_ids().unwrap(), open(&db, "g").unwrap().seq()), (3, vec!["g".to_string()], 1));
}

/// Two handles on one database, as two processes have: the game created by the first, at
/// move `n` after `moves` (flags, so that nothing is revealed and every cell stays open).
fn two_processes(name: &str, moves: &[&str]) -> Option<(PgDatabase, PgDatabase)> {
    let pg = arbiter_pgtest::shared()?;
    let url = pg.new_database(name);
    let (a, b) = (PgDatabase::connect(&url).unwrap(), PgDatabase::connect(&url).unwrap());
    let mut s = pg_session(&a, "g", &MINESWEEPER, json!({}), 6);
    for m in moves {
        s.play(m, None).unwrap();
    }
    Some((a, b))
}

#[test]
fn a_session_behind_another_process_judges_its_move_again_under_the_row_lock() {
    let Some((a, b)) = two_processes("behind", &["flag a1", "flag a2"]) else { return };
    // A loaded the game at move 2; B (another process) stores move 3; A then plays its own
    // move 3. A's lock re-reads the head under the game's row lock, finds B's move, reads the
    // game again and judges A's move against it: the key is never reached.
    let conflicts = std::rc::Rc::new(std::cell::Cell::new(0));
    let store = Interleaved { inner: a.open_game("g").unwrap(), between: None, conflicts: conflicts.clone() };
    let mut sa = Session::load(store, &catalogue()).unwrap();
    let mut sb = open(&b, "g").unwrap();
    sb.play("flag b1", None).unwrap();
    let (row, _) = sa.play("flag b2", None).unwrap();
    assert_eq!((row.seq, sa.seq()), (4, 4), "stored after B's move, as move 4");
    assert_eq!(sa.rows()[2].move_text, "flag b1", "A's session now holds B's move");
    // Now the same cell: B flags c1 as move 5; A, still at move 4, flags c1 too: refused with
    // the game's own reason, against the position B left.
    sb = open(&b, "g").unwrap();
    sb.play("flag c1", None).unwrap();
    let e = sa.play("flag c1", None).unwrap_err();
    let SessionError::Rejected(r) = e else { panic!("{e}") };
    assert!(r.to_string().contains("flagged already"), "{r}");
    assert_eq!(sa.seq(), 5, "A's session read B's move");
    assert_eq!(conflicts.get(), 0, "the row lock's head decided, not the key");
    let stored = open(&a, "g").unwrap();
    let texts: Vec<&str> = stored.rows().iter().map(|r| r.move_text.as_str()).collect();
    assert_eq!(texts, ["flag a1", "flag a2", "flag b1", "flag b2", "flag c1"], "never two moves of one number");
}

/// A store that runs `between` once, right after taking the write lock (another process's
/// write landing between this writer's read of the head and its append), and counts the
/// appends the unique key refused.
struct Interleaved {
    inner: PgStore,
    between: Option<Box<dyn FnOnce()>>,
    conflicts: std::rc::Rc<std::cell::Cell<usize>>,
}

impl EventStore for Interleaved {
    fn header(&self) -> Result<arbiter_store::GameHeader, StoreError> {
        self.inner.header()
    }
    fn rows(&self) -> Result<Vec<arbiter_store::EventRow>, StoreError> {
        self.inner.rows()
    }
    fn rows_and_head(&self) -> Result<(Vec<arbiter_store::EventRow>, (u64, String)), StoreError> {
        self.inner.rows_and_head()
    }
    fn head(&self) -> Result<(u64, String), StoreError> {
        self.inner.head()
    }
    fn lock(&mut self) -> Result<(), StoreError> {
        self.inner.lock()?;
        if let Some(f) = self.between.take() {
            f();
        }
        Ok(())
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        self.inner.commit()
    }
    fn rollback(&mut self) {
        self.inner.rollback()
    }
    fn append(&mut self, row: &arbiter_store::EventRow) -> Result<(), StoreError> {
        let appended = self.inner.append(row);
        if let Err(StoreError::Conflict { .. }) = appended {
            self.conflicts.set(self.conflicts.get() + 1);
        }
        appended
    }
    fn truncate_after(&mut self, seq: u64) -> Result<(), StoreError> {
        self.inner.truncate_after(seq)
    }
}

#[test]
fn the_unique_keys_conflict_makes_the_session_read_again_and_judge_again() {
    for (theirs, mine, expected) in [("flag b1", "flag b2", Ok(4)), ("flag b1", "flag b1", Err("flagged already"))] {
        let name = if expected.is_ok() { "key_legal" } else { "key_refused" };
        let Some((a, b)) = two_processes(name, &["flag a1", "flag a2"]) else { return };
        // A writer that skips the row lock: only the unique key stands between it and B.
        a.fault_skip_row_lock();
        let conflicts = std::rc::Rc::new(std::cell::Cell::new(0));
        let b_moves = move || {
            let mut sb = open(&b, "g").unwrap();
            sb.play(theirs, None).unwrap();
        };
        let store = Interleaved { inner: a.open_game("g").unwrap(), between: Some(Box::new(b_moves)), conflicts: conflicts.clone() };
        let mut sa = Session::load(store, &catalogue()).unwrap();
        // A reads head 2 under its (skipped) lock, B stores move 3, A appends its move 3: the key
        // refuses it, and the session reads the game again and judges A's move again.
        let outcome = match sa.play(mine, None) {
            Ok((row, _)) => Ok(row.seq),
            Err(SessionError::Rejected(r)) => Err(r.to_string()),
            Err(e) => panic!("{mine}: {e}"),
        };
        assert_eq!(conflicts.get(), 1, "{name}: the key refused A's first append");
        match (outcome, expected) {
            (Ok(seq), Ok(want)) => assert_eq!(seq, want),
            (Err(why), Err(want)) => assert!(why.contains(want), "{why}"),
            (got, want) => panic!("{name}: {got:?}, expected {want:?}"),
        }
        assert_eq!(sa.rows()[2].move_text, theirs, "A's session holds B's move 3");
        let stored = open(&a, "g").unwrap();
        let mut texts: Vec<&str> = stored.rows().iter().map(|r| r.move_text.as_str()).collect();
        assert_eq!(texts.drain(..3).collect::<Vec<_>>(), ["flag a1", "flag a2", theirs]);
        assert_eq!(texts, if expected.is_ok() { vec![mine] } else { vec![] }, "never two moves 3");
        assert_eq!(sa.seq(), stored.seq());
    }
}

#[test]
fn a_write_the_database_aborts_as_a_serialization_failure_is_retried_then_busy() {
    let Some((pg, db)) = database("contended") else { return };
    let mut s = pg_session(&db, "g", &MINESWEEPER, json!({}), 4);
    s.play("flag a1", None).unwrap();
    // A real 40001 from the server: a trigger that raises it for the first N rows it sees,
    // counted by a sequence (a sequence is not rolled back with the aborted transaction).
    pg.psql(
        "contended",
        "CREATE SEQUENCE faults; \
         CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
           IF nextval('faults') <= TG_ARGV[0]::bigint THEN \
             RAISE EXCEPTION 'injected' USING ERRCODE = 'serialization_failure'; \
           END IF; RETURN NEW; END $$",
    );
    // The attempts a write made (the sequence's last value), the trigger then removed.
    let attempts = |trigger: &str, table: &str| -> String {
        let n = pg.psql("contended", "SELECT last_value FROM faults");
        pg.psql("contended", &format!("DROP TRIGGER {trigger} ON {table}; ALTER SEQUENCE faults RESTART"));
        n
    };
    // Aborted at the insert twice, then stored: one row.
    pg.psql("contended", "CREATE TRIGGER at_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fault('2')");
    assert_eq!(s.play("flag a2", None).unwrap().0.seq, 2);
    assert_eq!(attempts("at_insert", "events"), "3");
    // Aborted at COMMIT (a deferred trigger, as a serializable commit fails) twice, then stored.
    pg.psql(
        "contended",
        "CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED FOR EACH ROW \
         EXECUTE FUNCTION fault('2')",
    );
    assert_eq!(s.play("flag a3", None).unwrap().0.seq, 3);
    assert_eq!(attempts("at_commit", "events"), "3");
    // Aborted every time: five attempts, then busy; nothing stored.
    pg.psql("contended", "CREATE TRIGGER at_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fault('1000')");
    let e = s.play("flag a4", None).unwrap_err();
    assert!(matches!(e, SessionError::Store(StoreError::Busy(_))), "{e}");
    let shown = e.to_string();
    assert!(shown.starts_with("PostgreSQL database contended at 127.0.0.1:"), "{shown}");
    assert!(shown.ends_with(" is busy: another Arbiter is writing to it; nothing was stored, try again"), "{shown}");
    assert_eq!(attempts("at_insert", "events"), "5");
    assert_eq!((s.seq(), open(&db, "g").unwrap().seq()), (3, 3));
    // The database's own writes outside a move likewise (a chat message).
    let chat = db.open_game("g").unwrap();
    pg.psql("contended", "CREATE TRIGGER at_insert BEFORE INSERT ON chat FOR EACH ROW EXECUTE FUNCTION fault('2')");
    assert_eq!(chat.add_chat("s1", "all", "hello").unwrap().id, 1);
    assert_eq!(attempts("at_insert", "chat"), "3");
    pg.psql("contended", "CREATE TRIGGER at_insert BEFORE INSERT ON chat FOR EACH ROW EXECUTE FUNCTION fault('1000')");
    assert!(matches!(chat.add_chat("s1", "all", "lost"), Err(StoreError::Busy(_))));
    assert_eq!(attempts("at_insert", "chat"), "5");
    assert_eq!(chat.chat_len().unwrap(), 1);
}

#[test]
fn every_games_document_of_one_name_is_read_in_one_query() {
    let Some((proxy, db)) = proxied("docs") else { return };
    let ids: Vec<String> = (0..20).map(|i| format!("g{i:02}")).collect();
    for (i, id) in ids.iter().enumerate() {
        drop(pg_session(&db, id, &MINESWEEPER, json!({}), i as u64));
        // Every game but every fifth has its facts; each has another document too.
        if i % 5 != 0 {
            db.put_doc(id, "listing", &format!("{{\"n\":{i}}}")).unwrap();
        }
        db.put_doc(id, "seats", "{}").unwrap();
    }
    let want: Vec<(String, String)> =
        ids.iter().enumerate().filter(|(i, _)| i % 5 != 0).map(|(i, id)| (id.clone(), format!("{{\"n\":{i}}}"))).collect();
    // The old way: the games' ids, then one query per game.
    let before = proxy.statements();
    let one_by_one: Vec<(String, String)> =
        db.game_ids().unwrap().into_iter().filter_map(|id| db.doc(&id, "listing").unwrap().map(|d| (id, d))).collect();
    let per_game = proxy.statements() - before;
    let before = proxy.statements();
    let all = db.docs("listing").unwrap();
    let at_once = proxy.statements() - before;
    assert_eq!(all, want, "the oldest game first, only those with the document");
    assert_eq!(one_by_one, want);
    assert_eq!((per_game, at_once), (21, 1), "statements: one per game and the list, then one");
    assert_eq!(db.docs("none").unwrap(), []);
    eprintln!("docs: 20 games, {per_game} statements one by one, {at_once} at once");
}
