#!/usr/bin/env bash
# The Python module's overhead: the same 10,000-step MacPherson run through
# mbdrom.simulate and through the engine directly (BM_SimulateRecordedTable), one core,
# interleaved rounds of 5 runs each; prints both medians per round and their ratio.
#   bash bench/python_overhead.sh [BUILD_DIR] [ROUNDS]     (BUILD_DIR: build/release)
set -euo pipefail
build=${1:-build/release}
rounds=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
for ((r = 1; r <= rounds; r++)); do
  engine=$(taskset -c 1 "$build/bench/mbdrom_bench" --benchmark_filter='SimulateRecordedTable' \
    --benchmark_format=csv 2>/dev/null | grep '_median"' | cut -d, -f3)
  python=$(PYTHONPATH=$build/python taskset -c 1 /usr/bin/python3 "$here/bench/python_overhead.py" 5 | cut -d' ' -f2)
  python3 -c "print(f'round $r: engine {float($engine):.1f} ms, python {float($python):.1f} ms, ratio {float($python)/float($engine):.4f}')"
done
