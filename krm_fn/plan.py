"""Decisions -> changes: cascade, validation, decisions, derived ConfigMaps, reverts, retirements.

Every stage reads the index and returns results (and JSON Patch ops); nothing here does I/O.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

import jsonpatch
import yaml

from . import constants as C
from . import kinds
from .checks import CHECKS
from .config import Settings
from .decide import BROKEN, INJECT, NOT_VISIBLE, OVERRIDE, Decision, decide, restored_name, source_of
from .derived import build, comparable, with_location
from .index import ABSENT, Index, Workload, build_index, is_derived, ref_of
from .inference_config import DATA_KEY, InferenceConfigError, inspect
from .reader import Item, ItemError, child as child_node, scalar
from .results import Result, Severity, has_errors
from .writer import Changes


def q(value: object) -> str:
    """A name in a message, quoted as KAITO quotes it."""
    return json.dumps(value, ensure_ascii=False)


def _result(severity: Severity, message: str, item: Item, field: str = "", **values) -> Result:
    path, index = item.file()
    return Result(severity, message, ref_of(item), field_path=field, file_path=path, file_index=index,
                  **values)


# --- shape ------------------------------------------------------------------------------------------

def shape_errors(items: list[Item]) -> list[Result]:
    """Items a Kubernetes API would refuse: not a mapping, or without apiVersion, kind, metadata.name."""
    out = []
    for item in items:
        mark = item.node.start_mark
        where = (f"{item.origin}: document {item.origin_index}" if item.origin else f"items[{item.index}]") \
            + f" (line {mark.line + 1}, column {mark.column + 1})"
        path, index = item.file()
        if not item.is_mapping:
            out.append(Result(Severity.ERROR, f"{where} is not a mapping; every item must be a "
                                              "Kubernetes object", file_path=path, file_index=index))
            continue
        dup = _duplicate_key(item.node)
        if dup is not None:
            key, first = dup
            out.append(Result(Severity.ERROR, f"{where}: the key {q(key.value)} appears twice (line "
                                              f"{first.start_mark.line + 1} and line {key.start_mark.line + 1}); "
                                              "Kubernetes refuses such a document", ref_of(item),
                              file_path=path, file_index=index))
            continue
        fields = [("apiVersion", item.api_version), ("kind", item.kind)]
        if _needs_name(item):
            fields.append(("metadata.name", item.name))
        missing = [f for f, v in fields if not v]
        if missing:
            out.append(Result(Severity.ERROR, f"{where} has no {missing[0]} (a non-empty string)",
                              ref_of(item), field_path=missing[0], file_path=path, file_index=index))
    return out


def _duplicate_key(node: yaml.Node) -> tuple[yaml.Node, yaml.Node] | None:
    """(second key, first key) of the first mapping in `node` that has a key twice (YAML forbids it;
    PyYAML keeps the last silently, kubectl refuses the document)."""
    stack, seen_nodes = [node], set()
    while stack:
        current = stack.pop()
        if id(current) in seen_nodes:  # an alias: already checked
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            keys: dict[str, yaml.Node] = {}
            for k, v in current.value:
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    if k.value in keys and keys[k.value].tag == k.tag:
                        return k, keys[k.value]
                    keys[k.value] = k
                stack.append(v)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return None


def duplicates(items: list[Item]) -> list[Result]:
    """The same object twice (a file given twice, a copy-paste): kustomize would reject the output, kpt
    would write both, a cluster would keep one of them."""
    seen: dict[tuple[str, str, str, str], Item] = {}
    out = []
    for item in items:
        if not (item.is_mapping and item.kind and item.name):
            continue
        key = (item.api_version.split("/")[0] if "/" in item.api_version else "", item.kind, item.namespace,
               item.name)
        first = seen.setdefault(key, item)
        if first is not item:
            where = first.file()[0] or f"items[{first.index}]"
            out.append(_result(Severity.WARNING, f"the same object as {where} (kind, namespace and name): "
                                                 "one of them would be lost", item))
    return out


def _needs_name(item: Item) -> bool:
    """A name is required of what a cluster stores, not of a kustomization.yaml or other local config
    (kpt passes those as items too) nor of an object named by `metadata.generateName`."""
    if item.api_version.startswith(C.KUSTOMIZE_GROUP + "/") or \
            item.annotation(C.LOCAL_CONFIG_ANNOTATION) == "true":
        return False
    return scalar(child_node(child_node(item.node, "metadata"), "generateName")) is None


# --- cascade ------------------------------------------------------------------------------------------

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
                out.append(_result(Severity.WARNING, f"claimed by {names} (labels or ownerReferences), which "
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
        ops = kinds.set_ops(child.data, path, parent.value)
        told = f"set to {q(parent.value)} from"
    changes.patch(child.item.index, ops)
    child.data = jsonpatch.apply_patch(child.data, ops)
    child.value = parent.value
    return [_result(Severity.INFO, f"annotation {C.ENABLE_ANNOTATION} {told} {parent.spec.kind} {q(parent.name)} "
                                   f"(KAITO propagates it to the {child.spec.kind}s it creates)",
                    child.item, child.spec.annotation_field,
                    proposed_value=None if parent.value is ABSENT else parent.value)]


# --- validation -------------------------------------------------------------------------------------

def validate(index: Index) -> list[Result]:
    out = []
    for w in index.workloads:
        if w.value is ABSENT or w.value == "false":
            continue
        for check in CHECKS:
            message = check.check(w)
            if message is not None:
                out.append(_result(Severity.ERROR, message, w.item, w.spec.annotation_field,
                                   current_value=w.value))
                break
    return out


# --- decisions --------------------------------------------------------------------------------------

def decisions(index: Index, settings: Settings) -> list[Decision]:
    return [decide(index, w, path, settings.presets)
            for w in index.workloads if w.enabled for path in w.spec.config_refs(w.data)]


def _describe(d: Decision, target: str) -> str:
    preset = kinds.preset_name(d.workload.spec, d.workload.data)
    why = d.why
    where = (f"derived from ConfigMap {q(d.source_name)}" if d.source_name
             else "new, as the workload referenced none")
    return f"speculative decoding: preset {q(preset)} {why}: speculative-config {d.json} " \
           f"in ConfigMap {q(target)} ({where})"


def decision_result(d: Decision, target: str | None) -> Result:
    field = kinds.dotted(d.path)
    item = d.workload.item
    if d.action == INJECT:
        return _result(Severity.INFO, _describe(d, target or ""), item, field, proposed_value=target)
    if d.action == OVERRIDE and d.via_derived:
        return _result(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} now sets "
                                      "vllm.speculative-config itself (a user override): the reference goes back "
                                      "to it", item, field, proposed_value=d.source_name)
    if d.action == OVERRIDE:
        return _result(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} already sets "
                                      f"vllm.speculative-config (a user override); left unchanged",
                       item, field)
    if d.action == NOT_VISIBLE and d.via_derived:
        gone = "is in the input, but" if d.derived_found else "is not in the input, and"
        return _result(Severity.WARNING, f"speculative decoding: the derived ConfigMap {q(d.current)} {gone} its "
                                         f"source ConfigMap {q(d.source_name)} is not: cannot regenerate it; left "
                                         "unchanged", item, field)
    if d.action == NOT_VISIBLE:
        return _result(Severity.WARNING, f"speculative decoding: ConfigMap {q(d.source_name)} is not in the "
                                         "input, so whether it overrides vllm.speculative-config cannot be "
                                         "seen here; left unchanged, KAITO decides in the cluster",
                       item, field)
    assert d.action == BROKEN and d.source is not None
    return _result(Severity.ERROR, f"ConfigMap {q(d.source_name)} referenced by {d.workload.spec.kind} "
                                   f"{q(d.workload.name)}: {d.detail}", d.source, f"data[{DATA_KEY}]")


def override_checks(ds: list[Decision]) -> list[Result]:
    """A user's own speculative-config must be a JSON object in a string, or the pods never start."""
    out, seen = [], set()
    for d in ds:
        if d.action != OVERRIDE or d.source is None or d.source.index in seen:
            continue
        seen.add(d.source.index)
        value = d.override_value
        if not isinstance(value, str):
            out.append(_result(Severity.ERROR, "vllm.speculative-config must be a JSON string (quote it: "
                                               "speculative-config: '{\"method\": …}'); KAITO's webhook "
                                               "rejects a YAML mapping or any other value",
                               d.source, f"data[{DATA_KEY}]"))
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            out.append(_result(Severity.WARNING, f"vllm.speculative-config {q(value)} is not a JSON object; "
                                                 "vLLM refuses to start with it", d.source, f"data[{DATA_KEY}]"))
    return out


def role_mismatches(ds: list[Decision]) -> list[Result]:
    """Prefill/decode disaggregation: a model-based method must be configured alike on every role."""
    by_workload: dict[int, list[Decision]] = {}
    for d in ds:
        if d.workload.spec.kind == "MultiRoleInference":
            by_workload.setdefault(d.workload.item.index, []).append(d)
    out = []
    for group in by_workload.values():
        configs = {_effective(d) for d in group} - {None}
        if len(configs) < 2:
            continue
        methods = {_method(c) for c in configs}
        if methods <= {"ngram", "ngram_gpu", "suffix"}:
            continue  # draft-free methods may differ (ngram may even run on decode alone)
        roles = ", ".join(f"{kinds.dotted(d.path)}: {_effective(d)}" for d in group if _effective(d))
        out.append(_result(Severity.WARNING, "the roles get different speculative configs (" + roles + "); "
                                             "vLLM needs a model-based method configured identically on the "
                                             "prefill and the decode side", group[0].workload.item))
    return out


def _effective(d: Decision) -> str | None:
    if d.action == INJECT:
        return d.json
    if d.action == OVERRIDE and isinstance(d.override_value, str):
        return d.override_value
    return None


def _method(config: str) -> str:
    try:
        value = json.loads(config)
    except ValueError:
        return ""
    return str(value.get("method", "")) if isinstance(value, dict) else ""


def underscore_warnings(index: Index, ds: list[Decision]) -> list[Result]:
    """vLLM reads `speculative_config` too, but KAITO does not see it as an override: both flags reach vLLM."""
    out, seen = [], set()
    for d in ds:
        if d.source is None or d.source.index in seen or d.action == BROKEN:
            continue
        seen.add(d.source.index)
        text = ((d.source.data() or {}).get("data") or {}).get(DATA_KEY)
        try:
            if inspect(text).has_underscore_spelling:
                out.append(_result(Severity.WARNING,
                                   "vllm.speculative_config (with an underscore) is not what KAITO checks for "
                                   "a user override, so speculative-config is injected too and vLLM gets both "
                                   "flags; rename it to speculative-config to override", d.source, f"data[{DATA_KEY}]"))
        except InferenceConfigError:
            pass
    return out


# --- materialization -----------------------------------------------------------------------------------

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
            out.append(_result(Severity.ERROR, f"ConfigMap {q(d.source_name)}: {exc}", d.source or w.item,
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
        changes.added.append((w.item.index, with_location(cm, w.item.annotations(), placed.taken)))
        return []
    placed.reused.add(existing.index)
    if not is_derived(existing):
        return [_result(Severity.ERROR, f"ConfigMap {q(name)} exists and is not one this function derived; "
                                        "rename it", existing)]
    problem = _read_error(existing)
    if problem:
        return [_result(Severity.ERROR, f"derived ConfigMap {q(name)} cannot be read: {problem}; delete it "
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
        return [_result(Severity.WARNING, f"derived ConfigMap {q(name)} differs from what its source gives "
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
                out.append(_result(Severity.WARNING, f"speculative decoding is disabled, but the derived ConfigMap "
                                                     f"{q(current)} and its source {q(src_name)} are not in the "
                                                     "input: set the reference by hand", w.item, kinds.dotted(path)))
                continue
            src_name = restored_name(index, w.namespace, src_name, src)
            _point(changes, w, path, src_name)
            out.append(_result(Severity.INFO, "speculative decoding is disabled: "
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
    workloads = {w.item.index for w in index.workloads}
    for item in items:
        if is_derived(item) and item.index not in referenced:
            # Something other than a KAITO workload may use it too (a Deployment mounting it, say):
            # then it stays. A plain text search: derived names are long and hashed.
            user = next((o for o in items if o.index not in workloads and o is not item and not is_derived(o)
                         and re.search(rf"(?<![\w.-]){re.escape(item.name)}(?![\w.-])", o.region)), None)
            if user is not None:
                out.append(_result(Severity.INFO, f"derived ConfigMap kept: {user.kind} {q(user.name)} "
                                                  "mentions it", item))
                continue
            changes.removed.add(item.index)
            changes.patches.pop(item.index, None)
            out.append(_result(Severity.INFO, "derived ConfigMap no workload references any more: dropped",
                               item))
    return out


def _not_written(result: Result, why: str) -> Result:
    """A result that describes a change says so when the change is not made (validate mode, or errors)."""
    return replace(result, message=f"{result.message} [not written: {why}]")


def no_roles(index: Index) -> list[Result]:
    """An enabled MultiRoleInference without roles has nothing to configure (KAITO would refuse it anyway)."""
    return [_result(Severity.WARNING, "has no spec.roles: there is no runtimeConfig to give a speculative config",
                    w.item, "spec.roles")
            for w in index.workloads if w.enabled and w.spec.kind == "MultiRoleInference"
            and not w.spec.config_refs(w.data)]


# --- the whole plan ---------------------------------------------------------------------------------

def plan(items: list[Item], settings: Settings) -> tuple[Changes, list[Result]]:
    """Read-only over the items: the changes to make (none when anything is in error) and every result."""
    problems = shape_errors(items) + duplicates(items)
    index = build_index(items)
    problems += [_result(Severity.ERROR, f"cannot be read as a Kubernetes object: {why}", item)
                 for item, why in index.unreadable]
    changes = Changes()
    cascaded = cascade(index, changes)
    problems += validate(index)
    if has_errors(problems):
        return Changes(), problems + [_not_written(r, "errors") for r in cascaded]
    ds = decisions(index, settings)
    made, targets = materialize(index, ds, changes)
    told = [decision_result(d, targets.get(i)) for i, d in enumerate(ds)]
    reverted, retired = revert(index, changes), retire(index, items, changes)
    findings = made + override_checks(ds) + role_mismatches(ds) + underscore_warnings(index, ds) + no_roles(index)
    results = problems + cascaded + told + findings + reverted + retired
    why = "errors" if has_errors(results) else None if settings.materialize else "mode validate"
    if why is None:
        return changes, results
    # What describes a change that is now not made says so.
    changed = {id(r) for r in cascaded + retired}
    changed |= {id(r) for r in reverted if r.severity is Severity.INFO}
    changed |= {id(r) for r, d in zip(told, ds) if d.action == INJECT or (d.action == OVERRIDE and d.via_derived)}
    return Changes(), [_not_written(r, why) if id(r) in changed else r for r in results]
