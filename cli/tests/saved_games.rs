//! The saved-game guarantees, tried as processes racing, a careless user and an attacker would:
//! concurrent writers, truncation, every byte flipped, read-only files for a non-root user.

use assert_cmd::cargo::cargo_bin;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn arbiter(args: &[&str]) -> Output {
    Command::new(cargo_bin("arbiter")).args(args).env("NO_COLOR", "1").output().expect("run arbiter")
}

fn ok(args: &[&str]) -> String {
    let o = arbiter(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn seq(file: &Path) -> u64 {
    let s: serde_json::Value = serde_json::from_str(&ok(&["state", file.to_str().unwrap(), "--json"])).unwrap();
    s["seq"].as_u64().unwrap()
}

fn first_move(file: &Path) -> String {
    ok(&["moves", file.to_str().unwrap()]).lines().next().unwrap().to_string()
}

/// A game in its setup, the USSR to place with moves already made (so that it may undo).
fn game(dir: &Path, name: &str) -> PathBuf {
    let f = dir.join(name);
    ok(&["new", f.to_str().unwrap(), "--seed", "5"]);
    for _ in 0..2 {
        let m = first_move(&f);
        ok(&["move", f.to_str().unwrap(), &m]);
    }
    f
}

/// `undo` racing `move` on the same file, many times: each acknowledged operation changes the
/// number of moves by exactly one, in some order; none is lost or applied twice; nobody sees
/// "database is locked".
#[test]
fn undo_racing_move_never_loses_or_doubles_a_move() {
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "race.arbiter");
    let file = f.to_str().unwrap().to_string();
    for round in 0..40 {
        let before = seq(&f);
        let m = first_move(&f);
        let bin = cargo_bin("arbiter");
        let undo = Command::new(&bin).args(["undo", &file]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mv = Command::new(&bin).args(["move", &file, &m]).output().unwrap();
        let undo = undo.wait_with_output().unwrap();
        for (what, o) in [("undo", &undo), ("move", &mv)] {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!err.contains("locked"), "round {round}: {what}: {err}");
            assert_ne!(o.status.code(), Some(1), "round {round}: {what} failed: {err}");
        }
        let expected = before + u64::from(mv.status.success()) - u64::from(undo.status.success());
        assert_eq!(seq(&f), expected, "round {round}: move ok {}, undo ok {}", mv.status.success(), undo.status.success());
        // Keep a move to undo for the next round.
        if seq(&f) < 2 {
            let m = first_move(&f);
            ok(&["move", &file, &m]);
        }
    }
}

/// Two writers at once: the second waits for the lock and is judged against the first's
/// result; both end with a verdict, never "database is locked".
#[test]
fn concurrent_moves_wait_and_are_judged() {
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "two.arbiter");
    let file = f.to_str().unwrap().to_string();
    for round in 0..20 {
        let before = seq(&f);
        let m = first_move(&f);
        let bin = cargo_bin("arbiter");
        let a = Command::new(&bin).args(["move", &file, &m]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let b = Command::new(&bin).args(["move", &file, &m]).output().unwrap();
        let a = a.wait_with_output().unwrap();
        let mut accepted = 0;
        for o in [&a, &b] {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(matches!(o.status.code(), Some(0) | Some(2)), "round {round}: status {:?}: {err}", o.status.code());
            accepted += u64::from(o.status.success());
        }
        assert!(accepted >= 1, "round {round}: neither move was accepted");
        assert_eq!(seq(&f), before + accepted, "round {round}");
    }
}

fn open_rows(path: &Path) -> Result<(arbiter_store::GameHeader, Vec<arbiter_store::EventRow>), String> {
    use arbiter_store::EventStore;
    let s = arbiter_store::SqliteStore::open(path).map_err(|e| e.to_string())?;
    Ok((s.header().map_err(|e| e.to_string())?, s.rows().map_err(|e| e.to_string())?))
}

/// Deleting trailing rows is reported as such.
#[test]
fn deleting_trailing_rows_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "cut.arbiter");
    let c = rusqlite::Connection::open(&f).unwrap();
    c.execute("DELETE FROM events WHERE seq = (SELECT MAX(seq) FROM events)", []).unwrap();
    drop(c);
    let o = arbiter(&["state", f.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("is truncated: it records 2 move(s) but holds only 1"), "{err}");
}

/// Every byte of a saved game flipped in turn: the file either reads back with every value
/// identical, or opening it fails with one of Arbiter's own messages. Never a panic, never a
/// raw driver message, never changed content taken as genuine.
#[test]
fn every_flipped_byte_is_harmless_or_detected() {
    let dir = tempfile::tempdir().unwrap();
    // A small game; and one with free pages (moves played, then the rows deleted by
    // undo-like truncation). Every byte of each.
    let small = game(dir.path(), "flip.arbiter");
    let freed = game(dir.path(), "freed.arbiter");
    for _ in 0..60 {
        let m = first_move(&freed);
        ok(&["move", freed.to_str().unwrap(), &m]);
    }
    {
        use arbiter_store::EventStore;
        let mut s = arbiter_store::SqliteStore::open(&freed).unwrap();
        s.lock().unwrap();
        s.truncate_after(2).unwrap();
        s.commit().unwrap();
    }
    let c = rusqlite::Connection::open(&freed).unwrap();
    let free: i64 = c.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
    assert!(free > 0, "the second file has no free pages");
    drop(c);
    for f in [&small, &freed] {
        let len = std::fs::metadata(f).unwrap().len() as usize;
        // Every byte with one pattern; the 100 bytes of SQLite's own header (page size,
        // schema format, counts, the user version, the application id) also with each single
        // bit, two low bits (version 2 read as 1) and all bits.
        let flips = (0..len)
            .map(|i| (i, 0x5a))
            .chain((0..100).flat_map(|i| [0x01, 0x02, 0x03, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff].map(|m| (i, m))));
        flip_each(dir.path(), f, flips);
    }
}

/// The messages a damaged file may get, and what none of them may contain: SQLite's wording,
/// its error-code names, a permission or write failure that did not happen.
const DAMAGE_MESSAGES: [&str; 4] = ["is not an Arbiter saved game", "is damaged", "is truncated", "save schema version"];
const NEVER_IN_DAMAGE_MESSAGES: [&str; 10] =
    ["Unknown", "SQLite", "sqlite", "database", "malformed", "permission", "cannot be read:", "not stored", "busy", "locked"];

fn assert_damage_message(e: &str, what: &str) {
    assert!(DAMAGE_MESSAGES.iter().any(|x| e.contains(x)), "{what}: unexpected message: {e}");
    for bad in NEVER_IN_DAMAGE_MESSAGES {
        assert!(!e.contains(bad), "{what}: {bad:?} in the message: {e}");
    }
}

fn flip_each(dir: &Path, f: &Path, flips: impl Iterator<Item = (usize, u8)>) {
    let original = std::fs::read(f).unwrap();
    let genuine = open_rows(f).unwrap();
    let work = dir.join("work.arbiter");
    let (mut same, mut detected) = (0, 0);
    for (i, mask) in flips {
        let mut bytes = original.clone();
        bytes[i] ^= mask;
        std::fs::write(&work, &bytes).unwrap();
        match open_rows(&work) {
            Ok(read) => {
                assert_eq!(read, genuine, "byte {i} ^ {mask:#04x} changed content that was read as genuine");
                same += 1;
            }
            Err(e) => {
                assert_damage_message(&e, &format!("byte {i} ^ {mask:#04x}"));
                detected += 1;
            }
        }
    }
    assert!(same > 0 && detected > 0, "{same} harmless, {detected} detected");
}

/// A file that is not a saved game (random bytes, an empty file) gets exactly "not an Arbiter
/// saved game" from every command; a saved game cut short at any byte gets "is truncated: the
/// file is cut short". Exit status 1, never a driver message, never a panic.
#[test]
fn foreign_and_cut_short_files_get_one_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let commands = |file: &str| -> Vec<Vec<String>> {
        [
            vec!["state", file],
            vec!["log", file],
            vec!["replay", file],
            vec!["moves", file],
            vec!["move", file, "influence Poland"],
            vec!["undo", file],
        ]
        .into_iter()
        .map(|a| a.into_iter().map(String::from).collect())
        .collect()
    };
    // Random bytes (a fixed xorshift stream) and an empty file.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let random: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    for (name, bytes) in [("random.arbiter", random), ("empty.arbiter", Vec::new())] {
        let f = dir.path().join(name);
        std::fs::write(&f, &bytes).unwrap();
        let file = f.to_str().unwrap();
        for args in commands(file) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = arbiter(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err, format!("arbiter: {file} is not an Arbiter saved game\n"), "{args:?}");
            assert!(o.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&o.stdout));
        }
        assert_eq!(std::fs::read(&f).unwrap(), bytes, "{name} was changed");
    }
    // A saved game of several pages, cut short: inside SQLite's header, at its end, at page
    // boundaries, inside pages, one byte short.
    let whole = game(dir.path(), "whole.arbiter");
    for _ in 0..40 {
        let m = first_move(&whole);
        ok(&["move", whole.to_str().unwrap(), &m]);
    }
    let original = std::fs::read(&whole).unwrap();
    let page = u16::from_be_bytes([original[16], original[17]]) as usize;
    assert!(original.len() >= 4 * page, "{} bytes", original.len());
    let cut = dir.path().join("cut.arbiter");
    let file = cut.to_str().unwrap();
    let mut points = vec![1, 15, 16, 50, 99, 100, 101, page - 1, page, page + 1, 2 * page, original.len() / 2 + 7, original.len() - page];
    points.push(original.len() - 1);
    for n in points {
        std::fs::write(&cut, &original[..n]).unwrap();
        for args in commands(file) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = arbiter(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "cut at {n}: {args:?}: {err}");
            assert!(err.starts_with(&format!("arbiter: {file} is truncated: the file is cut short ({n} ")), "cut at {n}: {args:?}: {err}");
            assert_damage_message(&err, &format!("cut at {n}: {args:?}"));
            assert!(!err.contains("panicked"), "cut at {n}: {args:?}: {err}");
        }
        assert_eq!(std::fs::read(&cut).unwrap(), &original[..n], "cut at {n}: the file was changed");
    }
}

/// A forged random outcome (the setup's deal, with the chain recomputed as a forger with other
/// tools would) is reported by every reading command as a divergence that says where, never
/// what: neither the stored nor the replayed outcomes (the deck order, the hands) appear.
#[test]
fn a_forged_random_outcome_is_reported_without_the_deck() {
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "forged.arbiter");
    let file = f.to_str().unwrap();
    let c = rusqlite::Connection::open(&f).unwrap();
    let genuine: String = c.query_row("SELECT setup_random_json FROM game", [], |r| r.get(0)).unwrap();
    // Swap the first two cards dealt.
    let mut v: serde_json::Value = serde_json::from_str(&genuine).unwrap();
    let draws: Vec<usize> = (0..v.as_array().unwrap().len()).filter(|&i| v[i].get("Draw").is_some()).take(2).collect();
    let (a, b) = (v[draws[0]]["Draw"]["card"].clone(), v[draws[1]]["Draw"]["card"].clone());
    v[draws[0]]["Draw"]["card"] = b;
    v[draws[1]]["Draw"]["card"] = a;
    let forged = serde_json::to_string(&v).unwrap();
    c.execute("UPDATE game SET setup_random_json = ?1", [&forged]).unwrap();
    // Recompute the integrity chain: drop it and let Arbiter add it to a "version 1" file.
    drop(c);
    arbiter_games::legacy::rewrite_as_version_1(&f).unwrap();
    arbiter_store::SqliteStore::open(&f).unwrap();
    // Every card the deal names (the shuffle's order holds the whole Early War deck).
    let rules = arbiter_twilight_cards::ruleset();
    let numbers: Vec<u64> = genuine.split(|ch: char| !ch.is_ascii_digit()).filter(|n| !n.is_empty()).map(|n| n.parse().unwrap()).collect();
    let names: Vec<&str> = rules.cards.all().filter(|c| numbers.contains(&u64::from(c.id.0))).map(|c| c.name.as_str()).collect();
    assert!(names.len() > 30, "{names:?}");
    for args in [
        vec!["replay", file],
        vec!["replay", file, "--step"],
        vec!["state", file, "--as", "us"],
        vec!["log", file, "--as", "ussr"],
        vec!["moves", file],
    ] {
        let o = arbiter(&args);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("replay diverges at game setup: the random outcomes of the game setup differ from the record (die rolls, draws or shuffles)"), "{args:?}: {err}");
        let all = format!("{out}{err}");
        for json in [&genuine, &forged] {
            assert!(!all.contains(json.as_str()), "{args:?} shows the random outcomes: {all}");
        }
        assert!(!all.contains("Shuffle") && !all.contains("Draw"), "{args:?}: {all}");
        for name in &names {
            assert!(!all.contains(name), "{args:?} names {name}: {all}");
        }
    }
}

/// A game the user cannot write (the file is mode 444, or its folder is not writable), as a
/// user who is not root: reading commands work; `move` and `undo` say it is read-only and
/// change nothing. Run as `nobody` through setpriv when the tests run as root.
#[test]
fn a_read_only_game_reads_and_refuses_writes() {
    use std::os::unix::fs::PermissionsExt;
    let root = is_root_with_setpriv();
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let f = game(dir.path(), "ro.arbiter");
    let file = f.to_str().unwrap();
    if root {
        // The user owns the game and its folder: only the modes below forbid writing.
        std::os::unix::fs::chown(dir.path(), Some(65534), Some(65534)).unwrap();
        std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
    }
    let as_user = |args: &[&str]| arbiter_as_user(root, args);
    let before = std::fs::read(&f).unwrap();
    for (file_mode, dir_mode) in [(0o444, 0o755), (0o644, 0o555)] {
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(file_mode)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(dir_mode)).unwrap();
        for args in [vec!["state", file], vec!["log", file], vec!["replay", file], vec!["moves", file]] {
            let o = as_user(&args);
            assert!(o.status.success(), "{args:?} (file {file_mode:o}, folder {dir_mode:o}): {}", String::from_utf8_lossy(&o.stderr));
        }
        let m = first_move(&f);
        for args in [vec!["move", file, m.as_str()], vec!["undo", file]] {
            let o = as_user(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{args:?} was accepted in a read-only game");
            assert!(err.contains("is read-only"), "{args:?} (file {file_mode:o}, folder {dir_mode:o}): {err}");
        }
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(std::fs::read(&f).unwrap(), before, "the read-only game changed");
}

/// A server's game file whose latest move is still in its write-ahead log (as when the server
/// was killed), copied with its `-wal` to a folder the user cannot write, where SQLite cannot
/// make the log's index: reading it is refused with what to do, never shown without that move
/// (an immutable read would skip the log). In a folder the user can write it reads whole. Run
/// as `nobody` through setpriv when the tests run as root.
#[test]
fn a_game_whose_latest_move_is_in_its_write_ahead_log_is_never_read_without_it() {
    use arbiter_store::{Journal, Session, SqliteStore};
    use std::os::unix::fs::PermissionsExt;
    let root = is_root_with_setpriv();
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "w.arbiter");
    assert_eq!(seq(&f), 2);
    // The server's way: the file in WAL mode, one more move, the session still open (the log
    // not folded in).
    let m = first_move(&f);
    let mut live = Session::load(SqliteStore::open_with(&f, Journal::WriteAhead).unwrap(), &arbiter_games::catalogue()).unwrap();
    live.play(&m, None).unwrap();
    let wal = dir.path().join("w.arbiter-wal");
    assert!(std::fs::metadata(&wal).unwrap().len() > 0, "the move is in the log");
    let ro = tempfile::tempdir().unwrap();
    let copy = ro.path().join("w.arbiter");
    std::fs::copy(&f, &copy).unwrap();
    std::fs::copy(&wal, ro.path().join("w.arbiter-wal")).unwrap();
    drop(live);
    if root {
        for p in [ro.path().to_path_buf(), copy.clone(), ro.path().join("w.arbiter-wal")] {
            std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        }
    }
    let as_user = |args: &[&str]| arbiter_as_user(root, args);
    let file = copy.to_str().unwrap();
    std::fs::set_permissions(ro.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    for args in [vec!["state", file, "--json"], vec!["log", file], vec!["replay", file]] {
        let o = as_user(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} read the game without its log: {}", String::from_utf8_lossy(&o.stdout));
        assert!(err.contains("write-ahead log") && err.contains("to a folder you can write"), "{args:?}: {err}");
    }
    std::fs::set_permissions(ro.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = as_user(&["state", file, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let state: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(state["seq"], 3, "the move in the log is read");
}

/// Whether the tests run as root, in which case the read-only cases run as `nobody` through
/// setpriv (root may write anything).
fn is_root_with_setpriv() -> bool {
    let root = is_root();
    if root && !Path::new("/usr/bin/setpriv").exists() {
        panic!("running as root without setpriv: cannot try the read-only cases as another user");
    }
    root
}

/// `arbiter ARGS` as a user who is not root: `nobody` through setpriv when `root`, else this
/// process's own user.
fn arbiter_as_user(root: bool, args: &[&str]) -> Output {
    let mut c = if root {
        let mut c = Command::new("/usr/bin/setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(cargo_bin("arbiter"));
        c
    } else {
        Command::new(cargo_bin("arbiter"))
    };
    c.args(args).env("NO_COLOR", "1").env("HOME", "/tmp").output().unwrap()
}

fn is_root() -> bool {
    // The owner of a file this process just created is its effective user.
    use std::os::unix::fs::MetadataExt;
    let f = tempfile::NamedTempFile::new().unwrap();
    f.as_file().metadata().unwrap().uid() == 0
}

/// The USSR's headline is secret until both are revealed: not in the US's log, the observer's
/// log or an observer's step-by-step replay; and no output names the seed.
#[test]
fn a_secret_headline_and_the_seed_stay_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("h.arbiter");
    let file = f.to_str().unwrap();
    let created = ok(&["new", file, "--seed", "4242"]);
    // Setup placements until the first headline decision (the USSR's).
    while !first_move(&f).starts_with("headline ") {
        let m = first_move(&f);
        ok(&["move", file, &m]);
    }
    let m = first_move(&f);
    assert!(m.starts_with("headline "), "{m}");
    let card = m.trim_start_matches("headline ").trim_matches('"').to_string();
    ok(&["move", file, &m]);
    assert!(ok(&["log", file, "--as", "ussr"]).contains(&format!("headlines {card}")), "the USSR reads its own headline");
    for args in [vec!["log", file, "--as", "us"], vec!["log", file], vec!["replay", file, "--step"], vec!["state", file, "--as", "us"]] {
        let text = ok(&args);
        assert!(!text.contains(&card), "{args:?} names the secret headline {card}:\n{text}");
        assert!(!text.contains("4242") && !text.contains("seed"), "{args:?} shows the seed:\n{text}");
    }
    assert!(!created.contains("4242"), "`new` shows the seed: {created}");
}

/// The cards `viewer` may not know in `st` (`arbiter_twilight::view::hidden_from`, shared with
/// the other secrecy tests).
fn unknown_cards(
    g: &arbiter_twilight::Game,
    st: &arbiter_twilight::State,
    viewer: Option<arbiter_twilight::Side>,
) -> arbiter_twilight::CardSet {
    arbiter_twilight::view::hidden_from(arbiter_twilight::Position { rules: g.rules(), st }, viewer)
}

/// The names of `cards` that `text` contains, as whole names, leaving out phrases that name
/// cards as rules (a stated reason, a condition quoting card text).
fn cards_named(g: &arbiter_twilight::Game, text: &str, cards: arbiter_twilight::CardSet) -> Vec<String> {
    arbiter_twilight::view::cards_named_in(g.pos(), &arbiter_twilight::view::without_rule_references(text), cards)
}

/// `text` from the line starting with `start` up to (not including) the first line after it
/// starting with `end` (or to the end).
fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let Some(i) = text.match_indices('\n').map(|(i, _)| i + 1).chain([0]).filter(|&i| text[i..].starts_with(start)).max() else {
        return "";
    };
    let rest = &text[i..];
    match rest.match_indices('\n').map(|(j, _)| j + 1).find(|&j| !end.is_empty() && rest[j..].starts_with(end)) {
        Some(j) => &rest[..j],
        None => rest,
    }
}

/// Hidden information through the real commands. At sampled decisions of random games (one in
/// twelve, and every decision right after a headline choice), what each side obtains as itself
/// — `state --as` (board, hand, prompt), the newest move's entry in `log --as`, and `moves`
/// when it is that side's decision — and what an observer obtains — `state`, the newest entry
/// of `log` and of `replay --step`, and the state `replay` ends with — are searched for every
/// card that viewer may not know (the other hand, the draw pile, an unrevealed headline). The
/// newest entry is checked against cards unknown both before and after that move and not
/// drawn or reshuffled in it (a card named when played may be drawn again later).
#[test]
fn no_command_shows_a_side_a_card_it_may_not_know() {
    use arbiter_games::TwilightSession;
    use arbiter_twilight::{CardSet, Side};
    let dir = tempfile::tempdir().unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut checked = 0;
    for seed in [11u64, 12, 13] {
        let f = dir.path().join(format!("secret{seed}.arbiter"));
        let file = f.to_str().unwrap().to_string();
        let mut s = arbiter_store::Session::create(
            &f,
            &arbiter_games::TWILIGHT_STRUGGLE,
            &arbiter_games::ts_options(arbiter_twilight::Options { optional_cards: seed % 2 == 0, us_bonus: 2 }),
            seed,
        )
        .unwrap();
        while s.ts().outcome().is_none() {
            let before = s.ts().state().clone();
            let d = s.ts().decision().expect("a decision");
            let m = s.ts().move_text(&d.moves[next(d.moves.len())]);
            s.play(&m, None).unwrap();
            if !(m.starts_with("headline ") || next(12) == 0) {
                continue;
            }
            checked += 1;
            let (g, st) = (s.ts(), s.ts().state());
            let row = s.rows().last().unwrap().clone();
            let random: Vec<arbiter_twilight::report::RandomOutcome> = serde_json::from_str(&row.record.random_json).unwrap();
            let drawn: CardSet = random
                .iter()
                .filter_map(|r| if let arbiter_twilight::report::RandomOutcome::Draw { card, .. } = r { Some(*card) } else { None })
                .collect();
            let reshuffled: CardSet = st.deck.iter().filter(|c| !before.deck.contains(c)).copied().collect();
            let entry = format!("#{} ", row.seq);
            for viewer in [Some(Side::Us), Some(Side::Ussr), None] {
                let now = unknown_cards(g, st, viewer);
                let newest = CardSet(unknown_cards(g, &before, viewer).0 & now.0 & !drawn.0 & !reshuffled.0);
                let who = viewer.map_or("observer", |v| if v == Side::Us { "us" } else { "ussr" });
                let mut outputs = vec![
                    (format!("state --as {who}"), ok(&["state", &file, "--as", who]), now),
                    (format!("log --as {who}"), section(&ok(&["log", &file, "--as", who]), &entry, "").to_string(), newest),
                ];
                if viewer.is_some() && g.to_move() == viewer {
                    outputs.push(("moves".into(), ok(&["moves", &file]), now));
                }
                if viewer.is_none() {
                    let replay = ok(&["replay", &file, "--step"]);
                    outputs.push((
                        "replay --step (newest entry)".into(),
                        section(&replay, &entry, "Replayed and verified").to_string(),
                        newest,
                    ));
                    outputs.push(("replay --step (final state)".into(), section(&replay, "Replayed and verified", "").to_string(), now));
                }
                for (what, text, secret) in outputs {
                    assert!(!text.is_empty(), "seed {seed}, move {}: {what} printed nothing", row.seq);
                    let leaked = cards_named(g, &text, secret);
                    assert!(leaked.is_empty(), "seed {seed}, move {} ({m}): `{what}` shows {leaked:?}:\n{text}", row.seq);
                }
            }
        }
    }
    assert!(checked > 60, "only {checked} decisions checked");
}

/// Bad input gets a clear refusal (exit 2), never a panic or a hang.
#[test]
fn bad_input_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let f = game(dir.path(), "bad.arbiter");
    let file = f.to_str().unwrap();
    let o = arbiter(&["bench", "--threads", "100000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--threads must be between 1 and"));
    // A very long move line (once quadratic to parse): refused at once, not echoed whole.
    let long = format!("cancel {}", "x ".repeat(60_000));
    let o = arbiter(&["move", file, &long]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("a move is at most 200 characters long") && err.len() < 400, "{err}");
    // Fixtures: a symbolic link looping back into the folder is not followed forever.
    let fx = dir.path().join("fx");
    std::fs::create_dir_all(fx.join("a")).unwrap();
    std::os::unix::fs::symlink(&fx, fx.join("a").join("back")).unwrap();
    // It holds no fixture: a run that found no case is an error, not "0 passed, 0 failed".
    let o = arbiter(&["fixtures", fx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("no fixtures found in {}", fx.display())), "{err}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("0 passed"), "{o:?}");
    // Hot-seat play reading input that is not UTF-8.
    let mut child = Command::new(cargo_bin("arbiter"))
        .args(["play", file])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"\xff\xfe\xfd not text\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not UTF-8"));
}

/// A move that cannot be written (here a file-size limit, as a full disk would) is refused as
/// "not stored", leaves the game as it was, and a retry is stored exactly once.
#[test]
fn a_write_that_fails_is_not_stored_and_a_retry_applies_once() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("full.arbiter");
    let file = f.to_str().unwrap().to_string();
    ok(&["new", &file, "--seed", "3"]);
    let bin = cargo_bin("arbiter");
    for _ in 0..300 {
        let m = first_move(&f);
        let before = seq(&f);
        // The file may not grow past its current size (bash counts in KiB); the signal the
        // kernel sends is ignored, so the write fails with an error instead.
        let limit = std::fs::metadata(&f).unwrap().len() / 1024;
        let script = format!("ulimit -f {limit}; trap '' XFSZ; exec \"$0\" move \"$1\" \"$2\"");
        let o = Command::new("bash").args(["-c", &script]).arg(&bin).arg(&file).arg(&m).output().unwrap();
        if o.status.success() {
            continue;
        }
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("the move was not stored"), "{err}");
        assert_eq!(seq(&f), before, "a refused write changed the game");
        ok(&["move", &file, &m]);
        assert_eq!(seq(&f), before + 1, "the retry was not stored exactly once");
        return;
    }
    panic!("no write ever reached the file-size limit");
}

/// While `arbiter play` is running (its connection open), the `.arbiter` file copied alone
/// carries every acknowledged move: there is no side file holding them.
#[test]
fn the_file_alone_carries_every_acknowledged_move_during_play() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("live.arbiter");
    let file = f.to_str().unwrap().to_string();
    ok(&["new", &file, "--seed", "8"]);
    let mut child = Command::new(cargo_bin("arbiter"))
        .args(["play", &file])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Enter at the hand-over, then the first listed move, five times.
    stdin.write_all(b"\n1\n1\n1\n1\n1\n").unwrap();
    stdin.flush().unwrap();
    let mut stored = 0;
    for _ in 0..500 {
        stored = seq(&f);
        if stored == 5 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(stored, 5, "the running session did not store its moves");
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    let copied = copy.join("live.arbiter");
    std::fs::copy(&f, &copied).unwrap();
    assert_eq!(seq(&copied), 5, "the copied file lacks acknowledged moves");
    drop(stdin);
    let _ = child.kill();
    child.wait().unwrap();
}
