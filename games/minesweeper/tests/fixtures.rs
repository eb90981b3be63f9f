//! Runs every Minesweeper fixture under `games/minesweeper/fixtures/` (see
//! `arbiter_minesweeper::fixture`).

use std::path::PathBuf;

#[test]
fn every_minesweeper_fixture_passes() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    assert!(files.len() >= 6, "the Minesweeper fixtures are found: {files:?}");
    let mut ids = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        match arbiter_minesweeper::fixture::parse(&text) {
            Ok(f) => {
                if !ids.insert(f.id.clone()) {
                    failures.push(format!("{}: duplicate id {}", file.display(), f.id));
                } else if let Err(why) = arbiter_minesweeper::fixture::run(&f) {
                    failures.push(format!("{} {} ({}): {why}", f.id, f.title, file.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", file.display())),
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
