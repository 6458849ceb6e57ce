"""Plain vLLM workloads: the plan for one workload, JSON Patch ops on plain data, and findings
(docs/plain-vllm.md). The table of kinds is plain_kinds.py's, re-exported here. Each pod template records the
JSON the function injected into its vLLM containers (constants.INJECTED_ANNOTATION), which makes a re-run a
fixpoint and a disable exact (and, being part of the template, rolls the pods when it changes).
"""

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..text.results import Finding, finding
from ..text.patch import Op
from ..text.pointer import build as pointer
from ..text.runs import common_ends
from . import constants as C
from . import kinds
from .constants import INJECTED_ANNOTATION
from .kinds import Path, dotted, get
from .plain_kinds import _BY_KIND, KINDS, KServeModel, PodTemplate, WorkloadKind, kind_of, known_kind  # noqa: F401
from .presets import DEFAULT_TABLE, PresetTable
from .vllm_command import Inspection, Reconciled, Release, exec_argument, kubernetes_env, read_arguments, reconcile
from .vllm_releases import image_release
from .vllm_schema import DEFAULT_VLLM_VERSION
from .vllm_model import decide_model, unknowable


def other_version(api_version: Any, kind: Any, data: Any) -> Finding | None:
    """SD722 when a known kind at another apiVersion (`extensions/v1beta1` Deployment, `batch/v1beta1`
    CronJob) carries the opt-in: it would silently get nothing."""
    spec = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if spec is None or api_version in spec.api_versions:
        return None
    # Any kind's places, so an old apiVersion is recognised wherever its template keeps the annotation.
    places = dict.fromkeys(p for k in KINDS for p in k.opt_in_paths)
    found = next((p for p in places if _has_opt_in(data, p)), None)
    if found is None:
        return None
    return finding("SD722", _annotation_field(found), kind=kind, api_version=api_version,
                   handled=", ".join(spec.api_versions), move_to=spec.api_versions[0])


# What to do instead, for the kinds that carry vLLM's arguments but are not workloads this function edits.
_UNHANDLED_HINTS = {
    "ServingRuntime": "annotate the InferenceServices that use this runtime instead",
    "ClusterServingRuntime": "annotate the InferenceServices that use this runtime instead",
    "StormService": "add --speculative-config='<json>' to the vLLM command of its role templates yourself",
    "RayService": "set speculative_config in the engine_kwargs of its Ray Serve LLM config yourself",
}


def unhandled_kind(api_version: Any, kind: Any, data: Any) -> Finding | None:
    """SD729 when a kind the function does not handle (not KAITO's, not a plain workload kind) carries the
    opt-in anywhere: it would silently get nothing."""
    found = _annotation_in(data, (), 0)
    if found is None:
        return None
    hint = _UNHANDLED_HINTS.get(
        kind, "set --speculative-config='<json>' in its vLLM arguments yourself, or remove the annotation")
    return finding("SD729", _annotation_field(found), kind=kind, api_version=api_version, hint=hint)


def _annotation_in(data: Any, at: Path, depth: int) -> Path | None:
    """The first `annotations` mapping holding the opt-in, metadata first, depth-first (bounded)."""
    if depth > 12 or not isinstance(data, (dict, list)):
        return None
    if isinstance(data, dict):
        ann = data.get("annotations")
        if isinstance(ann, dict) and C.ENABLE_ANNOTATION in ann:
            return at + ("annotations",)
        keys = sorted(data, key=lambda k: k != "metadata") if all(isinstance(k, str) for k in data) else list(data)
        for key in keys:
            found = _annotation_in(data[key], at + (key,), depth + 1)
            if found is not None:
                return found
        return None
    for i, value in enumerate(data):
        found = _annotation_in(value, at + (i,), depth + 1)
        if found is not None:
            return found
    return None


def _has_opt_in(data: Any, path: Path) -> bool:
    ann = get(data, path)
    return isinstance(ann, dict) and C.ENABLE_ANNOTATION in ann


def _annotation_field(path: Path) -> str:
    return dotted(path) + f"[{C.ENABLE_ANNOTATION}]"


class OptIn(NamedTuple):
    """The opt-in as read: `value` (None: absent, or set twice differently), the field it was read from
    (for the invalid-value error, which is KAITO's: checks/annotation_value with this field), and SD720."""
    value: Any = None
    path: Path | None = None
    conflict: Finding | None = None

    @property
    def field(self) -> str:
        return _annotation_field(self.path) if self.path is not None else ""

    @property
    def present(self) -> bool:
        return self.path is not None


def read_opt_in(spec: WorkloadKind, data: Any) -> OptIn:
    found = [(p, get(data, p)[C.ENABLE_ANNOTATION]) for p in spec.opt_in_paths if _has_opt_in(data, p)]
    if not found:
        return OptIn()
    (first, value), *rest = found
    other = next(((p, v) for p, v in rest if v != value), None)
    if other is None:
        return OptIn(value, first)
    return OptIn(None, first, finding("SD720", _annotation_field(other[0]), value=_shown(value), place=dotted(first),
                                      other_value=_shown(other[1]), other_place=dotted(other[0])))


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    return f'"{value}"' if isinstance(value, str) else repr(value)


def present_templates(spec: WorkloadKind, data: Any) -> list[PodTemplate]:
    return [t for t in spec.templates if isinstance(get(data, t.spec), dict)]


def containers(template: PodTemplate, data: Any) -> list[tuple[Path, dict[str, Any]]]:
    """(path, container) for each container of the template; init containers are never vLLM servers here."""
    found = get(data, template.spec + ("containers",))
    if not isinstance(found, list):
        return []
    return [(template.spec + ("containers", i), c) for i, c in enumerate(found) if isinstance(c, dict)]


# --- KServe ------------------------------------------------------------------------------------------------------
def _texts(args: Any) -> list[str]:
    """The strings of an argument list (none when it is no list)."""
    return [v for v in args if isinstance(v, str)] if isinstance(args, list) else []


def _model_id(model: KServeModel, data: Any) -> str | None:
    return read_arguments(_texts(get(data, model.args)), positional=False, model_flags=model.model_flags).model


def _downloaded(uri: Any) -> str | None:
    """The model a storage URI names: `hf://org/name[:revision]` without scheme and revision, a path as it is."""
    if not isinstance(uri, str) or not uri:
        return None
    return uri[len("hf://"):].split(":", 1)[0] if uri.startswith("hf://") else uri


def kserve_model(model: KServeModel, data: Any) -> str | None:
    """The model the Hugging Face runtime serves, as a name `vllm_model` reads: `--model_id` wins (the
    server ignores the download then), else what the `storageUri` downloads."""
    found = _model_id(model, data)
    return found if found is not None else _downloaded(get(data, model.storage_uri))


def kserve_backend(model: KServeModel, data: Any) -> str:
    values = _texts(get(data, model.args))
    backend = "auto"
    for i, value in enumerate(values):
        name, eq, rest = value.partition("=")
        if name == "--backend":
            backend = rest if eq else (values[i + 1] if i + 1 < len(values) else backend)
    return backend


def _kserve_inspector(model: KServeModel, data: Any, runs_vllm: bool) -> Callable[[Any, Any], Inspection]:
    name = kserve_model(model, data)

    def inspector(command: Any, args: Any) -> Inspection:
        if not runs_vllm:
            return Inspection(False)
        values = [v if isinstance(v, str) else str(v) for v in args] if isinstance(args, list) else []
        read = read_arguments(values, positional=False, model_flags=model.model_flags)
        why = "no --model_id and no storageUri" if name is None else unknowable(name)
        model_at = (f"args[{read.model_index}]" if read.model_index is not None else
                    "storageUri" if name is not None else "args")
        return read._replace(form="kserve", model=name, model_at=model_at, unknown_model=why, target="args",
                             config_files=())
    return inspector


# --- the plan for one workload -----------------------------------------------------------------------------------
class WorkloadPlan(NamedTuple):
    opt_in: OptIn
    ops: tuple[Op, ...] = ()
    findings: tuple[Finding, ...] = ()
    runs_vllm: bool = False
    speculates: bool = False  # enabled, and a vLLM container gets (or keeps) a config: the function's or its own;
    # or not enabled, and a config the function added stays because it was changed by hand (SD733)


def release_of(image: Any, setting: str | None = None, where: str = "the container") -> Release:
    """The vLLM a container runs: the vllmVersion `setting` when it is set; else the release an official vLLM
    image's tag names (`vllm/vllm-openai:v0.10.2`); else the default (KAITO's newest image's vLLM), with SD735
    for every container a verdict assumes it on. `where`: what names no image, when `image` is None."""
    if setting is not None:
        return Release(setting, "the vllmVersion setting")
    tagged = image_release(image) if isinstance(image, str) else None
    if tagged is not None:
        return Release(tagged, f"image {image}")
    unpinned = (finding("SD735.image", "image", image=image, version=DEFAULT_VLLM_VERSION) if isinstance(image, str)
                else finding("SD735.no-image", "", where=where, version=DEFAULT_VLLM_VERSION))
    return Release(DEFAULT_VLLM_VERSION,
                   "the default vllmVersion, the vLLM of KAITO's image; set vllmVersion to the release your image runs",
                   unpinned)


def plan_workload(spec: WorkloadKind, data: Any, table: PresetTable = DEFAULT_TABLE,
                  vllm_version: str | None = None) -> WorkloadPlan:
    """JSON Patch ops (against `data`) and findings for one plain workload. Enabled ("true"): every vLLM
    container gets the config for its model, judged by the vLLM it runs (release_of: `vllm_version`, the
    vllmVersion setting, where it is set, else its image's tag); absent or "false":
    the function's own arguments and records are removed; any other value (or SD720): no change — the
    caller reports KAITO's invalid-value error (checks/annotation_value) at `opt_in.field`."""
    opt_in = read_opt_in(spec, data)
    if opt_in.conflict is not None:
        return WorkloadPlan(opt_in, findings=(opt_in.conflict,))
    if opt_in.present and opt_in.value not in ("true", "false"):
        return WorkloadPlan(opt_in)
    # LLMInferenceService's `spec.speculator` (kserve/kserve#5687) is the user's own config: SD732.
    speculator = bool(spec.llm_isvc and opt_in.value == "true" and isinstance(data, dict)
                      and get(data, ("spec", "speculator")) is not None)
    said = (finding("SD732", "spec.speculator"),) if speculator else ()
    ctx = _Workload(spec, data, opt_in, opt_in.value == "true" and not speculator, speculator, table, vllm_version)
    templates = _llm_isvc_pods(spec, data) if spec.llm_isvc else present_templates(spec, data)
    if not ctx.enabled and all(_recorded(data, t) is None for t in templates):
        return WorkloadPlan(opt_in, findings=said, speculates=bool(said))   # never opted in, or reverted
    planned = [(template, _plan_template(ctx, template)) for template in templates]
    ops = [op for _, p in planned for op in p.ops]
    findings = _once(f for _, p in planned for f in p.findings)
    records = _records(planned)
    # Later templates first: where two records end at the same place (spec.prefill.annotations at the end
    # of spec, spec.annotations after it), the inner one is written first, so each lands in its mapping.
    for template, record, keep in reversed(records.values()):
        if not keep:
            ops.extend(_record_ops(data, template, record))
    runs_vllm = any(p.runs_vllm for _, p in planned)
    findings += _workload_findings(ctx, records, runs_vllm, bool(ops), findings)
    findings += _fields_older_crds_lack(spec, data, records)
    return WorkloadPlan(opt_in, tuple(ops), (*said, *findings), runs_vllm,
                        any(p.speculates for _, p in planned) or speculator)


def _once(findings: Iterable[Finding]) -> list[Finding]:
    """The findings, SD735 once per message: the pod templates of one workload (an LLMInferenceService's
    four) that name no image, or the same one, assume the same release."""
    out: list[Finding] = []
    said: set[str] = set()
    for f in findings:
        if f.id == "SD735":
            if f.message in said:
                continue
            said.add(f.message)
        out.append(f)
    return out


class _Workload(NamedTuple):
    """What each pod template of one workload is planned with."""
    spec: WorkloadKind
    data: Any
    opt_in: OptIn
    enabled: bool
    speculator: bool   # an LLMInferenceService's spec.speculator (SD732): not enabled, and no removal said
    table: PresetTable
    vllm_version: str | None   # the vllmVersion setting (None: unset)

    def release(self, image: Any, where: str = "the container") -> Release:
        return release_of(image, self.vllm_version, where)


class _TemplatePlan(NamedTuple):
    """One pod template's part: its ops and findings, whether a container of it runs vLLM, whether it
    speculates, and its record (`keep`: the record stays as it is, SD725 or SD733)."""
    ops: list[Op]
    findings: list[Finding]
    runs_vllm: bool
    speculates: bool = False
    record: str | None = None
    keep: bool = False


def _plan_template(ctx: _Workload, template: PodTemplate) -> _TemplatePlan:
    recorded = _recorded(ctx.data, template)
    findings: list[Finding] = []
    outcomes = _outcomes(ctx, template, recorded, findings)
    runs_vllm = any(o.inspection.runs_vllm for _, o in outcomes)
    injected = {o.injected for _, o in outcomes if o.injected is not None}
    if len(injected) > 1:
        findings.append(finding("SD725", dotted(template.spec + ("containers",)), template=dotted(template.spec),
                                configs=", ".join(sorted(injected))))
        return _TemplatePlan([], findings, runs_vllm, keep=True)
    ops: list[Op] = []
    left: list[Finding] = []   # SD733: a config the record describes, changed by hand, left in place
    removed = False
    for path, out in outcomes:
        for f in out.findings:
            (left if f.id == "SD733" else findings).append(f.under(dotted(path)))
        changed = (_llm_isvc_ops(path, ctx.data, out, template.spec[-1] == "template")
                   if out.inspection.form == "kserve-template" else _container_ops(path, get(ctx.data, path), out))
        ops.extend(changed)
        if changed and not ctx.enabled and not ctx.speculator:
            removed = True
            findings.append(finding("SD727", _changed_field(path, changed), config=recorded,
                                    opt_in=_shown(ctx.opt_in.value) if ctx.opt_in.present else "not set"))
    if left and not removed:
        # Nothing of the record was found to take out: the config left is the function's, edited by hand,
        # so the record stays with it and the pods still speculate. (Where the argument was taken out of
        # another container, a config left is that container's own.)
        return _TemplatePlan(ops, findings + left, runs_vllm, speculates=True, keep=True)
    speculates = ctx.enabled and (bool(injected) or any(
        o.inspection.runs_vllm and o.inspection.overrides for _, o in outcomes))
    return _TemplatePlan(ops, findings, runs_vllm, speculates, next(iter(injected), None))


def _outcomes(ctx: _Workload, template: PodTemplate, recorded: str | None,
              findings: list[Finding]) -> list[tuple[Path, Reconciled]]:
    """Each vLLM "container" of the template, reconciled: its containers, KServe's predictor model and an
    LLMInferenceService's template-vLLM `main` (what these say of the workload goes to `findings`)."""
    spec, data = ctx.spec, ctx.data
    main = _llm_isvc_main(template, data) if spec.llm_isvc else None
    mounted = (_LLMISVC_MOUNT, llm_isvc_model(data)) if spec.llm_isvc else None
    out = [(path, reconcile(c.get("command"), c.get("args"), enabled=ctx.enabled, recorded=recorded, table=ctx.table,
                            image=c.get("image") if isinstance(c.get("image"), str) else None,
                            env=kubernetes_env(c.get("env")), release=ctx.release(c.get("image")), mounted=mounted))
           for path, c in containers(template, data) if main is None or path != main[0]]
    if spec.kserve is not None and template.role == "predictor":
        release = ctx.release(None, "the predictor's model (KServe's Hugging Face runtime supplies the image)")
        out += _kserve_outcome(spec.kserve, data, ctx.enabled, recorded, ctx.table, findings, release)
    if spec.llm_isvc:
        image = main[1].get("image") if main and isinstance(main[1], dict) else None
        release = ctx.release(image, "the main container (KServe's LLMInferenceServiceConfig supplies the image)")
        out += _llm_isvc_outcome(template, data, ctx.enabled, recorded, ctx.table, release, findings)
    return out


def _records(planned: list[tuple[PodTemplate, _TemplatePlan]]) -> dict[Path, tuple[PodTemplate, str | None, bool]]:
    """One record per annotations mapping (an LLMInferenceService's template and worker share one): set when
    any of its templates got a config, kept as it is when one of them was left unchanged (SD725, SD733)."""
    records: dict[Path, tuple[PodTemplate, str | None, bool]] = {}
    for template, p in planned:
        if p.keep:
            records[template.annotations] = (template, None, True)
            continue
        _, before, keep = records.get(template.annotations, (template, None, False))
        records[template.annotations] = (template, p.record or before, keep)
    return records


def _workload_findings(ctx: _Workload, records: dict[Path, tuple[PodTemplate, str | None, bool]], runs_vllm: bool,
                       changed: bool, said: list[Finding]) -> list[Finding]:
    """What is said of the whole workload once its templates are planned (`said`: their findings): KServe
    canaries (SD731), no vLLM found (SD721), a template the API server does not let change (SD726)."""
    spec = ctx.spec
    out: list[Finding] = []
    if ctx.enabled and spec.kserve is not None:
        kserve_record = records.get(spec.templates[0].annotations, (None, None, False))[1]
        out.extend(canary_findings(spec.kserve, ctx.data, kserve_record, ctx.table))
    if ctx.enabled and not runs_vllm and not any(f.id in ("SD723", "SD724") for f in said):
        out.append(finding("SD721", ctx.opt_in.field, kind=spec.kind))
    if changed and spec.immutable_template:
        out.append(finding("SD726", dotted(spec.templates[0].spec), kind=spec.kind))
    return out


def _fields_older_crds_lack(spec: WorkloadKind, data: Any, records: dict[Path, tuple[PodTemplate, str | None, bool]]
                            ) -> list[Finding]:
    """SD736 on each record an LLMInferenceService `serving.kserve.io/v1alpha1` keeps in `spec.annotations` or
    `spec.prefill.annotations`: KServe 0.16.0's CRD has neither (its v1alpha1 spec: baseRefs, model,
    parallelism, prefill {parallelism, replicas, template, worker}, replicas, router, template, worker;
    config/crd/full/llmisvc/serving.kserve.io_llminferenceservices.yaml at v0.16.0), 0.17.0's has both, in
    v1alpha1 and v1alpha2. v1alpha1 is served by both releases, so which one runs cannot be known here: the
    record is written (0.16 has no pod-level annotations anywhere in that spec, and one record in the object's
    own metadata could not tell the decode pods' from the prefill pods'), with this warning."""
    if not spec.llm_isvc or not isinstance(data, dict) or data.get("apiVersion") != _LLMISVC_V1ALPHA1:
        return []
    out: list[Finding] = []
    for template, record, keep in records.values():
        if record is not None or (keep and _recorded(data, template) is not None):
            out.append(finding("SD736", dotted(template.annotations), annotations=dotted(template.annotations)))
    return out


# --- KServe LLMInferenceService ------------------------------------------------------------------------------
# A `main` without a command of its own runs KServe's template vLLM, its `args` parsed again by that template's
# eval: the config goes there as dotted arguments (vllm_command.dotted_arguments), and a manifest of an
# apiVersion before the template's is left unchanged (SD730). docs/plain-vllm.md says why, with the sources.
_LLMISVC_TEMPLATE_FROM = "serving.kserve.io/v1alpha2"
_LLMISVC_V1ALPHA1 = "serving.kserve.io/v1alpha1"
_LLMISVC_MOUNT = "/mnt/models"
_LLMISVC_PIPELINE = {"main": ("spec", "parallelism", "pipeline"), "worker": ("spec", "parallelism", "pipeline"),
                     "prefill": ("spec", "prefill", "parallelism", "pipeline"),
                     "prefill-worker": ("spec", "prefill", "parallelism", "pipeline")}


def llm_isvc_model(data: Any) -> str | None:
    """The model KServe downloads to /mnt/models: `spec.model.uri` (`hf://org/name`, a bucket or PVC path),
    else `spec.model.name`."""
    uri = _downloaded(get(data, ("spec", "model", "uri")))
    if uri is not None:
        return uri
    name = get(data, ("spec", "model", "name"))
    return name if isinstance(name, str) and name else None


def _llm_isvc_pods(spec: WorkloadKind, data: Any) -> list[PodTemplate]:
    """The pod specs KServe runs vLLM in: the main one always, the worker when `spec.worker` is set, the
    prefill ones when `spec.prefill` (and its `worker`) are."""
    out = []
    for template in spec.templates:
        parent = get(data, template.spec[:-1])
        if template.role == "main" or (isinstance(parent, dict) and template.spec[-1] in parent) \
                or (template.role == "prefill" and isinstance(parent, dict)):
            out.append(template)
    return out


def _llm_isvc_main(template: PodTemplate, data: Any) -> tuple[Path, Any] | None:
    """(path, container) of the pod spec's `main` container without a command of its own; (path to add
    one at, None) when the pod spec names no `main`; None when `main` has its own command (the generic path
    reads it)."""
    listed = get(data, template.spec + ("containers",))
    listed = listed if isinstance(listed, list) else []
    for i, container in enumerate(listed):
        if isinstance(container, dict) and container.get("name") == "main":
            return (template.spec + ("containers", i), container) if container.get("command") is None else None
    return template.spec + ("containers", len(listed)), None


def _llm_isvc_outcome(template: PodTemplate, data: Any, enabled: bool, recorded: str | None, table: PresetTable,
                      release: Release, findings: list[Finding]) -> list[tuple[Path, Reconciled]]:
    found = _llm_isvc_main(template, data)
    if found is None:
        return []
    path, container = found
    args = container.get("args") if isinstance(container, dict) else None
    if data.get("apiVersion") != _LLMISVC_TEMPLATE_FROM:
        if enabled:
            findings.append(finding("SD730", dotted(path), api_version=data.get("apiVersion")))
        return [(path, Reconciled(None, args, None, Inspection(True, "kserve-template")))]
    model = llm_isvc_model(data)
    pipeline = _stages(data, _LLMISVC_PIPELINE[template.role])

    def inspector(command: Any, args: Any) -> Inspection:
        values = [v if isinstance(v, str) else str(v) for v in args] if isinstance(args, list) else []
        read = read_arguments(values, positional=False)
        return read._replace(form="kserve-template", model=model, model_at="spec.model.uri", target="args",
                             unknown_model="no spec.model.uri" if model is None else unknowable(model), config_files=())
    out = reconcile(None, args, enabled=enabled, recorded=recorded, table=table, inspector=inspector,
                    release=release, pipeline=pipeline)
    return [(path, out)]


def _llm_isvc_ops(path: Path, data: Any, out: Reconciled, template_key: bool) -> list[Op]:
    """The ops for a template-vLLM `main` at `path` (…containers[i]): its args as for any container, or a
    `{name: main, args}` entry added when the pod spec names no `main` (with the `containers` list, and the
    pod spec itself for `template`, when they are missing); taken away again the same way when only the
    function's arguments made it. `template_key`: the pod spec is a `template` (an empty one means nothing;
    an empty `worker` turns multi-node on and stays)."""
    container = get(data, path)
    pod = path[:-2]
    if container is None:
        if not out.args:
            return []
        entry = {"name": "main", "args": out.args}
        if get(data, pod) is None:
            return [{"op": "add", "path": pointer(pod), "value": {"containers": [entry]}}]
        if get(data, pod + ("containers",)) is None:
            return [{"op": "add", "path": pointer(pod + ("containers",)), "value": [entry]}]
        return [{"op": "add", "path": pointer(path), "value": entry}]
    if not out.args and isinstance(container, dict) and set(container) == {"name", "args"}:
        # the entry the function added: it goes whole, with the list and the pod spec it alone made
        listed = get(data, pod + ("containers",))
        if isinstance(listed, list) and len(listed) == 1:
            if template_key and set(get(data, pod)) == {"containers"}:
                return [{"op": "remove", "path": pointer(pod)}]
            return [{"op": "remove", "path": pointer(pod + ("containers",))}]
        return [{"op": "remove", "path": pointer(path)}]
    if out.args == [] and isinstance(container, dict) and container.get("args"):
        return [{"op": "remove", "path": pointer(path + ("args",))}]   # the function made `args`: it goes whole
    return _container_ops(path, container, out)


def _changed_field(path: Path, ops: list[Op]) -> str:
    """The container field (`….containers[0].args`) the first of a container's ops changes (the container,
    or the pod spec, when the op adds or removes that whole)."""
    parts = ops[0]["path"].split("/")
    if len(parts) <= len(path) + 1:
        return dotted(path[:len(parts) - 1])
    return dotted(path + (parts[len(path) + 1],))


def shape_problems(spec: WorkloadKind, data: Any) -> list[Finding]:
    """Errors for a workload the function would act on (opted in, or carrying its record) whose pod
    templates are not what Kubernetes reads (a `containers` that is no list, `args` that is a string …):
    the API server refuses it, and the function cannot tell what it runs."""
    found: list[Finding] = []
    if isinstance(data, dict) and "spec" in data and data["spec"] is None:
        # `spec: null` reads as no spec, but the function's edits go under it (a pod spec or its record added
        # beneath a null), and the API server refuses the object without one.
        found.append(_shape(spec, ("spec",), None, "a mapping"))
    places = [(t.spec, "a mapping") for t in spec.templates] + [(t.annotations, "a mapping") for t in spec.templates]
    if spec.kserve is not None:
        places.append((spec.kserve.model, "a mapping"))
    for path, want in places:
        bad = kinds.not_a_mapping(data, path)
        if bad is not None:
            found.append(_shape(spec, bad, get(data, bad), want))
    for template in present_templates(spec, data):
        listed = get(data, template.spec + ("containers",))
        if listed is not None and not isinstance(listed, list):
            found.append(_shape(spec, template.spec + ("containers",), listed, "a list of containers"))
            continue
        for i, container in enumerate(listed or []):
            at = template.spec + ("containers", i)
            if not isinstance(container, dict):
                found.append(_shape(spec, at, container, "a container (a mapping)"))
                continue
            for key in ("command", "args"):
                if container.get(key) is not None and not isinstance(container[key], list):
                    found.append(_shape(spec, at + (key,), container[key], "a list of strings"))
    if spec.kserve is not None:
        args = get(data, spec.kserve.args)
        if args is not None and not isinstance(args, list):
            found.append(_shape(spec, spec.kserve.args, args, "a list of strings"))
    return list(dict.fromkeys(found))


def _what(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "null" if value is None else f"a {type(value).__name__}"


def _shape(spec: WorkloadKind, path: Path, value: Any, want: str) -> Finding:
    return finding("SD728", dotted(path), path=dotted(path), found=_what(value), wanted=want, kind=spec.kind)


def has_record(spec: WorkloadKind, data: Any) -> bool:
    """Whether an earlier run left its record on a pod template (a disable then has something to take out)."""
    return any(isinstance(get(data, t.annotations), dict) and INJECTED_ANNOTATION in get(data, t.annotations)
               for t in spec.templates)


def _recorded(data: Any, template: PodTemplate) -> str | None:
    ann = get(data, template.annotations)
    value = ann.get(INJECTED_ANNOTATION) if isinstance(ann, dict) else None
    return value if isinstance(value, str) else None


def canary_findings(model: KServeModel, data: Any, record: str | None, table: PresetTable) -> list[Finding]:
    """SD731 for each KServe v0.20 `spec.canary[]` entry whose pods would not run the config the function
    chose for their model: KServe merges the canary over the predictor (monitoring.py quotes its
    buildCanaryPredictor); the function edits only `spec.predictor` (the canary is a rollout step the user
    writes), so it says so."""
    if record is None:
        return []
    canaries = get(data, ("spec", "canary"))
    out: list[Finding] = []
    stable = kserve_model(model, data)
    for i, _ in enumerate(canaries if isinstance(canaries, list) else []):
        at = ("spec", "canary", i, "predictor", "model")
        own = get(data, at)
        if not isinstance(own, dict):
            continue
        name = get(data, ("spec", "canary", i, "predictor", "name"))
        shown = f"canary {name}" if isinstance(name, str) and name else f"spec.canary[{i}]"
        if isinstance(own.get("args"), list) and own["args"]:
            if not any(isinstance(a, str) and a.startswith(exec_argument("").rstrip("=")) for a in own["args"]):
                out.append(finding("SD731.own-args", dotted(at + ("args",)), canary=shown, config=record,
                                   args=dotted(at + ("args",))))
            continue
        own_download = _downloaded(own.get("storageUri"))
        merged = stable if _model_id(model, data) is not None or own_download is None else own_download
        if merged is None or stable is None or merged == stable or unknowable(merged) is not None:
            continue
        chosen = decide_model(merged, table).resolution.json
        if chosen != decide_model(stable, table).resolution.json:
            out.append(finding("SD731.other-model", dotted(at), canary=shown, model=merged, config=record,
                               predictor_model=stable, chosen=chosen))
    return out


def _kserve_outcome(model: KServeModel, data: Any, enabled: bool, recorded: str | None, table: PresetTable,
                    findings: list[Finding], release: Release) -> list[tuple[Path, Reconciled]]:
    """The `model` of a Hugging Face runtime predictor as one more vLLM "container" (args only)."""
    if not isinstance(get(data, model.model), dict):
        return []
    args = get(data, model.args)
    backend = kserve_backend(model, data)
    runs_vllm = get(data, model.format_name) == model.runtime_format and backend in model.vllm_backends
    if enabled and get(data, model.format_name) != model.runtime_format:
        findings.append(finding("SD723", dotted(model.format_name), format=_shown(get(data, model.format_name))))
    elif enabled and not runs_vllm:
        findings.append(finding("SD724", dotted(model.args), backend=backend))
    # Not vLLM (any more): an argument the function added earlier is still taken out again.
    out = reconcile(None, args, enabled=enabled, recorded=recorded, table=table,
                    inspector=_kserve_inspector(model, data, runs_vllm), release=release,
                    pipeline=_stages(data, model.pipeline))
    if out.args == [] and args == [exec_argument(recorded or "")]:
        # the function created `args` for its argument: disabling takes the whole key away again
        out = Reconciled(out.command, None, out.injected, out.inspection, out.findings)
    return [(model.model, out)]


def _stages(data: Any, path: Path) -> tuple[int, str] | None:
    """The pipeline stages a field outside the arguments sets, when more than 1, and the field saying so."""
    stages = kinds.get_int(data, path)  # `2.0` is the 2 kubectl sends
    if stages is not None and stages > 1:
        return stages, f"{dotted(path)}: {stages}"
    return None


def _container_ops(path: Path, container: Any, out: Reconciled) -> list[Op]:
    ops: list[Op] = []
    for key, new in (("command", out.command), ("args", out.args)):
        old = container.get(key) if isinstance(container, dict) else None
        if new is old:
            continue
        ops.extend(list_ops(path + (key,), old, new))
    return ops


def list_ops(path: Path, old: Any, new: Any) -> list[Op]:
    """The smallest JSON Patch that turns list `old` into list `new` when they differ in one run of
    elements (what injection and removal do); a list added or taken away whole when one side is None."""
    if old == new and type(old) is type(new):
        return []
    if old is None:
        return [{"op": "add", "path": pointer(path), "value": new}]
    if new is None:
        return [{"op": "remove", "path": pointer(path)}]
    head, tail = common_ends(old, new)
    old_mid, new_mid = old[head:len(old) - tail], new[head:len(new) - tail]
    ops = [{"op": "replace", "path": pointer(path + (head + i,)), "value": v}
           for i, v in enumerate(new_mid[:len(old_mid)])]
    ops += [{"op": "remove", "path": pointer(path + (head + i,))} for i in reversed(range(len(new_mid), len(old_mid)))]
    return ops + [{"op": "add", "path": pointer(path + (head + i,)), "value": new_mid[i]}
                  for i in range(len(old_mid), len(new_mid))]


def _record_ops(data: Any, template: PodTemplate, record: str | None) -> list[Op]:
    path = template.annotations + (INJECTED_ANNOTATION,)
    if record is None:
        holder = get(data, template.annotations[:-1])
        if (len(template.annotations) > 2 and isinstance(holder, dict) and list(holder) == ["annotations"]
                and get(data, template.annotations) == {INJECTED_ANNOTATION: get(data, path)}):
            # A template's `metadata` that only the record made (set_ops creates it whole): it goes whole.
            return [{"op": "remove", "path": pointer(template.annotations[:-1])}]
        return kinds.remove_ops(data, path)
    return kinds.set_ops(data, path, record)
