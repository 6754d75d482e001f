# Sourced by the test and CI scripts: `timed LABEL COMMAND...` runs the command,
# prints how long it took, prefixed with the calling script's name, and returns
# the command's status (under `set -e` a failure still stops the caller).
timed() {
  local label=$1 t0 rc=0
  shift
  t0=$(date +%s)
  "$@" || rc=$?
  echo "$(basename "$0"): $label took $(($(date +%s) - t0)) s"
  return "$rc"
}
