"""Read-only lookups over the items: KAITO workloads, ConfigMaps by namespace/name, parents -> children."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from . import constants as C
from . import kinds
from .kinds import KindSpec
from .reader import Item
from .results import ResourceRef

ABSENT = object()  # the annotation is not set at all


@dataclass(eq=False)
class Workload:
    """A KAITO workload: its item, its kind's table row, its data, and its effective annotation value."""

    item: Item
    spec: KindSpec
    data: Any
    value: Any = ABSENT

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def namespace(self) -> str:
        return self.item.namespace

    @property
    def enabled(self) -> bool:
        return self.value == "true"

    def labels(self) -> dict:
        labels = kinds.get(self.data, ("metadata", "labels"))
        return labels if isinstance(labels, dict) else {}

    def owned_by(self, kind: str, name: str) -> bool:
        refs = kinds.get(self.data, ("metadata", "ownerReferences"))
        return isinstance(refs, list) and any(
            isinstance(r, dict) and r.get("kind") == kind and r.get("name") == name
            and r.get("controller") is True for r in refs)


def ref_of(item: Item) -> ResourceRef:
    return ResourceRef(item.api_version, item.kind, item.name, item.namespace)


def annotation_value(spec: KindSpec, data: Any) -> Any:
    ann = kinds.get(data, spec.annotations)
    if isinstance(ann, dict) and C.ENABLE_ANNOTATION in ann:
        return ann[C.ENABLE_ANNOTATION]
    return ABSENT


@dataclass
class Index:
    workloads: list[Workload] = field(default_factory=list)
    configmaps: dict[tuple[str, str], Item] = field(default_factory=dict)

    def configmap(self, namespace: str, name: str) -> Item | None:
        """The ConfigMap a workload in `namespace` means by `name`.

        A ConfigMap without a namespace lands in the workload's namespace when both are applied together.
        """
        found = self.configmaps.get((namespace, name))
        if found is None and namespace:
            found = self.configmaps.get(("", name))
        return found

    def children(self, parent: Workload, kind: str) -> list[Workload]:
        if parent.spec.kind == "InferenceSet":
            label = C.INFERENCESET_CREATED_BY
            names = None
        else:
            label = C.MULTIROLE_CREATED_BY
            names = {f"{parent.name}-prefill", f"{parent.name}-decode"}
        out = []
        for w in self.workloads:
            if w.spec.kind != kind or w.namespace != parent.namespace:
                continue
            by_label = w.labels().get(label) == parent.name and (names is None or w.name in names)
            if by_label or w.owned_by(parent.spec.kind, parent.name):
                out.append(w)
        return out


def is_configmap(item: Item) -> bool:
    return item.kind == C.CONFIGMAP_KIND and item.api_version == C.CONFIGMAP_API_VERSION


def is_derived(item: Item) -> bool:
    return is_configmap(item) and item.annotation(C.DERIVED_ANNOTATION) == "true"


def build_index(items: Iterable[Item]) -> Index:
    index = Index()
    for item in items:
        if not item.is_mapping:
            continue
        spec = kinds.spec_for(item.api_version, item.kind)
        if spec is not None:
            data = item.data()
            index.workloads.append(Workload(item, spec, data, annotation_value(spec, data)))
        elif is_configmap(item):
            index.configmaps.setdefault((item.namespace, item.name), item)
    return index
