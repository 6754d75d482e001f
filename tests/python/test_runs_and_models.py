"""Runs and reduced models from Python: the engine's results bit for bit (against the
CLI), channels as NumPy arrays, training of every method, progress, stopping, the GIL."""

import gc
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest


@pytest.fixture(scope="module")
def macpherson(mbdrom, examples):
    return mbdrom.Model.load(str(examples / "macpherson.json"))


@pytest.fixture(scope="module")
def two_train_runs(mbdrom, macpherson):
    """The MacPherson under "train" for 0.6 and 0.8 s: two runs, so that one is held out whole."""
    return [mbdrom.simulate(macpherson, load_case="train", t_end=t, output_dt=0.005, name=f"train_{t}")
            for t in (0.6, 0.8)]


def cli_run(cli, *args):
    subprocess.run([cli, *map(str, args)], check=True, capture_output=True, text=True)


def test_a_run_is_the_clis_byte_for_byte(mbdrom, macpherson, examples, cli, tmp_path):
    cli_run(cli, "simulate", examples / "macpherson.json", "-o", tmp_path / "cli.csv", "--load-case", "train",
            "--t-end", 1.5, "--output-dt", 0.005)
    run = mbdrom.simulate(macpherson, load_case="train", t_end=1.5, output_dt=0.005)
    run.to_csv(str(tmp_path / "python.csv"))
    assert (tmp_path / "python.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    # And at fixed steps with the other integrator.
    cli_run(cli, "simulate", examples / "macpherson.json", "-o", tmp_path / "cli2.csv", "--load-case", "chirp",
            "--t-end", 0.5, "--dt", 0.002, "--output-dt", 0.01, "--integrator", "dopri5")
    run = mbdrom.simulate(macpherson, load_case="chirp", t_end=0.5, dt=0.002, output_dt=0.01, integrator="dopri5")
    run.to_csv(str(tmp_path / "python2.csv"))
    assert (tmp_path / "python2.csv").read_bytes() == (tmp_path / "cli2.csv").read_bytes()


def without_wall_times(path):
    """A trained-model file without what differs between two trainings: the time stamp and the
    speed check's wall times."""
    j = json.loads(open(path).read())
    j.pop("created")
    j["metrics"].pop("speed_check")
    return j


@pytest.mark.parametrize("method,settings", [("pca", {"clusters": 8}), ("pod", {"nr": 1})])
def test_a_trained_model_is_the_clis_bit_for_bit(mbdrom, macpherson, examples, cli, tmp_path, method, settings):
    cli_run(cli, "simulate", examples / "macpherson.json", "-o", tmp_path / "train.csv", "--load-case", "train",
            "--t-end", 2, "--output-dt", 0.005)
    options = [x for k, v in settings.items() for x in (f"--{k}", v)]
    trained = subprocess.run([cli, "train", method, "--model", str(examples / "macpherson.json"), "--data",
                              str(tmp_path / "train.csv"), "-o", str(tmp_path / "cli.json"), *map(str, options)],
                             capture_output=True, text=True)
    assert trained.returncode in (0, 3), trained.stderr  # 3: written, but it fails its checks
    run = mbdrom.Run.from_csv(str(tmp_path / "train.csv"), macpherson)
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rom = mbdrom.train(method, macpherson, [run], **settings)
    # The CLI's exit code and Python's warning say the same of the same model.
    failed = [w for w in seen if issubclass(w.category, mbdrom.FailedCheckWarning)]
    assert bool(failed) == (trained.returncode == 3)
    rom.save(str(tmp_path / "python.json"))
    assert without_wall_times(tmp_path / "python.json") == without_wall_times(tmp_path / "cli.json")
    # Its run, too.
    cli_run(cli, "rom-simulate", tmp_path / "cli.json", "--model", examples / "macpherson.json", "-o",
            tmp_path / "rom_cli.csv", "--load-case", "chirp", "--t-end", 1)
    rom_run = mbdrom.ReducedModel.load(str(tmp_path / "python.json"), macpherson).simulate(
        macpherson, load_case="chirp", t_end=1)
    rom_run.to_csv(str(tmp_path / "rom_python.csv"))
    assert (tmp_path / "rom_python.csv").read_bytes() == (tmp_path / "rom_cli.csv").read_bytes()


def test_channels_are_numpy_arrays_of_the_documented_shapes(mbdrom, macpherson):
    run = mbdrom.simulate(macpherson, load_case="train", t_end=0.5, output_dt=0.01)
    n, nq = 51, len(macpherson.coordinates)
    assert run.t.shape == (n,) and run.t[-1] == pytest.approx(0.5)
    assert run.q.shape == run.qd.shape == run.qdd.shape == (n, nq)
    w = run.point("W")
    assert w.shape == (n, 3)
    assert np.array_equal(w[:, 1], run.channel("W.y"))
    # q holds the basic points' coordinates in model.coordinates order (W is a derived point).
    i = next(k for k, c in enumerate(macpherson.coordinates) if c.endswith(".y"))
    assert np.array_equal(run.q[:, i], run.point(macpherson.coordinates[i][:-2])[:, 1])
    # Velocities are the positions' rates: central differences agree to O(dt^2).
    dq = (run.q[2:, i] - run.q[:-2, i]) / 0.02
    assert np.abs(dq - run.qd[1:-1, i]).max() < 0.02 * np.abs(run.qd[:, i]).max()
    with pytest.raises(ValueError, match="no point, vector or marker"):
        run.point("nowhere")
    with pytest.raises(ValueError, match="no column"):
        run.channel("nowhere")


def test_a_run_outlives_its_model(mbdrom, examples):
    model = mbdrom.Model.load(str(examples / "pendulum.json"))
    run = mbdrom.simulate(model, load_case="free", t_end=0.2)
    del model
    gc.collect()
    assert run.q.shape[1] == 3
    # A pendulum released horizontally from rest: energy is conserved, so |v|^2 = 2 g drop.
    drop = -run.point("A")[:, 1]
    speed2 = run.channel("qd.A.x") ** 2 + run.channel("qd.A.y") ** 2
    assert speed2 == pytest.approx(2 * 9.81 * drop, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("method", ["pod", "pca", "ae", "node", "sindy"])
def test_every_method_trains_from_python_and_is_judged(mbdrom, macpherson, method):
    run = mbdrom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.005)
    smoke = {"pod": {"nr": 1}, "pca": {"clusters": 4}, "ae": {"epochs": 20, "force_epochs": 20},
             "node": {"epochs": 20}, "sindy": {"polynomial_degree": 1}}[method]
    stages = []
    # A smoke training may blow up on its own run: kept here, as the trainer is what is tested.
    rom = mbdrom.train(method, macpherson, [run], progress=lambda p: stages.append(p["stage"]), keep_failing=True,
                       **smoke)
    assert rom.method == method
    assert rom.metrics["training_rollout"]["done"]
    assert rom.metrics["verdict_kind"] != "not judged"
    assert stages, "progress was never called"
    if rom.metrics["verdict_kind"] in ("rollout follows", "fit ok"):  # a smoke training may not run
        out = rom.simulate(macpherson, load_case="train", t_end=0.2)
        assert out.q.shape[1] == len(macpherson.coordinates)


def test_a_reduced_run_ends_on_t_end_with_its_samples_on_the_output_grid(mbdrom, macpherson):
    run = mbdrom.simulate(macpherson, load_case="train", t_end=0.5, output_dt=0.005)
    rom = mbdrom.train("pod", macpherson, [run], nr=2, keep_failing=True)
    out = rom.simulate(macpherson, load_case="train", t_end=0.9, output_dt=0.0075)  # 1.5 own steps
    assert out.t[-1] == pytest.approx(0.9, abs=1e-12)
    assert np.diff(out.t) == pytest.approx(np.full(len(out.t) - 1, 0.0075), abs=1e-12)
    with pytest.raises(mbdrom.InputError, match="choose a step that divides it"):
        rom.simulate(macpherson, load_case="train", t_end=1.0, dt=0.003, output_dt=0.01)
    with pytest.raises(mbdrom.InputError, match="is not a whole number of the reduced run's steps"):
        rom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.0033)


def test_the_engine_errors_are_also_the_built_in_errors_python_code_catches(mbdrom, macpherson, tmp_path):
    assert issubclass(mbdrom.InputError, ValueError) and issubclass(mbdrom.InputError, mbdrom.Error)
    assert issubclass(mbdrom.ModelError, ValueError) and issubclass(mbdrom.FileError, OSError)
    with pytest.raises(ValueError, match="clusterz"):
        mbdrom.train("pca", macpherson, [mbdrom.simulate(macpherson, t_end=0.1)], clusterz=3)
    with pytest.raises(OSError, match="cannot open"):
        mbdrom.Model.load(str(tmp_path / "missing.json"))


def test_bad_arguments_name_the_argument(mbdrom, macpherson):
    with pytest.raises(ValueError, match="load_case"):
        mbdrom.simulate(macpherson, load_case="nope")
    with pytest.raises(TypeError):
        mbdrom.simulate(macpherson, load_case=3)
    with pytest.raises(ValueError, match="dt and tolerance"):
        mbdrom.simulate(macpherson, dt=0.001, tolerance=1e-6)
    with pytest.raises(ValueError, match="t_end"):
        mbdrom.simulate(macpherson, t_end=-1)
    with pytest.raises(mbdrom.InputError, match="clusterz"):
        mbdrom.train("pca", macpherson, [mbdrom.simulate(macpherson, t_end=0.1)], clusterz=3)
    with pytest.raises(mbdrom.InputError, match="no_such_method"):
        mbdrom.train("no_such_method", macpherson, [mbdrom.simulate(macpherson, t_end=0.1)])
    with pytest.raises(TypeError):
        mbdrom.train("pca", macpherson, [1, 2])


def test_a_progress_callable_returning_false_stops_the_run_keeping_its_samples(mbdrom, macpherson):
    with pytest.raises(mbdrom.Cancelled) as e:
        mbdrom.simulate(macpherson, load_case="train", t_end=1000, dt=1e-3, progress=lambda p: p["t"] < 0.05)
    partial = e.value.partial_run
    assert partial is not None and 5 <= len(partial) < 1000
    assert np.all(np.diff(partial.t) > 0)


def test_a_diverging_reduced_run_raises_solver_error_keeping_the_samples_up_to_then(mbdrom, macpherson):
    # An auto-encoder of 3 epochs leaves even the range past its training data within a tenth of
    # a second: as the CLI does, training refuses it, naming its run, unless it is kept.
    run = mbdrom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.005)
    with pytest.raises(mbdrom.SolverError, match='blows up on its own training run "train"'):
        mbdrom.train("ae", macpherson, [run], epochs=3, force_epochs=3)
    rom = mbdrom.train("ae", macpherson, [run], epochs=3, force_epochs=3, keep_failing=True)
    assert rom.metrics["training_rollout"]["failed"]
    with pytest.raises(mbdrom.SolverError, match="diverged") as e:
        rom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.005)
    assert isinstance(e.value, mbdrom.Error)
    assert e.value.partial_run is not None and 1 <= len(e.value.partial_run) < 201


def test_ctrl_c_stops_a_long_run_with_keyboard_interrupt(mbdrom, macpherson):
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as e:
        mbdrom.simulate(macpherson, load_case="train", t_end=1000, dt=1e-3)
    assert time.monotonic() - t0 < 5.0
    assert len(e.value.partial_run) > 10  # what the run had done is kept
    timer.join()


def test_ctrl_c_stops_a_sweep_whose_runs_are_on_other_threads(mbdrom, macpherson):
    # The sweep's runs are on worker threads, where Python cannot see signals: the main thread
    # watches for them while it waits.
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as e:
        mbdrom.sweep(macpherson, "train", amplitudes=[1, 2], t_end=1000, dt=1e-3, jobs=2)
    assert time.monotonic() - t0 < 5.0
    assert len(e.value.partial_runs) == 2 and all(len(r) > 10 for r in e.value.partial_runs)
    timer.join()


def test_the_gil_is_released_while_the_engine_runs(mbdrom, macpherson):
    done = threading.Event()

    def work():
        mbdrom.simulate(macpherson, load_case="train", t_end=20, dt=1e-3)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    ticks = 0
    t0 = time.monotonic()
    while not done.is_set() and time.monotonic() - t0 < 0.3:
        ticks += 1
    worker.join()
    assert ticks > 1000  # the main thread ran Python code meanwhile


def test_runs_are_named_after_their_load_case_and_train_together(mbdrom, macpherson):
    train = mbdrom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.005)
    chirp = mbdrom.simulate(macpherson, load_case="chirp", t_end=1.0, output_dt=0.005)
    assert (train.name, chirp.name) == ("train", "chirp")
    rom = mbdrom.train("pca", macpherson, [train, chirp], clusters=4)
    assert [r["name"] for r in rom.metrics["training_runs"]] == ["train", "chirp"]
    again = mbdrom.simulate(macpherson, load_case="train", t_end=1.0, output_dt=0.005)
    with pytest.raises(ValueError, match="name them apart"):
        mbdrom.train("pca", macpherson, [train, again], clusters=4)
    again.name = "train 2"
    mbdrom.train("pca", macpherson, [train, again], clusters=4)


def test_a_run_of_another_mechanism_is_refused_naming_both(mbdrom, macpherson):
    heavier = mbdrom.Mechanism.from_model(macpherson)
    heavier.gravity = [0, 0, -30]
    other = heavier.model()
    run = mbdrom.simulate(macpherson, load_case="train", t_end=0.2)
    with pytest.raises(ValueError, match="is of mechanism"):
        mbdrom.train("pca", other, [run], clusters=2)
    with pytest.raises(TypeError, match="model must be"):
        mbdrom.train("pod", None, [run], nr=1)


def test_arguments_of_numpy_and_pathlib_types_are_taken_and_bad_ones_named(mbdrom, macpherson, examples, tmp_path):
    import pathlib

    model = mbdrom.Model.load(pathlib.Path(examples) / "pendulum.json")
    run = mbdrom.simulate(model, load_case="free", t_end=0.5, dt=np.float64(1e-3))
    run.to_csv(tmp_path / "run.csv")
    assert len(mbdrom.Run.from_csv(tmp_path / "run.csv", model)) == len(run)
    rom = mbdrom.train("pod", model, [run], nr=np.int64(1))
    assert rom.settings["nr"] == 1
    with pytest.raises(TypeError, match="settings: numbers must be finite"):
        mbdrom.train("node", model, [run], learning_rate=float("nan"))
    with pytest.raises(TypeError, match="dt must be a number"):
        mbdrom.simulate(model, dt="x")
    with pytest.raises(TypeError, match="progress must be None or a callable"):
        mbdrom.simulate(model, progress=3)
    with pytest.raises(ValueError, match="t_end must be a finite number"):
        mbdrom.simulate(model, t_end=float("inf"))
    with pytest.raises(ValueError, match="no point, vector or marker"):
        run.point("nope")


SIGTERM_CHILD = """
import signal, sys, time
import mbdrom
model = mbdrom.Model.load(sys.argv[1])
if sys.argv[2] == "handler":
    def on_term(signum, frame):
        raise SystemExit(3)
    signal.signal(signal.SIGTERM, on_term)
print("running", flush=True)
mbdrom.simulate(model, load_case="train", t_end=1000, dt=1e-3)
print("finished", flush=True)
"""


@pytest.mark.parametrize("handler", ["default", "handler"])
def test_sigterm_stops_a_long_run_then_the_programs_own_answer(examples, tmp_path, handler):
    # The engine stops through its monitor; then SIGTERM gets the program's own disposition:
    # by default the process ends by the signal, a Python handler runs as for any signal.
    env = dict(os.environ)
    child = subprocess.Popen([sys.executable, "-c", SIGTERM_CHILD, str(examples / "macpherson.json"), handler],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert child.stdout.readline().strip() == "running"
    time.sleep(0.5)
    t0 = time.monotonic()
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    assert time.monotonic() - t0 < 5.0
    assert "finished" not in out
    assert child.returncode == (-signal.SIGTERM if handler == "default" else 3), err


def test_a_run_of_more_than_1e8_steps_warns_before_it_starts(mbdrom, examples):
    # A 1e14 Hz sine is inside the model format's range; the warning comes first, as in the CLI.
    data = examples.parents[1] / "tests" / "data" / "mechanisms"
    model = mbdrom.Model.load(str(data / "pendulum_1e14_hz.json"))
    with pytest.warns(RuntimeWarning, match=r"may take 1e\+15 steps over 1 s"):
        with pytest.raises(mbdrom.Cancelled):
            mbdrom.simulate(model, load_case="buzz", integrator="trapezoidal", progress=lambda record: False)


def test_a_run_says_which_integrator_ran_and_why(mbdrom, examples):
    model = mbdrom.Model.load(str(examples / "four_bar.json"))
    run = mbdrom.simulate(model, load_case="drive", t_end=0.5)
    assert run.integrator == "dopri5"
    assert "no Coulomb friction" in run.integrator_reason
    assert run.warnings == []
    forced = mbdrom.simulate(model, load_case="drive", t_end=0.5, integrator="trapezoidal")
    assert forced.integrator == "trapezoidal" and forced.integrator_reason == "chosen by the user"
    rubbing = mbdrom.simulate(mbdrom.Model.load(str(examples / "friction_slider.json")), load_case="train", t_end=0.1)
    assert rubbing.integrator == "trapezoidal" and "Coulomb" in rubbing.integrator_reason
    again = pickle.loads(pickle.dumps(forced))
    assert (again.integrator, again.integrator_reason) == (forced.integrator, forced.integrator_reason)


def test_check_accuracy_reports_the_runs_error(mbdrom, examples):
    model = mbdrom.Model.load(str(examples / "four_bar.json"))
    run = mbdrom.simulate(model, load_case="drive", t_end=1.0, tolerance=1e-5, check_accuracy=True)
    truth = mbdrom.simulate(model, load_case="drive", t_end=1.0, tolerance=1e-10, integrator="dopri5")
    points = [i for i, name in enumerate(model.coordinates) if name.split(".")[0] in ("A", "B")]
    error = np.abs(run.q[:, points] - truth.q[:, points]).max()
    a = run.accuracy
    assert not a["diverged"] and a["check_tolerance"] == pytest.approx(1e-7)
    assert error / 3 <= a["max_difference"] <= 3 * error
    assert "largest position error" in a["message"]
    assert mbdrom.simulate(model, load_case="drive", t_end=0.1).accuracy is None
    with pytest.raises(ValueError, match="output_dt > 0"):
        mbdrom.simulate(model, t_end=0.1, output_dt=0, check_accuracy=True)


def test_an_energy_balance_off_by_more_than_a_hundredth_warns(mbdrom, examples):
    model = mbdrom.Model.load(str(examples / "four_bar.json"))
    with pytest.warns(RuntimeWarning, match="energy balance is off"):
        run = mbdrom.simulate(model, load_case="drive", t_end=2.0, dt=0.05, output_dt=0.1)
    assert any("energy balance" in w for w in run.warnings)


def test_a_reduced_run_outside_its_envelope_warns_as_the_cli_does_and_stops_when_told(
        mbdrom, examples, cli, tmp_path):
    import warnings

    # POD of the suspension's one freedom, trained on "train"; "harder" is that load twice over.
    spec = json.load(open(examples / "macpherson.json"))
    harder = json.loads(json.dumps(next(c for c in spec["load_cases"] if c["name"] == "train")))
    harder["name"] = "harder"
    for load in harder["loads"]:
        for term in load["function"].get("terms", [load["function"]]):
            for key in ("value", "amplitude"):
                if key in term:
                    term[key] *= 2.0
    spec["load_cases"].append(harder)
    path = tmp_path / "macpherson_harder.json"
    path.write_text(json.dumps(spec))
    model = mbdrom.Model.load(str(path))
    run = mbdrom.simulate(model, load_case="train", t_end=1.0, output_dt=0.005)
    rom = mbdrom.train("pod", model, [run], nr=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mbdrom.EnvelopeWarning)  # its own load: inside
        # but one run only, on which its check may find it (or the written model) off by more than 5 %
        with pytest.warns(mbdrom.UnvalidatedWarning,
                          match="trained on one run|failed its check in training|misses its own training runs"):
            inside = rom.simulate(model, load_case="train", t_end=1.0)
    assert not inside.left_envelope and len(inside.warnings) == 1
    assert inside.envelope.startswith("stayed inside its training envelope")
    # The second signal, as the CLI's "equations of motion" line states it; kept by pickle.
    assert inside.equation_residual is not None and inside.equation_residual >= 0
    assert inside.equations.startswith("the force no constraint balances is ")
    assert pickle.loads(pickle.dumps(inside)).equation_residual == inside.equation_residual
    if any("failed its check" in w or "misses its own training runs" in w for w in inside.warnings):
        # Twice a miss is no limit to the next one: a model that failed its check, or misses its
        # own run, states no bound.
        assert inside.expected_error is None
        assert "passed no held-out check, or misses its own training runs, so no error bound" in inside.envelope
    else:
        # Its bound, calibrated by the check, as the envelope line states it; kept by pickle.
        assert inside.expected_error is not None and 0 < inside.expected_error < 1
        assert "expect <= " in inside.envelope
        assert pickle.loads(pickle.dumps(inside)).expected_error == inside.expected_error

    with pytest.warns(mbdrom.EnvelopeWarning, match="left its training envelope at t = "):
        outside = rom.simulate(model, load_case="harder", t_end=1.0)
    assert outside.left_envelope and any("left its training envelope" in w for w in outside.warnings)
    assert issubclass(mbdrom.EnvelopeWarning, UserWarning) and issubclass(mbdrom.UnvalidatedWarning, UserWarning)

    # The CLI prints the same lines for the same run.
    rom.save(str(tmp_path / "pod.json"))
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "pod.json"), "--model", str(path),
                        "-o", str(tmp_path / "harder.csv"), "--load-case", "harder", "--t-end", "1"],
                       capture_output=True, text=True, check=True)
    assert "training envelope      " + outside.envelope in r.stdout
    assert "equations of motion    " + outside.equations in r.stdout
    assert "warning: the run " + outside.envelope in r.stderr
    assert any(w in r.stderr for w in outside.warnings if "envelope" not in w)  # unvalidated, or failed its check

    with pytest.raises(mbdrom.SolverError, match=r"outside: stop") as e:
        with pytest.warns(mbdrom.UnvalidatedWarning):  # what the CLI prints before the run, a stop too
            rom.simulate(model, load_case="harder", t_end=1.0, outside="stop")
    stopped = e.value.partial_run
    assert stopped is not None and len(stopped) < 101
    assert stopped.left_envelope and stopped.envelope.startswith("left its training envelope at t = ")
    assert stopped.envelope in str(e.value)
    # The engine's figures of the run up to the stop, not its message read back.
    assert stopped.equations.startswith(("the force no constraint balances is ", "not measured"))
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "pod.json"), "--model", str(path), "-o",
                        str(tmp_path / "stopped.csv"), "--load-case", "harder", "--t-end", "1", "--outside", "stop"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and stopped.warnings
    assert [line.split("warning: ", 1)[1] for line in r.stderr.splitlines() if "warning: " in line] == stopped.warnings

    # A warning the filters raise carries its run: the samples are not lost.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbdrom.UnvalidatedWarning)
        warnings.simplefilter("error", mbdrom.EnvelopeWarning)
        with pytest.raises(mbdrom.EnvelopeWarning, match="left its training envelope") as raised:
            rom.simulate(model, load_case="harder", t_end=1.0)
    assert len(raised.value.run) == 101 and raised.value.run.left_envelope

    # A run that stops raises its own error even where the filters make its warnings errors.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mbdrom.SolverError, match=r"outside: stop") as e:
            rom.simulate(model, load_case="harder", t_end=1.0, outside="stop")
    assert e.value.partial_run.warnings == stopped.warnings

    # Design values are said of the run, as the CLI says them.
    with pytest.raises(mbdrom.InputError, match='sets a load of a load case, and the run has none.*load "tyre"'):
        rom.simulate(model, t_end=0.1, parameters={"load.tyre.amplitude": 1000.0})
    # A number the model file names from its root needs no load case of the run.
    assert len(rom.simulate(model, t_end=0.05, output_dt=0.005,
                            parameters={"load_cases.train.loads.tyre.function.terms.1.amplitude": 1000.0})) == 11
    with pytest.raises(mbdrom.InputError, match="load.tyre.amplitude = nan is not a finite number"):
        rom.simulate(model, load_case="train", t_end=0.1, parameters={"load.tyre.amplitude": float("nan")})
    with pytest.raises(ValueError, match="outside must be 'warn' or 'stop'"):
        rom.simulate(model, load_case="harder", outside="ignore")
    with pytest.raises(mbdrom.InputError, match="the envelope margin must be a number >= 0"):  # the engine's check
        rom.simulate(model, load_case="harder", envelope_margin=-1)
    back = pickle.loads(pickle.dumps(outside))
    assert back.left_envelope and back.envelope == outside.envelope
    assert outside.expected_error is None and back.expected_error is None  # outside: no bound


def test_a_reduced_run_longer_than_its_longest_training_run_warns_as_the_cli_and_the_fmu_do(
        mbdrom, macpherson, two_train_runs, examples, cli, tmp_path):
    model, runs = macpherson, two_train_runs
    rom = mbdrom.train("pod", model, runs, nr=1)
    span = "past t = 0.8 s, the length of the longest training run"
    with pytest.warns(mbdrom.EnvelopeWarning, match=span):
        longer = rom.simulate(model, load_case="train", t_end=1.2)
    assert any(span in w for w in longer.warnings)
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        within = rom.simulate(model, load_case="train", t_end=0.8)
    assert not any("longest training run" in str(w.message) for w in seen)
    assert not any("longest training run" in w for w in within.warnings)
    rom.save(str(tmp_path / "pod.json"))
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "pod.json"), "--model", str(examples / "macpherson.json"),
                        "-o", str(tmp_path / "longer.csv"), "--load-case", "train", "--t-end", "1.2"],
                       capture_output=True, text=True, check=True)
    assert "warning: the run lasts 1.2 s, " + span in r.stderr


def test_a_reduced_run_beyond_its_own_step_states_no_bound_and_warns_as_the_cli_does(
        mbdrom, macpherson, two_train_runs, examples, cli, tmp_path):
    import warnings
    model, runs = macpherson, two_train_runs
    rom = mbdrom.train("pca", model, runs, clusters=4)
    assert rom.metrics["verdict_kind"] == "rollout follows"
    with warnings.catch_warnings():
        warnings.simplefilter("error", mbdrom.EnvelopeWarning)  # at its own step: its bound, no warning
        own = rom.simulate(model, load_case="train", t_end=0.6, output_dt=0.02)
    assert own.expected_error is not None and "expect <= " in own.envelope
    step = "the run steps 0.02 s, more than the model's own step of 0.005 s (the step its checks ran at)"
    with pytest.warns(mbdrom.EnvelopeWarning, match=re.escape(step)):
        beyond = rom.simulate(model, load_case="train", t_end=0.6, dt=0.02, output_dt=0.02)
    assert beyond.expected_error is None and "no error bound (the run steps 0.02 s" in beyond.envelope
    rom.save(str(tmp_path / "pca.json"))
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "pca.json"), "--model", str(examples / "macpherson.json"),
                        "-o", str(tmp_path / "beyond.csv"), "--load-case", "train", "--t-end", "0.6", "--dt", "0.02",
                        "--output-dt", "0.02"], capture_output=True, text=True, check=True)
    assert "warning: " + next(w for w in beyond.warnings if w.startswith(step)) in r.stderr


def test_a_run_that_retraces_a_training_run_states_the_error_measured_on_it_as_the_cli_does(
        mbdrom, macpherson, two_train_runs, examples, cli, tmp_path):
    import warnings
    model, runs = macpherson, two_train_runs
    rom = mbdrom.train("pod", model, runs, nr=1)
    measured = rom.metrics["training_rollout"]["run_errors"]["train_0.8"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # two runs: what its check said is not the point here
        again = rom.simulate(model, load_case="train", t_end=0.8, output_dt=0.005)
        shorter = rom.simulate(model, load_case="train", t_end=0.7, output_dt=0.005)
    assert again.expected_error == measured
    assert 'it retraces training run "train_0.8"' in again.envelope
    assert pickle.loads(pickle.dumps(again)).envelope == again.envelope
    assert "retraces" not in shorter.envelope  # part of a run: not the run training measured
    rom.save(str(tmp_path / "pod.json"))
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "pod.json"), "--model", str(examples / "macpherson.json"),
                        "-o", str(tmp_path / "again.csv"), "--load-case", "train", "--t-end", "0.8",
                        "--output-dt", "0.005"], capture_output=True, text=True, check=True)
    assert "training envelope      " + again.envelope in r.stdout


def test_a_model_that_fails_its_checks_is_returned_with_a_warning_as_the_cli_exits_with_code_3(
        mbdrom, two_train_runs, examples, cli, tmp_path):
    # One POD mode of the MacPherson under "train" for 4 s misses its own run by 6 %.
    model = mbdrom.Model.load(str(examples / "macpherson.json"))
    run = mbdrom.simulate(model, load_case="train", t_end=4.0, output_dt=0.01, name="mac4")
    with pytest.warns(mbdrom.FailedCheckWarning, match=r"misses its own training runs .*do not trust its runs"):
        rom = mbdrom.train("pod", model, [run], nr=1)
    assert issubclass(mbdrom.FailedCheckWarning, mbdrom.UnvalidatedWarning)
    with pytest.warns(mbdrom.FailedCheckWarning, match="misses its own training runs"):
        rom.simulate(model, load_case="chirp", t_end=0.5)
    run.to_csv(str(tmp_path / "mac4.csv"))
    r = subprocess.run([cli, "train", "pod", "--model", str(examples / "macpherson.json"), "--data",
                        str(tmp_path / "mac4.csv"), "-o", str(tmp_path / "pod.json"), "--nr", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 3 and (tmp_path / "pod.json").exists()
    assert "warning: the written model misses its own training runs (" in r.stderr

    # A filter that makes the warning an error loses nothing: the exception carries the model.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", mbdrom.FailedCheckWarning)
        with pytest.raises(mbdrom.FailedCheckWarning) as raised:
            mbdrom.train("pod", model, [run], nr=1)
    assert raised.value.model.method == "pod" and raised.value.model.reduced_dimension == 1

    # A model that passes its checks (local PCA follows the held-out run within 0.5 %): no such warning.
    runs = two_train_runs
    with warnings.catch_warnings():
        warnings.simplefilter("error", mbdrom.FailedCheckWarning)
        passing = mbdrom.train("pca", model, runs)
    assert passing.metrics["verdict_kind"] == "rollout follows"


def test_pod_without_nr_is_refused_as_from_the_cli(mbdrom, macpherson):
    run = mbdrom.simulate(macpherson, load_case="train", t_end=0.2)
    with pytest.raises(mbdrom.InputError, match='the setting "nr" has no default'):
        mbdrom.train("pod", macpherson, [run])


def test_a_missing_numpy_is_said_at_import(mbdrom):
    # A Python without NumPy (its import made to fail): import mbdrom names what is missing.
    code = "import sys\nsys.modules['numpy'] = None\ntry:\n    import mbdrom\nexcept ImportError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, check=True).stdout
    assert "mbdrom needs NumPy" in out
    assert "python3-numpy" in out


def test_ctrl_c_stops_a_long_reduced_run_within_a_tenth_of_a_second_however_many_samples_it_holds(
        mbdrom, macpherson):
    # The run's table is filled sample by sample into rows of one contiguous block; after Ctrl+C
    # its unused rows are given back in place: nothing is copied or converted, so the latency does
    # not grow with the samples held (3 ms at 545,000 samples of the MacPherson's 218 channels;
    # 0.5 s at 400,000 when the table was column-major and shrinking it copied every sample).
    run = mbdrom.simulate(macpherson, load_case="train", t_end=0.5, output_dt=0.005)
    rom = mbdrom.train("pod", macpherson, [run], nr=1, keep_failing=True)
    # A loaded machine (CI runs two tests at once on two cores) can delay the process by more than
    # the bound once; a latency that grows with the samples misses it on every try.
    def stop_after(wait):
        sent = []

        def interrupt():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(wait, interrupt)
        timer.start()
        with pytest.raises(KeyboardInterrupt) as e:
            rom.simulate(macpherson, load_case="train", t_end=3000, output_dt=0.005)
        latency = time.monotonic() - sent[0]
        timer.join()
        return latency, len(e.value.partial_run)

    for wait in (0.3, 1.0):
        tries = [stop_after(wait)]
        while tries[-1][0] >= 0.1 and len(tries) < 3:
            tries.append(stop_after(wait))
        assert all(held > 10000 for _, held in tries)
        latency, held = min(tries)
        assert latency < 0.1, f"{latency:.3f} s to stop with {held} samples (best of 3)"


def test_training_probes_a_held_step_a_released_pulse_and_sines_of_the_loads_and_says_so_as_the_cli_does(mbdrom, examples, cli, tmp_path):
    import warnings
    model = mbdrom.Model.load(str(examples / "macpherson.json"))
    for t in (0.6, 0.8):
        cli_run(cli, "simulate", examples / "macpherson.json", "-o", tmp_path / f"train_{t}.csv", "--load-case",
                "train", "--t-end", t, "--output-dt", 0.005)
    r = subprocess.run([cli, "train", "sindy", "--model", str(examples / "macpherson.json"), "--data",
                        str(tmp_path / "train_0.6.csv"), str(tmp_path / "train_0.8.csv"),
                        "-o", str(tmp_path / "cli.json")], capture_output=True, text=True, check=True)
    runs = [mbdrom.Run.from_csv(str(tmp_path / f"train_{t}.csv"), model) for t in (0.6, 0.8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rom = mbdrom.train("sindy", model, runs)
    probe = rom.metrics["step_probe"]
    assert probe["done"] and 0 <= probe["error"]
    assert "step probe " + probe["text"] + "\n" in r.stdout
    held = rom.envelope["joint"]["held_loads"]
    assert held["probe_error"] == probe["error"] and held["time"] > 0
    pulse = rom.metrics["release_probe"]
    assert pulse["done"] and 0 <= pulse["error"] and "released: " in pulse["text"]
    assert "pulse probe " + pulse["text"] + "\n" in r.stdout
    assert held["release_error"] == pulse["error"] and held["still_trained"] >= 0
    scan = rom.metrics["frequency_scan"]
    assert scan["done"] and scan["text"].startswith("sines of the loads (tyre ")
    assert "frequency scan " + scan["text"] + "\n" in r.stdout
    assert len(rom.envelope["load_band"]["scan"]["error"]) <= len(scan["points"])

    # A run whose loads swing where the scan missed warns in Python as the CLI does (the file edited as if
    # every sine had been missed by 20 %).
    edited = json.load(open(tmp_path / "cli.json"))
    scanned = edited["envelope"]["load_band"]["scan"]
    scanned["error"] = [0.2] * len(scanned["error"])
    json.dump(edited, open(tmp_path / "edited.json", "w"))
    missing = mbdrom.ReducedModel.load(str(tmp_path / "edited.json"))
    with pytest.warns(mbdrom.EnvelopeWarning, match="its loads swing at about 1.[56] Hz"):
        run = missing.simulate(model, load_case="train", t_end=1.4, output_dt=0.005)
    assert run.expected_error == pytest.approx(1.7 * 0.2)  # the probes' factor times the scan's figure
    r = subprocess.run([cli, "rom-simulate", str(tmp_path / "edited.json"), "--model",
                        str(examples / "macpherson.json"), "-o", str(tmp_path / "edited.csv"), "--load-case", "train", "--t-end", "1.4",
                        "--output-dt", "0.005"], capture_output=True, text=True, check=True)
    assert "training envelope      " + run.envelope in r.stdout
    assert [w for w in run.warnings if "swing at about" in w][0] in r.stderr
