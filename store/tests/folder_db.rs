//! A data folder's games in one database ([`FolderDatabase`]): the same record as a game file
//! (its chain values equal), written through one writer thread (group commit, a savepoint per
//! write), held by one process, durable once a write returns (a child process killed with
//! SIGKILL loses no acknowledged move), exported to a game file and imported back.

use arbiter_games::{catalogue, MINESWEEPER};
use arbiter_kernel::Seat;
use arbiter_store::{
    chain, AnyStore, ChatMessage, EventRow, EventStore, FolderDatabase, FolderStore, GameHeader, Record, RedoLog, Session, SqliteStore,
    StoreError, FOLDER_SCHEMA_VERSION,
};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

fn options() -> serde_json::Value {
    json!({"width": 20, "height": 20, "mines": 40})
}

const SEATS: (&str, &str) = ("seats", r#"{"seats":[{"token":"0123"}]}"#);

fn new_game(db: &FolderDatabase, id: &str, seed: u64) -> Session<FolderStore> {
    Session::create_with(&MINESWEEPER, &options(), seed, |h| db.create_game(id, h, &[SEATS])).unwrap()
}

fn load(db: &FolderDatabase, id: &str) -> Session<FolderStore> {
    Session::load(db.open_game(id).unwrap(), &catalogue()).unwrap_or_else(|e| panic!("game {id}: {e}"))
}

/// A small deterministic choice (xorshift).
fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
}

/// A legal move of `s`'s game (an open one in eight, so that the game lasts), if it is under
/// way.
fn next_move<S: EventStore>(s: &Session<S>, state: &mut u64, i: usize) -> Option<String> {
    s.game().decision()?;
    let all = s.game().first_moves();
    let quiet: Vec<String> = all.iter().filter(|m| !m.starts_with("open")).cloned().collect();
    let moves = if i % 8 == 3 || quiet.is_empty() { all } else { quiet };
    Some(moves[pick(state, moves.len())].clone())
}

/// Up to `n` moves of `s` chosen by `seed`; how many were played.
fn play<S: EventStore>(s: &mut Session<S>, n: usize, seed: u64) -> usize {
    let mut state = seed | 1;
    for i in 0..n {
        let Some(m) = next_move(s, &mut state, i) else { return i };
        s.play(&m, None).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    n
}

/// A header of one seat ("player") made at `created_at` (store-level tests: never replayed).
fn header(created_at: &str) -> GameHeader {
    GameHeader {
        game: Some("minesweeper".into()),
        created_at: created_at.into(),
        engine_version: "0".into(),
        rules_version: "0".into(),
        seed: u64::MAX - 3,
        options: r#"{"width":9}"#.into(),
        seats: vec!["player".into()],
        setup: Record {
            public_log: "dealt".into(),
            seat_logs: vec![String::new()],
            random_json: "[]".into(),
            reveals: false,
            state_hash: "0".repeat(16),
        },
    }
}

fn row(seq: u64, text: &str) -> EventRow {
    EventRow {
        seq,
        at: format!("2026-12-03T00:00:{:02}.000Z", seq % 60),
        seat: Seat(0),
        move_text: text.into(),
        move_json: format!("{{\"m\":{text:?}}}"),
        record: Record {
            public_log: format!("played {text}"),
            seat_logs: vec![format!("@0\tsecret {seq}")],
            random_json: "[]".into(),
            reveals: false,
            state_hash: format!("{seq:016x}"),
        },
    }
}

/// A game file at `path` holding `header` and `rows` as they are: its head.
fn file_head(path: &Path, header: &GameHeader, rows: &[EventRow]) -> (u64, String) {
    let mut file = SqliteStore::create(path, header).unwrap();
    file.lock().unwrap();
    for r in rows {
        file.append(r).unwrap();
    }
    file.commit().unwrap();
    file.head().unwrap()
}

fn folder() -> (tempfile::TempDir, FolderDatabase) {
    let dir = tempfile::tempdir().unwrap();
    let db = FolderDatabase::open(dir.path()).unwrap();
    (dir, db)
}

/// Moves and undos played on a new game, the game reopened (from its store, then from the
/// database opened again): the same moves, and the same chain as a game file holding the same
/// rows.
#[test]
fn a_game_is_played_undone_and_reopened_with_the_file_store_s_chain() {
    let scripts: [(&[&str], u64); 4] = [
        (&[], 0),
        (&["flag a1", "flag b2", "unflag a1"], 3),
        (&["flag a1", "flag b2", "undo", "flag c3", "undo", "undo"], 0),
        (&["flag a1", "open e5", "flag c3", "undo", "flag d4", "unflag a1"], 4),
    ];
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let mut expected = Vec::new();
    {
        let db = FolderDatabase::open(&data).unwrap();
        for (i, (script, seq)) in scripts.iter().enumerate() {
            let id = format!("g{i}");
            let mut s = new_game(&db, &id, 5);
            for m in *script {
                match *m {
                    "undo" => drop(s.undo().unwrap()),
                    m => drop(s.play(m, None).unwrap()),
                }
            }
            assert_eq!(s.seq(), *seq, "{script:?}");
            let again = load(&db, &id);
            assert_eq!((again.seq(), again.rows()), (s.seq(), s.rows()), "{script:?}");
            assert_eq!(again.game().state_hash(), s.game().state_hash(), "{script:?}");
            let head = s.store().head().unwrap();
            assert_eq!(head, chain::head(s.header(), s.rows()), "{script:?}");
            let file = dir.path().join(format!("{id}.arbiter"));
            assert_eq!(file_head(&file, s.header(), s.rows()), head, "{script:?}: the file store's chain");
            expected.push((id, s.rows().to_vec(), head, s.game().state_hash()));
        }
    }
    let db = FolderDatabase::open(&data).unwrap();
    assert_eq!(db.game_ids().unwrap().len(), scripts.len());
    for (id, rows, head, hash) in expected {
        let s = load(&db, &id);
        assert_eq!((s.rows(), s.store().head().unwrap(), s.game().state_hash()), (rows.as_slice(), head, hash), "{id}");
    }
}

/// A game file's rows imported give the file's head; the database's rows written into a file
/// give the database's.
#[test]
fn the_same_rows_give_the_same_chain_in_every_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut on_file = Session::create(&dir.path().join("m.arbiter"), &MINESWEEPER, &options(), 9).unwrap();
    let played = play(&mut on_file, 30, 3);
    assert!(played > 5, "{played} moves");
    let (db_dir, db) = folder();
    let imported = db.import_game("m", on_file.header(), on_file.rows()).unwrap();
    assert_eq!(imported.head().unwrap(), on_file.store().head().unwrap());
    assert_eq!(imported.rows().unwrap(), on_file.rows());
    assert_eq!(imported.header().unwrap(), *on_file.header());
    let mut on_db = new_game(&db, "n", 11);
    play(&mut on_db, 25, 8);
    let head = file_head(&db_dir.path().join("n.arbiter"), on_db.header(), on_db.rows());
    assert_eq!(head, on_db.store().head().unwrap());
}

/// A game played through a `Session` (judged, stored, durable at each move) replays to the
/// same game after the database is opened again, through `AnyStore` too.
#[test]
fn a_session_replays_identically_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, deciding, hash, view, log) = {
        let db = FolderDatabase::open(dir.path()).unwrap();
        let mut s = new_game(&db, "m", 21);
        let played = play(&mut s, 60, 21);
        assert!(played > 8, "{played} moves");
        let log: Vec<String> = arbiter_store::log_for(s.header(), s.rows(), Some(Seat(0)), s.game()).into_iter().map(|e| e.text).collect();
        (s.rows().to_vec(), s.acting().to_vec(), s.game().state_hash(), s.game().view(Some(Seat(0))), log)
    };
    let db = FolderDatabase::open(dir.path()).unwrap();
    let s = load(&db, "m");
    assert_eq!(s.rows(), rows.as_slice());
    assert_eq!(s.acting(), deciding.as_slice());
    assert_eq!(s.game().state_hash(), hash);
    assert_eq!(s.game().view(Some(Seat(0))), view);
    let again: Vec<String> = arbiter_store::log_for(s.header(), s.rows(), Some(Seat(0)), s.game()).into_iter().map(|e| e.text).collect();
    assert_eq!(again, log);
    drop(s);
    let mut any = Session::load(AnyStore::Folder(db.open_game("m").unwrap()), &catalogue()).unwrap();
    assert_eq!(any.game().state_hash(), hash);
    assert!(!any.store().is_read_only());
    if any.game().decision().is_some() {
        let m = any.game().first_moves().into_iter().next().unwrap();
        any.play(&m, None).unwrap();
        assert_eq!(load(&db, "m").seq(), rows.len() as u64 + 1);
    }
    assert_eq!(any.store().doc("seats").unwrap().as_deref(), Some(SEATS.1));
}

/// The store's writes as the other stores make them: under the lock only, in sequence, kept
/// until the commit (seen by this store's reads meanwhile), dropped by a rollback.
#[test]
fn writes_are_kept_under_the_lock_until_the_commit() {
    let (_dir, db) = folder();
    let h = header("2026-12-03T00:00:00.000Z");
    let mut s = db.create_game("g", &h, &[]).unwrap();
    type Write = fn(&mut FolderStore) -> Result<(), StoreError>;
    let refused: [(&str, Write, &str); 6] = [
        ("append outside the lock", |s| s.append(&row(1, "a")), "outside the write lock"),
        ("commit without the lock", |s| s.commit(), "without the write lock"),
        ("truncate outside the lock", |s| s.truncate_after(0), "outside the write lock"),
        ("the lock taken twice", |s| s.lock().and_then(|()| s.lock()), "twice"),
        ("a move out of sequence", |s| s.lock().and_then(|()| s.append(&row(2, "b"))), "out of sequence"),
        ("a seat the game lacks", |s| s.lock().and_then(|()| s.append(&EventRow { seat: Seat(1), ..row(1, "a") })), "no seat 1"),
    ];
    for (what, write, says) in refused {
        let e = write(&mut s).expect_err(what).to_string();
        assert!(e.contains(says), "{what}: {e}");
        s.rollback();
        assert_eq!(s.head().unwrap(), chain::head(&h, &[]), "{what}");
    }
    let rows: Vec<EventRow> = (1..=4).map(|n| row(n, &format!("m{n}"))).collect();
    s.lock().unwrap();
    for r in &rows {
        s.append(r).unwrap();
    }
    assert_eq!(s.head().unwrap(), chain::head(&h, &rows), "the head under the lock");
    assert_eq!(s.rows().unwrap(), rows, "this store reads its kept writes");
    assert_eq!(db.open_game("g").unwrap().rows().unwrap(), [], "another store reads what is stored");
    s.rollback();
    assert_eq!(s.rows().unwrap(), []);
    // Appends, an undo into them and an undo into what is stored, in one write.
    s.lock().unwrap();
    s.append(&rows[0]).unwrap();
    s.append(&rows[1]).unwrap();
    s.commit().unwrap();
    s.lock().unwrap();
    s.append(&rows[2]).unwrap();
    s.append(&rows[3]).unwrap();
    s.truncate_after(3).unwrap();
    assert_eq!(s.head().unwrap(), chain::head(&h, &rows[..3]));
    s.truncate_after(1).unwrap();
    let other = row(2, "other");
    s.append(&other).unwrap();
    assert!(s.truncate_after(3).unwrap_err().to_string().contains("no such move"));
    s.commit().unwrap();
    let stored = vec![rows[0].clone(), other];
    assert_eq!(db.open_game("g").unwrap().rows_and_head().unwrap(), (stored.clone(), chain::head(&h, &stored)));
    s.lock().unwrap();
    s.truncate_after(0).unwrap();
    s.commit().unwrap();
    assert_eq!(db.open_game("g").unwrap().rows_and_head().unwrap(), (vec![], chain::head(&h, &[])));
}

/// Many threads, each writing its own game at once: every acknowledged move is stored, as it
/// was acknowledged, and the writes shared commits.
#[test]
fn many_threads_write_different_games_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let games: Vec<(String, Vec<EventRow>)> = {
        let db = FolderDatabase::open(dir.path()).unwrap();
        let before = db.commits();
        let games = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..16u64)
                .map(|t| {
                    let db = &db;
                    scope.spawn(move || {
                        let id = format!("t{t}");
                        let mut s = new_game(db, &id, t + 100);
                        play(&mut s, 30, t + 1);
                        (id, s.rows().to_vec())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
        });
        let writes = games.iter().map(|(_, rows)| rows.len() as u64 + 1).sum::<u64>();
        let commits = db.commits() - before;
        assert!(commits >= 1 && commits <= writes, "{commits} commits for {writes} writes");
        games
    };
    let db = FolderDatabase::open(dir.path()).unwrap();
    let mut ids = db.game_ids().unwrap();
    ids.sort();
    let mut expected: Vec<String> = games.iter().map(|(id, _)| id.clone()).collect();
    expected.sort();
    assert_eq!(ids, expected);
    for (id, rows) in games {
        assert!(!rows.is_empty(), "{id}");
        assert_eq!(load(&db, &id).rows(), rows.as_slice(), "{id}");
    }
}

/// Two writers of one game: the second waits for the first's lock and then sees its move; two
/// sessions of one game on two threads store every move they were told was stored, in order.
#[test]
fn two_writers_of_one_game_take_turns() {
    let (_dir, db) = folder();
    let h = header("2026-12-03T00:00:00.000Z");
    let mut first = db.create_game("g", &h, &[]).unwrap();
    let mut second = db.open_game("g").unwrap();
    first.lock().unwrap();
    let (told, heads) = std::sync::mpsc::channel();
    let waiting = std::thread::spawn(move || {
        second.lock().unwrap();
        told.send(second.head().unwrap()).unwrap();
        second.append(&row(2, "second")).unwrap();
        second.commit().unwrap();
    });
    std::thread::sleep(Duration::from_millis(100));
    assert!(heads.try_recv().is_err(), "the second writer took the lock the first holds");
    first.append(&row(1, "first")).unwrap();
    first.commit().unwrap();
    let seen = heads.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(seen, chain::head(&h, &[row(1, "first")]), "the second writer sees the first's move");
    waiting.join().unwrap();
    assert_eq!(db.open_game("g").unwrap().rows().unwrap(), [row(1, "first"), row(2, "second")]);

    drop(new_game(&db, "m", 3));
    let played: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let db = &db;
                scope.spawn(move || {
                    let mut s = load(db, "m");
                    let mut state = t + 7;
                    let mut stored = 0;
                    for i in 0..25 {
                        // Chosen from a copy the other thread may have moved since: judged
                        // again under the lock, against the latest.
                        let _ = i;
                        let quiet: Vec<String> = s.game().first_moves().into_iter().filter(|m| !m.starts_with("open")).collect();
                        let m = quiet[pick(&mut state, quiet.len())].clone();
                        if s.play(&m, None).is_ok() {
                            stored += 1;
                        }
                    }
                    stored
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let s = load(&db, "m");
    assert_eq!(s.seq() as usize, played.iter().sum::<usize>(), "{played:?}");
    assert!(played.iter().all(|&n| n > 0), "{played:?}");
}

/// Wait until `n` writes are queued behind the held writer.
fn until_queued(db: &FolderDatabase, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while db.fault_queued() < n {
        assert!(Instant::now() < deadline, "{} writes queued, not {n}", db.fault_queued());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A locked store of game `id` with move `seq` appended (text `text`), ready to commit.
fn ready(db: &FolderDatabase, id: &str, seq: u64, text: &str) -> FolderStore {
    let mut s = db.open_game(id).unwrap();
    s.lock().unwrap();
    s.append(&row(seq, text)).unwrap();
    s
}

/// Writes queued while the writer is busy are committed together: one transaction, one sync.
#[test]
fn writes_queued_together_share_one_commit() {
    let (_dir, db) = folder();
    for g in 0..8 {
        db.create_game(&format!("g{g}"), &header("2026-12-03T00:00:00.000Z"), &[]).unwrap();
    }
    let stores: Vec<FolderStore> = (0..8).map(|g| ready(&db, &format!("g{g}"), 1, "a")).collect();
    let hold = db.fault_hold_writer().unwrap();
    let before = db.commits();
    std::thread::scope(|scope| {
        let handles: Vec<_> = stores.into_iter().map(|mut s| scope.spawn(move || s.commit())).collect();
        until_queued(&db, 8);
        drop(hold);
        for h in handles {
            h.join().unwrap().unwrap();
        }
    });
    assert_eq!(db.commits() - before, 1, "eight writes, one commit");
    for g in 0..8 {
        assert_eq!(db.open_game(&format!("g{g}")).unwrap().rows().unwrap(), [row(1, "a")]);
    }
}

/// Two writers of one game that skipped its lock, in one batch: the writer checks each write
/// against the stored head, so the second fails alone (its savepoint rolled back) and the
/// batch's other writes are stored.
#[test]
fn a_write_refused_by_the_stored_head_fails_alone_in_its_batch() {
    let (_dir, db) = folder();
    db.fault_skip_game_lock();
    let h = header("2026-12-03T00:00:00.000Z");
    db.create_game("g", &h, &[]).unwrap();
    db.create_game("other", &h, &[]).unwrap();
    let stores = vec![ready(&db, "g", 1, "first"), ready(&db, "g", 1, "second"), ready(&db, "other", 1, "o")];
    let hold = db.fault_hold_writer().unwrap();
    let before = db.commits();
    let outcomes: Vec<Result<(), StoreError>> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (i, mut s) in stores.into_iter().enumerate() {
            handles.push(scope.spawn(move || s.commit()));
            // In this order in the queue.
            until_queued(&db, i + 1);
        }
        drop(hold);
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(db.commits() - before, 1);
    assert!(outcomes[0].is_ok(), "{:?}", outcomes[0]);
    assert!(matches!(outcomes[1], Err(StoreError::Conflict { seq: 1, .. })), "{:?}", outcomes[1]);
    assert!(outcomes[2].is_ok(), "{:?}", outcomes[2]);
    assert_eq!(db.open_game("g").unwrap().rows().unwrap(), [row(1, "first")]);
    assert_eq!(db.open_game("other").unwrap().rows().unwrap(), [row(1, "o")]);
}

/// A commit that fails (as a full disk fails it) fails every write of its batch, and none of
/// them is visible: not a move, a creation, a document or a chat message. The next commit
/// goes through.
#[test]
fn a_failed_commit_fails_every_write_in_it_and_stores_none() {
    let (_dir, db) = folder();
    let h = header("2026-12-03T00:00:00.000Z");
    for g in 0..4 {
        db.create_game(&format!("g{g}"), &h, &[("d", "1")]).unwrap();
    }
    let stores: Vec<FolderStore> = (0..4).map(|g| ready(&db, &format!("g{g}"), 1, "a")).collect();
    let hold = db.fault_hold_writer().unwrap();
    db.fault_fail_next_commit();
    let outcomes: Vec<Result<(), StoreError>> = std::thread::scope(|scope| {
        let db = &db;
        let h = &h;
        let mut handles: Vec<_> = stores.into_iter().map(|mut s| scope.spawn(move || s.commit())).collect();
        handles.push(scope.spawn(move || db.create_game("new", h, &[]).map(drop)));
        handles.push(scope.spawn(move || db.put_doc("g0", "d", "2")));
        handles.push(scope.spawn(move || db.add_chat("g1", "a", "all", "hello").map(drop)));
        until_queued(db, 7);
        drop(hold);
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, o) in outcomes.iter().enumerate() {
        let e = o.as_ref().expect_err("a write of the failed batch").to_string();
        assert!(e.contains("not stored") && e.contains("transaction holding it failed"), "write {i}: {e}");
    }
    for g in 0..4 {
        let s = db.open_game(&format!("g{g}")).unwrap();
        assert_eq!(s.rows_and_head().unwrap(), (vec![], chain::head(&h, &[])), "g{g}");
    }
    assert!(matches!(db.open_game("new"), Err(StoreError::NoSuchGame(_))));
    assert_eq!(db.doc("g0", "d").unwrap().as_deref(), Some("1"));
    assert_eq!(db.chat_len("g1").unwrap(), 0);
    let mut s = ready(&db, "g0", 1, "again");
    s.commit().unwrap();
    assert_eq!(db.open_game("g0").unwrap().rows().unwrap(), [row(1, "again")]);
}

/// The host's documents: written with the game's creation or later, replaced whole, read by
/// game or for every game at once (the oldest game first); no part of the record.
#[test]
fn documents_are_kept_per_game_and_replaced_whole() {
    let (_dir, db) = folder();
    let (late, early) = (header("2026-12-03T00:00:02.000Z"), header("2026-12-03T00:00:01.000Z"));
    let a = db.create_game("a", &late, &[("seats", "[1]"), ("listing", r#"{"a":1}"#)]).unwrap();
    let b = db.create_game("b", &early, &[("seats", "[2]")]).unwrap();
    assert_eq!(db.game_ids().unwrap(), ["b", "a"], "the oldest first");
    assert_eq!(db.docs("seats").unwrap(), [("b".to_string(), "[2]".to_string()), ("a".to_string(), "[1]".to_string())]);
    assert_eq!(db.docs("listing").unwrap(), [("a".to_string(), r#"{"a":1}"#.to_string())]);
    assert_eq!(db.docs("none").unwrap(), []);
    a.put_doc("seats", "[3]").unwrap();
    b.put_doc("new", "{}").unwrap();
    assert_eq!((a.doc("seats").unwrap(), a.doc("new").unwrap()), (Some("[3]".into()), None));
    assert_eq!(db.doc("b", "new").unwrap().as_deref(), Some("{}"));
    assert!(matches!(db.put_doc("nobody", "seats", "[]"), Err(StoreError::NoSuchGame(_))));
    assert_eq!(db.doc("nobody", "seats").unwrap(), None);
    let mut locked = db.open_game("a").unwrap();
    locked.lock().unwrap();
    let e = locked.put_doc("seats", "[4]").unwrap_err().to_string();
    assert!(e.contains("inside a move's write"), "{e}");
    locked.rollback();
    assert_eq!(a.doc("seats").unwrap().as_deref(), Some("[3]"));
    assert_eq!(a.rows_and_head().unwrap(), (vec![], chain::head(&late, &[])), "the record as it was");
}

/// A game's chat: numbered per game in the order stored, restored as it was, never inside a
/// move's write, untouched by undo.
#[test]
fn chat_is_numbered_per_game_and_kept_outside_the_record() {
    let (_dir, db) = folder();
    let mut s = new_game(&db, "a", 1);
    let other = new_game(&db, "b", 2);
    assert_eq!(s.store().chat().unwrap(), []);
    s.play("flag a1", None).unwrap();
    let first = s.store().add_chat("player", "all", "hello <b>there</b>").unwrap();
    let second = s.store().add_chat("observer", "all", "hi").unwrap();
    let elsewhere = other.store().add_chat("player", "all", "elsewhere").unwrap();
    assert_eq!((first.id, second.id, elsewhere.id), (1, 2, 1));
    s.undo().unwrap();
    assert_eq!(load(&db, "a").store().chat().unwrap(), [first.clone(), second.clone()]);
    assert_eq!((db.chat_len("a").unwrap(), db.chat_len("b").unwrap()), (2, 1));
    let restored = vec![ChatMessage { id: 7, at: "2026-01-01T00:00:00.000Z".into(), from: "x".into(), to: "y".into(), text: "old".into() }];
    db.create_game("c", &header("2026-12-03T00:00:00.000Z"), &[]).unwrap();
    db.restore_chat("c", &restored).unwrap();
    assert_eq!(db.chat("c").unwrap(), restored);
    assert_eq!(db.add_chat("c", "p", "all", "next").unwrap().id, 8);
    let twice = [ChatMessage { id: 9, ..restored[0].clone() }, restored[0].clone()];
    assert!(db.restore_chat("c", &twice).is_err(), "number 7 is taken");
    assert_eq!(db.chat_len("c").unwrap(), 2, "nothing of a refused restore");
    assert!(matches!(db.add_chat("nobody", "p", "all", "x"), Err(StoreError::NoSuchGame(_))));
    let mut locked = db.open_game("b").unwrap();
    locked.lock().unwrap();
    assert!(locked.add_chat("p", "all", "x").unwrap_err().to_string().contains("inside a move's write"));
}

/// A deleted game is gone with its moves, chat and documents; its id can be used again.
#[test]
fn a_deleted_game_is_gone_with_its_chat_and_documents() {
    let (_dir, db) = folder();
    let mut a = new_game(&db, "a", 1);
    a.play("flag a1", None).unwrap();
    a.store().add_chat("p", "all", "x").unwrap();
    drop(a);
    drop(new_game(&db, "b", 2));
    db.delete_game("a").unwrap();
    assert_eq!(db.game_ids().unwrap(), ["b"]);
    assert!(matches!(db.open_game("a"), Err(StoreError::NoSuchGame(_))));
    assert_eq!((db.doc("a", "seats").unwrap(), db.chat_len("a").unwrap()), (None, 0));
    assert!(matches!(db.delete_game("a"), Err(StoreError::NoSuchGame(_))));
    let again = new_game(&db, "a", 3);
    assert_eq!((again.seq(), again.store().chat_len().unwrap()), (0, 0));
    assert_eq!(load(&db, "b").store().doc("seats").unwrap().as_deref(), Some(SEATS.1));
}

/// Ids as the PostgreSQL store takes them: 1 to 200 bytes, no control characters.
#[test]
fn ids_the_store_cannot_hold_are_refused() {
    let (_dir, db) = folder();
    let h = header("2026-12-03T00:00:00.000Z");
    for id in ["", "a\nb", "nul\0", &"x".repeat(201)] {
        let calls: [(&str, Result<(), StoreError>); 7] = [
            ("create", db.create_game(id, &h, &[]).map(drop)),
            ("import", db.import_game(id, &h, &[]).map(drop)),
            ("open", db.open_game(id).map(drop)),
            ("delete", db.delete_game(id)),
            ("put_doc", db.put_doc(id, "d", "{}")),
            ("add_chat", db.add_chat(id, "a", "b", "c").map(drop)),
            ("chat", db.chat(id).map(drop)),
        ];
        for (call, outcome) in calls {
            assert!(matches!(outcome, Err(StoreError::BadId(_))), "{call} {id:?}: {outcome:?}");
        }
    }
    assert_eq!(db.game_ids().unwrap(), Vec::<String>::new());
    db.create_game(&"x".repeat(200), &h, &[]).unwrap();
    db.create_game("ünïcødé game 1", &h, &[]).unwrap();
}

/// An import takes a whole game or nothing: rows out of sequence or that a read would refuse
/// store nothing; a taken id is refused.
#[test]
fn an_import_stores_a_whole_game_or_nothing() {
    let (_dir, db) = folder();
    let h = header("2026-12-03T00:00:00.000Z");
    let rows: Vec<EventRow> = (1..=3).map(|n| row(n, "m")).collect();
    let mut no_logs = row(2, "m");
    no_logs.record.seat_logs.clear();
    let bad: [(&str, Vec<EventRow>, &str); 3] = [
        ("a gap", vec![rows[0].clone(), rows[2].clone()], "out of sequence"),
        ("a seat the game lacks", vec![rows[0].clone(), EventRow { seat: Seat(3), ..rows[1].clone() }], "no seat 3"),
        ("private logs for no seat", vec![rows[0].clone(), no_logs], "private logs"),
    ];
    for (what, rows, says) in bad {
        let e = db.import_game("g", &h, &rows).unwrap_err().to_string();
        assert!(e.contains(says), "{what}: {e}");
        assert!(matches!(db.open_game("g"), Err(StoreError::NoSuchGame(_))), "{what}");
    }
    let s = db.import_game("g", &h, &rows).unwrap();
    assert_eq!(s.rows_and_head().unwrap(), (rows.clone(), chain::head(&h, &rows)));
    assert!(matches!(db.import_game("g", &h, &rows), Err(StoreError::Exists(_))));
    assert!(matches!(db.create_game("g", &h, &[]), Err(StoreError::Exists(_))));
}

/// A game exported is a player's game file (the CLI reads and plays it) holding the same
/// header, moves, documents and chat; imported back, the same game again.
#[test]
fn a_game_exported_to_a_file_and_imported_back_is_the_same() {
    let (dir, db) = folder();
    let mut s = new_game(&db, "m", 4);
    play(&mut s, 20, 4);
    s.store().put_doc("listing", r#"{"open":true}"#).unwrap();
    s.store().add_chat("player", "all", "good luck").unwrap();
    s.store().add_chat("observer", "player", "thanks").unwrap();
    let (header, rows, head) = (s.header().clone(), s.rows().to_vec(), s.store().head().unwrap());
    let (docs, chat) =
        (vec![("listing".to_string(), r#"{"open":true}"#.to_string()), (SEATS.0.into(), SEATS.1.into())], s.store().chat().unwrap());
    let path = dir.path().join("exported.arbiter");
    db.export_game("m", &path).unwrap();
    let file = SqliteStore::open_read_only(&path).unwrap();
    assert_eq!((file.header().unwrap(), file.rows().unwrap(), file.head().unwrap()), (header.clone(), rows.clone(), head.clone()));
    assert_eq!((file.all_docs().unwrap(), file.chat().unwrap()), (docs.clone(), chat.clone()));
    drop(file);
    assert!(matches!(db.export_game("m", &path), Err(StoreError::Exists(_))), "an existing file is left alone");
    assert!(matches!(db.export_game("nobody", &dir.path().join("x.arbiter")), Err(StoreError::NoSuchGame(_))));
    assert!(!dir.path().join("x.arbiter").exists());

    let copy = db.import_file("copy", &path).unwrap();
    assert_eq!((copy.header().unwrap(), copy.rows().unwrap(), copy.head().unwrap()), (header, rows.clone(), head));
    assert_eq!((db.doc("copy", "listing").unwrap(), copy.chat().unwrap()), (Some(docs[0].1.clone()), chat));
    assert!(matches!(db.import_file("copy", &path), Err(StoreError::Exists(_))));

    let mut played = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(played.seq(), rows.len() as u64);
    if played.game().decision().is_some() {
        let m = played.game().first_moves().into_iter().next().unwrap();
        played.play(&m, None).unwrap();
    }
}

/// Where the child process of `the_folder_is_held_by_one_process_at_a_time` tries the folder.
const TRY_OPEN: &str = "ARBITER_FOLDER_DB_TRY_OPEN";

#[test]
#[ignore = "the process the_folder_is_held_by_one_process_at_a_time runs (it sets the folder)"]
fn try_to_open() {
    let Some(dir) = std::env::var_os(TRY_OPEN) else { return };
    match FolderDatabase::open(Path::new(&dir)) {
        Ok(_) => println!("CHILD: opened"),
        Err(e) => println!("CHILD: refused: {e}"),
    }
}

fn open_in_a_child(dir: &Path) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "try_to_open", "--ignored", "--nocapture", "--test-threads=1"])
        .env(TRY_OPEN, dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    // (libtest may print the test's name on the same line.)
    let said = stdout.lines().find_map(|l| l.find("CHILD: ").map(|at| l[at + "CHILD: ".len()..].to_string()));
    said.unwrap_or_else(|| panic!("the child said nothing: {stdout} {}", String::from_utf8_lossy(&out.stderr)))
}

/// The folder is held by the process that opened it: another process, or another open in
/// the same one, is refused with the folder named, until the last handle is dropped.
#[test]
fn the_folder_is_held_by_one_process_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = FolderDatabase::open(dir.path()).unwrap();
    let store = db.create_game("g", &header("2026-12-03T00:00:00.000Z"), &[]).unwrap();
    let folder = dir.path().canonicalize().unwrap().display().to_string();
    let said = open_in_a_child(dir.path());
    assert!(said.starts_with("refused") && said.contains(&folder) && said.contains("another process"), "{said}");
    let e = FolderDatabase::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains(&folder) && e.contains("one process at a time"), "{e}");
    drop(db);
    assert!(FolderDatabase::open(dir.path()).is_err(), "a game's store is a handle too");
    drop(store);
    assert_eq!(open_in_a_child(dir.path()), "opened");
    let again = FolderDatabase::open(dir.path()).unwrap();
    assert_eq!(again.game_ids().unwrap(), ["g"]);
}

/// The database, its log, the log's index and the lock file are their owner's only.
#[cfg(unix)]
#[test]
fn the_folder_s_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, db) = folder();
    drop(db.create_game("g", &header("2026-12-03T00:00:00.000Z"), &[]).unwrap());
    for name in ["games.db", "games.db-wal", "games.db-shm", "games.lock"] {
        let mode = std::fs::metadata(dir.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}")).permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
    let conn = rusqlite::Connection::open(db.path()).unwrap();
    let (app, version): (i64, i64) = (
        conn.query_row("PRAGMA application_id", [], |r| r.get(0)).unwrap(),
        conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap(),
    );
    assert_eq!((app, version), (0x4152_4246, FOLDER_SCHEMA_VERSION));
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

/// What a folder may hold at `games.db` instead of Arbiter's database: each refused (and left
/// as it was) or, if empty, made Arbiter's; never a panic.
#[test]
fn damaged_foreign_and_newer_files_are_refused_unchanged() {
    type Make = fn(&Path);
    let made_by = |f: Make| f;
    let cases: [(&str, Make, Option<&str>); 7] = [
        ("a text file", made_by(|p| std::fs::write(p, "not a database\n".repeat(20)).unwrap()), Some("not a database")),
        ("a few bytes of SQLite's header", made_by(|p| std::fs::write(p, b"SQLite for").unwrap()), Some("not a database")),
        (
            "another program's database",
            made_by(|p| rusqlite::Connection::open(p).unwrap().execute_batch("CREATE TABLE t (x)").unwrap()),
            Some("not Arbiter's"),
        ),
        ("a game file", made_by(|p| drop(SqliteStore::create(p, &header("2026-12-03T00:00:00.000Z")).unwrap())), Some("not Arbiter's")),
        (
            "a newer schema",
            made_by(|p| {
                drop(FolderDatabase::open(p.parent().unwrap()).unwrap());
                rusqlite::Connection::open(p).unwrap().execute_batch("PRAGMA user_version = 2").unwrap();
            }),
            Some("newer than this Arbiter reads"),
        ),
        (
            "its tables changed by hand",
            made_by(|p| {
                drop(FolderDatabase::open(p.parent().unwrap()).unwrap());
                rusqlite::Connection::open(p).unwrap().execute_batch("DROP TABLE chat").unwrap();
            }),
            Some("tables are not those"),
        ),
        ("an empty file", made_by(|p| std::fs::write(p, b"").unwrap()), None),
    ];
    for (what, make, refused) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        make(&path);
        let before = std::fs::read(&path).unwrap();
        match (FolderDatabase::open(dir.path()), refused) {
            (Err(e), Some(says)) => {
                let e = e.to_string();
                assert!(e.contains(says) && e.contains("games.db"), "{what}: {e}");
                assert_eq!(std::fs::read(&path).unwrap(), before, "{what}: the file as it was");
            }
            (Ok(db), None) => drop(db.create_game("g", &header("2026-12-03T00:00:00.000Z"), &[]).unwrap()),
            (Err(e), None) => panic!("{what}: {e}"),
            (Ok(_), Some(_)) => panic!("{what}: opened"),
        }
    }
}

/// A game changed outside Arbiter reads as damaged (its moves or head against the chain); the
/// other games still read. A database damaged below the tables fails with an error, not a
/// panic.
#[test]
fn a_damaged_game_reads_as_damaged_and_the_others_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let h = header("2026-12-03T00:00:00.000Z");
    let rows: Vec<EventRow> = (1..=3).map(|n| row(n, "m")).collect();
    {
        let db = FolderDatabase::open(dir.path()).unwrap();
        for id in ["edited", "cut", "head", "fine"] {
            db.import_game(id, &h, &rows).unwrap();
        }
    }
    let conn = rusqlite::Connection::open(dir.path().join("games.db")).unwrap();
    conn.execute_batch(
        "UPDATE events SET move_text = 'other' WHERE game_id = 'edited' AND seq = 2;
         DELETE FROM events WHERE game_id = 'cut' AND seq = 3;
         UPDATE games SET head_hash = 'x' WHERE id = 'head';",
    )
    .unwrap();
    drop(conn);
    let db = FolderDatabase::open(dir.path()).unwrap();
    let read = |id: &str| db.open_game(id).unwrap().rows().map_err(|e| e.to_string());
    let edited = read("edited").unwrap_err();
    assert!(edited.contains("game edited is damaged at move 2"), "{edited}");
    let cut = read("cut").unwrap_err();
    assert!(cut.contains("truncated") && cut.contains("records 3 move(s) but holds only 2"), "{cut}");
    let head = read("head").unwrap_err();
    assert!(head.contains("record of the last move does not match"), "{head}");
    assert_eq!(read("fine").unwrap(), rows);
    drop(db);

    // Pages overwritten with garbage past the header.
    let path = dir.path().join("games.db");
    let mut bytes = std::fs::read(&path).unwrap();
    for b in bytes.iter_mut().skip(4096 * 2) {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let failed = FolderDatabase::open(dir.path()).and_then(|db| {
        let ids = db.game_ids()?;
        for id in ids {
            db.open_game(&id)?.rows()?;
        }
        Ok(())
    });
    assert!(failed.is_err(), "a corrupt database read as whole");
}

/// The last handle dropped on an async runtime's thread (a server shutting down) ends the
/// writer without a panic, and lets the folder go.
#[test]
fn the_last_handle_can_be_dropped_on_an_async_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let db = FolderDatabase::open(dir.path()).unwrap();
    let mut s = new_game(&db, "m", 1);
    s.play("flag a1", None).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async move {
        drop(s);
        drop(db);
    });
    let db = FolderDatabase::open(dir.path()).unwrap();
    assert_eq!(load(&db, "m").seq(), 1);
}

/// A folder of today's game files (a server's, on its redo log) imported on a first start:
/// every game stored as its file held it, the files moved into `imported/`; a file that cannot
/// be read is left in place and said; a second start finds nothing more to import.
#[test]
fn a_folder_of_game_files_is_imported_and_the_files_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let mut expected = HashMap::new();
    {
        let (log, _) = RedoLog::open(data).unwrap();
        for (id, seed) in [("one", 1u64), ("two", 2)] {
            let path = data.join(format!("{id}.arbiter"));
            let mut s =
                Session::create_with(&MINESWEEPER, &options(), seed, |h| SqliteStore::create_on_log(&path, h, &[SEATS], log.clone()))
                    .unwrap();
            play(&mut s, 12, seed);
            s.store().add_chat("player", "all", "hi").unwrap();
            expected.insert(id.to_string(), (s.header().clone(), s.rows().to_vec()));
        }
    }
    std::fs::write(data.join("bad.arbiter"), "not a game").unwrap();
    std::fs::write(data.join("notes.txt"), "kept").unwrap();
    let db = FolderDatabase::open(data).unwrap();
    // An import cut short before its file was moved.
    db.import_file("two", &data.join("two.arbiter")).unwrap();
    let report = db.import_folder().unwrap();
    let said = |needle: &str| report.iter().any(|l| l.contains(needle));
    assert!(said("game one: imported (12 moves)"), "{report:#?}");
    assert!(said("game two: stored already"), "{report:#?}");
    assert!(said("bad.arbiter: left in place"), "{report:#?}");
    let mut ids = db.game_ids().unwrap();
    ids.sort();
    assert_eq!(ids, ["one", "two"]);
    for (id, (header, rows)) in &expected {
        let s = load(&db, id);
        assert_eq!((s.header(), s.rows()), (header, rows.as_slice()), "{id}");
        assert_eq!((s.store().doc("seats").unwrap().as_deref(), s.store().chat_len().unwrap()), (Some(SEATS.1), 1), "{id}");
        let moved = data.join("imported").join(format!("{id}.arbiter"));
        assert_eq!(SqliteStore::open_read_only(&moved).unwrap().rows().unwrap(), *rows, "{id}: the file kept");
        assert!(!data.join(format!("{id}.arbiter")).exists(), "{id}");
    }
    assert!(data.join("bad.arbiter").exists() && data.join("notes.txt").exists());
    let again = db.import_folder().unwrap();
    assert_eq!(again.len(), 1, "{again:#?}");
    assert!(again[0].contains("bad.arbiter"), "{again:#?}");
}

// ---------------------------------------------------------------------------------------------
// SIGKILL, then every acknowledged move stored.

/// The folder the child process of `acknowledged_moves_survive_sigkill` writes, and its cycle.
const KILL_DIR: &str = "ARBITER_FOLDER_DB_KILL_DIR";
const KILL_CYCLE: &str = "ARBITER_FOLDER_DB_KILL_CYCLE";

/// The child: 8 threads, each playing game after game on the folder, printing `ACK GAME SEQ`
/// once each creation (0) and move is acknowledged, until killed.
#[test]
#[ignore = "the process acknowledged_moves_survive_sigkill kills (it sets the folder)"]
fn play_until_killed() {
    let Some(dir) = std::env::var_os(KILL_DIR) else { return };
    let cycle: u64 = std::env::var(KILL_CYCLE).ok().and_then(|c| c.parse().ok()).unwrap_or(1);
    let db = FolderDatabase::open(Path::new(&dir)).unwrap();
    let out = std::sync::Mutex::new(std::io::stdout());
    let ack = |id: &str, seq: u64| {
        let mut o = out.lock().unwrap();
        writeln!(o, "ACK {id} {seq}").and_then(|()| o.flush()).unwrap();
    };
    std::thread::scope(|scope| {
        for t in 0..8u64 {
            let (db, ack) = (&db, &ack);
            scope.spawn(move || {
                for n in 0.. {
                    let id = format!("c{cycle}t{t}g{n}");
                    let seed = cycle * 1_000_000 + t * 1_000 + n + 1;
                    let mut s = new_game(db, &id, seed);
                    ack(&id, 0);
                    let mut state = seed | 1;
                    let mut i = 0;
                    while let Some(m) = next_move(&s, &mut state, i) {
                        let seq = s.play(&m, None).unwrap().0.seq;
                        ack(&id, seq);
                        i += 1;
                    }
                }
            });
        }
    });
}

/// A child process plays 8 games at once and says each write once acknowledged; it is killed
/// with SIGKILL at a random moment, the folder opened again, and every acknowledged creation
/// and move must be stored, each game's rows numbered 1 to its head (their chain checked) and
/// replaying. Five cycles on one folder.
#[test]
fn acknowledged_moves_survive_sigkill() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let mut acked: HashMap<String, u64> = HashMap::new();
    let mut random = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    for cycle in 1..=5u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "play_until_killed", "--ignored", "--nocapture", "--test-threads=1"])
            .env(KILL_DIR, &dir)
            .env(KILL_CYCLE, cycle.to_string())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut seen = Vec::new();
            // Whole lines only: a line cut by the kill is an acknowledgement not counted.
            let mut r = std::io::BufReader::new(out);
            let mut line = String::new();
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                let ack = line.strip_suffix('\n').and_then(|l| l.strip_prefix("ACK ")).and_then(|l| l.split_once(' '));
                if let Some((id, seq)) = ack {
                    seen.push((id.to_string(), seq.parse::<u64>().unwrap()));
                }
                line.clear();
            }
            seen
        });
        let wait = Duration::from_millis(200 + pick(&mut random, 1300) as u64);
        std::thread::sleep(wait);
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "cycle {cycle}: the child was to be killed, it ended: {status}");
        for (id, seq) in reader.join().unwrap() {
            let a = acked.entry(id).or_default();
            *a = (*a).max(seq);
        }
        let db = FolderDatabase::open(&dir).unwrap_or_else(|e| panic!("cycle {cycle}: {e}"));
        let mut lost = Vec::new();
        for (id, &seq) in &acked {
            match db.open_game(id).and_then(|s| s.rows_and_head()) {
                Ok((rows, head)) => {
                    let numbered = rows.iter().map(|r| r.seq).eq(1..=head.0);
                    if head.0 < seq || !numbered {
                        lost.push(format!("{id}: acknowledged {seq}, head {}, rows numbered 1..={}: {numbered}", head.0, head.0));
                    }
                }
                Err(e) => lost.push(format!("{id}: acknowledged {seq}: {e}")),
            }
        }
        assert!(lost.is_empty(), "cycle {cycle} (killed after {wait:?}): {lost:#?}");
        for id in db.game_ids().unwrap() {
            Session::load(db.open_game(&id).unwrap(), &catalogue()).unwrap_or_else(|e| panic!("cycle {cycle}: game {id}: {e}"));
        }
    }
    let moves: u64 = acked.values().sum();
    assert!(moves > 0 && acked.len() >= 8, "{moves} moves acknowledged in {} games", acked.len());
}
