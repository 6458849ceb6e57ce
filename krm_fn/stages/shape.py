"""Checks on the input as a whole, before anything KAITO: items a cluster (or kubectl) would refuse."""

import base64
import binascii
import json
import math
import posixpath
import re
from collections.abc import Collection, Iterable, Iterator

import yaml

from ..domain import kinds, object_meta
from ..domain.kinds import Path
from ..domain.localconfig import file_name, is_function_config, is_kustomization, kustomization_folder, stray_files
from ..model.index import Index, ref_of
from ..domain import constants as C
from ..findings import ID_PATTERN, can_disable, known
from ..model.report import about, field_node, where
from ..text import krm, refusals
from ..text.items import Item, ItemError
from ..text import go_scalars as G
from ..text.refusals import merge_conflict
from ..text.tree import ends_line, line_end
from ..text.tree import nodes as G_nodes
from ..text.textedit import last_scalar
from ..text.results import Finding, ResourceRef, Result, finding



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


def _on(found: Finding, item: Item) -> Result:
    """A shape error at the item's first line, not its field's: the field may be missing, or be what is wrong."""
    return found.result(resource=ref_of(item), **where(item))


def shape_errors(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """Items a Kubernetes API would refuse: not a mapping, or without apiVersion, kind, metadata.name.

    kustomize's own files (a kustomization.yaml needs no apiVersion or kind; `config`: those and the
    patches and plugin configs they name) are configuration, not objects: they are never checked here."""
    out = []
    for item in items:
        if item.index in config:
            continue
        if not item.is_mapping:
            out.append(finding("SD003.not-a-mapping", where=_where(item)).result(**where(item)))  # no object to name
            continue
        if is_kustomization(item):
            continue
        dup = item.duplicate  # the reader checked every mapping of every item
        if dup is not None:
            key, first, second = dup
            if key == "<<":  # kubectl merges both; kustomize refuses them ("duplicate merge key")
                found = finding("SD004.merge-key", where=_where(item), first=first, second=second)
            else:
                found = finding("SD004.key", where=_where(item), key=key, first=first, second=second)
            out.append(_on(found, item))
            continue
        if not item.kind:
            what = _not_kubernetes(item)
            if what is not None:
                said = {"where": _where(item), "what": what}
                found = (finding("SD003.helm-file", "kind", **said) if "Helm" in what
                         else finding("SD003.other-file", "kind", **said))
                out.append(_on(found, item))
                continue
            if not item.api_version:
                out.append(_on(finding("SD003.no-kind-or-api-version", where=_where(item)), item))
                continue
        if item.odd is not None:
            field, text, reads = item.odd
            said = {"where": _where(item), "path": field, "text": text}
            found = (finding("SD003.unquoted-timestamp", field, **said) if reads == "a timestamp"
                     else finding("SD003.unquoted-not-a-string", field, reads=reads, **said))
            out.append(_on(found, item))
            continue
        fields = [("apiVersion", item.api_version), ("kind", item.kind)]
        if _needs_name(item):
            fields.append(("metadata.name", item.name))
        missing = [f for f, v in fields if not v]
        if missing:
            out.append(_on(finding("SD003.missing-field", missing[0], where=_where(item), path=missing[0]), item))
    return out


def disabled_per_object(items: Iterable[Item]) -> tuple[dict[ResourceRef, frozenset[str]], list[Result]]:
    """The ids each object's `kaito-specdec.dev/disable` annotation turns off for that object alone, and a
    warning per entry it cannot turn off (not an id, unknown, or one `disable` may not name)."""
    out: dict[ResourceRef, frozenset[str]] = {}
    said: list[Result] = []
    field = f"metadata.annotations[{C.DISABLE_ANNOTATION}]"
    for item in items:
        if not item.is_mapping:
            continue
        value = item.annotation(C.DISABLE_ANNOTATION)
        if value is None:
            if C.DISABLE_ANNOTATION in item.ann_keys:
                said.append(about(finding("SD011.not-a-string", field), item))
            continue
        ids: set[str] = set()
        for entry in (e.strip() for e in value.split(",")):
            if not entry:
                continue
            wrong = _cannot_disable(entry, field)
            if wrong is not None:
                said.append(about(wrong, item))
            else:
                ids.add(entry)
        if ids:
            out[ref_of(item)] = out.get(ref_of(item), frozenset()) | ids
    return out, said


def _cannot_disable(entry: str, field: str) -> Finding | None:
    """SD011 for an entry of the annotation that turns nothing off: not an id, unknown, or one `disable` may not
    name."""
    if not re.fullmatch(ID_PATTERN, entry):
        return finding("SD011.malformed-id", field, entry=entry)
    if not known(entry):
        return finding("SD011.unknown-id", field, entry=entry)
    if not can_disable(entry):
        return finding("SD011.cannot-disable", field, entry=entry)
    return None


def stray_kustomize_files(items: list[Item]) -> list[Result]:
    """SD010 per file that looks like kustomize's own in a kustomization's folder that does not list it."""
    return [about(finding("SD010", where=_where(item), folder=kustomization_folder(item)), item)
            for item in stray_files(items)]


def duplicates(items: list[Item], config: Collection[int] = (), apart: bool = False) -> list[Result]:
    """The same object twice (a file given twice, a copy-paste): kustomize would reject the output, kpt
    would write both, a cluster would keep one of them. `apart` (validate mode: nothing is written as one
    stream): the same object in files of two folders is no duplicate but a copy per cluster or environment,
    as GitOps repositories keep them (Flux's clusters/staging and clusters/production, each synced alone)."""
    seen: dict[tuple[str, ...], Item] = {}
    out = []
    for item in items:
        if not (item.is_mapping and item.kind and item.name) or item.index in config or \
                is_function_config(item) or item.annotation(krm.LOCAL_CONFIG_ANNOTATION) == "true":
            continue  # configuration for kustomize or kpt (each overlay's `labels` transformer, say)
        key: tuple[str, ...] = (item.api_version.split("/")[0] if "/" in item.api_version else "", item.kind,
                                item.namespace, item.name)
        if apart:
            key += (posixpath.dirname(item.file()[0] or ""),)
        first = seen.setdefault(key, item)
        if first is not item:
            where = first.file()[0] or f"items[{first.index}]"
            out.append(about(finding("SD008", first=where), item))
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
            out.append(about(finding("SD012", _last_path(item.node)), item))
    return out


# A keep block scalar's header (`|+`, `>2+`, `|+2`): SD069's only candidates.
_KEEP_HEADER = re.compile(r"[|>](?:[1-9]?\+|\+[1-9])")
_COMMENT_NEXT = re.compile(r"[ \t]*#")


def keep_blocks_before_comments(items: list[Item]) -> list[Result]:
    """SD069 per object whose last value is a keep block scalar (`|+`) that keeps a blank line and is followed
    by a comment line in its document: kubectl reads the blank lines as written, `kustomize build` writes the
    value back with one more line break (kustomize v5.5.0; `\n# c` after `|+ x`: kubectl "x\n\n", kustomize
    "x\n\n\n"). render only, as SD012 (kpt has read a ResourceList's items already). Only items whose text
    holds such a header are composed for it."""
    out = []
    for item in items:
        src = item.source
        if not item.origin or not item.is_mapping or not _KEEP_HEADER.search(src, item.start, item.end):
            continue
        last = last_scalar(item.node)
        if last is None or last.style not in ("|", ">") or not last.value.endswith("\n\n") \
                or not _COMMENT_NEXT.match(src, last.end_mark.index):
            continue
        header = src[last.start_mark.index:line_end(src, last.start_mark.index)].split("#")[0]
        if "+" in header:
            out.append(about(finding("SD069", _last_path(item.node)), item))
    return out


def _last_path(node: yaml.Node) -> str:
    """The path of the last value in `node` (its last key's, all the way down)."""
    path = ""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value:
        if isinstance(node, yaml.MappingNode):
            path, node = f"{path}.{node.value[-1][0].value}".lstrip("."), node.value[-1][1]
        else:
            path, node = f"{path}[{len(node.value) - 1}]", node.value[-1]
    return path


def json_kubectl_refuses(items: list[Item]) -> list[Result]:
    """render: a file kubectl reads as JSON (it starts with `{`) and refuses, which kustomize and kpt read as
    YAML (refusals.kubectl_json_fault): said once, on the file's first object."""
    out: list[Result] = []
    seen: set[int] = set()
    for item in items:
        src = item.source
        if not item.origin or id(src) in seen:
            continue
        seen.add(id(src))
        fault = refusals.kubectl_json_fault(src)
        if fault is not None:
            out.append(about(finding("SD013", line=fault[0], column=fault[1]), item))
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
    return [about(finding("SD009", reason=why), item) for item, why in found]


def cycles(items: list[Item], reported: Collection[int]) -> list[Result]:
    """SD009 per object with an alias inside the node its anchor names (`spec: &s {copy: *s}`), whatever the
    object is: kubectl and kustomize refuse the whole file (it would expand without end). The walk notes it
    (Item.cycle); an object a stage reads and found unreadable (`reported`) says so already."""
    out = []
    for item in items:
        if item.cycle and item.index not in reported:
            try:
                item.data()
            except ItemError as exc:
                out.append(about(finding("SD009", reason=str(exc)), item))
    return out


def fractions(index: Index) -> list[Result]:
    """SD017 per integer field a check reads (kinds.integer_fields, KServe's pipelineParallelSize) that holds
    a number with a fraction: kubectl sends it as it is and the API server refuses it (a whole `2.0` is the
    integer 2 to every reader, and to the checks: kinds.integer)."""
    found: list[tuple[Item, object, Path]] = [(w.item, w.data, path) for w in index.workloads
                                              for path in kinds.integer_fields(w.spec.kind, w.data)]
    found += [(p.item, p.data, p.spec.kserve.pipeline) for p in index.plain if p.spec.kserve is not None]
    out = []
    for item, data, path in found:
        if kinds.not_whole(kinds.get(data, path)):
            field = kinds.dotted(path)
            node = field_node(item.passing_node(), field)
            text = node.value if isinstance(node, yaml.ScalarNode) else repr(kinds.get(data, path))
            out.append(about(finding("SD017", field, text=text), item))
    return out


# What _unsendable may find: `.nan` and `.inf` in go-yaml's spellings (go_scalars.GO_WORDS), or a tag.
_UNSENDABLE_HINT = re.compile(r"\.(?:nan|NaN|NAN|inf|Inf|INF)|!!|!<")
# A key with a tag go-yaml v3 does not read as a string's (`!!map name:`, `!foo a:`): kubectl reads the key's
# text, kustomize and kpt refuse the object. (The composed node holds `!!str` for any tag go-yaml v2 does not
# know, so the text says.)
_TAGGED_KEY = re.compile(r"(?:^[ \t]*(?:- +)*|[{,][ \t]*)(![^\s,{}\[\]]*)[ \t]+"
                         r"([^\s:#,{}\[\]][^:\n#,{}]*?)[ \t]*:(?:[ \t]|$)", re.M)
_STRING_TAGS = frozenset(("!", "!!str", "!<tag:yaml.org,2002:str>"))
# The tags go-yaml decodes a scalar's text for (a timestamp's and binary data's own rules are not mirrored).
_DECODED = frozenset((G.BOOL_TAG, G.INT_TAG, G.FLOAT_TAG, G.NULL_TAG))
_KEY = re.compile(r"[A-Za-z0-9_/-]+")


def unsendable(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """SD018 per object holding a value kubectl cannot turn into JSON (NaN, an infinity) or a tagged scalar
    go-yaml cannot decode as its tag, anywhere in it: kubectl and kustomize refuse the whole file. Only items
    whose text can hold one (or an alias that may bring one in) are composed for it."""
    out = []
    for item in items:
        if not item.is_mapping or item.index in config or is_kustomization(item) \
                or not (item.kind and item.api_version):
            continue
        if item.shared or item.derive or _UNSENDABLE_HINT.search(item.source, item.start, item.end):
            found = _unsendable(item.node)
            if found is not None:
                out.append(about(found, item))
    return out


# A line (or flow entry) whose key may read as no string: a number, a boolean, null (go_scalars.GO_WORDS).
_ODD_KEY_HINT = re.compile(r"(?:^[ \t]*(?:- +)*|[{,][ \t]*)(?:[-+.0-9~][^:\n]*|(?i:y|n|yes|no|on|off|true|false|null))"
                           r"[ \t]*:(?:[ \t]|$)", re.M)
_KEY_READS = G.PLAIN_READS


def odd_keys(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """SD019 per object with a key that is no string (`1: x`, `true: x`, `~: x`): kubectl sends its text,
    kustomize and kpt refuse the object, or read `yes` as the string where kubectl reads `true`. A warning:
    kubectl alone applies it. Only items whose text can hold such a key are composed for it."""
    out = []
    for item in items:
        if not item.is_mapping or item.index in config or is_kustomization(item) or item.duplicate is not None \
                or not (item.kind and item.api_version):
            continue  # (a key twice is SD004's error already; a file that is no object SD003's)
        if item.alias_key is not None:  # (and on: a key that is no string elsewhere in it is said too)
            out.append(_alias_key(item, *item.alias_key))
        tagged = next((m for m in _TAGGED_KEY.finditer(item.source, item.start, item.end)
                       if m.group(1) not in _STRING_TAGS
                       or (m.group(1) == "!" and G.plain_reads_as(m.group(2)) is not None)), None)
        if tagged is not None:
            found = finding("SD019.refused", text=f"{tagged.group(1)} {tagged.group(2)}",
                            reads=f"a key tagged {tagged.group(1)}", key=tagged.group(2))
            out.append(about(found, item))
            continue
        if not _ODD_KEY_HINT.search(item.source, item.start, item.end):
            continue
        for node in G_nodes(item.node):
            if not isinstance(node, yaml.MappingNode):
                continue
            key = next((k for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.tag in _KEY_READS), None)
            if key is not None:
                out.append(about(_odd_key(key), item))
                break
    return out


def _alias_key(item: Item, alias: str, text: str, line: int, variant: str, reads: str) -> Result:
    """SD019 on the line of an alias used as a key that kubectl and kustomize read apart (reader.py:
    odd_alias_key): its line from the walk, the field being a key's, which no path names."""
    if variant == "read-apart":  # a plain `y`: `true` to kubectl, the string "y" to go-yaml v3
        found = about(finding("SD019.read-apart", text=text, key=str(G.go_resolve(text)[1]).lower()), item)
    else:
        found = about(finding("SD019.alias", alias=alias, text=text, reads=reads), item)
    return found._replace(file_line=line + 1) if found.file_line is not None and item.home is None else found


def _odd_key(key: yaml.ScalarNode) -> Finding:
    """What each reader makes of a key that is no string (null: none can send it, SD018)."""
    if key.tag == G.NULL_TAG:  # "unsupported map key" / "yaml: unmarshal errors"
        return finding("SD018.not-json", text=key.value or "(empty)", reads="a null key")
    value = G.go_resolve(key.value)[1]
    if isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, float):
        text = str(kinds.integer(value)) if kinds.integer(value) is not None else repr(value)
    else:
        text = key.value if key.tag == G.TIMESTAMP_TAG else str(value)
    if key.value in G.V2_ONLY_WORDS:
        return finding("SD019.read-apart", text=key.value, key=text)
    return finding("SD019.refused", text=key.value, reads=_KEY_READS[key.tag], key=text)


def _unsendable(root: yaml.Node) -> Finding | None:
    """The first value below `root` that kubectl cannot send, as a finding on its field."""
    for node, path, key in _scalars(root):
        found = _scalar_fault(node, path, key)
        if found is not None:
            return found
    return None


# A `!` tag (or `!<!>`, the same written verbatim) before a value, an anchor on either side (`key: ! 5`,
# `- &a ! true`, `[! &a 5]`, `key: !` with the value on the next line or none): SD068's only candidates, each at
# where its node starts (its first property).
_NON_SPECIFIC = re.compile(r"(?:^|(?<=[\s\[{,]))(?:&[^\s,\[\]{}]+[ \t]+)?(?:!|!<!>)(?=[\s,\]}]|$)", re.M)


def nonspecific_tags(items: list[Item], config: Collection[int] = ()) -> list[Result]:
    """SD068 on the first value of an object tagged `!` whose text, plain, is no string (`! 5`, `! true`, an
    empty `!`): a string to kubectl, a number or a boolean once kustomize or kpt has written it back without the
    tag (kyaml drops it: `kpt fn source` and `kustomize build` print `x: 5`). The first only, as SD066 and SD018
    (each said again finds its field from the root). Only items whose text holds such a tag are composed."""
    out = []
    for item in items:
        if not item.is_mapping or item.index in config or not (item.kind and item.api_version):
            continue
        if item.source.find("!", item.start, item.end) < 0:  # (a search in place: most items hold none)
            continue
        tags = {m.start() for m in _NON_SPECIFIC.finditer(item.source, item.start, item.end)}
        if not tags:
            continue
        for node, path, key in _scalars(item.node):
            reads = None if key or node.style or node.start_mark.index not in tags else G.plain_reads_as(node.value)
            if reads is not None:
                out.append(about(finding("SD068", path, text=node.value, reads=reads), item))
                break
    return out


def _scalars(root: yaml.Node) -> Iterator[tuple[yaml.ScalarNode, str, bool]]:
    """Every scalar below `root` once, with its field's path and whether it is a key (merged keys as the
    mapping's own)."""
    stack: list[tuple[yaml.Node, str, bool]] = [(root, "", False)]
    seen: set[int] = set()
    while stack:
        node, path, key = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            yield node, path, key
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((v, f"{path}[{i}]", False) for i, v in reversed(list(enumerate(node.value))))
        elif isinstance(node, yaml.MappingNode):
            for k, v in reversed(node.value):
                if isinstance(k, yaml.ScalarNode) and k.tag == G.MERGE_TAG:
                    stack.append((v, path, False))  # its keys are the mapping's own
                    continue
                name = k.value if isinstance(k, yaml.ScalarNode) else "?"
                below = f"{path}.{name}".lstrip(".") if _KEY.fullmatch(name) else f"{path}[{name}]"
                stack.append((v, below, False))
                stack.append((k, below, True))


def _scalar_fault(node: yaml.ScalarNode, path: str, key: bool) -> Finding | None:
    """go-yaml v2's decoding of a scalar (go_scalars.go_scalar) and encoding/json's of its value: a value
    (not a key: kubectl writes a key as its text) that is NaN or an infinity, or a tag its text is not."""
    if node.tag == G.TIMESTAMP_TAG and not re.match(r"[0-9]{4}-[0-9]", node.value):
        # go-yaml's parseTimestamp reads dates only ("cannot decode !!str `http` as a !!timestamp")
        return finding("SD018.cannot-decode", path, text=f"!!timestamp {node.value}",
                       reason=f"cannot decode !!str `{node.value}` as a !!timestamp")
    if node.tag == G.BINARY_TAG and not _base64(node.value):
        # go-yaml v2.4.0 decode.go:419-422 (v3.0.1 decode.go:576 the same): `base64.StdEncoding.DecodeString`,
        # else failf("!!binary value contains invalid base64 data")
        return finding("SD018.cannot-decode", path, text=f"!!binary {node.value}",
                       reason="!!binary value contains invalid base64 data")
    if node.tag not in _DECODED:
        return None
    tag, value = G.go_resolve(node.value)
    if tag != node.tag and not (node.tag == G.FLOAT_TAG and tag == G.INT_TAG):
        written = f"!!{node.tag.rsplit(':', 1)[-1]} {node.value}"
        reason = f"cannot decode !!{tag.rsplit(':', 1)[-1]} `{node.value}` as a !!{node.tag.rsplit(':', 1)[-1]}"
        return finding("SD018.cannot-decode", path, text=written, reason=reason)
    if not key and isinstance(value, float) and not math.isfinite(value):
        reads = "NaN" if math.isnan(value) else "infinity" if value > 0 else "minus infinity"
        return finding("SD018.not-json", path, text=node.value, reads=reads)
    return None


def no_string_values(index: Index) -> list[Result]:
    """SD066 per object with a label or an annotation whose value is no string (`2`, `true`, `!!int 2`, a
    mapping): kubectl refuses the object (`cannot unmarshal number into Go struct field
    ObjectMeta.metadata.annotations of type string`), and so does the API server; kustomize reads it. The
    reader's walk notes it (Item.no_string): nothing is composed for it. The opt-in annotation of a workload
    is its checks' to name (checks/annotation_value.py, plain_vllm's opt-in)."""
    out = []
    # (a child's own opt-in no check reads: its parent's value is cascaded over it, so it is said here)
    checked = ({w.item.index for w in index.workloads} - index.child_items()) | {p.item.index for p in index.plain}
    for item in index.items:
        if item.no_string is None or not item.is_mapping or item.index in index.config or is_kustomization(item) \
                or not (item.kind and item.api_version):
            continue
        name, text, reads = item.no_string
        if name == f"metadata.annotations[{C.ENABLE_ANNOTATION}]" and item.index in checked:
            continue
        out.append(about(finding("SD066", name, what=f"{text} reads as {reads}" if text else f"is {reads}"), item))
    return out


def typed_metadata(index: Index) -> list[Result]:
    """SD067 per field of an object's metadata whose value is of another type than ObjectMeta's Go type
    (domain/object_meta.py: `generation: "5"`, an ownerReference's `controller: 'true'`, `finalizers: x`):
    kubectl and the API server refuse the object, kustomize reads it. Only the items whose metadata has a field
    of a type to check (Item.typed_meta, which the reader's walk sets) are composed. A name or a namespace that
    is no string is SD003's (the identity's `odd`, or no metadata.name), said once."""
    out = []
    for item in index.items:
        if not item.typed_meta or not item.is_mapping or item.index in index.config or is_kustomization(item) \
                or not (item.kind and item.api_version):
            continue
        try:
            data = item.data()
        except ItemError:
            continue  # (why it cannot be read is its own finding's: SD009, SD018 …)
        meta = data.get("metadata") if isinstance(data, dict) else None
        for wrong in object_meta.wrong(meta) if isinstance(meta, dict) else ():
            if (item.odd is not None and wrong.path == item.odd[0]) or (wrong.path == "metadata.name"
                                                                        and _needs_name(item)):
                continue
            want, fix = object_meta.wants(wrong.want)
            out.append(about(finding("SD067", wrong.path, what=_what(wrong), want=want, fix=fix,
                                     go=_go_field(wrong.go)), item))
    return out


def _go_field(go: str) -> str:
    """`ObjectMeta.generation`, or `ObjectMeta's OwnerReference.controller`."""
    return go if go.startswith("ObjectMeta.") else f"ObjectMeta's {go}"


def _what(wrong: object_meta.Wrong) -> str:
    """The value as written (as kubectl reads it) and what it is."""
    value = wrong.value
    if isinstance(value, dict):
        return "the value is a mapping"
    if isinstance(value, list):
        return "the value is a list"
    if isinstance(value, bool):
        return f"`{str(value).lower()}` is a boolean"
    if isinstance(value, (int, float)):
        if kinds.not_whole(value):
            return f"`{value}` is a number with a fraction"
        return f"`{value}` is a number" if wrong.want != object_meta.INTEGER else f"`{value}` is past int64's range"
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    shown = "'" + text.replace("'", "''") + "'" if text.isprintable() else json.dumps(text)
    if wrong.why:
        return f"`{shown}` is no time Go reads ({wrong.why})"
    return f"`{shown}` is a string"


def _base64(text: str) -> bool:
    """Whether Go's base64.StdEncoding decodes `text`: it skips line breaks, wants the padding, and takes stray
    bits in the last character (as Python's strict mode does)."""
    try:
        base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def merge_disputes(items: list[Item], config: Collection[int] = (), reported: Collection[int] = ()) -> list[Result]:
    """SD009 per object, of any kind, with a merge key kubectl and kustomize read apart (refusals.merge_conflict:
    a key set again by `<<` after it, a `<<` one of them does not merge): they send different objects, whatever
    the object is (`reported`: the items the index found unreadable already). Only items whose text can hold a
    merge key are composed for it."""
    out = []
    for item in items:
        if not item.is_mapping or item.index in config or item.index in reported:
            continue
        src, a, b = item.source, item.start, item.end  # (no copy of the region: a search in place)
        if item.shared or src.find("<<", a, b) >= 0 or src.find("merge", a, b) >= 0:
            why = merge_conflict(item.node)
            if why is not None:
                out.append(about(finding("SD009", reason=why), item))
    return out
