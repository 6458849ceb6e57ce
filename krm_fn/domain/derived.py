"""Derived ConfigMaps: a copy of the user's inference ConfigMap carrying the speculative config.

The name ends in a hash of the content, so any change of content changes the workload's reference
and therefore rolls its pods (KAITO hashes `inference`; it does not watch ConfigMap content).
"""

import base64
import copy
import hashlib
import itertools
import json
import posixpath
import re
from collections.abc import Iterator
from typing import Any

from ..text import krm
from ..text.patch import Op, diff
from . import constants as C
from .inference_config import DATA_KEY, with_speculative_config

MAX_NAME = 253
HASH_LEN = 10
# Annotations that belong to one object in one orchestrator run, never to a copy.
_NOT_COPIED = (krm.INTERNAL_PREFIX, "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/",
               "kubectl.kubernetes.io/last-applied-configuration", "kaito-specdec.dev/", krm.TRANSFORMER_ANNOTATION)


def _keys_as_str(data: Any) -> Any:
    # JSON sorts keys only when they are all strings; Kubernetes keys are, a hand-written `1:` is not.
    if isinstance(data, dict):
        return {str(k): _keys_as_str(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_keys_as_str(v) for v in data]
    return data


def content_hash(content: dict[str, Any]) -> str:
    canonical = json.dumps(_keys_as_str(content), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:HASH_LEN]


_NOT_DNS = r"[^a-z0-9.-]+"
_RAGGED_DOTS = r"[.-]*\.[.-]*"  # `..`, `.-`, `-.` would leave an empty or ragged label


def _dns_part(text: str, limit: int) -> str:
    """Lower-case alphanumerics, '-' and '.', every dot-separated label starting and ending alphanumeric."""
    text = re.sub(_RAGGED_DOTS, ".", re.sub(_NOT_DNS, "-", text.lower()))
    return text[:limit].strip("-.")


# What derived_name() makes, to recognise a reference to a derived ConfigMap that is not in the input
# (deleted by hand, or retired by a subpackage's own kpt pipeline): `<source>-specdec-<hash>` …
FROM_SOURCE = r"(?P<source>.+)-specdec-[0-9a-f]{10}"
# … or `specdec-<method>-<hash>`.
FROM_NOTHING = r"specdec-[a-z0-9.-]+-[0-9a-f]{10}"


def metadata(name: str, namespace: str, labels: dict[str, Any], annotations: dict[str, Any]) -> dict[str, Any]:
    """A derived object's metadata, without an empty namespace or labels (its annotations are never empty)."""
    fields = (("name", name), ("namespace", namespace), ("labels", labels), ("annotations", annotations))
    return {key: value for key, value in fields if value}


def derived_name(source: str | None, method: str, content: dict[str, Any]) -> str:
    """`<source>-specdec-<hash>` or `specdec-<method>-<hash>`, cut to a 253-character DNS subdomain."""
    suffix = f"-specdec-{content_hash(content)}"
    if source:
        return (_dns_part(source, MAX_NAME - len(suffix)) or "config") + suffix
    return "specdec-" + (_dns_part(method.replace(".", "-"), 40) or "config") + f"-{content_hash(content)}"


def build(source: dict[str, Any] | None, source_name: str | None, namespace: str, json_text: str,
          method: str) -> dict[str, Any]:
    """The derived ConfigMap's data (without orchestrator annotations); raises InferenceConfigError."""
    labels: dict[str, Any] = {}
    annotations: dict[str, Any] = {}
    data: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if source is not None:
        meta = source.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        labels = copy.deepcopy(meta["labels"]) if isinstance(meta.get("labels"), dict) else {}
        found = meta.get("annotations")
        annotations = ({k: v for k, v in found.items() if not str(k).startswith(_NOT_COPIED)}
                       if isinstance(found, dict) else {})
        data = copy.deepcopy(source["data"]) if isinstance(source.get("data"), dict) else {}
        for key in ("binaryData", "immutable"):
            if key in source:
                extra[key] = copy.deepcopy(source[key])
    data[DATA_KEY] = with_speculative_config(data.get(DATA_KEY), json_text)
    annotations[C.DERIVED_ANNOTATION] = "true"
    if source_name:
        annotations[C.SOURCE_ANNOTATION] = source_name
    content = {"labels": labels, "annotations": annotations, "data": data, **extra}
    # Named after the reference as written (kustomize may rename the source before or after the function
    # runs; the written name is what stays stable when the output is rendered again).
    out: dict[str, Any] = {"apiVersion": krm.CONFIGMAP_API_VERSION, "kind": krm.CONFIGMAP_KIND,
                 "metadata": metadata(derived_name(source_name, method, content), namespace, labels, annotations)}
    out.update(extra)
    out["data"] = data
    return out


# The API server's limit on a ConfigMap's data (`core.MaxSecretSize`, which `ValidateConfigMap` applies to it).
MAX_DATA_BYTES = 1024 * 1024


def data_bytes(cm: dict[str, Any]) -> int:
    """What the API server counts of a ConfigMap against MAX_DATA_BYTES: the UTF-8 bytes of every `data` value and
    the decoded bytes of every `binaryData` value (`ValidateConfigMap`: `totalSize += len(value)` over both)."""
    total = 0
    data, binary = cm.get("data"), cm.get("binaryData")
    for value in (data.values() if isinstance(data, dict) else ()):
        total += len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0
    for value in (binary.values() if isinstance(binary, dict) else ()):
        if isinstance(value, str):
            try:
                total += len(base64.b64decode(value, validate=False))
            except ValueError:
                total += len(value) * 3 // 4
    return total


def file_candidates(cm: dict[str, Any]) -> Iterator[str]:
    """File names for a new derived ConfigMap, the plain one first; the namespaced one when two
    namespaces need the same derived ConfigMap next to workloads in one folder; then numbered ones,
    without end (however many are taken, the next number is free)."""
    name = cm["metadata"]["name"]
    namespace = cm["metadata"].get("namespace")
    yield f"{name}.yaml"
    if namespace:
        yield f"{namespace}_{name}.yaml"
    for n in itertools.count(2):
        yield f"{name}-{n}.yaml"


def with_location(cm: dict[str, Any], served_annotations: dict[str, str],
                  taken: set[str] | None = None) -> dict[str, Any]:
    """Give a new item a file next to the workload it serves (kpt writes items by these annotations).

    `taken` holds the paths already in use (kpt refuses two items at one path and index) and gets the
    chosen one added.
    """
    out = copy.deepcopy(cm)
    ann = out["metadata"]["annotations"]
    served = {k: served_annotations.get(k) for k in (krm.PATH_ANNOTATION, krm.LEGACY_PATH_ANNOTATION)}
    folder = next((posixpath.dirname(p) for p in served.values() if p), None)
    if folder is None:
        return out
    taken = taken if taken is not None else set()
    path = next(p for p in (posixpath.join(folder, f) for f in file_candidates(cm)) if p not in taken)
    taken.add(path)
    # kpt reads the internal annotations; the legacy ones too when the served item carries them.
    ann[krm.PATH_ANNOTATION] = path
    ann[krm.INDEX_ANNOTATION] = "0"
    if served[krm.LEGACY_PATH_ANNOTATION]:
        ann[krm.LEGACY_PATH_ANNOTATION] = path
        ann[krm.LEGACY_INDEX_ANNOTATION] = "0"
    return out


def regeneration(data: Any, want: dict[str, Any]) -> list[Op] | None:
    """An object the function wrote, found in the input (`data`): None when it is what the run wants, else the
    patch that writes `want` in its place, keeping the orchestrator's annotations (its file, kpt's index) so it
    is regenerated in its own file (a derived PrometheusRule or dashboard edited by hand)."""
    if comparable(data) == want:
        return None
    keep = (data.get("metadata") or {}).get("annotations") or {}
    out = with_location(want, {})
    out["metadata"]["annotations"].update({k: v for k, v in keep.items() if str(k).startswith(krm.RENDER_STRIPPED)})
    return diff(data, out)


def comparable(cm: Any) -> Any:
    """A ConfigMap without orchestrator annotations, for comparing a derived one found in the input."""
    cm = copy.deepcopy(cm)
    ann = (cm.get("metadata") or {}).get("annotations")
    if isinstance(ann, dict):
        # The mark of a kept derived ConfigMap is no content: it goes when the ConfigMap is in use again.
        for k in [k for k in ann if str(k).startswith(_NOT_COPIED[:4]) or k == C.KEPT_ANNOTATION]:
            del ann[k]
    return cm
