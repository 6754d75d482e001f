"""mbdrom.Model: reading mechanisms, their mobility, and bad input."""

import json

import pytest


def test_macpherson_has_one_degree_of_freedom_and_its_load_cases(mbdrom, examples):
    model = mbdrom.Model.load(str(examples / "macpherson.json"))
    info = model.info()
    assert info["dof"] == 1
    assert info["coordinates"] == len(model.coordinates) == 24
    assert info["redundant_constraints"] == []
    assert model.load_cases == ["static", "train", "chirp"]
    assert len(model.hash) == 16


def test_bricards_linkage_is_mobile_with_one_redundant_constraint_named(mbdrom, examples):
    # Bricard's six-bar: the Gruebler-Kutzbach count says 0, the linkage moves with one
    # degree of freedom, so one constraint equation depends on the others.
    info = mbdrom.Model.load(str(examples / "bricard.json")).info()
    assert info["coordinates"] == info["constraints"] == 24
    assert info["rank"] == 23
    assert info["dof"] == 1
    assert len(info["redundant_constraints"]) == 1
    assert "rod5" in info["redundant_constraints"][0]


def pendulum_text(length):
    """A point mass of 2 kg on a massless rod of `length` m from a pivot, in the plane z = 0, gravity -y."""
    return json.dumps({
        "format": "mbdrom-model", "version": 1, "name": f"pendulum {length} m",
        "gravity": [0, -9.81, 0],
        "points": [{"name": "O", "position": [0, 0, 0], "fixed": True},
                   {"name": "A", "position": [0, -length, 0]}],
        "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": True}],
        "bodies": [{"name": "bob", "type": "bar", "points": ["O", "A"], "mass": 2, "com": [0, -length, 0],
                    "transverse_inertia": 0}],
        "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bob",
                    "point1": "O", "point2": "A", "axis1": "z0"}],
        "load_cases": [{"name": "push", "loads": [
            {"name": "kick", "type": "force", "point": "A", "direction": [1, 0, 0],
             "function": {"type": "sine", "amplitude": 0.2, "frequency": 40}}]}],
    })


def test_a_pendulum_from_json_text_swings_at_its_small_angle_period(mbdrom):
    # Another length scale than the examples': 0.25 m, T = 2 pi sqrt(L / g) = 1.003 s for small angles.
    import numpy as np

    model = mbdrom.Model.from_json(pendulum_text(0.25))
    assert model.info()["dof"] == 1
    run = mbdrom.simulate(model, load_case="push", t_end=4.0, output_dt=0.001)
    x = run.point("A")[:, 0]
    t = run.t
    late = t > 0.5  # after the kick
    crossings = t[late][1:][np.diff(np.sign(x[late])) > 0]
    period = np.mean(np.diff(crossings))
    assert abs(x[late]).max() < 0.25 * 0.1  # small angles
    assert period == pytest.approx(2 * np.pi * np.sqrt(0.25 / 9.81), rel=2e-3)


def test_bad_files_raise_the_engines_errors_with_its_messages(mbdrom, tmp_path):
    with pytest.raises(mbdrom.FileError) as e:
        mbdrom.Model.load(str(tmp_path / "missing.json"))
    assert "missing.json" in str(e.value)
    assert isinstance(e.value, mbdrom.Error)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "mbdrom-model", "version": 1, "name": "x", "points": [{"name": "P"}]}')
    with pytest.raises(mbdrom.Error) as e:
        mbdrom.Model.load(str(bad))
    assert "P" in str(e.value)
    with pytest.raises(TypeError):
        mbdrom.Model.load(42)


def test_a_model_saved_reads_back_the_same_mechanism(mbdrom, examples, tmp_path):
    model = mbdrom.Model.load(str(examples / "slider_crank.json"))
    model.save(str(tmp_path / "copy.json"))
    again = mbdrom.Model.load(str(tmp_path / "copy.json"))
    assert again.hash == model.hash
    assert mbdrom.Model.from_json(model.to_json()).hash == model.hash


def test_the_type_stubs_name_everything_the_module_exports(mbdrom):
    # The stubs beside the module (editors complete from them) must not fall behind it.
    import ast
    import pathlib

    stubs = pathlib.Path(mbdrom.__file__).with_name("_mbdrom.pyi")
    assert stubs.exists()
    tree = ast.parse(stubs.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    exported = {name for name in dir(mbdrom._mbdrom) if not name.startswith("__")} | {"__version__"}
    assert exported - declared - {"__version__"} == set()
    # And every exported class's public members.
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and hasattr(mbdrom, cls.name) and not issubclass(
                getattr(mbdrom, cls.name), Exception):
            members = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
            members |= {f.target.id for f in cls.body if isinstance(f, ast.AnnAssign)}
            public = {m for m in vars(getattr(mbdrom, cls.name)) if not m.startswith("_")}
            assert public - members == set(), cls.name
    assert "error-controlled" in mbdrom.simulate.__doc__  # help() explains


def test_methods_list_their_settings_and_defaults(mbdrom):
    methods = {m["name"]: m for m in mbdrom.methods()}
    assert set(methods) == {"pod", "ae", "pca", "sindy", "node"}
    pca = methods["pca"]
    assert pca["authors"]
    keys = [s["key"] for s in pca["settings"]]
    assert "clusters" in keys and all(s["help"] for s in pca["settings"])
    assert set(pca["defaults"]) >= set(keys) - {"coordinates"}
    assert "nr" in methods["pod"]["defaults"]
