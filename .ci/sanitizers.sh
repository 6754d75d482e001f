#!/usr/bin/env bash
# The sanitizer stage of .ci/run: the engine, the CLI and the workbench built
# with ASan + UBSan (the asan preset), and their tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# The neural networks' accuracy tests and the timed goals test run for minutes
# under ASan; their code paths run there through the shorter tests. Three FMU
# tests spend their time in programs built without the sanitizers (the FMU's C
# compiled by MinGW and run under wine, or by gcc and checked for glibc
# symbols, or built by the user guide's CMake commands); the export they start
# from runs under ASan in the other FMU tests. The trust benchmark's two CI runs
# (bench/rom_trust.py: the full model, POD, local PCA and SINDy trained and run by the CLI on five
# textbook mechanisms; the triple pendulum and half-car alone took 91-170 s there) measure the
# reduced models' errors, not memory: every command they start runs under ASan in the CLI's tests.
# Leaks are checked everywhere; tests/sanitizers/lsan.supp names the few of libraries
# outside mbdrom, each with its reason.
slow='AE of the |AE reduced energy is conserved|an auto-encoder run that its loads carry|AE latent coordinate|AE reports the reconstruction|a network fits|node on the pendulum on a carriage follows|node in the latent coordinate of an auto-encoder|a validation fraction holds|node with a parameter learns|mechanisms from outside definitions run to the end at the default step|at a tight tolerance the two integrators agree|node with default inputs learns|meets its goals on the MacPherson sweep|node with its defaults sizes itself|sindy at 5 % noise|an excitation left out of the library|sindy refuses to identify from positions|only their own scheme fits the training span|a sweep in parts under mpirun|Windows DLL, built with MinGW-w64, runs under wine|Linux binary needs no glibc symbol above|source build of an FMU runs as written|no reduced run on the'
source scripts/timed.sh
cmake --preset asan >/dev/null
timed "build" cmake --build --preset asan -j"$(nproc)"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp"
# One ctest run for the engine, CLI and workbench tests: the workbench's tests share one display
# and run one at a time (their COST starts them first), beside the others; run apart, they kept
# one core of two idle for their 340 s.
# LeakSanitizer's tracer crashes at exit in about 1 of 60 runs of a GUI test ("Tracer caught
# signal 11 ... LeakSanitizer has encountered a fatal error", after every assertion passed; with
# Mesa's threads alive), and beside two instrumented engine tests a workbench test's event loop
# stalled past its 500 ms check once: a failing GUI test runs once more, alone. A leak fails both times; the log
# keeps the first failure (a test that fails only now and then also runs in the ci stage). Any
# other failure fails the stage at once.
run_tests() {
  xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" ctest --preset asan -j2 --output-on-failure "$@"
}
if ! timed "engine, CLI and workbench tests" run_tests -E "^packaging|$slow"; then
  failed=build/asan/Testing/Temporary/LastTestsFailed.log
  if [[ ! -s $failed ]] || grep -qv '^[0-9]*:gui' "$failed"; then
    exit 1
  fi
  echo "sanitizers.sh: the workbench tests that failed run once more:"
  cat "$failed"
  # By name: ctest numbers the tests that -E leaves, so --rerun-failed would pick others.
  names=$(sed 's/^[0-9]*://; s/[][\.*+?^$(){}|]/\\&/g' "$failed" | paste -sd '|')
  timed "workbench tests run again" run_tests -R "^($names)\$"
fi
