//! The runner must fail a fixture that is wrong, and say why: strictness and bad files.

use std::path::PathBuf;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Run a fixture given as JSON text; `Ok(None)` if it passed.
fn run(text: &str) -> Result<Option<String>, String> {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "case.json", text);
    let f = arbiter_casebook::load(&p).map_err(|e| e.to_string())?;
    arbiter_casebook::run(&f, &p).map(|r| r.failure).map_err(|e| e.to_string())
}

const COUP: &str =
    r#""setup": {"phasing": "us", "influence": {"Mexico": {"us": 0, "ussr": 2}}, "hands": {"us": ["Duck and Cover"], "ussr": ["Fidel"]}}"#;

fn coup_case(dice: &str, extra: &str) -> String {
    format!(
        r#"{{"id": "T-1", "title": "t", "rules": ["§6.3"], {COUP}, "dice": {dice},
        "steps": [{{"side": "us", "move": "play \"Duck and Cover\" ops"}}, {{"side": "us", "move": "coup Mexico"}}]{extra}}}"#
    )
}

#[test]
fn a_correct_case_passes() {
    assert_eq!(run(&coup_case("[4]", r#", "expect": {"state": {"military_ops": {"us": 3}}}"#)), Ok(None));
}

#[test]
fn an_unused_die_fails() {
    let why = run(&coup_case("[4, 2]", "")).unwrap().expect("fails");
    assert!(why.contains("1 scripted die roll(s) and 0 pick(s) left unused"), "{why}");
}

#[test]
fn a_missing_die_fails_at_its_step() {
    let why = run(&coup_case("[]", "")).unwrap().expect("fails");
    assert!(why.starts_with("step 2 (us \"coup Mexico\"): a die roll was needed but none is scripted"), "{why}");
}

#[test]
fn a_decision_of_the_other_side_fails_the_step() {
    let text = format!(r#"{{"id": "T-1", "title": "t", "rules": [], {COUP}, "steps": [{{"side": "ussr", "move": "play Fidel ops"}}]}}"#);
    let why = run(&text).unwrap().expect("fails");
    assert!(
        why.starts_with("step 1 (ussr \"play Fidel ops\"): expected a USSR decision or interjection, but the US is to decide"),
        "{why}"
    );
}

#[test]
fn a_wrong_expectation_names_the_field() {
    let why = run(&coup_case("[4]", r#", "expect": {"state": {"defcon": 5}}"#)).unwrap().expect("fails");
    assert_eq!(why, "after the last step: state.defcon: expected 5, got 4");
}

#[test]
fn an_expected_rejection_that_is_accepted_fails() {
    let text = format!(
        r#"{{"id": "T-1", "title": "t", "rules": [], {COUP}, "steps": [{{"side": "us", "move": "play \"Duck and Cover\" ops", "reject": "nope"}}]}}"#
    );
    let why = run(&text).unwrap().expect("fails");
    assert!(why.contains("expected a rejection containing \"nope\", but the move was accepted"), "{why}");
}

#[test]
fn bad_files_name_the_file_and_the_field() {
    let unknown_country = r#"{"id": "T", "title": "t", "rules": [], "setup": {"influence": {"Mexcio": {"us": 1, "ussr": 0}}}}"#;
    let e = run(unknown_country).unwrap_err();
    assert!(e.ends_with("case.json: setup.influence.Mexcio: no country named \"Mexcio\""), "{e}");
    let twice = r#"{"id": "T", "title": "t", "rules": [], "setup": {"hands": {"us": ["Fidel"], "ussr": []}, "discard": ["Fidel"]}}"#;
    let e = run(twice).unwrap_err();
    assert!(e.contains("setup.discard: Fidel is already in setup.hands.us"), "{e}");
    let unknown_card = r#"{"id": "T", "title": "t", "rules": [], "setup": {"deck": ["Fidle"]}}"#;
    assert!(run(unknown_card).unwrap_err().contains("setup.deck: no card named \"Fidle\""));
    let malformed = r#"{"id": "T", "title": "t", "rules": [] "#;
    let e = run(malformed).unwrap_err();
    assert!(e.contains("case.json: line 1 column"), "{e}");
    let typo = r#"{"id": "T", "title": "t", "rules": [], "setpu": {}}"#;
    assert!(run(typo).unwrap_err().contains("unknown field `setpu`"));
    let bad_defcon = r#"{"id": "T", "title": "t", "rules": [], "setup": {"defcon": 7}}"#;
    assert!(run(bad_defcon).unwrap_err().contains("setup.defcon: 7 is not a DEFCON level"));
}

#[test]
fn a_card_play_left_unfinished_fails_unless_declared() {
    let text = format!(
        r#"{{"id": "T-1", "title": "t", "rules": [], {COUP}, "steps": [{{"side": "us", "move": "play \"Duck and Cover\" ops"}}]}}"#
    );
    let why = run(&text).unwrap().expect("fails");
    assert!(why.starts_with("after the last step: a decision inside a card play is left unanswered"), "{why}");
    let declared = format!(
        r#"{{"id": "T-1", "title": "t", "rules": [], {COUP}, "steps": [{{"side": "us", "move": "play \"Duck and Cover\" ops"}}], "expect": {{"pending": true, "legal": ["coup Mexico"]}}}}"#
    );
    assert_eq!(run(&declared), Ok(None));
    let wrongly = coup_case("[4]", r#", "expect": {"pending": true}"#);
    assert!(run(&wrongly).unwrap().expect("fails").contains("no card play is left unfinished"));
}

/// UN Intervention waiting for the card it pairs with is a decision inside a card play, like
/// Ops still to spend: a case that stops there fails unless it says so.
#[test]
fn an_event_waiting_for_its_card_is_unfinished_too() {
    let un = r#""setup": {"phasing": "us", "hands": {"us": ["UN Intervention", "Fidel"], "ussr": ["Duck and Cover"]}},
        "steps": [{"side": "us", "move": "play \"UN Intervention\" event"}]"#;
    let why = run(&format!(r#"{{"id": "T-1", "title": "t", "rules": [], {un}}}"#)).unwrap().expect("fails");
    assert!(why.starts_with("after the last step: a decision inside a card play is left unanswered"), "{why}");
    assert!(why.contains("UN Intervention"), "the prompt is named: {why}");
    let declared =
        format!(r#"{{"id": "T-1", "title": "t", "rules": [], {un}, "expect": {{"pending": true, "legal": ["play Fidel ops"]}}}}"#);
    assert_eq!(run(&declared), Ok(None));
}

/// `"reject": ""` would accept any refusal, the wrong one included: the file is refused.
#[test]
fn an_empty_rejection_text_is_refused() {
    for empty in ["", "  "] {
        let text = format!(
            r#"{{"id": "T-1", "title": "t", "rules": [], {COUP}, "steps": [{{"side": "us", "move": "coup Mexico", "reject": "{empty}"}}]}}"#
        );
        let e = run(&text).unwrap_err();
        assert!(e.contains("case.json: steps[0].reject: an empty text matches any refusal"), "{e}");
    }
}
