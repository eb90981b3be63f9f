//! # Arbiter casebook
//!
//! Rules-lawyer fixtures: a position, a sequence of moves in the canonical notation, and the
//! ruling expected. The format is documented in `fixtures/README.md`; [`load`] reads and
//! validates a file, [`run`] plays it strictly.

mod build;
mod effects;
mod format;
mod reachable;
mod run;

pub use build::build;
pub use format::{Fixture, Setup, Step};
pub use run::{run, state_json, CaseResult};

use std::path::{Path, PathBuf};

/// A bad fixture file: which file, which field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {field}: {message}", file.display())]
pub struct FixtureError {
    pub file: PathBuf,
    pub field: String,
    pub message: String,
}

/// Read and parse one fixture file (the setup is validated by [`build`]).
pub fn load(path: &Path) -> Result<Fixture, FixtureError> {
    let err = |field: &str, message: String| FixtureError { file: path.into(), field: field.into(), message };
    let text = std::fs::read_to_string(path).map_err(|e| err("file", e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| err(&format!("line {} column {}", e.line(), e.column()), e.to_string()))
}

/// Every `.json` file under the given files and folders, sorted.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FixtureError> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        walk(p, &mut out, &mut seen)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Each folder is entered once, by its canonical path: a symbolic link back into a folder
/// being walked (a loop) is not followed again.
fn walk(p: &Path, out: &mut Vec<PathBuf>, seen: &mut std::collections::HashSet<PathBuf>) -> Result<(), FixtureError> {
    let err = |e: std::io::Error| FixtureError { file: p.into(), field: "path".into(), message: e.to_string() };
    let meta = std::fs::metadata(p).map_err(err)?;
    if meta.is_dir() {
        if !seen.insert(std::fs::canonicalize(p).map_err(err)?) {
            return Ok(());
        }
        let entries = std::fs::read_dir(p).map_err(err)?;
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() || path.extension().is_some_and(|x| x == "json") {
                walk(&path, out, seen)?;
            }
        }
    } else {
        out.push(p.into());
    }
    Ok(())
}
