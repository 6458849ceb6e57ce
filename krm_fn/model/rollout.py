"""What KAITO's controllers make of the output on each release, between two renders: the function cannot see the
cluster, so its output must be safe for workloads that already run. docs/rollout.md says what each release
does and what follows (SD420-SD427); tests/kaito_model.py quotes KAITO's source for it and tests every life
cycle against it. The notes are the stage in rollout_notes.py.
"""

from typing import Any

from ..domain import constants as C
from ..domain import kinds
from ..domain.derived import content_hash, metadata
from ..domain.inference_config import DATA_KEY
from ..text import krm
from ..text.items import Item
from ..text.patch import Op
from ..text.results import Result, finding
from ..domain import kaito_releases
from .config import Settings
from .decisions import source_of
from .index import Index, Workload
from .report import about

KEPT_ANNOTATION = C.KEPT_ANNOTATION


def command_is_fixed(settings: Settings) -> bool:
    """KAITO v0.11-v0.12: the vLLM command of an existing StatefulSet never changes, and it reads a config
    file only when the Workspace had a config at creation. With no kaitoVersion set the cluster may run
    them: their output is kept on v0.10 and v0.13 too, where it is safe (tests/test_lifecycle.py)."""
    first, after = kaito_releases.FIXED_COMMAND
    return settings.kaito_version_unknown or first <= settings.kaito_version < after


def _ns(namespace: str) -> str:
    return f" -n {namespace}" if namespace else ""


def off_configmap(namespace: str) -> dict[str, Any]:
    """The derived ConfigMap a disabled Workspace keeps on v0.11-v0.12: its flag needs a file, and an empty
    `vllm:` adds nothing to the command."""
    annotations = {C.DERIVED_ANNOTATION: "true"}
    data = {DATA_KEY: "vllm: {}\n"}
    name = "specdec-off-" + content_hash({"labels": {}, "annotations": annotations, "data": data})
    return {"apiVersion": krm.CONFIGMAP_API_VERSION, "kind": krm.CONFIGMAP_KIND,
            "metadata": metadata(name, namespace, {}, annotations), "data": data}


def keeps_a_config(w: Workload, settings: Settings, current: Any, index: Index) -> bool:
    """A disabled Workspace that must keep a config reference: on v0.11-v0.12, one that points at a derived
    ConfigMap made from none, or says "false" and names none (the source files of kustomize, Argo CD and Flux
    never show the reference an earlier render gave)."""
    # A Workspace an InferenceSet made (label inferenceset.kaito.sh/created-by) too: written back to the
    # cluster it is updated as any Workspace, and its StatefulSet keeps the command it was made with.
    if w.spec is not kinds.WORKSPACE or not command_is_fixed(settings) or kinds.preset_name(w.spec, w.data) is None \
            or kinds.runtime(w.spec, w.data, settings.vllm_gate) != C.RUNTIME_VLLM:
        return False
    if isinstance(current, str) and current:
        src_name, _, via = source_of(index, w.namespace, current)
        return via and src_name is None
    return isinstance(w.value, str) and w.value == "false"


def off_result(w: Workload, path: kinds.Path, name: str, settings: Settings) -> Result:
    found = finding("SD421", kinds.dotted(path), releases=settings.rollout_releases, configmap=name, name=w.name,
                    ns_flag=_ns(w.namespace))
    return about(found, w.item, proposed_value=name, change=True)


def kept_for(index: Index, item: Item) -> Item | None:
    """The InferenceSet or MultiRoleInference in the input whose existing Workspaces may mount this derived
    ConfigMap: the one that references it as the input has it, or the one its mark names."""
    mark = item.annotation(KEPT_ANNOTATION)
    for w in index.workloads:
        if w.spec is kinds.WORKSPACE or w.namespace != item.namespace:
            continue
        if isinstance(mark, str) and mark == f"{w.spec.kind}/{w.name}":
            return w.item
        for path in w.spec.config_refs(w.data):
            if kinds.get(w.data, path) == item.name:
                return w.item
    return None


def kept_step(item: Item, parent: Item) -> tuple[list[Op], Result]:
    """The mark and the info that keep `item` for `parent`'s existing Workspaces."""
    mark = f"{parent.kind}/{parent.name}"
    ops = [] if item.annotation(KEPT_ANNOTATION) == mark \
        else kinds.set_ops(item.data(), ("metadata", "annotations", KEPT_ANNOTATION), mark)
    return ops, about(finding("SD422", kind=parent.kind, name=parent.name, command=_recreate(parent)), item)


def unkept_ops(item: Item) -> list[Op]:
    """The mark taken off a derived ConfigMap a workload of the input references again (an InferenceSet enabled
    again after it was kept for its old Workspaces): the mark tells readers to delete it once those are
    recreated, which would now take away what the workload mounts."""
    if KEPT_ANNOTATION not in item.ann_keys:
        return []
    return kinds.remove_ops(item.data(), ("metadata", "annotations", KEPT_ANNOTATION))


def _children_sets(parent: Item) -> list[str]:
    if parent.kind == "MultiRoleInference":
        roles = kinds.get(parent.data(), ("spec", "roles"))
        if not isinstance(roles, list):
            return []
        return [f"{parent.name}-{r.get('type')}" for r in roles if isinstance(r, dict)]
    return [parent.name]


def _recreate(parent: Item) -> str:
    """One kubectl command that deletes the Workspaces of the InferenceSet (or of each of a MultiRoleInference's)."""
    names = _children_sets(parent)
    if len(names) == 1:
        return f"kubectl delete workspace -l inferenceset.kaito.sh/created-by={names[0]}{_ns(parent.namespace)}"
    sets = ",".join(names)
    return f"kubectl delete workspace -l 'inferenceset.kaito.sh/created-by in ({sets})'{_ns(parent.namespace)}"
