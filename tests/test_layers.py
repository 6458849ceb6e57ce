"""The folders are layers: text -> domain -> model -> checks -> stages -> the run (cli, pipeline, plan).
A module imports only from its own layer or one below it, and no stage imports another (each reads the index,
the settings and the plan so far; what they share, the decisions, lives in the model)."""
from __future__ import annotations

import ast
from pathlib import Path

from krm_fn import plan

KRM_FN = Path(__file__).resolve().parent.parent / "krm_fn"
LAYERS = ("findings", "text", "domain", "model", "checks", "stages", "")  # bottom to top; "" is krm_fn/ itself
STAGE_MODULES = sorted({stage.__module__ for stage in plan.CHECKS + plan.CHANGES if stage.__module__ != "krm_fn.plan"}
                       | {"krm_fn.stages.placement"})


def _module_of(path: Path) -> str:
    parts = path.relative_to(KRM_FN.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The krm_fn modules (or packages) a module imports, relative imports resolved, at any depth."""
    module = _module_of(path)
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            out |= ({target} if node.module else set()) | {f"{target}.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("krm_fn"):
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("krm_fn")}
    return out


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1] if len(parts) > 1 and parts[1] in LAYERS else "")


def _modules() -> dict[str, set[str]]:
    return {_module_of(p): _imports(p) for p in sorted(KRM_FN.rglob("*.py"))}


def test_every_module_sits_in_a_layer():
    loose = [m for m in _modules() if m.count(".") == 1 and m.split(".")[1] not in LAYERS
             and m.split(".")[1] not in ("cli", "pipeline", "plan", "__main__")]
    assert loose == []


def test_no_import_runs_back_up():
    upward = {m: sorted(i for i in imported if _layer(i) > _layer(m))
              for m, imported in _modules().items() if m != "krm_fn"}
    assert {m: i for m, i in upward.items() if i} == {}


def test_the_stage_modules_are_the_ones_the_plan_runs():
    assert {f"krm_fn.stages.{m}" for m in ("cascade", "decide", "materialize", "advice", "prometheus_rules",
                                           "placement")} <= set(STAGE_MODULES)
    assert all(m.startswith("krm_fn.stages.") or m.startswith("krm_fn.checks") for m in STAGE_MODULES)


def test_no_stage_imports_another():
    modules = _modules()
    found = {m: sorted(i for i in modules[m] if i in STAGE_MODULES and i != m) for m in STAGE_MODULES}
    assert {m: i for m, i in found.items() if i} == {}


def test_the_import_reader_sees_relative_and_upward_imports(tmp_path):
    imported = _modules()["krm_fn.stages.materialize"]
    assert "krm_fn.model.decisions" in imported and "krm_fn.text.krm" in imported
    assert _layer("krm_fn.pipeline") > _layer("krm_fn.stages.decide") > _layer("krm_fn.checks.roles") \
        > _layer("krm_fn.model.index") > _layer("krm_fn.domain.kinds") > _layer("krm_fn.text.reader")


def test_no_module_imports_inside_a_function():
    """Plain imports at the top of each module: what a module needs is said where a reader looks for it."""
    inside = []
    for path in sorted(KRM_FN.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside += [f"{_module_of(path)}:{n.lineno}" for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert inside == []
