"""The `inference_config.yaml` document inside a KAITO inference ConfigMap.

KAITO passes every key under the document's top-level `vllm:` mapping to vLLM as `--<key> <value>`,
so a speculative config is the string scalar `vllm.speculative-config`.

How KAITO reads the file (api/v1beta1/inference_config_validation.go, mirrored by `kaito_problem`):

    type InferenceConfig struct { VLLM map[string]string `yaml:"vllm"` }
    inferenceConfigYAML, ok := cm.Data["inference_config.yaml"]
    if !ok { return apis.ErrMissingField("inference_config.yaml in ConfigMap") }
    if err := yaml.Unmarshal([]byte(inferenceConfigYAML), &inferenceConfig); err != nil {
        return apis.ErrGeneric(fmt.Sprintf("Failed to parse inference_config.yaml: %v", err), ...) }
    ... val, err := strconv.Atoi(strings.TrimSpace(rawMaxModelLen)); if err != nil {
        return apis.ErrInvalidValue(fmt.Sprintf("max-model-len must be an integer: %v", err), "max-model-len") }

gopkg.in/yaml.v2's Unmarshal reads the first YAML document only; into a `string` it takes any scalar's
text as written (a null is ""), and refuses a mapping or a list ("cannot unmarshal !!map into string").
Only `data` is read: a key under `binaryData` is missing to KAITO. We add it as a *text edit*
at `yaml.compose` positions so the user's comments, key order and quoting survive; every edit is
re-parsed and compared with the intended document, and anything we cannot edit safely is re-emitted
whole by PyYAML instead (losing comments, never meaning).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from . import yamlio
from .quoting import goquote

DATA_KEY = "inference_config.yaml"
VLLM_KEY = "vllm"
SPEC_KEY = "speculative-config"
# vLLM's argparse accepts this spelling too, but KAITO's override detection does not (VLLM.md).
SPEC_KEY_UNDERSCORE = "speculative_config"

_STR_TAG = yamlio.STR_TAG
_BOM = "\ufeff"
_COLON = re.compile(r"[ \t]*:")


class InferenceConfigError(ValueError):
    """`inference_config.yaml` is not a YAML mapping we can put a `vllm:` key into."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f" (line {line}, column {column})" if line is not None and column is not None else ""
        super().__init__(f"{DATA_KEY}: {message}{where}")
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Inspection:
    has_speculative_config: bool
    speculative_config_value: object
    has_underscore_spelling: bool
    # Keys vLLM reads as the same flag: `speculative_config`, dotted `speculative-config.<field>` …
    other_spellings: tuple[str, ...] = ()
    underscore_value: object = None

    @property
    def overrides(self) -> bool:
        """The user sets vLLM's speculative config, in any spelling vLLM reads as that flag."""
        return self.has_speculative_config or bool(self.other_spellings)


@dataclass(frozen=True)
class _Parsed:
    node: Any  # the root yaml.Node, or None for an empty document
    doc: Any  # the constructed document
    vllm_key: Any  # the key node of the top-level `vllm` entry, or None
    vllm_value: Any  # its value node


def _error(exc: Exception) -> InferenceConfigError:
    if isinstance(exc, yamlio.ExpansionTooLarge):
        return InferenceConfigError(str(exc))
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return InferenceConfigError(f"not valid YAML: {exc}")
    parts = (getattr(exc, "context", None), getattr(exc, "problem", None))
    problem = ", ".join(part for part in parts if part) or str(exc)
    return InferenceConfigError(f"not valid YAML: {problem}", mark.line + 1, mark.column + 1)


def _compose_first(text: str) -> Any:
    """The first document's node, as KAITO's yaml.Unmarshal reads only the first document.

    Merge keys that make an alias bomb are refused here: expanding `<<: [*a, *a]` doubles at each level,
    for KAITO's runtime (PyYAML flattens merges into copies) as for `_entries`. Plain aliases stay shared
    references everywhere (a bomb of those is copied as written, and KAITO reads only `vllm:`)."""
    node = yamlio.compose_first(text)
    if node is not None and _has_merge_key(node):
        yamlio.check_expansion(node)
    return node


def _has_merge_key(root: yaml.Node) -> bool:
    return any(isinstance(key, yaml.ScalarNode) and key.tag == yamlio.MERGE_TAG
               for node in yamlio.nodes(root) if isinstance(node, yaml.MappingNode) for key, _ in node.value)


def has_later_documents(text: str | None) -> bool:
    """More than one YAML document (a second `---` with content after the first document)."""
    return bool(text) and yamlio.second_document(text.removeprefix(_BOM)) is not None


def _parse(text: str) -> _Parsed:
    """Compose (for positions) and load (for values), then check the shapes KAITO requires."""
    try:
        # Two passes on purpose: constructing a node tree rewrites merge keys (`<<`) in place,
        # which would move the nodes we take positions from.
        node = _compose_first(text)
        doc = yamlio.load_first(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise _error(exc) from None
    if doc is None:
        return _Parsed(node, None, None, None)
    if not isinstance(doc, dict):
        raise InferenceConfigError(f"the document must be a mapping, got {_kind(doc)}")
    vllm = doc.get(VLLM_KEY)
    if vllm is not None and not isinstance(vllm, dict):
        raise InferenceConfigError(f"`{VLLM_KEY}` must be a mapping, got {_kind(vllm)}")
    key, value = yamlio.last_entry(node, VLLM_KEY) if isinstance(node, yaml.MappingNode) else (None, None)
    return _Parsed(node, doc, key, value)


def _kind(value: object) -> str:
    names = {str: "a string", list: "a sequence", bool: "a boolean", int: "an integer", float: "a number"}
    return names.get(type(value), type(value).__name__)


def inspect(text: str | None) -> Inspection:
    """Whether the document already sets a speculative config under `vllm:` (any spelling)."""
    if not text:
        return Inspection(False, None, False)
    vllm = _parse(text.removeprefix(_BOM)).doc
    vllm = (vllm or {}).get(VLLM_KEY) or {}
    others = tuple(str(k) for k in vllm if isinstance(k, str) and (
        k == SPEC_KEY_UNDERSCORE or k.startswith((SPEC_KEY + ".", SPEC_KEY_UNDERSCORE + "."))))
    return Inspection(SPEC_KEY in vllm, vllm.get(SPEC_KEY), SPEC_KEY_UNDERSCORE in vllm, others,
                      vllm.get(SPEC_KEY_UNDERSCORE))


_SHORT_TAGS = {"tag:yaml.org,2002:" + t: "!!" + t for t in
               ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary", "set", "omap")}


def _go_shown(node: yaml.Node) -> str:
    """yaml.v2's way of naming a value in an unmarshal error: its tag, and a scalar's text (cut at 10)."""
    tag = _SHORT_TAGS.get(node.tag, node.tag)
    if isinstance(node, yaml.MappingNode):
        tag = "!!map" if node.tag.startswith("tag:yaml.org,2002:") else tag
        return tag
    if isinstance(node, yaml.SequenceNode):
        return "!!seq" if node.tag.startswith("tag:yaml.org,2002:") else tag
    value = node.value if len(node.value) <= 10 else node.value[:7] + "..."
    return f"{tag} `{value}`"


def kaito_values(text: str) -> tuple[dict[str, str], list[str]]:
    """(the `vllm` map as KAITO's map[string]string holds it, the unmarshal errors KAITO would report).

    Raises InferenceConfigError when the text is not YAML at all."""
    try:
        root = _compose_first(text.removeprefix(_BOM))
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise _error(exc) from None
    if root is None or yamlio.is_null(root):
        return {}, []
    if not isinstance(root, yaml.MappingNode):
        return {}, [f"line {root.start_mark.line + 1}: cannot unmarshal {_go_shown(root)} into "
                    "v1beta1.InferenceConfig"]
    values: dict[str, str] = {}
    errors: list[str] = []
    # yaml.v2 decodes every `vllm:` of the document (a repeated key, one a merge key brings) into the same
    # map in turn: a null empties it, a mapping adds to it, anything else is an error.
    for vllm in (v for k, v in _entries(root) if isinstance(k, yaml.ScalarNode) and k.tag == _STR_TAG
                 and k.value == VLLM_KEY):
        if yamlio.is_null(vllm):
            values = {}
        elif not isinstance(vllm, yaml.MappingNode):
            errors.append(f"line {vllm.start_mark.line + 1}: cannot unmarshal {_go_shown(vllm)} into "
                          "map[string]string (vllm)")
        else:
            _add_entries(vllm, values, errors)
    return values, errors


def _add_entries(vllm: yaml.MappingNode, values: dict[str, str], errors: list[str]) -> None:
    for key, value in _entries(vllm):
        if not isinstance(key, yaml.ScalarNode):
            errors.append(f"line {key.start_mark.line + 1}: cannot unmarshal {_go_shown(key)} into string "
                          "(a key under vllm)")
            continue
        if isinstance(value, yaml.ScalarNode):
            values[key.value] = "" if yamlio.is_null(value) else value.value
        else:
            errors.append(f"line {value.start_mark.line + 1}: cannot unmarshal {_go_shown(value)} into string "
                          f"(vllm.{key.value})")


def _entries(mapping: yaml.MappingNode, depth: int = 0) -> list[tuple[Any, Any]]:
    """A mapping's pairs with merge keys (`<<: *base`) expanded, as yaml.v2 merges them."""
    out: list[tuple[Any, Any]] = []
    for key, value in mapping.value:
        if isinstance(key, yaml.ScalarNode) and key.tag == "tag:yaml.org,2002:merge" and depth < 100:
            sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
            for source in sources:
                if isinstance(source, yaml.MappingNode):
                    out += _entries(source, depth + 1)
            continue
        out.append((key, value))
    return out


def atoi_error(raw: str) -> str | None:
    """Go's strconv.Atoi error for `raw`, or None when Atoi accepts it (an optional sign, then digits)."""
    if re.fullmatch(r"[+-]?[0-9]+", raw):
        return None if -(2 ** 63) <= int(raw) < 2 ** 63 else \
            f"strconv.Atoi: parsing {goquote(raw)}: value out of range"
    return f"strconv.Atoi: parsing {goquote(raw)}: invalid syntax"


def kaito_problem(text: str, max_model_len: bool = True) -> str | None:
    """What KAITO's webhook says about this inference_config.yaml, in its words, or None.

    `max_model_len=False`: the v1alpha1 Workspace webhook, which does not parse max-model-len."""
    try:
        values, errors = kaito_values(text)
    except InferenceConfigError as exc:
        return f"Failed to parse {DATA_KEY}: {exc.message}" + (
            f" (line {exc.line}, column {exc.column})" if exc.line is not None else "")
    if errors:
        hint = (" (KAITO reads every value under vllm as one string: write it as one quoted string)"
                if any(e.endswith(")") and "into string (vllm." in e for e in errors) else "")
        return f"Failed to parse {DATA_KEY}: yaml: unmarshal errors: " + "; ".join(errors) + hint
    raw = values.get("max-model-len", "").strip()
    problem = atoi_error(raw) if raw and max_model_len else None
    if problem:
        return f"max-model-len must be an integer: {problem}"
    return None


def with_speculative_config(text: str | None, json_text: str) -> str:
    """`text` with `vllm.speculative-config: '<json_text>'` set, everything else left as it was."""
    quoted = _single_quoted(json_text)
    if not text or not text.strip():
        return f"{VLLM_KEY}:\n  {SPEC_KEY}: {quoted}\n"
    # libyaml does not count a byte-order mark in its marks while pure PyYAML does; edit without it.
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom):]
    parsed = _parse(body)
    expected = _with_key(parsed.doc, json_text)
    second = yamlio.second_document(body)
    # KAITO reads the first document only; later ones are kept as written, after the first.
    first, rest = (body, "") if second is None else (body[:second], body[second:])
    nl = _newline(body)
    edited = _edit(first, parsed, quoted, nl)
    if edited is None or not _verified(edited + rest, expected):
        edited = _dump(expected)
    return bom + _ensure_newline(edited, nl) + rest if rest else bom + edited


def _single_quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _newline(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _with_key(doc: Any, json_text: str) -> dict:
    # New dicts on the path we change: an alias elsewhere that shares the `vllm` mapping must keep
    # its old value, so a text edit that leaks into it fails the comparison.
    root = dict(doc or {})
    root[VLLM_KEY] = {**(root.get(VLLM_KEY) or {}), SPEC_KEY: json_text}
    return root


def _edit(text: str, parsed: _Parsed, quoted: str, nl: str) -> str | None:
    """The text edit for each layout, or None when the layout is not one we edit in place."""
    entry = f"{SPEC_KEY}: {quoted}"
    node = parsed.node
    if node is None or (yamlio.is_null(node) and node.start_mark.index == node.end_mark.index):
        # Only comments (or `---`): the document is empty, so a new section at the end is all of it.
        return _ensure_newline(text, nl) + f"{VLLM_KEY}:{nl}  {entry}{nl}"
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return None
    key, value = parsed.vllm_key, parsed.vllm_value
    if key is None:
        return _append_section(text, node, entry, nl)
    if _is_alias(key, value):
        return None
    if isinstance(value, yaml.MappingNode) and value.value and not value.flow_style:
        return _set_in_block(text, value, quoted, nl)
    if isinstance(value, yaml.MappingNode) and value.value and value.flow_style:
        return _set_in_flow(text, value, quoted)
    if yamlio.is_null(value) or (isinstance(value, yaml.MappingNode) and not value.value):
        return _fill_empty(text, key, value, entry, nl)
    return None


def _is_alias(key: yaml.Node, value: yaml.Node) -> bool:
    # `key: *name` composes to the anchored node itself, whose text lives earlier in the document
    # and is shared with the anchor's owner: never edit it there.
    return value.start_mark.index < key.end_mark.index


def _ensure_newline(text: str, nl: str) -> str:
    return text if text.endswith("\n") else text + nl


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, index: int, nl: str) -> tuple[str, int]:
    """(text, position) where a new line can go after the line holding `index`.

    A block scalar's end mark already sits at the start of the next line; anything else ends
    mid-line, and the rest of that line can only be a comment.
    """
    if index > 0 and text[index - 1] == "\n":
        return text, index
    end = text.find("\n", index)
    if end < 0:
        text = text + nl
        return text, len(text)
    return text, end + 1


def _indent_of(text: str, key: yaml.Node) -> str | None:
    """The spaces before a key, when only spaces precede it on its line."""
    prefix = text[_line_start(text, key.start_mark.index):key.start_mark.index]
    return prefix if prefix.strip(" ") == "" else None


def _content_end(node: yaml.Node) -> int | None:
    """Where a node's own text ends: block collections end at their last leaf, not at the next token
    (their end mark would include the comments and blank lines that follow them). None when the
    last leaf is an alias, whose text lives earlier in the document."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value and not node.flow_style:
        if isinstance(node, yaml.MappingNode):
            key, child = node.value[-1]
            after = key.end_mark.index
        else:
            child = node.value[-1]
            after = node.value[-2].end_mark.index if len(node.value) > 1 else node.start_mark.index
        # An anchored node is always written before its alias, so an alias starts "too early".
        if child.start_mark.index < after:  # same test as _is_alias, for sequences too
            return None
        node = child
    return node.end_mark.index


def _key_at(text: str, key: yaml.ScalarNode) -> bool:
    # Guard against a loader whose marks disagree with the text we edit.
    span = text[key.start_mark.index:key.end_mark.index]
    # Plain keys have style None in pure PyYAML and "" in libyaml.
    return span == key.value if not key.style else span[:1] == key.style


def _append_section(text: str, root: yaml.MappingNode, entry: str, nl: str) -> str | None:
    last_key = root.value[-1][0]
    indent = _indent_of(text, last_key)
    if indent is None or not _key_at(text, last_key):
        return None
    end = _content_end(root)
    if end is None:
        return None
    text, at = _after_line(text, end, nl)
    section = f"{indent}{VLLM_KEY}:{nl}{indent}  {entry}{nl}"
    return _ensure_newline(text[:at] + section + text[at:], nl)


def _set_in_block(text: str, vllm: yaml.MappingNode, quoted: str, nl: str) -> str | None:
    key, value = yamlio.last_entry(vllm, SPEC_KEY)
    if key is not None:
        return _replace_value(text, key, value, quoted, nl)
    last_key = vllm.value[-1][0]
    indent = _indent_of(text, last_key)
    if indent is None or not _key_at(text, last_key):
        return None
    end = _content_end(vllm)
    if end is None:
        return None
    text, at = _after_line(text, end, nl)
    return _ensure_newline(text[:at] + f"{indent}{SPEC_KEY}: {quoted}{nl}" + text[at:], nl)


def _set_in_flow(text: str, vllm: yaml.MappingNode, quoted: str) -> str | None:
    """`vllm: {a: 1}` -> `vllm: {a: 1, speculative-config: '…'}`: the rest of the line, comments too, stays."""
    key, value = yamlio.last_entry(vllm, SPEC_KEY)
    if key is not None:
        if not isinstance(value, yaml.ScalarNode):
            return None
        return text[:value.start_mark.index] + quoted + text[value.end_mark.index:]
    last = vllm.value[-1][1]
    if last.start_mark.index < vllm.start_mark.index:  # an alias: its text is elsewhere
        return None
    at = last.end_mark.index
    return text[:at] + f", {SPEC_KEY}: {quoted}" + text[at:]


def _colon_after(text: str, key: yaml.Node) -> int | None:
    match = _COLON.match(text, key.end_mark.index)
    return match.end() if match else None


def _replace_value(text: str, key: yaml.ScalarNode, value: yaml.Node, quoted: str, nl: str) -> str | None:
    """Overwrite an existing `speculative-config` value with the new scalar."""
    colon = _colon_after(text, key)
    if colon is None or not _key_at(text, key) or _is_alias(key, value):
        return None
    start, end = value.start_mark.index, _content_end(value)
    if end is None:
        return None
    same_line = "\n" not in text[colon:start]
    if isinstance(value, yaml.ScalarNode) and value.style not in ("|", ">") and same_line and start < end:
        return _ensure_newline(text[:start] + quoted + text[end:], nl)
    # Block scalars, nested mappings and values on later lines: the whole value goes, the key stays.
    tail = nl if end > 0 and text[end - 1] == "\n" else ""
    return _ensure_newline(text[:colon] + " " + quoted + tail + text[end:], nl)


def _fill_empty(text: str, key: yaml.ScalarNode, value: yaml.Node, entry: str, nl: str) -> str | None:
    """`vllm:`, `vllm: ~` or `vllm: {}` becomes a block mapping holding just our entry."""
    colon = _colon_after(text, key)
    indent = _indent_of(text, key)
    if colon is None or indent is None or not _key_at(text, key):
        return None
    start, end = value.start_mark.index, value.end_mark.index
    if start < end:
        if "\n" in text[colon:end]:
            return None  # a null written on a later line: rare enough to leave to the fallback
        text = text[:colon] + text[end:]
    text, at = _after_line(text, colon, nl)
    return _ensure_newline(text[:at] + f"{indent}  {entry}{nl}" + text[at:], nl)


def _verified(edited: str, expected: dict) -> bool:
    try:
        return _equal(_load_quietly(edited), expected)
    except RecursionError:  # a self-referencing document: too clever to edit in place
        return False


def _load_quietly(text: str) -> Any:
    try:
        return yamlio.load_first(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return _Unparsable


class _Unparsable:
    """Sentinel: the edited text no longer parses (equal to nothing)."""


def _equal(a: Any, b: Any, _seen: set[tuple[int, int]] | None = None) -> bool:
    """Deep equality that also tells 1 from 1.0 from True, and lets NaN equal NaN.

    Each pair of shared collections is compared once: aliases make a document a graph, and an alias bomb
    walked as a tree would take forever (any difference still makes the whole answer False)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (dict, list)):
        seen = set() if _seen is None else _seen
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(_equal(a[k], b[k], seen) for k in a)
        return len(a) == len(b) and all(_equal(x, y, seen) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _dump(doc: dict) -> str:
    try:
        return yamlio.dump(doc)  # the project's safe emitter: shared values in full, no `&id001`
    except RecursionError:  # only a self-referencing document needs its aliases
        return yamlio.dump_keeping_aliases(doc)
