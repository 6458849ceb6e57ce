"""The deselected items of a session, kept by tests/conftest.py for tests/test_markers.py (a module of its
own: `conftest` is also tests/e2e/conftest.py's name)."""
import pytest

DESELECTED = pytest.StashKey[list]()
