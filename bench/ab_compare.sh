#!/bin/sh
# Compares two builds of a benchmark program in one run: the per-step costs of
# every reduced-model method (mbdrom_bench's counter us_per_step), the per-operation
# costs of mbdrom_workbench_bench (us_per_op; run the script under a display), or any
# benchmark's time per iteration; rounds interleaved (A B, B A, ...) on one core so
# drift of the machine hits both alike; and the trained-model files of the two builds
# byte for byte once wall times and time stamps are taken out.
#   sh bench/ab_compare.sh OLD/mbdrom_bench NEW/mbdrom_bench [ROUNDS] [FILTER]
set -eu
old=$1
new=$2
rounds=${3:-5}
filter=${4:-RomStep}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/new"
i=1
while [ "$i" -le "$rounds" ]; do
  if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for which in $order; do
    if [ "$which" = old ]; then bin=$old; else bin=$new; fi
    MBDROM_BENCH_TRAINED_DIR="$work/$which" taskset -c 0 "$bin" --benchmark_filter="$filter" \
      --benchmark_format=json >"$work/$which.$i.json" 2>/dev/null
  done
  i=$((i + 1))
done
python3 - "$work" "$rounds" <<'PY'
import json, os, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def costs(which):
    per = {}
    for i in range(1, rounds + 1):
        for b in json.load(open(f"{work}/{which}.{i}.json"))["benchmarks"]:
            value = b.get("us_per_step", b.get("us_per_op"))
            if value is None and b.get("run_type", "iteration") == "iteration":  # its time per iteration
                value = b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
            if value is not None:
                per.setdefault(b.get("label") or b["name"], []).append(value)
    return per
old, new = costs("old"), costs("new")
print(f"{rounds} interleaved rounds; us per step (or operation, or iteration), median and best of the rounds")
print(f"{'method':<10}{'old median':>12}{'new median':>12}{'change':>9}{'old best':>12}{'new best':>12}{'change':>9}")
for name in old:
    nn = new.get(name, [float('nan')])
    o, n = statistics.median(old[name]), statistics.median(nn)
    ob, nb = min(old[name]), min(nn)
    print(f"{name:<10}{o:>12.4g}{n:>12.4g}{100 * (n / o - 1):>8.1f}%{ob:>12.4g}{nb:>12.4g}{100 * (nb / ob - 1):>8.1f}%")
def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items()
                if k not in ("created", "seconds", "training_seconds", "speed_up")
                and not k.endswith("seconds_per_simulated_second")}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j
for f in sorted(os.listdir(f"{work}/old")):
    a = json.load(open(f"{work}/old/{f}"))
    b = json.load(open(f"{work}/new/{f}")) if os.path.exists(f"{work}/new/{f}") else None
    same = b is not None and json.dumps(strip(a)) == json.dumps(strip(b))
    print(f"trained {f}: {'identical' if same else 'DIFFERENT'} (wall times, speed check timings and time stamp aside)")
PY
