#!/usr/bin/env bash
# Diplomacy's differential checks against the reference engine, the `diplomacy` package from
# PyPI (requirements.txt): its own venv, then each check. `.ci/run` calls it; run it from
# anywhere. The venv is kept in games/diplomacy/reference/.venv-ci (git-ignored) and reused.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-ci"
[[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
"$venv/bin/python" "$here/map_check.py" "$here/../data/standard.json"
