#!/bin/sh
# Compares two builds of mbdrom-cli on one trained model: `rom-simulate --benchmark` (the full
# model and the reduced one, wall time per simulated second) in rounds interleaved (A B, B A,
# ...) on one core, so that drift of the machine hits both alike; prints each build's median
# full-model and reduced-model cost and speed-up.
#   sh bench/ab_rom_simulate.sh OLD/mbdrom-cli NEW/mbdrom-cli ROM.json MODEL.json LOAD_CASE T_END [ROUNDS]
set -eu
old=$1
new=$2
rom=$3
model=$4
load_case=$5
t_end=$6
rounds=${7:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
i=1
while [ "$i" -le "$rounds" ]; do
  if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for which in $order; do
    if [ "$which" = old ]; then bin=$old; else bin=$new; fi
    taskset -c 0 "$bin" rom-simulate "$rom" --model "$model" --load-case "$load_case" -o "$work/run.csv" \
      --t-end "$t_end" --output-dt 0.005 --benchmark >>"$work/$which.log" 2>&1
  done
  i=$((i + 1))
done
python3 - "$work" <<'PY'
import re, statistics, sys
work = sys.argv[1]
for which in ("old", "new"):
    text = open(f"{work}/{which}.log").read()
    full = [float(x) for x in re.findall(r"^full model\s+([0-9.e+-]+) ms per simulated second", text, re.M)]
    reduced = [float(x) for x in re.findall(r"^reduced model\s+([0-9.e+-]+) ms per simulated second", text, re.M)]
    speed = [float(x) for x in re.findall(r"^speed-up\s+([0-9.e+-]+) x", text, re.M)]
    if not speed:
        sys.exit(f"{which}: no speed-up printed:\n{text[-2000:]}")
    print(f"{which}: full model {statistics.median(full):.3f} ms, reduced model {statistics.median(reduced):.3f} ms "
          f"per simulated second, speed-up {statistics.median(speed):.2f}x (median of {len(speed)}; "
          f"{min(speed):.2f}-{max(speed):.2f}x)")
PY
