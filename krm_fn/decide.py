"""Per enabled workload and config reference: what KAITO would inject, and why (SPEC.md section 4, 5.3a).

A referenced ConfigMap KAITO could not read is an error in KAITO's words (checks/inference_configmap.py).
Any spelling vLLM reads as `--speculative-config` is the user's override: `speculative-config`,
`speculative_config` (vLLM's argparse turns `_` into `-`) and dotted `speculative-config.<field>` keys;
KAITO appends the ConfigMap's flags after its own, so in the cluster the user's value wins.
A MultiRoleInference's child InferenceSet is decided as KAITO's controller will have rewritten it
(`Workload.effective`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import constants as C
from . import kinds
from .derived import FROM_NOTHING, FROM_SOURCE
from .index import Index, Workload, is_derived
from .checks import inference_configmap
from .inference_config import InferenceConfigError, inspect
from .kinds import Path
from .presets import DEFAULT_TABLE, PresetTable, Resolution, resolve
from .reader import Item, ItemError

INJECT = "inject"          # write a derived ConfigMap and point the reference at it
OVERRIDE = "override"      # the user's ConfigMap already sets speculative-config
NOT_VISIBLE = "not-visible"  # the referenced ConfigMap is not in the list: KAITO decides in the cluster
BROKEN = "broken"          # the referenced ConfigMap's inference_config.yaml cannot be read
DOTTED = object()          # an override by dotted keys only (speculative-config.method: …): no one value


@dataclass(frozen=True)
class Decision:
    workload: Workload
    path: Path                 # the config reference field
    current: str | None        # what the reference says now
    source_name: str | None    # the user's ConfigMap behind it (through a derived one, if any)
    source: Item | None
    action: str
    via_derived: bool = False  # the reference names one of our derived ConfigMaps
    json: str = ""
    method: str = ""
    why: str = ""              # in words: where the config came from
    detail: str = ""
    override_value: Any = None  # the user's vllm.speculative-config, for an OVERRIDE
    derived_found: bool = False  # via_derived, and that derived ConfigMap is in the input
    problem_field: str = ""    # BROKEN: the ConfigMap field KAITO refuses
    other_spellings: tuple[str, ...] = ()  # OVERRIDE: speculative_config, speculative-config.<field> …
    override_keys: tuple[str, ...] = ()  # OVERRIDE: every key under vllm that sets the flag


def source_of(index: Index, namespace: str, ref: str | None) -> tuple[str | None, Item | None, bool]:
    """(source name as recorded, source item, whether `ref` names one of our derived ConfigMaps)."""
    if ref is None:
        return None, None, False
    item = index.configmap(namespace, ref)
    if item is not None and is_derived(item):
        src = item.annotation(C.SOURCE_ANNOTATION)
        return src, (index.source(namespace, src) if src else None), True
    if item is None:
        # Our name pattern, but the object is gone (deleted, or retired by a subpackage's own pipeline):
        # still ours, to regenerate or to revert.
        m = FROM_SOURCE.fullmatch(ref)
        if m:
            return m.group("source"), index.source(namespace, m.group("source")), True
        if FROM_NOTHING.fullmatch(ref):
            return None, None, True
    # Under kustomize the reference may still use a previous name; keep it as written (kustomize fixes
    # references after the function runs), so disabling restores exactly what the user wrote.
    return ref, item, False


def restored_name(index: Index, namespace: str, source_name: str | None, source: Item | None) -> str | None:
    """The reference to put back: the source as recorded, or its name now if only kustomize's generated
    name (`<name>-<hash>`) is in the input."""
    if source is not None and source_name and index.configmap(namespace, source_name) is None:
        return source.name
    return source_name


def decide(index: Index, w: Workload, path: Path, table: PresetTable) -> Decision:
    current = kinds.get(w.effective, path)
    current = current if isinstance(current, str) and current else None
    src_name, src, via = source_of(index, w.namespace, current)
    preset = kinds.preset_name(w.spec, w.effective) or ""
    if src_name is not None and src is None:
        return Decision(w, path, current, src_name, None, NOT_VISIBLE, via,
                        derived_found=via and index.configmap(w.namespace, current or "") is not None)
    if src is not None:
        try:
            whole = src.data()
        except ItemError as exc:
            return Decision(w, path, current, src_name, src, BROKEN, via,
                            detail=f"the ConfigMap cannot be read: {exc}")
        v1alpha1_workspace = w.spec is kinds.WORKSPACE and w.item.api_version == "kaito.sh/v1alpha1"
        refused = inference_configmap.problem(whole, max_model_len=not v1alpha1_workspace)
        if refused is not None:
            return Decision(w, path, current, src_name, src, BROKEN, via, detail=refused[0],
                            problem_field=refused[1])
        try:
            found = inspect(whole["data"][inference_configmap.DATA_KEY])
        except InferenceConfigError as exc:
            return Decision(w, path, current, src_name, src, BROKEN, via, detail=str(exc))
        if found.overrides:
            return Decision(w, path, current, src_name, src, OVERRIDE, via,
                            override_value=found.speculative_config_value if found.has_speculative_config
                            else found.underscore_value if found.has_underscore_spelling else DOTTED,
                            other_spellings=found.other_spellings,
                            override_keys=(("speculative-config",) if found.has_speculative_config else ())
                            + found.other_spellings)
    res = resolve(preset, table)
    return Decision(w, path, current, src_name, src, INJECT, via, json=res.json, method=res.method,
                    why=_why(res, table))


def _why(res: Resolution, table: PresetTable) -> str:
    default = DEFAULT_TABLE.tuned.get(res.canonical)
    if res.tuned:
        if default is not None and table.tuned[res.canonical] == default:
            return "is KAITO-tuned"
        return "is tuned by the tunedPresets setting"
    if table.fallback == DEFAULT_TABLE.fallback:
        return "has no KAITO-tuned config (universal fallback)"
    return "has no tuned config (the ngramFallback setting)"
