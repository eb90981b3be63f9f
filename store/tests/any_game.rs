//! The store knows no game: a second game (Minesweeper, one seat, hidden mines placed by the
//! first open) is saved, reopened, replayed, undone and checked for tampering through the
//! same code as every other game.

use arbiter_games::{catalogue, MINESWEEPER};
use arbiter_kernel::{Catalogue, Seat};
use arbiter_store::{Session, SessionError};
use pretty_assertions::assert_eq;
use serde_json::json;

fn new_game(path: &std::path::Path) -> Session {
    Session::create(path, &MINESWEEPER, &json!({"width": 9, "height": 9, "mines": 10}), 5).unwrap()
}

#[test]
fn a_minesweeper_game_is_saved_reopened_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let mut s = new_game(&path);
    assert_eq!(s.header().game.as_deref(), Some("minesweeper"));
    assert_eq!(s.header().seats, ["player"]);
    s.play("flag a1", None).unwrap();
    s.play("open e5", None).unwrap();
    let (row, _) = s.play("unflag a1", None).unwrap();
    assert_eq!(row.seat, Seat(0));
    let reopened = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(reopened.kind().id(), "minesweeper");
    assert_eq!(reopened.seq(), 3);
    assert_eq!(reopened.game().state_hash(), s.game().state_hash());
    assert_eq!(reopened.game().view(Some(Seat(0))), s.game().view(Some(Seat(0))));
    let log: Vec<String> =
        arbiter_store::log_for(reopened.header(), reopened.rows(), None, reopened.game()).into_iter().map(|e| e.text).collect();
    assert!(log.contains(&"#2 Player: open e5".to_string()), "{log:?}");
}

#[test]
fn undo_stops_at_the_open_that_placed_the_mines() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = new_game(&dir.path().join("m.arbiter"));
    s.play("flag b2", None).unwrap();
    s.undo().unwrap();
    assert_eq!(s.seq(), 0);
    s.play("open e5", None).unwrap();
    let e = s.undo().unwrap_err().to_string();
    assert!(e.contains("revealed"), "{e}");
    assert_eq!(s.seq(), 1);
}

#[test]
fn an_invalid_option_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let e = Session::create(&path, &MINESWEEPER, &json!({"width": 4, "height": 4, "mines": 16}), 1).err().unwrap();
    assert!(matches!(e, SessionError::Rejected(_)), "{e}");
    assert!(e.to_string().contains("mines"), "{e}");
    assert!(!path.exists());
}

#[test]
fn a_game_of_a_kind_not_offered_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    drop(new_game(&path));
    let only_ts = Catalogue::new(vec![catalogue().default_kind()]);
    let e = Session::open(&path, &only_ts).err().unwrap().to_string();
    assert!(e.contains("\"minesweeper\""), "{e}");
}

#[test]
fn a_tampered_mine_placement_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let mut s = new_game(&path);
    s.play("open e5", None).unwrap();
    drop(s);
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute("UPDATE events SET random_json = '[]' WHERE seq = 1", []).unwrap();
    drop(c);
    let e = Session::open(&path, &catalogue()).err().unwrap().to_string();
    assert!(e.contains("damaged at move 1"), "{e}");
}

/// A private log for no seat of the game would be outside the integrity chain: refused.
#[test]
fn a_log_for_a_seat_the_game_does_not_have_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let mut s = new_game(&path);
    s.play("flag a1", None).unwrap();
    drop(s);
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(r#"UPDATE events SET seat_logs = '["","a second seat"]' WHERE seq = 1"#, []).unwrap();
    drop(c);
    let e = Session::open(&path, &catalogue()).err().unwrap().to_string();
    assert!(e.contains("damaged at move 1") && e.contains("seats"), "{e}");
}

/// A current file whose schema version was lowered would be read without its logs: damage.
#[test]
fn a_current_file_claiming_an_older_version_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    drop(new_game(&path));
    for older in [1, 2] {
        rusqlite::Connection::open(&path).unwrap().execute_batch(&format!("PRAGMA user_version = {older}")).unwrap();
        let e = arbiter_store::SqliteStore::open_read_only(&path).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("is damaged") && e.contains("schema version does not match"), "version {older}: {e}");
    }
}

/// A chat is kept in the game's file outside its record: the file still opens and replays
/// (the chain does not cover it), an undo leaves it, and a file without one reads an empty chat.
#[test]
fn a_chat_is_kept_beside_the_record_and_outside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let mut s = new_game(&path);
    assert_eq!(s.store().chat().unwrap(), []);
    s.play("flag a1", None).unwrap();
    let first = s.store().add_chat("player", "all", "hello <b>there</b>").unwrap();
    let second = s.store().add_chat("observer", "all", "hi").unwrap();
    assert_eq!((first.id, second.id), (1, 2));
    assert_eq!(s.store().chat_len().unwrap(), 2);
    s.play("unflag a1", None).unwrap();
    s.undo().unwrap();
    let reopened = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(reopened.seq(), 1);
    let chat = reopened.store().chat().unwrap();
    assert_eq!(chat, [first, second]);
    assert_eq!(chat[0].text, "hello <b>there</b>", "kept as written");
    let read_only = Session::open_read_only(&path, &catalogue()).unwrap();
    assert_eq!(read_only.store().chat().unwrap().len(), 2);
    assert!(read_only.store().add_chat("player", "all", "x").is_err(), "a read-only file takes no chat");
}

/// A replay resumed from a position a verified replay reached goes on to the same end as a
/// replay from the setup, still verifying every row after it; a position that is not the
/// record's at that move, or a move past the record, is refused.
#[test]
fn a_replay_resumed_from_a_kept_position_ends_as_a_full_one() {
    use arbiter_store::Replay;
    let dir = tempfile::tempdir().unwrap();
    let mut s = new_game(&dir.path().join("m.arbiter"));
    for m in ["flag a1", "open e5", "unflag a1", "flag b2", "flag c3"] {
        s.play(m, None).unwrap();
    }
    let (header, rows) = (s.header().clone(), s.rows().to_vec());
    let mut full = Replay::new(header.clone(), rows.clone(), &MINESWEEPER).unwrap();
    full.run_to(Some(2)).unwrap();
    let kept = full.game().boxed_clone();
    full.run_to(None).unwrap();
    let mut resumed = Replay::resume(header.clone(), rows.clone(), &MINESWEEPER, kept.boxed_clone(), 2).unwrap();
    assert_eq!((resumed.seq(), resumed.done()), (2, false));
    resumed.run_to(None).unwrap();
    assert_eq!(resumed.seq(), 5);
    assert_eq!(resumed.game().state_hash(), full.game().state_hash());
    assert_eq!(resumed.game().view(Some(Seat(0))), full.game().view(Some(Seat(0))));
    assert_eq!(resumed.into_parts().1.len(), 3, "the acting seats of the rows it replayed");

    let e = Replay::resume(header.clone(), rows.clone(), &MINESWEEPER, kept.boxed_clone(), 3).err().unwrap();
    assert_eq!((e.seq, e.what.as_str()), (3, "state hash"), "the position after move 2 is not the one after move 3");
    let e = Replay::resume(header.clone(), rows.clone(), &MINESWEEPER, kept.boxed_clone(), 6).err().unwrap();
    assert_eq!(e.seq, 6, "{e}");
    let setup = Replay::new(header.clone(), rows.clone(), &MINESWEEPER).unwrap().into_game();
    assert!(Replay::resume(header.clone(), rows.clone(), &MINESWEEPER, setup, 0).is_ok());

    let mut tampered = rows.clone();
    tampered[3].record.state_hash = "0".repeat(16);
    let mut r = Replay::resume(header, tampered, &MINESWEEPER, kept, 2).unwrap();
    let e = r.run_to(None).unwrap_err();
    assert_eq!((e.seq, e.what.as_str()), (4, "state hash"), "the rows after the position are verified");
}
