#!/usr/bin/env bash
# Installs what is needed, builds the `ci` preset (optimised, assertions on,
# warnings as errors) and runs the whole test suite through ctest. GUI tests
# run under xvfb-run when there is no display.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci -j"$(nproc)"
if [[ -z "${DISPLAY:-}" ]]; then
  xvfb-run -a -s "-screen 0 1920x1080x24" ctest --preset ci -j2
else
  ctest --preset ci -j2
fi
