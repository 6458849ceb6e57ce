"""The catalogue of findings: every module's `FINDINGS` (id -> one-line title), in one table.

Each module that emits findings declares them once, at module level, as `FINDINGS = {"SD101": "title"}`,
and passes the id as a literal at each call site (docs/findings.md: the ranges); ids that `disable` may not
name are in the module's `ALWAYS_ON`.
This module sits above every stage, so no stage imports it. Building the table imports every module, the
plain-workload and monitoring ones too, which a run loads only when the input needs them: a run imports
it only to read a `disable` setting (pipeline.known_ids).
"""

from types import ModuleType

from . import checks, plan
from .domain import derived, plain_workloads, vllm_command, vllm_schema
from .model import config, index, multinode, rollout
from .stages import advice, cascade, decide, materialize, misplaced, placement, prometheus_rules, rollout_notes, shape
from .text import streams

# In id order of their ranges; tests/test_findings.py checks that every module with FINDINGS is here.
MODULES: tuple[ModuleType, ...] = (streams, shape, config, placement, *checks.CHECKS, cascade, decide, materialize,
                                   plan, derived, index, advice, rollout, rollout_notes, misplaced, multinode, vllm_schema,
                                   vllm_command, plain_workloads, prometheus_rules)


def _catalogue() -> dict[str, tuple[str, ModuleType]]:
    out: dict[str, tuple[str, ModuleType]] = {}
    for module in MODULES:
        for id, title in getattr(module, "FINDINGS", {}).items():
            if id in out:
                raise AssertionError(f"{id} is declared by {out[id][1].__name__} and {module.__name__}")
            out[id] = (title, module)
    return dict(sorted(out.items()))


CATALOGUE: dict[str, tuple[str, ModuleType]] = _catalogue()
ALWAYS_ON: frozenset[str] = frozenset().union(*(getattr(m, "ALWAYS_ON", frozenset()) for m in MODULES))
# Every id -> whether the `disable` setting may name it.
# Ids merged into others (each module's RETIRED: old id -> the id that says it now).
RETIRED: dict[str, str] = {old: new for m in MODULES for old, new in getattr(m, "RETIRED", {}).items()}
CAN_DISABLE: dict[str, bool] = {id: id not in ALWAYS_ON for id in CATALOGUE}
# A retired id in `disable` is taken as the id that says it now (none of them can be turned off today).
CAN_DISABLE.update({old: CAN_DISABLE[new] for old, new in RETIRED.items()})

