//! Runs every Mafia fixture under `games/mafia/fixtures/` (see `arbiter_mafia::fixture`).

use std::path::PathBuf;

#[test]
fn every_mafia_fixture_passes() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    assert!(files.len() >= 9, "the Mafia fixtures are found: {files:?}");
    let mut failed = Vec::new();
    for f in &files {
        let fx = arbiter_mafia::fixture::parse(&std::fs::read_to_string(f).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if let Err(e) = fx.run() {
            failed.push(format!("{} ({}): {e}", fx.id, fx.title));
        }
    }
    assert!(failed.is_empty(), "failed fixtures:\n{}", failed.join("\n"));
}
