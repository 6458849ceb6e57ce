"""A tree of kustomizations as `render DIR` builds it: which kustomizations include which, the roots (those no
other kustomization of the tree includes), and the patch files an object built from a root may have passed.

Pure: folders and kustomization texts in, paths out (cli.py reads the files and runs kustomize). Paths are
strings as the command line gives them, joined and normalised lexically as kustomize does (its loader cleans
`../base` with filepath.Join; api/internal/loader/fileloader.go at kustomize/v5.5.0).
"""

import json
import posixpath
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..text import yamlio
from .localconfig import KUSTOMIZATION_NAMES

__all__ = ["KUSTOMIZATION_NAMES", "Kustomization", "parse", "roots", "reach", "renamed_above", "affixes",
           "is_remote", "wrapper", "has_origins", "build_error"]


class Kustomization(NamedTuple):
    """What the tree needs of one kustomization: where it is, what it includes, its patches, its namespace."""

    folder: str
    includes: tuple[str, ...] = ()   # resources, bases and components entries, joined to the folder
    patches: tuple[str, ...] = ()    # strategic-merge patch files (patches[].path, patchesStrategicMerge)
    namespace: str = ""
    component: bool = False          # kind: Component: included by others, never built alone
    text: str = ""                   # the file's text (set by the reader of the file)
    prefix: str = ""                 # namePrefix
    suffix: str = ""                 # nameSuffix


def is_remote(entry: str) -> bool:
    """A remote base (`github.com/org/repo//dir?ref=v1`, `https://…`): kustomize fetches it, nothing to read here."""
    return "://" in entry or entry.startswith(("github.com/", "git@", "gitlab.com/", "bitbucket.org/")) \
        or "?ref=" in entry


def _entries(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _patch_files(data: Mapping[str, Any]) -> list[str]:
    """The files of `patches:` (`- path: FILE`) and `patchesStrategicMerge:` (`- FILE`; an inline patch is
    no file): JSON 6902 patches name fields by pointer, not by place, and are left to the base's line."""
    out = [p["path"] for p in data.get("patches") or [] if isinstance(p, dict) and isinstance(p.get("path"), str)]
    out += [p for p in _entries(data.get("patchesStrategicMerge")) if "\n" not in p and ":" not in p.split("/")[0]]
    return out


def _join(folder: str, entry: str) -> str:
    return posixpath.normpath(posixpath.join(folder, entry))


def parse(folder: str, text: str) -> Kustomization:
    """One kustomization file's text (Kustomization() when it is no mapping: kustomize's own error tells)."""
    try:
        data = yamlio.load(text)
    except Exception:  # kustomize says what is wrong with it when it builds
        return Kustomization(folder)
    if not isinstance(data, dict):
        return Kustomization(folder)
    includes = [_join(folder, e) for key in ("resources", "bases", "components") for e in _entries(data.get(key))
                if not is_remote(e)]
    namespace, prefix, suffix = (data.get(key) for key in ("namespace", "namePrefix", "nameSuffix"))
    return Kustomization(folder, tuple(includes), tuple(_join(folder, p) for p in _patch_files(data)),
                         namespace if isinstance(namespace, str) else "", data.get("kind") == "Component",
                         prefix=prefix if isinstance(prefix, str) else "",
                         suffix=suffix if isinstance(suffix, str) else "")


def roots(tree: Mapping[str, Kustomization]) -> list[str]:
    """The folders of the kustomizations no other one includes, sorted (Components are never roots)."""
    included = {entry for k in tree.values() for entry in k.includes}
    return sorted(folder for folder, k in tree.items() if folder not in included and not k.component)


def reach(tree: Mapping[str, Kustomization], root: str) -> list[str]:
    """The kustomizations a build of `root` reads, the root first, then breadth first (outermost first)."""
    order, queue = [root], [root]
    while queue:
        folder = queue.pop(0)
        for entry in tree[folder].includes if folder in tree else ():
            if entry in tree and entry not in order:
                order.append(entry)
                queue.append(entry)
    return order


def renamed_above(tree: Mapping[str, Kustomization], root: str) -> dict[str, bool]:
    """For each kustomization a build of `root` reads: whether one that includes it on the way from `root`
    sets a namespace, which replaces the namespace its own objects (and patches) had there."""
    above = dict.fromkeys(reach(tree, root), False)
    changed = True
    while changed:  # a tree is small and acyclic (kustomize refuses a cycle): a few passes
        changed = False
        for folder in above:
            renames = above[folder] or bool(tree[folder].namespace) if folder in tree else False
            for entry in tree[folder].includes if folder in tree else ():
                if entry in above and renames and not above[entry]:
                    above[entry] = changed = True
    return above


def affixes(tree: Mapping[str, Kustomization], root: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The name prefixes and suffixes of the kustomizations a build of `root` reads (an object's built name
    is its source's name between some of them: origins.bare)."""
    folders = [tree[f] for f in reach(tree, root) if f in tree]
    return (tuple(dict.fromkeys(k.prefix for k in folders if k.prefix)),
            tuple(dict.fromkeys(k.suffix for k in folders if k.suffix)))


def _data(text: str) -> dict[str, Any]:
    try:
        data = yamlio.load(text)
    except Exception:
        return {}
    return data if isinstance(data, dict) else {}


def wrapper(root: str, text: str) -> str:
    """The kustomization render builds a root through: the root as its one resource (`root`: its path
    relative to the wrapper's folder), with origin annotations on, and the root's own `buildMetadata` and
    `sortOptions`, which kustomize reads only from the kustomization built (api/krusty/kustomizer.go:98,114,139
    at kustomize/v5.5.0). JSON is YAML: every value is written as JSON."""
    data = _data(text)
    meta = [m for m in data.get("buildMetadata") or [] if isinstance(m, str)]
    meta += [] if "originAnnotations" in meta else ["originAnnotations"]
    lines = ["resources:", f"- {json.dumps(root)}", f"buildMetadata: {json.dumps(meta)}"]
    if isinstance(data.get("sortOptions"), dict):
        lines.append(f"sortOptions: {json.dumps(data['sortOptions'])}")
    return "\n".join(lines) + "\n"


def has_origins(text: str) -> bool:
    """The root asks for origin annotations itself: a plain build writes them, so render keeps them."""
    meta = _data(text).get("buildMetadata")
    return isinstance(meta, list) and "originAnnotations" in meta


# klog's header (k8s.io/klog/v2 klog.go, `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`), which kubectl's
# `kustomize` writes its error under (kubectl/pkg/cmd/util/helpers.go: klog's "command failed" err=…).
_KLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]*\] ")
_FAILED = '"command failed" err='


def _go_quoted(text: str) -> str:
    """A Go %q string's value (klog writes a one-line error so); the text itself when it is not one."""
    try:
        value = json.loads(text)
    except ValueError:
        return text.strip('"')
    return value if isinstance(value, str) else text


def _joined(lines: list[str]) -> str:
    return " ".join(ln.strip() for ln in lines if ln.strip())


def build_error(stderr: str) -> str:
    """kustomize's error, whole and on one line, as SD507 says it: kubectl's without klog's header (a
    timestamp and a process id that differ each run), kustomize's `Error: …` with the lines it runs on to
    (a helm chart's config: `…`: must specify --enable-helm), never cobra's usage after it; else every line."""
    lines = stderr.splitlines()
    for at, line in enumerate(lines):
        head = _KLOG.match(line)
        if head is None or not line[head.end():].startswith(_FAILED):
            continue
        value = line[head.end() + len(_FAILED):]
        if value != "<":
            return " ".join(_go_quoted(value).split())
        block = []
        for more in lines[at + 1:]:
            if more.strip() == ">":
                break
            block.append(more)
        return _joined(block)
    for at, line in enumerate(lines):
        if line.startswith("Error: "):
            block = [line[len("Error: "):]]
            for more in lines[at + 1:]:
                if not more.strip() or more.startswith("Usage:"):
                    break
                block.append(more)
            return _joined(block)
    return _joined([_KLOG.sub("", ln) for ln in lines])
