#!/usr/bin/env bash
# Installs every Debian 12 package mbdrom needs to build, run and test.
# The only place package names are listed. Idempotent, non-interactive, as root.
#   scripts/install-deps.sh            build + run + test packages
#   scripts/install-deps.sh --fuzz     also clang's runtime for libFuzzer/sanitizers
#   scripts/install-deps.sh --bench    also Simbody 3.7, the peer of the work-precision benchmark
#                                      (bench/work_precision; 5 more packages on a machine with the
#                                      build packages, libsimbody-dev and its SimTK libraries)
set -euo pipefail

build_pkgs=(
  build-essential cmake ninja-build pkg-config
  ccache mold                   # the compiler cache and a faster linker (docs/ci.md)
  libeigen3-dev nlohmann-json3-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libgl-dev
  libvtk9-dev
  pybind11-dev python3-dev python3-numpy  # the Python module (Debian's pybind11 2.10 needs NumPy 1.x: Debian's)
)
test_pkgs=(
  catch2 libbenchmark-dev
  xvfb xauth libgl1-mesa-dri
  locales                       # localedef's sources: the workbench's test under a comma locale
  appstream desktop-file-utils  # the .deb test validates its AppStream file and desktop entry
  man-db shared-mime-info       # ... renders its manual page and reads its MIME types
  clang-format-14               # scripts/check-format.sh: the formatter, pinned
  python3                       # bench/rom_goals.sh, run as the reduced models' goals test
  python3-pytest                # tests/python: the Python module's tests
  python3-matplotlib            # examples/python: the worked example, run as a test
  openmpi-bin                   # mpirun: a sweep in parts (no MPI library is linked)
  gcc-mingw-w64-x86-64 wine64   # an FMU's Windows DLL, built with MinGW-w64 and run under wine
  zip unzip                     # the user guide's source build of an FMU, run as a test
)
fuzz_pkgs=(clang libclang-rt-14-dev)
bench_pkgs=(libsimbody-dev)

want=("${build_pkgs[@]}" "${test_pkgs[@]}")
[[ "${1:-}" == "--fuzz" ]] && want+=("${fuzz_pkgs[@]}")
[[ "${1:-}" == "--bench" ]] && want+=("${bench_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#want[@]} packages present"
  exit 0
fi

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
