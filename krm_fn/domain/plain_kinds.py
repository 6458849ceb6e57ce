"""The table of plain vLLM workload kinds, as data: per kind, its apiVersions, where its pod templates are,
where the opt-in annotation may be read, how its pods are named; for KServe, where the model comes from and
where the argument goes.

The index reads it to tell a plain workload; plain_workloads.py plans one (and re-exports the table).
"""

from typing import Any, NamedTuple

from .kinds import Path
from .pod_names import PodNaming


class PodTemplate(NamedTuple):
    role: str                 # "" (the only template), "leader", "worker", "predictor"
    spec: Path                # the PodSpec: its `containers` are the candidates (initContainers never are)
    annotations: Path         # the template's annotations: the opt-in may be read here; the record goes here


class KServeModel(NamedTuple):
    """KServe's Hugging Face runtime (`huggingfaceserver`): a container-like `model` whose `args` the server
    passes to vLLM's engine (`maybe_add_vllm_cli_parser`); the model is `--model_id` when given, else what
    `storageUri` downloads (`hf://org/name[:revision]`, or a bucket path ending in org/name)."""
    model: Path = ("spec", "predictor", "model")
    format_name: Path = ("spec", "predictor", "model", "modelFormat", "name")
    storage_uri: Path = ("spec", "predictor", "model", "storageUri")
    args: Path = ("spec", "predictor", "model", "args")
    # Multi-node serving (KServe's docs, "Multi-node inference"): the worker pods and the pipeline stages.
    pipeline: Path = ("spec", "predictor", "workerSpec", "pipelineParallelSize")
    runtime_format: str = "huggingface"
    model_flags: tuple[str, ...] = ("--model_id",)
    # huggingfaceserver's `--backend` (enum names): `auto` runs vLLM when it supports the architecture.
    vllm_backends: tuple[str, ...] = ("auto", "vllm")


class WorkloadKind(NamedTuple):
    kind: str
    api_versions: tuple[str, ...]
    templates: tuple[PodTemplate, ...]
    pods: PodNaming           # how its pods are named (the PrometheusRule selects them by name)
    metadata_annotations: Path = ("metadata", "annotations")
    kserve: KServeModel | None = None
    # Pod: a running pod's containers cannot change; Job: `spec.template` is immutable. (A CronJob's
    # jobTemplate is not: the next Job gets it.)
    immutable_template: bool = False
    # LLMInferenceService: a `main` container without a command runs the vLLM of KServe's well-known
    # LLMInferenceServiceConfig (kserve-config-llm-template), which is not in the manifests.
    llm_isvc: bool = False

    @property
    def opt_in_paths(self) -> tuple[Path, ...]:
        """Where the opt-in annotation may be read: the workload's metadata first, then each template's."""
        paths = [self.metadata_annotations, *(t.annotations for t in self.templates)]
        return tuple(dict.fromkeys(paths))


def _template(role: str, path: Path) -> PodTemplate:
    return PodTemplate(role, path + ("spec",), path + ("metadata", "annotations"))


_APPS = ("apps/v1",)
KINDS: tuple[WorkloadKind, ...] = (
    WorkloadKind("Deployment", _APPS, (_template("", ("spec", "template")),), PodNaming.DEPLOYMENT),
    WorkloadKind("StatefulSet", _APPS, (_template("", ("spec", "template")),), PodNaming.STATEFULSET),
    WorkloadKind("DaemonSet", _APPS, (_template("", ("spec", "template")),), PodNaming.CONTROLLER),
    WorkloadKind("ReplicaSet", _APPS, (_template("", ("spec", "template")),), PodNaming.CONTROLLER),
    WorkloadKind("Job", ("batch/v1",), (_template("", ("spec", "template")),), PodNaming.JOB,
                 immutable_template=True),
    WorkloadKind("CronJob", ("batch/v1",), (_template("", ("spec", "jobTemplate", "spec", "template")),),
                 PodNaming.CRONJOB),
    WorkloadKind("Pod", ("v1",), (PodTemplate("", ("spec",), ("metadata", "annotations")),), PodNaming.POD,
                 immutable_template=True),
    # leaderTemplate is optional: without it LWS starts the leader from workerTemplate.
    WorkloadKind("LeaderWorkerSet", ("leaderworkerset.x-k8s.io/v1",), (
        _template("leader", ("spec", "leaderWorkerTemplate", "leaderTemplate")),
        _template("worker", ("spec", "leaderWorkerTemplate", "workerTemplate"))), PodNaming.LEADER_WORKER_SET),
    # PredictorSpec inlines a PodSpec (custom `containers`) and carries its own `annotations`.
    WorkloadKind("InferenceService", ("serving.kserve.io/v1beta1",),
                 (PodTemplate("predictor", ("spec", "predictor"), ("spec", "predictor", "annotations")),),
                 PodNaming.KSERVE_PREDICTOR, kserve=KServeModel()),
    # KServe's LLMInferenceService: its pod specs and the annotations that reach its pods (docs/plain-vllm.md),
    # where the record goes, one per WorkloadSpec.
    WorkloadKind("LLMInferenceService", ("serving.kserve.io/v1alpha1", "serving.kserve.io/v1alpha2"), (
        PodTemplate("main", ("spec", "template"), ("spec", "annotations")),
        PodTemplate("worker", ("spec", "worker"), ("spec", "annotations")),
        PodTemplate("prefill", ("spec", "prefill", "template"), ("spec", "prefill", "annotations")),
        PodTemplate("prefill-worker", ("spec", "prefill", "worker"), ("spec", "prefill", "annotations"))),
        PodNaming.LLM_INFERENCE_SERVICE, llm_isvc=True),
)
_BY_KIND = {k.kind: k for k in KINDS}


def known_kind(kind: Any) -> bool:
    """Whether `kind` is one of the plain workload kinds (at any apiVersion)."""
    return isinstance(kind, str) and kind in _BY_KIND


def kind_of(api_version: Any, kind: Any) -> WorkloadKind | None:
    spec = _BY_KIND.get(kind) if isinstance(kind, str) else None
    return spec if spec is not None and api_version in spec.api_versions else None
