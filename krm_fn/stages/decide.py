"""Per enabled workload and config reference: what KAITO would inject, and why (docs/checks.md, step 2: any
spelling vLLM reads as `--speculative-config` is the user's override). A MultiRoleInference's child
InferenceSet is decided as KAITO's controller will have rewritten it (`Workload.effective`). A decision is one
of the outcomes in decisions.py; `said` tells each in its own message.
"""

from ..checks import inference_configmap
from ..domain import kinds
from ..domain.derived import build
from ..domain.inference_config import DATA_KEY, InferenceConfigError, inspect
from ..domain.kinds import Path
from ..domain.presets import DEFAULT_TABLE, PresetTable, Resolution, fallback, resolve
from ..domain.vllm_schema import DEFAULT_VLLM_VERSION, beyond, named, parse_version, refusal, shown
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import DOTTED, Broken, Decision, Inject, NotVisible, Override, Unrenamed, configurable, source_of
from ..model.index import Index, Workload
from ..model.report import about, q
from ..text.items import ItemError
from ..text.results import Result, Severity



def decide(index: Index, settings: Settings, plan: Plan) -> Step:
    """A decision, and the result that tells it, per config reference of every configurable workload."""
    ds = [decision(index, w, path, settings.presets, settings.vllm_version)
          for w in map(plan.workload, index.workloads) if configurable(w) for path in w.spec.config_refs(w.effective)]
    results = [said(d, settings) for d in ds]
    results += [_fallback(d) for d in ds if isinstance(d, Inject) and d.refused]
    return step(results, decisions=ds)


def said(d: Decision, settings: Settings | None = None) -> Result:
    """The result that tells the decision (`settings`: for what the kaitoVersion KAITO does with it)."""
    w = d.workload
    if isinstance(d, Inject):
        preset = kinds.preset_name(w.spec, w.effective)
        where = f"from ConfigMap {q(d.source_name)}" if d.source_name else "new"
        return about(Severity.INFO, f"preset {q(preset)} {d.why}: {d.method} in ConfigMap {q(d.target or '')} ({where})",
                     w.item, d.field, proposed_value=d.target, id="SD301", change=True)
    if isinstance(d, Override):
        keys = ", ".join(f"vllm.{k}" for k in d.keys)
        if d.via_derived:
            return about(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} now sets {keys} itself (a user override): the reference goes back to it",
                         w.item, d.field, proposed_value=d.source_name, id="SD303", change=True)
        return about(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} already sets {keys} (a user override); left unchanged",
                     w.item, d.field, id="SD302")
    if isinstance(d, Unrenamed):
        field = kinds.dotted(tuple(p for p in d.path if isinstance(p, str))).replace(".", "/")
        return about(Severity.ERROR, f"ConfigMap {q(d.source_name)} is missing but {q(d.generated)} is here: kustomize added a hash suffix and left this reference as written; add a nameReference for {w.spec.kind} path {field} (examples/kustomize/base/kaito-namereference.yaml)",
                     w.item, d.field, id="SD307")
    if isinstance(d, NotVisible):
        if d.via_derived:
            gone = "is in the input, but" if d.derived_found else "is not in the input, and"
            return about(Severity.WARNING, f"speculative decoding: the derived ConfigMap {q(d.current)} {gone} its source ConfigMap {q(d.source_name)} is not: cannot regenerate it; left unchanged",
                         w.item, d.field, id="SD305")
        # Before v0.13.0 KAITO reads no kaito.sh/enable-speculative-decoding (settings.knows_annotation): there
        # nothing decides in the cluster, and what the ConfigMap itself sets is what runs.
        if settings is None or (settings.knows_annotation and not settings.kaito_version_unknown):
            decides = "KAITO decides in the cluster"
        elif settings.kaito_version_unknown:
            decides = "KAITO v0.13 decides in the cluster; v0.10-v0.12 run it only if that ConfigMap sets it (set kaitoVersion)"
        else:
            decides = f"KAITO {settings.kaito_version} runs it only if that ConfigMap sets it"
        return about(Severity.WARNING, f"speculative decoding: ConfigMap {q(d.source_name)} is not in the input, so its vllm.speculative-config cannot be seen; left unchanged, {decides}",
                     w.item, d.field, id="SD304")
    assert d.source is not None  # Broken: KAITO could not read the ConfigMap it names
    message = f"ConfigMap {q(d.source_name)} referenced by {w.spec.kind} {q(w.name)}: {d.detail}"
    if d.refused_id:
        return about(Severity.ERROR, message, d.source, d.problem_field, id=d.refused_id)
    return about(Severity.ERROR, message, d.source, f"data[{DATA_KEY}]", id="SD306")


def _fallback(d: Inject) -> Result:
    preset = kinds.preset_name(d.workload.spec, d.workload.effective)
    # A vllmVersion newer than every release modelled: the message names the newest one (SD308's why).
    known = beyond(parse_version(d.vllm_version))
    said = (f"vLLM {d.vllm_version} (vllmVersion)" if known is None
            else f"vLLM {named(known)} (the newest modelled; vllmVersion {d.vllm_version})")
    return about(Severity.INFO, f"{said} refuses the tuned {d.refused} of preset {q(preset)}, so the fallback {d.json} is written; set vllmVersion if the image runs a newer vLLM",
                 d.workload.item, d.field, id="SD308")


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
        invalid = inference_configmap.problem(whole, max_model_len=not v1alpha1_workspace)
        if invalid is not None:
            return Broken(*found, detail=invalid.message, problem_field=invalid.field, refused_id=invalid.id)
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
