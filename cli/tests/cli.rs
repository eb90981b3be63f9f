//! The `arbiter` binary, driven as a user or a script would.

use assert_cmd::Command;
use std::path::Path;

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn out(args: &[&str]) -> String {
    let o = arbiter().args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn state(file: &Path, viewer: &str) -> serde_json::Value {
    serde_json::from_str(&out(&["state", file.to_str().unwrap(), "--json", "--as", viewer])).unwrap()
}

fn new_game(dir: &Path, seed: &str) -> std::path::PathBuf {
    let f = dir.join("g.arbiter");
    out(&["new", f.to_str().unwrap(), "--seed", seed]);
    f
}

#[test]
fn new_moves_move_state_log_replay_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "11");
    let file = f.to_str().unwrap();
    let moves = out(&["moves", file]);
    let first: Vec<&str> = moves.lines().collect();
    assert!(first.contains(&"influence Poland"), "{moves}");
    // Feed the listed moves back, as a script would.
    for _ in 0..6 {
        let m = out(&["moves", file]).lines().next().unwrap().to_string();
        out(&["move", file, &m, "--as", "ussr"]);
    }
    let s = state(&f, "us");
    assert_eq!(s["seq"], 6);
    assert_eq!(s["to_move"], "us");
    for key in [
        "turn",
        "action_round",
        "phasing",
        "defcon",
        "vp",
        "military_ops",
        "space_race",
        "influence",
        "china_card",
        "hand",
        "hand_sizes",
        "deck_size",
        "discard",
        "removed",
        "effects",
        "to_move",
        "outcome",
    ] {
        assert!(s.get(key).is_some(), "state JSON lacks {key}");
    }
    assert_eq!(s["influence"]["Finland"]["ussr"], 7, "6 more in Finland (listed first)");
    assert_eq!(s["hand"].as_array().unwrap().len(), 8);
    assert_eq!(state(&f, "observer")["hand"].as_array().unwrap().len(), 0);
    let log = out(&["log", file, "--as", "observer"]);
    assert!(log.contains("#6 USSR"), "{log}");
    for card in s["hand"].as_array().unwrap() {
        assert!(!log.contains(card.as_str().unwrap()), "the observer's log names a US hand card: {log}");
    }
    let us_log = out(&["log", file, "--as", "us"]);
    let ussr_hand = state(&f, "ussr")["hand"].as_array().unwrap().clone();
    for card in s["hand"].as_array().unwrap() {
        assert!(us_log.contains(&format!("US draws {}", card.as_str().unwrap())), "{us_log}");
    }
    for card in ussr_hand.iter().filter(|c| !s["hand"].as_array().unwrap().contains(c)) {
        assert!(!us_log.contains(card.as_str().unwrap()), "the US log names a USSR card: {us_log}");
    }
    let replay = out(&["replay", file, "--to", "3", "--step"]);
    assert!(replay.contains("Replayed and verified 3 of 6 moves."), "{replay}");
    let m: serde_json::Value = serde_json::from_str(&out(&["moves", file, "--json"])).unwrap();
    assert_eq!(m["to_move"], "us");
}

#[test]
fn an_illegal_move_exits_2_and_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "3");
    let file = f.to_str().unwrap();
    out(&["move", file, "influence Poland"]);
    let before = out(&["log", file, "--as", "all"]);
    let o = arbiter().args(["move", file, "influence Austria", "coup Poland", "influence Poland"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim(), "arbiter: cannot coup Poland: setup places Influence: use `influence COUNTRY` (§3)");
    // The move before the illegal one is kept; the illegal one and those after it are not.
    let after = out(&["log", file, "--as", "all"]);
    assert!(after.starts_with(&before[..before.find("#1").unwrap()]));
    assert_eq!(after.matches("\n#").count(), before.matches("\n#").count() + 1, "{after}");
    let o = arbiter().args(["move", file, "influence Austria", "--as", "us"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("it is the USSR's decision"));
}

#[test]
fn errors_are_one_sentence_with_the_right_status() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "3");
    let file = f.to_str().unwrap();
    let o = arbiter().args(["new", file]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "refuses to overwrite");
    out(&["new", file, "--force", "--seed", "4"]);
    let o = arbiter().args(["state", "/nonexistent/x.arbiter"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    let o = arbiter().args(["move", file, "fly Poland"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = arbiter().args(["bogus"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(out(&["help", "move"]).contains("Apply moves in order"));
}

#[test]
fn replay_reports_a_divergence_with_status_1() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "5");
    let file = f.to_str().unwrap();
    out(&["move", file, "influence Poland", "influence Poland"]);
    let c = rusqlite::Connection::open(&f).unwrap();
    c.execute("UPDATE events SET state_hash = '0123456789abcdef' WHERE seq = 2", []).unwrap();
    // The integrity chain shows the edit first.
    let o = arbiter().args(["replay", file]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is damaged at move 2"), "{o:?}");
    // Rewritten without the chain (as a forger would, or an older file), replay still tells.
    drop(c);
    arbiter_games::legacy::rewrite_as_version_1(&f).unwrap();
    let o = arbiter().args(["replay", file]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("replay diverges at move 2 (\"influence Poland\"): state hash: expected 0123456789abcdef"), "{err}");
}

#[test]
fn scripted_hot_seat_session_plays_through_a_whole_turn() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "21");
    // Enter at each hand-over (elsewhere an empty line does nothing), then the first listed
    // move, then `yes` should it need confirming (elsewhere refused as a move, harmlessly).
    let script: String = std::iter::repeat_n("\n1\nyes\n", 400).collect();
    let o = arbiter().args(["play", f.to_str().unwrap()]).write_stdin(script).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = state(&f, "observer");
    assert!(s["turn"].as_u64().unwrap() >= 2 || !s["outcome"].is_null(), "{s}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Hand the keyboard to the US player"));
    // Seed 21 reaches a last action round short of military ops: the table warns first.
    assert!(text.contains("Warning: this is your last action round"), "no warning shown");
}

/// `arbiter play --vs computer --lines` as the US: the computer (the USSR) headlines first, and
/// its choice is shown as the game hides it; its card is named only once both headlines are
/// revealed.
#[test]
fn the_computer_s_headline_is_secret_in_line_mode_until_revealed() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "4");
    let script: String = std::iter::repeat_n("\n1\nyes\n", 150).collect();
    let o = arbiter()
        .args(["play", f.to_str().unwrap(), "--vs", "computer", "--level", "1", "--as", "us", "--lines"])
        .write_stdin(script)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let chosen: Vec<&str> = text.lines().filter(|l| l.starts_with("The computer (USSR): headline")).collect();
    assert!(!chosen.is_empty(), "the computer never headlined: {text}");
    for l in &chosen {
        assert_eq!(*l, "The computer (USSR): headline (a secret choice until both headlines are revealed)");
    }
    // Each of the computer's headline cards (from the file, as a referee reads it) is first
    // named when its turn's headlines are revealed ("Headlines revealed: US …, USSR …").
    let log = out(&["log", f.to_str().unwrap(), "--as", "all"]);
    let cards: Vec<String> = log.lines().filter_map(|l| l.split("USSR headline: ").nth(1)).map(str::to_string).collect();
    assert!(!cards.is_empty(), "{log}");
    let mut rest: &str = &text;
    for card in &cards {
        let at = rest.find("The computer (USSR): headline").expect("the computer's headline");
        let reveal = rest[at..].find("Headlines revealed: ").map(|i| at + i).expect("its reveal");
        assert!(!rest[at..reveal].contains(card.as_str()), "{card} was shown before the reveal:\n{}", &rest[at..reveal]);
        rest = &rest[reveal..];
    }
}

/// `arbiter play --vs computer`: the player keeps the keyboard (no hand-over), the computer's
/// moves are rows of the file like any other, and the flags are checked.
#[test]
fn play_against_the_computer_in_line_mode() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "4");
    // Enter to let the computer answer (elsewhere an empty line does nothing), then the first
    // listed move, then `yes` should it need confirming.
    let script: String = std::iter::repeat_n("\n1\nyes\n", 150).collect();
    let o = arbiter()
        .args(["play", f.to_str().unwrap(), "--vs", "computer", "--level", "1", "--as", "ussr"])
        .write_stdin(script)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("You play the USSR; the computer (computer:1) plays the US."), "{text}");
    assert!(text.contains("The computer (US): influence "), "{text}");
    assert!(!text.contains("Hand the keyboard"), "{text}");
    // The file holds both sides' moves and replays (every command opens it that way).
    let log = out(&["log", f.to_str().unwrap(), "--as", "all"]);
    assert!(log.contains("US") && log.contains("USSR"));
    let s = state(&f, "observer");
    assert!(s["turn"].as_u64().unwrap() >= 1, "{s}");
    for (args, says) in [
        (vec!["--as", "ussr"], "give --vs computer too"),
        (vec!["--vs", "computer", "--as", "nato"], "no seat \"nato\" in Twilight Struggle; the seats are: us, ussr"),
        (vec!["--vs", "computer:6"], "no level 6"),
        (vec!["--vs", "greedy", "--level", "2"], "--level is the level of --vs computer"),
        (vec!["--vs", "chess-engine"], "no agent"),
    ] {
        let o = arbiter().arg("play").arg(&f).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let mines = dir.path().join("m.arbiter");
    let o = arbiter().args(["play", "--game", "minesweeper", "--vs", "computer"]).arg(&mines).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("Minesweeper has 1 seat(s): --vs plays a game of two"));
}

#[test]
fn play_without_a_file_uses_and_announces_the_default_save() {
    let dir = tempfile::tempdir().unwrap();
    let o = arbiter().args(["play"]).env("ARBITER_HOME", dir.path()).write_stdin("\nquit\n").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&format!("saved in {}", dir.path().join("hotseat.arbiter").display())), "{text}");
    let o = arbiter().args(["play"]).env("ARBITER_HOME", dir.path()).write_stdin("\nquit\n").output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("Resuming the game saved in"));
}

/// In a real terminal, the hand-over clears the screen and shows nothing of the other hand.
#[test]
fn hand_over_in_a_terminal_hides_the_other_hand() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "8");
    let hand =
        |who: &str| -> Vec<String> { state(&f, who)["hand"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect() };
    let (us, ussr) = (hand("us"), hand("ussr"));
    let only = |a: &[String], b: &[String]| a.iter().filter(|x| !b.contains(x)).cloned().collect::<Vec<_>>();
    let (us_only, ussr_only) = (only(&us, &ussr), only(&ussr, &us));
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("arbiter"));
    cmd.args(["play", "--lines", f.to_str().unwrap()]).env("NO_COLOR", "1").env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
    let before = p.exp_string("Hand the keyboard to the USSR player").unwrap();
    assert!(ussr_only.iter().chain(&us_only).all(|c| !before.contains(c.as_str())), "{before}");
    p.send_line("").unwrap();
    let ussr_screen = p.exp_string("USSR> ").unwrap();
    assert!(ussr_only.iter().any(|c| ussr_screen.contains(c.as_str())), "the USSR sees its hand: {ussr_screen}");
    assert!(us_only.iter().all(|c| !ussr_screen.contains(c.as_str())), "the USSR must not see the US hand: {ussr_screen}");
    for i in 0..6 {
        p.send_line("1").unwrap();
        if i < 5 {
            // Wait for the prompt, as a person would: a line editor drops typed-ahead input.
            p.exp_string("USSR> ").unwrap();
        }
    }
    // End of the round: the USSR may still take its last placement back before handing over.
    p.exp_string("End of your round, USSR").unwrap();
    p.send_line("undo").unwrap();
    p.exp_string("Undone: ").unwrap();
    p.exp_string("USSR> ").unwrap();
    p.send_line("1").unwrap();
    p.exp_string("End of your round, USSR").unwrap();
    p.send_line("").unwrap();
    let handover = p.exp_string("Hand the keyboard to the US player").unwrap();
    assert!(handover.contains("\x1b[2J\x1b[3J"), "the screen and the scrollback are cleared before the hand-over");
    let tail = &handover[handover.rfind("\x1b[2J").unwrap()..];
    assert!(ussr_only.iter().chain(&us_only).all(|c| !tail.contains(c.as_str())), "{tail}");
    // Typed text at the hand-over is discarded, not run (it once undid and showed a hand).
    p.send_line("undo").unwrap();
    let ignored = p.exp_string("press Enter with nothing typed").unwrap();
    assert!(ussr_only.iter().chain(&us_only).all(|c| !ignored.contains(c.as_str())), "{ignored}");
    p.send_line("").unwrap();
    let us_screen = p.exp_string("US> ").unwrap();
    assert!(us_only.iter().any(|c| us_screen.contains(c.as_str())), "{us_screen}");
    assert!(ussr_only.iter().all(|c| !us_screen.contains(c.as_str())), "the US must not see the USSR hand: {us_screen}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn bench_reports_json_and_does_not_depend_on_the_thread_count() {
    let run = |threads: &str| -> serde_json::Value {
        serde_json::from_str(&out(&["bench", "--games", "40", "--seed", "5", "--threads", threads, "--json"])).unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    for key in ["games", "games_per_sec", "decisions_per_sec", "mean_decisions_per_game", "end_reasons", "peak_rss_bytes"] {
        assert!(one.get(key).is_some(), "bench JSON lacks {key}: {one}");
    }
    assert_eq!(one["games"], 40);
    assert_eq!(
        (&one["digest"], &one["end_reasons"], &one["mean_decisions_per_game"]),
        (&two["digest"], &two["end_reasons"], &two["mean_decisions_per_game"])
    );
    let reasons: u64 = one["end_reasons"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(reasons, 40);
}

/// Names resolve by context: an ambiguous prefix means the card the decision can use, and
/// "China" is The China Card.
#[test]
fn names_resolve_by_context() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "4");
    let file = f.to_str().unwrap();
    // Setup and headlines, always the first listed move, until the USSR's first action round.
    while !out(&["moves", file]).lines().any(|l| l.starts_with("play ")) {
        let m = out(&["moves", file]).lines().next().unwrap().to_string();
        out(&["move", file, &m]);
    }
    let hand: Vec<String> = state(&f, "ussr")["hand"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    assert!(hand.contains(&"Marshall Plan".to_string()), "seed 4 deals Marshall Plan to the USSR: {hand:?}");
    assert!(!hand.iter().any(|c| c != "Marshall Plan" && c.starts_with('M')), "{hand:?}");
    // "M" names many cards (Marshall Plan, Missile Envy, Muslim Revolution…); one is held.
    let copy = dir.path().join("copy.arbiter");
    std::fs::copy(&f, &copy).unwrap();
    out(&["move", copy.to_str().unwrap(), "play M space"]);
    assert!(out(&["log", copy.to_str().unwrap()]).contains("USSR plays Marshall Plan"));
    // With nothing held to settle it, a prefix stays ambiguous.
    let o = arbiter().args(["move", file, "play Nuclear ops"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("is ambiguous"), "{o:?}");
    out(&["move", file, "play China ops"]);
    assert!(out(&["log", file]).contains("USSR plays The China Card"));
}

/// The `country` command in play finds a country by a unique prefix and lists its neighbours.
#[test]
fn country_by_prefix_with_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "3");
    let o = arbiter().args(["play", f.to_str().unwrap()]).write_stdin("\ncountry Pol\ncountry Nowhere\nquit\n").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Poland*") && text.contains("neighbours: Czechoslovakia, East Germany, USSR"), "{text}");
    assert!(text.contains("no country matches \"Nowhere\""), "{text}");
}

/// `arbiter card NAME` prints a card's Ops, side, era, marks and text; `--json` too.
#[test]
fn card_prints_what_a_card_does() {
    let text = out(&["card", "NATO"]);
    assert!(text.starts_with("NATO (#21)\n4 Ops, US event, Early War; starred"), "{text}");
    assert!(text.contains("Marshall Plan or Warsaw Pact Formed"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&out(&["card", "china", "--json"])).unwrap();
    assert_eq!((v["id"].as_u64(), v["ops"].as_u64()), (Some(6), Some(4)));
    assert!(v["text"].as_str().unwrap().contains("Asia"));
    let o = arbiter().args(["card", "Nowhere"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// In the line mode, `card NAME` says what a card does.
#[test]
fn card_in_the_line_mode() {
    let dir = tempfile::tempdir().unwrap();
    let f = new_game(dir.path(), "4");
    let o = arbiter().args(["play", f.to_str().unwrap()]).write_stdin("\ncard NATO\ncard Nowhere\nquit\n").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("NATO (4 Ops): "), "{text}");
    assert!(text.contains("Nowhere"), "an unknown name is said to be unknown: {text}");
}

/// `arbiter fixtures` runs Minesweeper's fixtures beside Twilight Struggle's, by their `game`
/// field; a wrong expectation fails with its reason.
#[test]
fn fixtures_of_minesweeper_run_by_their_game() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/minesweeper/fixtures");
    let o = out(&["fixtures", dir]);
    assert!(o.contains("ok      MINE-001") && o.trim_end().ends_with("7 passed, 0 failed"), "{o}");
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.json");
    std::fs::write(
        &bad,
        serde_json::json!({"game": "minesweeper", "id": "MINE-X", "title": "t", "rules": ["r"],
            "board": {"width": 4, "height": 3, "mines": ["a1"]},
            "steps": [{"move": "open c1"}], "expect": {"board": ["####", "####", "####"], "outcome": null}})
        .to_string(),
    )
    .unwrap();
    let o = arbiter().args(["fixtures", bad.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("FAILED  MINE-X") && text.contains("board: expected"), "{text}");
}

/// "At any time" in the line mode: where the side not deciding may cancel the Cuban Missile
/// Crisis, the decision says so; `interject` lists the moves, `interject 1` makes the first as
/// that side, and the log tells it. The game is reached by `arbiter move` from a random game
/// of the referee's own that gets there.
#[test]
fn the_line_mode_lets_the_side_not_deciding_interject() {
    let options = arbiter_twilight::Options { optional_cards: false, us_bonus: 2 };
    let reached = arbiter_twilight::playout::random_until(&arbiter_twilight_cards::ruleset(), options, 0..400, |g| {
        // A cancellation: a headline chosen early (§4.5C) is for players at two screens, not
        // offered at one keyboard.
        g.to_move().is_some_and(|d| g.interjections(d.opponent()).iter().any(|m| matches!(m, arbiter_twilight::Move::Cancel { .. })))
    })
    .expect("an interjection in 400 random games");
    let (seed, interjector) = (reached.seed, reached.game.to_move().unwrap().opponent());
    let prefix: Vec<String> = reached.moves.into_iter().map(|(_, m)| m).collect();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.arbiter");
    out(&["new", f.to_str().unwrap(), "--seed", &seed.to_string(), "--option", "us_bonus=2"]);
    for chunk in prefix.chunks(200) {
        let mut args = vec!["move", f.to_str().unwrap()];
        args.extend(chunk.iter().map(String::as_str));
        out(&args);
    }
    let o = arbiter().args(["play", "--lines", f.to_str().unwrap()]).write_stdin("\ninterject\ninterject 1\nquit\n").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&format!("(The {interjector} may interject now")), "{text}");
    assert!(text.contains(&format!("The {interjector} may interject now, while the")), "{text}");
    let decider = interjector.opponent();
    assert!(text.contains(&format!("The {interjector} interjects while the {decider} decides")), "{text}");
    let log = out(&["log", f.to_str().unwrap()]);
    assert!(log.contains(&format!("{interjector} (")) && log.contains("cancel \"Cuban Missile Crisis\""), "{log}");
}

/// Minesweeper through the same commands as Twilight Struggle: `new --game minesweeper` with its
/// options, `moves`, `move`, `state` (text and `--json`: `board` and `outcome`), `undo` (not
/// past the open that placed the mines), `log`, `replay`, and the line mode of `play`; to the
/// end of a game, where every mine is shown.
#[test]
fn minesweeper_is_played_through_the_same_commands() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("m.arbiter");
    let file = f.to_str().unwrap();
    // Options of another game, and impossible ones, are refused and create nothing.
    for (args, says) in [
        (
            vec!["new", file, "--game", "minesweeper", "--option", "us_bonus=3"],
            "no option \"us_bonus\": its options are width, height, mines, preset",
        ),
        (vec!["new", file, "--option", "width=9"], "no option \"width\": its options are optional_cards, us_bonus"),
        (vec!["new", file, "--game", "minesweeper", "--option", "width=4", "--option", "height=4", "--option", "mines=16"], "mines"),
        (
            vec!["new", file, "--game", "minesweeper", "--option", "preset=nine"],
            "preset is one of beginner, intermediate, expert, not \"nine\"",
        ),
        (vec!["new", file, "--game", "minesweeper", "--option", "width=nine"], "width is a whole number from 2 to 26"),
        (vec!["new", file, "--game", "minesweeper", "--size", "9x9"], "unexpected argument '--size'"),
        (vec!["new", file, "--game", "chess"], "twilight-struggle, minesweeper"),
    ] {
        let o = arbiter().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(!f.exists(), "{args:?}");
    }
    // A classic board by name.
    let expert = dir.path().join("expert.arbiter");
    out(&["new", expert.to_str().unwrap(), "--game", "minesweeper", "--option", "preset=Expert"]);
    let st = out(&["state", expert.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&st).unwrap();
    assert_eq!((v["width"].as_u64(), v["height"].as_u64(), v["mines"].as_u64()), (Some(16), Some(30), Some(99)), "{v}");
    // A preset with a number of its own changed; the file keeps the board, not the name.
    out(&["new", expert.to_str().unwrap(), "--force", "--game", "minesweeper", "--option", "preset=intermediate", "--option", "mines=50"]);
    let v: serde_json::Value = serde_json::from_str(&out(&["state", expert.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!((v["width"].as_u64(), v["height"].as_u64(), v["mines"].as_u64()), (Some(16), Some(16), Some(50)), "{v}");
    let saved = arbiter_store::Session::open_read_only(&expert, &arbiter_games::catalogue()).unwrap();
    let kept: serde_json::Value = serde_json::from_str(&saved.header().options).unwrap();
    assert_eq!(kept, serde_json::json!({"width": 16, "height": 16, "mines": 50}));
    drop(saved);
    out(&["new", file, "--game", "minesweeper", "--option", "width=6", "--option", "height=5", "--option", "mines=4", "--seed", "3"]);
    let moves = out(&["moves", file]);
    assert!(moves.lines().any(|l| l == "open a1") && moves.lines().any(|l| l == "flag f5"), "{moves}");
    assert_eq!(moves.lines().count(), 6 * 5 * 2, "open and flag each cell");
    out(&["move", file, "flag b2", "--as", "player"]);
    assert_eq!(out(&["undo", file]).trim(), "Undone: move 1 (flag b2) by the Player");
    out(&["move", file, "open c3"]);
    let o = arbiter().args(["undo", file]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("revealed"), "the open placed the mines: no undo");
    let v = state(&f, "player");
    let board: Vec<String> = v["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
    assert_eq!((board.len(), board[0].len()), (5, 6));
    assert!(v["outcome"].is_null());
    assert!(board.iter().all(|r| !r.contains('*')), "no mine shown while playing: {board:?}");
    assert_eq!(state(&f, "observer")["board"], v["board"], "the observer sees what the player sees");
    let text = out(&["state", file]);
    assert!(text.starts_with("    a b c d e f\n  1 "), "{text}");
    assert!(text.contains("4 mines, 0 flagged"), "{text}");
    // Open every closed cell in turn until the game ends (the line mode's way: a cell alone).
    let mut script = String::new();
    for r in 1..=5 {
        for c in ['a', 'b', 'c', 'd', 'e', 'f'] {
            script += &format!("{c}{r}\n");
        }
    }
    let o = arbiter().args(["play", file, "--lines"]).write_stdin(script).output().unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{said}");
    assert!(said.contains("Game over:"), "{said}");
    let end = state(&f, "player");
    let outcome = end["outcome"].as_str().unwrap();
    let mines: usize = end["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().matches(['*', 'X']).count()).sum();
    assert!(outcome == "lost" || outcome == "won");
    assert_eq!(mines, 4, "every mine shown at the end: {end}");
    let log = out(&["log", file]);
    assert!(log.contains("#1 Player") && log.contains("The 4 mines are placed, none at c3"), "{log}");
    let replayed = out(&["replay", file]);
    assert!(replayed.contains("Replayed and verified"), "{replayed}");
    // A refused `new --force` leaves the game it would have replaced.
    let o = arbiter().args(["new", file, "--force", "--game", "minesweeper", "--option", "mines=500"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(f.exists() && out(&["replay", file]).contains("Replayed and verified"), "the old game is kept");
    let json: serde_json::Value = serde_json::from_str(&out(&["moves", file, "--json"])).unwrap();
    assert_eq!(json["game"], "minesweeper");
    assert_eq!(json["outcome"]["reason"].as_str().map(str::to_lowercase).as_deref(), Some(outcome));
}

/// The text report names every game an agent won by its end, and says "no game" for an agent
/// that won none (seeds from the largest wrap around: game 1 has seed 0).
#[test]
fn the_arena_report_says_when_an_agent_won_no_game() {
    let text = out(&["arena", "--games", "2", "--seed", "18446744073709551615"]);
    let line = text.lines().find(|l| l.starts_with("a won by:")).unwrap_or_else(|| panic!("{text}"));
    let json: serde_json::Value =
        serde_json::from_str(&out(&["arena", "--games", "2", "--seed", "18446744073709551615", "--json"])).unwrap();
    let a_wins = json["a_wins"].as_u64().unwrap();
    let b_wins = json["b_wins"].as_u64().unwrap();
    // This seed's two games are both won by b (random play, fixed by the seed).
    assert_eq!((a_wins, b_wins), (0, 2), "{json}");
    assert!(line.starts_with("a won by: no game; b won by: "), "{line}");
    assert!(!line.ends_with(": "), "{line}");
}

/// `arbiter arena`: two agents, seats swapped every game; the result is the same on any number
/// of threads; a game of one seat, an unknown agent or level and no games are refused by name.
#[test]
fn the_arena_counts_every_game_the_same_on_any_thread_count() {
    let run = |threads: &str| -> serde_json::Value {
        serde_json::from_str(&out(&[
            "arena",
            "--games",
            "12",
            "--a",
            "random",
            "--b",
            "random",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ]))
        .unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one["games"], 12);
    let total = ["a_wins", "b_wins", "draws"].iter().map(|k| one[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(total, 12, "{one}");
    let reasons: u64 = one["end_reasons"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(reasons, 12);
    for k in ["a_wins", "b_wins", "draws", "end_reasons", "elo"] {
        assert_eq!(one[k], two[k], "{k}: the threads change nothing");
    }
    assert!(one["a"]["decisions"].as_u64().unwrap() > 12 && one["b"]["decisions"].as_u64().unwrap() > 12);
    for (args, says) in [
        (vec!["arena", "--game", "minesweeper"], "Minesweeper has 1 seat"),
        (vec!["arena", "--a", "computer:7"], "no level 7: the levels are 1 (quick) to 5 (slow)"),
        (vec!["arena", "--b", "nobody"], "the agents are: random, greedy, computer"),
        (vec!["arena", "--games", "0"], "--games must be at least 1"),
    ] {
        let o = arbiter().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// The agents differ in strength as they should: the one-move greedy agent beats random play,
/// and the search beats greedy (few games: the strength table in BENCHMARKS.md has the
/// measurements).
#[test]
fn stronger_agents_win_the_arena() {
    let run = |a: &str, b: &str, games: &str| -> serde_json::Value {
        serde_json::from_str(&out(&["arena", "--games", games, "--a", a, "--b", b, "--seed", "300", "--threads", "2", "--json"])).unwrap()
    };
    let r = run("greedy", "random", "6");
    assert_eq!(r["a_wins"], 6, "{r}");
    assert!(r["a"]["micros_per_decision"].as_f64().unwrap() > 0.0);
    let r = run("computer:1", "random", "2");
    assert_eq!(r["a_wins"], 2, "{r}");
}

/// A game whose changes a server's redo log beside it still holds (the server running on the
/// folder, or stopped by a crash before its next start brought the file up to date): `move`,
/// `undo` and `play` refuse to write it, saying what to do, and change nothing (that start would
/// undo them); reading it is still allowed.
#[test]
fn a_game_a_server_s_redo_log_holds_is_not_written() {
    use arbiter_store::{Journal, RedoLog, Segments, Session, SqliteStore};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.arbiter");
    let (log, _) = RedoLog::open_with(dir.path(), Segments::OnCall).unwrap();
    let mut s =
        Session::create_with(&arbiter_games::MINESWEEPER, &serde_json::json!({"width": 9, "height": 9, "mines": 10}), 5, |header| {
            SqliteStore::create_with(&path, header, Journal::WriteAhead)?.with_redo(log.clone())
        })
        .unwrap();
    s.play("flag a1", None).unwrap();
    let file = path.to_str().unwrap();
    for args in [vec!["move", file, "flag b2"], vec!["undo", file], vec!["play", file, "--lines"]] {
        let o = arbiter().args(&args).write_stdin("").output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("redo log") && err.contains("arbiter serve --data") && err.contains("Nothing was changed"), "{args:?}: {err}");
    }
    assert!(out(&["log", file]).contains("flag a1"), "read as it is");
    assert_eq!(s.seq(), 1);
    drop(s);
    drop(log);
    // The server stopped cleanly (its log folded into the file): written again.
    out(&["move", file, "flag b2"]);
}

/// `arbiter import --data DIR` stores a player's file in a server's data folder (refusing an
/// id it holds), `arbiter export --data DIR` writes it back as a file that replays to the same
/// moves and chain; while a process holds the folder (a server), both refuse and change
/// nothing, saying to stop the server.
#[test]
fn a_game_goes_into_a_server_s_data_folder_and_back_out() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let (data_s, file) = (data.to_str().unwrap(), new_game(dir.path(), "3"));
    let file_s = file.to_str().unwrap();
    for _ in 0..4 {
        let m = out(&["moves", file_s]).lines().next().unwrap().to_string();
        out(&["move", file_s, &m, "--as", "ussr"]);
    }
    let said = out(&["import", file_s, "--data", data_s, "--id", "g1"]);
    assert!(said.contains("as game g1: 4 move(s)"), "{said}");
    let again = arbiter().args(["import", file_s, "--data", data_s, "--id", "g1"]).output().unwrap();
    assert!(!again.status.success(), "an id the folder holds is refused");
    let back = dir.path().join("back.arbiter");
    let said = out(&["export", "g1", "--data", data_s, back.to_str().unwrap()]);
    assert!(said.contains("Exported game g1") && said.contains("4 move(s)"), "{said}");
    assert_eq!(out(&["log", back.to_str().unwrap()]), out(&["log", file_s]), "the same game");
    let chain = |s: &str| s.rsplit("chain ").next().unwrap().trim().to_string();
    assert_eq!(chain(&said), chain(&out(&["import", file_s, "--data", data_s, "--id", "g2"])), "the same chain");
    let neither = arbiter().args(["export", "g1", back.to_str().unwrap()]).output().unwrap();
    assert!(!neither.status.success(), "a store is needed");

    let held = arbiter_store::FolderDatabase::open(&data).unwrap();
    let other = dir.path().join("other.arbiter");
    for args in [vec!["export", "g1", "--data", data_s, other.to_str().unwrap()], vec!["import", file_s, "--data", data_s, "--id", "g3"]] {
        let o = arbiter().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("stop the server"), "{args:?}: {err}");
    }
    assert!(!other.exists());
    let mut ids = held.game_ids().unwrap();
    ids.sort();
    assert_eq!(ids, ["g1", "g2"], "nothing changed while held");
}
