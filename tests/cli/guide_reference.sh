#!/bin/sh
# The user guide's command reference against the programs' own --help.
#
#   guide_reference.sh check    GUIDE MBDROM_CLI [MBDROM]   fails on any difference
#   guide_reference.sh update   GUIDE MBDROM_CLI [MBDROM]   rewrites the generated section
#   guide_reference.sh generate MBDROM_CLI [MBDROM]         prints the reference section
#
# The reference section of docs/user-guide.md holds, for each command, a
# heading "### `mbdrom-cli CMD`" and a ```text block that starts with
# "$ mbdrom-cli CMD --help" followed by that command's help, verbatim. check
# fails when a documented command does not exist (its --help does not exit 0),
# when a command of 'mbdrom-cli --help' is not documented, or when a documented
# help text differs from the program's. 'update' regenerates the section between
# the guide's "BEGIN GENERATED REFERENCE" and "END GENERATED REFERENCE" comments.
set -eu

mode=$1
shift
if [ "$mode" = check ] || [ "$mode" = update ]; then
  guide=$1
  shift
fi
cli=$1
gui=${2:-}

# Commands as listed by 'mbdrom-cli --help' (the indented words under "commands:").
listed_commands() {
  "$cli" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

# The help text a command prints, as the guide shows it.
help_of() {
  case $1 in
  mbdrom-cli) "$cli" --help ;;
  mbdrom) env -u DISPLAY -u WAYLAND_DISPLAY "$gui" --help | sed '1s|^Usage: .*mbdrom |Usage: mbdrom |' ;;
  *) "$cli" "$1" --help ;;
  esac
}

block() {  # block TITLE PROMPT TEXT-COMMAND
  printf '### `%s`\n\n```text\n$ %s --help\n' "$1" "$2"
  help_of "$3"
  printf '```\n\n'
}

generate() {
  block "mbdrom-cli" "mbdrom-cli" mbdrom-cli
  for c in $(listed_commands); do block "mbdrom-cli $c" "mbdrom-cli $c" "$c"; done
  if [ -n "$gui" ]; then block "mbdrom" "mbdrom" mbdrom; fi
}

if [ "$mode" = generate ]; then
  generate
  exit 0
fi
if [ "$mode" = update ]; then
  section=$(mktemp)
  generate >"$section"
  awk -v section="$section" '
    /^<!-- BEGIN GENERATED REFERENCE -->$/ { print; print ""; while ((getline line < section) > 0) print line; skip = 1; next }
    /^<!-- END GENERATED REFERENCE -->$/ { skip = 0 }
    !skip { print }
  ' "$guide" >"$section.guide"
  grep -q '^<!-- END GENERATED REFERENCE -->$' "$section.guide" || { echo "$guide: no generated-reference markers" >&2; exit 1; }
  mv "$section.guide" "$guide"
  rm -f "$section"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# Documented commands: the word after "mbdrom-cli" in each "### `mbdrom-cli CMD`" heading.
sed -n 's/^### `mbdrom-cli \([a-z-]*\)`$/\1/p' "$guide" >"$tmp/documented"
if [ ! -s "$tmp/documented" ]; then
  echo "$guide: no '### \`mbdrom-cli CMD\`' headings found" >&2
  exit 1
fi

for c in $(cat "$tmp/documented"); do
  if ! "$cli" "$c" --help >"$tmp/actual" 2>"$tmp/err"; then
    echo "documented command '$c' does not exist: mbdrom-cli $c --help failed:" >&2
    cat "$tmp/err" >&2
    status=1
  fi
done
for c in $(listed_commands); do
  grep -qx "$c" "$tmp/documented" || { echo "command '$c' of 'mbdrom-cli --help' is not in $guide" >&2; status=1; }
done

# Each "$ PROG [CMD] --help" block in the guide against the program's help.
awk -v dir="$tmp" '
  /^\$ mbdrom(-cli)?( [a-z-]+)? --help$/ { n++; file = dir "/block" n; print $0 > (dir "/prompt" n); close(dir "/prompt" n); printf "" > file; on = 1; next }
  on && /^```$/ { on = 0; close(file); next }
  on { print >> file }
' "$guide"
i=1
while [ -f "$tmp/prompt$i" ]; do
  set -- $(cat "$tmp/prompt$i")
  prog=$2
  if [ "$prog" = mbdrom ]; then
    what=mbdrom
    [ -n "$gui" ] || { i=$((i + 1)); continue; }  # no workbench in this build
  elif [ "$3" = --help ]; then
    what=mbdrom-cli
  else
    what=$3
  fi
  if help_of "$what" >"$tmp/actual$i" 2>/dev/null; then
    if ! diff -u "$tmp/block$i" "$tmp/actual$i" >"$tmp/diff$i"; then
      echo "$guide: the help of '$(cat "$tmp/prompt$i")' differs from the program's (guide -> program):" >&2
      cat "$tmp/diff$i" >&2
      status=1
    fi
  fi
  i=$((i + 1))
done
[ "$i" -gt 1 ] || { echo "$guide: no '\$ mbdrom-cli ... --help' blocks found" >&2; status=1; }
if [ "$status" -eq 0 ]; then
  echo "guide reference: $(wc -l <"$tmp/documented") commands documented, $((i - 1)) help texts match"
else
  echo "after changing a help text, regenerate the reference: sh $0 update $guide $cli $gui" >&2
fi
exit "$status"
