#!/usr/bin/env bash
# Two CLIs' `rom-simulate --benchmark` on the chirp of every mechanism of a work folder of
# bench/rom_trust.py (its --work), interleaved (A B, B A, ...) on one core so the machine's drift
# hits both alike. Prints, per mechanism and CLI, the run with the median speed-up: the full and the
# reduced model's ms per simulated second and the speed-up measured in that run.
#   bash bench/rom/benchmark_ab.sh OLD/mbdrom-cli NEW/mbdrom-cli WORK METHOD [ROUNDS]
set -euo pipefail
old=$1 new=$2 work=$3 method=$4 rounds=${5:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$work"/*/; do
  name=$(basename "$dir")
  log=$dir/${method}_chirp.log
  [[ -f $dir/$method.json && -f $log ]] || continue
  # The benchmark's own command line (its first line), with the output sent elsewhere.
  read -r -a args <<<"$(head -n 1 "$log" | sed -E "s#^[^ ]+ ##; s# -o [^ ]+# -o $tmp/run.csv#")"
  : >"$tmp/old.txt"
  : >"$tmp/new.txt"
  for ((i = 1; i <= rounds; ++i)); do
    order="old new"
    ((i % 2)) || order="new old"
    for which in $order; do
      cli=$old
      [[ $which == new ]] && cli=$new
      taskset -c 0 "$cli" "${args[@]}" 2>/dev/null |
        awk '/^full model  /{f=$3} /^reduced model  /{r=$3} /^speed-up/{s=$2} END{print f, r, s}' >>"$tmp/$which.txt"
    done
  done
  for which in old new; do
    printf '%s %s %s: full %s, reduced %s ms per simulated second, %sx\n' "$name" "$method" "$which" \
      $(sort -k3 -g "$tmp/$which.txt" | sed -n "$(((rounds + 1) / 2))p")
  done
done
