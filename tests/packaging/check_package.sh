#!/bin/sh
# Builds the Debian package from a configured and built build directory,
# unpacks it into a throwaway root and runs the installed programs from there.
#
#   check_package.sh BUILD_DIR [VERSION]     (CPACK=/path/to/cpack to choose cpack)
#
# Exits 77 (ctest: skipped) when the packaging tools are missing.
set -eu

build=$(cd "$1" && pwd)
version=${2:-}

cpack=${CPACK:-cpack}
for tool in "$cpack" dpkg-deb dpkg-shlibdeps appstreamcli desktop-file-validate; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check_package: $tool not found, skipping (scripts/install-deps.sh installs it)"
    exit 77
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "check_package: FAILED: $*" >&2
  exit 1
}
step() { echo "check_package: $*"; }

step "cpack -G DEB"
(cd "$build" && "$cpack" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || {
  cat "$work/cpack.log" >&2
  fail "cpack"
}
deb=$(ls "$work"/out/mbdrom_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no mbdrom_*.deb in $work/out"
step "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

step "package metadata"
dpkg-deb -f "$deb" Package Version Architecture Depends
depends=$(dpkg-deb -f "$deb" Depends)
for need in libc6 libstdc++6; do
  echo "$depends" | grep -q "$need" || fail "Depends lacks $need: $depends"
done
root=$work/root
dpkg -x "$deb" "$root"
gui=no
if [ -x "$root/usr/bin/mbdrom" ]; then
  gui=yes
  for need in libqt6widgets6 libqt6opengl6 libvtk9.1 qt6-qpa-plugins; do
    echo "$depends" | grep -q "$need" || fail "Depends lacks $need: $depends"
  done
fi

step "installed files"
for f in usr/bin/mbdrom-cli usr/share/mbdrom/examples/macpherson.json usr/share/doc/mbdrom/copyright \
  usr/share/doc/mbdrom/user-guide.md usr/share/doc/mbdrom/images/first_built.png; do
  [ -f "$root/$f" ] || fail "$f is not in the package"
done
if [ $gui = yes ]; then
  for f in usr/share/applications/org.mbdrom.mbdrom.desktop usr/share/icons/hicolor/scalable/apps/org.mbdrom.mbdrom.svg \
    usr/share/metainfo/org.mbdrom.mbdrom.metainfo.xml; do
    [ -f "$root/$f" ] || fail "$f is not in the package"
  done
  # The workbench looks for its examples in <bin>/../share/mbdrom/examples.
  [ -f "$root/usr/bin/../share/mbdrom/examples/macpherson.json" ] || fail "examples not next to the workbench"
fi

step "package description and manual page"
dpkg-deb -f "$deb" Description | grep -q "with live progress; watch full and" ||
  fail "the description lost its text: $(dpkg-deb -f "$deb" Description)"
man_page=$root/usr/share/man/man1/mbdrom-cli.1.gz
[ -f "$man_page" ] || fail "usr/share/man/man1/mbdrom-cli.1.gz is not in the package"
if command -v man >/dev/null 2>&1; then
  MANWIDTH=100 man --warnings -l "$man_page" >"$work/man.txt" 2>"$work/man.err" || fail "man -l: $(cat "$work/man.err")"
  [ ! -s "$work/man.err" ] || fail "man --warnings: $(cat "$work/man.err")"
  # Every command of the program's own overview has its section.
  for command in $("$root/usr/bin/mbdrom-cli" --help | sed -n '/^commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}'); do
    [ "$command" = help ] || grep -q "^   $command\$" "$work/man.txt" || fail "the manual page has no section for $command"
  done
fi

step "installed mbdrom-cli"
cli=$root/usr/bin/mbdrom-cli
ex=$root/usr/share/mbdrom/examples
out=$("$cli" --version) || fail "mbdrom-cli --version"
echo "$out"
case $out in "mbdrom-cli $version"*) ;; *) fail "unexpected version '$out' (want $version)" ;; esac
"$cli" info "$ex/macpherson.json" >"$work/info.txt" || fail "mbdrom-cli info on the installed example"
grep -q "degrees of freedom 1" "$work/info.txt" || fail "info: $(cat "$work/info.txt")"
"$cli" simulate "$ex/macpherson.json" -o "$work/run.csv" --load-case train --t-end 0.2 --dt 0.001 --output-dt 0.01 \
  >"$work/sim.txt" 2>/dev/null || fail "mbdrom-cli simulate on the installed example"
cat "$work/sim.txt"
[ "$(wc -l <"$work/run.csv")" -eq 22 ] || fail "run.csv has $(wc -l <"$work/run.csv") lines, expected 22"

if ls "$build"/python/mbdrom/_mbdrom*.so >/dev/null 2>&1; then
  step "installed Python module (Debian's python3)"
  site=$root/usr/lib/python3/dist-packages
  ls "$site"/mbdrom/__init__.py "$site"/mbdrom/_mbdrom*.so || fail "the Python module is not in the package"
  echo "$depends" | grep -q "python3-numpy" || fail "Depends lacks python3-numpy: $depends"
  PYTHONPATH=$site /usr/bin/python3 -c "
import mbdrom
m = mbdrom.Model.load('$ex/macpherson.json')
run = mbdrom.simulate(m, load_case='train', t_end=0.2, dt=0.001, output_dt=0.01)
assert run.q.shape == (21, 24), run.q.shape
print('import mbdrom', mbdrom.__version__, 'from', mbdrom.__file__, ':', run)
" || fail "the installed module does not import or run"
fi

if [ $gui = yes ]; then
  step "installed mbdrom (no display needed for --version and --help)"
  env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/mbdrom" --version || fail "mbdrom --version"
  env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/mbdrom" --help >"$work/help.txt" || fail "mbdrom --help"
  grep -q -- "--screenshot" "$work/help.txt" || fail "mbdrom --help: $(cat "$work/help.txt")"

  step "desktop-file-validate, appstreamcli validate --no-net"
  desktop-file-validate "$root/usr/share/applications/org.mbdrom.mbdrom.desktop" || fail "desktop-file-validate"
  grep -q "^MimeType=application/x-mbdrom-project;application/x-mbdrom-model;" \
    "$root/usr/share/applications/org.mbdrom.mbdrom.desktop" || fail "the desktop entry names no MIME type"
  if command -v update-mime-database >/dev/null 2>&1; then
    step "update-mime-database on the package's MIME types"
    cp -r "$root/usr/share/mime" "$work/mime"
    update-mime-database "$work/mime" || fail "update-mime-database"
    for type in application/x-mbdrom-project application/x-mbdrom-model; do
      grep -qx "$type" "$work/mime/types" || fail "$type is not a MIME type of the package"
    done
  fi
  appstreamcli validate --no-net "$root/usr/share/metainfo/org.mbdrom.mbdrom.metainfo.xml" || fail "appstreamcli validate"
fi

# Every dependency must be installable: let apt resolve the package without installing it.
if command -v apt-get >/dev/null 2>&1; then
  step "apt-get install --simulate $(basename "$deb")"
  if apt-get install --simulate --no-install-recommends "$deb" >"$work/apt.log" 2>&1; then
    grep -E '^(Inst|Conf) ' "$work/apt.log" || true
  else
    cat "$work/apt.log" >&2
    fail "apt-get cannot resolve the package's dependencies"
  fi
fi
step "ok"
