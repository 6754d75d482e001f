#!/usr/bin/env python3
"""Why each false alarm of a rom_trust.py JSON file warned: the kinds of warning, counted.

A false alarm is an unseen run within 2.5 % that warned (rom_trust.py's rule). Each is put under
the first of its warnings' kinds, in this order: the model's own verdict (failed its held-out check,
unvalidated, blows up on its own runs: every run of it says so), the run left its envelope, its
motion leaves more force unbalanced than training did (the equation residual), its bound is above the
goal ("expects up to"), something else. Prints the counts and each run.

  python3 bench/trust_false_alarms.py /tmp/rt.json [/tmp/rc.json ...]
"""
import json
import sys

from rom_trust import classify

KINDS = [
    ("the model's verdict", ("the model is unvalidated", "the model failed its check", "blows up on its own")),
    ("left its envelope", ("left its training envelope",)),
    ("equation residual", ("inertial force unbalanced",)),
    ("bound above the goal", ("the run expects up to",)),
]


def kind_of(warnings):
    for name, marks in KINDS:
        if any(m in w for w in warnings for m in marks):
            return name
    return "other"


def main():
    for path in sys.argv[1:]:
        rows = [r for r in json.load(open(path)) if "runs" in r]
        counts, lines, alarms = {}, [], 0
        for row in rows:
            for run in row["runs"]:
                if run.get("kind") != "unseen" or classify(run) != "false alarm":
                    continue
                alarms += 1
                k = kind_of(run["warnings"])
                counts[k] = counts.get(k, 0) + 1
                bound = f", bound {100 * run['bound']:.2g} %" if run.get("bound") is not None else ""
                lines.append(f"  {row['mechanism']}/{row['method']}/{run['case']}: {100 * run['error']:.2g} %{bound}: {k}")
        print(f"{path}: {alarms} false alarms; " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda x: -x[1])))
        print("\n".join(lines))


if __name__ == "__main__":
    main()
