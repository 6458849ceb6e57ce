"""The suite runs on what the images ship: requirements/pins.txt (the test environment's constraints) names
exactly the versions of requirements/runtime.txt (the images' hash-pinned set), pyproject.toml's lower
bounds are those versions, and this environment has them installed (.ci/run installs with the pins). The
pins' other entries are the checkers of the `test` extra (mypy, ruff, PyYAML's stubs), at its lower bounds."""
from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"(?m)^([A-Za-z0-9_.-]+)==([^\s\\]+)")


def _pins(name: str) -> dict[str, str]:
    return {n.lower(): v for n, v in PIN.findall((ROOT / "requirements" / name).read_text())}


def _test_extra() -> dict[str, str]:
    """The `test` extra's checkers: name -> lower bound (pytest's is no pin)."""
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"(?m)^test = \[(.*)\]", text).group(1)
    return {n.lower(): v for n, v in re.findall(r'"([A-Za-z0-9_.-]+)>=([^",]+)"', deps) if n != "pytest"}


def test_the_test_constraints_are_the_images_runtime_set_and_the_checkers():
    runtime, checkers = _pins("runtime.txt"), _test_extra()
    assert runtime and {"mypy", "ruff"} <= set(checkers)
    assert _pins("pins.txt") == {**runtime, **checkers}


def test_pyprojects_lower_bounds_are_the_pinned_versions():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"(?m)^dependencies = \[(.*)\]", text).group(1)
    lower = {n.lower(): v for n, v in re.findall(r'"([A-Za-z0-9_.-]+)>=([^",]+)"', deps)}
    runtime = _pins("runtime.txt")
    assert lower == {n: runtime[n] for n in lower} and set(lower) == {"pyyaml", "jsonpatch"}


def test_ci_and_the_readme_install_with_the_pins():
    """Installed with the pins, the checkers run on the package, then the suite."""
    command = ("pip install -c requirements/pins.txt -e '.[test]' && python -m ruff check . && python -m mypy"
               " && python -m pytest")
    assert command in (ROOT / ".ci" / "run").read_text()
    assert command in (ROOT / "README.md").read_text()


def test_this_environment_runs_the_pinned_versions():
    for name, version in _pins("pins.txt").items():
        assert importlib.metadata.version(name) == version, f"{name}: run the suite as .ci/run does"


def test_every_package_of_krm_fn_is_in_the_wheel() -> None:
    """pyproject.toml lists the packages by name: a new folder left out installs a package that cannot import."""
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    root = Path(__file__).resolve().parent.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(root).parts) for p in (root / "krm_fn").rglob("__init__.py")}
    assert folders == listed
