#!/bin/sh
# A project on a read-only file system (a tmpfs mounted read-only in a mount namespace of
# its own) opens read-only, says why, refuses Save in place and saves elsewhere.
# usage: readonly_project.sh GUI_TESTS SOURCE_PROJECT WORK_DIR
# Exit 77 (ctest: skipped, shown as such) where no mount namespace can be made.
set -eu
rm -rf "$3"
mkdir -p "$3/ro"
if ! unshare -m sh -c 'mount -t tmpfs tmpfs "$1" && mount -o remount,ro "$1"' sh "$3/ro" 2> /dev/null; then
  echo "no mount namespace with a tmpfs can be made here (unshare -m): the read-only project test is skipped"
  exit 77
fi
exec unshare -m sh -c '
  set -eu
  mount -t tmpfs tmpfs "$3/ro"
  cp -r "$2" "$3/ro/project"
  mount -o remount,ro "$3/ro"
  MBDROM_READONLY_PROJECT="$3/ro/project" MBDROM_WRITABLE_DIR="$3/copy" exec "$1" "[readonly]" --warn NoTests' sh "$@"
