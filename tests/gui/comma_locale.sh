#!/bin/sh
# The workbench under a German locale (a comma for the decimal point): the engine's messages keep the
# point. The locale is compiled into WORK_DIR (Debian's locales package holds its sources).
# usage: comma_locale.sh GUI_TESTS WORK_DIR
# Exit 77 (ctest: skipped, shown as such) where it cannot be compiled.
set -eu
rm -rf "$2"
mkdir -p "$2"
if ! localedef -i de_DE -f UTF-8 "$2/de_DE.UTF-8" 2> /dev/null; then
  echo "no German locale can be compiled here (localedef, package locales): the comma locale test is skipped"
  exit 77
fi
LOCPATH="$2" LC_ALL=de_DE.UTF-8 exec "$1" "[comma-locale]" --warn NoTests
