#!/usr/bin/env bash
# Prints the ten slowest tests and the ten slowest compile units of a build
# tree: what to look at when a CI stage runs out of its budget.
#   .ci/slowest.sh build/ci
set -uo pipefail
build=${1:?usage: .ci/slowest.sh BUILD_DIR}
costs=$build/Testing/Temporary/CTestCostData.txt
if [[ -f $costs ]]; then
  echo "-- the ten slowest tests of $build (seconds, last run):"
  sed '/^---/,$d' "$costs" | awk '{cost=$NF; $NF=""; $(NF)=""; sub(/ +[0-9]+ *$/, ""); printf "%8.2f  %s\n", cost, $0}' |
    sort -rn | head -n 10
fi
if [[ -f $build/.ninja_log ]]; then
  echo "-- the ten slowest compile units of $build (seconds, last build):"
  awk 'NR > 1 && $4 ~ /\.(o|gch)$/ {printf "%8.2f  %s\n", ($2 - $1) / 1000, $4}' "$build/.ninja_log" | sort -rn | head -n 10
fi
