//! ARCHITECTURE.md's code map stays true: every path it names exists, and every crate of the
//! workspace has a section of its own (`### `DIR/``).
//!
//! A path is a backticked token made of path characters that contains `/` or ends with a
//! file extension. It is looked up from the repository's root, then from the section's crate
//! folder, then from that crate's `src/`. Tokens with a placeholder segment in capitals
//! (`DIR/games.db`), a URL or an absolute path are not paths of the repository.

use std::path::{Path, PathBuf};

const EXTENSIONS: &[&str] = &[".rs", ".md", ".json", ".js", ".html", ".css", ".toml", ".py"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the repository").to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()))
}

/// The code map: from `## Code map` to the next `## ` heading.
fn code_map(doc: &str) -> &str {
    let start = doc.find("\n## Code map").expect("ARCHITECTURE.md has a `## Code map` section");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The backticked tokens of `text`.
fn backticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

fn is_path(token: &str) -> bool {
    let chars = token.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    let shaped = token.contains('/') || EXTENSIONS.iter().any(|e| token.ends_with(e));
    let placeholder = token.split('/').any(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_uppercase()));
    chars && shaped && !placeholder && !token.starts_with('/') && !token.starts_with('.')
}

/// The workspace's members, from the root Cargo.toml's `members = [...]`.
fn members() -> Vec<String> {
    let manifest = read(&root().join("Cargo.toml"));
    let at = manifest.find("members").expect("the root Cargo.toml lists its members");
    let list = &manifest[at..];
    let list = &list[list.find('[').expect("members = [") + 1..list.find(']').expect("members = [...]")];
    list.split(',').map(|m| m.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()).collect()
}

/// Each section of the map (`### `DIR/` …`): its crate folder and its text.
fn sections(map: &str) -> Vec<(String, &str)> {
    map.split("\n### ")
        .skip(1)
        .map(|s| {
            let heading = s.lines().next().unwrap_or_default();
            let dir = backticked(heading).next().unwrap_or_default().trim_end_matches('/').to_string();
            (dir, s)
        })
        .collect()
}

#[test]
fn every_path_in_the_code_map_exists() {
    let root = root();
    let map_text = read(&root.join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for (dir, text) in sections(code_map(&map_text)) {
        for token in backticked(text).filter(|t| is_path(t)) {
            let bases = [root.clone(), root.join(&dir), root.join(&dir).join("src")];
            if !bases.iter().any(|b| b.join(token.trim_end_matches('/')).exists()) {
                missing.push(format!("`{token}` (in the section of `{dir}/`)"));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md's code map names paths that do not exist:\n  {}", missing.join("\n  "));
}

#[test]
fn every_workspace_crate_has_a_section_in_the_code_map() {
    let map_text = read(&root().join("ARCHITECTURE.md"));
    let dirs: Vec<String> = sections(code_map(&map_text)).into_iter().map(|(d, _)| d).collect();
    let absent: Vec<String> = members().into_iter().filter(|m| !dirs.contains(m)).collect();
    assert!(
        absent.is_empty(),
        "ARCHITECTURE.md's code map has no section (`### `DIR/``) for these workspace crates: {}",
        absent.join(", ")
    );
}

#[test]
fn the_path_rule_reads_paths_and_leaves_the_rest() {
    for (token, path) in [
        ("src/flow.rs", true),
        ("games/minesweeper/", true),
        ("data/map.json", true),
        ("DIR/games.db", false),
        ("postgres://…", false),
        ("/api/games", false),
        ("Session::play", false),
        ("arbiter card NAME", false),
        ("flow", false),
    ] {
        assert_eq!(is_path(token), path, "is `{token}` a path?");
    }
}
