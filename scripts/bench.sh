#!/usr/bin/env bash
# Release benchmarks on one core. Installs the benchmark-only packages
# (PyTorch from Debian, for the side-by-side network comparison) — they are
# never needed to build, run or test mbdrom.
#   scripts/bench.sh           all micro-benchmarks + the PyTorch comparison
#   scripts/bench.sh nn        only the network benchmarks and the comparison
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bench_pkgs=(python3-torch python3-numpy)
missing=()
for p in "${bench_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMBDROM_BUILD_GUI=OFF -DMBDROM_BUILD_TESTS=OFF \
  -DMBDROM_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build/bench -j"$(nproc)" --target mbdrom_bench
filter=".*"
[[ "${1:-}" == "nn" ]] && filter="BM_Nn.*"
taskset -c 0 build/bench/bench/mbdrom_bench --benchmark_filter="$filter" --benchmark_format=console \
  --benchmark_out=build/bench/results.json --benchmark_out_format=json
if [[ "${1:-}" == "" || "${1:-}" == "nn" ]]; then
  OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 taskset -c 0 /usr/bin/python3 bench/torch_nn_bench.py build/bench/results.json
fi
