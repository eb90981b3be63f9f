//! Diplomacy through the `arbiter` binary: `arbiter new --game diplomacy` makes a game of seven
//! powers; each power gives its orders with `move --as POWER` (secret from the others: another
//! power's `log` shows only that an order was given), says `done`, and the phase resolves once
//! all seven are done; a game with `--option last_year=1901` plays to its shared draw.

use assert_cmd::Command;

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn ok(args: &[&str]) -> String {
    let o = arbiter().args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).to_string()
}

const POWERS: [&str; 7] = ["austria", "england", "france", "germany", "italy", "russia", "turkey"];

#[test]
fn seven_powers_order_in_secret_and_a_year_plays_to_its_draw() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("d.arbiter");
    let file = f.to_str().unwrap();
    assert!(ok(&["games"]).contains("diplomacy (Diplomacy): 7 seat(s)"));
    ok(&["new", file, "--game", "diplomacy", "--option", "last_year=1901"]);
    let moves: serde_json::Value = serde_json::from_str(&ok(&["moves", file, "--json", "--as", "england"])).unwrap();
    assert_eq!(moves["acting"].as_array().map(|a| a.len()), Some(7), "every power orders at once: {moves}");
    ok(&["move", file, "F Lon - Nth", "--as", "england"]);
    // A unit that cannot go there, and another power's unit: refused with the reason.
    let o = arbiter().args(["move", file, "F Edi - Lvp", "--as", "england"]).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("cannot reach"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = arbiter().args(["move", file, "A Par - Bur", "--as", "england"]).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("not England's"), "{}", String::from_utf8_lossy(&o.stderr));
    let france_log = ok(&["log", file, "--as", "france"]);
    assert!(!france_log.contains("Nth"), "England's order is secret from France: {france_log}");
    assert!(ok(&["log", file, "--as", "england"]).contains("F Lon - Nth"), "and England's own");
    ok(&["move", file, "A Par - Bur", "--as", "france"]);
    ok(&["move", file, "A Mun - Bur", "--as", "germany"]);
    for p in POWERS {
        ok(&["move", file, "done", "--as", p]);
    }
    let log = ok(&["log", file, "--as", "france"]);
    assert!(log.contains("England: F Lon - Nth: moves to North Sea."), "{log}");
    assert!(log.contains("France: A Par - Bur: does not move to Burgundy."), "a standoff: {log}");
    assert!(log.contains("Fall 1901"), "{log}");
    // Fall: nobody orders; the centres stay, builds are waived, and 1901 was the last year.
    for p in POWERS {
        ok(&["move", file, "done", "--as", p]);
    }
    let log = ok(&["log", file]);
    assert!(log.contains("The last year is over: Austria, England, France, Germany, Italy, Russia, Turkey share a draw."), "{log}");
    let o = arbiter().args(["move", file, "done", "--as", "england"]).output().unwrap();
    assert!(!o.status.success(), "the game is over");
}

/// Hot-seat for seven: each power takes the terminal behind a hand-over screen, gives its
/// orders one after another without passing it on, takes one back with `undo`, says `done`,
/// and passes it on; no power's screen shows another's orders before the phase resolves, and
/// then every order is told with its result.
#[test]
fn seven_powers_order_hot_seat_behind_the_hand_over_screen() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("d.arbiter");
    let file = f.to_str().unwrap();
    ok(&["new", file, "--game", "diplomacy", "--option", "last_year=1901"]);
    let orders: [&[&str]; 7] = [
        &["A Vie - Gal", "F Tri - Alb"],
        &["F Lon - Nth", "undo", "F Lon - Eng", "A Lvp - Yor"],
        &["A Par - Bur"],
        &["A Mun - Ruh", "F Kie - Den"],
        &["A Ven - Pie"],
        &["A War - Ukr"],
        &["F Ank - Bla"],
    ];
    let mut input = String::new();
    for o in orders {
        input.push('\n');
        for line in o {
            input.push_str(line);
            input.push('\n');
        }
        input.push_str("done\n\n");
    }
    let out = arbiter().args(["play", file, "--lines"]).write_stdin(input).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Each power's screen: from its hand-over to the next.
    let screens: Vec<&str> = text.split("── Pass the terminal to ").skip(1).collect();
    assert!(screens.len() >= 7, "{text}");
    for (k, o) in orders.iter().enumerate() {
        let screen = screens[k];
        assert!(screen.starts_with(POWERS[k]), "{k}: {screen}");
        for (j, theirs) in orders.iter().enumerate().filter(|(j, _)| *j != k) {
            for order in theirs.iter().filter(|o| **o != "undo") {
                let shown = screen.lines().any(|l| l.ends_with(&format!(": {order}")));
                assert!(!shown, "{}'s screen shows {}'s order {order}:\n{screen}", POWERS[k], POWERS[j]);
            }
        }
        // All of its orders on its one screen, without passing the terminal on between them.
        for order in o.iter().filter(|o| **o != "undo") {
            assert!(screen.contains(&format!("{}: {order}\n", POWERS[k])), "{}: {order}:\n{screen}", POWERS[k]);
        }
    }
    assert!(screens[1].contains("Taken back: F Lon - Nth"), "{}", screens[1]);
    let log = ok(&["log", file, "--as", "france"]);
    assert!(log.contains("England: F Lon - Eng: moves to English Channel."), "{log}");
    assert!(!log.contains("F Lon - Nth"), "the order taken back is gone: {log}");
    assert!(log.contains("Russia: A War - Ukr: moves to Ukraine."), "{log}");
    assert!(log.contains("Fall 1901"), "{log}");
}
