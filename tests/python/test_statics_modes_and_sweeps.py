"""mbdrom.Model.statics / modes and mbdrom.sweep, checked against hand calculations of
mechanisms described in words (not the examples the engine was developed on)."""

import json
import pickle
import subprocess
import warnings

import numpy as np
import pytest

G = 9.81


def hanging_mass_text(mass, stiffness, damping, push):
    """A `mass` kg particle on a vertical rail (point-on-line along y through the fixed
    anchor O at (0, 0.5, 0) m), hung from O by a spring-damper of free length 0.5 m,
    stiffness [N/m] and damping [N s/m]; gravity -y; load case "push": a constant
    downward force `push` [N] on the mass; load case "shake": a 1 Hz sine of 2 N."""
    return json.dumps({
        "format": "mbdrom-model", "version": 1, "name": "hanging mass",
        "gravity": [0, -G, 0],
        "points": [{"name": "O", "position": [0, 0.5, 0], "fixed": True},
                   {"name": "P", "position": [0, 0, 0]}],
        "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": True}],
        "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": mass}],
        "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass",
                    "point1": "O", "point2": "P", "axis1": "y0"}],
        "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 0.5,
                            "stiffness": [stiffness], "damping": damping}],
        "load_cases": [
            {"name": "push", "loads": [{"name": "weight", "type": "force", "point": "P",
                                        "direction": [0, -1, 0],
                                        "function": {"type": "constant", "value": push}}]},
            {"name": "shake", "loads": [{"name": "shaker", "type": "force", "point": "P",
                                         "direction": [0, 1, 0],
                                         "function": {"type": "sine", "amplitude": 2, "frequency": 1}}]}],
    })


@pytest.fixture
def hanging(mbdrom):
    # m = 3 kg, k = 1200 N/m, c = 18 N s/m: omega = 20 rad/s, zeta = 18 / (2 sqrt(1200 * 3)) = 0.15.
    return mbdrom.Model.from_json(hanging_mass_text(3.0, 1200.0, 18.0, 6.0))


def test_statics_stretches_the_spring_by_weight_plus_load_over_stiffness(hanging):
    s = hanging.statics()
    assert s["points"]["P"][1] == pytest.approx(-3.0 * G / 1200.0, abs=1e-12)
    pushed = hanging.statics("push")
    assert pushed["points"]["P"][1] == pytest.approx(-(3.0 * G + 6.0) / 1200.0, abs=1e-12)
    assert pushed["force_residual"] < 1e-8 and pushed["constraint_residual"] < 1e-10
    assert pushed["q"].shape == (len(hanging.coordinates),)
    # The rail carries no vertical force: the spring holds the mass.
    rail = next(r for r in pushed["reactions"] if r["name"] == "rail")
    assert abs(rail["force"][1]) < 1e-8


def test_modes_give_the_spring_mass_frequency_and_damping_ratio(hanging):
    m = hanging.modes("push")
    assert m["frequencies"].shape == (1,)
    assert m["omega"][0] == pytest.approx(20.0, rel=1e-10)
    assert m["frequencies"][0] == pytest.approx(20.0 / (2 * np.pi), rel=1e-10)
    assert m["damping_ratios"][0] == pytest.approx(0.15, rel=1e-10)
    # Poles of m s^2 + c s + k: -zeta omega +- i omega sqrt(1 - zeta^2).
    poles = sorted(m["poles"], key=lambda p: p.imag)
    assert poles[1].real == pytest.approx(-3.0, rel=1e-10)
    assert poles[1].imag == pytest.approx(20.0 * np.sqrt(1 - 0.15**2), rel=1e-10)
    assert m["mass"].shape == m["stiffness"].shape == (1, 1)


def test_statics_of_an_unrestrained_mechanism_is_a_solver_error(mbdrom):
    # Without its spring the mass falls: there is no equilibrium under gravity.
    free = json.loads(hanging_mass_text(3.0, 1200.0, 18.0, 6.0))
    free["spring_dampers"] = []
    with pytest.raises(mbdrom.SolverError):
        mbdrom.Model.from_json(json.dumps(free)).statics()
    with pytest.raises(ValueError, match="no load case \"nope\""):
        mbdrom.Model.from_json(json.dumps(free)).modes("nope")


def test_a_sweep_scales_the_load_and_its_runs_match_single_simulations(mbdrom, hanging):
    runs = mbdrom.sweep(hanging, "shake", amplitudes=[0.0, 0.5, 2.0], frequencies=[1.0, 3.0], t_end=0.5,
                        dt=1e-3, jobs=2)
    assert [r.name for r in runs] == ["a0_f1", "a0_f3", "a0.5_f1", "a0.5_f3", "a2_f1", "a2_f3"]
    assert all(r.error == "" and r.load_case == "shake" for r in runs)
    # Each run says how its loads were scaled, by the names a design takes.
    assert runs[3].design == {"load.amplitude_scale": 0.5, "load.frequency_scale": 3.0}
    assert mbdrom.simulate(hanging, "shake", t_end=0.1).design == {}
    # Linear: the motion is the drop from rest under gravity (amplitude 0) plus the forced part,
    # and four times the load gives four times the forced part, at either frequency.
    for f in (0, 1):
        dropped = runs[f].point("P")[:, 1]
        small, large = runs[2 + f].point("P")[:, 1] - dropped, runs[4 + f].point("P")[:, 1] - dropped
        assert np.abs(small).max() > 1e-4
        np.testing.assert_allclose(large, 4.0 * small, rtol=1e-6, atol=1e-12)
    # Three times the frequency: not the same response.
    assert np.abs((runs[3].point("P") - runs[2].point("P"))[:, 1]).max() > 1e-4
    # The sweep's unscaled case is bit for bit a plain simulate of the same load.
    one = mbdrom.sweep(hanging, "shake", t_end=0.5, dt=1e-3, jobs=1)[0]
    single = mbdrom.simulate(hanging, "shake", t_end=0.5, dt=1e-3)
    assert np.array_equal(one.q, single.q)


def test_a_sweep_keeps_the_runs_that_fail_with_their_reason(mbdrom, examples, hanging):
    # The pendulum carriage's load times 1e9 at 50 ms steps: Newton fails at every step size.
    model = mbdrom.Model.load(examples / "pendulum_carriage.json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = mbdrom.sweep(model, "train", amplitudes=[1.0, 1e9], t_end=0.5, dt=0.05, output_dt=0.05, jobs=2)
    assert runs[0].error == "" and len(runs[0]) == 11
    assert "Newton" in runs[1].error and len(runs[1]) >= 1  # the rows before the failure are kept
    assert len(caught) == 1 and issubclass(caught[0].category, RuntimeWarning)
    assert runs[1].name in str(caught[0].message) and runs[0].name not in str(caught[0].message)
    with pytest.raises(ValueError, match="frequencies"):
        mbdrom.sweep(hanging, "shake", frequencies=[0.0])
    with pytest.raises(ValueError, match="load_case"):
        mbdrom.sweep(hanging, None)
    with pytest.raises(ValueError, match="appears twice"):
        mbdrom.sweep(hanging, "shake", amplitudes=[1, 1.0])


def test_a_stopped_sweep_raises_cancelled_with_the_runs_done(mbdrom, hanging):
    # One thread: the first run ends, its progress record (handed over within 0.1 s, while the
    # second run of 120,000 steps goes on) asks to stop; the third never starts.
    seen = []

    def stop(record):
        seen.append(record)
        return False

    with pytest.raises(mbdrom.Cancelled) as stopped:
        mbdrom.sweep(hanging, "shake", amplitudes=[1, 2, 3], t_end=60.0, dt=5e-4, output_dt=0.1, jobs=1,
                     progress=stop)
    assert seen and seen[0]["stage"] == "sweep"
    done = stopped.value.partial_runs
    assert done[0].name == "a1_f1" and done[0].error == "" and len(done[0]) == 601
    assert len(done) < 3 or done[-1].error != ""  # the sweep did not run to its end


def test_models_runs_mechanisms_and_reduced_models_pickle(mbdrom, hanging):
    run = mbdrom.simulate(hanging, "shake", t_end=0.2, dt=1e-3)
    again = pickle.loads(pickle.dumps(run))
    assert again.name == run.name and again.load_case == "shake"
    assert np.array_equal(again.q, run.q) and again.channels == run.channels
    assert pickle.loads(pickle.dumps(hanging)).hash == hanging.hash
    mech = mbdrom.Mechanism.from_model(hanging)
    assert pickle.loads(pickle.dumps(mech)).to_json() == mech.to_json()
    rom = mbdrom.train("pod", hanging, [run], nr=1)
    copy = pickle.loads(pickle.dumps(rom))
    a = rom.simulate(hanging, "shake", t_end=0.2)
    b = copy.simulate(hanging, "shake", t_end=0.2)
    assert np.array_equal(a.q, b.q)


def test_a_latin_hypercube_puts_one_point_in_each_stratum_of_every_parameter(mbdrom):
    # McKay, Beckman & Conover (1979): each range cut into n equal strata, one point in each.
    n = 16
    d = mbdrom.design("latin-hypercube", {"spring_dampers.spring.stiffness.0": (800.0, 1600.0),
                                          "load.weight.value": (0.0, 12.0)}, runs=n, seed=7)
    assert d.type == "latin-hypercube" and len(d) == n and d.points.shape == (n, 2)
    assert d.parameters == ["spring_dampers.spring.stiffness.0", "load.weight.value"]
    for c, (low, high) in enumerate([(800.0, 1600.0), (0.0, 12.0)]):
        strata = np.floor((d.points[:, c] - low) / (high - low) * n).astype(int)
        assert sorted(strata) == list(range(n))
    # The seed makes it: the same seed the same design, another seed another one.
    again = mbdrom.design("latin-hypercube", {"spring_dampers.spring.stiffness.0": (800.0, 1600.0),
                                              "load.weight.value": (0.0, 12.0)}, runs=n, seed=7)
    assert np.array_equal(again.points, d.points) and again.hash == d.hash
    other = mbdrom.design("latin-hypercube", {"spring_dampers.spring.stiffness.0": (800.0, 1600.0),
                                              "load.weight.value": (0.0, 12.0)}, runs=n, seed=8)
    assert not np.array_equal(other.points, d.points)
    assert d.row(3) == {"spring_dampers.spring.stiffness.0": d.points[3, 0], "load.weight.value": d.points[3, 1]}


def test_a_sobol_design_of_eight_points_fills_each_half_and_quarter_evenly(mbdrom):
    # Sobol' (1967), unscrambled: the first point at the low ends; 2^k points put 2^k / 2^j in each
    # of the 2^j equal intervals of every parameter (j <= k).
    d = mbdrom.design("sobol", {"a": (0.0, 1.0), "b": (10.0, 20.0)}, runs=8)
    assert np.array_equal(d.points[0], [0.0, 10.0])
    for c, (low, high) in enumerate([(0.0, 1.0), (10.0, 20.0)]):
        u = (d.points[:, c] - low) / (high - low)
        for parts in (2, 4, 8):
            counts = np.bincount(np.floor(u * parts).astype(int), minlength=parts)
            assert list(counts) == [8 // parts] * parts


def test_grid_and_list_designs_and_what_they_refuse(mbdrom):
    g = mbdrom.design("grid", {"a": [1.0, 2.0], "b": [10.0, 20.0, 30.0]})
    assert g.points.tolist() == [[1, 10], [1, 20], [1, 30], [2, 10], [2, 20], [2, 30]]
    listed = mbdrom.design("list", {"a": [1.0, 2.0], "b": [5.0, 6.0]})
    assert listed.points.tolist() == [[1, 5], [2, 6]]
    with pytest.raises(ValueError, match="one value per run"):
        mbdrom.design("list", {"a": [1.0, 2.0], "b": [5.0]})
    with pytest.raises(ValueError, match="latin-hypercube"):
        mbdrom.design("halton", {"a": (0.0, 1.0)}, runs=4)
    with pytest.raises(ValueError, match="low < high"):
        mbdrom.design("sobol", {"a": (1.0, 0.0)}, runs=4)
    with pytest.raises(ValueError, match="runs"):
        mbdrom.design("latin-hypercube", {"a": (0.0, 1.0)})
    with pytest.raises(ValueError, match="finite"):
        mbdrom.design("grid", {"a": [float("nan")]})


def test_a_designs_runs_settle_where_each_rows_spring_and_load_put_the_mass(mbdrom, hanging):
    # The hanging mass with its stiffness and push varied: every run ends at rest at the static
    # stretch (m g + push) / k of its own row (damping ratio >= 0.1: settled after 4 s).
    d = mbdrom.design("latin-hypercube", {"spring_dampers.spring.stiffness.0": (800.0, 1600.0),
                                          "load.weight.value": (0.0, 12.0)}, runs=6, seed=3)
    runs = mbdrom.run_design(hanging, d, load_case="push", t_end=4.0, dt=1e-3, output_dt=0.01, jobs=2)
    assert [r.name for r in runs] == d.run_names
    # A pickled run keeps its design values (they are its parameters mu in training).
    assert pickle.loads(pickle.dumps(runs[2])).design == runs[2].design
    for i, run in enumerate(runs):
        k, push = d.points[i]
        assert run.error == "" and run.load_case == "push"
        assert run.design == {"spring_dampers.spring.stiffness.0": k, "load.weight.value": push}
        assert run.point("P")[-1, 1] == pytest.approx(-(3.0 * G + push) / k, rel=2e-3)
    # A row of the design is the same run as the mechanism edited by hand and simulated.
    text = json.loads(hanging_mass_text(3.0, d.points[0, 0], 18.0, d.points[0, 1]))
    by_hand = mbdrom.simulate(mbdrom.Model.from_json(json.dumps(text)), "push", t_end=4.0, dt=1e-3,
                              output_dt=0.01)
    np.testing.assert_allclose(runs[0].q, by_hand.q, rtol=0, atol=1e-12)


def test_a_design_over_a_parameter_the_model_lacks_is_refused_before_anything_runs(mbdrom, hanging):
    d = mbdrom.design("grid", {"spring_dampers.strut.stiffness": [1000.0]})
    with pytest.raises(mbdrom.InputError, match="strut"):
        mbdrom.run_design(hanging, d, load_case="push", t_end=0.1)
    with pytest.raises(ValueError, match="jobs"):
        mbdrom.run_design(hanging, mbdrom.design("grid", {"load.weight.value": [1.0]}), load_case="push",
                          jobs=0)


def test_a_neural_ode_over_parameters_trains_on_a_designs_runs_and_takes_their_values(mbdrom, hanging):
    # The design's values reach training as the runs' parameters mu (as a sweep's do in the CLI):
    # the model takes the push by name, knows the range it was trained over, and a run outside
    # that range warns.
    d = mbdrom.design("list", {"load.weight.value": [2.0, 6.0, 10.0]})
    runs = mbdrom.run_design(hanging, d, load_case="push", t_end=1.0, dt=1e-3, output_dt=0.01, jobs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rom = mbdrom.train("node", hanging, runs, parameters=["load.weight.value"], inputs="none",
                           hidden=[8], epochs=20, keep_failing=True)
    assert rom.parameters == ["load.weight.value"]
    assert rom.metrics["parameter_ranges"]["load.weight.value"] == [2.0, 10.0]
    assert [r["parameters"]["load.weight.value"] for r in rom.metrics["training_runs"]] == [2.0, 6.0, 10.0]
    inside = rom.simulate(hanging, "push", t_end=0.2, parameters={"load.weight.value": 4.0})
    assert len(inside) > 0
    with pytest.warns(mbdrom.EnvelopeWarning, match="load.weight.value"):
        rom.simulate(hanging, "push", t_end=0.2, parameters={"load.weight.value": 30.0})


def test_a_dataset_merged_by_the_cli_gives_the_designs_values_as_arrays_and_trains(mbdrom, cli, tmp_path):
    # The same Latin hypercube made by 'mbdrom-cli sweep --design' (then merged) and by mbdrom.design.
    path = tmp_path / "hanging.json"
    path.write_text(hanging_mass_text(3.0, 1200.0, 18.0, 6.0))
    sweep = tmp_path / "sweep"
    subprocess.run([cli, "sweep", str(path), "-o", str(sweep), "--load-case", "push",
                    "--vary", "load.weight.value=0:12", "--design", "latin-hypercube", "--runs", "4",
                    "--seed", "5", "--t-end", "0.5", "--jobs", "1"], check=True, capture_output=True)
    merged = tmp_path / "merged.json"
    subprocess.run([cli, "merge", str(sweep), "-o", str(merged)], check=True, capture_output=True)
    model = mbdrom.Model.load(str(path))
    data = mbdrom.Dataset.load(str(merged), model)
    d = mbdrom.design("latin-hypercube", {"load.weight.value": (0.0, 12.0)}, runs=4, seed=5)
    assert len(data) == 4 and data.samples > 0
    np.testing.assert_array_equal(data.parameters["load.weight.value"], d.points[:, 0])
    first = data.run(0)
    assert data.run(-1)["name"] == data.run(3)["name"] == data.run_names[3]
    with pytest.raises(TypeError, match="an index or a run's name"):
        data.run(1.5)
    with pytest.raises(IndexError):
        data.run(4)
    assert first["q"].shape == (len(first["t"]), len(data.coordinates))
    # The merged runs are the runs Python makes of the same design.
    runs = mbdrom.run_design(model, d, load_case="push", t_end=0.5, jobs=1)
    np.testing.assert_array_equal(first["q"], runs[0].q)
    # Training takes the dataset as it takes runs; a dataset of another mechanism is refused.
    rom = mbdrom.train("pod", model, data, nr=1, keep_failing=True)
    assert rom.reduced_dimension == 1
    other = mbdrom.Model.from_json(hanging_mass_text(4.0, 1200.0, 18.0, 6.0))
    with pytest.raises(ValueError, match="not of the model"):
        mbdrom.train("pod", other, data, nr=1)
    with pytest.raises(mbdrom.InputError, match="not of the model"):
        mbdrom.Dataset.load(str(merged), other)
    # Made from runs, saved and read back: the same data.
    saved = tmp_path / "mine.json"
    mbdrom.Dataset.from_runs(model, runs).save(str(saved))
    again = mbdrom.Dataset.load(str(saved))
    np.testing.assert_array_equal(again.parameters["load.weight.value"], d.points[:, 0])
    np.testing.assert_array_equal(again.run(2)["qd"], data.run(2)["qd"])
