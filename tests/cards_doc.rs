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
    let rules = arbiter_twilight_cards::ruleset();
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
`games/twilight-struggle/cards/data/cards.json`, validated at load against the rulebook's counts.\n\n\
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
        let status = if c.id == arbiter_twilight::CardId::CHINA {
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
    let rules = arbiter_twilight_cards::ruleset();
    let fixtures = fixtures_by_card();
    let uncovered: Vec<&str> =
        rules.cards.all().filter(|c| rules.implemented(c.id) && !fixtures.contains_key(&c.id.0)).map(|c| c.name.as_str()).collect();
    assert!(uncovered.is_empty(), "events without a fixture citing \"card #N\": {uncovered:?}");
}

/// Every fixture under `fixtures/`, by id.
fn fixtures_by_id() -> BTreeMap<String, serde_json::Value> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, serde_json::Value>) {
        for path in std::fs::read_dir(dir).expect("fixtures folder").flatten().map(|e| e.path()) {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().and_then(|e| e.to_str()) == Some("json") {
                let text = std::fs::read_to_string(&path).expect("readable fixture");
                let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(json["id"].as_str().unwrap_or("?").to_string(), json);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut out);
    out
}

/// Two cards whose texts name each other (one prevents, cancels, requires, doubles or ends the
/// other), and the fixtures that show the relation in each order of play.
struct Relation {
    a: u8,
    b: u8,
    why: &'static str,
    /// Fixtures where `a` comes first (its effect in play at the start, or played in an earlier
    /// step) and `b` after it.
    a_then_b: &'static [&'static str],
    /// Fixtures the other way round: `b` first, then `a`.
    b_then_a: &'static [&'static str],
    /// For a relation with one direction only: why the other order shows nothing (then
    /// `b_then_a` may be empty).
    one_way: Option<&'static str>,
}

const fn both(a: u8, b: u8, why: &'static str, a_then_b: &'static [&'static str], b_then_a: &'static [&'static str]) -> Relation {
    Relation { a, b, why, a_then_b, b_then_a, one_way: None }
}

const fn one(a: u8, b: u8, why: &'static str, a_then_b: &'static [&'static str], because: &'static str) -> Relation {
    Relation { a, b, why, a_then_b, b_then_a: &[], one_way: Some(because) }
}

/// Every pair of cards whose texts name each other. The pairs the card data records (prevented
/// by, requires, cancels) must all be here; the others are references in the texts.
const RELATIONS: &[Relation] = &[
    one(
        83,
        7,
        "The Iron Lady prevents Socialist Governments",
        &["CARD-083b", "CARD-083c"],
        "The Iron Lady played after Socialist Governments undoes nothing",
    ),
    one(
        65,
        13,
        "Camp David Accords prevents Arab-Israeli War",
        &["CARD-065b", "CARD-065c"],
        "Camp David Accords played after a war undoes nothing",
    ),
    one(23, 21, "NATO requires Marshall Plan", &["CARD-021c"], "NATO cannot be an event before it (CARD-021)"),
    one(16, 21, "NATO requires Warsaw Pact Formed", &["CARD-021d"], "NATO cannot be an event before it (CARD-021)"),
    both(42, 106, "Quagmire cancels NORAD", &["CARD-106c"], &["CARD-042"]),
    both(96, 55, "Tear Down this Wall cancels and prevents Willy Brandt", &["CARD-096c"], &["CARD-096b"]),
    one(
        110,
        56,
        "AWACS Sale to Saudis prevents Muslim Revolution",
        &["CARD-110", "CARD-110b"],
        "AWACS played after Muslim Revolution undoes nothing",
    ),
    both(97, 59, "An Evil Empire cancels and prevents Flower Power", &["CARD-097b"], &["CARD-097", "CARD-097c"]),
    both(86, 61, "North Sea Oil prevents OPEC", &["CARD-086c", "CARD-061b"], &["CARD-061x"]),
    one(
        68,
        101,
        "Solidarity requires John Paul II Elected Pope",
        &["CARD-068", "CARD-101"],
        "Solidarity cannot be an event before it (CARD-101b)",
    ),
    one(
        82,
        92,
        "Iranian Hostage Crisis doubles Terrorism against the US",
        &["CARD-092b", "CARD-092c"],
        "a Terrorism played before it is not affected",
    ),
    one(
        50,
        32,
        "\"We Will Bury You\" is stopped by UN Intervention as an event",
        &["CARD-050x", "CARD-050z"],
        "only the UN Intervention played after it counts",
    ),
    both(
        60,
        32,
        "U2 Incident gains 1 more VP for UN Intervention as an event",
        &["CARD-060", "CARD-060b", "CARD-060c", "CARD-060g"],
        &["CARD-060d"],
    ),
    one(87, 90, "The Reformer improves Glasnost", &["CARD-090b"], "Glasnost played before The Reformer has no bonus to give"),
    both(21, 17, "De Gaulle Leads France frees France from NATO", &["CARD-017c"], &["CARD-017d"]),
    both(21, 55, "Willy Brandt frees West Germany from NATO", &["CARD-055b"], &["CARD-055c"]),
    one(21, 36, "NATO protects US-controlled Europe from Brush War", &["CARD-036c"], "NATO played after a war undoes nothing"),
    one(
        35,
        6,
        "Formosan Resolution ends when the US plays The China Card",
        &["CARD-035d", "CARD-035e"],
        "The China Card played before it does not end it",
    ),
    both(41, 40, "Nuclear Subs does not apply to Cuban Missile Crisis", &["CARD-041c"], &["CARD-041d"]),
    one(
        71,
        6,
        "Nixon Plays the China Card passes it face down, or gives VP to its US holder",
        &["CARD-071", "CARD-071b", "CARD-071c", "CARD-071d"],
        "the event acts on whoever holds The China Card",
    ),
    one(
        58,
        6,
        "Cultural Revolution passes The China Card face up, or gives VP to its USSR holder",
        &["CARD-058", "CARD-058b", "CARD-058c"],
        "the event acts on whoever holds The China Card",
    ),
    one(
        76,
        6,
        "Ussuri River Skirmish passes The China Card face up, or adds Influence for its US holder",
        &["CARD-076", "CARD-076b", "CARD-076c", "CARD-076d"],
        "the event acts on whoever holds The China Card",
    ),
    one(92, 6, "Terrorism never discards The China Card", &["CARD-092d"], "the event acts on whoever holds The China Card"),
];

/// The card a `play` or `headline` move names: `play "Brush War" event` -> `Brush War`,
/// `headline NORAD` -> `NORAD`.
fn played_card(m: &str) -> Option<&str> {
    let rest = m.strip_prefix("play ").or_else(|| m.strip_prefix("headline "))?;
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next(),
        None => rest.split_whitespace().next(),
    }
}

/// When a card first comes into a fixture: `Some(-1)` if its effect is in play at the start
/// (`setup.effects`), `Some(k)` if step k plays or headlines it (accepted or rejected), `None`
/// if neither.
fn first_seen(fixture: &serde_json::Value, name: &str) -> Option<i64> {
    let is = |s: Option<&str>| s.is_some_and(|s| s.eq_ignore_ascii_case(name));
    if fixture["setup"]["effects"].as_array().into_iter().flatten().any(|e| is(e["card"].as_str())) {
        return Some(-1);
    }
    let steps = fixture["steps"].as_array().into_iter().flatten();
    steps.map(|s| played_card(s["move"].as_str().unwrap_or(""))).position(is).map(|k| k as i64)
}

/// Every pair of cards whose texts name each other has a fixture for each order of play (one
/// order, with the reason written down, when the relation has one direction). Each fixture
/// listed must exist, cite both cards in `rules`, and bring the cards in in that order: the
/// first one's effect in play at the start or played first, the other played later, if at all.
/// The fixtures themselves pass in the casebook test.
#[test]
fn every_pair_of_cards_naming_each_other_has_fixtures_both_ways() {
    let rules = arbiter_twilight_cards::ruleset();
    let fixtures = fixtures_by_id();
    let mut problems: Vec<String> = Vec::new();
    for c in rules.cards.all() {
        for (list, how) in [(&c.prevented_by, "is prevented by"), (&c.requires_any, "requires"), (&c.cancels, "cancels")] {
            for other in list.iter() {
                let (x, y) = (c.id.0, other.0);
                if !RELATIONS.iter().any(|r| (r.a, r.b) == (x, y) || (r.a, r.b) == (y, x)) {
                    problems.push(format!("#{x}/#{y} ({} {how} {}): not in RELATIONS", c.name, rules.cards.name(*other)));
                }
            }
        }
    }
    for r in RELATIONS {
        let name = |n: u8| rules.cards.name(arbiter_twilight::CardId(n)).to_string();
        let label = format!("#{}/#{} ({})", r.a, r.b, r.why);
        if r.a_then_b.is_empty() {
            problems.push(format!("{label}: no fixture with #{} first", r.a));
        }
        match r.one_way {
            None if r.b_then_a.is_empty() => problems.push(format!("{label}: no fixture with #{} first", r.b)),
            Some(why) if why.is_empty() => problems.push(format!("{label}: one way, but no reason given")),
            _ => {}
        }
        for (ids, first, then) in [(r.a_then_b, r.a, r.b), (r.b_then_a, r.b, r.a)] {
            for id in ids {
                let Some(f) = fixtures.get(*id) else {
                    problems.push(format!("{label}: no fixture {id}"));
                    continue;
                };
                let cited: Vec<&str> = f["rules"].as_array().into_iter().flatten().filter_map(|x| x.as_str()).collect();
                for n in [r.a, r.b] {
                    if !cited.contains(&format!("card #{n}").as_str()) {
                        problems.push(format!("{label}: {id} does not cite \"card #{n}\""));
                    }
                }
                match (first_seen(f, &name(first)), first_seen(f, &name(then))) {
                    (None, _) => problems.push(format!("{label}: {id} neither has {} in play nor plays it", name(first))),
                    (Some(i), Some(j)) if i >= j => {
                        problems.push(format!("{label}: {id} brings in {} before {} (listed the other way)", name(then), name(first)))
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(problems.is_empty(), "pairs of cards naming each other without a fixture for each order:\n{}", problems.join("\n"));
}
