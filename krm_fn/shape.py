"""Checks on the input as a whole, before anything KAITO: items a cluster (or kubectl) would refuse."""
from __future__ import annotations

import yaml

from . import constants as C
from .index import ref_of
from .reader import Item, child, scalar
from .report import about, q
from .results import Result, Severity


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
            out.append(about(Severity.WARNING, f"the same object as {where} (kind, namespace and name): "
                                                 "one of them would be lost", item))
    return out


def _needs_name(item: Item) -> bool:
    """A name is required of what a cluster stores, not of a kustomization.yaml or other local config
    (kpt passes those as items too) nor of an object named by `metadata.generateName`."""
    if item.api_version.startswith(C.KUSTOMIZE_GROUP + "/") or \
            item.annotation(C.LOCAL_CONFIG_ANNOTATION) == "true":
        return False
    return scalar(child(child(item.node, "metadata"), "generateName")) is None

