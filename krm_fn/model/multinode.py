"""Speculative decoding on a workload KAITO spreads over more than one node, where vLLM runs it with pipeline
parallelism (SD412, SD413; SD417, SD418 where the vLLM release refuses it: docs/findings.md says what vLLM
does there, vllm_releases.pipeline_verdict by release). A GPU partition (MIG, accelerator count) is left alone:
BYO, one slice per replica. Said once per workload and instance-type field: on the InferenceSet, not on the
Workspaces it creates; on the MultiRoleInference's role, not on its InferenceSets.
"""

from collections.abc import Callable, Sequence
from typing import Any

from ..domain import kinds
from ..domain.kinds import Path
from ..domain.kaito_sizing import explicit_max_model_len, gpus_of, model_of, nodes_per_replica, one_node_instance_type
from ..domain.vllm_releases import PipelineVerdict, pipeline_verdict
from ..domain.vllm_schema import beyond, named, parse_version, shown
from ..text.results import Result, finding
from .config import Settings
from .decisions import Decision, Inject, Override
from .index import Index
from .report import about

GATE_BYO = "disableNodeAutoProvisioning"

_RESOURCE: dict[str, Path] = {"Workspace": ("resource",), "InferenceSet": ("spec", "template", "resource")}


def multinode_warnings(index: Index, ds: Sequence[Decision], settings: Settings,
                       method_of: Callable[[Override], Any]) -> list[Result]:
    """One warning per multi-node workload (or role) whose speculative config runs there. `method_of(d)` is
    the method an Override hands vLLM (advice reads it, dotted keys included)."""
    children = _reported_on_parent(index)
    out, seen = [], set()
    for d in ds:
        if not isinstance(d, (Inject, Override)):
            continue
        w = d.workload
        if w.item.index in children or w.rewritten_by is not None:
            continue
        # Where the workload names its resources; a MultiRoleInference's role: beside this runtimeConfig.
        resource = d.path[:-1] if w.spec.kind == "MultiRoleInference" else _RESOURCE.get(w.spec.kind)
        if resource is None or (w.item.index, resource) in seen:
            continue
        seen.add((w.item.index, resource))
        method = d.method if isinstance(d, Inject) else method_of(d)
        found = _warning(d, resource, method if isinstance(method, str) and method else "this method", settings)
        if found is not None:
            out.append(found)
    return out


def _reported_on_parent(index: Index) -> set[int]:
    """The Workspaces of an InferenceSet in the list: KAITO creates them from its template."""
    return {c.item.index for w in index.workloads if w.spec.kind == "InferenceSet"
            for c in index.children(w, "Workspace")}


def _warning(d: Decision, resource: Path, method: str, settings: Settings) -> Result | None:
    w = d.workload
    data = w.effective
    if kinds.get(data, resource + ("partition",)) is not None:
        return None
    instance_type = kinds.get(data, resource + ("instanceType",))
    preset = kinds.preset_name(w.spec, data) or ""
    gpus = None if settings.feature_gates.get(GATE_BYO, False) else gpus_of(instance_type)
    model = model_of(preset)
    if gpus is not None and model is not None:
        max_model_len = explicit_max_model_len(d.inference_config())
        nodes = nodes_per_replica(model, gpus, max_model_len)
        if nodes is None or nodes < 2:
            return None
        alt = one_node_instance_type(model, gpus, max_model_len)
        extra: dict[str, Any] = {} if alt is None else {"proposed_value": alt}
        verdict = _pipeline(settings, method)
        field = kinds.dotted(resource + ("instanceType",))
        values: dict[str, Any] = {"model": model.name, "nodes": nodes, "instance_type": gpus.instance_type,
                                  "verdict": verdict.text, "such_as": f" (such as {alt})" if alt else ""}
        found = finding("SD417", field, **values) if verdict.refuses else finding("SD412", field, **values)
        return about(found, w.item, **extra)
    count = kinds.get_int(data, resource + ("count",)) if w.spec.kind == "Workspace" else None
    if count is not None and count > 1:
        verdict = _pipeline(settings, method)
        field = "resource.count"
        found = (finding("SD418", field, count=count, verdict=verdict.text) if verdict.refuses
                 else finding("SD413", field, count=count, verdict=verdict.text))
        return about(found, w.item)
    return None


def _pipeline(settings: Settings, method: str) -> PipelineVerdict:
    """What the vLLM release (vllmVersion's, else the kaitoVersion image's) does with speculative decoding under
    pipeline parallelism: the same verdict, with the same weight, as for a plain workload's
    --pipeline-parallel-size (vllm_releases)."""
    version = parse_version(settings.vllm_version)
    # KAITO runs a multi-node Workspace with Ray: `p.VLLM.ModelRunParams["distributed-executor-backend"] =
    # "ray"` (pkg/model/interface.go:571 at v0.12.0, :513 at v0.11.0, :427 at v0.10.0), and sets no VLLM_USE_V1.
    known = beyond(version)
    if known is not None:  # newer than every release modelled: the newest one's verdict, named as its own
        return pipeline_verdict(
            known, f"vLLM {named(known)} (the newest release modelled; the vllmVersion setting names {shown(version)})",
            "ray", None, method)
    return pipeline_verdict(version, f"vLLM {shown(version)} (the vllmVersion setting)" if settings.vllm_version_set
                            else f"vLLM {shown(version)}", "ray", None, method)
