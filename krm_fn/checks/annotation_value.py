"""annotation-value: the annotation must be exactly the string "true" or "false".

KAITO rule mirrored (v0.13.0 webhook): the value is read from the annotations map, a
`map[string]string`, and anything but "true" / "false" is refused with
`annotation kaito.sh/enable-speculative-decoding has invalid value %q; expected "true" or "false"`.

PASS:  kaito.sh/enable-speculative-decoding: "true"   (or "false", or no annotation at all)
FAIL:  kaito.sh/enable-speculative-decoding: "True"   (case matters)
FAIL:  kaito.sh/enable-speculative-decoding: "yes"
FAIL:  kaito.sh/enable-speculative-decoding: true     (unquoted: YAML reads a boolean, and the API server
       refuses a non-string annotation before KAITO sees it)

An unquoted value is named as written (`yes`, `on`, `1`, `True`), with the reason: the quoted form of what
YAML made of it ("true", "1") would hide the mistake.
"""

import yaml

from ..domain import kaito_releases
from ..domain.kinds import Path, dotted
from ..model.config import Settings
from ..model.index import Workload
from ..text.tree import child
from ..text.results import Finding, finding

ID = "annotation-value"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def written_at(node: yaml.Node | None, annotations: Path) -> str | None:
    """The annotation's value as written under the annotations mapping at `annotations` of `node`."""
    for key in (*annotations, "kaito.sh/enable-speculative-decoding"):
        node = child(node, key) if isinstance(key, str) else None  # annotations sit under mappings only
    return node.value if isinstance(node, yaml.ScalarNode) else None


def reads_as(value: object) -> str:
    """What YAML made of an unquoted value, in words (`a boolean`, `a number`, `null`, `a list`)."""
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return "a " + type(value).__name__  # a timestamp, binary data …


def check(w: Workload, settings: Settings | None = None) -> Finding | None:
    if w.value == "true":
        return None
    return invalid(w.value, w.item.node, w.spec.annotations)


def invalid(value: object, node: yaml.Node | None, annotations: Path) -> Finding | None:
    """KAITO's refusal of an opt-in `value` other than "true", read from the annotations mapping at path
    `annotations` of the item `node` (a KAITO workload's place, or a plain workload's)."""
    field = dotted(annotations) + "[kaito.sh/enable-speculative-decoding]"
    if isinstance(value, str):
        return finding("SD101", field, value=value)
    as_written = written_at(node, annotations)
    # A mapping or a list has no one-word spelling; an empty value (`key:`) shows as (empty).
    shown = "(empty)" if as_written == "" else as_written if as_written is not None else "(a collection)"
    return finding("SD102", field, written=shown, reads_as=reads_as(value))
