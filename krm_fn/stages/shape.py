"""Checks on the input as a whole, before anything KAITO: items a cluster (or kubectl) would refuse."""

import re
from collections.abc import Collection, Iterable

import yaml

from ..domain.localconfig import file_name, is_function_config, is_kustomization, kustomization_folder, stray_files
from ..model.index import ref_of
from ..domain import constants as C
from ..findings import CATALOGUE, RETIRED, can_disable
from ..model.report import about, q, where
from ..text import krm
from ..text.items import Item, ends_line, line_end
from ..text.textedit import last_scalar
from ..text.results import ResourceRef, Result, Severity

_FINDING_ID = r"SD[0-9]{3}"


def _where(item: Item) -> str:
    """Where an item is, for messages: `document N` of its file (from 1), or `items[i]` (of the ResourceList
    when kpt named its file: the line is not one of that file); and its line."""
    line, column = item.line + 1, item.column + 1
    path = item.file()[0]
    if path and path != item.origin:
        # kpt's path annotation: the stderr line names kpt's file, but this line is one of the ResourceList.
        return f"items[{item.index}] of the ResourceList (line {line}, column {column})"
    at = f"document {item.origin_index + 1}" if item.origin and item.origin_index is not None \
        else f"items[{item.index}]"
    return f"{at} (line {line}, column {column})"


def _not_kubernetes(item: Item) -> str | None:
    """What a file without a kind is, when its name or shape says (Helm's files, CI workflows)."""
    name = file_name(item)
    keys = {k.value for k, _ in item.node.value if isinstance(k, yaml.ScalarNode)}
    if name == "Chart.yaml" or (item.api_version in ("v1", "v2") and {"name", "version"} <= keys
                                and not item.kind and "metadata" not in keys):
        return "a Helm chart's Chart.yaml"
    if name.startswith("values") and name.endswith((".yaml", ".yml")):
        return "a Helm values file"
    if "jobs" in keys and ({"on", "true"} & {k.lower() for k in keys}):
        return "a CI workflow"
    if {"stages", "script"} & keys or name in (".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml"):
        return "a CI configuration file"
    return None


def shape_errors(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """Items a Kubernetes API would refuse: not a mapping, or without apiVersion, kind, metadata.name.

    kustomize's own files (a kustomization.yaml needs no apiVersion or kind; `config`: those and the
    patches and plugin configs they name) are configuration, not objects: they are never checked here."""
    out = []
    for item in items:
        if item.index in config:
            continue
        if not item.is_mapping:
            out.append(Result(Severity.ERROR, f"{_where(item)} is not a mapping; every item must be a Kubernetes object", **where(item), id="SD003"))
            continue
        if is_kustomization(item):
            continue
        dup = item.duplicate  # the reader checked every mapping of every item
        if dup is not None:
            key, first, second = dup
            if key == "<<":  # kubectl merges both; kustomize refuses ("duplicate merge key")
                out.append(Result(Severity.ERROR, f"{_where(item)}: the key << appears twice (line {first} and line {second}); kustomize and kpt refuse such a document, and kubectl reads it otherwise: keep one << (it takes a list of mappings to merge)", ref_of(item), **where(item), id="SD004"))
            else:
                out.append(Result(Severity.ERROR, f"{_where(item)}: the key {q(key)} appears twice (line {first} and line {second}); Kubernetes refuses such a document", ref_of(item), **where(item), id="SD004"))
            continue
        if not item.kind:
            what = _not_kubernetes(item)
            if what is not None:
                hint = " (render a chart with `helm template` first)" if "Helm" in what else ""
                out.append(Result(Severity.ERROR, f"{_where(item)} is {what}, not a Kubernetes object (it has no kind); give kaito-specdec manifests only{hint}", ref_of(item), field_path="kind", **where(item), id="SD003"))
                continue
            if not item.api_version:
                out.append(Result(Severity.ERROR, f"{_where(item)} is not a Kubernetes object: it has neither apiVersion nor kind", ref_of(item), **where(item), id="SD003"))
                continue
        if item.odd is not None:
            field, text, reads = item.odd
            if reads == "a timestamp":
                out.append(Result(Severity.ERROR, f"{_where(item)}: {field} {text} is unquoted: kubectl reads the text, kustomize and kpt a timestamp they write back in another form; write it in quotes", ref_of(item), field_path=field, **where(item), id="SD003"))
            else:
                out.append(Result(Severity.ERROR, f"{_where(item)}: {field} has invalid value {text} (unquoted, YAML reads it as {reads}); the API server refuses anything but a string here: write it in quotes", ref_of(item), field_path=field, **where(item), id="SD003"))
            continue
        fields = [("apiVersion", item.api_version), ("kind", item.kind)]
        if _needs_name(item):
            fields.append(("metadata.name", item.name))
        missing = [f for f, v in fields if not v]
        if missing:
            out.append(Result(Severity.ERROR, f"{_where(item)} has no {missing[0]} (a non-empty string)", ref_of(item), field_path=missing[0], **where(item), id="SD003"))
    return out


def disabled_per_object(items: Iterable[Item]) -> tuple[dict[ResourceRef, frozenset[str]], list[Result]]:
    """The ids each object's `kaito-specdec.dev/disable` annotation turns off for that object alone, and a
    warning per entry it cannot turn off (not an id, unknown, or one `disable` may not name)."""
    out: dict[ResourceRef, frozenset[str]] = {}
    said: list[Result] = []
    for item in items:
        if not item.is_mapping:
            continue
        value = item.annotation(C.DISABLE_ANNOTATION)
        if value is None:
            if C.DISABLE_ANNOTATION in item.ann_keys:
                said.append(about(Severity.WARNING, f"{C.DISABLE_ANNOTATION} is not a string of ids such as \"SD412,SD420\"; it is ignored",
                                  item, f"metadata.annotations[{C.DISABLE_ANNOTATION}]", id="SD011"))
            continue
        ids: set[str] = set()
        for entry in (e.strip() for e in value.split(",")):
            if not entry:
                continue
            why = ("is no finding id (SD and three digits)" if not re.fullmatch(_FINDING_ID, entry) else
                   "is no finding id of this version" if entry not in CATALOGUE and entry not in RETIRED else
                   "cannot be turned off (docs/findings.md)" if not can_disable(entry) else "")
            if why:
                said.append(about(Severity.WARNING, f"{C.DISABLE_ANNOTATION}: {q(entry)} {why}; it is ignored",
                                  item, f"metadata.annotations[{C.DISABLE_ANNOTATION}]", id="SD011"))
            else:
                ids.add(entry)
        if ids:
            out[ref_of(item)] = out.get(ref_of(item), frozenset()) | ids
    return out, said


def stray_kustomize_files(items: list[Item]) -> list[Result]:
    """SD010 per file that looks like kustomize's own in a kustomization's folder that does not list it."""
    return [Result(Severity.WARNING, f"{_where(item)} looks like kustomize configuration the kustomization in {kustomization_folder(item)} does not list: left out; list it there if used, or in .krmignore (kpt) if not", ref_of(item), **where(item), id="SD010")
            for item in stray_files(items)]


def duplicates(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """The same object twice (a file given twice, a copy-paste): kustomize would reject the output, kpt
    would write both, a cluster would keep one of them."""
    seen: dict[tuple[str, str, str, str], Item] = {}
    out = []
    for item in items:
        if not (item.is_mapping and item.kind and item.name) or item.index in config or \
                is_function_config(item) or item.annotation(krm.LOCAL_CONFIG_ANNOTATION) == "true":
            continue  # configuration for kustomize or kpt (each overlay's `labels` transformer, say)
        key = (item.api_version.split("/")[0] if "/" in item.api_version else "", item.kind, item.namespace,
               item.name)
        first = seen.setdefault(key, item)
        if first is not item:
            where = first.file()[0] or f"items[{first.index}]"
            out.append(about(Severity.WARNING, f"the same object as {where} (kind, namespace and name): one of them would be lost", item, id="SD008"))
    return out


def unterminated_block_scalars(items: list[Item]) -> list[Result]:
    """render: a file without a final line break whose last value is a `|` or `>` block scalar (not `|-`).
    kubectl's document reader ends every line it reads with "\n" (k8s.io/apimachinery/pkg/util/yaml,
    LineReader.Read: `buffer.WriteByte('\n')`), so it reads one more line break into such a value than
    go-yaml v3 (kustomize, kpt) and YAML itself do; the output keeps YAML's reading (textedit.tail_edits)."""
    out = []
    for item in items:
        src = item.source
        if not item.origin or ends_line(src) or src[item.end:].strip(" \t") or not item.is_mapping:
            continue
        last = last_scalar(item.node)
        if last is None or last.style not in ("|", ">"):
            continue
        chomping = src[last.start_mark.index + 1:line_end(src, last.start_mark.index)].split("#")[0]
        # Its last line is unterminated, or (keep) a blank line after it is, which kubectl counts as one more.
        if "-" not in chomping and (last.end_mark.index == len(src) or "+" in chomping):
            node, path = item.node, ""
            while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value:
                if isinstance(node, yaml.MappingNode):
                    path, node = f"{path}.{node.value[-1][0].value}".lstrip("."), node.value[-1][1]
                else:
                    path, node = f"{path}[{len(node.value) - 1}]", node.value[-1]
            out.append(about(Severity.WARNING, "the file ends in this block scalar without a line break: kubectl reads its value with one more final line break than kustomize, kpt and the output do; end the file with a line break", item, field=path, id="SD012"))
    return out


def _needs_name(item: Item) -> bool:
    """A name is required of what a cluster stores, not of a kustomization.yaml or other local config
    (kpt passes those as items too) nor of an object named by `metadata.generateName`."""
    if item.api_version.startswith(krm.KUSTOMIZE_GROUP + "/") or \
            item.annotation(krm.LOCAL_CONFIG_ANNOTATION) == "true":
        return False
    return not item.generate_name


def unreadable(found: Iterable[tuple[Item, str]]) -> list[Result]:
    """The items the index could not read (why in words): nothing about them can be decided."""
    return [about(Severity.ERROR, f"cannot be read as a Kubernetes object: {why}", item, id="SD009") for item, why in found]
