#!/usr/bin/env python3
"""A grid of unseen loads for the models the goals benchmark trained: is each run's signal right?

bench/rom_trust.py trains POD, local PCA and SINDy (or any method) on a design of sine loads and
runs them on nine unseen loads. This script runs the same written models on 23 more per mechanism:
sines on a 4 x 5 grid over the design's amplitude and frequency ranges (cell centres) and three
held steps (30, 60 and 90 % of the largest amplitude, rising over half a period of the highest
frequency), each against the full model, and counts what rom_trust.py counts: misses (> 5 %
relative RMS at the worst point), silent misses (no warning), false alarms (a warning on a run
within 2.5 %), and the bounds that cover their run.

  python3 bench/rom_trust.py --cli CLI --work W [--check-set | ...] --methods pod,pca,sindy
  python3 bench/rom_trust_grid.py --cli CLI --work W [--check-set | ...] [--methods pod,pca,sindy]
                                  [--mechanisms NAME,...]

W is the work folder of the rom_trust.py run (its models, model files and design). Mechanisms whose
design load is no plain sine (the MacPherson strut's offset) are left out.
"""
import argparse
import copy
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rom_trust  # noqa: E402

SETS = {"check_set": rom_trust.CHECK_SET, "fresh_set": rom_trust.FRESH_SET,
        "fourth_set": rom_trust.FOURTH_SET, "fifth_set": rom_trust.FIFTH_SET, "sixth_set": rom_trust.SIXTH_SET}


def grid_cases(spec, template):
    """The 20 sines and 3 held steps, as load cases built on the design's first case."""
    a0, a1 = spec["amplitude"]
    f0, f1 = spec["frequency"]
    cases = []
    for i in range(4):
        for k in range(5):
            a, f = a0 + (a1 - a0) * (i + 0.5) / 4, f0 + (f1 - f0) * (k + 0.5) / 5
            c = copy.deepcopy(template)
            c["name"] = f"grid_a{a:.3g}_f{f:.3g}"
            c["loads"][0]["function"] = {"type": "sine", "amplitude": a, "frequency": f}
            cases.append(c)
    for level in (0.3, 0.6, 0.9):
        c = copy.deepcopy(template)
        c["name"] = f"grid_step_{level}"
        c["loads"][0]["function"] = {"type": "smooth_step", "t0": 0.5, "t1": 0.5 + 0.5 / f1, "value": level * a1}
        cases.append(c)
    return cases


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/release/app/cli/mbdrom-cli")
    ap.add_argument("--work", required=True)
    for name in SETS:
        ap.add_argument("--" + name.replace("_", "-"), action="store_true")
    ap.add_argument("--methods", default="pod,pca,sindy")
    ap.add_argument("--mechanisms", default="")
    args = ap.parse_args()
    chosen = next((SETS[n] for n in SETS if getattr(args, n)), rom_trust.MECHANISMS)
    names = args.mechanisms.split(",") if args.mechanisms else list(chosen)
    totals = dict(runs=0, misses=0, silent=0, within=0, false_alarms=0, bounds=0, covering=0)
    ratios = []
    for name in names:
        spec = chosen[name]
        work = os.path.join(args.work, name)
        if spec.get("offset") or not os.path.exists(f"{work}/model.json"):
            continue
        model = json.load(open(f"{work}/model.json"))
        template = next(c for c in model["load_cases"] if c["name"] == "design_1")
        cases = grid_cases(spec, template)
        model["load_cases"] = cases
        grid_model = f"{work}/grid_model.json"
        with open(grid_model, "w") as f:
            json.dump(model, f)
        span = ["--t-end", str(spec["t_end"]), "--output-dt", str(spec["output_dt"])]
        for case in (c["name"] for c in cases):
            ref = f"{work}/grid_ref_{case}.csv"
            if run([args.cli, "simulate", grid_model, "-o", ref, "--load-case", case] + span).returncode:
                sys.exit(f"{name}: the full model's run {case} failed")
            for method in args.methods.split(","):
                rom = f"{work}/{method}.json"
                if not os.path.exists(rom):
                    continue
                out = f"{work}/grid_{method}_{case}.csv"
                p = run([args.cli, "rom-simulate", rom, "--model", grid_model, "--load-case", case, "-o", out] + span)
                # As rom_trust.py counts a run: accuracy warnings only, a run without output a miss.
                r = {"exit": p.returncode, "error": None,
                     "warnings": [l for l in p.stderr.splitlines()
                                  if ": warning: " in l and "slower than the full model" not in l]}
                if os.path.exists(out):
                    r["error"], _ = rom_trust.worst_point(run([args.cli, "compare", ref, out, "--json"]).stdout)
                kind = rom_trust.classify(r)
                bound = rom_trust.BOUND.search(p.stdout + p.stderr)
                bound = float(bound.group(1)) / 100 if bound else None
                error = r["error"]
                totals["runs"] += 1
                totals["misses"] += "miss" in kind
                totals["silent"] += kind == "silent miss"
                if "miss" not in kind and error <= rom_trust.QUIET:
                    totals["within"] += 1
                    totals["false_alarms"] += kind == "false alarm"
                if bound is not None and error is not None:
                    totals["bounds"] += 1
                    totals["covering"] += error <= bound
                    ratios.append(bound / max(error, 1e-12))
                shown = "no result" if error is None else f"{100 * error:.3g} %"
                print(f"  {name}/{method}/{case}: {shown}, {kind}"
                      f"{', bound %.3g %%' % (100 * bound) if bound is not None else ''}", flush=True)
    ratios.sort()
    median = ratios[len(ratios) // 2] if ratios else float("nan")
    print(f"grid: {totals['runs']} runs, {totals['misses']} misses (> 5 %), {totals['silent']} silent; "
          f"{totals['false_alarms']} false alarms among the {totals['within']} runs within 2.5 %; "
          f"{totals['bounds']} runs stated a bound, which covered {totals['covering']}, median bound / error {median:.3g}")


if __name__ == "__main__":
    main()
