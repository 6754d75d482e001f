#!/usr/bin/env python3
"""What another bound factor would do to the trust signals, from a rom_trust.py JSON file.

The engine states a run's bound as 1.7 x the held-out error x max(0.9, d / scale)
(engine/rom/neighbour_envelope.cpp; 2 x ... x max(1, d / scale) before 2026-12-01: give --base 2 for
the files of then). This scales every stated bound by f / base, gives a run the
warning "the run expects up to X %" only where its scaled bound is above the 5 % goal, and
recounts with rom_trust.py's own rules (its pooled line: misses, silent misses, false alarms,
bounds covering, median bound / error). Bounds are printed to two digits, so the figures at
f = 2 can differ from rom_trust.py's in the last digit.

  python3 bench/trust_bound_factor.py /tmp/rt11.json [--base 1.7] [factor ...]
"""
import copy
import json
import sys

from rom_trust import MISS, pooled

EXPECTS = "the run expects up to"


def restate(run, scale):
    """Scales a run's stated bound and gives it the engine's warning where it passes the 5 % goal."""
    run["bound"] *= scale
    run["warnings"] = [w for w in run["warnings"] if not w.startswith(EXPECTS)]
    if run["bound"] > MISS:
        run["warnings"].append(f"{EXPECTS} {100 * run['bound']:.2g} %")


def scaled(rows, factor, base=1.7):
    """The models' rows as the engine would have printed them with the factor `factor`."""
    out = copy.deepcopy([row for row in rows if "sensitivity" not in row])
    for row in out:
        for r in row.get("runs", []):
            if r.get("bound") is None:
                continue
            restate(r, factor / base)
    return out


def main():
    args = sys.argv[1:]
    rows = json.load(open(args.pop(0)))
    base = 1.7
    if args[:1] == ["--base"]:
        base = float(args[1])
        args = args[2:]
    for f in [float(x) for x in args] or [2.0, 1.9, 1.8, 1.7, 1.6, 1.5]:
        print(f"factor {f:g}: {pooled(scaled(rows, f, base))}")


if __name__ == "__main__":
    main()
