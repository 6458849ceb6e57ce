"""string-fields: the preset name and the config references are strings, as KAITO's CRDs declare them.

KAITO rule mirrored (the CRDs' OpenAPI schemas, config/crd/bases/kaito.sh_*.yaml: `name`, `config` and
`runtimeConfig` are `type: string`): the API server refuses any other value before a webhook runs, e.g.
`inference.preset.name: Invalid value: "integer": inference.preset.name in body must be of type string`.
A YAML number, boolean or collection there is named as written; the function never replaces it with a
derived ConfigMap's name (the user's value would be lost) and never calls it a missing preset.

PASS:  inference.preset.name: phi-4, inference.config: "5"
FAIL:  inference.preset.name: 123 (unquoted: a number), spec.model.name: true (a boolean)
FAIL:  inference.config: 5, spec.roles[0].runtimeConfig: 0x1F, spec.template.inference.preset.name: [phi-4]
FAIL:  inference.config: 2024-01-01   (a date: kustomize and kpt rewrite it as a timestamp, kubectl reads the text)
"""

import yaml

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..model.report import field_node
from ..text import go_scalars
from ..text.results import Finding, finding
from .annotation_value import reads_as

ID = "string-fields"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def _finding(w: Workload, field: str, value: object) -> Finding:
    node = field_node(w.item.node, field)
    if isinstance(value, (dict, list)) or not isinstance(node, yaml.ScalarNode):
        return finding("SD107", field, path=field, reads_as=reads_as(value))
    return finding("SD108.unquoted", field, path=field, written=node.value, reads_as=reads_as(value))


def not_a_string(data: object, path: kinds.Path) -> bool:
    value = kinds.get(data, path)
    return value is not None and not isinstance(value, str)


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    out = []
    for path in (w.spec.preset, *w.spec.config_refs(w.data)):
        field = kinds.dotted(path)
        if not_a_string(w.data, path):
            out.append(_finding(w, field, kinds.get(w.data, path)))
            continue
        value = kinds.get(w.data, path)
        # Only a value that reads as a date is looked up in the node (one look, not kept: memory at scale).
        node = field_node(w.item.passing_node(), field) \
            if isinstance(value, str) and go_scalars.go_resolve(value)[0] == go_scalars.TIMESTAMP_TAG else None
        if isinstance(node, yaml.ScalarNode) and node.tag == go_scalars.TIMESTAMP_TAG:
            # A date: the text to kubectl (go-yaml v2 into interface{}), a timestamp kustomize and kpt rewrite.
            out.append(finding("SD108.date", field, path=field, written=node.value))
    return out
