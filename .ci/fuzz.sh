#!/usr/bin/env bash
# The fuzz smoke of .ci/run: the engine and the CLI built without Qt or VTK
# (the fuzz preset, clang), and 6 s of each libFuzzer harness.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timed.sh
timed "install-deps" scripts/install-deps.sh --fuzz
cmake --preset fuzz >/dev/null
harnesses="model_loader network_loader project_loader trained_model_loader trajectory_csv_loader sweep_loader mesh_loader"
targets="mbdrom-cli"
for f in $harnesses; do targets="$targets ${f}_fuzzer"; done
# shellcheck disable=SC2086
timed "build" cmake --build --preset fuzz -j"$(nproc)" --target $targets
build/fuzz/app/cli/mbdrom-cli --version
for f in $harnesses; do
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/${f%_loader}/." "$work"/ 2>/dev/null || true
  # A crash, leak, hang or undefined behaviour fails the stage (the input is saved as crash-*).
  # The harness's own temporary files go with the corpus copy.
  scratch=$(mktemp -d)
  TMPDIR="$scratch" "build/fuzz/tests/fuzz/${f}_fuzzer" "$work" -max_total_time=6 -rss_limit_mb=2048 -timeout=10 2>&1 | tail -n 3
  rm -rf "$work" "$scratch"
done
