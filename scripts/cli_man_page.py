#!/usr/bin/env python3
"""Writes the manual page of mbdrom-cli (section 1, gzip-compressed) from the program's own help:
its --help for the synopsis, the commands and the exit codes, and each command's help as its
subsection, so the page never says other than the program.

    cli_man_page.py MBDROM_CLI OUT.1.gz
"""

import gzip
import re
import subprocess
import sys


def run(cli, *args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


def roff(text):
    """Text as roff: backslashes and hyphens escaped, no line starting with a control character."""
    lines = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def commands(overview):
    """The commands the overview lists, in its order: its lines under "commands:" up to a blank line."""
    names, listing = [], False
    for line in overview.splitlines():
        if line.strip() == "commands:":
            listing = True
        elif listing and not line.strip():
            break
        elif listing and re.match(r"^  [a-z]", line):
            names.append(line.split()[0])
    return names


def page(cli):
    overview = run(cli, "--help")
    version = run(cli, "--version").split()[1]
    names = commands(overview)
    if not names:
        raise SystemExit("cli_man_page: no commands found in the overview of " + cli)
    summary = overview.split("\n\n")[1].strip() if "\n\n" in overview else "mbdrom command-line interface"
    out = [
        '.TH MBDROM\\-CLI 1 "" "mbdrom %s" "User Commands"' % version,
        ".SH NAME",
        "mbdrom\\-cli \\- " + roff(summary[0].lower() + summary[1:].rstrip(".")),
        ".SH SYNOPSIS",
        ".B mbdrom\\-cli",
        "[\\fB\\-\\-help\\fR] [\\fB\\-\\-version\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        ".nf",
        roff(overview.rstrip()),
        ".fi",
        ".SH COMMANDS",
    ]
    for name in names:
        if name == "help":  # "help COMMAND" is the command's subsection here
            continue
        out += [".SS " + roff(name), ".nf", roff(run(cli, "help", name).rstrip()), ".fi"]
    out += [
        ".SH SEE ALSO",
        "The user guide, /usr/share/doc/mbdrom/user\\-guide.md, and the model file format,",
        "/usr/share/doc/mbdrom/model\\-format.md; the workbench,",
        ".B mbdrom",
        "(\\fBmbdrom \\-\\-help\\fR).",
        "",
    ]
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    text = page(sys.argv[1]).encode()
    # mtime 0: the same help gives the same bytes (a reproducible package).
    with open(sys.argv[2], "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(text)


if __name__ == "__main__":
    main()
