"""Shared fixtures: the module from the build tree, the CLI beside it, the examples."""

import os
import pathlib

import pytest


@pytest.fixture(scope="session")
def examples():
    return pathlib.Path(os.environ.get("MBDROM_EXAMPLES", pathlib.Path(__file__).parents[2] / "resources" / "examples"))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("MBDROM_CLI")
    if not path:
        pytest.skip("MBDROM_CLI is not set (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def mbdrom():
    import mbdrom as module

    return module
