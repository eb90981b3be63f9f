"""`python -m arbiter.bench`: how fast the package plays, against `arbiter bench`.

1. Batched random play from Python: a `VecGame` of N games on one thread, the loop in Python,
   each step writing every game's observation, mask and rewards; actions chosen by
   `VecGame.random_actions()` (Rust) and, for comparison, by NumPy from the mask.
2. `arbiter bench` (the engine's own random playouts, one thread), if the `arbiter` binary is
   found (`--arbiter PATH`, else on PATH): the ratio of the two.
3. What learning adds to a game step, from `profile`: the step alone, the frame and the
   observation, the legal actions and the mask (ns per decision).
"""

import argparse
import json
import resource
import shutil
import subprocess
import time

import numpy as np

import arbiter
from arbiter._arbiter import profile_json


def batched(kind, num_games, seconds, choose, seed=0, clock=time.perf_counter, **options):
    v = arbiter.vec_game(kind, num_games=num_games, seed=seed, threads=1, **options)
    rng = np.random.default_rng(seed)
    steps = 0
    started = clock()
    while clock() - started < seconds:
        for _ in range(20):
            if choose == "rust":
                a = v.random_actions()
            else:
                a = (rng.random(v.mask.shape, dtype=np.float32) * v.mask).argmax(1)
            v.step(a)
            steps += 1
    elapsed = clock() - started
    return steps * num_games / elapsed


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def engine_bench(path, games, cpu=False):
    """`arbiter bench`'s decisions per second: by its own clock (wall), or by the CPU time
    its process used (start-up included, so a little below its own figure)."""
    before = children_cpu()
    out = subprocess.run([path, "bench", "--games", str(games), "--threads", "1", "--json"], capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    if cpu:
        return j["decisions_per_sec"] * j["seconds"] / (children_cpu() - before)
    return j["decisions_per_sec"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", default="twilight-struggle")
    p.add_argument("--games", type=int, default=256, help="games in the batch")
    p.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--arbiter", default=shutil.which("arbiter"), help="the arbiter binary, for `arbiter bench`")
    p.add_argument("--bench-games", type=int, default=1000)
    p.add_argument("--profile-games", type=int, default=200)
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: elapsed time; cpu: the CPU time of each measured process, for a machine other work shares",
    )
    args = p.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    result = {"kind": args.kind, "batch": args.games, "clock": args.clock}
    for choose in ("rust", "numpy"):
        runs = [batched(args.kind, args.games, args.seconds, choose, clock=clock) for _ in range(args.runs)]
        result[f"batched_{choose}_choice_decisions_per_sec"] = runs
        print(f"batched random play ({choose} choice), {args.games} games, 1 thread: " + ", ".join(f"{r:,.0f}" for r in runs) + " decisions/s")
    if args.arbiter and args.kind == "twilight-struggle":
        runs = [engine_bench(args.arbiter, args.bench_games, cpu=args.clock == "cpu") for _ in range(args.runs)]
        result["arbiter_bench_decisions_per_sec"] = runs
        print("arbiter bench, 1 thread: " + ", ".join(f"{r:,.0f}" for r in runs) + " decisions/s")
        ratio = max(result["batched_rust_choice_decisions_per_sec"]) / max(runs)
        result["ratio_best_to_best"] = ratio
        print(f"batched (best) / arbiter bench (best): {ratio:.0%}")
    prof = json.loads(profile_json(args.kind, args.profile_games, 0, "{}", args.runs))
    result["profile"] = prof
    print(
        f"per decision ({prof['decisions']:,} decisions of {prof['games']} random games, fastest of {args.runs}): "
        f"step {prof['step_ns']:.0f} ns, frame + observation ({prof['observation_values']} values) {prof['observe_ns']:.0f} ns "
        f"({prof['observe_ns'] / prof['step_ns']:.0%} of a step), legal actions + mask ({prof['actions']}) {prof['mask_ns']:.0f} ns"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
