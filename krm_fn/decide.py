"""Per enabled workload and config reference: what KAITO would inject, and why (SPEC.md section 4, 5.3a).

A referenced ConfigMap KAITO could not read is an error in KAITO's words (checks/inference_configmap.py).
Any spelling vLLM reads as `--speculative-config` is the user's override: `speculative-config`,
`speculative_config` (vLLM's argparse turns `_` into `-`) and dotted `speculative-config.<field>` keys;
KAITO appends the ConfigMap's flags after its own, so in the cluster the user's value wins.
A MultiRoleInference's child InferenceSet is decided as KAITO's controller will have rewritten it
(`Workload.effective`).

A decision is one of four outcomes, each a type with only its own fields and its own message: `Inject`
(a derived ConfigMap and the reference pointed at it), `Override` (the user's ConfigMap sets the flag),
`NotVisible` (the ConfigMap is not in the list: KAITO decides in the cluster), `Broken` (KAITO could not
read the ConfigMap).
"""
from __future__ import annotations

from .record import dataclass
from typing import Any

from . import constants as C
from . import kinds
from .changes import Plan, Step, step
from .checks import inference_configmap
from .config import Settings
from .derived import FROM_NOTHING, FROM_SOURCE, build
from .index import Index, Workload, is_derived
from .inference_config import DATA_KEY, InferenceConfigError, inspect
from .kinds import Path
from .presets import DEFAULT_TABLE, PresetTable, Resolution, config_json, resolve
from .reader import Item, ItemError
from .report import about, q
from .results import Result, Severity
from .vllm_schema import DEFAULT_VLLM_VERSION, check_speculative_config, parse_version, shown
from .vllm_schema import FINDINGS as VLLM_FINDINGS

FINDINGS = {
    "SD301": "speculative-config injected: a derived ConfigMap, and the reference pointed at it",
    "SD302": "the referenced ConfigMap already sets speculative-config (a user override): left unchanged",
    "SD303": "the source of a derived ConfigMap now sets speculative-config itself: the reference goes back to it",
    "SD304": "the referenced ConfigMap is not in the input: KAITO decides in the cluster",
    "SD305": "a derived ConfigMap whose source ConfigMap is not in the input: cannot be regenerated",
    "SD306": "the referenced ConfigMap is one KAITO cannot read",
    "SD307": "the reference names a ConfigMap the input has only with kustomize's hash suffix: a missing nameReference configuration",
    "SD308": "a tuned config the vllmVersion vLLM refuses: the fallback is written instead",
}
# KAITO refuses what these name; turning them off would only hide why nothing is written.
ALWAYS_ON = frozenset(("SD306",))
DOTTED = object()          # an override by dotted keys only (speculative-config.method: …): no one value


@dataclass(frozen=True)
class Reference:
    """One config reference of an enabled workload: what it names now and the user's ConfigMap behind it."""

    workload: Workload
    path: Path                 # the config reference field
    current: str | None        # what the reference says now
    source_name: str | None    # the user's ConfigMap behind it (through a derived one, if any)
    source: Item | None
    via_derived: bool          # the reference names one of our derived ConfigMaps

    @property
    def field(self) -> str:
        return kinds.dotted(self.path)


@dataclass(frozen=True)
class Inject(Reference):
    """Write a derived ConfigMap carrying the speculative config and point the reference at it."""

    json: str
    method: str
    why: str                   # in words: where the config came from
    configmap: dict | None     # the derived ConfigMap (None when it cannot be built: `problem` says why)
    problem: str = ""
    refused: str = ""          # the tuned config the vllmVersion vLLM refuses, when the fallback replaced it
    refused_why: str = ""      # what that vLLM refuses about it (vllm_schema's title of the finding)
    vllm_version: str = ""

    @property
    def target(self) -> str | None:
        return self.configmap["metadata"]["name"] if self.configmap is not None else None

    def result(self) -> Result:
        preset = kinds.preset_name(self.workload.spec, self.workload.effective)
        where = (f"derived from ConfigMap {q(self.source_name)}" if self.source_name
                 else "new, as the workload referenced none")
        return about(Severity.INFO, f"speculative decoding: preset {q(preset)} {self.why}: speculative-config {self.json} in ConfigMap {q(self.target or '')} ({where})",
                     self.workload.item, self.field, proposed_value=self.target, id="SD301", change=True)

    def fallback_result(self) -> Result:
        preset = kinds.preset_name(self.workload.spec, self.workload.effective)
        return about(Severity.INFO, f"preset {q(preset)} is tuned for speculative-config {self.refused}, but vLLM {self.vllm_version} (the vllmVersion setting) refuses it at start-up ({self.refused_why}): the fallback {self.json} is written instead; if the image runs a newer vLLM, set vllmVersion to it and the tuned config is written",
                     self.workload.item, self.field, id="SD308")


@dataclass(frozen=True)
class Override(Reference):
    """The user's ConfigMap sets the flag itself (any spelling vLLM reads): nothing is added. Through one of
    our derived ConfigMaps, the reference goes back to that source."""

    value: Any                 # the user's value (DOTTED when only dotted keys set it)
    keys: tuple[str, ...]      # every key under vllm that sets the flag
    other_spellings: tuple[str, ...] = ()  # speculative_config, speculative-config.<field> …

    def result(self) -> Result:
        keys = ", ".join(f"vllm.{k}" for k in self.keys)
        if self.via_derived:
            return about(Severity.INFO, f"speculative decoding: ConfigMap {q(self.source_name)} now sets {keys} itself (a user override): the reference goes back to it",
                         self.workload.item, self.field, proposed_value=self.source_name, id="SD303", change=True)
        return about(Severity.INFO, f"speculative decoding: ConfigMap {q(self.source_name)} already sets {keys} (a user override); left unchanged",
                     self.workload.item, self.field, id="SD302")


@dataclass(frozen=True)
class NotVisible(Reference):
    """The referenced ConfigMap is not in the list: whether it overrides cannot be seen; nothing changes."""

    derived_found: bool = False  # via_derived, and that derived ConfigMap is in the input

    def result(self) -> Result:
        if self.via_derived:
            gone = "is in the input, but" if self.derived_found else "is not in the input, and"
            return about(Severity.WARNING, f"speculative decoding: the derived ConfigMap {q(self.current)} {gone} its source ConfigMap {q(self.source_name)} is not: cannot regenerate it; left unchanged",
                         self.workload.item, self.field, id="SD305")
        return about(Severity.WARNING, f"speculative decoding: ConfigMap {q(self.source_name)} is not in the input, so whether it overrides vllm.speculative-config cannot be seen here; left unchanged, KAITO decides in the cluster",
                     self.workload.item, self.field, id="SD304")


@dataclass(frozen=True)
class Unrenamed(NotVisible):
    """The reference misses, but the input has its ConfigMap under kustomize's generated name
    (`<name>-<hash>`): kustomize renamed the ConfigMap and left this reference alone, because nothing told
    it that the KAITO field names a ConfigMap. In the cluster the workload points at nothing."""

    generated: str = ""        # the name kustomize gave the ConfigMap

    def result(self) -> Result:
        field = kinds.dotted(tuple(p for p in self.path if isinstance(p, str))).replace(".", "/")
        return about(Severity.ERROR, f"ConfigMap {q(self.source_name)} is not in the input, but {q(self.generated)} is: kustomize's configMapGenerator appended its content hash to the name and left this reference as written, because kustomize does not know that {self.workload.spec.kind} {self.field} names a ConfigMap, so in the cluster the workload references a ConfigMap that does not exist; list a nameReference file under configurations: in the kustomization (kind: ConfigMap, fieldSpecs: group kaito.sh, kind {self.workload.spec.kind}, path {field}), as examples/kustomize/base/kaito-namereference.yaml does, or set generatorOptions.disableNameSuffixHash",
                     self.workload.item, self.field, id="SD307")


@dataclass(frozen=True)
class Broken(Reference):
    """KAITO could not read the referenced ConfigMap: an error on the ConfigMap, in KAITO's words."""

    detail: str
    problem_field: str = ""    # the ConfigMap field KAITO refuses ("": its inference_config.yaml)
    refused_id: str = ""       # the id of the admission rule that refuses it (checks/inference_configmap)

    def result(self) -> Result:
        assert self.source is not None
        message = f"ConfigMap {q(self.source_name)} referenced by {self.workload.spec.kind} {q(self.workload.name)}: {self.detail}"
        if self.refused_id:
            return about(Severity.ERROR, message, self.source, self.problem_field, id=self.refused_id)
        return about(Severity.ERROR, message, self.source, f"data[{DATA_KEY}]", id="SD306")


Decision = Inject | Override | NotVisible | Broken  # NotVisible includes Unrenamed


def configurable(w: Workload) -> bool:
    """An enabled workload whose config reference KAITO keeps: not a MultiRoleInference's child when the
    MultiRoleInference itself is not enabled (its controller sets the child's config from the role's)."""
    return w.enabled and (w.rewritten_by is None or w.rewritten_by.enabled)


def decide(index: Index, settings: Settings, plan: Plan) -> Step:
    """A decision, and the result that tells it, per config reference of every configurable workload."""
    ds = [decision(index, w, path, settings.presets, settings.vllm_version)
          for w in map(plan.workload, index.workloads) if configurable(w) for path in w.spec.config_refs(w.effective)]
    results = [d.result() for d in ds]
    results += [d.fallback_result() for d in ds if isinstance(d, Inject) and d.refused]
    return step(results, decisions=ds)


def source_of(index: Index, namespace: str, ref: str | None) -> tuple[str | None, Item | None, bool]:
    """(source name as recorded, source item, whether `ref` names one of our derived ConfigMaps).

    A derived ConfigMap recorded as another one's source (a hand edit: the function never derives from its
    own output) is followed back to the user's ConfigMap, or to none: reverting to it would leave a
    reference that the next run reverts again."""
    src_name, src, via = _recorded_source(index, namespace, ref)
    seen = {ref}
    while via and src_name is not None:
        if src_name in seen:
            return None, None, via  # records that go round in a circle name no source
        seen.add(src_name)
        further = _recorded_source(index, namespace, src.name if src is not None else src_name)
        if not further[2]:
            break  # a ConfigMap of the user's (or a name not ours): the source
        src_name, src = further[0], further[1]
    return src_name, src, via


def _recorded_source(index: Index, namespace: str, ref: str | None) -> tuple[str | None, Item | None, bool]:
    if ref is None:
        return None, None, False
    item = index.configmap(namespace, ref)
    if item is not None and is_derived(item):
        src = item.annotation(C.SOURCE_ANNOTATION)
        return src, (index.source(namespace, src) if src else None), True
    if item is None:
        # Our name pattern, but the object is gone (deleted, or retired by a subpackage's own pipeline):
        # still ours, to regenerate or to revert.
        m = FROM_SOURCE.fullmatch(ref)
        if m:
            return m.group("source"), index.source(namespace, m.group("source")), True
        if FROM_NOTHING.fullmatch(ref):
            return None, None, True
    # Under kustomize the reference may still use a previous name; keep it as written (kustomize fixes
    # references after the function runs), so disabling restores exactly what the user wrote.
    return ref, item, False


def restored_name(index: Index, namespace: str, source_name: str | None, source: Item | None) -> str | None:
    """The reference to put back: the source as recorded, or its name now if only kustomize's generated
    name (`<name>-<hash>`) is in the input."""
    if source is not None and source_name and index.configmap(namespace, source_name) is None:
        return source.name
    return source_name


def decision(index: Index, w: Workload, path: Path, table: PresetTable,
             vllm_version: str = DEFAULT_VLLM_VERSION) -> Decision:
    """What KAITO would do with this config reference of the (planned) workload `w`."""
    current = kinds.get(w.effective, path)
    current = current if isinstance(current, str) and current else None
    src_name, src, via = source_of(index, w.namespace, current)
    preset = kinds.preset_name(w.spec, w.effective) or ""
    found = (w, path, current, src_name, src, via)  # what every outcome says of the reference
    if src_name is not None and src is None:
        generated = None if via else index.source(w.namespace, src_name)
        if generated is not None:
            return Unrenamed(*found, generated=generated.name)
        return NotVisible(*found, derived_found=via and index.configmap(w.namespace, current or "") is not None)
    if src is not None:
        try:
            whole = src.data()
        except ItemError as exc:
            return Broken(*found, detail=f"the ConfigMap cannot be read: {exc}")
        v1alpha1_workspace = w.spec is kinds.WORKSPACE and w.item.api_version == "kaito.sh/v1alpha1"
        refused = inference_configmap.problem(whole, max_model_len=not v1alpha1_workspace)
        if refused is not None:
            return Broken(*found, detail=refused.message, problem_field=refused.field, refused_id=refused.id)
        try:
            inspected = inspect(whole["data"][inference_configmap.DATA_KEY])
        except InferenceConfigError as exc:
            return Broken(*found, detail=str(exc))
        if inspected.overrides:
            return Override(*found,
                            value=inspected.speculative_config_value if inspected.has_speculative_config
                            else inspected.underscore_value if inspected.has_underscore_spelling else DOTTED,
                            keys=(("speculative-config",) if inspected.has_speculative_config else ())
                            + inspected.other_spellings,
                            other_spellings=inspected.other_spellings)
    res = resolve(preset, table)
    refused = refused_why = ""
    if res.tuned:
        # KAITO's tuned table assumes the vLLM of its own image; an older one (before 0.11: no `mtp`)
        # refuses the tuned config at start-up, so the fallback is what runs there.
        errors = [f for f in check_speculative_config(res.json, vllm_version) if f.severity is Severity.ERROR]
        if errors:
            refused, refused_why = res.json, VLLM_FINDINGS[errors[0].id]
            res = Resolution(res.preset, res.canonical, str(table.fallback["method"]), config_json(table.fallback),
                             tuned=False)
    try:
        configmap, problem = build(src.data() if src else None, src_name, w.namespace, res.json, res.method), ""
    except InferenceConfigError as exc:
        configmap, problem = None, str(exc)
    return Inject(*found, json=res.json, method=res.method, why=_why(res, table, refused=bool(refused)),
                  configmap=configmap, problem=problem, refused=refused, refused_why=refused_why,
                  vllm_version=shown(parse_version(vllm_version)))


def _why(res: Resolution, table: PresetTable, refused: bool = False) -> str:
    if refused:  # tuned, but the vllmVersion vLLM refuses the tuned config (SD308): the fallback
        if table.fallback == DEFAULT_TABLE.fallback:
            return "has a tuned config this vLLM refuses (universal fallback)"
        return "has a tuned config this vLLM refuses (the ngramFallback setting)"
    default = DEFAULT_TABLE.tuned.get(res.canonical)
    if res.tuned:
        if default is not None and table.tuned[res.canonical] == default:
            return "is KAITO-tuned"
        return "is tuned by the tunedPresets setting"
    if table.fallback == DEFAULT_TABLE.fallback:
        return "has no KAITO-tuned config (universal fallback)"
    return "has no tuned config (the ngramFallback setting)"
