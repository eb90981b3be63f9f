#!/usr/bin/env bash
# The Python package's CI: a fresh venv, the package and its test dependencies from PyPI
# (`pip install ./python[test]`: maturin builds the extension with the Rust toolchain), then
# pytest. Run from anywhere; `.ci/run` calls it after the Rust tests. The venv is kept in
# python/.venv-ci (git-ignored) and reused; ARBITER_CI_FRESH=1 starts it afresh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-ci"
python="${PYTHON:-python3}"
if [[ "${ARBITER_CI_FRESH:-0}" == 1 ]]; then rm -rf "$venv"; fi
[[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
# Not editable: the wheel as a user gets it (CARGO_TARGET_DIR, if set, keeps the Rust build).
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$here"
"$venv/bin/python" -m pip install --quiet "$here[test]"
cd "$here"
"$venv/bin/pytest" -q tests
