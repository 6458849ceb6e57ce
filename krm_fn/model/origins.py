"""Where a built object is in the repository: kustomize's origin annotation (`buildMetadata:
[originAnnotations]`) names the file an object was read from, or the kustomization whose generator made it
(kustomize api/resource/origin.go at kustomize/v5.5.0: `path`, `repo`, `ref`, `configuredIn`,
`configuredBy`; the key is api/internal/utils/annotations.go:25). kustomize records no line, so the object is
looked up in that file by kind and name (a name prefix or suffix added on the way), and a finding's field by
its path there; an overlay's strategic-merge patch that sets the field (to the value built) is the place
instead.

Pure: the files' texts are read by cli.py; this module places each item (`Item.home`) for model/report.py.
"""

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import yaml

from ..text import krm
from ..text.items import Home, InputError, Item
from ..text.reader import read_stream
from ..text.tree import child, scalar
from ..text.yamlio import load


class Patch(NamedTuple):
    """An overlay's strategic-merge patch file, as shown, with its text and the namespace its kustomization
    sets ("" for none): a patch of a kustomization that sets another namespace did not touch the object,
    unless a kustomization over it sets a namespace too (`renamed`), which replaced the patch's."""

    path: str
    data: bytes
    namespace: str = ""
    renamed: bool = False


class Source(NamedTuple):
    """A file an origin annotation names: as shown to the user, and its bytes (None: it cannot be read)."""

    path: str
    data: bytes | None


def origin(item: Item) -> dict[str, str]:
    """The origin annotation's string fields ({} without one, or when it is no YAML mapping)."""
    text = item.annotation(krm.ORIGIN_ANNOTATION)
    if not text:
        return {}
    try:
        found = load(text)
    except Exception:  # a hand-written annotation that is not YAML: no source
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str) and v}


def origin_file(item: Item) -> str:
    """The source the origin annotation names: `path` (as `REPO//path?ref=REF` for a remote base), or for a
    generated object the kustomization it was `configuredIn`; "" without one."""
    fields = origin(item)
    path = fields.get("path") or fields.get("configuredIn") or ""
    if path and fields.get("repo"):
        ref = f"?ref={fields['ref']}" if fields.get("ref") else ""
        return f"{fields['repo']}//{path}{ref}"
    return path


def local_paths(items: Sequence[Item]) -> list[str]:
    """The local files the items' origin annotations name, as written there (remote bases left out)."""
    out: dict[str, None] = {}
    for item in items:
        fields = origin(item)
        path = fields.get("path") or fields.get("configuredIn") or ""
        if path and not fields.get("repo"):
            out[path] = None
    return list(out)


def _documents(source: Source) -> list[Item]:
    if source.data is None:
        return []
    try:
        return [i for i in read_stream([(source.path, source.data)]).items if i.is_mapping]
    except InputError:  # kustomize read it, so it is YAML; a file changed since: the file without a line
        return []


Affixes = tuple[tuple[str, ...], tuple[str, ...]]   # the name prefixes and suffixes of a build's kustomizations


def bare(name: str, affixes: Affixes) -> frozenset[str]:
    """The names an object built as `name` can have had before the prefixes and suffixes of the way (each
    kustomization adds its own around the name: `prod-` + `team-` + llama + `-v1`): `name` with some of them
    taken off its start and end, exactly (never a name that merely contains another: codellama is no llama)."""
    prefixes, suffixes = affixes
    out, queue = {name}, [name]
    while queue:
        n = queue.pop()
        cut = [n[len(p):] for p in prefixes if n.startswith(p) and len(n) > len(p)]
        cut += [n[:-len(x)] for x in suffixes if n.endswith(x) and len(n) > len(x)]
        for c in cut:
            if c not in out:
                out.add(c)
                queue.append(c)
    return frozenset(out)


def _same(doc: Item, item: Item, namespaces: tuple[str, ...] = (), names: frozenset[str] | None = None) -> bool:
    """`doc` (in a base or a patch) is `item` before a name prefix or suffix: the same kind, a name it can
    have had (`names`: bare(); None where the kustomizations are not known, a piped build: its name in the
    built name), and a namespace it can have had on the way (`namespaces`: none, the built one, the one
    of the object in its source). kustomize's namespace transformer replaces the namespace an object has in
    its base, so the base's own document is matched whatever its namespace (_object prefers the built one)."""
    named = doc.name in names if names is not None else doc.name in item.name
    return (doc.kind == item.kind and bool(doc.name) and named
            and (not namespaces or doc.namespace in namespaces))


def _object(docs: list[Item], item: Item, names: frozenset[str] | None) -> Item | None:
    """The document `item` was built from: the same name, else the longest name it contains (in the built
    namespace, or none, before another); the only one of its kind when no name matches (a name changed by a
    replacement)."""
    same = sorted((d for d in docs if _same(d, item, names=names)),
                  key=lambda d: (d.name != item.name, -len(d.name), d.namespace not in ("", item.namespace)))
    if same:
        return same[0]
    kind = [d for d in docs if d.kind == item.kind]
    return kind[0] if len(kind) == 1 else None


def _generator_entry(docs: list[Item], item: Item) -> yaml.Node | None:
    """A generated ConfigMap's or Secret's entry in the kustomization's configMapGenerator/secretGenerator."""
    field = "configMapGenerator" if item.kind == "ConfigMap" else "secretGenerator"
    for doc in docs:
        entries = child(doc.node, field)
        if not isinstance(entries, yaml.SequenceNode):
            continue
        named = [(scalar(child(e, "name")) or "", e) for e in entries.value]
        found = sorted(((n, e) for n, e in named if n and n in item.name), key=lambda ne: -len(ne[0]))
        if found:
            entry: yaml.Node = found[0][1]
            return entry
    return None


class _Files:
    """The files' documents, each file read once."""

    def __init__(self) -> None:
        self.docs: dict[str, list[Item]] = {}

    def of(self, key: str, source: Source) -> list[Item]:
        if key not in self.docs:
            self.docs[key] = _documents(source)
        return self.docs[key]


def place(items: Sequence[Item], sources: Mapping[str, Source], patches: Sequence[Patch] = (),
          affixes: Affixes | None = None) -> None:
    """Give each item with an origin annotation its `home`: the file (and document) it was built from, and
    the patch documents for it (outermost overlay first). `sources`: the origin paths as written in the
    annotations, to the file each names; `affixes`: the name prefixes and suffixes of the kustomizations
    built (None: not known)."""
    files = _Files()
    for item in items:
        fields = origin(item)
        path = fields.get("path") or fields.get("configuredIn") or ""
        if not path:
            continue
        source = sources.get(path)
        if fields.get("repo") or source is None:
            item.home = Home(origin_file(item))
            continue
        docs = files.of(path, source)
        node: yaml.Node | None
        names = bare(item.name, affixes) if affixes is not None else None
        found = _object(docs, item, names) if fields.get("path") else None
        if fields.get("path"):
            node = found.node if found is not None else None
        else:
            node = _generator_entry(docs, item) or (docs[0].node if docs else None)
        # A patch names the object as it was where the patch applies: in its source's namespace, or none.
        namespaces = ("", item.namespace, found.namespace if found is not None else "")
        matched = tuple((p.path, d.node) for p in patches if p.renamed or p.namespace in ("", item.namespace)
                        for d in files.of("\0" + p.path, Source(p.path, p.data))
                        if _same(d, item, namespaces, names))
        item.home = Home(source.path, node, matched)


def shown(base: str, path: str) -> str:
    """An origin path as the user reads it: joined to the folder it is relative to ("" for the working
    directory), cleaned of `..` the way kustomize cleans it."""
    return posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)


def scalar_value(node: Any) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None
