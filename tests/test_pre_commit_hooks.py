"""The repository's own `.pre-commit-hooks.yaml`: what the hook runs. tests/e2e/test_e2e_pre_commit_hooks.py
runs it with a real pre-commit."""
from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _hooks() -> list[dict]:
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_hook_definition_validates_and_writes_nothing() -> None:
    (hook,) = _hooks()
    assert hook["id"] == "kaito-specdec" and hook["language"] == "python"
    assert hook["entry"].split() == ["kaito-specdec", "render", "--mode", "validate"]
    assert hook["types"] == ["yaml"] and hook["require_serial"] is True  # one run sees every changed file
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'kaito-specdec = "krm_fn.cli:run"' in text, "the hook's entry is the package's console script"
