#!/usr/bin/env python3
"""Would a bound scaled by how little a run moves catch the misses the joint envelope does not?

The error is relative to the run's own motion (its reference RMS about its mean), so a run that
moves less than the runs the bound was calibrated on could miss by more for the same absolute
error. This scales each stated bound by max(1, m_design / m_run) ** power, m the reference RMS at
the run's worst point (from rom_trust.py's compare logs; m_design the median of the two design runs
it re-runs), gives the warning "the run expects up to X %" where the scaled bound passes 5 %, and
recounts with rom_trust.py's own rules, for power 0 (as run), 0.5 and 1.

  python3 bench/trust_motion_ratio.py RT.json RT_WORK [RC.json RC_WORK]
"""
import copy
import json
import os
import statistics
import sys

from rom_trust import pooled
from trust_bound_factor import restate


def ref_rms(work, mech, method, case):
    """Reference RMS about the mean of every tracked point of one run (None: no compare log)."""
    p = os.path.join(work, mech, f"{method}_{case}.compare.log")
    try:
        txt = open(p).read()
    except OSError:
        return None
    j = json.loads(txt[txt.index('{'):])
    return {pt['name']: pt['reference_rms'] for pt in j['points']}

def scaled(rows, work, power, cap=100.0):
    """The rows with every stated bound scaled by the motion ratio (at most `cap`) to `power`."""
    out = copy.deepcopy([r for r in rows if 'sensitivity' not in r])
    for row in out:
        mech, method = row['mechanism'], row['method']
        design = [ref_rms(work, mech, method, c) for c in ('design_1', 'design_2')]
        design = [d for d in design if d]
        for r in row.get('runs', []):
            if r.get('bound') is None or not design:
                continue
            mine = ref_rms(work, mech, method, r['case'])
            pt = r.get('point')
            if not mine or pt not in mine or not mine[pt]:
                continue
            ref = statistics.median(d[pt] for d in design if pt in d)
            ratio = min(cap, max(1.0, ref / mine[pt])) ** power
            r['ratio'] = ratio
            restate(r, ratio)
    return out


def main():
    args = sys.argv[1:]
    for path, work in zip(args[0::2], args[1::2]):
        rows = json.load(open(path))
        for power in (0.0, 0.5, 1.0):
            print(f"{path}, power {power:g}: {pooled(scaled(rows, work, power))}")
        for row in scaled(rows, work, 1.0):
            for r in row.get("runs", []):
                if r.get("ratio", 1.0) > 1.5 and r["kind"] != "training":
                    print(f"  {row['mechanism']} {row['method']} {r['case']}: error {100 * r['error']:.2f} %, "
                          f"bound {100 * r['bound']:.2f} % after x{r['ratio']:.2f}")


if __name__ == "__main__":
    main()
