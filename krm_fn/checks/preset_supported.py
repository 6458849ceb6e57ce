"""preset-supported: the preset name must be one KAITO knows.

KAITO rule mirrored (`plugin.IsValidPreset`, pkg/utils/plugin/plugin.go; called by
`InferenceSpec.validateCreate`, api/v1beta1/workspace_validation.go):

    if KaitoModelRegister.Has(preset) { return true }
    if _, ok := LegacyBuiltinToCatalog[strings.ToLower(preset)]; ok { return true }
    if strings.Contains(preset, "/") { parts := strings.SplitN(preset, "/", 2)
        if len(parts) == 2 && parts[0] != "" && parts[1] != "" { return true } }
    ...
    errs.Also(apis.ErrInvalidValue(fmt.Sprintf("Unsupported inference preset name %s", presetName), "presetName"))

under `.ViaField("inference")`: the path is `inference.presetName` (KAITO's literal, not a real field);
`spec.template.inference.presetName` on an InferenceSet (validated as the Workspace it projects). KAITO's
register holds only Hugging Face ids (`org/name`) at admission time, so the rule is: a legacy short name
(lower-cased) or `org/name` with both parts non-empty. Nothing is trimmed. A MultiRoleInference's
`spec.model.name` becomes its child InferenceSets' preset, where the same rule refuses them.

A name KAITO's model catalog marks deprecated fails twice, as in KAITO, where
`ResourceSpec.validateCreateWithInference` (under `.ViaField("resource")`) adds first:

    m := metadata.MustGet(strings.ToLower(presetName)); if m.Deprecated {
        errs = errs.Also(apis.ErrGeneric(
            fmt.Sprintf("Model %s is deprecated and no longer supported", presetName), "presetName")) }

(presets/workspace/models/supported_models.yaml, v0.12.0: only `phi-2` is `deprecated: true`), at
`resource.presetName` (`spec.template.resource.presetName` on an InferenceSet), the name lower-cased.

PASS:  phi-4, PHI-4, deepseek-r1-0528, microsoft/Phi-4-mini-instruct, org/name/with/slashes
FAIL:  falcon-7b, phi-2, qwen3.5-4b (not legacy names), " phi-4" (leading space), /x, x/
FAIL:  PHI-2 also "Model phi-2 is deprecated and no longer supported"
"""

from difflib import get_close_matches

from ..domain import kaito_releases
from ..domain import kinds
from ..domain.presets import TUNED_DISPLAY, aliases
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from . import string_fields
from .releases import older

ID = "preset-supported"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN
# KAITO's catalog entries with `deprecated: true` (lower-cased names).
DEPRECATED = ("phi-2",)


# Registered at v0.10.0 and not after: `PresetFalcon7BModel = "falcon-7b"`, `PresetFalcon40BModel = "falcon-40b"`
# and their `+ "-instruct"` (presets/workspace/models/falcon/model.go:25-38, 44-47 at v0.10.0); v0.11.0 has no
# falcon presets. Every other name v0.10.0 registers is one of aliases().
V010_ONLY = frozenset({"falcon-7b", "falcon-7b-instruct", "falcon-40b", "falcon-40b-instruct"})


def is_valid_preset(name: str, case_sensitive: bool = False) -> bool:
    """`case_sensitive`: KAITO before v0.11.0, whose register also has V010_ONLY."""
    if (name in aliases() or name in V010_ONLY) if case_sensitive else (name.lower() in aliases()):
        return True
    org, slash, model = name.partition("/")
    return bool(slash and org and model)


def closest(name: str) -> list[str]:
    """Up to three presets KAITO knows whose names are nearest `name`: the legacy short names and the
    Hugging Face ids of the tuned table (what a typo most likely meant), compared case-blind."""
    names = {n.lower(): n for n in (*aliases(), *TUNED_DISPLAY)}
    return [names[m] for m in get_close_matches(name.strip().lower(), list(names), n=3, cutoff=0.6)]


def _unsupported(name: object, field: str, at: str = "") -> Finding:
    text = name if isinstance(name, str) else "" if name is None else str(name)
    near = ", ".join(closest(text)) if text else ""
    if text and text.splitlines() != [text]:
        # A line break would split the result's one line: the quoted name stands in for the bare one.
        if near:
            return finding("SD112.line-break-closest", field, at=at, name=text, closest=near)
        return finding("SD112.line-break", field, at=at, name=text)
    if text != text.strip() or not text.isprintable() or not text:
        # KAITO prints the name bare (%s): say what it is when that hides something.
        if near:
            return finding("SD112.hidden-closest", field, at=at, name=text, closest=near)
        return finding("SD112.hidden", field, at=at, name=text)
    if near:
        return finding("SD112.plain-closest", field, at=at, name=text, closest=near)
    return finding("SD112.plain", field, at=at, name=text)


def _deprecated(name: object, field: str) -> list[Finding]:
    if isinstance(name, str) and name.lower() in DEPRECATED:
        return [finding("SD113", field, name=name.lower())]
    return []


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    data = w.effective
    if w.spec is kinds.MULTIROLEINFERENCE:
        name = kinds.get(data, w.spec.preset)
        if isinstance(name, str) and name \
                and not is_valid_preset(name, older(settings, kaito_releases.CASE_BLIND_PRESETS)):
            return _deprecated(name, "spec.model.name") + [_unsupported(name, "spec.model.name")]
        return []
    path = w.spec.inference
    inference = kinds.get(data, path) if path is not None else None
    if path is None or not isinstance(inference, dict) or inference.get("preset") is None:
        return []
    name = kinds.get(data, w.spec.preset)
    if (isinstance(name, str) and is_valid_preset(name, older(settings, kaito_releases.CASE_BLIND_PRESETS))) \
            or string_fields.not_a_string(data, w.spec.preset):
        return []  # a name that is no string is string-fields' finding
    resource = kinds.dotted(path[:-1] + ("resource", "presetName"))
    at = kinds.dotted(w.spec.preset)  # KAITO's path names no field: the line is that of preset.name
    return ([f._replace(at=at) for f in _deprecated(name, resource)]
            + [_unsupported(name, kinds.dotted(path) + ".presetName", at)])
