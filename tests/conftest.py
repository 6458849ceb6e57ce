"""Shared test support. The one in-process
runner of the function is `run` in tests/runner.py (`from runner import run`; tests/ is on the path)."""
from __future__ import annotations

import pytest

from session_items import DESELECTED


def pytest_sessionstart(session: pytest.Session) -> None:
    """The suite starts the function in hundreds of processes: compile the package's bytecode once, as an
    install does, so that where PYTHONDONTWRITEBYTECODE=1 is set each of them does not compile it anew."""
    import compileall
    from pathlib import Path
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "krm_fn"), quiet=1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--deep", action="store_true",
                     help="also run the tests marked deep (the long property passes; .ci/run runs them)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without --deep the deep passes are deselected (not skipped: they are not run and not counted)."""
    if config.getoption("--deep"):
        return
    deep = [item for item in items if item.get_closest_marker("deep")]
    if deep:
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("deep")]


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Every deselected item, kept for tests/test_markers.py (which checks the markers of the whole session)."""
    if items:
        items[0].config.stash.setdefault(DESELECTED, []).extend(items)
