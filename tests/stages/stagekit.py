"""Small inputs for the stage table tests: items from YAML text, the index over them, a stage's step."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

from krm_fn.model.changes import Plan, Step
from krm_fn.model.config import Settings
from krm_fn.model.index import Index, build_index
from krm_fn.text.reader import read_resource_list
from krm_fn.text.items import Item

SETTINGS = Settings()


def items(*docs: str) -> list[Item]:
    """The documents (YAML text at column 0) as the items of a ResourceList, in order."""
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    for doc in docs:
        lines = doc.strip("\n").splitlines()
        text += "- " + lines[0] + "\n" + "".join("  " + ln + "\n" for ln in lines[1:])
    return read_resource_list(text.encode()).items


def index(*docs: str) -> Index:
    return build_index(items(*docs))


def run(stage: Callable[[Index, Settings, Plan], Step], idx: Index, settings: Settings = SETTINGS,
        plan: Plan | None = None) -> Step:
    return stage(idx, settings, plan if plan is not None else Plan())


def messages(step: Step) -> list[tuple[str, str, str]]:
    """(id, severity, message) of each result, in order."""
    return [(r.id, r.severity.value, r.message) for r in step.results]


def workspace(name: str, *, annotation: str | None = None, preset: str = "phi-4", config: str | None = None,
              labels: dict[str, str] | None = None, namespace: str = "ns", extra: str = "") -> str:
    """A v1beta1 Workspace's YAML."""
    out = f"apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    if annotation is not None:
        out += f"  annotations:\n    kaito.sh/enable-speculative-decoding: \"{annotation}\"\n"
    if labels:
        out += "  labels:\n" + "".join(f"    {k}: {v}\n" for k, v in labels.items())
    out += "resource:\n  instanceType: Standard_NC24ads_A100_v4\n"
    out += f"inference:\n  preset:\n    name: {preset}\n"
    if config is not None:
        out += f"  config: {config}\n"
    return out + extra


def inferenceset(name: str, *, annotation: str | None = None, preset: str = "phi-4", config: str | None = None,
                 namespace: str = "ns") -> str:
    out = (f"apiVersion: kaito.sh/v1beta1\nkind: InferenceSet\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
           "spec:\n  replicas: 1\n  template:\n")
    if annotation is not None:
        out += f"    metadata:\n      annotations:\n        kaito.sh/enable-speculative-decoding: \"{annotation}\"\n"
    out += f"    resource:\n      instanceType: Standard_NC24ads_A100_v4\n    inference:\n      preset:\n        name: {preset}\n"
    if config is not None:
        out += f"      config: {config}\n"
    return out


def mri(name: str, *, annotations: dict[str, str] | None = None, model: str = "Qwen/Qwen3.5-9B",
        configs: tuple[str | None, str | None] = (None, None), namespace: str = "ns") -> str:
    out = f"apiVersion: kaito.sh/v1alpha1\nkind: MultiRoleInference\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    if annotations:
        out += "  annotations:\n" + "".join(f"    {k}: \"{v}\"\n" for k, v in annotations.items())
    out += f"spec:\n  model:\n    name: {model}\n  roles:\n"
    for role, config in zip(("prefill", "decode"), configs, strict=False):
        out += f"  - type: {role}\n    replicas: 1\n" + (f"    runtimeConfig: {config}\n" if config else "")
    return out


def configmap(name: str, inference_config: str | None = "vllm:\n  max-model-len: 4096\n", *, namespace: str = "ns",
              annotations: dict[str, str] | None = None, api_version: str = "v1") -> str:
    out = f"apiVersion: {api_version}\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    if annotations:
        out += "  annotations:\n" + "".join(f"    {k}: \"{v}\"\n" for k, v in annotations.items())
    if inference_config is None:
        return out + "data: {}\n"
    body = "".join("    " + ln + "\n" for ln in inference_config.splitlines())
    return out + "data:\n  inference_config.yaml: |\n" + body


def data(plan_or_step: Any, item: Item) -> Any:
    return Plan().then(plan_or_step).data_of(item)
