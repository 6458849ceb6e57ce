"""Read-only lookups over the items: KAITO workloads, plain vLLM workloads, ConfigMaps by namespace/name,
parents -> children."""

import re
from dataclasses import dataclass
from typing import Any

import yaml

from collections.abc import Callable, Collection, Iterable, Iterator

from ..domain import constants as C
from ..domain import kinds, plain_kinds
from ..domain.kinds import KindSpec
from ..domain.plain_kinds import WorkloadKind
from ..text import krm
from ..text.items import Item, ItemError
from ..text.results import ResourceRef

ABSENT = object()
# A name as a whole word of a string: a run of the characters names are made of (a derived name is a DNS
# subdomain), not part of a longer one.
_WORD = r"[\w.-]+"
_PLAIN_KEY = r"[A-Za-z_][\w-]*"
# kustomize's configMapGenerator suffix: ten characters of its hash alphabet (hex with 0 1 3 a e replaced
# by g h k m t, so no vowels and no look-alikes).
_GENERATED = r"(.+)-[2456789bcdfghkmt]{10}"


@dataclass(frozen=True, slots=True, eq=False)
class Workload:
    """A KAITO workload: its item, its kind's table row, its data, and its effective annotation value.
    Compared by identity: two objects of the same data are two workloads.

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
    # The MultiRoleInference Workload whose controller rewrites this one.
    rewritten_by: "Workload | None" = None

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
        return isinstance(self.value, str) and self.value == "true"

    def labels(self) -> dict[str, Any]:
        labels = kinds.get(self.data, ("metadata", "labels"))
        return labels if isinstance(labels, dict) else {}


@dataclass(frozen=True, slots=True, eq=False)
class PlainWorkload:
    """A plain vLLM workload (Deployment, …, LeaderWorkerSet, KServe InferenceService) that may
    carry the opt-in or the function's record: its item, its kind's row of plain_kinds.KINDS, its data.
    Compared by identity."""

    item: Item
    spec: WorkloadKind
    data: Any


def _may_opt_in(item: Item) -> bool:
    """Whether the item's text can hold the opt-in or the record of an injection (both keys hold
    "speculative"), or a near miss of the opt-in (SD416: `Speculative`, `speculativ`, `SPECULATIVE`): a
    Deployment that cannot is never read into data. An escape in a double-quoted key (`\\x73`) or an alias
    (its anchor elsewhere) may spell a key without those letters: such texts are read."""
    text = item.region
    return "pecul" in text or "PECUL" in text or "\\" in text or "*" in text


def ref_of(item: Item) -> ResourceRef:
    return ResourceRef(item.api_version, item.kind, item.name, item.namespace)


def annotation_value(spec: KindSpec, data: Any) -> Any:
    ann = kinds.get(data, spec.annotations)
    if isinstance(ann, dict) and C.ENABLE_ANNOTATION in ann:
        return ann[C.ENABLE_ANNOTATION]
    return ABSENT


class Index:
    __slots__ = ("items", "workloads", "plain", "plain_other_versions", "unhandled", "configmaps", "previous",
                 "unreadable", "config", "misversioned", "_by_parent", "_generated", "_derived_any", "_paths")

    def __init__(self, items: list[Item] | None = None, config: frozenset[int] = frozenset()) -> None:
        self.items = [] if items is None else items
        self.workloads: list[Workload] = []
        # Plain vLLM workloads that may carry the opt-in; and plain kinds at an apiVersion the function
        # does not handle (`extensions/v1beta1` Deployment), which are only warned about when they opt in.
        self.plain: list[PlainWorkload] = []
        self.plain_other_versions: list[tuple[Item, Any]] = []
        # Other kinds whose text names the opt-in (ServingRuntime, RayService, …): warned about when they carry it.
        self.unhandled: list[tuple[Item, Any]] = []
        self.configmaps: dict[tuple[str, str], Item] = {}
        # kustomize renames (namePrefix, nameSuffix) before the function runs and fixes references after it;
        # the names the references still use are in previousNames.
        self.previous: dict[tuple[str, str], Item] = {}
        self.unreadable: list[tuple[Item, str]] = []  # KAITO items with no data model
        self.config = config  # kustomize's files among the items (kustomizations, patches …)
        # ConfigMaps of the core group under another apiVersion than v1 (a typo, or `v2`): the same object
        # to a cluster as a v1 ConfigMap of that name, though no workload can use them.
        self.misversioned: dict[tuple[str, str], Item] = {}
        self._by_parent: dict[tuple[str, str, str, str], list[Workload]] | None = None
        self._generated: dict[tuple[str, str], list[Item]] | None = None
        self._derived_any: bool | None = None
        self._paths: frozenset[str] | None = None

    def without(self, left_out: Collection[int]) -> "Index":
        """The same index without the workloads at the item indexes `left_out` (KAITO and plain ones)."""
        out = Index(self.items, self.config)
        out.workloads = [w for w in self.workloads if w.item.index not in left_out]
        out.plain = [p for p in self.plain if p.item.index not in left_out]
        out.plain_other_versions = [(i, d) for i, d in self.plain_other_versions if i.index not in left_out]
        out.unhandled = [(i, d) for i, d in self.unhandled if i.index not in left_out]
        out.configmaps, out.previous, out.misversioned = self.configmaps, self.previous, self.misversioned
        out.unreadable = self.unreadable
        return out

    def paths(self) -> frozenset[str]:
        """The file paths the items were read from (kpt's path annotations, or render's files): read once,
        when the first stage places a new item (each item's path is four annotation lookups)."""
        if self._paths is None:
            self._paths = frozenset(path for path, _ in map(Item.file, self.items) if path)
        return self._paths

    def has_derived(self) -> bool:
        """Whether any item is one this function derived (a ConfigMap, a PrometheusRule): looked up once,
        however many workloads ask."""
        if self._derived_any is None:
            self._derived_any = any(item.is_mapping and item.annotation(C.DERIVED_ANNOTATION) == "true"
                                    for item in self.items)
        return self._derived_any

    def configmap(self, namespace: str, name: str) -> Item | None:
        """The ConfigMap a workload in `namespace` means by `name` (a ConfigMap without a namespace lands in the
        workload's namespace when both are applied together)."""
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
                m = re.fullmatch(_GENERATED, cm_name)
                if m:
                    self._generated.setdefault((ns, m.group(1)), []).append(item)
        candidates = self._generated.get((namespace, name)) or (
            self._generated.get(("", name)) if namespace else None) or []
        return candidates[0] if len(candidates) == 1 else None

    def users(self, names: Collection[str], planned: Callable[[Item], Any]) -> dict[str, tuple[Item, str]]:
        """For each of `names` another object uses: the first such object, in input order, and the field
        that names it (a Deployment mounting a derived ConfigMap, a projected volume, an argument …), decided
        from values as docs/checks.md (step 4) says. Every object counts but derived ConfigMaps; a KAITO
        workload by its data as `planned` (a disabled workload's own reference is gone from it).

        The text only picks the objects worth composing, and can never skip one that names it: without
        an escape (`\\`) or an alias (`*`, merge keys included) every character of a value is in the
        text, and a name that is one word of the value is one word of the text (an item the scanner
        passed has neither, whatever characters its block scalars hold). The text is read once
        per object, however many names are asked for (500 retired ConfigMaps among 5,000 items took 35 s
        when each searched every item)."""
        wanted = _Names(names)
        found: dict[str, tuple[Item, str]] = {}
        workloads = {w.item.index for w in self.workloads}
        for item in self.items:
            if len(found) == len(wanted.all):
                break
            if is_derived(item):
                continue
            if item.index in workloads:
                data: Any = planned(item)
            elif wanted.may_be_in(item):
                data = item.node
            else:
                continue
            for name, path in _mentions(data, wanted, found.keys()):
                found.setdefault(name, (item, path))
        return found

    def child_items(self) -> set[int]:
        """The items of every workload a parent in the input cascades its opt-in to (its own value unread)."""
        return {w.item.index for children in self._children().values() for w in children}

    def children(self, parent: Workload, kind: str) -> list[Workload]:
        return self._children().get((parent.spec.kind, parent.namespace, parent.name, kind), [])

    def _children(self) -> dict[tuple[str, str, str, str], list[Workload]]:
        """(parent kind, namespace, parent name, child kind) -> children, built once in one pass, as KAITO's
        controllers find them: by label or name alone (docs/checks.md, step 5; inferenceset.ListWorkspaces,
        reconcileInferenceSet's CreateOrUpdate)."""
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


class _Names:
    """Names looked for as whole words: one word each (every name this function derives), or not."""

    def __init__(self, names: Collection[str]) -> None:
        self.all = set(names)
        self.words = {n for n in self.all if re.fullmatch(_WORD, n)}
        # A name of other characters (hand-made: `odd name`): lines folded into one value can make it
        # out of a text that does not hold it, so every object is composed for it.
        self.others = [(n, re.compile(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])")) for n in sorted(self.all - self.words)]

    def may_be_in(self, item: Item) -> bool:
        """Whether the item can name one of the names (False only where it cannot)."""
        text = item.region
        if self.others or "\\" in text or "*" in text:
            return True
        return not self.words.isdisjoint(re.findall(_WORD, text))

    def held_by(self, value: str) -> Iterator[str]:
        if self.words:
            for word in re.findall(_WORD, value):
                if word in self.words:
                    yield word
        for name, pattern in self.others:
            if pattern.search(value):
                yield name


def _step(path: str, key: Any) -> str:
    """The field path one key or index below `path` (`spec.volumes[0]`, `metadata.annotations[a/b]`)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    key = str(key)
    if re.fullmatch(_PLAIN_KEY, key):
        return f"{path}.{key}" if path else key
    return f"{path}[{key}]"


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _mentions(root: Any, names: _Names, done: Collection[str]) -> Iterator[tuple[str, str]]:
    """(name, field path) for each name a key or string of `root` (a composed node, or Python data)
    holds, in document order; every distinct node once, however often aliases repeat it (an alias bomb
    costs its distinct nodes). Keys merged in (`<<: *defaults`) are where the merge puts them."""
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        value = node if isinstance(node, str) else node.value if isinstance(node, yaml.ScalarNode) else None
        if value is not None:
            yield from ((name, path) for name in names.held_by(value) if name not in done)
            continue
        children: list[tuple[Any, str]] = []
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag == _MERGE_TAG:
                    children.extend((m, path) for m in (v.value if isinstance(v, yaml.SequenceNode) else [v]))
                    continue
                key = k.value if isinstance(k, yaml.ScalarNode) else "?"
                children += [(k, _step(path, key)), (v, _step(path, key))]
        elif isinstance(node, yaml.SequenceNode):
            children = [(v, _step(path, i)) for i, v in enumerate(node.value)]
        elif isinstance(node, dict):
            children = [(x, _step(path, k)) for k, v in node.items() for x in (k, v)]
        elif isinstance(node, list):
            children = [(v, _step(path, i)) for i, v in enumerate(node)]
        stack.extend(reversed(children))


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
    return item.kind == krm.CONFIGMAP_KIND and item.api_version == krm.CONFIGMAP_API_VERSION


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
        if not _deployed(item, index.config):
            continue
        spec = kinds.spec_for(item.api_version, item.kind)
        if spec is not None:
            _add_kaito(index, item, spec)
        elif plain_kinds.known_kind(item.kind):
            _add_plain(index, item)
        elif item.kind == krm.CONFIGMAP_KIND:
            _add_configmap(index, item)
        elif not item.kind.startswith("Kustomization") and C.ENABLE_ANNOTATION in item.region:
            _add_unhandled(index, item)
    return index


def _deployed(item: Item, config: Collection[int]) -> bool:
    """Whether the item is an object a cluster gets: local-config objects (Kptfile, function configs,
    kustomize's transformer configs, patches) are never deployed: they are neither workloads nor the
    ConfigMaps workloads use."""
    return item.is_mapping and item.annotation(krm.LOCAL_CONFIG_ANNOTATION) != "true" and item.index not in config


def _add_kaito(index: Index, item: Item, spec: KindSpec) -> None:
    """A KAITO workload, or an unreadable one (e.g. a complex key: YAML, but no Kubernetes object)."""
    try:
        data = item.data()
    except ItemError as exc:
        index.unreadable.append((item, str(exc)))
        return
    item.release_node()
    index.workloads.append(Workload(item, spec, data, annotation_value(spec, data)))


def _add_plain(index: Index, item: Item) -> None:
    """A plain workload whose text can hold the opt-in or the record: at an apiVersion the function handles,
    or another one (only warned about when it opts in)."""
    if not _may_opt_in(item):
        return
    try:
        data = item.data()
    except ItemError as exc:
        # Left alone, as any object the function has no business with; but text naming the opt-in
        # may be an annotated workload, which must not silently get nothing.
        if "speculative" in item.region:
            index.unreadable.append((item, str(exc)))
        return
    item.release_node()
    plain_spec = plain_kinds.kind_of(item.api_version, item.kind)
    if plain_spec is not None:
        index.plain.append(PlainWorkload(item, plain_spec, data))
    else:
        index.plain_other_versions.append((item, data))


def _add_configmap(index: Index, item: Item) -> None:
    """A ConfigMap by its name and the names kustomize gave it before (previousNames); one of the core
    group under another apiVersion than v1 (`v2`) apart."""
    if is_configmap(item):
        index.configmaps.setdefault((item.namespace, item.name), item)
        for old in (item.annotation(krm.PREVIOUS_NAMES_ANNOTATION) or "").split(","):
            if old and old != item.name:
                index.previous.setdefault((item.namespace, old), item)
    elif "/" not in item.api_version:
        index.misversioned.setdefault((item.namespace, item.name), item)


def _add_unhandled(index: Index, item: Item) -> None:
    """Another kind whose text names the opt-in (warned about when it carries it)."""
    try:
        index.unhandled.append((item, item.data()))
    except ItemError:
        pass   # not a Kubernetes object the function could act on either way
