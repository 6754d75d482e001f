#!/usr/bin/env python3
"""Does the speed figure training prints hold? Train's speed check against rom-simulate --benchmark.

For each method, trains on one 2 s run of the MacPherson example ("train", 5 ms samples),
reads the speed-up the training's speed check recorded (`rom-info`), then runs
`rom-simulate --benchmark` on the same load case, span and output interval five times and
takes the median speed-up. Prints both and their ratio (the goal: within +-30 %).

    taskset -c 0 python3 bench/rom/speed_check_agreement.py build/release/app/cli/mbdrom-cli
"""
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


def cli(*args):
    return subprocess.run([sys.argv[1], *map(str, args)], capture_output=True, text=True)


def main():
    work = tempfile.mkdtemp()
    data = os.path.join(work, "train.csv")
    cli("simulate", EXAMPLE, "-o", data, "--load-case", "train", "--t-end", 2, "--output-dt", 0.005)
    print("| method | speed check (train) | rom-simulate --benchmark, median of 5 | ratio |")
    print("|---|---|---|---|")
    for method, settings in METHODS:
        rom = os.path.join(work, method + ".json")
        # Methods that take the loads are told the run's load case; the others find it by its forces.
        r = cli("train", method, "--model", EXAMPLE, "--data", data, "-o", rom, *settings)
        if r.returncode != 0:
            print(f"| {method} | training failed: {r.stderr.strip().splitlines()[-1]} | | |")
            continue
        info = cli("rom-info", rom).stdout
        m = re.search(r"^speed +([0-9.e+-]+)x (faster|slower)", info, re.M)
        if not m:
            reason = re.search(r"^speed +(.*)$", info, re.M)
            print(f"| {method} | {reason.group(1) if reason else 'none'} | | |")
            continue
        check = float(m.group(1)) if m.group(2) == "faster" else 1.0 / float(m.group(1))
        ups = []
        for _ in range(5):
            b = cli("rom-simulate", rom, "--model", EXAMPLE, "--load-case", "train", "--t-end", 2,
                    "--output-dt", 0.005, "-o", os.path.join(work, "r.csv"), "--benchmark")
            s = re.search(r"^speed-up +([0-9.e+-]+) x", b.stdout, re.M)
            if s:
                ups.append(float(s.group(1)))
        bench = statistics.median(ups) if ups else float("nan")
        print(f"| {method} | {check:.3g}x | {bench:.3g}x | {check / bench:.2f} |")


if __name__ == "__main__":
    main()
