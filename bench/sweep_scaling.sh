#!/bin/sh
# A 64-run MacPherson sweep (a Latin hypercube over the tyre load's
# amplitude and frequency and the coil-over's rate: 64 mechanisms, 10 s each) on one
# process and on two processes (the two parts of --shard, one per core, each with one
# worker thread), wall time of the whole sweep, best of REPEATS (default 3). Also one
# process with two worker threads (--jobs 2). Checks that the parts merge into the
# datasets of one process, byte for byte.
#   sh bench/sweep_scaling.sh [MBDROM_CLI] [WORK_DIR] [REPEATS]
set -eu
cli=${1:-build/release/app/cli/mbdrom-cli}
work=${2:-$(mktemp -d)}
repeats=${3:-3}
ex=resources/examples/macpherson.json
mkdir -p "$work"
design="--load-case train --vary load.tyre.amplitude=800:2200 --vary load.tyre.frequency=0.5:3
        --vary spring_dampers.coilover.stiffness.0=20000:40000 --design latin-hypercube --runs 64 --seed 32
        --t-end 10 --output-dt 0.01"
now() { date +%s.%N; }
best() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }

one="" two="" threads=""
for r in $(seq "$repeats"); do
  rm -rf "$work/one" "$work/two" "$work/threads"
  t0=$(now)
  taskset -c 0 "$cli" sweep "$ex" -o "$work/one" $design --jobs 1 >/dev/null 2>&1
  t1=$(now)
  taskset -c 0 "$cli" sweep "$ex" -o "$work/two" $design --jobs 1 --shard 1/2 >/dev/null 2>&1 &
  p1=$!
  taskset -c 1 "$cli" sweep "$ex" -o "$work/two" $design --jobs 1 --shard 2/2 >/dev/null 2>&1 &
  p2=$!
  wait $p1
  wait $p2
  t2=$(now)
  "$cli" sweep "$ex" -o "$work/threads" $design --jobs 2 >/dev/null 2>&1
  t3=$(now)
  one="$one $(python3 -c "print($t1 - $t0)")"
  two="$two $(python3 -c "print($t2 - $t1)")"
  threads="$threads $(python3 -c "print($t3 - $t2)")"
done
"$cli" merge "$work/one" -o "$work/one.json" >/dev/null
"$cli" merge "$work/two" -o "$work/two.json" >/dev/null
for f in "$work"/one_*.json; do
  cmp -s "$f" "$work/two_${f##*/one_}" || { echo "FAILED: ${f##*/} differs between 1 and 2 processes"; exit 1; }
done
b1=$(best $one)
b2=$(best $two)
bt=$(best $threads)
python3 - "$b1" "$b2" "$bt" <<'PY'
import sys
one, two, threads = map(float, sys.argv[1:])
print(f"64-run MacPherson sweep (64 mechanisms, 10 s each), best of the repeats:")
print(f"  1 process, 1 thread     {one:7.2f} s")
print(f"  2 processes (--shard)   {two:7.2f} s   speed-up {one / two:.2f}x")
print(f"  1 process, 2 threads    {threads:7.2f} s   speed-up {one / threads:.2f}x")
print("datasets of 1 and 2 processes identical")
PY
