//! Runs every fixture under `fixtures/`, each reported as its own test by id.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;

fn main() {
    let args = Arguments::from_args();
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures"));
    let files = arbiter_casebook::collect(&[root]).expect("the fixtures folder is readable");
    let mut trials = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    for file in files {
        let name = file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        match arbiter_casebook::load(&file) {
            Ok(f) => {
                let dup = !ids.insert(f.id.clone());
                let id = f.id.clone();
                trials.push(Trial::test(format!("{id} {}", f.title), move || {
                    if dup {
                        return Err(Failed::from(format!("duplicate fixture id {id}")));
                    }
                    let r = arbiter_casebook::run(&f, &file).map_err(|e| Failed::from(e.to_string()))?;
                    match r.failure {
                        None => Ok(()),
                        Some(why) => Err(Failed::from(format!("{}: {why}", file.display()))),
                    }
                }));
            }
            Err(e) => trials.push(Trial::test(format!("bad fixture file {name}"), move || Err(Failed::from(e.to_string())))),
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
