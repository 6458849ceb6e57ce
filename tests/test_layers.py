"""The plan's stages are independent of one another: each reads the index, the settings and the plan so far,
and none imports another (what they share, the decisions, lives in the model: krm_fn/decisions.py)."""
from __future__ import annotations

import ast
from pathlib import Path

from krm_fn import plan

KRM_FN = Path(__file__).resolve().parent.parent / "krm_fn"
STAGE_MODULES = sorted({stage.__module__.removeprefix("krm_fn.") for stage in plan.CHECKS + plan.CHANGES
                        if stage.__module__ != "krm_fn.plan"} | {"placement"})


def _imported(module: str) -> set[str]:
    tree = ast.parse((KRM_FN / f"{module}.py").read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module} if node.module else {a.name for a in node.names}
    return out


def test_the_stage_modules_are_the_ones_the_plan_runs():
    assert {"cascade", "decide", "materialize", "advice", "prometheus_rules", "placement"} <= set(STAGE_MODULES)


def test_no_stage_imports_another():
    found = {m: sorted(_imported(m) & set(STAGE_MODULES)) for m in STAGE_MODULES}
    assert {m: i for m, i in found.items() if i} == {}


def test_the_import_reader_sees_relative_imports():
    assert "decisions" in _imported("materialize") and "changes" in _imported("decide")
