"""The project's standard map against the reference engine's: every army and fleet adjacency
between any two locations, the supply centres and the home centres must agree. Exits 1 on any
difference, naming each."""
import itertools
import json
import sys

import diplomacy

ours = json.load(open(sys.argv[1]))
ref = diplomacy.Map("standard")
# The reference names the Gulf of Lyon LYO, as this map does; it adds impassable Switzerland.
kind = {p["id"]: p["type"] for p in ours["provinces"]}
split = {p["id"] for p in ours["provinces"] if p.get("coasts")}
locs = [p["id"] for p in ours["provinces"]] + [p["id"] + "/" + c["id"] for p in ours["provinces"] for c in p.get("coasts", [])]
army = {frozenset(e) for e in ours["army"]}
fleet = {frozenset(e) for e in ours["fleet"]}
faults = []
for a, b in itertools.permutations(locs, 2):
    A, B = a.upper(), b.upper()
    if "/" not in a and "/" not in b and kind[a] != "sea" and kind[b] != "sea":
        mine, theirs = frozenset((a, b)) in army, bool(ref.abuts("A", A, "-", B))
        if mine != theirs:
            faults.append(f"army {a}-{b}: ours {mine}, the reference's {theirs}")
    if a in split or b in split or kind[a.split("/")[0]] == "inland" or kind[b.split("/")[0]] == "inland":
        continue
    mine, theirs = frozenset((a, b)) in fleet, bool(ref.abuts("F", A, "-", B))
    if mine != theirs:
        faults.append(f"fleet {a}-{b}: ours {mine}, the reference's {theirs}")
centres = sorted(p["id"] for p in ours["provinces"] if p.get("supply_centre"))
if centres != sorted(s.lower() for s in ref.scs):
    faults.append(f"supply centres differ: {centres}")
for power in ours["powers"]:
    homes = sorted(p["id"] for p in ours["provinces"] if p.get("home") == power["id"])
    if homes != sorted(h.lower() for h in ref.homes[power["id"].upper()]):
        faults.append(f"{power['id']}'s home centres differ: {homes}")
    units = sorted(u.lower() for u in power["units"])
    theirs = sorted(u.lower() for u in ref.units[power["id"].upper()])
    if units != theirs:
        faults.append(f"{power['id']}'s units differ: {units} against {theirs}")
for f in faults:
    print("map_check:", f)
print(f"map_check: {len(locs)} locations, {len(faults)} differences from the reference map")
sys.exit(1 if faults else 0)
