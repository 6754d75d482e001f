#!/usr/bin/env bash
# Fails, listing the files, when a C++ source is not as .clang-format says.
# The formatter is pinned to Debian 12's clang-format 14: another version
# formats some constructs differently. Fix with:
#   clang-format-14 -i $(git ls-files '*.cpp' '*.h')
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format-14
command -v "$format" >/dev/null || { echo "check-format: $format is missing (scripts/install-deps.sh installs it)"; exit 2; }
# Many files per formatter process, two processes at once; file by file only to name the culprits.
if git ls-files -z '*.cpp' '*.h' '*.hpp' | xargs -0 -n 64 -P 2 "$format" --dry-run --Werror >/dev/null 2>&1; then
  echo "check-format: every C++ file is formatted ($format)"
  exit 0
fi
bad=()
while IFS= read -r f; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.h' '*.hpp')
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} file(s) are not formatted with $format:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: every C++ file is formatted ($format)"
