"""KAITO's admission checks for the opt-in annotation, one module each, run in this order.

Each module has `ID`, `KINDS` and `check(workload) -> str | None` (the exact message, or None), and its
docstring is its documentation. The first failing check is the one reported, as KAITO's webhook does.
"""
from __future__ import annotations

from . import annotation_value, preset_required, vllm_runtime

CHECKS = (annotation_value, preset_required, vllm_runtime)
