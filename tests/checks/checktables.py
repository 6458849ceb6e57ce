"""Table tests per check (one file per module under krm_fn/checks/): a workload from a few lines of YAML."""
from __future__ import annotations

from krm_fn.model.config import Settings, resolve_settings
from krm_fn.model.index import Workload, build_index
from krm_fn.text.reader import read_stream


def make_workload(text: str) -> Workload:
    """The one KAITO workload in `text` (a manifest), as the index reads it."""
    workloads = build_index(read_stream([("w.yaml", text.encode())]).items).workloads
    assert len(workloads) == 1, text
    return workloads[0]


def settings(**data: str) -> Settings:
    return resolve_settings({"kind": "ConfigMap", "data": data}, {})


def ws(annotation: str = '"true"', inference: str = "  preset:\n    name: phi-4\n", extra: str = "",
       api: str = "kaito.sh/v1beta1") -> str:
    """A Workspace with the opt-in annotation written as `annotation` (None: no annotation)."""
    notes = f"  annotations:\n    kaito.sh/enable-speculative-decoding: {annotation}\n" if annotation else ""
    return (f"apiVersion: {api}\nkind: Workspace\nmetadata:\n  name: ws\n{notes}"
            f"{'inference:' + chr(10) + inference if inference else ''}{extra}")


def iset(preset: str = "phi-4", api: str = "kaito.sh/v1beta1", inference_extra: str = "") -> str:
    name = f"\n          name: {preset}" if preset is not None else ""
    return (f"apiVersion: {api}\nkind: InferenceSet\nmetadata:\n  name: is\nspec:\n  template:\n    metadata:\n"
            f"      annotations:\n        kaito.sh/enable-speculative-decoding: \"true\"\n    inference:\n"
            f"      preset:{name if preset is not None else ' {}'}\n{inference_extra}")


def mri(model: str | None = "phi-4", roles: str = "  - type: prefill\n  - type: decode\n") -> str:
    spec_model = f"  model:\n    name: {model}\n" if model is not None else ""
    return (f"apiVersion: kaito.sh/v1alpha1\nkind: MultiRoleInference\nmetadata:\n  name: m\n  annotations:\n"
            f"    kaito.sh/enable-speculative-decoding: \"true\"\nspec:\n{spec_model}  roles:\n{roles}")
