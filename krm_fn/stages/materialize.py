"""Derived ConfigMaps in, references re-pointed (`materialize`), reverted (`revert`) and retired (`retire`):
three stages."""

from typing import Any

from ..domain import kinds
from ..domain.derived import MAX_DATA_BYTES, comparable, data_bytes, with_location
from ..domain.inference_config import DATA_KEY
from ..model import rollout
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import Inject, Override, restored_name, source_of
from ..model.index import ABSENT, Index, Workload, is_derived
from ..model.report import about
from ..text import krm
from ..text.edits import Added
from ..text.patch import Op, apply_ops, diff
from ..text.items import Item, ItemError
from ..text.results import Result, finding


class _Edits:
    """A stage's ops per item, each computed against the item as planned with this stage's ops before it."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.ops: dict[int, list[Op]] = {}
        self._data: dict[int, Any] = {}

    def data(self, item: Item) -> Any:
        return self._data[item.index] if item.index in self._data else self.plan.data_of(item)

    def add(self, item: Item, ops: list[Op]) -> None:
        if ops:
            self._data[item.index] = apply_ops(self.data(item), ops)
            self.ops.setdefault(item.index, []).extend(ops)

    def point(self, w: Workload, path: kinds.Path, name: str | None) -> None:
        """The reference at `path` names `name` (or is removed)."""
        data = self.data(w.item)
        self.add(w.item, kinds.set_ops(data, path, name) if name else kinds.remove_ops(data, path))


class _Placement:
    """What materialize has placed so far: derived ConfigMaps (namespace, name), input items reused as
    derived ConfigMaps, file paths in use (kpt refuses two items at one path), and the new items."""

    __slots__ = ("_index", "_taken", "planned", "reused", "added")

    def __init__(self, index: Index) -> None:
        self._index = index
        self._taken: set[str] | None = None
        self.planned: set[tuple[str, str]] = set()
        self.reused: set[int] = set()
        self.added: list[Added] = []

    @property
    def taken(self) -> set[str]:
        """The file paths in use, the input's (read once per run, when the first new item is placed: most
        runs place none) and those placed here."""
        if self._taken is None:
            self._taken = set(self._index.paths())
        return self._taken


def materialize(index: Index, settings: Settings, plan: Plan) -> Step:
    """The derived ConfigMaps the decisions inject, and the references re-pointed at them (or back to
    their source, where the source now overrides)."""
    out: list[Result] = []
    edits = _Edits(plan)
    placed = _Placement(index)
    for d in plan.decided:
        w = d.workload
        if isinstance(d, Override) and d.via_derived:
            edits.point(w, d.path, restored_name(index, w.namespace, d.source_name, d.source))
        if not isinstance(d, Inject):
            continue
        if d.configmap is None:
            out.append(about(finding("SD311", f"data[{DATA_KEY}]", configmap=d.source_name, problem=d.problem),
                             d.source or w.item))
            continue
        size = data_bytes(d.configmap)
        if size > MAX_DATA_BYTES:
            out.append(about(finding("SD316", f"data[{DATA_KEY}]", configmap=d.target or "", size=size,
                                     limit=MAX_DATA_BYTES), d.source or w.item))
            continue
        out += _ensure(index, d.configmap, w, placed, edits)
        if d.current != d.target:
            edits.point(w, d.path, d.target)
    return step(out, ops=edits.ops, added=placed.added)


def _ensure(index: Index, cm: dict[str, Any], w: Workload, placed: _Placement, edits: _Edits) -> list[Result]:
    """The derived ConfigMap `cm` exists once in the output: found in the input (kept, or regenerated
    when edited by hand), or added after the workload it serves."""
    name = cm["metadata"]["name"]
    if (w.namespace, name) in placed.planned:
        return []
    placed.planned.add((w.namespace, name))
    existing = index.configmaps.get((w.namespace, name))
    if existing is None and w.namespace:
        # A namespace-less derived ConfigMap lands in the workload's namespace: the same object.
        loose = index.configmaps.get(("", name))
        existing = loose if loose is not None and loose.index not in placed.reused else None
    if existing is None:
        other = index.misversioned.get((w.namespace, name)) or (index.misversioned.get(("", name))
                                                                 if w.namespace else None)
        if other is not None:
            return [about(finding("SD312", "apiVersion", configmap=name, api_version=other.api_version), other)]
        placed.added.append(Added(w.item.index, with_location(cm, w.item.ann, placed.taken)))
        return []
    placed.reused.add(existing.index)
    if not is_derived(existing):
        return [about(finding("SD313", configmap=name), existing)]
    try:
        found = comparable(existing.data())
    except ItemError as exc:
        return [about(finding("SD314", configmap=name, error=str(exc)), existing)]
    if found != cm:
        # A derived ConfigMap edited by hand (or, namespace-less, given the workload's namespace):
        # regenerate it from its source, keeping its file.
        keep = (existing.data().get("metadata") or {}).get("annotations") or {}
        want = with_location(cm, {})
        want["metadata"]["annotations"].update({k: v for k, v in keep.items() if k.startswith(krm.RENDER_STRIPPED)})
        edits.add(existing, diff(edits.data(existing), want))
        found.get("metadata", {}).pop("namespace", None)
        if found == {**cm, "metadata": {k: v for k, v in cm["metadata"].items() if k != "namespace"}}:
            return []
        return [about(finding("SD315", configmap=name), existing)]
    return []


def revert(index: Index, settings: Settings, plan: Plan) -> Step:
    """Disabled workloads that still point at a derived ConfigMap go back to its source."""
    out: list[Result] = []
    edits = _Edits(plan)
    placed = _Placement(index)
    for w in map(plan.workload, index.workloads):
        if w.value is not ABSENT and w.value != "false":
            continue
        for path in w.spec.config_refs(w.data):
            current = kinds.get(edits.data(w.item), path)
            if rollout.keeps_a_config(w, settings, current, index):
                off = rollout.off_configmap(w.namespace)
                out += _ensure(index, off, w, placed, edits)
                if current != off["metadata"]["name"]:
                    edits.point(w, path, off["metadata"]["name"])
                    out.append(rollout.off_result(w, path, off["metadata"]["name"], settings))
                continue
            if not isinstance(current, str):
                continue
            src_name, src, via_derived = source_of(index, w.namespace, current)
            if not via_derived:
                continue
            if src is None and src_name is not None and index.configmap(w.namespace, current) is None:
                # Only the derived name is left to go by, and its source is not here: a guess could name a
                # ConfigMap that does not exist (long names are cut in derived names).
                out.append(about(finding("SD321", kinds.dotted(path), derived=current, source=src_name), w.item))
                continue
            src_name = restored_name(index, w.namespace, src_name, src)
            edits.point(w, path, src_name)
            told = finding("SD322", kinds.dotted(path), configmap=src_name) if src_name \
                else finding("SD323", kinds.dotted(path))
            out.append(about(told, w.item, proposed_value=src_name, change=True))
    return step(out, ops=edits.ops, added=placed.added)


def retire(index: Index, settings: Settings, plan: Plan) -> Step:
    """Derived ConfigMaps that nothing references any more are dropped; one referenced again loses the mark
    that kept it for an InferenceSet's old Workspaces."""
    out: list[Result] = []
    referenced: set[int] = set()
    for w in index.workloads:
        data = plan.data_of(w.item)
        for path in w.spec.config_refs(data):
            ref = kinds.get(data, path)
            if isinstance(ref, str):
                found = index.configmap(w.namespace, ref)
                if found is not None:
                    referenced.add(found.index)
    removed: list[int] = []
    ops: dict[int, list[Op]] = {}
    unused: list[Item] = []
    for item in index.items:
        if is_derived(item) and item.index in referenced:
            # In use again: no longer kept for old Workspaces only.
            unmark = rollout.unkept_ops(item, plan.data_of)
            if unmark:
                ops[item.index] = unmark
        elif is_derived(item):
            # The Workspaces an InferenceSet (or MultiRoleInference) already has keep the config they were
            # created with: what they mount stays while their parent is in the input.
            parent = rollout.kept_for(index, item)
            if parent is not None:
                mark, told = rollout.kept_step(item, parent)
                if mark:
                    ops[item.index] = mark
                out.append(told)
                continue
            unused.append(item)
    # Something other than a KAITO workload's reference may use one (a Deployment mounting it, a projected
    # volume, an argument): then it stays. Asked only when there is one to retire, for all of them at once.
    users = index.users({item.name for item in unused}, plan.data_of) if unused else {}
    for item in unused:
        use = users.get(item.name)
        if use is not None:
            user, where = use
            kept = finding("SD331.at-field", kind=user.kind, name=user.name, place=where) if where \
                else finding("SD331.at-top-level", kind=user.kind, name=user.name)
            out.append(about(kept, item))
            continue
        removed.append(item.index)
        out.append(about(finding("SD332"), item, change=True))
    return step(out, ops=ops, removed=removed)
