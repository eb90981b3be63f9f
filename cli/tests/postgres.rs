//! `arbiter export` and `arbiter import` against a real PostgreSQL (`arbiter-pgtest`): a game
//! moves between a SQLite file and the database with every row as it was, and replays
//! identically. Without PostgreSQL the test prints the skip line and passes;
//! `ARBITER_REQUIRE_POSTGRES=1` (`.ci/run`) makes that a failure.

use arbiter_games::{catalogue, TWILIGHT_STRUGGLE};
use arbiter_store::{PgDatabase, Session, SqliteStore};
use assert_cmd::cargo::cargo_bin;
use pretty_assertions::assert_eq;
use std::path::Path;
use std::process::{Command, Output};

fn arbiter(args: &[&str]) -> Output {
    Command::new(cargo_bin("arbiter")).args(args).env("NO_COLOR", "1").output().expect("run arbiter")
}

fn ok(args: &[&str]) -> String {
    let out = arbiter(args);
    assert!(out.status.success(), "arbiter {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The exit code and standard error of a command that must fail.
fn fails(args: &[&str]) -> (i32, String) {
    let out = arbiter(args);
    assert!(!out.status.success(), "arbiter {args:?} succeeded: {}", String::from_utf8_lossy(&out.stdout));
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every value of every row of `table`, as text (the columns as SQLite stores them).
fn table(path: &Path, table: &str, order: &str) -> Vec<Vec<String>> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut q = c.prepare(&format!("SELECT * FROM {table} ORDER BY {order}")).unwrap();
    let n = q.column_count();
    q.query_map([], |r| {
        (0..n)
            .map(|i| {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => format!("i{v}"),
                    rusqlite::types::ValueRef::Real(v) => format!("r{v}"),
                    rusqlite::types::ValueRef::Text(t) => format!("t{}", String::from_utf8_lossy(t)),
                    rusqlite::types::ValueRef::Blob(b) => format!("b{b:?}"),
                })
            })
            .collect()
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn a_game_moves_to_postgres_and_back_with_every_row_as_it_was() {
    let Some(pg) = arbiter_pgtest::shared() else { return };
    let url = pg.new_database("transfer");
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("g.arbiter");

    // A game played into SQLite: moves chosen among the legal ones, chat, seats beside it (as an
    // earlier server kept them).
    let mut s = Session::create(&original, &TWILIGHT_STRUGGLE, &serde_json::json!({}), 21).unwrap();
    let mut k = 7usize;
    for _ in 0..60 {
        if s.game().decision().is_none() {
            break;
        }
        let moves = s.game().first_moves();
        k = (k * 31 + 17) % 1009;
        let m = moves[k % moves.len()].clone();
        s.play(&m, None).unwrap();
    }
    let moves = s.seq();
    assert!(moves >= 40, "{moves}");
    s.store().add_chat("us", "all", "good luck").unwrap();
    s.store().add_chat("ussr", "ussr", "a note to self").unwrap();
    drop(s);
    let seats = r#"{"us":{"token_sha256":"ab"},"ussr":null}"#;
    std::fs::write(dir.path().join("g.seats.json"), seats).unwrap();

    let f = original.to_str().unwrap();
    let said = ok(&["import", f, "--store", &url]);
    assert!(said.starts_with(&format!("Imported {f} as game g: {moves} move(s), 2 chat message(s), and its seats; chain ")), "{said}");
    let db = PgDatabase::connect(&url).unwrap();
    assert_eq!(db.game_ids().unwrap(), ["g"]);
    assert_eq!(db.doc("g", "seats").unwrap().as_deref(), Some(seats));

    let copy = dir.path().join("copy.arbiter");
    let c = copy.to_str().unwrap();
    let said = ok(&["export", "g", "--store", &url, c]);
    assert!(said.contains(&format!("{moves} move(s), 2 chat message(s), and its seats; chain ")), "{said}");
    // Every row as it was: times, logs, random outcomes, chain; the header and the chat too.
    assert_eq!(table(&copy, "game", "id"), table(&original, "game", "id"));
    assert_eq!(table(&copy, "events", "seq"), table(&original, "events", "seq"));
    assert_eq!(table(&copy, "chat", "id"), table(&original, "chat", "id"));
    // The seats go into the copy, as its document (as a server keeps them now), not beside it.
    assert_eq!(SqliteStore::open_read_only(&copy).unwrap().doc("seats").unwrap().as_deref(), Some(seats));
    assert!(!dir.path().join("copy.seats.json").exists());
    // Both replay and verify identically.
    let a = ok(&["replay", f]);
    assert!(a.contains(&format!("Replayed and verified {moves} of {moves} moves.")), "{a}");
    assert_eq!(ok(&["replay", c]), a);
    let pg_game = Session::load(db.open_game("g").unwrap(), &catalogue()).unwrap();
    let file_game = Session::open_read_only(&original, &catalogue()).unwrap();
    assert_eq!(pg_game.rows(), file_game.rows());
    assert_eq!(pg_game.game().state_hash(), file_game.game().state_hash());

    // An id the store holds is refused, and changes nothing; another id is taken.
    let (code, e) = fails(&["import", f, "--store", &url]);
    assert_eq!((code, e.trim()), (1, "arbiter: game g already exists"));
    ok(&["import", f, "--store", &url, "--id", "g2"]);
    assert_eq!(db.game_ids().unwrap(), ["g", "g2"]);
    // A file holding its seats as its document: imported with them.
    let said = ok(&["import", c, "--store", &url, "--id", "g3"]);
    assert!(said.contains("2 chat message(s), and its seats; chain "), "{said}");
    assert_eq!(db.doc("g3", "seats").unwrap().as_deref(), Some(seats));
    // Export refuses an existing file, and a game the store lacks.
    let (_, e) = fails(&["export", "g", "--store", &url, c]);
    assert!(e.contains("already exists: nothing was exported"), "{e}");
    let (_, e) = fails(&["export", "nope", "--store", &url, dir.path().join("n.arbiter").to_str().unwrap()]);
    assert_eq!(e.trim(), "arbiter: game nope: no such saved game");
    assert!(!dir.path().join("n.arbiter").exists());

    // A damaged file is refused on import, before anything is written.
    let damaged = dir.path().join("d.arbiter");
    std::fs::copy(&original, &damaged).unwrap();
    rusqlite::Connection::open(&damaged).unwrap().execute("UPDATE events SET public_log = 'edited' WHERE seq = 9", []).unwrap();
    let (code, e) = fails(&["import", damaged.to_str().unwrap(), "--store", &url]);
    assert_eq!(code, 1);
    assert!(e.contains("is damaged at move 9"), "{e}");
    assert_eq!(db.game_ids().unwrap(), ["g", "g2", "g3"]);
    // An unreachable store is said plainly.
    let (_, e) = fails(&["import", f, "--store", "postgres://arbiter@127.0.0.1:1/x", "--id", "g3"]);
    assert_eq!(e.trim(), "arbiter: PostgreSQL database x at 127.0.0.1:1: the database cannot be reached (to connect)");
}
