"""The rollout notes, a stage: what only recreating a workload achieves on the configured KAITO release, and
what KAITO leaves as it was (the facts in rollout.py)."""

from ..domain import constants as C
from ..domain import kinds
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import Inject, source_of
from ..model.index import Index, Workload
from ..model.report import about
from ..model.rollout import _children_sets, _ns, _recreate, command_is_fixed
from ..text.results import Finding, Result, finding

DERIVED_PREFIX = "specdec-"  # every derived ConfigMap's name (derived.py)


def rollout_notes(index: Index, settings: Settings, plan: Plan) -> Step:
    """SD420 (SD426) on Workspaces enabled without a config of their own (v0.11-v0.12), SD424 (SD427) on
    InferenceSets and MultiRoleInferences re-pointed or off, SD423 on a MultiRoleInference whose last
    annotation is gone, SD425 on one whose model changed."""
    out: list[Result] = []
    if command_is_fixed(settings):
        for d in plan.decided:
            w = d.workload
            # A Workspace an InferenceSet made too: its StatefulSet's command is as fixed as any other's.
            if isinstance(d, Inject) and w.spec is kinds.WORKSPACE and d.source_name is None \
                    and w.name:  # a generateName'd Workspace is a new one every time
                values = {"releases": settings.rollout_releases, "configmap": d.target or "", "name": w.name,
                          "ns_flag": _ns(w.namespace)}
                # kaitoVersion not set: a warning only where the input shows an earlier render (it may run).
                sure = not settings.kaito_version_unknown or prior_render(index, w)
                found = finding("SD420", d.field, **values) if sure else finding("SD426", d.field, **values)
                out.append(about(found, w.item))
    for w in map(plan.workload, index.workloads):
        if w.spec is kinds.WORKSPACE:
            continue
        if w.spec is kinds.MULTIROLEINFERENCE and settings.mri_controller and _lost_annotations(index, w):
            out.append(about(finding("SD423", w.spec.annotation_field, name=w.name,
                                     inference_sets=", ".join(_children_sets(w.item))), w.item))
        if w.spec is kinds.MULTIROLEINFERENCE:
            old = _model_changed(index, w)
            if old is not None:
                new = kinds.get(w.data, ("spec", "model", "name"))
                out.append(about(finding("SD425", "spec.model.name", name=w.name, old=old, new=new,
                                         ns_flag=_ns(w.namespace)), w.item))
                continue
        before = [kinds.get(w.item.data(), p) for p in w.spec.config_refs(w.item.data())]
        after = [kinds.get(w.data, p) for p in w.spec.config_refs(w.data)]
        if before == after and w.value != "false":
            continue
        if w.spec is kinds.MULTIROLEINFERENCE and not settings.mri_controller:
            continue
        if w.rewritten_by is not None:
            continue  # said on its MultiRoleInference, whose controller sets this InferenceSet's config
        out.append(about(_recreate_note(index, w), w.item))
    return step(out)


def _recreate_note(index: Index, w: Workload) -> Finding:
    """SD424: the Workspaces `w` already has keep their config. A first enable from source files is most
    often a new one, with no Workspaces yet: a warning only where the input shows an earlier render (SD427)."""
    field, command = w.spec.annotation_field, _recreate(w.item)
    if prior_render(index, w):
        return finding("SD424", field, command=command)
    return finding("SD427", field, command=command)


def _model_changed(index: Index, w: Workload) -> str | None:
    """The model a MultiRoleInference's InferenceSet in the input runs when it is another than
    the MultiRoleInference names: KAITO's controller sets each child's preset from spec.model.name, so the
    MultiRoleInference was created with that one."""
    model = kinds.get(w.data, ("spec", "model", "name"))
    for child in index.children(w, "InferenceSet"):
        old = kinds.preset_name(child.spec, child.item.data())
        if isinstance(old, str) and old and isinstance(model, str) and old != model:
            return old
    return None


def _lost_annotations(index: Index, w: Workload) -> bool:
    """No annotations on the MultiRoleInference, while a child InferenceSet in the list, or a role's
    reference to a derived ConfigMap, shows it was enabled."""
    ann = kinds.get(w.data, ("metadata", "annotations"))
    if isinstance(ann, dict) and ann:
        return False
    for child in index.children(w, "InferenceSet"):
        child_ann = kinds.get(child.item.data(), child.spec.annotations)
        if isinstance(child_ann, dict) and child_ann.get(C.ENABLE_ANNOTATION) == "true":
            return True
    for path in w.spec.config_refs(w.item.data()):
        ref = kinds.get(w.item.data(), path)
        if isinstance(ref, str) and source_of(index, w.namespace, ref)[2]:
            return True
    return False


def prior_render(index: Index, w: Workload) -> bool:
    """The input shows that an earlier render reached `w`, so it may run: a config reference of its to a
    derived ConfigMap, any object this function derived (a package rendered before, as kpt feeds it back:
    a ConfigMap kept for an InferenceSet among them), and for an InferenceSet or MultiRoleInference
    children of it. The source files of kustomize, Argo CD and Flux show none of these."""
    data = w.item.data()
    for path in w.spec.config_refs(data):
        ref = kinds.get(data, path)
        if isinstance(ref, str) and ref.startswith(DERIVED_PREFIX):
            return True
    if index.has_derived():
        return True
    if w.spec is kinds.WORKSPACE:
        return False
    return bool(index.children(w, "Workspace" if w.spec.kind == "InferenceSet" else "InferenceSet"))
