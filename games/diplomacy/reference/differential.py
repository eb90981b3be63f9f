"""Differential adjudication against the reference engine (the `diplomacy` package): random
games played by the reference with random legal orders; every movement phase's position and
orders are adjudicated by this project's engine too (`examples/adjudicate_lines`), and the
results must agree: who stands where after the phase, who was dislodged, and no order the
reference accepts refused here. Exits 1 on any disagreement, printing each with its position.
Where the two follow different published choices, the orders are written so that both read
them alike (`without_support_coast`).

    python differential.py ADJUDICATOR --games 20 --years 10 --seed 1
"""
import argparse
import json
import random
import subprocess
import sys
import time

import diplomacy


def without_support_coast(order):
    """A support's destination without its coast. The reference ignores the coast a support
    names, where the DATC's preference (4.B.4, case 6.B.9, RULINGS.md D03) is that it must match
    the move supported: given no coast, both engines read the support alike."""
    words = order.split()
    if len(words) > 3 and words[2] == "S" and "/" in words[-1]:
        words[-1] = words[-1].split("/")[0]
    return " ".join(words)


REFERENCE_MAP = diplomacy.Map("standard")


def known_deviation(units, orders):
    """Why the reference is known to adjudicate this phase against the rules, or None. The
    reference counts, for an army moving by convoy, a support given by the power of the unit it
    attacks (DATC 6.D.14's rule: no power helps dislodge its own unit; fixture DIFF-001)."""
    owner = {u.split()[1].split("/")[0]: p for p, us in units.items() for u in us}
    moves = {}
    for p, os in orders.items():
        for o in os:
            w = o.split()
            if len(w) >= 4 and w[2] == "-" and w[0] == "A":
                src, dst = w[1], w[3].split("/")[0]
                if w[-1] == "VIA" or not REFERENCE_MAP.abuts("A", src, "-", dst):
                    moves[(src, dst)] = p
    for p, os in orders.items():
        for o in os:
            w = o.split()
            if len(w) >= 7 and w[2] == "S" and w[5] == "-":
                move = (w[4], w[6].split("/")[0])
                if move in moves and owner.get(move[1]) == p:
                    return f"{p} supports the convoyed {w[4]} - {w[6]} against its own unit (DIFF-001)"
    return None


def play(games, years, seed):
    """The movement phases of `games` random games: (units, orders, units after, dislodged)."""
    rng = random.Random(seed)
    phases = []
    for _ in range(games):
        game = diplomacy.Game()
        while not game.is_game_done and int(game.get_current_phase()[1:5]) < 1901 + years:
            name = game.get_current_phase()
            possible = game.get_all_possible_orders()
            units = {p: list(game.get_units(p)) for p in game.powers if game.get_units(p)}
            orders = {}
            for p in sorted(game.powers):
                # Sorted: the reference's lists come from sets, whose order changes between runs.
                locs = sorted(game.get_orderable_locations(p))
                chosen = [without_support_coast(rng.choice(sorted(possible[loc]))) for loc in locs if possible[loc]]
                # Movement phases: now and then a unit gets no order (it holds).
                if name.endswith("M"):
                    chosen = [o for o in chosen if rng.random() > 0.05]
                orders[p] = chosen
                game.set_orders(p, chosen)
            game.process()
            if name.endswith("M"):
                state = game.get_state()
                after = {p: sorted(u for u in us if not u.startswith("*")) for p, us in state["units"].items() if us}
                # Dislodged: as the reference's results say (a unit with no retreat is removed at once).
                results = game.result_history[name]
                dislodged = {}
                for p, us in units.items():
                    for u in us:
                        if any(str(r) == "dislodged" for r in results.get(u, [])):
                            dislodged.setdefault(p, []).append(u)
                dislodged = {p: sorted(v) for p, v in dislodged.items()}
                phases.append({"phase": name, "units": units, "orders": {p: o for p, o in orders.items() if o}, "after": after, "dislodged": dislodged})
    return phases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("adjudicator")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    started = time.time()
    phases = play(a.games, a.years, a.seed)
    lines = "".join(json.dumps({"units": ph["units"], "orders": ph["orders"]}) + "\n" for ph in phases)
    out = subprocess.run([a.adjudicator], input=lines, capture_output=True, text=True, check=True).stdout.splitlines()
    bad = known = 0
    for ph, line in zip(phases, out):
        ours = json.loads(line)
        norm = lambda d: {p: sorted(v) for p, v in d.items() if v}
        faults = []
        if "error" in ours:
            faults.append(f"error: {ours['error']}")
        else:
            if ours["refused"]:
                faults.append(f"refused here, accepted by the reference: {ours['refused']}")
            if norm(ours["units"]) != norm(ph["after"]):
                faults.append(f"units after: ours {norm(ours['units'])}, the reference's {norm(ph['after'])}")
            if norm(ours["dislodged"]) != norm(ph["dislodged"]):
                faults.append(f"dislodged: ours {norm(ours['dislodged'])}, the reference's {norm(ph['dislodged'])}")
        why = known_deviation(ph["units"], ph["orders"])
        if faults and why:
            known += 1
            continue
        if faults:
            bad += 1
            if bad <= 10:
                print(f"differential: {ph['phase']}: {json.dumps({'units': ph['units'], 'orders': ph['orders']})}")
                for f in faults:
                    print("   ", f)
    print(
        f"differential: {len(phases)} movement phases of {a.games} games (seed {a.seed}): {bad} disagreements,"
        f" {known} where the reference is known to deviate from the rules, {time.time() - started:.0f} s"
    )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
