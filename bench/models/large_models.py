#!/usr/bin/env python3
"""Writes the large models of the sparse-core benchmark into DIR:

  particles_10000.json  a rope of 10,000 particles (10 g each, 1 cm apart along x)
                        joined by distance joints, the first to a fixed point:
                        nq 30,000, nc 10,000, 20,000 DOF
  chain_3000.json       a hanging chain of 3,000 uniform bars (10 cm, 0.1 kg),
                        pinned to a fixed point, released horizontal under
                        gravity: nq 9,000, nc 3,000 (one length per bar)
  catenary_3000.json    3,000 particles (10 g) on 3,001 links of 1 cm between
                        supports 25 m apart, placed near a sine bump: for
                        `statics` (the catenary, sag 6.5 m): nq 9,000

usage: bench/models/large_models.py DIR
"""
import json
import math
import sys


def particles(n):
    points = [{"name": "P0", "position": [0, 0, 0], "fixed": True}]
    bodies, joints = [], []
    for i in range(1, n + 1):
        points.append({"name": f"P{i}", "position": [0.01 * i, 0, 0]})
        bodies.append({"name": f"m{i}", "type": "particle", "points": [f"P{i}"], "mass": 0.01,
                       "com": [0.01 * i, 0, 0]})
        joints.append({"name": f"d{i}", "type": "distance", "body1": "ground" if i == 1 else f"m{i - 1}",
                       "body2": f"m{i}", "point1": f"P{i - 1}", "point2": f"P{i}"})
    return {"format": "mbdrom-model", "version": 1, "name": f"rope of {n} particles",
            "gravity": [0, 0, -9.81], "points": points, "bodies": bodies, "joints": joints}


def chain(n):
    points = [{"name": "P0", "position": [0, 0, 0], "fixed": True}]
    bodies = []
    for i in range(1, n + 1):
        points.append({"name": f"P{i}", "position": [0.1 * i, 0, 0]})
        bodies.append({"name": f"b{i}", "type": "bar", "points": [f"P{i - 1}", f"P{i}"], "mass": 0.1,
                       "com": [0.1 * i - 0.05, 0, 0]})
    return {"format": "mbdrom-model", "version": 1, "name": f"chain of {n} bars",
            "gravity": [0, 0, -9.81], "points": points, "bodies": bodies}


def catenary(n, span):
    length = 0.01 * (n + 1)
    bump = span / math.pi * 2 * math.sqrt(length / span - 1)
    points = [{"name": "P0", "position": [0, 0, 0], "fixed": True},
              {"name": "E", "position": [span, 0, 0], "fixed": True}]
    bodies, joints = [], []
    for i in range(1, n + 1):
        u = i / (n + 1)
        at = [span * u, 0, -bump * math.sin(math.pi * u)]
        points.append({"name": f"P{i}", "position": at})
        bodies.append({"name": f"m{i}", "type": "particle", "points": [f"P{i}"], "mass": 0.01, "com": at})
        joints.append({"name": f"d{i}", "type": "distance", "body1": "ground" if i == 1 else f"m{i - 1}",
                       "body2": f"m{i}", "point1": f"P{i - 1}", "point2": f"P{i}", "length": 0.01})
    joints.append({"name": "end", "type": "distance", "body1": f"m{n}", "body2": "ground",
                   "point1": f"P{n}", "point2": "E", "length": 0.01})
    return {"format": "mbdrom-model", "version": 1, "name": f"catenary of {n} particles",
            "gravity": [0, 0, -9.81], "points": points, "bodies": bodies, "joints": joints}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, model in (("particles_10000.json", particles(10000)), ("chain_3000.json", chain(3000)),
                        ("catenary_3000.json", catenary(3000, 25.0))):
        with open(f"{sys.argv[1]}/{name}", "w") as f:
            json.dump(model, f)
