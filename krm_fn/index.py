"""Read-only lookups over the items: KAITO workloads, plain vLLM workloads, ConfigMaps by namespace/name,
parents -> children."""
from __future__ import annotations

import bisect
import itertools
import re
from .record import dataclass, field
from collections.abc import Collection, Iterable
from typing import Any

from . import constants as C
from . import kinds, plain_kinds
from .kinds import KindSpec
from .plain_kinds import WorkloadKind
from .reader import Item, ItemError
from .results import ResourceRef

ABSENT = object()
# A name as a whole word of the text: a run of the characters names are made of (a derived name is a DNS
# subdomain), not part of a longer one.
_WORD = re.compile(r"[\w.-]+")
# kustomize's configMapGenerator suffix: ten characters of its hash alphabet (hex with 0 1 3 a e replaced
# by g h k m t, so no vowels and no look-alikes).
_GENERATED = re.compile(r"(.+)-[2456789bcdfghkmt]{10}")  # the annotation is not set at all


@dataclass(frozen=True, eq=False)
class Workload:
    """A KAITO workload: its item, its kind's table row, its data, and its effective annotation value.

    The index holds each workload as read; `changes.Plan.workload` gives it as planned so far (its data
    with the planned ops, as KAITO's controllers rewrite it)."""

    item: Item
    spec: KindSpec
    data: Any
    value: Any = ABSENT
    # The object as KAITO's controllers will have rewritten it (a MultiRoleInference's child InferenceSet:
    # the MRI's annotations, preset and role config); None when KAITO keeps it as written. Checks and
    # decisions read `effective`; patches are made against `data`, the item as planned.
    rewritten: Any = None
    rewritten_by: Any = None  # the MultiRoleInference Workload whose controller rewrites this one

    @property
    def effective(self) -> Any:
        return self.data if self.rewritten is None else self.rewritten

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


@dataclass(frozen=True, eq=False)
class PlainWorkload:
    """A plain vLLM workload (Deployment, …, LeaderWorkerSet, KServe InferenceService: issue #12) that may
    carry the opt-in or the function's record: its item, its kind's row of plain_kinds.KINDS, its data."""

    item: Item
    spec: WorkloadKind
    data: Any


def _may_opt_in(item: Item) -> bool:
    """Whether the item's text can hold the opt-in or the record of an injection (both keys hold
    "speculative"): a Deployment that cannot is never read into data. An escape in a double-quoted key
    (`\\x73`) or an alias (its anchor elsewhere) may spell a key without those letters: such texts are read."""
    text = item.region
    return "speculative" in text or "\\" in text or "*" in text


def ref_of(item: Item) -> ResourceRef:
    return ResourceRef(item.api_version, item.kind, item.name, item.namespace)


def annotation_value(spec: KindSpec, data: Any) -> Any:
    ann = kinds.get(data, spec.annotations)
    if isinstance(ann, dict) and C.ENABLE_ANNOTATION in ann:
        return ann[C.ENABLE_ANNOTATION]
    return ABSENT


@dataclass
class Index:
    items: list[Item] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    # Plain vLLM workloads that may carry the opt-in (issue #12); and plain kinds at an apiVersion the function
    # does not handle (`extensions/v1beta1` Deployment), which are only warned about when they opt in.
    plain: list[PlainWorkload] = field(default_factory=list)
    plain_other_versions: list[tuple[Item, Any]] = field(default_factory=list)
    # Other kinds whose text names the opt-in (ServingRuntime, RayService, …): warned about when they carry it.
    unhandled: list[tuple[Item, Any]] = field(default_factory=list)
    configmaps: dict[tuple[str, str], Item] = field(default_factory=dict)
    # kustomize renames (namePrefix, nameSuffix) before the function runs and fixes references after it;
    # the names the references still use are in previousNames.
    previous: dict[tuple[str, str], Item] = field(default_factory=dict)
    unreadable: list[tuple[Item, str]] = field(default_factory=list)  # KAITO items with no data model
    config: frozenset[int] = frozenset()  # kustomize's files among the items (kustomizations, patches …)
    # ConfigMaps of the core group under another apiVersion than v1 (a typo, or `v2`): the same object
    # to a cluster as a v1 ConfigMap of that name, though no workload can use them.
    misversioned: dict[tuple[str, str], Item] = field(default_factory=dict)
    _by_parent: dict | None = None
    _generated: dict | None = None
    _mentions: dict | None = None
    _all_text: tuple | None = None  # (those items, where each starts, their text joined by NUL)

    def configmap(self, namespace: str, name: str) -> Item | None:
        """The ConfigMap a workload in `namespace` means by `name`.

        A ConfigMap without a namespace lands in the workload's namespace when both are applied together.
        """
        for table in (self.configmaps, self.previous):
            found = table.get((namespace, name))
            if found is None and namespace:
                found = table.get(("", name))
            if found is not None:
                return found
        return None

    def source(self, namespace: str, name: str) -> Item | None:
        """A derived ConfigMap's source: by name, or by the name kustomize's configMapGenerator gave it
        after the function ran (`<name>-<10-character hash>`), when exactly one fits."""
        found = self.configmap(namespace, name)
        if found is not None:
            return found
        if self._generated is None:
            self._generated = {}
            for (ns, cm_name), item in self.configmaps.items():
                m = _GENERATED.fullmatch(cm_name)
                if m:
                    self._generated.setdefault((ns, m.group(1)), []).append(item)
        candidates = self._generated.get((namespace, name)) or (
            self._generated.get(("", name)) if namespace else None) or []
        return candidates[0] if len(candidates) == 1 else None

    def mentioned_by(self, name: str) -> Item | None:
        """The first item, other than KAITO workloads and derived ConfigMaps, whose text mentions `name`
        as a whole word (a Deployment mounting a derived ConfigMap, say).

        The items' text is split into words once, on first use: asking for each of many names is then a
        lookup, not another pass over every item (500 retired ConfigMaps among 5,000 items took 35 s)."""
        if self._mentions is None:
            self._mentions = {}
            workloads = {w.item.index for w in self.workloads}
            bystanders = [item for item in self.items if item.index not in workloads and not is_derived(item)]
            texts = [item.region for item in bystanders]
            for item, text in zip(bystanders, texts):
                for word in _WORD.findall(text):
                    self._mentions.setdefault(word, item)
            starts = list(itertools.accumulate((len(text) + 1 for text in texts), initial=0))
            self._all_text = (bystanders, starts, "\0".join(texts))
        if _WORD.fullmatch(name):
            return self._mentions.get(name)
        # A name that is not one word (no name this function derives): one search through all the text.
        bystanders, starts, text = self._all_text or ((), [0], "")
        for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text):
            i = bisect.bisect_right(starts, m.start()) - 1
            if m.end() < starts[i + 1]:
                return bystanders[i]
        return None

    def children(self, parent: Workload, kind: str) -> list[Workload]:
        return self._children().get((parent.spec.kind, parent.namespace, parent.name, kind), [])

    def _children(self) -> dict[tuple[str, str, str, str], list[Workload]]:
        """(parent kind, namespace, parent name, child kind) -> children, built once in one pass.

        As KAITO's controllers find them: an InferenceSet's Workspaces by the label
        `inferenceset.kaito.sh/created-by: <inferenceset>` alone (inferenceset.ListWorkspaces); a
        MultiRoleInference's InferenceSets by the name `<mri>-<role type>` alone (reconcileInferenceSet's
        CreateOrUpdate). An ownerReference without that label or name makes nothing a child."""
        if self._by_parent is None:
            self._by_parent = {}
            by_name: dict[tuple[str, str], Workload] = {}
            for w in self.workloads:
                if w.spec.kind == "InferenceSet":
                    by_name.setdefault((w.namespace, w.name), w)
            for w in self.workloads:
                labels = w.labels()
                if w.spec.kind == "Workspace" and isinstance(labels.get(C.INFERENCESET_CREATED_BY), str):
                    key = ("InferenceSet", w.namespace, labels[C.INFERENCESET_CREATED_BY], "Workspace")
                    self._by_parent.setdefault(key, []).append(w)
                if w.spec.kind == "MultiRoleInference":
                    for role_type in role_types(w.data):
                        found = by_name.get((w.namespace, f"{w.name}-{role_type}"))
                        key = ("MultiRoleInference", w.namespace, w.name, "InferenceSet")
                        if found is not None and found not in self._by_parent.get(key, []):
                            self._by_parent.setdefault(key, []).append(found)
        return self._by_parent


def role_types(data: Any) -> list[str]:
    """The distinct role types of a MultiRoleInference, in order."""
    roles = kinds.get(data, ("spec", "roles"))
    out: list[str] = []
    for role in roles if isinstance(roles, list) else []:
        kind = role.get("type") if isinstance(role, dict) else None
        if isinstance(kind, str) and kind and kind not in out:
            out.append(kind)
    return out


def is_configmap(item: Item) -> bool:
    return item.kind == C.CONFIGMAP_KIND and item.api_version == C.CONFIGMAP_API_VERSION


def is_derived(item: Item) -> bool:
    return is_configmap(item) and item.annotation(C.DERIVED_ANNOTATION) == "true"


def is_rule(item: Item) -> bool:
    return item.is_mapping and item.kind == C.PROMETHEUS_RULE_KIND and item.api_version == C.PROMETHEUS_RULE_API_VERSION


def is_derived_rule(item: Item) -> bool:
    return is_rule(item) and item.annotation(C.DERIVED_ANNOTATION) == "true"


def build_index(items: Iterable[Item], skip: Collection[int] = ()) -> Index:
    """`skip`: indexes of kustomize's configuration (kustomizations, the patches they name)."""
    index = Index(items=list(items), config=frozenset(skip))
    for item in index.items:
        # local-config objects (Kptfile, function configs, kustomize's transformer configs, patches) are
        # never deployed: they are neither workloads nor the ConfigMaps workloads use.
        if not item.is_mapping or item.annotation(C.LOCAL_CONFIG_ANNOTATION) == "true" or item.index in skip:
            continue
        spec = kinds.spec_for(item.api_version, item.kind)
        if spec is not None:
            try:
                data = item.data()
            except ItemError as exc:  # e.g. a complex key: YAML, but no Kubernetes object
                index.unreadable.append((item, str(exc)))
                continue
            index.workloads.append(Workload(item, spec, data, annotation_value(spec, data)))
        elif plain_kinds.known_kind(item.kind):
            if not _may_opt_in(item):
                continue
            try:
                data = item.data()
            except ItemError as exc:
                # Left alone, as any object the function has no business with; but text naming the opt-in
                # may be an annotated workload, which must not silently get nothing.
                if "speculative" in item.region:
                    index.unreadable.append((item, str(exc)))
                continue
            plain_spec = plain_kinds.kind_of(item.api_version, item.kind)
            if plain_spec is not None:
                index.plain.append(PlainWorkload(item, plain_spec, data))
            else:
                index.plain_other_versions.append((item, data))
        elif (item.kind != C.CONFIGMAP_KIND and not item.kind.startswith("Kustomization")
              and C.ENABLE_ANNOTATION in item.region):
            try:
                index.unhandled.append((item, item.data()))
            except ItemError:
                pass   # not a Kubernetes object the function could act on either way
        elif item.kind == C.CONFIGMAP_KIND and "/" not in item.api_version and not is_configmap(item):
            index.misversioned.setdefault((item.namespace, item.name), item)
        elif is_configmap(item):
            index.configmaps.setdefault((item.namespace, item.name), item)
            for old in (item.annotation(C.PREVIOUS_NAMES_ANNOTATION) or "").split(","):
                if old and old != item.name:
                    index.previous.setdefault((item.namespace, old), item)
    return index
