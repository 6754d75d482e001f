"""Worked example: the MacPherson strut from Python.

Simulates the example suspension under its training load, trains a local PCA model
(Angeli, Naets, Desmet) and an auto-encoder model (minimal coordinates), runs both under
the chirp load they were not trained on, compares them with the full model at the wheel
centre W, and plots the wheel's vertical travel with matplotlib.

    PYTHONPATH=build/ci/python python3 examples/python/macpherson_reduced.py [OUT_DIR]

OUT_DIR (default: the current directory) receives macpherson_reduced.png and the
trained models pca.json and ae.json.
"""

import os
import pathlib
import sys
import time

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

import mbdrom  # noqa: E402

here = pathlib.Path(__file__).resolve()
examples = pathlib.Path(os.environ.get("MBDROM_EXAMPLES", here.parents[2] / "resources" / "examples"))
if not examples.exists():
    examples = pathlib.Path("/usr/share/mbdrom/examples")
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
out.mkdir(parents=True, exist_ok=True)

model = mbdrom.Model.load(str(examples / "macpherson.json"))
print(model, "-", model.info()["dof"], "degree(s) of freedom")

train = mbdrom.simulate(model, load_case="train", t_end=5.0, output_dt=0.005)
chirp = mbdrom.simulate(model, load_case="chirp", t_end=5.0, output_dt=0.005)
print("full model:", train, chirp)


def report(progress):
    if progress["step"] == progress["total"]:
        print(f"  {progress['stage']}: done")


models = {}
for method, settings in (("pca", {"clusters": 16}), ("ae", {"epochs": 600, "force_epochs": 600})):
    t0 = time.monotonic()
    rom = mbdrom.train(method, model, [train], progress=report, **settings)
    rom.save(str(out / f"{method}.json"))
    print(f"{method}: trained in {time.monotonic() - t0:.1f} s; {rom.metrics['verdict']}")
    models[method] = rom

fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(chirp.t, chirp.point("W")[:, 2], "k", label="full model")
for method, rom in models.items():
    run = rom.simulate(model, load_case="chirp", t_end=5.0, output_dt=0.005)
    w = mbdrom.compare(chirp, run, points=["W"])["points"]["W"]
    print(f"{method} under the chirp: relative RMSE of W {100 * w['relative_rmse']:.2f} %, "
          f"max error {1000 * w['max']:.2f} mm")
    ax.plot(run.t, run.point("W")[:, 2], "--", label=f"{method} ({100 * w['relative_rmse']:.1f} %)")
ax.set_xlabel("t [s]")
ax.set_ylabel("wheel centre W, z [m]")
ax.set_title("MacPherson strut under the chirp load (not trained on)")
ax.legend()
fig.tight_layout()
fig.savefig(out / "macpherson_reduced.png", dpi=100)
print("written", out / "macpherson_reduced.png")
