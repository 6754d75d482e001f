#!/bin/sh
# Compares two processor versions of the network kernels of engine/nn/dense_kernels.cpp (the
# affine map unfused, tanh with fused multiply-adds, as the engine builds them) in one process,
# interleaved, on one core: each function's source compiled once per -march and linked under two
# namespaces. Defaults: AVX2 (x86-64-v3) against AVX-512 (x86-64-v4), which the engine's
# target_clones choose between when the program starts.
#   sh bench/nn_kernels/versions.sh [OLDER_MARCH NEWER_MARCH]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../engine/nn/dense_kernels.cpp
older=${1:-x86-64-v3}
newer=${2:-x86-64-v4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One translation unit per kernel and version: the function's definition without its
# target_clones macro, in namespace NS.
kernel() {  # kernel NAME NS MARCH CONTRACT
  {
    printf '#include <algorithm>\n#include <bit>\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\nnamespace %s {\n' "$2"
    awk -v name="$1" '$0 ~ "^MBDROM_[A-Z_]*VECTOR_LOOP void " name "\\(" {on = 1} on {print} on && /^}/ {exit}' "$src" |
      sed 's/^MBDROM_[A-Z_]*VECTOR_LOOP //'
    printf '}\n'
  } >"$work/$1_$2.cpp"
  grep -q "void $1(" "$work/$1_$2.cpp" || { echo "versions.sh: $1 not found in $src" >&2; exit 1; }
  g++ -std=c++20 -O2 -fvect-cost-model=dynamic -ffp-contract="$4" -march="$3" -c "$work/$1_$2.cpp" -o "$work/$1_$2.o"
}
kernel affine older "$older" off
kernel affine newer "$newer" off
kernel tanhValues older "$older" fast
kernel tanhValues newer "$newer" fast
g++ -std=c++20 -O2 "$here/versions_main.cpp" "$work"/*.o -o "$work/versions"
echo "older: -march=$older, newer: -march=$newer (median of 21 interleaved rounds, one core)"
taskset -c "${CORE:-0}" "$work/versions"
