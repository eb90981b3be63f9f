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
- **event**: the event is implemented and offered (every card but The China Card).\n\
- **base rule**: The China Card's rules (§9) are part of the engine.\n\n\
The game is complete: no card lacks its event (`Ruleset::missing_events` is empty, checked at\n\
load and by a test). Every card is also exercised by the soak test (`tests/soak.rs`, 2,000\n\
random games on the full deck), which checks that every event takes place at least once. Fixtures are listed when their\n\
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
        } else {
            events += usize::from(rules.implemented(c.id));
            "event"
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
    out.push_str(&format!("\n{events} of 109 events implemented, plus The China Card's base rules.\n"));
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

/// Pairs of cards whose texts name each other: from the card data (one prevents, cancels or
/// is required by the other) and, for references that are not prevention, this list.
const TEXT_REFERENCES: &[(u8, u8, &str)] = &[
    (82, 92, "Iranian Hostage Crisis doubles Terrorism against the US"),
    (50, 32, "\"We Will Bury You\" is stopped by UN Intervention as an event"),
    (60, 32, "U2 Incident gains 1 more VP for UN Intervention as an event"),
    (87, 90, "The Reformer improves Glasnost"),
    (17, 21, "De Gaulle Leads France frees France from NATO"),
    (55, 21, "Willy Brandt frees West Germany from NATO"),
    (36, 21, "NATO protects US-controlled Europe from Brush War"),
    (35, 6, "Formosan Resolution ends when the US plays The China Card"),
];

/// Every pair of cards whose texts name each other has a fixture for each direction: at least
/// two fixtures citing both cards (the relation applying, and the other order of play or the
/// relation absent).
#[test]
fn every_pair_of_cards_naming_each_other_has_fixtures_both_ways() {
    let rules = arbiter_cards::ruleset();
    let fixtures = fixtures_by_card();
    let mut pairs: Vec<(u8, u8, String)> = Vec::new();
    for c in rules.cards.all() {
        for (list, how) in [(&c.prevented_by, "is prevented by"), (&c.requires_any, "requires"), (&c.cancels, "cancels")] {
            for other in list.iter() {
                pairs.push((c.id.0, other.0, format!("{} {how} {}", c.name, rules.cards.name(*other))));
            }
        }
    }
    pairs.extend(TEXT_REFERENCES.iter().map(|(a, b, why)| (*a, *b, why.to_string())));
    let cited = |n: u8| fixtures.get(&n).cloned().unwrap_or_default();
    let missing: Vec<String> = pairs
        .iter()
        .filter_map(|(a, b, why)| {
            let both: Vec<String> = cited(*a).into_iter().filter(|id| cited(*b).contains(id)).collect();
            (both.len() < 2).then(|| format!("#{a}/#{b} ({why}): {both:?}"))
        })
        .collect();
    assert!(missing.is_empty(), "pairs of cards naming each other with fewer than 2 fixtures citing both:\n{}", missing.join("\n"));
}
