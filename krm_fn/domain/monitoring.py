"""The opt-in PrometheusRule: per workload, records of its acceptance rate, mean acceptance length, decode
tokens and drafts, and alerts on no drafts and low acceptance (docs/monitoring.md says what and why).

vLLM's series carry no workload, so a workload's are selected by the names of its pods (pod_names.py), which
the controllers fix:
- Workspace `w` (kaito-project/kaito, v0.12.0 and main 2026-08): a StatefulSet `Name: ctx.Workspace.Name`
  (pkg/workspace/manifests/manifests.go, GenerateStatefulSetManifest; "From v0.8.0 onwards, StatefulSet is
  the default workload for all workspaces", workspace_controller.go, applyInference; #1523) -> pods
  `w-<ordinal>`. Before v0.8.0 (v0.7.2 pkg/workspace/inference/preset_inferences.go) a single-node preset
  and a template Workspace ran as a Deployment `Name: ctx.Workspace.Name` (GenerateDeploymentManifest,
  GenerateDeploymentManifestWithPodTemplate), a multi-node one as the StatefulSet: both forms, for a
  `kaitoVersion` before v0.8.0 only.
- InferenceSet `s`: child Workspaces from `GenerateName: iObj.Name + "-"` (pkg/utils/inferenceset/
  inferenceset.go, NewWorkspaceForInferenceSet; v0.8.0 inferenceset_controller.go the same) ->
  `s-<5 of GenerateName's letters>`, their StatefulSets' pods `s-<5>-<ordinal>`.
- MultiRoleInference `m`: child InferenceSets `isName := fmt.Sprintf("%s-%s", mri.Name, role.Type)`
  (pkg/controllers/multiroleinference/controller.go) -> `m-prefill`, `m-decode`, their pods as above.
  Prefill pods draft nothing, so summing both roles gives the decode side's figures.
- Plain vLLM workloads (plain_kinds.py): Kubernetes' own controllers' pods as pod_names.py says. A
  LeaderWorkerSet `l`: the leader StatefulSet `appsapplyv1.StatefulSet(lws.Name, …)` and a worker StatefulSet
  per group `appsapplyv1.StatefulSet(leaderPod.Name, …)…WithOrdinals(…WithStart(1))`
  (kubernetes-sigs/lws v0.10.0, leaderworkerset_controller.go, pod_controller.go) -> `l-<group>` and
  `l-<group>-<worker>`. A KServe InferenceService `i` (kserve/kserve v0.20.0): the predictor is
  `PredictorServiceName(name) = name + "-predictor"` (pkg/constants/constants.go); in Standard
  (RawDeployment) mode a Deployment of that name, in Knative (Serverless) mode a Knative Service whose
  revisions are `kmeta.ChildName(config.Name, fmt.Sprintf("-%05d", config.Generation))` and their
  Deployments `<revision>-deployment`. Both forms unless `serving.kserve.io/deploymentMode` names one.
  v0.20.0 adds `spec.predictor.name` (pkg/apis/serving/v1beta1/predictor.go: "Name optionally identifies
  this predictor variant. When set, the Deployment and Service are named {isvc}-{name}-predictor instead of
  the default {isvc}-predictor"; constants.go:799-803, `PredictorServiceName(name string, predictorName
  ...string)`: `name + "-" + predictorName[0] + "-" + string(Predictor)` when it is not ""), which
  components/predictor.go:159 passes for the predictor's objects in both modes (`predictorName :=
  constants.PredictorServiceName(isvc.Name, isvc.Spec.Predictor.Name)`), and `spec.canary[]` ("Each
  canary's predictor.name drives the Deployment name: {isvc}-{name}-predictor", inference_service.go): a
  Deployment per canary, `canaryName := constants.PredictorServiceName(isvc.Name, canary.Predictor.Name)`
  made by `raw.NewRawKubeReconciler` (reconcileCanaryDeployments, predictor.go:913-943; canaries are
  "only supported in Standard deployment mode", inference_service_validation.go), whose pods run the
  stable predictor with the canary's fields merged over it (buildCanaryPredictor: `mergo.Merge(
  &canaryPredictor, canary.Predictor, mergo.WithOverride)`), the function's argument included.
"""

import bisect
import hashlib
from typing import Any, NamedTuple
import re
from collections.abc import Callable, Iterable

from . import constants as C
from . import kinds, plain_kinds, pod_names
from .derived import content_hash, metadata
from .pod_names import PodNaming

NAME_PREFIX = "specdec-prometheusrule-"

# vLLM V1 counters.
DRAFTS = "vllm:spec_decode_num_drafts_total"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens_total"
GENERATION_TOKENS = "vllm:generation_tokens_total"
FINISHED_REQUESTS = "vllm:request_success_total"   # by finished_reason: stop, length, abort, …

# Recorded series, named level:metric:operations as Prometheus' recording-rule guide asks.
ACCEPTANCE_RATE = "kaito_specdec:acceptance_rate:ratio_rate{window}"
ACCEPTANCE_LENGTH = "kaito_specdec:mean_acceptance_length:rate{window}"
WORKLOAD_LABEL = "kaito_workload"
KIND_LABEL = "kaito_workload_kind"
ALERT = "KaitoSpeculativeDecodingLowAcceptance"
ALERT_FOR = "30m"
# A workload that decodes and drafts nothing: over NOT_DRAFTING_WINDOW, held for NOT_DRAFTING_FOR (a pod that
# has just started cannot fire on a part of a window: the alert fires only once the condition has held for a
# whole window's length).
NOT_DRAFTING_WINDOW = "15m"
NOT_DRAFTING_FOR = "15m"
DECODE_TOKENS = "kaito_specdec:decode_tokens:increase" + NOT_DRAFTING_WINDOW
DRAFTS_RECORD = "kaito_specdec:drafts:increase" + NOT_DRAFTING_WINDOW
NOT_DRAFTING_ALERT = "KaitoSpeculativeDecodingNotDrafting"
RUNBOOK = "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md#runbook-kaitospeculativedecodingnotdrafting"
DEFAULT_MIN_ACCEPTANCE_RATE = C.DEFAULT_MIN_ACCEPTANCE_RATE
DEFAULT_WINDOW = "5m"

_DURATION = re.compile(r"(?:[0-9]+(?:ms|s|m|h|d|w|y))+")
ROLES = ("prefill", "decode")
# How a workload's controller names its pods where the manifest leaves it open (Monitored.variant).
KAITO_DEPLOYMENT = "deployment"      # a Workspace under a KAITO before v0.8.0: a Deployment or a StatefulSet
KSERVE_STANDARD = "Standard"          # serving.kserve.io/deploymentMode Standard (RawDeployment)
KSERVE_KNATIVE = "Knative"            # Knative (Serverless)
# Knative names a revision's Deployment `<revision>-deployment` only while that fits in 63 characters
# (kmeta.ChildName; longer: an md5 of the revision's name, which holds its generation): `<name>-predictor-
# <5 digits>-deployment` fits for names of up to 36 characters (generations up to 99999).
KNATIVE_LONGEST_NAME = 63 - len("-predictor-00001-deployment")
# The same bound on the whole predictor name, `<name>[-<spec.predictor.name>]-predictor`.
KNATIVE_LONGEST_PREDICTOR = 63 - len("-00001-deployment")


class Monitored(NamedTuple):
    """A watched top-level workload: a Workspace, an InferenceSet or a MultiRoleInference, or a plain vLLM
    workload (plain_kinds.KINDS); `variant`: KAITO_DEPLOYMENT, or a KServe deployment mode ("": both)."""

    kind: str
    name: str
    variant: str = ""
    # An InferenceService's `spec.predictor.name` and its canaries' `predictor.name` (KServe v0.20).
    predictor: str = ""
    canaries: tuple[str, ...] = ()
    # An LLMInferenceService's workloads, by the suffix of their names (LLMISVC_MAIN, LLMISVC_PREFILL, …).
    parts: tuple[str, ...] = ()


# KServe's LLMInferenceService (kserve/kserve pkg/controller/v1alpha2/llmisvc, main after v0.20.0-rc0): a
# Deployment `mainDeploymentName = kmeta.ChildName(name, "-kserve")` when `spec.worker` is nil, else a
# LeaderWorkerSet `mainLWSName = kmeta.ChildName(name, "-kserve-mn")` (workload_single_node.go:65,515;
# workload_multi_node.go:65,667); with `spec.prefill`, a Deployment `-kserve-prefill` when `spec.prefill.worker`
# is nil, else a LeaderWorkerSet `-kserve-mn-prefill` (workload_single_node.go:200,519; workload_multi_node.go:
# 90,671). Prefill pods draft nothing, so summing both gives the decode side's figures.
LLMISVC_MAIN, LLMISVC_MAIN_MULTI_NODE = "-kserve", "-kserve-mn"
LLMISVC_PREFILL, LLMISVC_PREFILL_MULTI_NODE = "-kserve-prefill", "-kserve-mn-prefill"
LLMISVC_PREFILLS = (LLMISVC_PREFILL, LLMISVC_PREFILL_MULTI_NODE)


def child_name(parent: str, suffix: str) -> str:
    """knative.dev/pkg/kmeta ChildName for a suffix of up to 30 characters (KServe's are up to 18): `parent +
    suffix`, or where that passes 63 characters the parent cut to 31 - len(suffix) characters and its md5
    (a longer suffix takes ChildName's other branch, an md5 of both, which no caller here needs)."""
    if len(parent) <= 63 - len(suffix):
        return parent + suffix
    digest = hashlib.md5(parent.encode("utf-8"), usedforsecurity=False).hexdigest()  # a name, not a secret
    return parent[:31 - len(suffix)] + digest + suffix


def _statefulset(name: str) -> pod_names.Names:
    return pod_names.concat(pod_names.literal(name + "-"), pod_names.ordinal())


def _leader_workers(name: str) -> pod_names.Names:
    """A LeaderWorkerSet's pods: the leaders `<name>-<group>`, the workers `<name>-<group>-<worker>`."""
    group = _statefulset(name)
    return pod_names.union(group, pod_names.concat(group, pod_names.literal("-"), pod_names.ordinal()))


def _deployment(name: pod_names.Names) -> pod_names.Names:
    return pod_names.controller_pods(pod_names.replicaset_of(name))


def _inferenceset(name: str) -> pod_names.Names:
    # Its Workspaces `GenerateName: <name>-`, each a StatefulSet of the Workspace's name.
    return pod_names.concat(pod_names.generated(pod_names.literal(name + "-")), pod_names.literal("-"),
                            pod_names.ordinal())


def _job(job: pod_names.Names) -> pod_names.Names:
    return pod_names.union(pod_names.controller_pods(job), pod_names.indexed_job_pods(job))


def predictor_service_name(name: str, predictor: str = "") -> str:
    """KServe's `PredictorServiceName(name, predictorName...)` (pkg/constants/constants.go:799 at v0.20.0)."""
    return f"{name}-{predictor}-predictor" if predictor else f"{name}-predictor"


def _kserve(name: str, variant: str, predictor_name: str = "", canaries: tuple[str, ...] = ()) -> pod_names.Names:
    predictor = predictor_service_name(name, predictor_name)
    forms = []
    if variant in ("", KSERVE_STANDARD):
        forms.append(_deployment(pod_names.literal(predictor)))
        forms += [_deployment(pod_names.literal(predictor_service_name(name, c))) for c in canaries]
    if variant in ("", KSERVE_KNATIVE) and len(predictor) <= KNATIVE_LONGEST_PREDICTOR:
        revision = pod_names.concat(pod_names.literal(predictor + "-"), pod_names.chars(pod_names.DIGITS, 5, 5))
        forms.append(_deployment(pod_names.concat(revision, pod_names.literal("-deployment"))))
    return pod_names.union(*forms)


def _workspace(workload: Monitored) -> pod_names.Names:
    if workload.variant == KAITO_DEPLOYMENT:
        return pod_names.union(_statefulset(workload.name), _deployment(pod_names.literal(workload.name)))
    return _statefulset(workload.name)


def _cronjob(name: str) -> pod_names.Names:
    return _job(pod_names.concat(pod_names.literal(name + "-"), pod_names.chars(pod_names.DIGITS, 8, 8)))


def _llm_inference_service(workload: Monitored) -> pod_names.Names:
    multi_node = (LLMISVC_MAIN_MULTI_NODE, LLMISVC_PREFILL_MULTI_NODE)
    return pod_names.union(*(_leader_workers(child_name(workload.name, s)) if s in multi_node
                             else _deployment(pod_names.literal(child_name(workload.name, s))) for s in workload.parts))


# The pattern of each way of naming pods; each kind's record says which is its own (pod_names.PodNaming).
PATTERNS: dict[PodNaming, Callable[[Monitored], pod_names.Names]] = {
    PodNaming.DEPLOYMENT: lambda w: _deployment(pod_names.literal(w.name)),
    PodNaming.STATEFULSET: lambda w: _statefulset(w.name),
    PodNaming.CONTROLLER: lambda w: pod_names.controller_pods(pod_names.literal(w.name)),
    PodNaming.JOB: lambda w: _job(pod_names.literal(w.name)),
    PodNaming.CRONJOB: lambda w: _cronjob(w.name),
    PodNaming.POD: lambda w: pod_names.literal(w.name),
    PodNaming.LEADER_WORKER_SET: lambda w: _leader_workers(w.name),
    PodNaming.KSERVE_PREDICTOR: lambda w: _kserve(w.name, w.variant, w.predictor, w.canaries),
    PodNaming.LLM_INFERENCE_SERVICE: _llm_inference_service,
    PodNaming.WORKSPACE: _workspace,
    PodNaming.INFERENCESET: lambda w: _inferenceset(w.name),
    PodNaming.MULTIROLEINFERENCE: lambda w: pod_names.union(*(_inferenceset(f"{w.name}-{role}") for role in ROLES)),
}
# Kind -> how its pods are named, from the kinds' records (KAITO's and the plain ones).
NAMING = {k.kind: k.pods for k in kinds.KINDS} | {k.kind: k.pods for k in plain_kinds.KINDS}


def names_of(workload: Monitored) -> pod_names.Names:
    """Every name the workload's pods can have (pod_names.py), and as far as the alphabets allow no other.
    A kind of neither table, or a workload none of whose pods can be told by name (unmonitored), has none."""
    naming = NAMING.get(workload.kind)
    found = PATTERNS[naming](workload) if naming is not None else ()
    if not found:
        raise ValueError(f"no pods known for kind {workload.kind!r}")
    return found


def has_prefill(workload: Monitored) -> bool:
    """Whether some of the workload's pods are a prefill side, which runs the prompts and hands the KV cache to
    the decode side: a MultiRoleInference's prefill role, an LLMInferenceService's prefill workload."""
    return workload.kind == "MultiRoleInference" or any(p in LLMISVC_PREFILLS for p in workload.parts)


def drafting_names_of(workload: Monitored) -> pod_names.Names:
    """The names of the workload's pods that draft: all of them but the prefill side's (has_prefill)."""
    if workload.kind == "MultiRoleInference":
        return _inferenceset(f"{workload.name}-decode")
    if workload.kind == "LLMInferenceService":
        return names_of(workload._replace(parts=tuple(p for p in workload.parts if p not in LLMISVC_PREFILLS)))
    return names_of(workload)


def unmonitored(kind: str, name: str, variant: str, predictor: str = "") -> str:
    """Why the pods of this workload cannot all be selected by name ("": they can)."""
    if kind == "InferenceService" and variant in ("", KSERVE_KNATIVE) and predictor:
        if len(predictor_service_name(name, predictor)) > KNATIVE_LONGEST_PREDICTOR:
            return (f"in Knative mode its pods are named after an md5 of the revision's name, for predictor names "
                    f"(<name>-<spec.predictor.name>-predictor) longer than {KNATIVE_LONGEST_PREDICTOR} characters")
        return ""
    if kind == "InferenceService" and variant in ("", KSERVE_KNATIVE) and len(name) > KNATIVE_LONGEST_NAME:
        return (f"in Knative mode its pods are named after an md5 of the revision's name, for names longer than "
                f"{KNATIVE_LONGEST_NAME} characters")
    return ""


def pod_pattern(workload: Monitored) -> str:
    """An RE2 pattern (PromQL `=~` anchors it) that matches exactly the names of the workload's pods."""
    return pod_names.regex(names_of(workload))


def _string(text: str) -> str:
    """A PromQL double-quoted string (Go escapes: backslash and the quote)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Neighbours:
    """The workloads of a namespace, sorted by name: those whose names start with a prefix found by bisection
    (a namespace may hold thousands; comparing every pair would be quadratic)."""

    def __init__(self, workloads: Iterable[Monitored]) -> None:
        found = sorted(set(workloads), key=lambda w: (w.name, w.kind, w.variant, w.predictor, w.canaries))
        self.names = [w.name for w in found]
        self.workloads = found

    def starting_with(self, prefix: str) -> list[Monitored]:
        lo = bisect.bisect_left(self.names, prefix)
        hi = lo
        while hi < len(self.names) and self.names[hi].startswith(prefix):
            hi += 1
        return self.workloads[lo:hi]


def swallowed(workload: Monitored, neighbours: Iterable[Monitored] | Neighbours,
              mine: pod_names.Names | None = None) -> list[Monitored]:
    """The other workloads of the namespace whose pods the workload's pattern would also match
    (docs/monitoring.md, "Which pods are whose"). Every pod name of every kind starts with `<name>-` up to
    GenerateName's cut, so only a workload whose name starts so is a candidate, and pod_names.meet says
    whether its pods meet the workload's. A neighbour of the same name is none (their pods never meet, or
    they cannot both exist), nor is a Pod's neighbour. `mine`: the names to compare instead of all the
    workload's (drafting_names_of)."""
    if NAMING.get(workload.kind) is PodNaming.POD:
        return []
    around = neighbours if isinstance(neighbours, Neighbours) else Neighbours(neighbours)
    prefix = (workload.name + "-")[:pod_names.MAX_GENERATED_BASE]
    candidates = [n for n in around.starting_with(prefix) if n.name != workload.name]
    if not candidates:
        return []
    mine = names_of(workload) if mine is None else mine
    return [n for n in candidates if pod_names.meet(mine, names_of(n))]


def _selector(namespace: str, workload: Monitored, neighbours: Iterable[Monitored] | Neighbours = (),
              names: pod_names.Names | None = None) -> str:
    """The matchers of the workload's pods (`names`: only these of them, e.g. drafting_names_of)."""
    matchers = [f"namespace={_string(namespace)}"] if namespace else []
    matchers.append(f"pod=~{_string(pod_names.regex(names) if names is not None else pod_pattern(workload))}")
    matchers += [f"pod!~{_string(pod_pattern(n))}" for n in swallowed(workload, neighbours, names)]
    return "{" + ",".join(matchers) + "}"


def _sum_rate(metric: str, selector: str, window: str) -> str:
    # By namespace: without a namespace in the manifests the same names in two namespaces stay apart.
    return f"sum by (namespace) (rate({metric}{selector}[{window}]))"


def _sum_increase(metric: str, selector: str) -> str:
    return f"sum by (namespace) (increase({metric}{selector}[{NOT_DRAFTING_WINDOW}]))"


def expressions(namespace: str, workload: Monitored, window: str = DEFAULT_WINDOW,
                neighbours: Iterable[Monitored] | Neighbours = ()) -> dict[str, str]:
    """The PromQL of the workload's four records (also what docs/monitoring.md shows); `neighbours`: the other
    workloads in the namespace, whose pods are left out where the workload's pattern would match them."""
    sel = _selector(namespace, workload, neighbours)
    accepted = _sum_rate(ACCEPTED_TOKENS, sel, window)
    drafting = _selector(namespace, workload, neighbours, drafting_names_of(workload)) if has_prefill(workload) else sel
    return {
        "acceptance_rate": f"{accepted} / {_sum_rate(DRAFT_TOKENS, sel, window)}",
        "mean_acceptance_length": f"1 + {accepted} / {_sum_rate(DRAFTS, sel, window)}",
        "decode_tokens": f"{_sum_increase(GENERATION_TOKENS, drafting)} - {_sum_increase(FINISHED_REQUESTS, drafting)}",
        "drafts": _sum_increase(DRAFTS, drafting),
    }


def _check(window: str, min_acceptance_rate: float) -> None:
    if not isinstance(window, str) or not _DURATION.fullmatch(window):
        raise ValueError(f"window must be a Prometheus duration such as 5m, got {window!r}")
    if isinstance(min_acceptance_rate, bool) or not isinstance(min_acceptance_rate, (int, float)) \
            or not 0 <= min_acceptance_rate <= 1:
        raise ValueError(f"minAcceptanceRate must be a number from 0 to 1, got {min_acceptance_rate!r}")


def number(value: float) -> str:
    """A threshold as PromQL and messages write it: every digit the user gave (`format(x, "g")` keeps six,
    turning 0.1234567 into 0.123457), without a trailing `.0` (1, not 1.0)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def rules(namespace: str, workloads: Iterable[Monitored], min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE,
          window: str = DEFAULT_WINDOW, neighbours: Iterable[Monitored] = ()) -> list[dict[str, Any]]:
    """The rule group's rules: four records per workload (in the order given, each once), then the alerts on
    a workload that drafts nothing and on one whose drafts are rarely accepted. `neighbours`: every workload
    of the namespace (watched or not), for `expressions`."""
    _check(window, min_acceptance_rate)
    unique = list(dict.fromkeys(workloads))
    around = Neighbours([*unique, *neighbours])
    out: list[dict[str, Any]] = []
    for w in unique:
        labels = {WORKLOAD_LABEL: w.name, KIND_LABEL: w.kind}
        records = (ACCEPTANCE_RATE.format(window=window), ACCEPTANCE_LENGTH.format(window=window), DECODE_TOKENS,
                   DRAFTS_RECORD)
        for record, expr in zip(records, expressions(namespace, w, window, around).values(), strict=True):
            out.append({"record": record, "expr": expr, "labels": dict(labels)})
    matchers = [f"namespace={_string(namespace)}"] if namespace else []
    names = "|".join(pod_names.regex(pod_names.literal(n)) for n in dict.fromkeys(w.name for w in unique))
    matchers.append(f"{WORKLOAD_LABEL}=~{_string(names)}")
    threshold = number(min_acceptance_rate)
    # Drafts flat (0) or absent (no series: no record) alike leave the workload's decode tokens standing.
    out.append({
        "alert": NOT_DRAFTING_ALERT,
        "expr": f"{DECODE_TOKENS}{{{','.join(matchers)}}} > 0 unless on (namespace, {WORKLOAD_LABEL}, {KIND_LABEL}) "
                f"{DRAFTS_RECORD} > 0",
        "for": NOT_DRAFTING_FOR,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": "Speculative decoding on {{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/"
                       "{{ $labels.kaito_workload }} drafts nothing: {{ $value | humanize }} tokens decoded in "
                       f"{NOT_DRAFTING_WINDOW}, no drafts",
            "description": f"Its pods have decoded tokens without drafting any for {NOT_DRAFTING_FOR}: the speculative "
                           "config did not reach vLLM, or its drafter does nothing. Check in the runbook's order.",
            "runbook_url": RUNBOOK,
        },
    })
    out.append({
        "alert": ALERT,
        "expr": f"{ACCEPTANCE_RATE.format(window=window)}{{{','.join(matchers)}}} < {threshold}",
        "for": ALERT_FOR,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": "Speculative decoding on {{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/"
                       "{{ $labels.kaito_workload }} accepts {{ $value | humanizePercentage }} of its draft tokens",
            "description": f"The acceptance rate has stayed below {threshold} for {ALERT_FOR}: most drafted tokens are "
                           "thrown away, which costs throughput. Lower num_speculative_tokens, use a method suited "
                           "to the model (mtp or eagle3 with a trained drafter instead of ngram), or set "
                           "kaito.sh/enable-speculative-decoding to \"false\".",
        },
    })
    return out


def prometheus_rule(namespace: str, workloads: Iterable[Monitored],
                    min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE, window: str = DEFAULT_WINDOW,
                    labels: dict[str, str] | None = None, neighbours: Iterable[Monitored] = (),
                    more: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """The PrometheusRule for one namespace's enabled workloads, named after a hash of its content and marked
    as the function's own, like a derived ConfigMap. `labels` go on the object (a Prometheus' `ruleSelector`
    often asks for one, e.g. `release: <name>`); `neighbours`: see `rules`; `more`: the records of a second
    group (`<group>.dashboard`, dashboards.records: what the grafanaDashboards setting adds). Raises ValueError for
    a bad window or threshold, or for no workloads (nothing to watch: the caller retires the rule instead)."""
    workloads = list(workloads)
    if not workloads:
        raise ValueError("a PrometheusRule needs at least one workload")
    annotations = {C.DERIVED_ANNOTATION: "true"}
    group = f"kaito-specdec.{namespace}" if namespace else "kaito-specdec"
    spec = {"groups": [{"name": group, "rules": rules(namespace, workloads, min_acceptance_rate, window, neighbours)}]}
    more = list(more)
    if more:
        spec["groups"].append({"name": f"{group}.dashboard", "rules": more})
    content = {"labels": dict(labels or {}), "annotations": annotations, "spec": spec}
    return {"apiVersion": C.PROMETHEUS_RULE_API_VERSION, "kind": C.PROMETHEUS_RULE_KIND,
            "metadata": metadata(NAME_PREFIX + content_hash(content), namespace, dict(labels or {}), annotations),
            "spec": spec}
