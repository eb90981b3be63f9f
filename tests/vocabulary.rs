//! The generic parts of Arbiter name no game (issue 22): the kernel, the store and the server
//! (its code and its new-game page) never say a word of Twilight Struggle: not its name, not
//! DEFCON, the USSR, Influence or a headline, and no card's name. Each game's words live in its
//! own crate (engine/ and cards/ for Twilight Struggle, games/minesweeper/), its tests, and the
//! assembly crate that offers the games (games/catalogue/).

use std::path::{Path, PathBuf};

/// Where no game's word may appear, from the workspace root. `kernel/` is the engine: the
/// crate that was `engine/` holds Twilight Struggle's rules and lives with the game
/// (`games/twilight-struggle/engine/`); should an `engine/` come back, it is scanned too.
const GENERIC: [&str; 5] = ["kernel", "engine", "store", "server/src", "server/static"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("rs" | "js" | "html" | "css" | "toml" | "md")) {
            out.push(p);
        }
    }
}

/// Every word of Twilight Struggle to look for, lower case: the game's own, and each card's
/// name (those of a common word, "Blockade", too: a generic crate has no use for them).
fn words() -> Vec<String> {
    let mut w: Vec<String> = ["twilight", "defcon", "ussr", "influence", "headline", "superpower", "china card", "space race"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rules = arbiter_twilight_cards::ruleset();
    w.extend(rules.cards.all().map(|c| c.name.to_lowercase()));
    w
}

/// The first of `words` that `line` (lower case) holds as a whole word ("Nasser" is not
/// "nass"; "us" is not looked for at all).
fn word_in<'w>(line: &str, words: &'w [String]) -> Option<&'w str> {
    words.iter().map(String::as_str).find(|w| {
        line.match_indices(w).any(|(i, _)| {
            line[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric())
                && line[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

#[test]
fn the_kernel_store_and_server_name_no_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let words = words();
    assert!(words.len() > 110, "every card's name is looked for");
    let mut found = Vec::new();
    let mut scanned = 0;
    assert!(root.join("kernel").is_dir() && root.join("store").is_dir() && root.join("server/src").is_dir());
    for dir in GENERIC.iter().filter(|d| root.join(d).is_dir()) {
        let mut fs = Vec::new();
        files(&root.join(dir), &mut fs);
        for f in fs {
            scanned += 1;
            let text = std::fs::read_to_string(&f).unwrap().to_lowercase();
            for (n, line) in text.lines().enumerate() {
                if let Some(w) = word_in(line, &words) {
                    found.push(format!("{}:{}: {w:?}", f.strip_prefix(root).unwrap().display(), n + 1));
                }
            }
        }
    }
    assert!(scanned > 20, "the generic crates' files were read ({scanned})");
    assert!(found.is_empty(), "a generic crate names Twilight Struggle:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_word_where_there_is_one() {
    // The scan itself: a line naming a card and DEFCON is caught, a line without is not.
    let words = words();
    let has = |line: &str| word_in(&line.to_lowercase(), &words).is_some();
    assert!(has("// DEFCON drops by one"));
    assert!(has("a move of the Marshall Plan"));
    assert!(!has("open c4, flag b2: the seat's view"));
}
