//! Runs every Diplomacy fixture under `games/diplomacy/fixtures/` (see `arbiter_diplomacy::fixture`).

use std::path::PathBuf;

#[test]
fn every_fixture_holds() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    let map = arbiter_diplomacy::map::standard();
    let mut failed = Vec::new();
    let mut ran = 0;
    for f in &files {
        let fixtures =
            arbiter_diplomacy::fixture::parse_file(&std::fs::read_to_string(f).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for x in fixtures {
            assert_eq!(x.game, arbiter_diplomacy::fixture::GAME, "{}", x.id);
            ran += 1;
            if let Err(e) = x.run(map) {
                failed.push(format!("{} ({}): {e}", x.id, x.title));
            }
        }
    }
    assert!(ran > 0, "the fixtures are found in {}", dir.display());
    assert!(failed.is_empty(), "{} of {ran} fixtures failed:\n{}", failed.len(), failed.join("\n\n"));
}
