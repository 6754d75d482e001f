#!/bin/sh
# A MacPherson sweep (Sobol design over the tyre load's amplitude
# and the coil-over's rate: a family of mechanisms) run in four parts with real
# mpirun, in four parts as Slurm array tasks (variables set by hand), and in two
# parts of which one is killed and run again, merges into datasets bit-identical
# to those of one process.
# usage: sweep_parts.sh MBDROM_CLI WORK_DIR EXAMPLES_DIR
set -eu
cli=$1
work=$2
ex=$3/macpherson.json
rm -rf "$work"
mkdir -p "$work"
design="--load-case train --vary load.tyre.amplitude=800:2000 --vary spring_dampers.coilover.stiffness.0=20000:40000
        --design sobol --runs 8 --t-end 10 --output-dt 0.05 --jobs 1"
fail() {
  echo "FAILED: $*"
  exit 1
}
same() {  # the datasets merged from $1 are those of one process, byte for byte
  "$cli" merge "$work/$1" -o "$work/$1.json" > "$work/$1.merge.log" || fail "merge of $1: $(cat "$work/$1.merge.log")"
  n=0
  for f in "$work"/one_*.json; do
    cmp -s "$f" "$work/$1_${f##*/one_}" || fail "$1: ${f##*/} differs from one process's"
    n=$((n + 1))
  done
  [ "$n" -eq 8 ] || fail "expected 8 datasets (8 spring rates), got $n"
  echo "$1: 8 datasets identical to one process's"
}

"$cli" sweep "$ex" -o "$work/one" $design > "$work/one.log" 2>&1 || fail "one process: $(cat "$work/one.log")"
"$cli" merge "$work/one" -o "$work/one.json" > /dev/null

# Open MPI: each rank reads its part from OMPI_COMM_WORLD_RANK / _SIZE; no MPI is linked.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun --oversubscribe -np 4 "$cli" sweep "$ex" -o "$work/mpi" $design > "$work/mpi.log" 2>&1 ||
  fail "mpirun: $(cat "$work/mpi.log")"
for rank in 0 1 2 3; do
  grep -q "part $((rank + 1)) of 4 (Open MPI rank $rank): 2 runs" "$work/mpi.log" || fail "no part for rank $rank"
done
same mpi

# A Slurm job array --array=10-13: four tasks, run here at once.
for id in 10 11 12 13; do
  env SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_MAX=13 SLURM_ARRAY_TASK_STEP=1 \
    SLURM_ARRAY_TASK_COUNT=4 "$cli" sweep "$ex" -o "$work/slurm" $design > "$work/slurm$id.log" 2>&1 &
done
wait
grep -q "part 3 of 4 (Slurm array task 12)" "$work/slurm12.log" || fail "task 12: $(cat "$work/slurm12.log")"
same slurm

# A list of array ids cannot be mapped to parts: refused, naming why.
if env SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=9 SLURM_ARRAY_TASK_COUNT=3 \
  "$cli" sweep "$ex" -o "$work/list" $design > "$work/list.log" 2>&1; then
  fail "a Slurm id list was accepted"
fi
grep -q "not a regular range" "$work/list.log" || fail "list: $(cat "$work/list.log")"

# Part 2 of 2 killed after its first run, then run again: it keeps the complete runs.
"$cli" sweep "$ex" -o "$work/killed" $design --shard 1/2 > /dev/null 2>&1
"$cli" sweep "$ex" -o "$work/killed" $design --shard 2/2 > "$work/killed1.log" 2>&1 &
pid=$!
while [ "$(ls "$work"/killed/*.run.json 2>/dev/null | wc -l)" -lt 5 ]; do
  kill -0 $pid 2>/dev/null || fail "part 2 ended before it could be killed"
  sleep 0.01
done
kill -9 $pid
wait $pid 2>/dev/null || true
records=$(ls "$work"/killed/*.run.json | wc -l)
[ "$records" -lt 8 ] || fail "part 2 finished before it was killed"
if "$cli" merge "$work/killed" -o "$work/incomplete.json" > "$work/incomplete.log" 2>&1; then
  fail "merge accepted a sweep with a part missing"
fi
grep -q "runs of the design are missing or unfinished" "$work/incomplete.log" || fail "$(cat "$work/incomplete.log")"
"$cli" sweep "$ex" -o "$work/killed" $design --shard 2/2 > "$work/killed2.log" 2>&1 || fail "$(cat "$work/killed2.log")"
kept=$(sed -n 's/^\([0-9]*\) complete run(s) kept from before.*/\1/p' "$work/killed2.log")
[ -n "$kept" ] && [ "$kept" -ge 1 ] && [ "$kept" -le 3 ] || fail "resume kept '$kept' runs: $(cat "$work/killed2.log")"
echo "killed part: $kept of 4 runs kept, $((4 - kept)) run again"
same killed
# One mechanism (a design over the load and the initial state): one dataset of all 8 runs, the same
# from two parts; every method trains on it, the neural ODE with the design's values as its μ.
loads="--load-case train --vary load.tyre.amplitude=800:2000 --vary q0.BJ.z=0.11:0.13 --design sobol --runs 8
       --t-end 1 --output-dt 0.005 --jobs 1"
"$cli" sweep "$ex" -o "$work/loads1" $loads > /dev/null 2>&1 || fail "load design"
"$cli" sweep "$ex" -o "$work/loads2" $loads --shard 1/2 > /dev/null 2>&1 || fail "load design part 1"
"$cli" sweep "$ex" -o "$work/loads2" $loads --shard 2/2 > /dev/null 2>&1 || fail "load design part 2"
"$cli" merge "$work/loads1" -o "$work/loads1.json" > "$work/loads1.log" 2>&1 || fail "$(cat "$work/loads1.log")"
"$cli" merge "$work/loads2" -o "$work/loads2.json" > /dev/null 2>&1 || fail "merge of the load design's parts"
grep -q "8 runs of macpherson" "$work/loads1.log" || fail "one dataset of 8 runs: $(cat "$work/loads1.log")"
cmp -s "$work/loads1.json" "$work/loads2.json" || fail "the load design's dataset differs between 1 and 2 parts"
echo "load design: one dataset of 8 runs, identical from two parts"
# Exit code 3: written, but the model fails its checks (one POD mode, three epochs): trained all the same.
"$cli" train pod --model "$ex" --data "$work/loads1.json" --nr 1 -o "$work/pod.json" > "$work/pod.log" 2>&1 ||
  [ $? -eq 3 ] || fail "train pod on the merged dataset: $(tail -n 3 "$work/pod.log")"
"$cli" train node --model "$ex" --data "$work/loads1.json" --parameter load.tyre.amplitude --hidden 8 --epochs 3 --keep-failing \
  -o "$work/node.json" > "$work/node.log" 2>&1 || [ $? -eq 3 ] ||
  fail "train node on the merged dataset: $(tail -n 3 "$work/node.log")"
grep -q "parameter load.tyre.amplitude trained on" "$work/node.log" || fail "node's μ: $(cat "$work/node.log")"
echo "trained pod and node (μ = load.tyre.amplitude) on the merged dataset"

# merge never writes into a sweep directory or over a file that is not a dataset.
if "$cli" merge "$work/loads1" -o "$work/loads1/x.json" > "$work/o1.log" 2>&1; then fail "merge wrote into the sweep"; fi
grep -q "not written into the sweep directory" "$work/o1.log" || fail "$(cat "$work/o1.log")"
cp "$ex" "$work/model_copy.json"
if "$cli" merge "$work/loads1" -o "$work/model_copy.json" > "$work/o2.log" 2>&1; then fail "merge overwrote a model"; fi
grep -q "exists and is not an mbdrom dataset" "$work/o2.log" || fail "$(cat "$work/o2.log")"
echo "sweep parts: all merged bit-identical"
