"""Per enabled workload and config reference: what KAITO would inject, and why (docs/checks.md, step 2: any
spelling vLLM reads as `--speculative-config` is the user's override). A MultiRoleInference's child
InferenceSet is decided as KAITO's controller will have rewritten it (`Workload.effective`). A decision is one
of the outcomes in decisions.py; `said` tells each in its own message.
"""

from typing import Any

from ..checks import inference_configmap
from ..domain import kaito_releases, kinds
from ..domain.derived import build
from ..domain.inference_config import DATA_KEY, InferenceConfigError, inspect
from ..domain.kinds import Path
from ..domain.presets import DEFAULT_TABLE, PresetTable, Resolution, fallback, resolve
from ..domain.vllm_schema import DEFAULT_VLLM_VERSION, beyond, named, parse_version, refusal, shown
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import DOTTED, Broken, Decision, Inject, NotVisible, Override, Unrenamed, configurable, source_of
from ..model.index import Index, Workload, is_derived
from ..model.report import about
from ..text.items import Item, ItemError
from ..text.results import Finding, Result, finding

# What every outcome says of the reference: Reference's fields (workload, path, current, source_name, source,
# via_derived).
_Found = tuple[Workload, Path, str | None, str | None, Item | None, bool]


def decide(index: Index, settings: Settings, plan: Plan) -> Step:
    """A decision, and the result that tells it, per config reference of every configurable workload."""
    namespace_default = settings.kaito_version < kaito_releases.NAMESPACE_DEFAULT_CONFIG_UNTIL
    ds = [decision(index, w, path, settings.presets, settings.vllm_version, namespace_default=namespace_default)
          for w in map(plan.workload, index.workloads) if configurable(w) for path in w.spec.config_refs(w.effective)]
    results = [said(d, settings) for d in ds]
    results += [_fallback(d, settings) for d in ds if isinstance(d, Inject) and d.refused]
    return step(results, decisions=ds)


def said(d: Decision, settings: Settings | None = None) -> Result:
    """The result that tells the decision (`settings`: for what the kaitoVersion KAITO does with it)."""
    w = d.workload
    if isinstance(d, Inject):
        return about(_injected(d), w.item, proposed_value=d.target, change=True)
    if isinstance(d, Override):
        keys = ", ".join(f"vllm.{k}" for k in d.keys)
        if d.via_derived:
            return about(finding("SD303", d.field, configmap=d.source_name, keys=keys), w.item,
                         proposed_value=d.source_name, change=True)
        return about(finding("SD302", d.field, configmap=d.source_name, keys=keys), w.item)
    if isinstance(d, Unrenamed):
        path = kinds.dotted(tuple(p for p in d.path if isinstance(p, str))).replace(".", "/")
        return about(finding("SD307", d.field, source=d.source_name, generated=d.generated, kind=w.spec.kind,
                             path=path), w.item)
    if isinstance(d, NotVisible):
        return about(_not_visible(d, settings), w.item)
    assert d.source is not None  # Broken: KAITO could not read the ConfigMap it names
    return about(d.refusal, d.source)


def _broken(found: _Found, said_so: Finding) -> Broken:
    """KAITO cannot read the ConfigMap the reference names: the decision keeps the finding that says so
    (SD120-SD127 in KAITO's words, SD306 in the reader's)."""
    return Broken(*found, refusal=said_so)


def _injected(d: Inject) -> Finding:
    preset = kinds.preset_name(d.workload.spec, d.workload.effective)
    source = d.source_name or (d.source.name if d.source is not None else None)   # or the namespace default
    if source:
        return finding("SD301.from-source", d.field, preset=preset, why=d.why, method=d.method,
                       configmap=d.target or "", source=source)
    return finding("SD301.new", d.field, preset=preset, why=d.why, method=d.method, configmap=d.target or "")


def _not_visible(d: NotVisible, settings: Settings | None) -> Finding:
    if d.via_derived:
        if d.derived_found:
            return finding("SD305.derived-in-input", d.field, derived=d.current, source=d.source_name)
        return finding("SD305.neither-in-input", d.field, derived=d.current, source=d.source_name)
    # Before v0.13.0 KAITO reads no kaito.sh/enable-speculative-decoding (settings.knows_annotation): there
    # nothing decides in the cluster, and what the ConfigMap itself sets is what runs.
    if settings is None or (settings.knows_annotation and not settings.kaito_version_unknown):
        return finding("SD304.decided-in-cluster", d.field, configmap=d.source_name)
    if settings.kaito_version_unknown:
        return finding("SD304.version-unknown", d.field, configmap=d.source_name)
    return finding("SD304.annotation-not-read", d.field, configmap=d.source_name, kaito_version=settings.kaito_version)


def _fallback(d: Inject, settings: Settings) -> Result:
    preset = kinds.preset_name(d.workload.spec, d.workload.effective)
    said: dict[str, Any] = {"vllm_version": d.vllm_version, "refused": d.refused, "preset": preset, "json": d.json}
    if not settings.vllm_version_set:  # the vLLM of the kaitoVersion release's image (SD428)
        return about(finding("SD308.kaito-image", d.field, kaito=settings.kaito_version, **said), d.workload.item)
    # A vllmVersion newer than every release modelled: the message names the newest one (SD308's why).
    known = beyond(parse_version(d.vllm_version))
    if known is None:
        return about(finding("SD308.vllm-version", d.field, **said), d.workload.item)
    return about(finding("SD308.beyond-newest", d.field, newest=named(known), **said), d.workload.item)


def decision(index: Index, w: Workload, path: Path, table: PresetTable,
             vllm_version: str = DEFAULT_VLLM_VERSION, *, namespace_default: bool = False) -> Decision:
    """What KAITO would do with this config reference of the (planned) workload `w`. `namespace_default`: the
    KAITO release mounts its namespace's `inference-params-template` for a workload with no config
    (kaito_releases.NAMESPACE_DEFAULT_CONFIG_UNTIL), so a config made for one that has none (or has only a
    derived ConfigMap made from nothing) is based on that ConfigMap when the input holds it: it keeps its
    settings, and the reference still records no source (disabling removes it again)."""
    current = kinds.get(w.effective, path)
    current = current if isinstance(current, str) and current else None
    src_name, src, via = source_of(index, w.namespace, current)
    if namespace_default and src_name is None and src is None and (current is None or via):
        default = index.configmap(w.namespace, kaito_releases.NAMESPACE_DEFAULT_CONFIG)
        src = default if default is not None and not is_derived(default) else None
    preset = kinds.preset_name(w.spec, w.effective) or ""
    found: _Found = (w, path, current, src_name, src, via)  # what every outcome says of the reference
    if src_name is not None and src is None:
        generated = None if via else index.source(w.namespace, src_name)
        if generated is not None:
            return Unrenamed(*found, generated=generated.name)
        return NotVisible(*found, derived_found=via and index.configmap(w.namespace, current or "") is not None)
    if src is not None:
        name = src_name or src.name  # a ConfigMap found has its name (the namespace default: no recorded name)
        where = {"configmap": name, "kind": w.spec.kind, "workload": w.name}
        try:
            whole = src.data()
        except ItemError as exc:
            return _broken(found, finding("SD306.unreadable", f"data[{DATA_KEY}]", error=str(exc), **where))
        v1alpha1_workspace = w.spec is kinds.WORKSPACE and w.item.api_version == "kaito.sh/v1alpha1"
        invalid = inference_configmap.problem(whole, name, w.spec.kind, w.name, max_model_len=not v1alpha1_workspace)
        if invalid is not None:
            return _broken(found, invalid)
        try:
            inspected = inspect(whole["data"][DATA_KEY])
        except InferenceConfigError as exc:
            return _broken(found, finding("SD306.uninspectable", f"data[{DATA_KEY}]", error=str(exc), **where))
        if inspected.overrides:
            return Override(*found,
                            value=inspected.speculative_config_value if inspected.has_speculative_config
                            else inspected.underscore_value if inspected.has_underscore_spelling else DOTTED,
                            keys=(("speculative-config",) if inspected.has_speculative_config else ())
                            + inspected.other_spellings,
                            other_spellings=inspected.other_spellings)
    res = resolve(preset, table)
    # KAITO's tuned table assumes the vLLM of its own image; an older one (before 0.11: no `mtp`) refuses the
    # tuned config at start-up, so the fallback is what runs there.
    refused, refused_why = "", refusal(res.json, vllm_version) if res.tuned else ""
    if refused_why:
        refused, res = res.json, fallback(table, res.preset, res.canonical)
    try:
        configmap, problem = build(src.data() if src else None, src_name, w.namespace, res.json, res.method), ""
    except InferenceConfigError as exc:
        configmap, problem = None, str(exc)
    return Inject(*found, json=res.json, method=res.method, why=_why(res, table, refused=bool(refused)),
                  configmap=configmap, problem=problem, refused=refused, refused_why=refused_why,
                  vllm_version=shown(parse_version(vllm_version)))


def _why(res: Resolution, table: PresetTable, refused: bool = False) -> str:
    fallback = "universal fallback" if table.fallback == DEFAULT_TABLE.fallback else "the ngramFallback setting"
    if refused:  # tuned, but the vllmVersion vLLM refuses the tuned config (SD308): the fallback
        return f"has a tuned config this vLLM refuses ({fallback})"
    if res.tuned:
        default = DEFAULT_TABLE.tuned.get(res.canonical)
        return "is KAITO-tuned" if default is not None and table.tuned[res.canonical] == default \
            else "is tuned by the tunedPresets setting"
    return f"is untuned ({fallback})"
