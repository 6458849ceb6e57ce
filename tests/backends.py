"""The YAML backend: libyaml's, the only one the function reads with (kept as a list for the tests that
are parametrized by it)."""
from __future__ import annotations

BACKENDS = ["c"]


def backend() -> str:
    return "c"


def set_backend(name: str) -> None:
    """libyaml is the one reader: there is nothing to select."""
