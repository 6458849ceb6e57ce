"""The stages for plain vLLM workloads (docs/plain-vllm.md): `plain_opt_in` with the checks, before the error
gate; `plain_vllm` with the changes, plain_workloads.plan_workload's ops and findings placed on their items.
The ids are declared in the catalogue (krm_fn/findings/plain_vllm.py, SD7xx; SD101/SD102 for the opt-in's
value, checks/annotation_value).
"""

from ..checks import annotation_value
from ..domain.plain_workloads import (has_record, other_version, plan_workload, read_opt_in, shape_problems,
                                      unhandled_kind)
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import Speculates
from ..model.index import Index
from ..model.report import about
from ..text.items import Item
from ..text.patch import Op
from ..text.results import Finding, Result

# The findings of plan_workload that tell of a change it makes (validate mode says they are not written).
_CHANGES = frozenset({"SD701", "SD702", "SD713", "SD726", "SD727"})


def _placed(f: Finding, item: Item, change: bool = False) -> Result:
    return about(f, item, change=change and f.id in _CHANGES)


def plain_opt_in(index: Index, settings: Settings, plan: Plan) -> Step:
    """What stops the run for a plain workload, as KAITO's webhook would for its own kinds."""
    if not index.plain and not index.plain_other_versions and not index.unhandled:
        return step()
    out: list[Result] = []
    for w in index.plain:
        data = plan.data_of(w.item)
        opt_in = read_opt_in(w.spec, data)
        if opt_in.conflict is not None:
            out.append(_placed(opt_in.conflict, w.item))
            continue
        if opt_in.path is not None and opt_in.value not in ("true", "false"):
            found = annotation_value.invalid(opt_in.value, w.item.node, opt_in.path)
            if found is not None:
                out.append(about(found, w.item, current_value=opt_in.value))
            continue
        out += [_placed(f, w.item) for f in shape_problems(w.spec, data)
                if opt_in.value == "true" or has_record(w.spec, data)]
    for check, listed in ((other_version, index.plain_other_versions), (unhandled_kind, index.unhandled)):
        for item, data in listed:
            found = check(item.api_version, item.kind, data)
            if found is not None:
                out.append(_placed(found, item))
    return step(out)


def plain_vllm(index: Index, settings: Settings, plan: Plan) -> Step:
    """Each plain workload's plan: the speculative config in (or out of) its vLLM containers' arguments."""
    if not index.plain:
        return step()
    ops: dict[int, list[Op]] = {}
    out: list[Result] = []
    running: list[Speculates] = []
    for w in index.plain:
        planned = plan_workload(w.spec, plan.data_of(w.item), settings.presets, settings.plain_vllm_version)
        if planned.opt_in.conflict is not None:
            continue   # plain_opt_in reported it (and only a `disable` of SD720 lets the run get here)
        out += [_placed(f, w.item, change=bool(planned.ops)) for f in planned.findings]
        if planned.ops:
            ops[w.item.index] = list(planned.ops)
        if planned.speculates:
            running.append(Speculates(w))
    return step(out, ops=ops, decisions=running)
