//! The generic parts of Arbiter name no game: the kernel, the store and the server
//! (its code and its new-game page) never say a word of Twilight Struggle (not its name, not
//! DEFCON, the USSR, Influence, a coup or a headline, and no card's name); their code never
//! says a word of Minesweeper either (its name, a mine), though the store's own tests play it,
//! as the game that a store's test needs; and nowhere a word of Mafia or of Diplomacy. Each game's words live in
//! its own crates (`games/twilight-struggle/`, `games/minesweeper/`, `games/mafia/`, `games/diplomacy/`) and the assembly crate that offers the
//! games (`games/catalogue/`).

use std::path::{Path, PathBuf};

/// Where no word of Twilight Struggle may appear, from the workspace root. `kernel/` is the
/// engine: the crate that was `engine/` holds Twilight Struggle's rules and lives with the
/// game (`games/twilight-struggle/engine/`); should an `engine/` come back, it is scanned too.
const GENERIC: [&str; 5] = ["kernel", "engine", "store", "server/src", "server/static"];
/// Where no word of any game may appear: the generic crates' code.
const GENERIC_CODE: [&str; 5] = ["kernel/src", "engine", "store/src", "server/src", "server/static"];

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

/// Twilight Struggle's words, lower case: its own and each card's name (those of a common
/// word, "Blockade", too: a generic crate has no use for them).
fn twilight_words() -> Vec<String> {
    let mut w: Vec<String> = ["twilight", "defcon", "ussr", "influence", "headline", "superpower", "china card", "space race", "coup"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rules = arbiter_twilight_cards::ruleset();
    w.extend(rules.cards.all().map(|c| c.name.to_lowercase()));
    w
}

fn minesweeper_words() -> Vec<String> {
    ["minesweeper", "mine", "mines"].iter().map(|s| s.to_string()).collect()
}

fn mafia_words() -> Vec<String> {
    ["mafia", "mafioso", "roleblocker", "roleblock", "lynch", "lynched", "villager", "villagers"].iter().map(|s| s.to_string()).collect()
}

fn diplomacy_words() -> Vec<String> {
    ["diplomacy", "convoy", "convoys", "dislodged", "supply centre", "supply centres", "datc"].iter().map(|s| s.to_string()).collect()
}

/// The first of `words` that `line` (lower case) holds as a whole word ("Nasser" is not
/// "nass", "determine" is not "mine"; "us" is not looked for at all).
fn word_in<'w>(line: &str, words: &'w [String]) -> Option<&'w str> {
    words.iter().map(String::as_str).find(|w| {
        line.match_indices(w).any(|(i, _)| {
            line[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric())
                && line[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// Every line of the files under `dirs` (those that exist) holding one of `words`; and how many
/// files were read.
fn scan(dirs: &[&str], words: &[String]) -> (Vec<String>, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let (mut found, mut scanned) = (Vec::new(), 0);
    for dir in dirs.iter().filter(|d| root.join(d).is_dir()) {
        let mut fs = Vec::new();
        files(&root.join(dir), &mut fs);
        for f in fs {
            scanned += 1;
            let text = std::fs::read_to_string(&f).unwrap().to_lowercase();
            for (n, line) in text.lines().enumerate() {
                if let Some(w) = word_in(line, words) {
                    found.push(format!("{}:{}: {w:?}", f.strip_prefix(root).unwrap().display(), n + 1));
                }
            }
        }
    }
    (found, scanned)
}

#[test]
fn the_kernel_store_and_server_name_no_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    assert!(root.join("kernel/src").is_dir() && root.join("store/src").is_dir() && root.join("server/src").is_dir());
    let words = twilight_words();
    assert!(words.len() > 110, "every card's name is looked for");
    let (found, scanned) = scan(&GENERIC, &words);
    assert!(scanned > 20, "the generic crates' files were read ({scanned})");
    assert!(found.is_empty(), "a generic crate names Twilight Struggle:\n{}", found.join("\n"));
    let (found, scanned) = scan(&GENERIC_CODE, &minesweeper_words());
    assert!(scanned > 15, "the generic crates' code was read ({scanned})");
    assert!(found.is_empty(), "a generic crate's code names Minesweeper:\n{}", found.join("\n"));
    let (found, _) = scan(&GENERIC, &mafia_words());
    assert!(found.is_empty(), "a generic crate names Mafia:\n{}", found.join("\n"));
    let (found, _) = scan(&GENERIC, &diplomacy_words());
    assert!(found.is_empty(), "a generic crate names Diplomacy:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_word_where_there_is_one() {
    // The scan itself: a line naming a card and DEFCON is caught, a line without is not.
    let (ts, ms) = (twilight_words(), minesweeper_words());
    let has = |line: &str, words: &[String]| word_in(&line.to_lowercase(), words).is_some();
    assert!(has("// DEFCON drops by one", &ts));
    assert!(has("a move of the Marshall Plan", &ts));
    assert!(!has("open c4, flag b2: the seat's view", &ts));
    assert!(has("where the mines are", &ms) && !has("determine it", &ms));
    assert!(has("the Mafia win", &mafia_words()) && !has("a simultaneous step", &mafia_words()));
    assert!(has("F Nth C A Lon - Bel: a convoy", &diplomacy_words()) && !has("seven seats act at once", &diplomacy_words()));
}
