#!/usr/bin/env python3
"""What another bound factor would do to the trust signals, from a rom_trust.py JSON file.

The engine states a run's bound as kBoundFactor (2) x the held-out error x max(1, d / scale)
(engine/rom/neighbour_envelope.h). This scales every printed bound by f / 2 and recounts, over the
unseen runs: the bounds that cover their run's error, the median bound / error, the false alarms
(a warning on a run at most 2.5 % off) and the silent misses (more than 5 % off, no warning), a
warning "the run expects up to X %" kept only where the scaled bound is above the 5 % goal.
Bounds are printed to two digits, so the figures at f = 2 can differ from rom_trust.py's in the
last digit.

  python3 bench/trust_bound_factor.py /tmp/rt11.json [factor ...]
"""
import json
import statistics
import sys

MISS, QUIET, GOAL = 0.05, 0.025, 0.05


def recount(rows, factor):
    scale = factor / 2.0
    covered = stated = false_alarms = quiet = silent = 0
    ratios = []
    for row in rows:
        for r in row.get("runs", []):
            err = r.get("error")
            if r.get("kind") != "unseen" or err is None:
                continue
            others = [w for w in r["warnings"] if not w.startswith("the run expects up to")]
            warned = bool(others) or r["exit"] != 0
            if r.get("bound") is not None:
                bound = r["bound"] * scale
                stated += 1
                covered += err <= bound
                if err > 0:
                    ratios.append(bound / err)
                warned = warned or bound > GOAL
            else:
                warned = warned or bool(r["warnings"])
            if err <= QUIET:
                quiet += 1
                false_alarms += warned
            if err > MISS and not warned:
                silent += 1
    median = statistics.median(ratios) if ratios else float("nan")
    return (f"factor {factor:g}: bounds covering {covered}/{stated}, median bound / error {median:.2f}, "
            f"false alarms {false_alarms}/{quiet}, silent misses {silent}")


def main():
    rows = json.load(open(sys.argv[1]))
    for f in [float(x) for x in sys.argv[2:]] or [2.0, 1.9, 1.8, 1.7, 1.6, 1.5]:
        print(recount(rows, f))


if __name__ == "__main__":
    main()
