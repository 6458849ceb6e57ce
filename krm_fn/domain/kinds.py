"""Per KAITO kind: where the annotation, the preset name, the config references and the runtime live.

This table is the only place in the code that knows those paths.
"""

import math
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..text.patch import Op
from ..text.pointer import build as pointer  # the JSON Pointer of a path, for the stages that think in paths
from . import constants as C
from .pod_names import PodNaming

Path = tuple[str | int, ...]  # str keys and int indexes


class KindSpec(NamedTuple):
    kind: str
    api_versions: tuple[str, ...]
    annotations: Path          # the mapping that holds the opt-in and the runtime annotation
    preset: Path               # the preset (model) name
    config_refs: Callable[[Any], list[Path]]  # the config reference paths present in an object
    pods: PodNaming            # how its pods are named (the PrometheusRule selects them by name)
    inference: Path | None = None      # the Workspace-shaped `inference` (None: no such field)

    @property
    def annotation_field(self) -> str:
        return dotted(self.annotations) + f"[{C.ENABLE_ANNOTATION}]"


def get(data: Any, path: Path) -> Any:
    for part in path:
        if isinstance(part, int):
            if not isinstance(data, list) or part >= len(data):
                return None
        elif not isinstance(data, dict):
            return None
        data = data[part] if isinstance(part, int) else data.get(part)
    return data


def integer(value: Any) -> int | None:
    """The integer an integer field of the cluster gets from `value` as read from YAML, or None (not a number,
    or not a whole one). kubectl converts YAML to JSON with encoding/json, which writes a float64 that is whole
    without a fraction (`2.0`, `2e0`, `!!float 2`, `-1.0` are sent as `2`, `2`, `2`, `-1`; sigs.k8s.io/yaml
    yaml.go `YAMLToJSON` -> `json.Marshal`), and kustomize writes them back the same (`replicas: 2`): every
    check reads an integer field through this, as the API server and KAITO's controllers get it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def get_int(data: Any, path: Path) -> int | None:
    """The integer at `path` as the cluster reads it (`integer`), or None."""
    return integer(get(data, path))


def not_whole(value: Any) -> bool:
    """A number kubectl sends with a fraction (`2.5`): the API server refuses it for an integer field (a
    typed field: encoding/json's "cannot unmarshal number 2.5 into Go struct field … of type int32"; a
    CRD's `type: integer`: "must be of type integer")."""
    return isinstance(value, float) and math.isfinite(value) and not value.is_integer()


def integer_fields(spec_kind: str, data: Any) -> Iterator[Path]:
    """The integer fields of a KAITO kind that the checks read (`integer`), present or not."""
    if spec_kind == "Workspace":
        yield ("resource", "count")
    elif spec_kind == "InferenceSet":
        yield ("spec", "replicas")
    elif spec_kind == "MultiRoleInference":
        roles = get(data, ("spec", "roles"))
        for i in range(len(roles) if isinstance(roles, list) else 0):
            yield ("spec", "roles", i, "replicas")


def dotted(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (("." if out else "") + part)
    return out


def _roles(data: Any) -> list[Path]:
    roles = get(data, ("spec", "roles"))
    if not isinstance(roles, list):
        return []
    return [("spec", "roles", i, "runtimeConfig") for i, r in enumerate(roles) if isinstance(r, dict)]


WORKSPACE = KindSpec(
    kind="Workspace",
    api_versions=("kaito.sh/v1beta1", "kaito.sh/v1alpha1"),
    annotations=("metadata", "annotations"),
    preset=("inference", "preset", "name"),
    config_refs=lambda data: [("inference", "config")] if isinstance(get(data, ("inference",)), dict) else [],
    pods=PodNaming.WORKSPACE,
    inference=("inference",),
)

INFERENCESET = KindSpec(
    kind="InferenceSet",
    api_versions=("kaito.sh/v1beta1", "kaito.sh/v1alpha1"),
    annotations=("spec", "template", "metadata", "annotations"),
    preset=("spec", "template", "inference", "preset", "name"),
    config_refs=lambda data: ([("spec", "template", "inference", "config")]
                              if isinstance(get(data, ("spec", "template", "inference")), dict) else []),
    pods=PodNaming.INFERENCESET,
    inference=("spec", "template", "inference"),
)

MULTIROLEINFERENCE = KindSpec(
    kind="MultiRoleInference",
    api_versions=("kaito.sh/v1alpha1",),
    annotations=("metadata", "annotations"),
    preset=("spec", "model", "name"),
    config_refs=_roles,
    pods=PodNaming.MULTIROLEINFERENCE,
)

KINDS = (WORKSPACE, INFERENCESET, MULTIROLEINFERENCE)
_BY_KIND = {k.kind: k for k in KINDS}


def spec_for(api_version: str, kind: str) -> KindSpec | None:
    spec = _BY_KIND.get(kind)
    return spec if spec is not None and api_version in spec.api_versions else None


def preset_name(spec: KindSpec, data: Any) -> str | None:
    """The preset name, when there is one. `inference.template` beside a preset does not hide the preset:
    KAITO then refuses the pair ("Preset and Template cannot be set at the same time"), not the preset."""
    name = get(data, spec.preset)
    return name if isinstance(name, str) and name else None


def runtime(spec: KindSpec, data: Any, vllm_gate: bool = True) -> str:
    """KAITO's effective runtime (GetWorkspaceRuntimeName): "transformers" when the vLLM feature gate is
    off or the runtime annotation is exactly "transformers", vLLM otherwise."""
    if not vllm_gate:
        return C.RUNTIME_TRANSFORMERS
    ann = get(data, spec.annotations)
    value = ann.get(C.RUNTIME_ANNOTATION) if isinstance(ann, dict) else None
    return C.RUNTIME_TRANSFORMERS if value == C.RUNTIME_TRANSFORMERS else C.RUNTIME_VLLM


def set_ops(data: Any, path: Path, value: Any) -> list[Op]:
    """JSON Patch that sets `path` to `value`, creating missing parent mappings in one `add`."""
    for depth in range(len(path) - 1):
        if not isinstance(get(data, path[: depth + 1]), (dict, list)):
            nested: Any = value
            for key in reversed(path[depth + 1:]):
                nested = {key: nested}
            return [{"op": "add", "path": pointer(path[: depth + 1]), "value": nested}]
    current = get(data, path)
    if current == value and (current is not None or _has(data, path)):
        return []
    return [{"op": "add", "path": pointer(path), "value": value}]


def not_a_mapping(data: Any, path: Path) -> Path | None:
    """The first prefix of `path` (of string keys) that is present but not a mapping, or None."""
    for depth in range(len(path)):
        value = get(data, path[: depth + 1])
        if value is None:
            return None
        if not isinstance(value, dict):
            return path[: depth + 1]
    return None


def remove_ops(data: Any, path: Path) -> list[Op]:
    """JSON Patch that removes `path`; drops the parent mapping too when it would be left empty."""
    parent = get(data, path[:-1])
    if not isinstance(parent, dict) or path[-1] not in parent:
        return []
    if len(parent) == 1 and len(path) > 1 and isinstance(path[-2], str) and path[-2] == "annotations":
        return [{"op": "remove", "path": pointer(path[:-1])}]
    return [{"op": "remove", "path": pointer(path)}]


def _has(data: Any, path: Path) -> bool:
    parent = get(data, path[:-1])
    return isinstance(parent, dict) and path[-1] in parent
