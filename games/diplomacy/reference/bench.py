"""The adjudication benchmark, side by side in one run: the movement phases with the most units
from random games (played as differential.py plays them), adjudicated by the reference engine
(a fresh game with the position and orders set, then `process()`, timed alone) and by this
project's (examples/bench_lines, timed in Rust). Prints both figures and their ratio.

    python bench.py BENCH_LINES --games 60 --phases 100 --min-units 30
"""
import argparse
import json
import subprocess
import time

import diplomacy

from differential import play


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--years", type=int, default=20)
    ap.add_argument("--phases", type=int, default=100)
    ap.add_argument("--min-units", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    phases = play(a.games, a.years, a.seed)
    count = lambda ph: sum(len(u) for u in ph["units"].values())
    phases = sorted((ph for ph in phases if count(ph) >= a.min_units), key=count, reverse=True)[: a.phases]
    units = sum(count(ph) for ph in phases) / max(1, len(phases))
    spent = 0.0
    for ph in phases:
        game = diplomacy.Game()
        game.clear_units()
        game.set_current_phase(ph["phase"])
        for p, us in ph["units"].items():
            game.set_units(p, us)
        for p, os in ph["orders"].items():
            game.set_orders(p, os)
        t = time.perf_counter()
        game.process()
        spent += time.perf_counter() - t
    reference = len(phases) / spent
    lines = "".join(json.dumps({"units": ph["units"], "orders": ph["orders"]}) + "\n" for ph in phases)
    ours = json.loads(subprocess.run([a.bench, "400"], input=lines, capture_output=True, text=True, check=True).stdout)
    print(json.dumps({
        "phases": len(phases),
        "mean_units": round(units, 1),
        "reference_phases_per_s": round(reference, 1),
        "ours_adjudicated_per_s": round(ours["adjudicated_per_s"]),
        "ours_read_and_adjudicated_per_s": round(ours["read_and_adjudicated_per_s"]),
        "ratio_adjudicated": round(ours["adjudicated_per_s"] / reference),
        "ratio_read_and_adjudicated": round(ours["read_and_adjudicated_per_s"] / reference),
    }))


if __name__ == "__main__":
    main()
