"""Parents to children, as KAITO's controllers sync the opt-in annotation (SPEC.md 5.3)."""
from __future__ import annotations

import jsonpatch

from . import constants as C
from . import kinds
from .index import ABSENT, Index, Workload
from .report import about, q
from .results import Result, Severity
from .writer import Changes


def _valid(value: object) -> bool:
    return value is ABSENT or value in ("true", "false")


def cascade(index: Index, changes: Changes) -> list[Result]:
    """Parents to the children KAITO creates: MultiRoleInference -> InferenceSets -> Workspaces."""
    out: list[Result] = []
    for parent_kind, child_kind in (("MultiRoleInference", "InferenceSet"), ("InferenceSet", "Workspace")):
        claims: dict[int, list[Workload]] = {}
        children: dict[int, Workload] = {}
        for parent in (w for w in index.workloads if w.spec.kind == parent_kind):
            if not _valid(parent.value):
                continue  # reported on the parent; copying a bad value would only repeat it
            for child in index.children(parent, child_kind):
                claims.setdefault(child.item.index, []).append(parent)
                children[child.item.index] = child
        for key, parents in claims.items():
            child = children[key]
            if len({_value_key(p.value) for p in parents}) > 1:
                # Two controllers disagree: whichever came last in the files would win. Say so instead.
                names = " and ".join(f"{p.spec.kind} {q(p.name)}" for p in parents)
                out.append(about(Severity.WARNING, f"claimed by {names} (labels or ownerReferences), which "
                                                     f"disagree on {C.ENABLE_ANNOTATION}; left as it is",
                                   child.item, child.spec.annotation_field))
                continue
            out += _propagate(parents[0], child, changes)
    return out


def _value_key(value: object) -> str:
    return "<absent>" if value is ABSENT else str(value)


def _propagate(parent: Workload, child: Workload, changes: Changes) -> list[Result]:
    if child.value == parent.value:
        return []
    path = child.spec.annotations + (C.ENABLE_ANNOTATION,)
    if parent.value is ABSENT:
        ops = kinds.remove_ops(child.data, path)
        told = "removed, as on"
    else:
        blocked = kinds.not_a_mapping(child.data, child.spec.annotations)
        if blocked is not None:
            # A list or a scalar where annotations belong: Kubernetes refuses the object, and there is
            # nowhere to put the annotation without dropping what the user wrote.
            return [about(Severity.ERROR, f"{kinds.dotted(blocked)} is not a mapping; {parent.spec.kind} "
                                            f"{q(parent.name)} cascades {C.ENABLE_ANNOTATION} to this "
                                            f"{child.spec.kind} and it cannot be set here", child.item,
                          kinds.dotted(blocked))]
        ops = kinds.set_ops(child.data, path, parent.value)
        told = f"set to {q(parent.value)} from"
    changes.patch(child.item.index, ops)
    child.data = jsonpatch.apply_patch(child.data, ops)
    child.value = parent.value
    return [about(Severity.INFO, f"annotation {C.ENABLE_ANNOTATION} {told} {parent.spec.kind} {q(parent.name)} "
                                   f"(KAITO propagates it to the {child.spec.kind}s it creates)",
                    child.item, child.spec.annotation_field,
                    proposed_value=None if parent.value is ABSENT else parent.value)]

