"""Derived ConfigMaps in, references re-pointed, reverted and retired (SPEC.md 5.1, 5.2)."""
from __future__ import annotations

from dataclasses import dataclass, field

import jsonpatch

from . import constants as C
from . import kinds
from .decide import INJECT, OVERRIDE, Decision, restored_name, source_of
from .derived import build, comparable, with_location
from .index import ABSENT, Index, Workload, is_derived
from .inference_config import DATA_KEY, InferenceConfigError
from .reader import Item, ItemError
from .report import about, q
from .results import Result, Severity
from .writer import Changes


def materialize(index: Index, ds: list[Decision], changes: Changes) -> tuple[list[Result], dict[int, str]]:
    """Derived ConfigMaps and re-pointed references; returns results and the target of each decision."""
    out: list[Result] = []
    targets: dict[int, str] = {}
    placed = _Placement(taken={item.file()[0] for item in index.items if item.file()[0]})
    for i, d in enumerate(ds):
        w = d.workload
        if d.action == OVERRIDE and d.via_derived:
            _point(changes, w, d.path, restored_name(index, w.namespace, d.source_name, d.source))
        if d.action != INJECT:
            continue
        try:
            cm = build(d.source.data() if d.source else None, d.source_name, w.namespace, d.json, d.method)
        except InferenceConfigError as exc:
            out.append(about(Severity.ERROR, f"ConfigMap {q(d.source_name)}: {exc}", d.source or w.item,
                               f"data[{DATA_KEY}]"))
            continue
        targets[i] = cm["metadata"]["name"]
        out += _ensure(index, cm, w, placed, changes)
        if d.current != targets[i]:
            _point(changes, w, d.path, targets[i])
    return out, targets


@dataclass
class _Placement:
    """What materialize has placed so far: derived ConfigMaps (namespace, name), input items reused as
    derived ConfigMaps, and file paths in use (kpt refuses two items at one path)."""

    taken: set[str]
    planned: set[tuple[str, str]] = field(default_factory=set)
    reused: set[int] = field(default_factory=set)


def _ensure(index: Index, cm: dict, w: Workload, placed: _Placement, changes: Changes) -> list[Result]:
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
            return [about(Severity.ERROR, f"ConfigMap {q(name)} is in the input with apiVersion "
                                            f"{q(other.api_version)}, not v1: a derived ConfigMap of that name would "
                                            "be the same object; set apiVersion v1, or delete it to regenerate it",
                          other, "apiVersion")]
        changes.added.append((w.item.index, with_location(cm, w.item.annotations(), placed.taken)))
        return []
    placed.reused.add(existing.index)
    if not is_derived(existing):
        return [about(Severity.ERROR, f"ConfigMap {q(name)} exists and is not one this function derived; "
                                        "rename it", existing)]
    problem = _read_error(existing)
    if problem:
        return [about(Severity.ERROR, f"derived ConfigMap {q(name)} cannot be read: {problem}; delete it "
                                        "to regenerate it", existing)]
    found = comparable(existing.data())
    if found != cm:
        # A derived ConfigMap edited by hand (or, namespace-less, given the workload's namespace):
        # regenerate it from its source, keeping its file.
        keep = (existing.data().get("metadata") or {}).get("annotations") or {}
        want = with_location(cm, {})
        want["metadata"]["annotations"].update({k: v for k, v in keep.items() if k.startswith(C.RENDER_STRIPPED)})
        changes.patch(existing.index, jsonpatch.make_patch(existing.data(), want).patch)
        found.get("metadata", {}).pop("namespace", None)
        if found == {**cm, "metadata": {k: v for k, v in cm["metadata"].items() if k != "namespace"}}:
            return []
        return [about(Severity.WARNING, f"derived ConfigMap {q(name)} differs from what its source gives "
                                          "(edited by hand?): regenerated; edit its source ConfigMap instead",
                        existing)]
    return []


def _read_error(item: Item) -> str:
    try:
        item.data()
        return ""
    except ItemError as exc:
        return str(exc)


def _point(changes: Changes, w: Workload, path: kinds.Path, name: str | None) -> None:
    ops = kinds.set_ops(w.data, path, name) if name else kinds.remove_ops(w.data, path)
    changes.patch(w.item.index, ops)
    # Keep the workload's data at its planned state: later stages read the final references from it.
    w.data = jsonpatch.apply_patch(w.data, ops)


def revert(index: Index, changes: Changes) -> list[Result]:
    """Disabled workloads that still point at a derived ConfigMap go back to its source."""
    out = []
    for w in index.workloads:
        if w.value is not ABSENT and w.value != "false":
            continue
        for path in w.spec.config_refs(w.data):
            current = kinds.get(w.data, path)
            if not isinstance(current, str):
                continue
            src_name, src, via_derived = source_of(index, w.namespace, current)
            if not via_derived:
                continue
            if src is None and src_name is not None and index.configmap(w.namespace, current) is None:
                # Only the derived name is left to go by, and its source is not here: a guess could name a
                # ConfigMap that does not exist (long names are cut in derived names).
                out.append(about(Severity.WARNING, f"speculative decoding is disabled, but the derived ConfigMap "
                                                     f"{q(current)} and its source {q(src_name)} are not in the "
                                                     "input: set the reference by hand", w.item, kinds.dotted(path)))
                continue
            src_name = restored_name(index, w.namespace, src_name, src)
            _point(changes, w, path, src_name)
            out.append(about(Severity.INFO, "speculative decoding is disabled: "
                               + (f"reference restored to ConfigMap {q(src_name)}" if src_name
                                  else "derived ConfigMap reference removed"),
                               w.item, kinds.dotted(path), proposed_value=src_name))
    return out


def retire(index: Index, items: list[Item], changes: Changes) -> list[Result]:
    """Derived ConfigMaps that nothing references any more are dropped."""
    out: list[Result] = []
    referenced: set[int] = set()
    for w in index.workloads:
        for path in w.spec.config_refs(w.data):
            ref = kinds.get(w.data, path)
            if isinstance(ref, str):
                found = index.configmap(w.namespace, ref)
                if found is not None:
                    referenced.add(found.index)
    for item in items:
        if is_derived(item) and item.index not in referenced:
            # Something other than a KAITO workload may use it too (a Deployment mounting it, say):
            # then it stays. A plain text search: derived names are long and hashed.
            user = index.mentioned_by(item.name)
            if user is not None:
                out.append(about(Severity.INFO, f"derived ConfigMap kept: {user.kind} {q(user.name)} "
                                                  "mentions it", item))
                continue
            changes.removed.add(item.index)
            changes.patches.pop(item.index, None)
            out.append(about(Severity.INFO, "derived ConfigMap no workload references any more: dropped",
                               item))
    return out

