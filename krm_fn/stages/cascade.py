"""Parents to children, as KAITO's controllers write them (docs/checks.md, step 5; tests/kaito_model.py quotes
the MultiRoleInference controller): InferenceSet -> Workspaces, MultiRoleInference -> InferenceSets. A
MultiRoleInference's child is checked and decided as KAITO will have rewritten it (a `Rewrite` in the plan).
"""

import copy
import re
from typing import Any

from ..domain import constants as C
from ..domain import kinds
from ..domain.derived import FROM_NOTHING, FROM_SOURCE
from ..model.changes import Plan, Rewrite, Step, step
from ..model.config import Settings
from ..model.index import ABSENT, Index, Workload, annotation_value, is_derived
from ..model.report import about
from ..text.quoting import q
from ..text.patch import Op
from ..text.results import Finding, Result, finding


def cascade(index: Index, settings: Settings, plan: Plan) -> Step:
    """Parents to the children KAITO creates: MultiRoleInference -> InferenceSets -> Workspaces.

    Two passes: an InferenceSet passes on what it has after its MultiRoleInference's pass."""
    if not settings.mri_controller:
        off = step([about(finding("SD201", w.spec.annotation_field), w.item)
                    for w in index.workloads if w.spec.kind == "MultiRoleInference" and w.value is not ABSENT])
        return off.then(_pass(index, plan, "InferenceSet", "Workspace"))
    roles = _pass(index, plan, "MultiRoleInference", "InferenceSet")
    return roles.then(_pass(index, plan.then(roles), "InferenceSet", "Workspace"))


def _pass(index: Index, plan: Plan, parent_kind: str, child_kind: str) -> Step:
    """One level: each child of a `parent_kind` in the list gets what its parent says."""
    claims: dict[int, list[Workload]] = {}
    children: dict[int, Workload] = {}
    for parent in (plan.workload(w) for w in index.workloads if w.spec.kind == parent_kind):
        if parent.value is not ABSENT and parent.value not in ("true", "false"):
            continue  # reported on the parent; copying a bad value would only repeat it
        for child in index.children(parent, child_kind):
            claims.setdefault(child.item.index, []).append(parent)
            children[child.item.index] = child
    out: list[Result] = []
    ops: dict[int, list[Op]] = {}
    rewrites: dict[int, Rewrite] = {}
    for key, parents in claims.items():
        child = plan.workload(children[key])
        if len({"<absent>" if p.value is ABSENT else str(p.value) for p in parents}) > 1:
            # Two controllers disagree: whichever came last in the files would win. Say so instead.
            out.append(about(_disagree(child, parents), child.item))
            continue
        parent = parents[0]
        odd = _not_a_mapping(child)
        if odd:
            # Kubernetes refuses such an object at apply: bad input, not something to step around. (Its
            # metadata.annotations that are no mapping: SD067 said so already, of every object.)
            if odd != "metadata.annotations":
                out.append(about(finding("SD203", odd, kind=parent.spec.kind, name=parent.name, path=odd),
                                 child.item))
            continue
        if parent_kind == "MultiRoleInference":
            rewrite, told = _rewrite(parent, child)
            if rewrite is not None:
                rewrites[key] = rewrite
            out += told
            if not _annotations(parent.data):
                continue  # KAITO copies annotations only when the MultiRoleInference has some
        ops[key], told = _propagate(parent, child)
        out += told + _overwritten(index, parent, child)
    return step(out, ops=ops, rewrites=rewrites)


def _disagree(child: Workload, parents: list[Workload]) -> Finding:
    """SD202: the parents that claim `child`, each named once (one name, several objects: how many)."""
    shown = list(dict.fromkeys(f"{p.spec.kind} {q(p.name)}" for p in parents))
    field = child.spec.annotation_field
    if len(shown) == 1:
        return finding("SD202.same-name", field, kind=parents[0].spec.kind, name=parents[0].name, count=len(parents))
    return finding("SD202.parents", field, parents=" and ".join(shown))


def _not_a_mapping(child: Workload) -> str:
    """The first field on the way to what the cascade writes that is there but no mapping ("" if none)."""
    for path in (child.spec.annotations, child.spec.inference):
        blocked = kinds.not_a_mapping(child.data, path) if path is not None else None
        if blocked is not None:
            return kinds.dotted(blocked)
    return ""


def _annotations(data: Any) -> dict[str, Any]:
    ann = kinds.get(data, ("metadata", "annotations"))
    return ann if isinstance(ann, dict) else {}


def _rewrite(mri: Workload, child: Workload) -> tuple[Rewrite | None, list[Result]]:
    """The child InferenceSet as the MultiRoleInference controller writes it; a warning where it differs."""
    # The role `child` was found for: the index finds a MultiRoleInference's children by these names.
    role = next(role for role in kinds.get(mri.data, ("spec", "roles"))
                if isinstance(role, dict) and child.name == f"{mri.name}-{role.get('type')}")
    view = copy.deepcopy(child.data)
    template = view.setdefault("spec", {}) if isinstance(view, dict) else {}
    template = template.setdefault("template", {}) if isinstance(template, dict) else {}
    if not isinstance(template, dict):
        return None, []  # a child KAITO could not decode; its own shape errors say so
    differs = []
    mri_annotations = _annotations(mri.data)
    if mri_annotations:
        meta = template.setdefault("metadata", {})
        if isinstance(meta, dict):
            written = meta.get("annotations")
            others = {k: v for k, v in written.items() if k != C.ENABLE_ANNOTATION} if isinstance(written, dict) else {}
            if others != {k: v for k, v in mri_annotations.items() if k != C.ENABLE_ANNOTATION}:
                differs.append("spec.template.metadata.annotations")
            meta["annotations"] = copy.deepcopy(mri_annotations)
    preset: dict[str, Any] = {"name": kinds.get(mri.data, ("spec", "model", "name"))}
    secret = kinds.get(mri.data, ("spec", "model", "modelAccessSecret"))
    if secret:
        preset["presetOptions"] = {"modelAccessSecret": secret}
    inference: dict[str, Any] = {"preset": preset}
    if isinstance(role.get("runtimeConfig"), str) and role["runtimeConfig"]:
        inference["config"] = role["runtimeConfig"]
    given = template.get("inference")
    before = given if isinstance(given, dict) else {}
    if kinds.get(before, ("preset", "name")) != preset["name"]:
        differs.append("spec.template.inference.preset.name")
    if before.get("config") != inference.get("config"):
        differs.append("spec.template.inference.config")
    differs += [f"spec.template.inference.{k}" for k in before if k not in ("preset", "config")]
    template["inference"] = inference
    rewrite = Rewrite(view, mri)
    if not differs or (mri.value is ABSENT and annotation_value(child.spec, child.data) is ABSENT):
        return rewrite, []  # speculative decoding is no concern of either: nothing to say
    return rewrite, [about(finding("SD204", differs[0], name=mri.name, fields=", ".join(differs)), child.item)]


def _overwritten(index: Index, parent: Workload, child: Workload) -> list[Result]:
    """SD207 when the child's file carries the opt-in with another value than its parent's. Not for a child
    that references a derived ConfigMap with "true": that value is this function's own earlier cascade, and
    the parent has been switched off since (SD206/SD205 tell the change)."""
    mine = annotation_value(child.spec, child.item.data())
    if mine is ABSENT or mine == parent.value:
        return []
    if mine == "true" and any(_derived_reference(index, child, path) for path in child.spec.config_refs(child.data)):
        return []
    there = kinds.dotted(parent.spec.annotations)  # the field names the key: the message names its mapping
    values = {"value": mine, "kind": parent.spec.kind, "name": parent.name, "there": there}
    if parent.value is ABSENT:
        return [about(finding("SD207.parent-has-none", child.spec.annotation_field, **values), child.item)]
    return [about(finding("SD207.parent-says", child.spec.annotation_field, parent_value=parent.value, **values),
                  child.item)]


def _derived_reference(index: Index, child: Workload, path: kinds.Path) -> bool:
    ref = kinds.get(child.data, path)
    if not isinstance(ref, str) or not ref:
        return False
    found = index.configmap(child.namespace, ref)
    if found is not None:
        return is_derived(found)
    return bool(re.fullmatch(FROM_SOURCE, ref) or re.fullmatch(FROM_NOTHING, ref))


def _propagate(parent: Workload, child: Workload) -> tuple[list[Op], list[Result]]:
    """The ops that give the child its parent's annotation value, and the result that says so."""
    if annotation_value(child.spec, child.data) == parent.value:
        return [], []
    path = child.spec.annotations + (C.ENABLE_ANNOTATION,)
    field = child.spec.annotation_field
    values = {"kind": parent.spec.kind, "name": parent.name, "child_kind": child.spec.kind}
    if parent.value is ABSENT:
        return kinds.remove_ops(child.data, path), [
            about(finding("SD206", field, **values), child.item, proposed_value=None, change=True)]
    return kinds.set_ops(child.data, path, parent.value), [
        about(finding("SD205", field, value=parent.value, **values), child.item, proposed_value=parent.value,
              change=True)]
