#!/usr/bin/env bash
# Installs what is needed, builds the workbench (Release) and opens it with
# the bundled example mechanism loaded. Extra arguments go to mbdrom.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target mbdrom mbdrom-cli
if [[ $# -eq 0 ]]; then
  set -- resources/examples/macpherson.json
fi
exec build/release/app/mbdrom "$@"
