"""Findings about decisions that change nothing: user overrides vLLM or KAITO would refuse, roles that
disagree, spellings KAITO does not see, workloads with nothing to configure."""
from __future__ import annotations

import json

from . import kinds
from .decide import BROKEN, INJECT, OVERRIDE, Decision
from .index import Index
from .inference_config import DATA_KEY, InferenceConfigError, inspect
from .report import about, q
from .results import Result, Severity


def override_checks(ds: list[Decision]) -> list[Result]:
    """A user's own speculative-config must be a JSON object in a string, or the pods never start."""
    out, seen = [], set()
    for d in ds:
        if d.action != OVERRIDE or d.source is None or d.source.index in seen:
            continue
        seen.add(d.source.index)
        value = d.override_value
        if not isinstance(value, str):
            out.append(about(Severity.ERROR, "vllm.speculative-config must be a JSON string (quote it: "
                                               "speculative-config: '{\"method\": …}'); KAITO's webhook "
                                               "rejects a YAML mapping or any other value",
                               d.source, f"data[{DATA_KEY}]"))
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            out.append(about(Severity.WARNING, f"vllm.speculative-config {q(value)} is not a JSON object; "
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
        out.append(about(Severity.WARNING, "the roles get different speculative configs (" + roles + "); "
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
                out.append(about(Severity.WARNING,
                                   "vllm.speculative_config (with an underscore) is not what KAITO checks for "
                                   "a user override, so speculative-config is injected too and vLLM gets both "
                                   "flags; rename it to speculative-config to override", d.source, f"data[{DATA_KEY}]"))
        except InferenceConfigError:
            pass
    return out


def no_roles(index: Index) -> list[Result]:
    """An enabled MultiRoleInference without roles has nothing to configure (KAITO would refuse it anyway)."""
    return [about(Severity.WARNING, "has no spec.roles: there is no runtimeConfig to give a speculative config",
                    w.item, "spec.roles")
            for w in index.workloads if w.enabled and w.spec.kind == "MultiRoleInference"
            and not w.spec.config_refs(w.data)]

