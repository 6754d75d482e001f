#!/usr/bin/env python3
"""Writes tests/test_costs.cmake from a ctest run's log: each test of over 2 s
gets its time as its COST, so that ctest starts the long tests first on a clean
clone, which has no timings of its own (CTestCostData.txt) yet.

The workbench's tests are left out: they share one display, run one at a time,
and start first of all (their COST is set where they are discovered).

    scripts/test-costs.py [build/ci/Testing/Temporary/LastTest.log]
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
log = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "build/ci/Testing/Temporary/LastTest.log")
text = log.read_text(errors="replace")
names = re.findall(r"^\d+/\d+ Testing: (.*)$", text, re.M)
times = [float(t) for t in re.findall(r'^"?Test time =\s+([\d.]+) sec', text, re.M)]
if len(names) != len(times) or not names:
    sys.exit(f"{log}: {len(names)} test names but {len(times)} times")

slow = sorted(((t, n) for n, t in zip(names, times) if t > 2.0 and not n.startswith("gui:")), reverse=True)
lines = [
    "# Written by scripts/test-costs.py from a ctest log; included by ctest after",
    "# every test is defined. The tests of over 2 s and their time in seconds then:",
    "# ctest starts the longest first, so that two slots end together.",
]
for t, n in slow:
    if "]=]" in n:
        sys.exit(f"a test name holds ]=]: {n}")
    lines.append(f"set_tests_properties([=[{n}]=] PROPERTIES COST {t:.0f})")
(root / "tests/test_costs.cmake").write_text("\n".join(lines) + "\n")
print(f"tests/test_costs.cmake: {len(slow)} tests, {sum(t for t, _ in slow):.0f} s of {sum(times):.0f} s")
