"""Shared fixtures: run a test once per YAML backend (libyaml's C loader and pure-Python PyYAML)."""
from __future__ import annotations

import pytest

from krm_fn import yamlio

from backends import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Select a yamlio backend for the test and restore the previous one afterwards."""
    before = yamlio.backend()
    yamlio.set_backend(request.param)
    try:
        yield request.param
    finally:
        yamlio.set_backend(before)
