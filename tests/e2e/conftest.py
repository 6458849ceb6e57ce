"""Every test under tests/e2e/ carries the `e2e` marker (registered in pyproject.toml)."""
from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def kpt() -> str:
    """The kpt binary; the kpt tests compare packages by git diffs, so git too (skips, with the reason)."""
    from e2e_support import require_tool
    require_tool("git", "the expected results are git diffs of the package")
    return require_tool("kpt", "kpt 1.0.0-beta.56 runs these tests")
