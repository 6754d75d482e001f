#!/bin/sh
# A project on a read-only file system (a tmpfs mounted read-only in a mount namespace of
# its own) opens read-only, says why, refuses Save in place and saves elsewhere.
# usage: readonly_project.sh GUI_TESTS SOURCE_PROJECT WORK_DIR
# Exit 77 (ctest: skipped, shown as such) where no mount namespace can be made.
set -eu
if ! unshare -m true 2> /dev/null; then
  echo "unshare -m is not permitted here: the read-only project test cannot make a read-only folder"
  exit 77
fi
rm -rf "$3"
mkdir -p "$3/ro"
exec unshare -m sh -c '
  set -eu
  mount -t tmpfs tmpfs "$3/ro"
  cp -r "$2" "$3/ro/project"
  mount -o remount,ro "$3/ro"
  MBDROM_READONLY_PROJECT="$3/ro/project" MBDROM_WRITABLE_DIR="$3/copy" exec "$1" "[readonly]" --warn NoTests' sh "$@"
