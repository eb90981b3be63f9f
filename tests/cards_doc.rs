//! CARDS.md must tell the truth: every card, its status as the registry sees it, and the rules
//! tests that name it. Run with `BLESS=1` to rewrite CARDS.md after adding an event or a test.

use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::path::Path;

/// Fixture ids by the card numbers their `rules` cite (`"card #83"`).
fn fixtures_by_card() -> BTreeMap<u8, Vec<String>> {
    fn walk(dir: &Path, out: &mut BTreeMap<u8, Vec<String>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("fixtures folder").flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable fixture");
            let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let id = json["id"].as_str().unwrap_or("?").to_string();
            for rule in json["rules"].as_array().into_iter().flatten().filter_map(|r| r.as_str()) {
                if let Some(n) = rule.strip_prefix("card #").and_then(|n| n.parse::<u8>().ok()) {
                    out.entry(n).or_default().push(id.clone());
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut out);
    out
}

fn expected() -> String {
    let rules = arbiter_cards::ruleset();
    let fixtures = fixtures_by_card();
    let tests_src = include_str!("rules.rs");
    // Split the rules tests into (name, body) by `fn ` at the start of a line.
    let mut tests: Vec<(&str, &str)> = Vec::new();
    let starts: Vec<usize> = tests_src.match_indices("\nfn ").map(|(i, _)| i + 1).collect();
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(tests_src.len());
        let body = &tests_src[s..end];
        let name = body[3..].split('(').next().unwrap_or("");
        tests.push((name, body));
    }
    let mut out = String::from(
        "# Cards\n\n\
Every card of Twilight Struggle (Deluxe), its status in Arbiter, and the rules tests that name it.\n\
All 110 cards' data (ops, side, era, starred, scoring, optional, lasting, war) is in\n\
`cards/data/cards.json`, validated at load against the rulebook's counts.\n\n\
Status:\n\
- **event**: the event is implemented and offered.\n\
- **ops only**: the card is played for Operations or to the space race; its event is not offered\n\
  yet. If an opponent's unimplemented event is triggered by an Ops play, the log says so\n\
  (`Event of X is not implemented in this version: no effect`). In the headline such cards are\n\
  offered only when the hand holds no card with an implemented event.\n\
- **base rule**: The China Card's rules (§9) are part of the engine.\n\n\
Every card is also exercised by the soak test (`tests/soak.rs`, 2,000 random games), which\n\
checks that every implemented event takes place at least once. Fixtures are listed when their\n\
`rules` cite the card (`\"card #N\"`). This file is checked by `tests/cards_doc.rs`;\n\
`BLESS=1 cargo test -p arbiter-tests --test cards_doc` rewrites it.\n\n\
| # | Card | Ops | Side | Era | Flags | Status | Fixtures | Tests (tests/rules.rs) |\n\
|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut events = 0;
    for c in rules.cards.all() {
        let flags: Vec<&str> =
            [(c.starred, "starred"), (c.scoring, "scoring"), (c.optional, "optional"), (c.lasting, "lasting"), (c.war, "war")]
                .into_iter()
                .filter(|x| x.0)
                .map(|x| x.1)
                .collect();
        let status = if c.id == arbiter_engine::CardId::CHINA {
            "base rule"
        } else if rules.implemented(c.id) {
            events += 1;
            "event"
        } else {
            "ops only"
        };
        let quoted = format!("\"{}\"", c.name);
        let escaped = format!("\\\"{}\\\"", c.name);
        let bare = [format!("play {} ", c.name), format!("headline {}", c.name), format!("discard {}\"", c.name)];
        let covering: Vec<String> = tests
            .iter()
            .filter(|(_, b)| b.contains(&quoted) || b.contains(&escaped) || bare.iter().any(|x| b.contains(x.as_str())))
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {:?} | {:?} | {} | {status} | {} | {} |\n",
            c.id.0,
            c.name,
            c.ops,
            c.side,
            c.era,
            flags.join(" "),
            fixtures.get(&c.id.0).map(|v| v.join(", ")).unwrap_or_default(),
            covering.join(", ")
        ));
    }
    out.push_str(&format!("\n{events} events implemented, plus The China Card's base rules; {} cards are ops only.\n", 109 - events));
    out
}

#[test]
fn cards_md_matches_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../CARDS.md");
    let want = expected();
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(path, &want).expect("write CARDS.md");
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(have, want, "CARDS.md is out of date: run BLESS=1 cargo test -p arbiter-tests --test cards_doc");
}

/// Every implemented event has at least one fixture citing its card number.
#[test]
fn every_implemented_event_has_a_fixture() {
    let rules = arbiter_cards::ruleset();
    let fixtures = fixtures_by_card();
    let uncovered: Vec<&str> =
        rules.cards.all().filter(|c| rules.implemented(c.id) && !fixtures.contains_key(&c.id.0)).map(|c| c.name.as_str()).collect();
    assert!(uncovered.is_empty(), "events without a fixture citing \"card #N\": {uncovered:?}");
}
