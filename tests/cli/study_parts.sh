#!/bin/sh
# A study run by two processes as parts 1/2 and 2/2 of one folder, and by one process in another:
# the leaderboards' held-out error columns (median, 95th percentile, worst, bound, silent misses)
# must be the same, row by row.
#   study_parts.sh MBDROM_CLI MODEL.json WORK_DIR [METHODS (default pca,sindy)] [T_END (default 0.5 s)]
set -eu
cli=$1
model=$2
work=$3
methods=${4:-pca,sindy}
t_end=${5:-0.5}
rm -rf "$work"
mkdir -p "$work"
study() {
  "$cli" study "$model" --load-case train --vary load.amplitude_scale=0.6:1.4 --design latin-hypercube \
    --runs 6 --t-end "$t_end" --output-dt 0.005 --methods "$methods" --jobs 1 "$@"
}
study -o "$work/parts" --shard 1/2 >"$work/part1.txt" 2>&1 &
first=$!
study -o "$work/parts" --shard 2/2 >"$work/part2.txt" 2>&1 || { cat "$work/part2.txt"; exit 1; }
wait "$first" || { cat "$work/part1.txt"; exit 1; }
study -o "$work/one" >"$work/one.txt" 2>&1 || { cat "$work/one.txt"; exit 1; }
grep -q "part 2 of 2 (--shard 2/2): part 1 writes the leaderboard" "$work/part2.txt" || { cat "$work/part2.txt"; exit 1; }
grep -q "from another part of the study" "$work/part1.txt" || { cat "$work/part1.txt"; exit 1; }
errors() { cut -d, -f1-10 "$1"; }
if [ "$(errors "$work/parts/leaderboard.csv")" = "$(errors "$work/one/leaderboard.csv")" ]; then
  echo "same held-out errors"
else
  diff "$work/parts/leaderboard.csv" "$work/one/leaderboard.csv"
  exit 1
fi
