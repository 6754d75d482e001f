#!/usr/bin/env python3
"""Does the speed figure training prints hold? Train's speed check against rom-simulate --benchmark.

For each method, trains on one 2 s run of the MacPherson example ("train", 5 ms samples),
reads the speed-up the training's speed check recorded (`rom-info`), then runs
`rom-simulate --benchmark` on the same load case, span and output interval five times and
takes the median speed-up. Prints both and their ratio (the goal: within +-30 %).
--t-end T: a run of T seconds instead (a long one: the check times the full model over its
first second of wall time only); --methods a,b: a subset.

    taskset -c 0 python3 bench/rom/speed_check_agreement.py build/release/app/cli/mbdrom-cli \
        [--t-end 2] [--methods pod,pca,sindy,ae,node]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "resources/examples/macpherson.json")
METHODS = [  # (method, settings): small networks, the speed does not depend on the accuracy
    ("pod", ["--nr", "1"]),
    ("pca", []),
    ("sindy", ["--load-case", "train"]),
    ("ae", ["--epochs", "200", "--force-epochs", "200"]),
    ("node", ["--epochs", "200", "--load-case", "train"]),
]


ARGS = None


def cli(*args):
    return subprocess.run([ARGS.cli, *map(str, args)], capture_output=True, text=True)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("--t-end", type=float, default=2.0)
    p.add_argument("--methods", default=",".join(m for m, _ in METHODS))
    ARGS = p.parse_args()
    t_end = ARGS.t_end
    work = tempfile.mkdtemp()
    data = os.path.join(work, "train.csv")
    cli("simulate", EXAMPLE, "-o", data, "--load-case", "train", "--t-end", t_end, "--output-dt", 0.005)
    print("| method | speed check (train) | rom-simulate --benchmark, median of 5 | ratio |")
    print("|---|---|---|---|")
    for method, settings in METHODS:
        if method not in ARGS.methods.split(","):
            continue
        rom = os.path.join(work, method + ".json")
        # Methods that take the loads are told the run's load case; the others find it by its forces.
        r = cli("train", method, "--model", EXAMPLE, "--data", data, "-o", rom, *settings)
        if r.returncode != 0:
            print(f"| {method} | training failed: {r.stderr.strip().splitlines()[-1]} | | |")
            continue
        info = cli("rom-info", rom).stdout
        m = re.search(r"^speed +([0-9.e+-]+)x (faster|slower)", info, re.M)
        timed = re.search(r"the full model timed over its first ([0-9.e+-]+) s", info)
        if not m:
            reason = re.search(r"^speed +(.*)$", info, re.M)
            print(f"| {method} | {reason.group(1) if reason else 'none'} | | |")
            continue
        check = float(m.group(1)) if m.group(2) == "faster" else 1.0 / float(m.group(1))
        ups = []
        for _ in range(5):
            b = cli("rom-simulate", rom, "--model", EXAMPLE, "--load-case", "train", "--t-end", t_end,
                    "--output-dt", 0.005, "-o", os.path.join(work, "r.csv"), "--benchmark")
            s = re.search(r"^speed-up +([0-9.e+-]+) x", b.stdout, re.M)
            if s:
                ups.append(float(s.group(1)))
        bench = statistics.median(ups) if ups else float("nan")
        cut = f" (full model timed over {float(timed.group(1)):.3g} s)" if timed else ""
        print(f"| {method} | {check:.3g}x{cut} | {bench:.3g}x | {check / bench:.2f} |")


if __name__ == "__main__":
    main()
