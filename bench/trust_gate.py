#!/usr/bin/env python3
"""What a gate that follows the held-out error would do to the trust signals.

The engine ended a run's error bound at the gate, 2 x the scale of the joint distance (the larger of
the held-out runs' distance and the envelope's resolution), before 2026-12-01: past it the run "left
its training envelope" and warned, however small the bound would still have been. This recounts a rom_trust.py JSON
file with the gate at scale x clamp(goal / (1.7 x held-out error), 2, G) for each G given: a run
that left by the joint distance only, within the new gate, states the bound 1.7 x e_h x d / scale
instead, and warns only as the engine then would (its equation residual, or a bound above the goal).
The models' files (held-out error and distance, resolution, training residual) are read from the
benchmark's work folder.

  python3 bench/trust_gate.py /tmp/rt.json /tmp/rt [G ...]
"""
import copy
import json
import os
import re
import sys

from rom_trust import MISS, pooled

LEFT = re.compile(r"^the run left its training envelope at t = [^:]*: its positions, velocities, loads and load "
                  r"rates together went ([0-9.eE+-]+) from every training sample")
FACTOR, NEAREST, GOAL = 1.7, 0.9, 0.05
RESIDUAL_FLOOR, RESIDUAL_FACTOR = 0.005, 1.5


def calibration(work, row):
    """(held-out error, scale, training residual) of a row's model, or None when not calibrated."""
    path = os.path.join(work, row["mechanism"], row["method"] + ".json")
    try:
        m = json.load(open(path))
    except (OSError, ValueError):
        return None
    joint = m.get("envelope", {}).get("joint", {})
    cal = joint.get("calibration")
    if not cal:
        return None
    scale = max(cal["held_out_distance"], joint.get("resolution", 0.0), 1e-12)
    trained = m.get("metrics", {}).get("training_rollout", {}).get("equation_residual")
    return cal["held_out_error"], scale, trained


def regated(rows, work, most):
    out = copy.deepcopy([row for row in rows if "sensitivity" not in row])
    moved = 0
    for row in out:
        cal = calibration(work, row)
        if not cal:
            continue
        e_h, scale, trained = cal
        gate = scale * min(most, max(2.0, GOAL / (FACTOR * e_h))) if e_h > 0 else scale * most
        for r in row.get("runs", []):
            hits = [(i, LEFT.match(w)) for i, w in enumerate(r["warnings"])]
            hits = [(i, h) for i, h in hits if h]
            if len(hits) != 1 or r.get("exit", 0) != 0:
                continue
            i, h = hits[0]
            d = float(h.group(1))
            if d > gate:
                continue
            moved += 1
            del r["warnings"][i]
            r["bound"] = FACTOR * e_h * max(NEAREST, d / scale)
            res = r.get("residual")
            if trained is not None and res is not None and res > max(RESIDUAL_FLOOR, RESIDUAL_FACTOR * trained):
                r["warnings"].append("the run's motion leaves ... unbalanced")
            elif r["bound"] > GOAL:
                r["warnings"].append(f"the run expects up to {100 * r['bound']:.2g} %")
    return out, moved


def main():
    args = sys.argv[1:]
    rows = json.load(open(args[0]))
    work = args[1]
    for g in [float(x) for x in args[2:]] or [2.0, 3.0, 4.0, 6.0, 8.0]:
        out, moved = regated(rows, work, g)
        print(f"G = {g:g} ({moved} runs now inside): {pooled(out)}")


if __name__ == "__main__":
    main()
