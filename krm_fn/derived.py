"""Derived ConfigMaps: a copy of the user's inference ConfigMap carrying the speculative config.

The name ends in a hash of the content, so any change of content changes the workload's reference
and therefore rolls its pods (KAITO hashes `inference`; it does not watch ConfigMap content).
"""
from __future__ import annotations

import copy
import hashlib
import json
import posixpath
import re
from typing import Any

from . import constants as C
from .inference_config import DATA_KEY, with_speculative_config

MAX_NAME = 253
HASH_LEN = 10
# Annotations that belong to one object in one orchestrator run, never to a copy.
_NOT_COPIED = (C.INTERNAL_PREFIX, "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/",
               "kubectl.kubernetes.io/last-applied-configuration", "kaito-specdec.dev/")


def user_annotations(annotations: Any) -> dict[str, Any]:
    if not isinstance(annotations, dict):
        return {}
    return {k: v for k, v in annotations.items() if not str(k).startswith(_NOT_COPIED)}


def content_hash(content: dict) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:HASH_LEN]


def _dns_part(text: str, limit: int) -> str:
    text = re.sub(r"[^a-z0-9.-]+", "-", text.lower())
    return text[:limit].strip("-.")


def derived_name(source: str | None, method: str, content: dict) -> str:
    """`<source>-specdec-<hash>` or `specdec-<method>-<hash>`, cut to a 253-character DNS subdomain."""
    suffix = f"-specdec-{content_hash(content)}"
    if source:
        return (_dns_part(source, MAX_NAME - len(suffix)) or "config") + suffix
    return "specdec-" + (_dns_part(method, 40) or "config") + f"-{content_hash(content)}"


def build(source: dict | None, source_name: str | None, namespace: str, json_text: str,
          method: str) -> dict:
    """The derived ConfigMap's data (without orchestrator annotations); raises InferenceConfigError."""
    labels: dict = {}
    annotations: dict = {}
    data: dict = {}
    extra: dict = {}
    if source is not None:
        meta = source.get("metadata") or {}
        labels = copy.deepcopy(meta.get("labels") or {})
        annotations = user_annotations(meta.get("annotations"))
        data = copy.deepcopy(source.get("data") or {})
        for key in ("binaryData", "immutable"):
            if key in source:
                extra[key] = copy.deepcopy(source[key])
    data[DATA_KEY] = with_speculative_config(data.get(DATA_KEY), json_text)
    annotations[C.DERIVED_ANNOTATION] = "true"
    if source_name:
        annotations[C.SOURCE_ANNOTATION] = source_name
    content = {"labels": labels, "annotations": annotations, "data": data, **extra}
    # Named after the source's current name (kustomize may have prefixed it since it was referenced).
    current = (source or {}).get("metadata", {}).get("name") if source is not None else None
    metadata: dict = {"name": derived_name(current or source_name, method, content)}
    if namespace:
        metadata["namespace"] = namespace
    if labels:
        metadata["labels"] = labels
    metadata["annotations"] = annotations
    out: dict = {"apiVersion": C.CONFIGMAP_API_VERSION, "kind": C.CONFIGMAP_KIND, "metadata": metadata}
    out.update(extra)
    out["data"] = data
    return out


def with_location(cm: dict, served_annotations: dict[str, str]) -> dict:
    """Give a new item a file next to the workload it serves (kpt writes items by these annotations)."""
    out = copy.deepcopy(cm)
    ann = out["metadata"]["annotations"]
    name = out["metadata"]["name"]
    for path_key, index_key in ((C.PATH_ANNOTATION, C.INDEX_ANNOTATION),
                                (C.LEGACY_PATH_ANNOTATION, C.LEGACY_INDEX_ANNOTATION)):
        served = served_annotations.get(path_key)
        if served:
            ann[path_key] = posixpath.join(posixpath.dirname(served), f"{name}.yaml")
            ann[index_key] = "0"
    return out


def comparable(cm: Any) -> Any:
    """A ConfigMap without orchestrator annotations, for comparing a derived one found in the input."""
    cm = copy.deepcopy(cm)
    ann = (cm.get("metadata") or {}).get("annotations")
    if isinstance(ann, dict):
        for k in [k for k in ann if str(k).startswith(_NOT_COPIED[:4])]:
            del ann[k]
    return cm
