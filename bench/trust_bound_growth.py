#!/usr/bin/env python3
"""What another growth of the bound with distance would do to the trust signals, from rom_trust.py runs.

The engine states a run's bound as 1.7 x the held-out error x max(0.9, d / scale), d the run's
largest joint distance and scale the held-out run's (engine/rom/neighbour_envelope.cpp). This
restates every such bound with d / scale raised to another power beyond the held-out distance (or
not growing at all), gives a run the warning "the run expects up to X %" only where the restated
bound is above the 5 % goal, and recounts with rom_trust.py's own rules. It reads each run's d from
its rom-simulate log and the model's calibration from its file, so it needs the --work folder of
the rom_trust.py run beside its JSON; bounds that are not the distance's (a retraced training run,
a held-load probe) are left as they are.

  python3 bench/trust_bound_growth.py WORK RUN.json
"""
import copy
import json
import math
import os
import re
import sys

from rom_trust import pooled
from trust_bound_factor import restate

FACTOR, NEAREST = 1.7, 0.9


def annotated(work, rows):
    """The rows with each model's calibration and each run's largest joint distance."""
    for row in rows:
        if "runs" not in row:
            continue
        folder = os.path.join(work, row["mechanism"])
        try:
            with open(os.path.join(folder, row["method"] + ".json")) as f:
                calibration = json.load(f).get("envelope", {}).get("joint", {}).get("calibration")
        except OSError:
            continue
        if not calibration:
            continue
        row["_calibration"] = (calibration["held_out_distance"], calibration["held_out_error"])
        for r in row["runs"]:
            try:
                with open(os.path.join(folder, f"{row['method']}_{r['case']}.log")) as f:
                    found = re.search(r"joint distance ([0-9.eE+-]+)", f.read())
            except OSError:
                continue
            r["_distance"] = float(found.group(1)) if found else None
    return rows


def restated(rows, growth):
    out = copy.deepcopy([row for row in rows if "sensitivity" not in row])
    for row in out:
        if "_calibration" not in row:
            continue
        scale, error = row["_calibration"]
        for r in row["runs"]:
            if r.get("bound") is None or r.get("_distance") is None or not r["bound"] > 0:
                continue
            x = r["_distance"] / scale
            if abs(FACTOR * error * max(NEAREST, x) - r["bound"]) > 0.06 * r["bound"] + 1e-4:
                continue  # not the distance's bound (printed to two digits)
            restate(r, FACTOR * error * max(NEAREST, growth(x) if x > 1.0 else x) / r["bound"])
    return out


def main():
    work, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        rows = annotated(work, json.load(f))
    for name, growth in [("in proportion (the engine's)", lambda x: x), ("power 0.75", lambda x: x ** 0.75),
                         ("square root", math.sqrt), ("none", lambda x: 1.0)]:
        print(f"growth {name}: {pooled(restated(rows, growth))}")


if __name__ == "__main__":
    main()
