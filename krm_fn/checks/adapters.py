"""adapters: at most 10 adapters, and no two with one source name.

KAITO rule mirrored (`InferenceSpec.validateCreate`, api/v1beta1/workspace_validation.go and
api/v1alpha1/workspace_validation.go, under `.ViaField("inference")`; on a Workspace and on the Workspace
a v1beta1 InferenceSet projects):

    if len(i.Adapters) > MaxAdaptersNumber {   // 10
        errs = errs.Also(apis.ErrGeneric(fmt.Sprintf(
            "Number of Adapters exceeds the maximum limit, maximum of %s allowed", strconv.Itoa(MaxAdaptersNumber))))
    }
    if len(i.Adapters) > 0 {
        nameMap := make(map[string]bool); errs = errs.Also(validateDuplicateName(i.Adapters, nameMap)) }

    func validateDuplicateName(adapters []AdapterSpec, nameMap map[string]bool) (errs *apis.FieldError) {
        for _, adapter := range adapters {
            if _, ok := nameMap[adapter.Source.Name]; ok {
                errs = errs.Also(apis.ErrGeneric(
                    fmt.Sprintf("Duplicate adapter source name found: %s", adapter.Source.Name)))
            } else { nameMap[adapter.Source.Name] = true } } ... }

Both come after the preset checks, which return early for a preset name KAITO does not know (then only
`preset-supported` reports). knative merges equal messages into one, so a name used three times is one
finding, at its first repeat. An adapter without `source` makes KAITO's webhook dereference nil; the function
cannot mirror that and leaves such an adapter out. The rest of the adapter rules (`validateCreateorUpdate`:
source, image or volume, strength) run on update only.

PASS:  adapters with distinct source names, ten or fewer
FAIL:  eleven adapters; two adapters with source.name: my-adapter
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.quoting import goquote
from ..text.results import Finding, finding
from .preset_supported import is_valid_preset
from .releases import older

ID = "adapters"
KINDS = ("Workspace", "InferenceSet")
SINCE = kaito_releases.FIRST_KNOWN
MAX_ADAPTERS = 10  # KAITO's MaxAdaptersNumber (SD138's message says it)


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if w.spec is kinds.INFERENCESET and (w.item.api_version != "kaito.sh/v1beta1"
                                         or older(settings, kaito_releases.INFERENCESET_PROJECTS_WORKSPACE)):
        return []  # a v1alpha1 InferenceSet's webhook projects no Workspace (nor a v1beta1 one's before v0.12.0)
    path = w.spec.inference
    inference = kinds.get(w.effective, path) if path is not None else None
    if path is None or not isinstance(inference, dict):
        return []
    adapters = inference.get("adapters")
    if not isinstance(adapters, list) or not adapters:
        return []
    preset = inference.get("preset")
    name = preset.get("name") if isinstance(preset, dict) else None
    if preset is not None and not (isinstance(name, str) and is_valid_preset(name)):
        return []  # KAITO returns at "Unsupported inference preset name" (preset-supported's finding)
    field = kinds.dotted(path) + ".adapters"
    out = []
    if len(adapters) > MAX_ADAPTERS:
        out.append(finding("SD138", field))
    seen: set[str] = set()
    reported: set[str] = set()
    for i, adapter in enumerate(adapters):
        source = adapter.get("source") if isinstance(adapter, dict) else None
        if not isinstance(source, dict):
            continue
        source_name = source.get("name") if source.get("name") is not None else ""
        if not isinstance(source_name, str):
            continue  # the CRD schema's error (string-typed)
        if source_name in seen and source_name not in reported:
            reported.add(source_name)
            # KAITO prints the name bare (%s); a line break or control character would break the result's line.
            shown = source_name if source_name.isprintable() else goquote(source_name)
            out.append(finding("SD139", f"{field}[{i}].source.name", name=shown))
        seen.add(source_name)
    return out
