#!/usr/bin/env python3
"""What a bound that also shrinks for runs nearer the training samples would do, from rom_trust.py's runs.

The engine states a run's bound as 1.7 x the held-out error x max(floor, d / scale), d the run's
largest joint distance and scale the held-out runs' (half the gate its log prints). This rescales
every stated bound of a run of FLOOR = 1 (bounds that never shrink) to other floors, gives the
warning "the run expects up to X %" where the bound passes 5 %, and recounts with rom_trust.py's own
rules; then how many training runs' bounds cover their errors.

  python3 bench/trust_near_floor.py RT.json RT_WORK [RC.json RC_WORK]
"""
import copy
import json
import os
import re
import sys

from rom_trust import pooled
from trust_bound_factor import restate

RE = re.compile(r"joint distance ([0-9.eE+-]+), gate ([0-9.eE+-]+)")
def dist(work, mech, method, case):
    """The run's largest joint distance and its gate, from its log (None: not printed)."""
    try: txt = open(os.path.join(work, mech, f"{method}_{case}.log")).read()
    except OSError: return None
    m = RE.search(txt)
    return (float(m.group(1)), float(m.group(2))) if m else None
def scaled(rows, work, floor):
    """The rows with each bound of floor 1 rescaled to `floor`."""
    out = copy.deepcopy([r for r in rows if 'sensitivity' not in r])
    for row in out:
        for r in row.get('runs', []):
            if r.get('bound') is None: continue
            dg = dist(work, row['mechanism'], row['method'], r['case'])
            if not dg: continue
            d, g = dg; x = d / (g / 2.0)
            restate(r, max(floor, x) / max(1.0, x))
    return out

def main():
    args = sys.argv[1:]
    for path, work in zip(args[0::2], args[1::2]):
        rows = json.load(open(path))
        for floor in (1.0, 0.8, 0.6, 0.3):
            print(f"{path}, floor {floor:g}: {pooled(scaled(rows, work, floor))}")
        for floor in (1.0, 0.8):
            runs = [(row, r) for row in scaled(rows, work, floor) for r in row.get("runs", [])
                    if r["kind"] == "training" and r.get("bound") is not None]
            missed = [f"{row['mechanism']}/{row['method']}/{r['case']}" for row, r in runs if r["error"] > r["bound"]]
            print(f"  training runs, floor {floor:g}: bounds covering {len(runs) - len(missed)} of {len(runs)}; not: {missed}")


if __name__ == "__main__":
    main()
