#!/usr/bin/env python3
"""What a tolerance means: the largest position error over a run against RTOL x L.

For each mechanism and load case, runs the CLI at several tolerances with both
integrators and with the automatic choice, and compares the point coordinates at
every 0.1 s output with a Dormand-Prince run at RTOL 1e-11 (an independent
check of the same model; the two integrators share no stepping code). Prints a
Markdown table: error / (RTOL L), steps and wall time (the summary's stepping time,
one core; for auto plus the time of its choice: the stiffness check and a trial).

    taskset -c 0 python3 bench/accuracy/tolerance_meaning.py build/release/app/cli/mbdrom-cli [NAME...]

NAME (optional): only the mechanisms whose file name contains one of them.

The examples (resources/examples) are where the tolerance's meaning was tuned;
the mechanisms from outside definitions (tests/data/mechanisms) are the check.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = [  # (file, load case, end time, tuned on it)
    ("resources/examples/four_bar.json", "free", 2.0, True),
    ("resources/examples/four_bar.json", "drive", 2.0, True),
    ("resources/examples/slider_crank.json", "free", 2.0, True),
    ("resources/examples/slider_crank.json", "drive", 2.0, True),
    ("resources/examples/macpherson.json", "train", 2.0, True),
    ("tests/data/mechanisms/four_bar_xz_revolute.json", "free", 2.0, False),
    ("tests/data/mechanisms/four_bar_rigid_3d_revolute.json", "crank_torque", 2.0, False),
    ("tests/data/mechanisms/double_pendulum_rods_3d.json", "tip_push", 1.0, False),
    ("tests/data/mechanisms/macpherson_strut_chirp.json", "chirp", 1.0, False),
    ("tests/data/mechanisms/four_bar_off_plane.json", "drive", 2.0, False),
    ("tests/data/mechanisms/andrews_squeezer_m.json", "motor", 0.03, False),
    ("tests/data/mechanisms/stiff_two_mass_rail.json", "push", 2.0, False),
    ("tests/data/mechanisms/stiff_rail_light_damping.json", "push", 2.0, False),
    ("tests/data/mechanisms/stiff_spring_pendulum.json", "free", 4.0, False),
    ("resources/examples/friction_slider.json", "train", 2.0, False),
    ("tests/data/mechanisms/double_pendulum_chaotic.json", "free", 10.0, False),
]
TOLERANCES = [1e-3, 1e-5, 1e-7, 1e-8]


def length_scale(path):
    d = json.load(open(path))
    pts = [p["position"] for p in d.get("points", [])]
    pts += [m["position"] for b in d.get("bodies", []) for m in b.get("markers", [])]
    return max(max(p[i] for p in pts) - min(p[i] for p in pts) for i in range(3)) or 1.0


def point_names(model):
    d = json.load(open(model))
    names = {p["name"] for p in d.get("points", [])}
    return names | {m["name"] for b in d.get("bodies", []) for m in b.get("markers", [])}


def points(path, names):
    rows = list(csv.reader(open(path)))
    cols = [i for i, n in enumerate(rows[0]) if n.count(".") == 1 and n.split(".")[0] in names]
    return [[float(r[0])] + [float(r[i]) for i in cols] for r in rows[1:]]


def run(cli, model, load, t_end, tol, integrator, out):
    r = subprocess.run([cli, "simulate", model, "-o", out, "--load-case", load, "--t-end", str(t_end),
                        "--tolerance", str(tol), "--integrator", integrator,
                        "--output-dt", str(min(0.1, t_end / 10))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    text = r.stdout
    steps = int(re.search(r"^steps\s+(\d+)", text, re.M).group(1))
    wall = float(re.search(r"^wall time\s+([0-9.e+-]+)", text, re.M).group(1))
    chosen = re.search(r"^integrator\s+(\S+)", text, re.M).group(1)
    choice = re.search(r"the choice took ([0-9.e+-]+) s", text)
    return steps, wall + (float(choice.group(1)) if choice else 0.0), chosen


def main():
    cli = sys.argv[1]
    tmp = tempfile.mkdtemp()
    print("| mechanism | load | tuned | RTOL | dopri5: error / RTOL L, steps, ms | trapezoidal | auto: picks, ms |")
    print("|---|---|---|---|---|---|---|")
    only = sys.argv[2:]
    for rel, load, t_end, tuned in CASES:
        if only and not any(n in os.path.basename(rel) for n in only):
            continue
        model = os.path.join(ROOT, rel)
        length = length_scale(model)
        ref = os.path.join(tmp, "ref.csv")
        if run(cli, model, load, t_end, 1e-11, "dopri5", ref) is None:
            continue
        names = point_names(model)
        truth = points(ref, names)
        for tol in TOLERANCES:
            cells = []
            for integrator in ("dopri5", "trapezoidal"):
                out = os.path.join(tmp, "x.csv")
                res = run(cli, model, load, t_end, tol, integrator, out)
                if res is None:
                    cells.append("stopped")
                    continue
                got = points(out, names)
                err = max(abs(a - b) for ra, rb in zip(got, truth) for a, b in zip(ra[1:], rb[1:]))
                cells.append(f"{err / (tol * length):.2g}, {res[0]}, {1e3 * res[1]:.3g}")
            auto = run(cli, model, load, t_end, tol, "auto", os.path.join(tmp, "a.csv"))
            name = os.path.basename(rel).replace(".json", "")
            picked = f"{auto[2]}, {1e3 * auto[1]:.3g}" if auto else "stopped"
            print(f"| {name} | {load} | {'yes' if tuned else 'no'} | {tol:g} | {cells[0]} | {cells[1]} | {picked} |")


if __name__ == "__main__":
    main()
