#!/bin/sh
# Runs two builds of mbdrom-cli on every trained model below a folder and says whether their
# outputs are the same to the bit: for each DIR/<mechanism>/ holding ROM_FILE and model.json,
# `rom-simulate` of the load case "chirp" (else the model's first) over T_END seconds, 5 ms output,
# then a byte comparison of the CSV files (and the largest difference where they differ).
#   sh bench/compare_rom_outputs.sh OLD/mbdrom-cli NEW/mbdrom-cli DIR ROM_FILE [T_END]
set -eu
old=$1
new=$2
dir=$3
rom_file=$4
t_end=${5:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in "$dir"/*/; do
  [ -f "$d/$rom_file" ] && [ -f "$d/model.json" ] || continue
  load_case=$(python3 -c "
import json, sys
names = [c['name'] for c in json.load(open(sys.argv[1]))['load_cases']]
print('chirp' if 'chirp' in names else names[0])" "$d/model.json")
  # A run that writes no CSV is reported, not compared with the last mechanism's file.
  rm -f "$work/old.csv" "$work/new.csv"
  for which in old new; do
    if [ "$which" = old ]; then bin=$old; else bin=$new; fi
    (cd "$d" && "$bin" rom-simulate "$rom_file" --model model.json --load-case "$load_case" \
      -o "$work/$which.csv" --t-end "$t_end" --output-dt 0.005 >"$work/$which.log" 2>&1) || true
  done
  if [ ! -f "$work/old.csv" ] || [ ! -f "$work/new.csv" ]; then
    result="no output from $( [ -f "$work/old.csv" ] && echo NEW || echo OLD): $(tail -n 1 "$work/old.log" "$work/new.log" | tr '\n' ' ')"
  elif cmp -s "$work/old.csv" "$work/new.csv"; then
    result=identical
  else
    result=$(python3 - "$work/old.csv" "$work/new.csv" <<'PY'
import csv, math, sys
rows = [list(csv.reader(open(f)))[1:] for f in sys.argv[1:3]]
if len(rows[0]) != len(rows[1]):
    print("differ: %d against %d rows" % (len(rows[0]), len(rows[1])))
else:
    largest = 0.0
    for r, s in zip(*rows):
        for x, y in zip(r, s):
            d = abs(float(x) - float(y))
            largest = d if math.isnan(d) or d > largest else largest
    print("differ: largest difference %.3g" % largest)
PY
)
  fi
  echo "$(basename "$d") ($load_case): $result"
done
