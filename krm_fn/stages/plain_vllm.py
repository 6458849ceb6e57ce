"""The stages for plain vLLM workloads (docs/plain-vllm.md): `plain_opt_in` with the checks, before the error
gate; `plain_vllm` with the changes, plain_workloads.plan_workload's ops and findings placed on their items.

The ids are declared where the findings are made (plain_workloads, vllm_command, checks/annotation_value).
plain_workloads (with the vLLM command parser it uses) is loaded only when the index holds a plain workload
that could carry the opt-in: most runs have none.
"""

from typing import Any

from ..checks import annotation_value
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import Speculates
from ..model.index import Index
from ..model.report import about
from ..text.items import Item
from ..text.results import Finding, Result, Severity

# The findings of plan_workload that tell of a change it makes (validate mode says they are not written).
_CHANGES = frozenset({"SD701", "SD702", "SD713", "SD726", "SD727"})


def _placed(f: Finding, item: Item, change: bool = False, **values: Any) -> Result:
    return about(f.severity, f.message, item, f.field, id=f.id, change=change and f.id in _CHANGES, **values)


def plain_opt_in(index: Index, settings: Settings, plan: Plan) -> Step:
    """What stops the run for a plain workload, as KAITO's webhook would for its own kinds."""
    if not index.plain and not index.plain_other_versions and not index.unhandled:
        return step()
    from ..domain.plain_workloads import has_record, other_version, read_opt_in, shape_problems, unhandled_kind
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
                out.append(about(Severity.ERROR, found.message, w.item, found.field, id=found.id,
                                 current_value=opt_in.value))
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
    from ..domain.plain_workloads import plan_workload
    ops: dict[int, list[dict]] = {}
    out: list[Result] = []
    running: list[Speculates] = []
    for w in index.plain:
        planned = plan_workload(w.spec, plan.data_of(w.item), settings.presets, settings.vllm_version,
                                settings.vllm_version_set)
        if planned.opt_in.conflict is not None:
            continue   # plain_opt_in reported it (and only a `disable` of SD720 lets the run get here)
        out += [_placed(f, w.item, change=bool(planned.ops)) for f in planned.findings]
        if planned.ops:
            ops[w.item.index] = list(planned.ops)
        if planned.speculates:
            running.append(Speculates(w))
    return step(out, ops=ops, decisions=running)
