//! A data folder's redo log (`RedoLog`): a game file on it commits unsynced, and what a crash
//! takes from the file comes back from the log when the folder is opened again. A crash is
//! simulated by copying the folder as a power cut could leave it: the game file as it was some
//! moves ago (its unsynced commits lost), the log's segments as they are (synced before each
//! move was acknowledged).

use arbiter_games::{catalogue, MINESWEEPER};
use arbiter_store::{Journal, RedoLog, Segments, Session, SqliteStore};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// A folder's log moving to a new segment only when a test says so (every second a thread
/// would, in the middle of a test).
fn open_log(dir: &Path) -> Result<(Arc<RedoLog>, Vec<String>), arbiter_store::StoreError> {
    RedoLog::open_with(dir, Segments::OnCall)
}

fn new_game(path: &Path, log: &Arc<RedoLog>) -> Session {
    Session::create_with(&MINESWEEPER, &json!({"width": 9, "height": 9, "mines": 10}), 5, |header| {
        SqliteStore::create_with(path, header, Journal::WriteAhead)?.with_redo(log.clone())
    })
    .unwrap()
}

/// Copy `from`'s game file (with its write-ahead log) into `to`, as a crash leaves it.
fn copy_game(from: &Path, to: &Path, name: &str) {
    std::fs::copy(from.join(name), to.join(name)).unwrap();
    let wal = format!("{name}-wal");
    if from.join(&wal).exists() {
        std::fs::copy(from.join(&wal), to.join(&wal)).unwrap();
    }
}

/// The log's segments of folder `dir` (`redo/N.log`).
fn segments(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("redo"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".log"))
        .collect();
    names.sort();
    names
}

fn texts(s: &Session) -> Vec<String> {
    s.rows().iter().map(|r| r.move_text.clone()).collect()
}

/// The steps played: moves, and an undo (`None`).
const STEPS: [Option<&str>; 5] = [Some("flag a1"), Some("flag b2"), Some("unflag a1"), None, Some("flag c3")];

/// Folder `live` after [`STEPS`], and `crashed`: its game file as it was after the first
/// `kept` steps, with the log's segments as they are.
fn crash_after(kept: usize) -> (tempfile::TempDir, tempfile::TempDir, Session, Arc<RedoLog>) {
    let (live, crashed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (log, report) = open_log(live.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    let mut s = new_game(&live.path().join("m.arbiter"), &log);
    for (i, step) in STEPS.iter().enumerate() {
        if i == kept {
            copy_game(live.path(), crashed.path(), "m.arbiter");
        }
        match step {
            Some(text) => drop(s.play(text, None).unwrap()),
            None => drop(s.undo().unwrap()),
        }
    }
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    for name in segments(live.path()) {
        std::fs::copy(live.path().join("redo").join(&name), crashed.path().join("redo").join(&name)).unwrap();
    }
    (live, crashed, s, log)
}

fn crash_after_first_move() -> (tempfile::TempDir, tempfile::TempDir, Session, Arc<RedoLog>) {
    crash_after(1)
}

/// A file that kept a move later undone: the undo and the move made instead come back.
#[test]
fn a_move_undone_after_the_crash_s_copy_is_undone_again() {
    let (_live, crashed, s, _log) = crash_after(3);
    assert_eq!(texts(&Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap()), ["flag a1", "flag b2", "unflag a1"]);
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, ["redo log: game file m.arbiter: 2 change(s) it had lost applied"]);
    let after = Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap();
    assert_eq!(after.rows(), s.rows());
}

#[test]
fn what_a_crash_took_from_a_game_file_comes_back_from_the_log() {
    let (_live, crashed, s, _log) = crash_after_first_move();
    let before = Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap();
    assert_eq!(texts(&before), ["flag a1"]);
    drop(before);
    let (_log, report) = open_log(crashed.path()).unwrap();
    // The two moves after the copy (the third was undone, another made in its place).
    assert_eq!(report, ["redo log: game file m.arbiter: 2 change(s) it had lost applied"]);
    let after = Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap();
    assert_eq!(texts(&after), ["flag a1", "flag b2", "flag c3"]);
    assert_eq!(after.game().state_hash(), s.game().state_hash());
    assert_eq!(after.rows(), s.rows());
    // The applied segments are gone: only the new log's own is left.
    assert_eq!(segments(crashed.path()).len(), 1, "{:?}", segments(crashed.path()));
}

#[test]
fn a_torn_last_record_was_never_acknowledged_and_is_not_applied() {
    let (_live, crashed, _s, _log) = crash_after_first_move();
    let names = segments(crashed.path());
    let last = crashed.path().join("redo").join(names.last().unwrap());
    let bytes = std::fs::read(&last).unwrap();
    std::fs::write(&last, &bytes[..bytes.len() - 3]).unwrap();
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, ["redo log: game file m.arbiter: 1 change(s) it had lost applied"]);
    let after = Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap();
    // The last record (flag c3) is cut short: the undo before it is the last change applied.
    assert_eq!(texts(&after), ["flag a1", "flag b2"]);
}

#[test]
fn a_file_already_up_to_date_is_left_as_it_is() {
    let (live, crashed, s, _log) = crash_after_first_move();
    copy_game(live.path(), crashed.path(), "m.arbiter");
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    assert_eq!(texts(&Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap()), texts(&s));
}

#[test]
fn a_folder_s_log_is_shared_in_its_process_and_refused_to_another() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    // A server started again in place: the same log.
    let (again, report) = open_log(dir.path()).unwrap();
    assert!(Arc::ptr_eq(&log, &again));
    assert_eq!(report, Vec::<String>::new());
    drop((log, again));
    // Another process's lock (any other open of the lock file) refuses it.
    let lock = std::fs::OpenOptions::new().write(true).open(dir.path().join("redo").join("lock")).unwrap();
    lock.try_lock().unwrap();
    let e = open_log(dir.path()).unwrap_err().to_string();
    assert!(e.contains("another process serves this data folder"), "{e}");
}

#[test]
fn the_log_and_its_segments_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (_log, _) = open_log(dir.path()).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("redo")), 0o700);
    for e in std::fs::read_dir(dir.path().join("redo")).unwrap().flatten() {
        assert_eq!(mode(&e.path()), 0o600, "{:?}", e.file_name());
    }
}

#[test]
fn closing_the_log_syncs_its_games_and_removes_its_segments() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    let mut s = new_game(&dir.path().join("m.arbiter"), &log);
    s.play("flag a1", None).unwrap();
    assert_eq!(segments(dir.path()).len(), 1);
    let records = std::fs::metadata(dir.path().join("redo").join(&segments(dir.path())[0])).unwrap().len();
    assert!(records > "ARBITER-REDO 1\n".len() as u64, "the move's record is in the segment");
    drop(s);
    drop(log);
    assert_eq!(segments(dir.path()), Vec::<String>::new());
    let (_log, report) = open_log(dir.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    assert_eq!(texts(&Session::open(&dir.path().join("m.arbiter"), &catalogue()).unwrap()), ["flag a1"]);
}

#[test]
fn only_a_write_ahead_file_goes_on_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    let path = dir.path().join("player.arbiter");
    drop(Session::create(&path, &MINESWEEPER, &json!({}), 1).unwrap());
    let e = SqliteStore::open(&path).unwrap().with_redo(log.clone()).err().unwrap().to_string();
    assert!(e.contains("needs a write-ahead file"), "{e}");
    let e = SqliteStore::open_read_only(&path).unwrap().with_redo(log).err().unwrap().to_string();
    assert!(e.contains("read-only"), "{e}");
}

#[test]
fn a_game_file_outside_the_log_s_folder_is_refused() {
    let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (log, _) = open_log(dir.path()).unwrap();
    let path = other.path().join("m.arbiter");
    drop(Session::create_with(&MINESWEEPER, &json!({}), 1, |h| SqliteStore::create_with(&path, h, Journal::WriteAhead)).unwrap());
    let e = SqliteStore::open_with(&path, Journal::WriteAhead).unwrap().with_redo(log).err().unwrap().to_string();
    assert!(e.contains("whose redo log this is"), "{e}");
}

#[test]
fn a_new_segment_retires_the_old_one_once_its_games_are_synced() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    let mut s = new_game(&dir.path().join("m.arbiter"), &log);
    s.play("flag a1", None).unwrap();
    assert_eq!(segments(dir.path()), ["1.log"]);
    log.next_segment().unwrap();
    assert_eq!(segments(dir.path()), ["2.log"], "the old segment removed, its game synced");
    // Nothing written since: no new segment, the empty one kept.
    log.next_segment().unwrap();
    assert_eq!(segments(dir.path()), ["2.log"]);
    s.play("flag b2", None).unwrap();
    // A crash now: the file as it is (its first move synced), the second segment's record.
    let crashed = tempfile::tempdir().unwrap();
    copy_game(dir.path(), crashed.path(), "m.arbiter");
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    std::fs::copy(dir.path().join("redo/2.log"), crashed.path().join("redo/2.log")).unwrap();
    let (_log, _) = open_log(crashed.path()).unwrap();
    assert_eq!(texts(&Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap()), ["flag a1", "flag b2"]);
}

/// A crash while a segment was being made leaves its header cut short: nothing in it was
/// acknowledged, and the start goes on.
#[test]
fn a_segment_cut_short_in_its_header_is_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("redo")).unwrap();
    std::fs::write(dir.path().join("redo/7.log"), "ARBITER-RE").unwrap();
    std::fs::write(dir.path().join("redo/8.log"), "").unwrap();
    let (_log, report) = open_log(dir.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    assert_eq!(segments(dir.path()), ["9.log"]);
}

/// A game the log cannot bring up to date (its file damaged) stops the start, saying which
/// and why; the segments are kept for the start after the file is mended or removed.
#[test]
fn a_game_the_log_cannot_bring_up_to_date_stops_the_start() {
    let (_live, crashed, _s, _log) = crash_after_first_move();
    let kept = segments(crashed.path());
    std::fs::write(crashed.path().join("m.arbiter"), b"not a game").unwrap();
    std::fs::remove_file(crashed.path().join("m.arbiter-wal")).ok();
    let e = open_log(crashed.path()).unwrap_err().to_string();
    assert!(e.contains("game file m.arbiter") && e.contains("segments are kept"), "{e}");
    assert_eq!(segments(crashed.path()), kept);
    // The file removed (the game given up): the start goes on.
    std::fs::remove_file(crashed.path().join("m.arbiter")).unwrap();
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
}

/// A segment's bytes after its last whole record: a write torn by a crash if no later segment
/// holds a record (one may have been made, only its header, while that write ran); damage if
/// one does: then the start stops.
#[test]
fn bytes_after_the_last_record_are_a_torn_write_unless_records_follow() {
    for records_follow in [false, true] {
        let (_live, crashed, _s, _log) = crash_after_first_move();
        let first = crashed.path().join("redo").join(&segments(crashed.path())[0]);
        let mut bytes = std::fs::read(&first).unwrap();
        // A later segment: its header, and (or not) the first segment's first record again.
        let header = "ARBITER-REDO 1\n".len();
        let len = u32::from_le_bytes(bytes[header..header + 4].try_into().unwrap()) as usize;
        let mut later = bytes[..header].to_vec();
        if records_follow {
            later.extend_from_slice(&bytes[header..header + 8 + len]);
        }
        std::fs::write(crashed.path().join("redo").join("99.log"), later).unwrap();
        bytes.extend_from_slice(b"\x05\0\0\0junk");
        std::fs::write(&first, bytes).unwrap();
        match open_log(crashed.path()) {
            Err(e) => assert!(records_follow && e.to_string().contains("damaged, not cut short"), "{e}"),
            Ok((_log, report)) => {
                assert!(!records_follow, "damage before a later record was taken for a torn write");
                assert_eq!(report, ["redo log: game file m.arbiter: 2 change(s) it had lost applied"]);
            }
        }
    }
}

/// The host's document written with a game created on the log.
const SEATS: (&str, &str) = ("seats", r#"{"hashes":["a","b"]}"#);

/// A game created on the log (its creation a record there, its file unsynced until the
/// segment is retired).
fn new_game_on_log(path: &Path, log: &Arc<RedoLog>) -> Session {
    Session::create_with(&MINESWEEPER, &json!({"width": 9, "height": 9, "mines": 10}), 5, |header| {
        SqliteStore::create_on_log(path, header, &[SEATS], log.clone())
    })
    .unwrap()
}

/// Folder `live` with a game created on the log and two moves, and `crashed`: the log's
/// segments as they are, and of the game file what `crash` leaves (given the live folder and
/// the crashed one).
fn crash_of_a_new_game(crash: impl FnOnce(&Path, &Path)) -> (tempfile::TempDir, tempfile::TempDir, Session, Arc<RedoLog>) {
    let (live, crashed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (log, _) = open_log(live.path()).unwrap();
    let mut s = new_game_on_log(&live.path().join("m.arbiter"), &log);
    s.play("flag a1", None).unwrap();
    s.play("flag b2", None).unwrap();
    crash(live.path(), crashed.path());
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    for name in segments(live.path()) {
        std::fs::copy(live.path().join("redo").join(&name), crashed.path().join("redo").join(&name)).unwrap();
    }
    (live, crashed, s, log)
}

const MADE_AGAIN: &str = "redo log: game file m.arbiter: made again from its creation's record (the crash came before the file was \
                          on the disk), and 2 change(s) applied";

/// A power cut before the segment holding a game's creation was retired: the file's name, its
/// first page or its log may not be on the disk. The game is made again from the record, with
/// its document and its moves.
#[test]
fn a_new_game_the_crash_took_is_made_again_from_the_log() {
    type Leave = fn(&Path, &Path);
    let leaves: [(&str, Leave); 4] = [
        ("no file", |_, _| {}),
        // Its log and index made, the file's name not on the disk.
        ("its log alone", |from, to| {
            std::fs::copy(from.join("m.arbiter-wal"), to.join("m.arbiter-wal")).unwrap();
            std::fs::copy(from.join("m.arbiter-shm"), to.join("m.arbiter-shm")).unwrap();
        }),
        ("an empty file", |_, to| std::fs::write(to.join("m.arbiter"), b"").unwrap()),
        // Its first page on the disk, its log (with the record) not.
        ("the first page alone", |from, to| {
            std::fs::copy(from.join("m.arbiter"), to.join("m.arbiter")).unwrap();
        }),
    ];
    for (what, leave) in leaves {
        let (_live, crashed, s, _log) = crash_of_a_new_game(leave);
        let (_log, report) = open_log(crashed.path()).unwrap();
        assert_eq!(report, [MADE_AGAIN], "{what}");
        let path = crashed.path().join("m.arbiter");
        let after = Session::open(&path, &catalogue()).unwrap();
        assert_eq!(after.rows(), s.rows(), "{what}");
        assert_eq!(after.game().state_hash(), s.game().state_hash(), "{what}");
        drop(after);
        assert_eq!(SqliteStore::open_read_only(&path).unwrap().doc(SEATS.0).unwrap().as_deref(), Some(SEATS.1), "{what}");
        assert_eq!(segments(crashed.path()).len(), 1, "{what}: the applied segment removed");
    }
}

/// A process killed (not a power cut): the new game's file holds its record; it is kept, and
/// only what it lacks is applied (never made again: a document written beside its record,
/// the whole file synced for it, would be lost).
#[test]
fn a_new_game_s_file_that_holds_its_record_is_kept() {
    let (live, crashed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (log, _) = open_log(live.path()).unwrap();
    let mut s = new_game_on_log(&live.path().join("m.arbiter"), &log);
    s.store().put_doc("notes", r#"{"kept":true}"#).unwrap();
    s.play("flag a1", None).unwrap();
    // The crash's copy: the file with its first move, not its second.
    copy_game(live.path(), crashed.path(), "m.arbiter");
    s.play("flag b2", None).unwrap();
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    for name in segments(live.path()) {
        std::fs::copy(live.path().join("redo").join(&name), crashed.path().join("redo").join(&name)).unwrap();
    }
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, ["redo log: game file m.arbiter: 1 change(s) it had lost applied"]);
    let path = crashed.path().join("m.arbiter");
    assert_eq!(texts(&Session::open(&path, &catalogue()).unwrap()), texts(&s));
    let store = SqliteStore::open_read_only(&path).unwrap();
    assert_eq!(store.doc("notes").unwrap().as_deref(), Some(r#"{"kept":true}"#));
    assert_eq!(store.doc(SEATS.0).unwrap().as_deref(), Some(SEATS.1));
}

/// A file at a new game's name that holds no game (pages a power cut left half written) is
/// moved aside, never removed, and the game made again.
#[test]
fn an_unreadable_file_at_a_new_game_s_name_is_set_aside() {
    let (_live, crashed, s, _log) = crash_of_a_new_game(|_, to| std::fs::write(to.join("m.arbiter"), [7u8; 4096]).unwrap());
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report.len(), 1);
    assert!(report[0].starts_with(MADE_AGAIN) && report[0].contains("is set aside as"), "{report:?}");
    assert_eq!(texts(&Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap()), texts(&s));
    let aside: Vec<_> = std::fs::read_dir(crashed.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("m.arbiter.left-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(crashed.path().join(&aside[0])).unwrap(), [7u8; 4096]);
}

/// Another game at a new game's name is never replaced: the start stops, saying so, the
/// file and the segments as they were.
#[test]
fn another_game_at_a_new_game_s_name_stops_the_start() {
    let (_live, crashed, _s, _log) = crash_of_a_new_game(|_, to| {
        drop(Session::create(&to.join("m.arbiter"), &MINESWEEPER, &json!({}), 77).unwrap());
    });
    let path = crashed.path().join("m.arbiter");
    let (file, kept) = (std::fs::read(&path).unwrap(), segments(crashed.path()));
    let e = open_log(crashed.path()).unwrap_err().to_string();
    assert!(e.contains("another game than the one the redo log made"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), file, "a player's file, untouched (not switched to a write-ahead log)");
    assert!(!crashed.path().join("m.arbiter-wal").exists());
    assert_eq!(segments(crashed.path()), kept);
    assert_eq!(Session::open(&path, &catalogue()).unwrap().header().seed, 77);
}

/// A creation whose record the log refuses (too large) leaves no file, and nothing for a
/// start to make again.
#[test]
fn a_creation_the_log_refuses_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    let path = dir.path().join("m.arbiter");
    let huge = format!("\"{}\"", "x".repeat(64 << 20));
    let e = Session::create_with(&MINESWEEPER, &json!({}), 5, |header| {
        SqliteStore::create_on_log(&path, header, &[("big", &huge)], log.clone())
    })
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("too large for the redo log"), "{e}");
    assert!(!path.exists() && !dir.path().join("m.arbiter-wal").exists() && !dir.path().join("m.arbiter-shm").exists());
    drop(log);
    let (_log, report) = open_log(dir.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    assert!(!path.exists());
}

/// A game discarded after its creation (the host found it unwanted) stays removed: the log's
/// record of its creation does not make it again.
#[test]
fn a_new_game_removed_stays_removed_after_a_crash() {
    let (live, crashed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (log, _) = open_log(live.path()).unwrap();
    let path = live.path().join("m.arbiter");
    let s = new_game_on_log(&path, &log);
    // The crash's copy: the file and its log still there (the removal not on the disk).
    copy_game(live.path(), crashed.path(), "m.arbiter");
    assert!(crashed.path().join("m.arbiter-wal").exists());
    drop(s);
    log.remove_game(&path).unwrap();
    assert!(!path.exists() && !live.path().join("m.arbiter-wal").exists());
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    for name in segments(live.path()) {
        std::fs::copy(live.path().join("redo").join(&name), crashed.path().join("redo").join(&name)).unwrap();
    }
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, ["redo log: game file m.arbiter: removed, as the server had"]);
    assert!(!crashed.path().join("m.arbiter").exists());
    assert!(!crashed.path().join("m.arbiter-wal").exists());
}

/// A creation leaves the log with its segment (which syncs the file, its first page and its
/// name, before removing it): a later crash applies the later segments to the file.
#[test]
fn a_new_game_s_creation_is_retired_with_its_segment() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    let mut s = new_game_on_log(&dir.path().join("m.arbiter"), &log);
    s.play("flag a1", None).unwrap();
    log.next_segment().unwrap();
    assert_eq!(segments(dir.path()), ["2.log"], "the creation's segment retired");
    s.play("flag b2", None).unwrap();
    let crashed = tempfile::tempdir().unwrap();
    copy_game(dir.path(), crashed.path(), "m.arbiter");
    std::fs::create_dir(crashed.path().join("redo")).unwrap();
    std::fs::copy(dir.path().join("redo/2.log"), crashed.path().join("redo/2.log")).unwrap();
    let (_log, report) = open_log(crashed.path()).unwrap();
    assert_eq!(report, Vec::<String>::new());
    assert_eq!(texts(&Session::open(&crashed.path().join("m.arbiter"), &catalogue()).unwrap()), ["flag a1", "flag b2"]);
}

/// A game file on the log folds its own log into itself once it is full (after the commit that
/// filled it, out of the redo log's way): it does not grow without end, made on the log or
/// opened and put on it.
#[test]
fn a_game_file_on_the_log_folds_its_own_log() {
    for reopened in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (log, _) = open_log(dir.path()).unwrap();
        let path = dir.path().join("m.arbiter");
        let mut s = new_game_on_log(&path, &log);
        if reopened {
            drop(s);
            let store = SqliteStore::open_with(&path, Journal::WriteAhead).unwrap().with_redo(log.clone()).unwrap();
            s = Session::load(store, &catalogue()).unwrap();
        }
        let file_before = std::fs::metadata(&path).unwrap().len();
        for _ in 0..200 {
            s.play("flag a1", None).unwrap();
            s.play("unflag a1", None).unwrap();
        }
        // 400 commits of two pages or more: 3 MB of log unfolded.
        let wal = std::fs::metadata(dir.path().join("m.arbiter-wal")).unwrap().len();
        assert!(wal < 1 << 20, "reopened {reopened}: the log grew to {wal} bytes");
        assert!(std::fs::metadata(&path).unwrap().len() > file_before, "reopened {reopened}: nothing was folded into the file");
        assert_eq!(s.rows().len(), 400);
    }
}

#[test]
fn every_batch_the_log_writes_and_syncs_is_timed() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = open_log(dir.path()).unwrap();
    assert_eq!(log.sync_times(), arbiter_store::SyncTimes::default());
    let mut s = new_game(&dir.path().join("m.arbiter"), &log);
    // One writer at a time: each write is a batch of its own (the creation was not on the log:
    // `create_with`, then `with_redo`).
    for text in ["flag a1", "flag b2", "unflag a1"] {
        drop(s.play(text, None).unwrap());
    }
    drop(s.undo().unwrap());
    let t = log.sync_times();
    assert_eq!(t.batches, 4);
    assert!(t.total > std::time::Duration::ZERO && t.slowest <= t.total, "{t:?}");
    // Four batches: every slow one is kept.
    assert_eq!(t.slow.len() as u64, t.slow_count, "{t:?}");
    assert!(t.slow.iter().all(|&(_, took)| took >= arbiter_store::SLOW_SYNC), "{t:?}");
}

/// What tells another program not to write a game (`arbiter move` refuses): the log holds
/// records of it while its server runs, and after a crash until the folder's next opening has
/// brought the file up to date; not another game's.
#[test]
fn the_log_says_which_games_it_holds_until_it_has_brought_them_up_to_date() {
    let (live, crashed, _s, _log) = crash_after_first_move();
    let game = |d: &tempfile::TempDir| d.path().join("m.arbiter");
    assert_eq!(arbiter_store::redo_log_holding(&game(&live)), Some(live.path().join("redo")), "its server running");
    assert!(arbiter_store::redo_log_holding(&game(&crashed)).is_some(), "after the crash");
    assert_eq!(arbiter_store::redo_log_holding(&crashed.path().join("other.arbiter")), None, "another game");
    let (_again, report) = open_log(crashed.path()).unwrap();
    assert!(!report.is_empty());
    assert_eq!(arbiter_store::redo_log_holding(&game(&crashed)), None, "brought up to date");
}
