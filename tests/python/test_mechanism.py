"""mbdrom.Mechanism: building a mechanism from Python as a designer would, with the
model file's checks and messages, and simulating it."""

import json

import numpy as np
import pytest


def rssr_four_bar(mbdrom):
    """A four-bar described in words: ground pivots A (0, 0, 0) and D (3, 0, 0) [m] with
    revolute joints about z; crank A-B of 1 m to B (0.6, 0.8, 0), coupler B-C to
    C (3.2, 2, 0) [m] and rocker C-D, the coupler on spherical joints (RSSR: its spin about
    its own axis is no coordinate of a bar). Steel rods of 10 mm radius, gravity -y."""
    mech = mbdrom.Mechanism("RSSR four-bar")
    mech.gravity = [0, -9.81, 0]
    mech.add_point("A", [0, 0, 0], fixed=True)
    mech.add_point("B", [0.6, 0.8, 0])
    mech.add_point("C", [3.2, 2, 0])
    mech.add_point("D", [3, 0, 0], fixed=True)
    notes = []
    for body, points in (("crank", ["A", "B"]), ("coupler", ["B", "C"]), ("rocker", ["C", "D"])):
        notes += mech.add_body(body, "bar", points, radius=0.01, density=7850)
    notes += mech.add_joint("revolute", "ground", "crank", "A", axis=[0, 0, 1])
    notes += mech.add_joint("revolute", "rocker", "ground", "D", axis=[0, 0, 1])
    return mech, notes


def test_a_four_bar_built_from_python_moves_with_one_degree_of_freedom(mbdrom):
    mech, notes = rssr_four_bar(mbdrom)
    assert any("unit vector" in n or "rigid" in n for n in notes), notes  # the builder says what it added
    model = mech.model()
    info = model.info()
    assert info["dof"] == 1
    # Released under gravity it swings; nothing but gravity does work, so energy is kept.
    run = mbdrom.simulate(model, load_case="free", t_end=1.0, output_dt=0.01, tolerance=1e-9)
    assert np.ptp(run.point("B")[:, 0]) > 0.05
    energy = run.channel("kinetic_energy") + run.channel("potential_energy")
    assert np.abs(energy - energy[0]).max() < 1e-5 * np.abs(run.channel("potential_energy")).max()
    # The crank stays 1 m long: the constraints hold along the run.
    length = np.linalg.norm(run.point("B") - run.point("A"), axis=1)
    assert np.abs(length - 1.0).max() < 1e-9


def test_a_built_mechanism_saves_as_a_model_file_and_reads_back(mbdrom, tmp_path):
    mech, _ = rssr_four_bar(mbdrom)
    mech.add("load_cases", {"name": "push", "loads": [
        {"name": "push", "type": "force", "point": "B", "direction": [1, 0, 0],
         "function": {"type": "sine", "amplitude": 5, "frequency": 2}}]})
    mech.save(str(tmp_path / "four_bar.json"))
    model = mbdrom.Model.load(str(tmp_path / "four_bar.json"))
    assert model.hash == mech.model().hash
    assert model.load_cases == ["free", "push"]


def test_bad_elements_get_the_model_files_messages(mbdrom):
    mech, _ = rssr_four_bar(mbdrom)
    before = mech.to_json()
    with pytest.raises(mbdrom.Error, match="axis"):
        mech.add_joint("revolute", "crank", "coupler", "B")  # a revolute joint needs its axis
    with pytest.raises(mbdrom.Error, match="nowhere"):
        mech.add_body("link", "bar", ["A", "nowhere"], mass=1)
    # The known types are the joint table's, every one of them.
    with pytest.raises(ValueError, match="unknown type \"hinge\" \\(known: spherical, revolute, .*point_on_plane, distance\\)"):
        mech.add_joint("hinge", "ground", "crank", "A", axis=[0, 0, 1])
    with pytest.raises(mbdrom.Error, match="spring"):
        mech.add("spring_dampers", {"name": "spring", "point1": "A", "point2": "B", "stiffness": "stiff"})
    with pytest.raises(ValueError, match="position"):
        mech.add_point("E", [1, 2])
    with pytest.raises(ValueError, match="inertia: expected a 3 x 3"):
        mech.add_body("blob", "rigid", ["A", "B"], mass=1, inertia=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="not a list of the model file"):
        mech.add("gears", {"name": "g"})
    # Nothing half-applied: the mechanism is as before and still builds.
    assert mech.to_json() == before
    assert mech.model().info()["dof"] == 1


def test_renames_follow_every_reference_and_removal_takes_what_depends(mbdrom):
    mech, _ = rssr_four_bar(mbdrom)
    mech.rename("point", "B", "crank_pin")
    model = mech.model()
    assert "crank_pin.x" in model.coordinates
    removed = mech.remove("body", "rocker")
    assert any(r.startswith("joint") for r in removed), removed
    # Left: the crank's turn (1) and the coupler's free end swinging about the crank pin (2).
    assert mech.model().info()["dof"] == 3


def test_rename_and_remove_take_the_model_files_kind_names_too(mbdrom):
    mech, _ = rssr_four_bar(mbdrom)
    mech.add("spring_dampers", {"name": "spring", "point1": "A", "point2": "C", "free_length": 3.6,
                                "stiffness": [100], "damping": 1})
    mech.rename("spring_dampers", "spring", "strut")
    mech.rename("spring_damper", "strut", "strut2")
    assert mech.remove("spring-damper", "strut2") == []
    with pytest.raises(ValueError, match="not an element kind"):
        mech.remove("gear", "g")


def test_an_element_naming_what_is_not_there_is_refused_at_once(mbdrom):
    # The model file's check runs on every addition: a joint on a missing body, a spring to a
    # missing point or a load case at a missing point is refused then, with the file's message,
    # not later at model().
    mech, _ = rssr_four_bar(mbdrom)
    before = mech.to_json()
    with pytest.raises(mbdrom.ModelError, match="rocker2"):
        mech.add("joints", {"name": "j", "type": "spherical", "body1": "crank", "body2": "rocker2",
                            "point1": "B", "point2": "B"})
    with pytest.raises(mbdrom.ModelError, match="\"Q\""):
        mech.add("spring_dampers", {"name": "s", "point1": "A", "point2": "Q", "free_length": 1,
                                    "stiffness": [10]})
    with pytest.raises(mbdrom.ModelError, match="\"Q\""):
        mech.add("load_cases", {"name": "pull", "loads": [
            {"name": "f", "type": "force", "point": "Q", "direction": [1, 0, 0],
             "function": {"type": "constant", "value": 1}}]})
    assert mech.to_json() == before
    # Points no body lists yet are fine while building: bodies come after their points.
    mech.add_point("E", [5, 0, 0])
    assert "E" in mech.problem()  # ... but model() would refuse the mechanism as it stands
    mech.add_point("F", [6, 0, 0], fixed=True)
    mech.add_body("arm", "bar", ["E", "F"], mass=1)
    assert mech.problem() == ""


def test_a_broken_model_file_opens_as_a_mechanism_to_mend(mbdrom, tmp_path):
    mech, _ = rssr_four_bar(mbdrom)
    text = json.loads(mech.to_json())
    text["joints"][0]["body2"] = "crank_typo"  # as a hand edit would leave it
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(text))
    with pytest.raises(mbdrom.ModelError, match="crank_typo"):
        mbdrom.Model.load(path)
    broken = mbdrom.Mechanism.load(path)
    assert "crank_typo" in broken.problem()
    # Additions to a mechanism that is already inconsistent are taken; model() judges the whole.
    broken.add_point("G", [1, 1, 0], fixed=True)
    fixed = json.loads(broken.to_json())
    fixed["joints"][0]["body2"] = "crank"
    mended = mbdrom.Mechanism.from_json(json.dumps(fixed))
    assert mended.problem() == "" and mended.model().info()["dof"] == 1
    with pytest.raises(mbdrom.FileError):
        mbdrom.Mechanism.from_json("{not json")
    with pytest.raises(mbdrom.FileError):
        mbdrom.Mechanism.load(tmp_path / "missing.json")


def test_numbers_and_names_the_model_file_refuses_are_refused_at_entry(mbdrom, tmp_path):
    m = mbdrom.Mechanism("rules")
    with pytest.raises(mbdrom.ModelError, match=r'gravity\[2\] = 1e\+300 is beyond'):
        m.gravity = (0, 0, 1e300)
    assert tuple(m.gravity) == (0, 0, -9.81)  # unchanged
    m.add_point("O", (0, 0, 0), fixed=True)
    m.add_point("A", (1, 0, 0))
    with pytest.raises(mbdrom.ModelError, match=r'bodies\[0\] "arm": key "mass" = 1e\+300'):
        m.add_body("arm", "bar", ["O", "A"], mass=1e300)
    with pytest.raises(TypeError, match="complex"):
        m.add_point("B", np.array([1 + 2j, 0, 0]))
    with pytest.raises(mbdrom.ModelError, match="the name has ','"):
        m.add_point("B,C", (2, 0, 0))
    with pytest.raises(mbdrom.ModelError, match="control character"):
        m.name = "strut\x01"
    assert m.name == "rules"
    m.add_body("arm", "bar", ["O", "A"], mass=1.0)
    m.save(str(tmp_path / "rules.json"))
    assert mbdrom.Mechanism.load(str(tmp_path / "rules.json")).name == "rules"  # what is saved reads back
