#!/usr/bin/env bash
# Diplomacy's differential checks against the reference engine, the `diplomacy` package from
# PyPI (requirements.txt): its own venv, then each check: the map, then adjudication. `.ci/run` calls it; run it from
# anywhere. The venv is kept in games/diplomacy/reference/.venv-ci (git-ignored) and reused.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-ci"
[[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
"$venv/bin/python" "$here/map_check.py" "$here/../data/standard.json"
# Random games' movement phases adjudicated by both engines (a fixed seed; longer by hand with
# more --games and other seeds).
root="$(cd "$here/../../.." && pwd)"
cargo build --quiet --release --manifest-path "$root/Cargo.toml" --workspace --example adjudicate_lines
"$venv/bin/python" "$here/differential.py" "${CARGO_TARGET_DIR:-$root/target}/release/examples/adjudicate_lines" --games 100 --years 12 --seed 1
