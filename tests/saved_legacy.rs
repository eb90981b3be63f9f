//! A game saved by Arbiter before saved games named their kind (schema version 2: made by the
//! `arbiter` of 2026-11-25 morning, 90 random moves of seed 2026, three turns, private draws)
//! opens, replays identically, is upgraded in place when it can be written, and plays on.

use arbiter_games::{catalogue, TwilightSession};
use arbiter_kernel::Seat;
use arbiter_store::{EventStore, Session, SqliteStore, StoreError, SCHEMA_VERSION};
use pretty_assertions::assert_eq;
use std::path::{Path, PathBuf};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/v2-twilight-struggle.arbiter");
/// The state hash of its last row, as stored.
const LAST_HASH: &str = "d4aa1fd9956c5ccd";

fn copy(dir: &Path) -> PathBuf {
    let path = dir.join("old.arbiter");
    std::fs::copy(FIXTURE, &path).unwrap();
    path
}

fn user_version(path: &Path) -> i64 {
    rusqlite::Connection::open(path).unwrap().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
}

#[test]
fn a_version_2_game_read_only_is_read_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path());
    let store = SqliteStore::open_read_only(&path).unwrap();
    assert!(store.is_read_only());
    let header = store.header().unwrap();
    assert_eq!(header.game, None, "a version-2 file names no kind");
    assert_eq!(header.seats, ["us", "ussr"]);
    let s = Session::load(store, &catalogue()).unwrap();
    assert_eq!(s.seq(), 90);
    assert_eq!(format!("{:016x}", s.ts().hash64()), LAST_HASH);
    assert_eq!(user_version(&path), 2, "a read-only file is not changed");
}

#[test]
fn a_host_that_reads_no_unnamed_game_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path());
    let without = arbiter_kernel::Catalogue::new(catalogue().kinds().to_vec());
    let e = Session::open_read_only(&path, &without).err().unwrap().to_string();
    assert!(e.contains("names no kind of game"), "{e}");
}

#[test]
fn a_version_2_game_is_upgraded_in_place_and_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path());
    let before = SqliteStore::open(&path).unwrap();
    assert_eq!(user_version(&path), SCHEMA_VERSION, "opened for writing, it is upgraded");
    let (header, rows) = (before.header().unwrap(), before.rows().unwrap());
    drop(before);
    assert_eq!(header.game, None, "upgraded, it still names no kind: its chain covers what it held");
    assert_eq!(header.seats, ["us", "ussr"]);
    assert_eq!(rows.len(), 90);
    assert_eq!(rows.last().unwrap().record.state_hash, LAST_HASH);
    assert!(rows.iter().any(|r| !r.record.seat_logs[0].is_empty()), "the US's private lines kept");
    assert!(rows.iter().any(|r| !r.record.seat_logs[1].is_empty()), "the USSR's private lines kept");

    let mut s = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(s.kind().id(), "twilight-struggle", "a file naming no kind is the default game's");
    assert_eq!(format!("{:016x}", s.ts().hash64()), LAST_HASH);
    let m = s.game().first_moves()[0].clone();
    s.play(&m, None).unwrap();
    let reopened = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(reopened.seq(), 91);
    assert_eq!(reopened.ts().hash64(), s.ts().hash64());
    assert!(matches!(reopened.rows()[90].seat, Seat(0) | Seat(1)));
}

/// Edits to an upgraded game are found at their row: a private line, a move's time.
#[test]
fn an_edit_to_an_upgraded_game_is_still_detected() {
    for (sql, at) in [
        ("UPDATE events SET seat_logs = json_array('', '') WHERE seq = (SELECT MIN(seq) FROM events WHERE seat_logs != json_array('', ''))", None),
        ("UPDATE events SET at = '2020-01-01T00:00:00.000Z' WHERE seq = 12", Some(12)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = copy(dir.path());
        drop(SqliteStore::open(&path).unwrap());
        let c = rusqlite::Connection::open(&path).unwrap();
        let first_private: u64 =
            c.query_row("SELECT MIN(seq) FROM events WHERE seat_logs != json_array('', '')", [], |r| r.get::<_, i64>(0)).unwrap() as u64;
        assert_eq!(c.execute(sql, []).unwrap(), 1, "{sql}");
        drop(c);
        let want = at.unwrap_or(first_private);
        match SqliteStore::open(&path).and_then(|s| s.rows()) {
            Err(StoreError::Damaged { seq, .. }) => assert_eq!(seq, want, "{sql}"),
            other => panic!("{sql}: expected damage at move {want}, got {:?}", other.map(|r| r.len())),
        }
    }
}
