#!/bin/sh
# SIGTERM (kill, a Slurm time limit) stops a command as Ctrl+C does: exit 143, what a
# run wrote kept, no temporary file or folder left, no process it started left running.
# usage: stop_signals.sh MBDROM_CLI WORK_DIR EXAMPLES_DIR
set -eu
cli=$1
work=$2
ex=$3/macpherson.json
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAILED: $*"
  exit 1
}
no_temporaries() {  # $1: folder
  left=$(find "$1" -name '.*.part' -o -name '*.part' -o -name '.*.lock' | head -n 3)
  [ -z "$left" ] || fail "temporaries left behind: $left"
}
# Starts "$@" in the background, waits until $1 exists (a file), or with "log:TEXT" until its
# messages hold TEXT, or with "part:DIR" until DIR holds a temporary file (the command is then
# past its set-up; 20 s at most), sends SIGTERM, waits; $code.
term_when() {
  want=$1
  shift
  : > "$work/err.log"
  "$@" > "$work/out.log" 2> "$work/err.log" &
  pid=$!
  n=0
  while [ $n -lt 200 ]; do
    case $want in
      log:*) grep -q "${want#log:}" "$work/err.log" && break ;;
      part:*) ls -a "${want#part:}" 2> /dev/null | grep -q '\.part$' && break ;;
      *) [ -e "$want" ] && break ;;
    esac
    sleep 0.1
    n=$((n + 1))
  done
  sleep 0.5
  kill -TERM $pid
  set +e
  wait $pid
  code=$?
  set -e
}

# A long run: its rows up to the stop are kept, renamed as the partial file.
mkdir -p "$work/runs"
term_when "part:$work/runs" sh -c "exec '$cli' simulate '$ex' --load-case train --t-end 1000 --dt 1e-4 -o '$work/runs/long.csv'"
[ "$code" -eq 143 ] || fail "simulate: exit $code, expected 143: $(cat "$work/err.log")"
grep -q "stopped by SIGTERM" "$work/err.log" || fail "simulate: no 'stopped by SIGTERM': $(cat "$work/err.log")"
[ -s "$work/runs/long.partial.csv" ] || fail "simulate: no partial results kept: $(ls -a "$work/runs")"
[ ! -e "$work/runs/long.csv" ] || fail "simulate: a stopped run was written as complete"
no_temporaries "$work/runs"
echo "simulate: exit 143, $(wc -l < "$work/runs/long.partial.csv") rows kept"

# A training: nothing written.
"$cli" simulate "$ex" --load-case train --t-end 1 --output-dt 0.005 -o "$work/train.csv" > /dev/null
term_when "log:train ae:" "$cli" train ae --model "$ex" --data "$work/train.csv" -o "$work/ae.json" --epochs 100000000
[ "$code" -eq 143 ] || fail "train: exit $code, expected 143: $(cat "$work/err.log")"
grep -q "stopped by SIGTERM" "$work/err.log" || fail "train: not stopped through its monitor: $(tail -3 "$work/err.log")"
[ ! -e "$work/ae.json" ] || fail "train: a stopped training wrote its model"
no_temporaries "$work"
echo "train: exit 143, nothing written"

# An FMU export whose compiler hangs (with a child of its own, as cc starts cc1).
"$cli" train pod --model "$ex" --data "$work/train.csv" -o "$work/pod.json" --nr 1 > /dev/null 2>&1 ||
  [ $? -eq 3 ]  # written, though one mode fails its checks
mkdir -p "$work/out"
printf '#!/bin/sh\nsleep 600 &\necho $! > %s/cc_child\necho $$ > %s/cc_shell\nwait\n' "$work" "$work" > "$work/hang_cc.sh"
term_when "$work/cc_child" "$cli" export-fmu "$work/pod.json" --model "$ex" --load-case train -o "$work/out/pod.fmu" --cc "sh $work/hang_cc.sh"
[ "$code" -eq 143 ] || fail "export-fmu: exit $code, expected 143: $(cat "$work/err.log")"
grep -q "stopped by SIGTERM" "$work/err.log" || fail "export-fmu: not stopped through its monitor: $(cat "$work/err.log")"
for name in cc_shell cc_child; do
  p=$(cat "$work/$name")
  n=0
  while kill -0 "$p" 2> /dev/null && [ "$(awk '{print $3}' /proc/$p/stat 2> /dev/null)" != Z ] && [ $n -lt 50 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  if kill -0 "$p" 2> /dev/null && [ "$(awk '{print $3}' /proc/$p/stat 2> /dev/null)" != Z ]; then
    kill -9 "$p"
    fail "export-fmu: the compiler's process $name ($p) is still running"
  fi
done
[ -z "$(ls -A "$work/out" 2> /dev/null)" ] || fail "export-fmu: left behind: $(ls -A "$work/out")"
echo "export-fmu: exit 143, compiler stopped, nothing left"

# A sweep part: complete runs kept, the part resumes.
term_when "$work/sweep" "$cli" sweep "$ex" -o "$work/sweep" --load-case train --vary load.tyre.amplitude=800:2000 --design sobol --runs 4 --t-end 200 --dt 1e-4 --jobs 1
[ "$code" -eq 143 ] || fail "sweep: exit $code, expected 143: $(cat "$work/err.log")"
grep -q "stopped by SIGTERM" "$work/err.log" || fail "sweep: not stopped through its monitor: $(cat "$work/err.log")"
no_temporaries "$work/sweep"
echo "sweep: exit 143"
