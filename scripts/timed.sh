# Sourced by the test and CI scripts: `timed LABEL COMMAND...` runs the command,
# then prints how long it took, prefixed with the calling script's name.
timed() {
  local label=$1 t0
  shift
  t0=$(date +%s)
  "$@"
  echo "$(basename "$0"): $label took $(($(date +%s) - t0)) s"
}
