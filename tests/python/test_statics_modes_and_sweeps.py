"""mbdrom.Model.statics / modes and mbdrom.sweep, checked against hand calculations of
mechanisms described in words (not the examples the engine was developed on)."""

import json
import pickle
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
