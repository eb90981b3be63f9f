//! The full-screen table through the real binary in a pseudo-terminal, read by a terminal
//! emulator (vt100): setup and a headline are played with the keys a player would press; at
//! every hand-over the screen shows no hand, each side sees only its own cards, and after
//! leaving, neither the screen nor the terminal's scrollback holds any card of either hand.

use std::path::Path;
use std::time::{Duration, Instant};

fn arbiter() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("arbiter").unwrap()
}

fn hand(file: &Path, who: &str) -> Vec<String> {
    let o = arbiter().args(["state", file.to_str().unwrap(), "--json", "--as", who]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["hand"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
}

fn headline(file: &Path, side: &str) -> Option<String> {
    let o = arbiter().args(["state", file.to_str().unwrap(), "--json", "--as", side]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["headline"][side].as_str().map(String::from)
}

struct Term {
    p: rexpect::session::PtySession,
    vt: vt100::Parser,
}

impl Term {
    /// Feed what the program wrote into the emulator until `done` holds for the screen.
    fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let mut bytes = Vec::new();
            while let Some(c) = self.p.try_read() {
                // rexpect hands over each byte as one char.
                bytes.push(c as u32 as u8);
            }
            self.vt.process(&bytes);
            let screen = self.vt.screen().contents();
            if done(&screen) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}; the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    /// Read until the program has been quiet for a moment (a whole frame drawn).
    fn settle(&mut self) -> String {
        let start = Instant::now();
        let mut quiet = Instant::now();
        while quiet.elapsed() < Duration::from_millis(250) {
            let mut bytes = Vec::new();
            while let Some(c) = self.p.try_read() {
                bytes.push(c as u32 as u8);
            }
            if !bytes.is_empty() {
                self.vt.process(&bytes);
                quiet = Instant::now();
            }
            assert!(start.elapsed() < Duration::from_secs(20), "the program never stopped drawing");
            std::thread::sleep(Duration::from_millis(20));
        }
        self.vt.screen().contents()
    }
    fn shows(&mut self, text: &str) -> String {
        self.until(text, |s| s.contains(text))
    }
    fn key(&mut self, k: &str) {
        self.p.send(k).unwrap();
        self.p.flush().unwrap();
    }
}

fn none_shown(screen: &str, cards: &[String], when: &str) {
    let shown: Vec<&String> = cards.iter().filter(|c| screen.contains(&short(c))).collect();
    assert!(shown.is_empty(), "{when}: {shown:?} on the screen:\n{screen}");
}

/// Card names as the hand panel prints them (16 characters at most).
fn short(c: &str) -> String {
    c.chars().take(16).collect()
}

#[test]
fn setup_and_a_headline_on_the_full_screen_table_leave_no_hand_in_the_scrollback() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.arbiter");
    arbiter().args(["new", f.to_str().unwrap(), "--seed", "8"]).assert().success();
    let (us, ussr) = (hand(&f, "us"), hand(&f, "ussr"));
    let only = |a: &[String], b: &[String]| a.iter().filter(|x| !b.contains(x)).cloned().collect::<Vec<_>>();
    let (us_only, ussr_only) = (only(&us, &ussr), only(&ussr, &us));
    let every: Vec<String> = us_only.iter().chain(&ussr_only).cloned().collect();

    let bin = assert_cmd::cargo::cargo_bin("arbiter");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(format!("stty rows 24 cols 80; exec '{}' play '{}'", bin.display(), f.display()));
    cmd.env("NO_COLOR", "1").env("TERM", "xterm-256color");
    let p = rexpect::session::spawn_command(cmd, Some(20_000)).unwrap();
    let mut t = Term { p, vt: vt100::Parser::new(24.try_into().unwrap(), 80.try_into().unwrap(), 10_000) };

    // First hand-over, to the USSR: the alternate screen, no card of either hand.
    let s = t.shows("Hand the keyboard to the USSR player");
    assert!(t.vt.screen().alternate_screen(), "the table is drawn on the alternate screen");
    none_shown(&s, &every, "the first hand-over");
    t.key("\r");
    let s = t.shows("USSR hand (");
    assert!(ussr_only.iter().any(|c| s.contains(&short(c))), "the USSR sees its hand:\n{s}");
    none_shown(&s, &us_only, "the USSR at the table");

    // Setup: six placements by Enter (the highlighted first move), then the end of the round.
    for left in (0..6).rev() {
        t.key("\r");
        if left > 0 {
            t.shows(&format!("place {left} more"));
        }
    }
    let s = t.shows("End of your round, USSR");
    none_shown(&s, &us_only, "the end of the USSR's round (the US decides next)");
    t.key("u");
    t.shows("place 1 more");
    t.key("\r");
    t.shows("End of your round, USSR");
    t.key("\r");
    let s = t.shows("Hand the keyboard to the US player");
    none_shown(&s, &every, "the hand-over to the US");
    // Typed text is discarded at a hand-over: `undo` and Enter would show nothing.
    t.key("undo");
    std::thread::sleep(Duration::from_millis(200));
    let s = t.until("the hand-over still", |s| s.contains("Hand the keyboard to the US player"));
    none_shown(&s, &every, "after typing at the hand-over");
    t.key("\r");
    let s = t.shows("US hand (");
    assert!(us_only.iter().any(|c| s.contains(&short(c))), "the US sees its hand:\n{s}");
    none_shown(&s, &ussr_only, "the US at the table");

    // The US places its Influence until its round ends.
    let s = loop {
        t.key("\r");
        let s = t.settle();
        if s.contains("End of your round, US") || s.contains("Hand the keyboard") {
            break s;
        }
        assert!(s.contains("US setup") || s.contains("US bonus") || s.contains("US: "), "still the US's setup:\n{s}");
    };
    if s.contains("End of your round, US") {
        none_shown(&s, &ussr_only, "the end of the US's round (the USSR decides next)");
        t.key("\r");
    }
    let s = t.shows("Hand the keyboard to the USSR player");
    none_shown(&s, &every, "the hand-over for the headline");
    t.key("\r");
    t.shows("choose your headline");
    // The USSR headlines its first card, secretly.
    t.key("\r");
    let s =
        t.until("the USSR's round to end", |s| s.contains("End of your round, USSR") || s.contains("Hand the keyboard to the US player"));
    none_shown(&s, &us_only, "the end of the USSR's headline choice");
    let secret = headline(&f, "ussr").expect("the USSR has chosen a headline");
    if t.vt.screen().contents().contains("End of your round") {
        t.key("\r");
    }
    let s = t.shows("Hand the keyboard to the US player");
    none_shown(&s, &every, "the hand-over after the USSR's headline");
    t.key("\r");
    let s = t.shows("choose your headline");
    none_shown(&s, &ussr_only, "the US choosing its headline");
    assert!(!s.contains(&short(&secret)) || us.contains(&secret), "the USSR's headline is secret from the US:\n{s}");

    // Leave: back to the main screen, which must hold nothing of a hand, nor its scrollback.
    t.p.send_control('q').unwrap();
    let rest = t.p.exp_eof().unwrap();
    t.vt.process(&rest.chars().map(|c| c as u32 as u8).collect::<Vec<u8>>());
    assert!(!t.vt.screen().alternate_screen(), "the alternate screen is left on exit");
    let rows = t.vt.screen().scrollback_len();
    for offset in 0..=rows {
        t.vt.screen_mut().set_scrollback(offset);
        let s = t.vt.screen().contents();
        none_shown(&s, &every, &format!("the main screen scrolled back {offset} rows"));
    }
}
