"""The `inference_config.yaml` document inside a KAITO inference ConfigMap.

KAITO passes every key under the document's top-level `vllm:` mapping to vLLM as `--<key> <value>`,
so a speculative config is the string scalar `vllm.speculative-config`.

KAITO's webhook reads the file into `VLLM map[string]string` (checks/inference_configmap.py quotes it) with
gopkg.in/yaml.v2's Unmarshal, which reads the first YAML document only; into a `string` it takes any scalar's
text as written (a null is ""), and refuses a mapping or a list ("cannot unmarshal !!map into string").

The inference server reads the same file again (presets/workspace/inference/vllm/inference_api.py,
`KaitoConfig.from_yaml`: `config_data = yaml.safe_load(file)`), with PyYAML's pure-Python SafeLoader:
`safe_load` never uses libyaml. That reader is the stricter one (it refuses a tab after `max-model-len:`,
which yaml.v2 and libyaml take for a blank), so the file is always read here with it
(StrictPureLoader, below), whatever backend this process has: the same verdict with or without libyaml.

The edit itself is textedit's (`edit_document`), the same engine that edits items: the user's comments, key
order and quoting survive.
"""


import re
from typing import Any, NamedTuple

import yaml

from ..text import pointer, textedit, yamlio

from ..text import tree

from ..text import refusals

from ..text import go_scalars
from ..text.quoting import goquote

DATA_KEY = "inference_config.yaml"
VLLM_KEY = "vllm"
SPEC_KEY = "speculative-config"
# vLLM's argparse accepts this spelling too, but KAITO's override detection does not.
SPEC_KEY_UNDERSCORE = "speculative_config"

_BOM = "\ufeff"


class InferenceConfigError(ValueError):
    """`inference_config.yaml` is not a YAML mapping we can put a `vllm:` key into."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f" (line {line}, column {column})" if line is not None and column is not None else ""
        super().__init__(f"{DATA_KEY}: {message}{where}")
        self.message = message
        self.line = line
        self.column = column


class Inspection(NamedTuple):
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


class StrictPureLoader(refusals.Depth, yaml.SafeLoader):
    """KAITO's inference server's reader (see above), not the function's: PyYAML's pure-Python SafeLoader
    as it ships, but for refusing deep nesting and reading timestamps as strings, as yamlio does."""


StrictPureLoader.add_constructor("tag:yaml.org,2002:timestamp", yamlio.timestamp_as_str)


def _error(exc: Exception, runtime: bool = False) -> InferenceConfigError:
    if isinstance(exc, InferenceConfigError):
        return exc
    if isinstance(exc, refusals.ExpansionTooLarge):
        return InferenceConfigError(str(exc))
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return InferenceConfigError(f"not valid YAML: {exc}")
    parts = (getattr(exc, "context", None), getattr(exc, "problem", None))
    problem = ", ".join(part for part in parts if part) or str(exc)
    if runtime:
        # A tab yaml.v2 takes for a blank: the webhook admits the ConfigMap, the inference pod fails at start.
        return InferenceConfigError(
            f"KAITO's inference server (Python's yaml.safe_load) cannot read it and the pod fails; write spaces for tabs: {problem}",  # noqa: E501
            mark.line + 1, mark.column + 1)
    return InferenceConfigError(f"not valid YAML: {problem}", mark.line + 1, mark.column + 1)


def _compose_first(text: str) -> Any:
    """The first document's node, as KAITO's yaml.Unmarshal reads only the first document: read as the
    webhook reads it (yaml.v2, whose rules both yamlio backends follow), then as the inference server does
    (StrictPureLoader), which must read it too; the node is the webhook's.

    Merge keys that make an alias bomb are refused here: expanding `<<: [*a, *a]` doubles at each level,
    for KAITO's runtime (PyYAML flattens merges into copies) as for `_entries`. Plain aliases stay shared
    references everywhere (a bomb of those is copied as written, and KAITO reads only `vllm:`)."""
    node = yamlio.compose_first(text)
    try:
        yamlio.first_of(yaml.compose_all(text, Loader=StrictPureLoader))
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise _error(exc, runtime=True) from None
    if node is not None and _has_merge_key(node):
        refusals.check_expansion(node)
    return node


def _has_merge_key(root: yaml.Node) -> bool:
    return any(isinstance(key, yaml.ScalarNode) and key.tag == go_scalars.MERGE_TAG
               for node in tree.nodes(root) if isinstance(node, yaml.MappingNode) for key, _ in node.value)


def has_later_documents(text: str | None) -> bool:
    """More than one YAML document (a second `---` with content after the first document)."""
    if not text:
        return False
    return yamlio.second_document(text.removeprefix(_BOM), StrictPureLoader) is not None


def _parse(text: str) -> Any:
    """The first document's data, after refusing what KAITO cannot read (or a merge-key bomb)."""
    try:
        _compose_first(text)
        doc = yamlio.first_of(yaml.load_all(text, Loader=StrictPureLoader))
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise _error(exc) from None
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise InferenceConfigError(f"the document must be a mapping, got {_kind(doc)}")
    vllm = doc.get(VLLM_KEY)
    if vllm is not None and not isinstance(vllm, dict):
        raise InferenceConfigError(f"`{VLLM_KEY}` must be a mapping, got {_kind(vllm)}")
    return doc


def _kind(value: object) -> str:
    names = {str: "a string", list: "a sequence", bool: "a boolean", int: "an integer", float: "a number"}
    return names.get(type(value), type(value).__name__)


def inspect(text: str | None) -> Inspection:
    """Whether the document already sets a speculative config under `vllm:` (any spelling)."""
    if not text:
        return Inspection(False, None, False)
    vllm = _parse(text.removeprefix(_BOM))
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
        return "!!map" if node.tag.startswith("tag:yaml.org,2002:") else tag
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
    if root is None or tree.is_null(root):
        return {}, []
    if not isinstance(root, yaml.MappingNode):
        return {}, [f"line {root.start_mark.line + 1}: cannot unmarshal {_go_shown(root)} into v1beta1.InferenceConfig"]
    values: dict[str, str] = {}
    errors: list[str] = []
    # yaml.v2 decodes every `vllm:` of the document (a repeated key, one a merge key brings) into the same
    # map in turn: a null empties it, a mapping adds to it, anything else is an error.
    for vllm in (v for k, v in _entries(root) if isinstance(k, yaml.ScalarNode) and k.tag == go_scalars.STR_TAG
                 and k.value == VLLM_KEY):
        if tree.is_null(vllm):
            values = {}
        elif not isinstance(vllm, yaml.MappingNode):
            errors.append(
                f"line {vllm.start_mark.line + 1}: cannot unmarshal {_go_shown(vllm)} into map[string]string (vllm)")
        else:
            _add_entries(vllm, values, errors)
    return values, errors


def _add_entries(vllm: yaml.MappingNode, values: dict[str, str], errors: list[str]) -> None:
    for key, value in _entries(vllm):
        if not isinstance(key, yaml.ScalarNode):
            errors.append(
                f"line {key.start_mark.line + 1}: cannot unmarshal {_go_shown(key)} into string (a key under vllm)")
            continue
        if isinstance(value, yaml.ScalarNode):
            values[key.value] = "" if tree.is_null(value) else value.value
        else:
            errors.append(
                f"line {value.start_mark.line + 1}: cannot unmarshal {_go_shown(value)} into string (vllm.{key.value})")


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
        digits = raw.lstrip("+-").lstrip("0") or "0"
        # Past 19 significant digits no int64 fits (and Python refuses to convert past 4300 digits).
        value = (-int(digits) if raw.startswith("-") else int(digits)) if len(digits) <= 19 else None
        if value is not None and -(2 ** 63) <= value < 2 ** 63:
            return None
        return f"strconv.Atoi: parsing {goquote(raw)}: value out of range"
    return f"strconv.Atoi: parsing {goquote(raw)}: invalid syntax"


def set_ops(doc: Any, json_text: str) -> list[dict[str, Any]]:
    """JSON Patch that sets `vllm.speculative-config` in a parsed document: a missing, null or empty
    `vllm` is written whole (as a block mapping), else the key is added to it or replaced."""
    path = pointer.build((VLLM_KEY, SPEC_KEY))
    if doc is None:
        return [{"op": "add", "path": "", "value": {VLLM_KEY: {SPEC_KEY: json_text}}}]
    if not doc.get(VLLM_KEY):
        return [{"op": "add", "path": pointer.build((VLLM_KEY,)), "value": {SPEC_KEY: json_text}}]
    return [{"op": "add", "path": path, "value": json_text}]


def remove_ops(doc: Any) -> list[dict[str, Any]]:
    """JSON Patch that removes `vllm.speculative-config` (`vllm: {}` stays when it was the only key)."""
    vllm = doc.get(VLLM_KEY) if isinstance(doc, dict) else None
    if not isinstance(vllm, dict) or SPEC_KEY not in vllm:
        return []
    return [{"op": "remove", "path": pointer.build((VLLM_KEY, SPEC_KEY))}]


def with_speculative_config(text: str | None, json_text: str) -> str:
    """`text` with `vllm.speculative-config: '<json_text>'` set, everything else left as it was."""
    if not text or not text.strip():
        quoted = "'" + json_text.replace("'", "''") + "'"
        return f"{VLLM_KEY}:\n  {SPEC_KEY}: {quoted}\n"
    doc = _parse(text.removeprefix(_BOM))  # refuses what KAITO cannot read, in its terms
    return textedit.edit_document(text, set_ops(doc, json_text), quote="'")


def without_speculative_config(text: str) -> str:
    """`text` without `vllm.speculative-config`, everything else left as it was."""
    doc = _parse(text.removeprefix(_BOM))
    ops = remove_ops(doc)
    return textedit.edit_document(text, ops) if ops else text
