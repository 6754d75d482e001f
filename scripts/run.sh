#!/usr/bin/env bash
# Installs what is needed, builds the workbench and opens it with the bundled
# example mechanism loaded. Extra arguments go to mbdrom. It builds in the tree
# of scripts/test.sh (build/ci, optimised with assertions), so the README's two
# commands build once between them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$(nproc)" --target mbdrom mbdrom-cli
if [[ $# -eq 0 ]]; then
  set -- resources/examples/macpherson.json
fi
exec build/ci/app/mbdrom "$@"
