#!/bin/sh
# SINDy under noise on the positions: the hardening Duffing oscillator
# u'' + 0.15 u' + 2 u + 0.5 u³ = 0.8 cos 1.7t (a 1 kg mass on a rail, 100 s at 10 ms),
# Gaussian noise of a share of std(u) added to u with fixed seeds, identified from the
# positions alone (`train sindy --measured`, derivatives estimated) with the pointwise and
# the weak formulation. Prints each fit's coefficients, their largest relative error, the
# terms that should not be there, and the verdict's kind.
#   sh bench/sindy_noise.sh [CLI] [SHARES] [SEEDS]
set -eu
cli=${1:-build/release/app/cli/mbdrom-cli}
shares=${2:-"0.01 0.05 0.2"}
seeds=${3:-"1 2 3"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/duffing.json" <<'PY'
import json, math, sys
model = {
    "format": "mbdrom-model", "version": 1, "name": "hardening duffing", "gravity": [0, 0, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": True}, {"name": "P", "position": [5, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": True}],
    "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 1}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass",
                "point1": "O", "point2": "P", "axis1": "x0"}],
    "spring_dampers": [
        {"name": "linear", "point1": "O", "point2": "P", "free_length": 5, "stiffness": [2], "damping": 0.15},
        {"name": "cubic", "point1": "O", "point2": "P", "free_length": 5, "stiffness": [0, 0, 0.5]}],
    "load_cases": [{"name": "drive", "loads": [{"name": "drive", "type": "force", "point": "P",
        "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 0.8,
        "frequency": 1.7 / (2 * math.pi), "phase": math.pi / 2}}]}]}
json.dump(model, open(sys.argv[1], "w"))
PY
"$cli" simulate "$work/duffing.json" --load-case drive --t-end 100 --dt 0.01 --output-dt 0.01 \
  -o "$work/clean.csv" >/dev/null 2>&1
printf '%-6s %-5s %-10s %-46s %9s  %-14s %s\n' noise seed form "coefficients (u, u_dot, u^3, cos 1.7t)" \
  "max err" "extra terms" verdict
for share in $shares; do
  for seed in $seeds; do
    python3 - "$work/clean.csv" "$work/noisy.csv" "$share" "$seed" <<'PY'
import csv, random, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
x = [float(r["P.x"]) - 5.0 for r in rows]
sd = statistics.pstdev(x)
random.seed(int(sys.argv[4]))
with open(sys.argv[2], "w") as f:
    f.write("t,u\n")
    for r, u in zip(rows, x):
        f.write(f"{r['t']},{u + random.gauss(0.0, float(sys.argv[3]) * sd)!r}\n")
PY
    for form in pointwise weak; do
      "$cli" train sindy --measured "$work/noisy.csv" --positions u --model "$work/duffing.json" \
        --coordinates P.x --known none --omegas 1.7 --sine-time --formulation "$form" \
        -o "$work/rom.json" >/dev/null 2>&1 || { echo "$share $seed $form: refused"; continue; }
      python3 - "$work/rom.json" "$share" "$seed" "$form" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = j["matrices"]
xi = {t: c[0] for t, c in zip(m["terms"], m["coefficients"])}
truth = {"P.x": -2.0, "P.x_dot": -0.15, "P.x^3": -0.5, "cos(1.7t)": 0.8}
found = [xi.get(t, 0.0) for t in truth]
err = max(abs(xi.get(t, 0.0) / v - 1.0) for t, v in truth.items())
extra = [t for t, c in xi.items() if c != 0.0 and t not in truth]
print(f"{sys.argv[2]:<6} {sys.argv[3]:<5} {sys.argv[4]:<10} "
      f"{', '.join(f'{c:.4g}' for c in found):<46} {100 * err:8.1f}%  {','.join(extra) or '-':<14} "
      f"{j['metrics']['verdict_kind']}")
PY
    done
  done
done
