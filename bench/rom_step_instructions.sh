#!/bin/sh
# Instructions per step of a reduced run (callgrind): everything rom-simulate does in
# ReducedModel's run but writing the CSV and making a kinematic grid, divided by the run's steps.
# Deterministic, so that two builds compare on a loaded machine where wall time does not.
#   sh bench/rom_step_instructions.sh mbdrom-cli ROM.json MODEL.json LOAD_CASE T_END
set -eu
cli=$1
rom=$2
model=$3
load_case=$4
t_end=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$work/cg" --toggle-collect='*simulateAtStep*' \
  "$cli" rom-simulate "$rom" --model "$model" --load-case "$load_case" -o "$work/run.csv" --t-end "$t_end" \
  --output-dt 0.005 >"$work/log" 2>&1
steps=$("$cli" rom-simulate "$rom" --model "$model" --load-case "$load_case" -o "$work/run.csv" \
  --t-end "$t_end" --output-dt 0.005 2>&1 | awk '/^steps/ {print $2}')
inclusive() { callgrind_annotate --auto=no --inclusive=yes "$work/cg" 2>/dev/null | grep -m1 "$1" | awk '{print $1}' | tr -d ,; }
total=$(callgrind_annotate --auto=no "$work/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {print $1}' | tr -d ,)
csv=$(inclusive "TrajectoryCsvWriter::write")
grid=$(inclusive "trainedKinematicGrid(")
echo $(((total - ${csv:-0} - ${grid:-0}) / steps))
