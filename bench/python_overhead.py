"""The goal: a run of 10,000 steps through Python costs within 2 % of the same run
through the engine directly. Times mbdrom.simulate on the MacPherson under "train"
(10 s at dt = 1 ms, samples every 10 ms: what BM_SimulateRecordedTable does in C++)
`repetitions` times and prints the median wall time in ms.

    PYTHONPATH=build/release/python taskset -c 1 python3 bench/python_overhead.py [repetitions]
"""

import pathlib
import statistics
import sys
import time

import mbdrom

repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 5
examples = pathlib.Path(__file__).resolve().parents[1] / "resources" / "examples"
model = mbdrom.Model.load(str(examples / "macpherson.json"))
times = []
for _ in range(repetitions):
    t0 = time.perf_counter()
    run = mbdrom.simulate(model, load_case="train", t_end=10.0, dt=1e-3, output_dt=0.01)
    times.append(1000.0 * (time.perf_counter() - t0))
assert len(run) == 1001
print(f"python_ms {statistics.median(times):.3f}")
