#!/usr/bin/env python3
"""Where the runs of the trust benchmark lie against the load band, from its work folders.

The engine's load band (engine/rom/load_band.h) gives each component of f_ext the effective
frequency RMS(df/dt) / RMS(f - mean) of the fastest training run; a run whose load swings more than
1.25 times as fast (LoadBand::kMargin) leaves its envelope. This recomputes that ratio, as the
engine does (finite differences between samples, components that swung in training), for every
reference run of every mechanism of a work folder of bench/rom_trust.py (its --work): the training
runs of dataset.json against the unseen and beyond-the-design runs ref_<case>.csv. The ratio depends
on the loads only, not on the method.

  python3 bench/trust_load_band.py WORK [WORK ...]
"""
import csv
import json
import math
import os
import sys

import numpy as np

SWING_FRACTION = 1e-3  # as the engine's kSwingFraction
MARGIN = 1.25          # as LoadBand::kMargin


def meter(t, f):
    """Per component: (effective frequency [rad/s], RMS about the mean) of loads f (samples x n)."""
    t, f = np.asarray(t, float), np.asarray(f, float)
    dt = np.diff(t)
    rate_squares = (np.diff(f, axis=0) ** 2 / dt[:, None]).sum(0)
    swing = np.sqrt(np.maximum((f ** 2).mean(0) - f.mean(0) ** 2, 0.0))
    span = t[-1] - t[0]
    floor = SWING_FRACTION * swing.max()
    omega = np.where((swing > floor) & (swing > 0), np.sqrt(rate_squares / span) / np.maximum(swing, 1e-300), 0.0)
    return omega, swing


def loads_of_csv(path):
    with open(path) as fh:
        rows = csv.reader(fh)
        header = next(rows)
        data = np.array([[float(x) for x in row] for row in rows])
    columns = [i for i, name in enumerate(header) if name.startswith("f_ext.")]
    return data[:, 0], data[:, columns]


def band(dataset):
    omegas, swings = zip(*(meter(run["t"], run["f_ext"]) for run in dataset["runs"]))
    frequency, swing = np.max(omegas, axis=0), np.max(swings, axis=0)
    frequency[~(swing > SWING_FRACTION * swing.max())] = 0.0
    return frequency, swing


def ratio(frequency, trained_swing, t, f):
    omega, swing = meter(t, f)
    judged = (frequency > 0) & (swing >= SWING_FRACTION * trained_swing)
    return float(np.max(np.where(judged, omega / np.where(frequency > 0, frequency, 1.0), 0.0), initial=0.0))


def main():
    for work in sys.argv[1:]:
        for mechanism in sorted(os.listdir(work)):
            folder = os.path.join(work, mechanism)
            if not os.path.exists(os.path.join(folder, "dataset.json")):
                continue
            frequency, swing = band(json.load(open(os.path.join(folder, "dataset.json"))))
            ratios = {}
            for name in sorted(os.listdir(folder)):
                if name.startswith("ref_") and name.endswith(".csv") and not name.startswith("ref_larger"):
                    ratios[name[4:-4]] = ratio(frequency, swing, *loads_of_csv(os.path.join(folder, name)))
            top = frequency.max() / (2 * math.pi)
            outside = [case for case, r in ratios.items() if r > MARGIN]
            print(f"{mechanism}: band up to {top:.2g} Hz; "
                  + ", ".join(f"{case} {r:.2f}" for case, r in ratios.items())
                  + (f"; outside: {', '.join(outside)}" if outside else "; none outside"))


if __name__ == "__main__":
    main()
