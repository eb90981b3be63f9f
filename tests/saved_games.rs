//! The saved-game store: round trips, verified replay of random games, tamper detection,
//! schema refusal, undo, and durability under `kill -9`.

use arbiter_games::{catalogue, ts_options, TwilightSession, TWILIGHT_STRUGGLE};
use arbiter_store::{EventStore, Journal, ReplayError, Session, SessionError, SqliteStore, StoreError};
use arbiter_twilight::contract::seat;
use arbiter_twilight::{Game, Options};
use pretty_assertions::assert_eq;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A random legal move in canonical text.
fn random_move(g: &Game, rng: &mut ChaCha8Rng) -> String {
    let d = g.decision().expect("a decision");
    g.move_text(&d.moves[rng.random_range(0..d.moves.len())])
}

/// Play `n` random moves (or to the end) through the session.
fn play_random(s: &mut Session, rng: &mut ChaCha8Rng, n: usize) {
    for _ in 0..n {
        if s.ts().outcome().is_some() {
            return;
        }
        let m = random_move(s.ts(), rng);
        s.play(&m, None).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

#[test]
fn save_and_load_round_trip_at_many_points() {
    let dir = tmp();
    let path = dir.path().join("g.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 42).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    while s.ts().outcome().is_none() {
        play_random(&mut s, &mut rng, 37);
        let loaded = Session::open(&path, &catalogue()).unwrap();
        assert_eq!(loaded.ts().hash64(), s.ts().hash64());
        assert_eq!(loaded.ts().state(), s.ts().state());
        assert_eq!(loaded.rows(), s.rows());
        assert_eq!(loaded.ts().legal_moves(), s.ts().legal_moves());
    }
}

#[test]
fn two_hundred_random_games_replay_to_identical_hashes() {
    let dir = tmp();
    for seed in 0..200u64 {
        let path = dir.path().join(format!("{seed}.arbiter"));
        let mut s =
            Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options { optional_cards: seed % 2 == 0, us_bonus: 2 }), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        play_random(&mut s, &mut rng, usize::MAX);
        let stored: Vec<String> = s.rows().iter().map(|r| r.record.state_hash.clone()).collect();
        // Opening replays every move and checks every row's random outcomes and hash.
        let reopened = Session::open(&path, &catalogue()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let replayed: Vec<String> = reopened.rows().iter().map(|r| r.record.state_hash.clone()).collect();
        assert_eq!(replayed, stored);
        assert_eq!(reopened.ts().outcome(), s.ts().outcome());
        assert_eq!(reopened.ts().hash64(), s.ts().hash64());
    }
}

/// An interjection ("at any time": cancelling the Cuban Missile Crisis) while the other side
/// decides is a row of the interjecting side; the decision stays, and the file replays. Three
/// cancellations at least.
#[test]
fn interjections_are_stored_as_rows_of_their_side_and_replay() {
    let dir = tmp();
    let mut made = 0;
    for seed in 0..300u64 {
        let path = dir.path().join(format!("{seed}.arbiter"));
        let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while s.ts().outcome().is_none() {
            let decider = s.ts().to_move().expect("a decision");
            let other = decider.opponent();
            let open = s.ts().interjections(other);
            if let Some(m) = open.first() {
                let text = s.ts().move_text(m);
                let before = s.ts().decision().map(|d| d.side);
                let (row, _) = s.play(&text, Some(seat(other))).unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
                assert_eq!(row.seat, seat(other), "the row is the interjecting side's");
                // An "at any time" move says who interjected.
                let said = format!("The {other} interjects while the {decider} decides");
                assert!(row.record.public_log.contains(&said), "{:?}", row.record.public_log);
                assert_eq!(s.ts().decision().map(|d| d.side), before, "the decision stays with the side deciding");
                // Only the side deciding may undo, and not the other side's interjection.
                assert!(s.undo_check().is_err());
                made += 1;
                continue;
            }
            let m = random_move(s.ts(), &mut rng);
            s.play(&m, None).unwrap_or_else(|e| panic!("seed {seed}: {m}: {e}"));
        }
        let reopened = Session::open(&path, &catalogue()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(reopened.ts().hash64(), s.ts().hash64());
        if made >= 3 {
            return;
        }
    }
    panic!("only {made} interjections in 300 random games: the test no longer exercises them");
}

/// A move out of turn that no effect allows is refused, naming whose decision it is.
#[test]
fn a_move_out_of_turn_is_refused_unless_it_is_an_interjection() {
    let dir = tmp();
    let mut s = Session::create(&dir.path().join("g.arbiter"), &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 1).unwrap();
    let decider = s.ts().to_move().unwrap();
    let other = decider.opponent();
    let text = s.ts().move_text(&s.ts().legal_moves()[0]);
    let e = s.play(&text, Some(seat(other))).unwrap_err().to_string();
    assert!(e.contains(&format!("it is the {decider}'s decision")), "{e}");
    assert!(e.contains("none is open now"), "{e}");
    assert_eq!(s.rows().len(), 0);
}

fn game_with_moves(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("t.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 7).unwrap();
    play_random(&mut s, &mut ChaCha8Rng::seed_from_u64(7), n);
    path
}

fn tamper(path: &Path, sql: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    let changed = c.execute(sql, []).unwrap();
    assert_eq!(changed, 1, "{sql}");
}

/// What a forger with other tools would do after an edit: recompute the integrity chain, so
/// that only replay can tell. Done by rewriting the file as a version-1 file (no chain, a log
/// column per seat), which Arbiter upgrades, chaining the rows as they are, when it opens it
/// for writing.
fn reseal(path: &Path) {
    arbiter_games::legacy::rewrite_as_version_1(path).unwrap();
    SqliteStore::open(path).unwrap();
}

/// The integrity chain names the edited row.
fn damaged_at(path: &Path) -> u64 {
    match SqliteStore::open(path).and_then(|s| s.rows()) {
        Err(StoreError::Damaged { seq, .. }) => seq,
        Err(e) => panic!("expected damage, got {e}"),
        Ok(_) => panic!("the edit was not detected by the integrity chain"),
    }
}

fn divergence(path: &Path) -> ReplayError {
    match Session::open(path, &catalogue()) {
        Err(SessionError::Replay(e)) => e,
        Err(e) => panic!("expected a divergence, got {e}"),
        Ok(_) => panic!("tampering was not detected"),
    }
}

#[test]
fn tampering_with_a_state_hash_is_detected_at_that_row() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 80);
    tamper(&path, "UPDATE events SET state_hash = '0000000000000000' WHERE seq = 50");
    assert_eq!(damaged_at(&path), 50);
    reseal(&path);
    let e = divergence(&path);
    assert_eq!((e.seq, e.what.as_str(), e.expected.as_str()), (50, "state hash", "0000000000000000"));
    assert!(e.to_string().contains("replay diverges at move 50"), "{e}");
}

#[test]
fn tampering_with_a_die_roll_is_detected_at_that_row() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 120);
    let c = rusqlite::Connection::open(&path).unwrap();
    let (seq, json): (i64, String) = c
        .query_row("SELECT seq, random_json FROM events WHERE random_json LIKE '%\"Die\"%' ORDER BY seq LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("some move rolled a die");
    let forged = if json.contains("\"value\":6") {
        json.replacen("\"value\":6", "\"value\":1", 1)
    } else {
        json.replacen("\"value\":", "\"value\":6", 1)
    };
    c.execute("UPDATE events SET random_json = ?1 WHERE seq = ?2", rusqlite::params![forged, seq]).unwrap();
    drop(c);
    assert_eq!(damaged_at(&path), seq as u64);
    reseal(&path);
    let e = divergence(&path);
    assert_eq!((e.seq, e.what.as_str()), (seq as u64, "random outcomes"));
    assert!(!e.to_string().contains(&forged) && !e.to_string().contains(&json), "{e}");
}

/// The cards a random-outcome JSON names (draws, shuffles, random cards).
fn cards_in(random_json: &str) -> Vec<arbiter_twilight::CardId> {
    use arbiter_twilight::report::RandomOutcome;
    let outcomes: Vec<RandomOutcome> = serde_json::from_str(random_json).unwrap();
    outcomes
        .into_iter()
        .flat_map(|r| match r {
            RandomOutcome::Draw { card, .. } | RandomOutcome::RandomCard { card, .. } => vec![card],
            RandomOutcome::Shuffle { order } => order,
            RandomOutcome::Die { .. } => vec![],
        })
        .collect()
}

/// A divergence in random outcomes says where, never what they were: the stored and the
/// replayed outcomes are the deck order and the cards dealt. Tried on the setup (the deal) and
/// on a move that draws, with the chain recomputed so that replay is what catches it.
#[test]
fn a_tampered_random_outcome_is_reported_without_its_values() {
    let dir = tmp();
    let rules = arbiter_twilight_cards::ruleset();
    for target in ["setup", "move"] {
        let path = dir.path().join(format!("r-{target}.arbiter"));
        let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 7).unwrap();
        play_random(&mut s, &mut ChaCha8Rng::seed_from_u64(7), 120);
        drop(s);
        let c = rusqlite::Connection::open(&path).unwrap();
        let (seq, genuine): (i64, String) = if target == "setup" {
            c.query_row("SELECT 0, setup_random_json FROM game", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap()
        } else {
            c.query_row("SELECT seq, random_json FROM events WHERE random_json LIKE '%\"Draw\"%' ORDER BY seq LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .expect("some move draws cards")
        };
        // Swap the first two cards drawn: a plausible forgery, still cards of the deck.
        let mut v: serde_json::Value = serde_json::from_str(&genuine).unwrap();
        let draws: Vec<usize> = (0..v.as_array().unwrap().len()).filter(|&i| v[i].get("Draw").is_some()).take(2).collect();
        let (a, b) = (v[draws[0]]["Draw"]["card"].clone(), v[draws[1]]["Draw"]["card"].clone());
        assert_ne!(a, b);
        v[draws[0]]["Draw"]["card"] = b;
        v[draws[1]]["Draw"]["card"] = a;
        let forged = serde_json::to_string(&v).unwrap();
        let sql =
            if target == "setup" { "UPDATE game SET setup_random_json = ?1" } else { "UPDATE events SET random_json = ?1 WHERE seq = ?2" };
        if target == "setup" {
            c.execute(sql, [&forged]).unwrap();
        } else {
            c.execute(sql, rusqlite::params![forged, seq]).unwrap();
        }
        drop(c);
        assert_eq!(damaged_at(&path), seq as u64);
        reseal(&path);
        let e = divergence(&path);
        assert_eq!((e.seq, e.what.as_str(), e.expected.as_str(), e.actual.as_str()), (seq as u64, "random outcomes", "", ""));
        let text = e.to_string();
        let place = if seq == 0 { "the game setup".to_string() } else { format!("move {seq}") };
        assert!(text.contains(&format!("the random outcomes of {place} differ from the record (die rolls, draws or shuffles)")), "{text}");
        for json in [&genuine, &forged] {
            assert!(!text.contains(json.as_str()), "{text}");
        }
        // Without the place, the move (a public move text may name a card) and the versions,
        // nothing is left that could come from the outcomes: no number, no card.
        let head = if seq == 0 {
            "replay diverges at game setup: ".to_string()
        } else {
            format!("replay diverges at move {seq} ({:?}): ", e.move_text)
        };
        let rest = text.strip_prefix(&head).unwrap_or_else(|| panic!("{text}"));
        let rest = rest.replace(&place, "");
        let rest = rest.split(" (engine ").next().unwrap().split("; the game was created").next().unwrap();
        assert!(!rest.chars().any(|ch| ch.is_ascii_digit()), "digits in {rest:?}");
        for card in cards_in(&genuine).into_iter().chain(cards_in(&forged)) {
            assert!(!rest.contains(rules.cards.name(card)), "{text} names {}", rules.cards.name(card));
        }
    }
}

/// A divergence at a headline not yet revealed does not name it: its text is player-facing.
#[test]
fn a_divergence_at_a_secret_headline_does_not_name_it() {
    let dir = tmp();
    let path = dir.path().join("h.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 4242).unwrap();
    let first = |s: &Session| s.ts().move_text(&s.ts().decision().unwrap().moves[0]);
    while !first(&s).starts_with("headline ") {
        let m = first(&s);
        s.play(&m, None).unwrap();
    }
    let m = first(&s);
    s.play(&m, None).unwrap();
    let card = m.trim_start_matches("headline ").trim_matches('"').to_string();
    let seq = s.seq();
    drop(s);
    tamper(&path, &format!("UPDATE events SET state_hash = '0000000000000000' WHERE seq = {seq}"));
    reseal(&path);
    let e = divergence(&path);
    assert_eq!((e.seq, e.what.as_str()), (seq, "state hash"));
    let text = e.to_string();
    assert!(!text.contains(&card) && !format!("{e:?}").contains(&card), "{text}");
    assert!(text.contains(&format!("move {seq} (\"headline (a secret choice")), "{text}");
}

#[test]
fn tampering_with_a_move_is_detected_at_that_row() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 10);
    // Move 1 is the USSR's first setup marker; make it a different (still legal) country.
    let c = rusqlite::Connection::open(&path).unwrap();
    let json: String = c.query_row("SELECT move_json FROM events WHERE seq = 1", [], |r| r.get(0)).unwrap();
    let other = if json.contains("Influence") && !json.contains(":19}") { r#"{"Influence":19}"# } else { r#"{"Influence":20}"# };
    c.execute("UPDATE events SET move_json = ?1 WHERE seq = 1", [other]).unwrap();
    drop(c);
    assert_eq!(damaged_at(&path), 1);
    reseal(&path);
    let e = divergence(&path);
    assert_eq!((e.seq, e.what.as_str()), (1, "move text"));
}

#[test]
fn a_file_from_a_newer_schema_is_refused() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 3);
    rusqlite::Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
    match SqliteStore::open(&path) {
        Err(e @ StoreError::NewerSchema { found: 99, .. }) => {
            assert!(e.to_string().contains("newer than this Arbiter reads"))
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a newer schema was opened"),
    }
}

#[test]
fn a_file_that_is_not_a_game_is_refused() {
    let dir = tmp();
    let path = dir.path().join("x.arbiter");
    std::fs::write(&path, "hello, not a database at all, long enough to have a header ........").unwrap();
    assert!(matches!(SqliteStore::open(&path), Err(StoreError::NotAGame(_))));
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t(x)").unwrap();
    assert!(matches!(SqliteStore::open(&other), Err(StoreError::NotAGame(_))));
}

/// A chained (version 2) file whose version number says 1 would be read without its chain: it
/// is damaged, whether opened for writing or not. (A file really of version 1 is upgraded.)
#[test]
fn a_chained_file_claiming_version_1_is_damaged() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 5);
    rusqlite::Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 1").unwrap();
    match SqliteStore::open(&path) {
        Err(e @ StoreError::Damaged { seq: 0, .. }) => {
            assert!(e.to_string().contains("its schema version does not match its tables"), "{e}")
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("opened"),
    }
}

/// A saved game cut short at the byte level (a copy that did not finish) says so, from the
/// start of SQLite's header to one byte short; an empty file is not a saved game.
#[test]
fn a_file_cut_short_is_truncated() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 40);
    let original = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.arbiter");
    // The journal kept beside a written game (its header zeroed at each commit) is copied
    // along: it can finish or undo nothing, so it does not excuse the file from the check.
    let journal = std::fs::read(dir.path().join(format!("{}-journal", path.file_name().unwrap().to_string_lossy()))).unwrap();
    assert!(journal.len() >= 8 && journal[..8].iter().all(|b| *b == 0), "a journal kept, not hot");
    std::fs::write(dir.path().join("cut.arbiter-journal"), &journal).unwrap();
    for n in [1, 16, 99, 100, 4096, original.len() / 2, original.len() - 1] {
        std::fs::write(&cut, &original[..n]).unwrap();
        match SqliteStore::open(&cut).and_then(|s| s.rows().map(|_| ())) {
            Err(e @ StoreError::CutShort { .. }) => {
                let whole = original.len();
                let expected =
                    if n < 100 { format!("({n} bytes, not even its whole header)") } else { format!("({n} of its {whole} bytes)") };
                assert!(e.to_string().ends_with(&format!("is truncated: the file is cut short {expected}")), "{e}");
            }
            Err(e) => panic!("cut at {n}: wrong error: {e}"),
            Ok(_) => panic!("cut at {n}: opened"),
        }
    }
    std::fs::write(&cut, b"").unwrap();
    assert!(matches!(SqliteStore::open(&cut), Err(StoreError::NotAGame(_))));
    // The whole file reads.
    std::fs::write(&cut, &original).unwrap();
    SqliteStore::open(&cut).unwrap().rows().unwrap();
}

#[test]
fn creating_over_an_existing_file_is_refused() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 1);
    assert!(matches!(
        Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 1),
        Err(SessionError::Store(StoreError::Exists(_)))
    ));
}

#[test]
fn undo_restores_the_exact_game_and_stops_at_revealed_information() {
    let dir = tmp();
    let path = dir.path().join("u.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 3).unwrap();
    let before = s.ts().hash64();
    s.play("influence Poland", None).unwrap();
    s.play("influence Poland", None).unwrap();
    s.undo().unwrap();
    s.undo().unwrap();
    assert_eq!(s.ts().hash64(), before);
    assert!(s.undo().is_err(), "nothing to undo");
    assert_eq!(Session::open(&path, &catalogue()).unwrap().ts().hash64(), before, "undo is durable");
    // Finish setup; the US may not undo the USSR's moves.
    for _ in 0..6 {
        s.play("influence Poland", None).unwrap();
    }
    let err = s.undo().unwrap_err().to_string();
    assert!(err.contains("only the side to move may undo its own moves"), "{err}");
    // A headline reveal cannot be undone.
    for _ in 0..9 {
        s.play("influence UK", None).unwrap();
    }
    let hl = |s: &Session| {
        let d = s.ts().decision().unwrap();
        s.ts().move_text(&d.moves[0])
    };
    let m = hl(&s);
    s.play(&m, None).unwrap();
    let m = hl(&s);
    s.play(&m, None).unwrap();
    let err = s.undo().map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("revealed") || err.contains("only the side to move"), "{err}");
}

#[test]
fn a_rejected_move_stores_nothing() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 2);
    let mut s = Session::open(&path, &catalogue()).unwrap();
    let rows = s.rows().to_vec();
    assert!(
        matches!(s.play("influence France", None), Err(SessionError::Rejected(m)) if m.rule == "§3.2" && m.to_string().ends_with("(§3.2)"))
    );
    assert_eq!(SqliteStore::open(&path).unwrap().rows().unwrap(), rows);
}

#[test]
fn replay_can_stop_at_any_move_and_step_forward() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 60);
    let store = SqliteStore::open(&path).unwrap();
    let rows = store.rows().unwrap();
    let mut r = arbiter_store::Replay::new(store.header().unwrap(), rows.clone(), &TWILIGHT_STRUGGLE).unwrap();
    r.run_to(Some(30)).unwrap();
    assert_eq!(r.seq(), 30);
    assert_eq!(format!("{:016x}", r.game().state_hash()), rows[29].record.state_hash);
    r.step().unwrap();
    assert_eq!(format!("{:016x}", r.game().state_hash()), rows[30].record.state_hash);
}

// ------------------------------------------------------------------ kill -9

const WRITER_ENV: &str = "ARBITER_KILL_TEST_WRITER";
/// The writer's journal: `write-ahead` (the server's), else the rollback journal (the CLI's).
const WRITER_JOURNAL_ENV: &str = "ARBITER_KILL_TEST_JOURNAL";

/// Not a test on its own: when run by `kill_9_never_loses_an_accepted_move_nor_corrupts`, this
/// process writes random moves and undoes some of them. Before each write it announces it
/// (`TRY move <text>`, `TRY undo`); after its commit it acknowledges it with the number of
/// moves then stored (`ACK move <n>`, `ACK undo <n>`).
#[test]
fn kill_test_writer() {
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        return;
    };
    let path = PathBuf::from(path);
    let journal = match std::env::var(WRITER_JOURNAL_ENV).as_deref() {
        Ok("write-ahead") => Journal::WriteAhead,
        _ => Journal::Rollback,
    };
    let mut s = if path.exists() {
        Session::load(SqliteStore::open_with(&path, journal).unwrap(), &catalogue()).unwrap()
    } else {
        let options = ts_options(Options::default());
        Session::create_with(&TWILIGHT_STRUGGLE, &options, 99, |h| SqliteStore::create_with(&path, h, journal)).unwrap()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(s.seq());
    use std::io::Write;
    let say = |line: String| {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}").unwrap();
        out.flush().unwrap();
    };
    loop {
        if s.ts().outcome().is_some() {
            say("DONE".into());
            return;
        }
        if s.undo_check().is_ok() && rng.random_range(0..4) == 0 {
            say("TRY undo".into());
            s.undo().unwrap();
            say(format!("ACK undo {}", s.seq()));
        } else {
            let m = random_move(s.ts(), &mut rng);
            say(format!("TRY move {m}"));
            let stored = s.play(&m, None).unwrap().0.move_text.clone();
            assert_eq!(stored, m, "the announced move text is the stored one");
            say(format!("ACK move {}", s.seq()));
        }
    }
}

/// A write announced by the writer and not yet acknowledged.
#[derive(Clone, Debug, PartialEq)]
enum InFlight {
    Move(String),
    Undo,
}

/// A server's file (a write-ahead log, `Journal::WriteAhead`): while it is open its latest
/// moves are in `NAME-wal` beside it, and the two together hold every acknowledged move; once
/// it is closed, the file alone does. A log left by an earlier file of the same name is never
/// folded into a new one.
#[test]
fn a_write_ahead_file_holds_every_move_with_its_log_while_open_and_alone_once_closed() {
    let dir = tmp();
    let path = dir.path().join("w.arbiter");
    let options = ts_options(Options::default());
    let mut s = Session::create_with(&TWILIGHT_STRUGGLE, &options, 7, |h| SqliteStore::create_with(&path, h, Journal::WriteAhead)).unwrap();
    // A write-ahead file (its header's format bytes 18 and 19 are 2) with nothing left beside
    // it: no journal, no temporary file (only the log and its index an open write-ahead file
    // has). That the temporary file is marked before it is linked: store/src/sqlite/mod.rs's test.
    let header = std::fs::read(&path).unwrap();
    assert_eq!(header[18..20], [2, 2], "a write-ahead file's header");
    let mut beside: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    beside.sort();
    assert_eq!(beside, ["w.arbiter", "w.arbiter-shm", "w.arbiter-wal"]);
    play_random(&mut s, &mut ChaCha8Rng::seed_from_u64(7), 30);
    let moves: Vec<String> = s.rows().iter().map(|r| r.move_text.clone()).collect();
    assert_eq!(moves.len(), 30);
    let wal = dir.path().join("w.arbiter-wal");
    assert!(wal.exists(), "the moves went through the log");
    // The file with its log, copied while the game is open (as after a crash).
    let copy = dir.path().join("copy.arbiter");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::copy(&wal, dir.path().join("copy.arbiter-wal")).unwrap();
    let reopened = Session::open(&copy, &catalogue()).unwrap();
    assert_eq!(reopened.rows().iter().map(|r| r.move_text.clone()).collect::<Vec<_>>(), moves);
    drop(reopened);
    // Closed: the log folded in and gone; the file alone holds every move.
    drop(s);
    assert!(!wal.exists(), "closing folds the log into the file");
    let alone = dir.path().join("alone.arbiter");
    std::fs::copy(&path, &alone).unwrap();
    let reopened = Session::open(&alone, &catalogue()).unwrap();
    assert_eq!(reopened.rows().iter().map(|r| r.move_text.clone()).collect::<Vec<_>>(), moves);
    // A stale log beside a name is refused, not folded into the new game.
    let create_at =
        |at: &Path| Session::create_with(&TWILIGHT_STRUGGLE, &options, 8, |h| SqliteStore::create_with(at, h, Journal::WriteAhead));
    let stale = dir.path().join("n.arbiter");
    std::fs::write(dir.path().join("n.arbiter-wal"), b"left behind").unwrap();
    let e = create_at(&stale).err().expect("refused").to_string();
    assert!(e.contains("write-ahead log") && e.contains("remove it first"), "{e}");
    assert!(!stale.exists(), "no file made");
    // Likewise a rollback journal that would be played back into it (its header not zeroed);
    // one kept between writes (zeroed) holds nothing and is no obstacle.
    let other = dir.path().join("j.arbiter");
    std::fs::write(dir.path().join("j.arbiter-journal"), b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7 hot").unwrap();
    let e = create_at(&other).err().expect("refused").to_string();
    assert!(e.contains("unfinished journal") && e.contains("remove it first"), "{e}");
    std::fs::write(dir.path().join("j.arbiter-journal"), [0u8; 28]).unwrap();
    create_at(&other).unwrap();
}

#[test]
fn kill_9_never_loses_an_accepted_move_nor_corrupts() {
    kill_9_with(Journal::Rollback);
}

/// The same with a write-ahead log (a server's files): a kill leaves the log beside the file,
/// and the next open (here with the rollback journal, as `arbiter replay` would, which folds
/// the log in) finds every acknowledged move; the writer's next round opens it in WAL mode
/// again.
#[test]
fn kill_9_never_loses_an_accepted_move_nor_corrupts_with_a_write_ahead_log() {
    kill_9_with(Journal::WriteAhead);
}

fn kill_9_with(journal: Journal) {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    let dir = tmp();
    let mut games = 0;
    let mut path = dir.path().join("k0.arbiter");
    let exe = std::env::current_exe().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut kills = 0;
    // The moves acknowledged so far in the current game, as their texts.
    let mut history: Vec<String> = Vec::new();
    let (mut moves_in_flight, mut undos_in_flight, mut applied_in_flight, mut acked_after_kill) = (0, 0, 0, 0);
    // 100 kills, each while the writer is on its next move or undo; a finished game is
    // followed by a new one.
    for round in 0.. {
        if kills == 100 {
            break;
        }
        let mut child = Command::new(&exe)
            .args(["kill_test_writer", "--exact", "--nocapture", "--test-threads=1"])
            .env(WRITER_ENV, &path)
            .env(
                WRITER_JOURNAL_ENV,
                match journal {
                    Journal::Rollback => "rollback",
                    Journal::WriteAhead => "write-ahead",
                },
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let wanted = rng.random_range(3..25);
        let mut tries = 0;
        let mut in_flight: Option<InFlight> = None;
        let mut line = String::new();
        let mut done = false;
        let mut killed = false;
        // Every line up to the end of the pipe: after the kill, lines already written are
        // still read (acknowledgements the writer managed to send before it died).
        while out.read_line(&mut line).unwrap() > 0 {
            let l = line.trim_end_matches('\n');
            // The test harness may print its own text ("test kill_test_writer ... ") before
            // the writer's first line.
            let l = ["TRY ", "ACK ", "DONE"].iter().filter_map(|k| l.find(k)).min().map_or(l, |i| &l[i..]);
            if let Some(what) = l.strip_prefix("TRY ") {
                assert_eq!(in_flight, None, "round {round}: two writes announced at once");
                in_flight = Some(match what.strip_prefix("move ") {
                    Some(m) => InFlight::Move(m.to_string()),
                    None if what == "undo" => InFlight::Undo,
                    None => panic!("round {round}: {l}"),
                });
                tries += 1;
                if tries == wanted {
                    // SIGKILL during this write: at once, or up to 8 ms into it (a write with
                    // its fsyncs takes about 3 ms here), so that kills land before, inside and
                    // after its transaction.
                    std::thread::sleep(std::time::Duration::from_micros(rng.random_range(0..8000)));
                    child.kill().unwrap();
                    killed = true;
                    kills += 1;
                }
            } else if let Some(rest) = l.strip_prefix("ACK ") {
                let (what, n) = rest.split_once(' ').unwrap();
                let n: u64 = n.parse().unwrap();
                match (what, in_flight.take()) {
                    ("move", Some(InFlight::Move(m))) => history.push(m),
                    ("undo", Some(InFlight::Undo)) => {
                        history.pop().expect("an undo with nothing to undo");
                    }
                    (w, f) => panic!("round {round}: ACK {w} after {f:?}"),
                }
                assert_eq!(n, history.len() as u64, "round {round}: the writer acknowledged {n} moves, {} expected", history.len());
                acked_after_kill += u64::from(killed);
            } else if l == "DONE" {
                done = true;
            }
            line.clear();
        }
        let status = child.wait().unwrap();
        if !killed && !done {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("round {round}: the writer stopped by itself ({status}):\n{err}");
        }
        // Reopening verifies every row. Every acknowledged write is there; the write in flight
        // when the kill came is wholly there or wholly absent.
        let s = Session::open(&path, &catalogue()).unwrap_or_else(|e| panic!("round {round}: {e}"));
        let stored: Vec<String> = s.rows().iter().map(|r| r.move_text.clone()).collect();
        let acked = history.len() as u64;
        let mut allowed = vec![history.clone()];
        match &in_flight {
            Some(InFlight::Move(m)) => {
                moves_in_flight += 1;
                allowed.push(history.iter().cloned().chain([m.clone()]).collect());
            }
            Some(InFlight::Undo) => {
                undos_in_flight += 1;
                allowed.push(history[..history.len() - 1].to_vec());
            }
            None => {}
        }
        assert_eq!(s.seq(), stored.len() as u64);
        assert!(
            allowed.contains(&stored),
            "round {round}: {} moves stored, {acked} acknowledged, in flight {in_flight:?}\nstored:       {stored:?}\nacknowledged: {history:?}",
            s.seq()
        );
        let expected_seq = match (&in_flight, stored == history) {
            (_, true) => acked,
            (Some(InFlight::Move(_)), false) => acked + 1,
            (Some(InFlight::Undo), false) => acked - 1,
            (None, false) => unreachable!("checked above"),
        };
        assert_eq!(s.seq(), expected_seq, "round {round}");
        if stored != history {
            applied_in_flight += 1;
        }
        // The file is the truth from here on: it holds the acknowledged moves, and the write
        // in flight if it committed.
        history = stored;
        if done || s.ts().outcome().is_some() {
            games += 1;
            path = dir.path().join(format!("k{games}.arbiter"));
            history.clear();
        }
    }
    eprintln!(
        "{journal:?}: 100 kills over {} game(s): {moves_in_flight} with a move in flight, {undos_in_flight} with an undo in flight, \
         {applied_in_flight} in-flight write(s) found committed, {acked_after_kill} acknowledgement(s) read after the kill",
        games + 1
    );
}

#[test]
fn a_game_from_another_rules_version_is_named_when_it_diverges() {
    let dir = tmp();
    let path = game_with_moves(dir.path(), 20);
    tamper(&path, "UPDATE game SET rules_version = 'ts-deluxe-1999.1' WHERE id = 1");
    assert_eq!(damaged_at(&path), 0, "the header is covered by the chain");
    reseal(&path);
    // Same rules in effect: it still replays cleanly.
    Session::open(&path, &catalogue()).unwrap();
    tamper(&path, "UPDATE events SET state_hash = 'ffffffffffffffff' WHERE seq = 12");
    reseal(&path);
    let e = divergence(&path).to_string();
    assert!(e.contains("the game was created under rules version ts-deluxe-1999.1"), "{e}");
    assert!(e.contains(&format!("this engine implements rules version {}", arbiter_twilight::RULES_VERSION)), "{e}");
}

/// No public log line names a card held in a hand throughout the move (a card played, then
/// reshuffled and redrawn in the same move, was public when it was named), nor announces a
/// draw. A card publicly taken into a hand (SALT Negotiations) or publicly put into one
/// (Missile Envy, given to the opponent) is exempt while it stays there.
#[test]
fn the_public_log_never_names_a_card_held_in_a_hand() {
    let dir = tmp();
    let rules = arbiter_twilight_cards::ruleset();
    for seed in 0..30u64 {
        let path = dir.path().join(format!("p{seed}.arbiter"));
        let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Cards the public log named as they entered a hand (Missile Envy given away).
        let mut announced = [arbiter_twilight::CardSet::default(); 2];
        let check = |public: &str,
                     before: &arbiter_twilight::State,
                     st: &arbiter_twilight::State,
                     what: &str,
                     random_json: &str,
                     announced: &[arbiter_twilight::CardSet; 2]| {
            // A card drawn in this move left the hand earlier in it (played, reshuffled, redrawn):
            // it was public when it was named.
            let random: Vec<arbiter_twilight::report::RandomOutcome> = serde_json::from_str(random_json).unwrap_or_default();
            let drawn: Vec<arbiter_twilight::CardId> = random
                .iter()
                .filter_map(|r| if let arbiter_twilight::report::RandomOutcome::Draw { card, .. } = r { Some(*card) } else { None })
                .collect();
            // The public deal line counts cards; only private lines name them.
            assert!(
                public.lines().all(|l| !l.contains(" draws ") || l.starts_with("Deal: ")),
                "seed {seed}, {what}: a draw in the public log:\n{public}"
            );
            // A stated reason may name cards as rules ("NATO needs Marshall Plan…"): skip it.
            // Held cards revealed at the end of a turn (§11.1.1) are public from then on.
            // (The same phrases the secrecy tests skip: `without_rule_references`, which also
            // knows "Glasnost gives no Operations: The Reformer is not in effect".)
            let public: String = public.lines().filter(|l| !l.starts_with("End of turn: the")).collect::<Vec<_>>().join("\n");
            let public = arbiter_twilight::view::without_rule_references(&public);
            for side in arbiter_twilight::Side::BOTH {
                let held = st.hand(side).iter().filter(|c| before.hand(side).contains(*c) && !drawn.contains(c));
                for c in held.filter(|c| !announced[side.idx()].contains(*c)) {
                    let name = rules.cards.name(c);
                    // Whole names only: "Asia Scoring" inside "Southeast Asia Scoring" is not it.
                    let mut text = public.clone();
                    for longer in rules.cards.all().map(|x| x.name.as_str()).filter(|n| n.len() > name.len() && n.contains(name)) {
                        text = text.replace(longer, "…");
                    }
                    assert!(!text.contains(name), "seed {seed}, {what}: the public log names {name}, held by the {side}:\n{public}");
                }
            }
        };
        check(&s.header().setup.public_log, s.ts().state(), s.ts().state(), "setup", "[]", &announced);
        while s.ts().outcome().is_none() {
            let before = s.ts().state().clone();
            let m = random_move(s.ts(), &mut rng);
            let row = s.play(&m, None).unwrap().0.clone();
            let st = s.ts().state();
            if !row.move_text.starts_with("take ") {
                check(&row.record.public_log, &before, st, &row.move_text, &row.record.random_json, &announced);
            }
            for side in arbiter_twilight::Side::BOTH {
                let i = side.idx();
                announced[i] = announced[i].iter().filter(|c| st.hand(side).contains(*c)).collect();
                // Named publicly as it entered the hand, and not drawn: a public move.
                let drawn = row.record.random_json.contains("Draw");
                for c in st.hand(side).iter().filter(|c| !before.hand(side).contains(*c)) {
                    if !drawn && row.record.public_log.contains(rules.cards.name(c)) {
                        announced[i].insert(c);
                    }
                }
            }
        }
    }
}

const CREATOR_ENV: &str = "ARBITER_KILL_TEST_CREATOR";

/// Not a test on its own: when run by `a_new_game_killed_midway_leaves_no_unreadable_file`,
/// this process creates the game file named in its environment.
#[test]
fn kill_test_creator() {
    let Some(path) = std::env::var_os(CREATOR_ENV) else {
        return;
    };
    Session::create(Path::new(&path), &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 7).unwrap();
}

/// `new` killed at any point: the file is either not there (so the next `new` needs no
/// `--force`) or a whole game that opens and replays.
#[test]
fn a_new_game_killed_midway_leaves_no_unreadable_file() {
    use std::process::{Command, Stdio};
    let dir = tmp();
    let exe = std::env::current_exe().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut absent, mut whole) = (0, 0);
    for i in 0..40 {
        let path = dir.path().join(format!("n{i}.arbiter"));
        let mut child = Command::new(&exe)
            .args(["kill_test_creator", "--exact", "--test-threads=1"])
            .env(CREATOR_ENV, &path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(rng.random_range(0..12_000)));
        let _ = child.kill();
        let _ = child.wait();
        if path.exists() {
            Session::open(&path, &catalogue()).unwrap_or_else(|e| panic!("round {i}: a killed `new` left a file that does not open: {e}"));
            whole += 1;
        } else {
            absent += 1;
            Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 1)
                .unwrap_or_else(|e| panic!("round {i}: the next `new` is refused: {e}"));
        }
    }
    // Leftover temporaries are hidden and never read as games.
    eprintln!("killed new: {absent} absent, {whole} whole");
    assert!(absent + whole == 40);
}

/// At a simultaneous step a seat may take back its own choice while the step has not resolved,
/// though other seats chose after it: its row goes, theirs stay (renumbered, recorded anew), it
/// acts again, and the file replays. Once the step resolves, it cannot.
#[test]
fn a_seat_takes_back_its_own_choice_at_a_simultaneous_step() {
    use arbiter_kernel::Seat;
    let dir = tmp();
    let path = dir.path().join("m.arbiter");
    let mut s = Session::create(&path, &arbiter_games::MAFIA, &serde_json::json!({ "seats": 5 }), 3).unwrap();
    let night: Vec<Seat> = s.game().decision().unwrap().seats().collect();
    assert_eq!(night.len(), 5, "every living player acts at night");
    let first = |s: &Session, seat: Seat| s.game().legal_moves(seat).first().cloned().unwrap();
    let last = |s: &Session, seat: Seat| s.game().legal_moves(seat).last().cloned().unwrap();
    let (a, b) = (night[0], night[1]);
    assert_eq!(s.own_choice_check(a).unwrap_err(), "you have made no move");
    let mine = first(&s, a);
    s.play(&mine, Some(a)).unwrap();
    let theirs = first(&s, b);
    s.play(&theirs, Some(b)).unwrap();
    assert!(!s.game().decision().unwrap().includes(a), "seat a has chosen");
    let removed = s.undo_own_choice(a).unwrap();
    assert_eq!((removed.seq, removed.seat, removed.move_text.as_str()), (1, a, mine.as_str()));
    assert_eq!(s.rows().len(), 1);
    assert_eq!((s.rows()[0].seq, s.rows()[0].seat, s.rows()[0].move_text.as_str()), (1, b, theirs.as_str()));
    assert!(s.game().decision().unwrap().includes(a), "seat a acts again");
    assert!(!s.game().decision().unwrap().includes(b), "seat b's choice stands");
    let reopened = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(reopened.game().state_hash(), s.game().state_hash(), "the file replays to the same game");
    assert_eq!(reopened.rows(), s.rows());
    // Another choice, then the night resolves: no choice of it can be taken back.
    let other = last(&s, a);
    s.play(&other, Some(a)).unwrap();
    for seat in &night[2..] {
        let m = first(&s, *seat);
        s.play(&m, Some(*seat)).unwrap();
    }
    let why = s.own_choice_check(a).unwrap_err();
    assert!(why.contains("revealed") || why.contains("is over"), "{why}");
    let e = s.undo_own_choice(a).unwrap_err().to_string();
    assert!(e.starts_with("cannot undo"), "{e}");
}

/// Twilight Struggle's headlines are such a step: the US takes back the headline it chose while
/// the USSR chooses, and chooses again.
#[test]
fn the_us_takes_back_its_headline_chosen_at_the_same_time() {
    let dir = tmp();
    let r = arbiter_twilight::playout::random_until(&arbiter_twilight_cards::ruleset(), Options::default(), 0..400, |g| {
        g.acting().contains(&arbiter_twilight::Side::Us) && g.to_move() == Some(arbiter_twilight::Side::Ussr)
    })
    .expect("a headline phase");
    let path = dir.path().join("h.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), r.seed).unwrap();
    for (side, m) in &r.moves {
        s.play(m, Some(seat(*side))).unwrap();
    }
    let us = seat(arbiter_twilight::Side::Us);
    let headlines = s.game().legal_moves(us);
    s.play(&headlines[0], Some(us)).unwrap();
    assert!(s.game().legal_moves(us).is_empty());
    assert!(s.undo_check().is_err(), "not the US's decision: the ordinary undo is the USSR's");
    s.undo_own_choice(us).unwrap();
    assert_eq!(s.rows().len(), r.moves.len());
    assert_eq!(s.game().legal_moves(us), headlines, "the US chooses again");
    s.play(headlines.last().unwrap(), Some(us)).unwrap();
    let reopened = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(reopened.game().state_hash(), s.game().state_hash());
}

/// Whole games of Diplomacy played by agents (random powers, and the computer in some seats)
/// are saved move by move and replay from their files: every row's state verified, the same
/// game at the end, its outcome for all seven.
#[test]
fn diplomacy_games_played_by_agents_replay_from_their_files() {
    use arbiter_kernel::search::{Agent, Plan};
    let dir = tmp();
    for (seed, computer) in [(1u64, vec![]), (2, vec![2u8, 5])] {
        let path = dir.path().join(format!("d{seed}.arbiter"));
        let mut s = Session::create(&path, &arbiter_games::DIPLOMACY, &serde_json::json!({ "last_year": 1902 }), seed).unwrap();
        let mut n = 0u64;
        while let Some(d) = s.game().decision() {
            let seat = d.first().seat;
            let agent =
                if computer.contains(&seat.0) { Agent::Computer(arbiter_kernel::search::Level::new(1).unwrap()) } else { Agent::Random };
            let m = s.game().computer().agent_move(seat, &Plan::new(agent, seed * 1000 + n), &|_| {}).unwrap();
            s.play(&m, Some(seat)).unwrap();
            n += 1;
        }
        let outcome = s.game().outcome().expect("the game ends at its last year or a win");
        assert_eq!(outcome.results.len(), 7);
        let reopened = Session::open(&path, &catalogue()).unwrap();
        assert_eq!(reopened.game().state_hash(), s.game().state_hash(), "seed {seed}: the file replays to the same game");
        assert_eq!(reopened.rows(), s.rows());
        assert_eq!(reopened.game().outcome(), Some(outcome));
        assert!(n > 30, "{n} moves");
    }
}
