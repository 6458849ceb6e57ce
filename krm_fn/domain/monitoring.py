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
import json
from typing import Any, NamedTuple
import re
from collections.abc import Callable, Iterable, Mapping

from ..text import yamlio
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
# The runbooks at the default branch, not at the release's tag as the SARIF helpUri is: the rule is committed to
# the user's repository and named after its content, so a link that changed with every release would rename, and
# replace, every PrometheusRule of every namespace on each upgrade (docs/monitoring.md, "The PrometheusRule").
RUNBOOKS = "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md"


def runbook(alert: str) -> str:
    """The address of the alert's runbook: its section `## Runbook: <alert>` of docs/monitoring.md."""
    return f"{RUNBOOKS}#runbook-{alert.lower()}"


RUNBOOK = runbook(NOT_DRAFTING_ALERT)

# vLLM V1 prefix-cache counters, in prompt tokens looked up and found (`vllm:prefix_cache_queries`,
# `vllm:prefix_cache_hits`, prometheus_client adds `_total`), labels `model_name` and `engine`, in every release of
# the tables (vllm/v1/metrics/loggers.py, the wheels' code): :251-265 at 0.10.2, :504-520 at 0.17.1, :547-565 at
# 0.25.1, :661-677 at 0.34.0; increased by each step's `prefix_cache_stats.queries` and `.hits` (:526-529 at
# 0.10.2, :1047-1052 at 0.17.1, :1167-1172 at 0.34.0). The `vllm:gpu_prefix_cache_*` names before them are
# deprecated since 0.9.2, hidden in 0.11 (loggers.py:224-247 at 0.11.0) and gone from 0.12.0. A server with prefix
# caching off looks nothing up (vllm/v1/core/kv_cache_manager.py:222 at 0.25.1, `if not self.enable_caching …:
# return`): its queries stay flat, and PrefixCacheInert silent.
PREFIX_CACHE_QUERIES = "vllm:prefix_cache_queries_total"
PREFIX_CACHE_HITS = "vllm:prefix_cache_hits_total"

# A drafter that drafts and is (almost) never accepted: the acceptance rate below DRAFTER_DEAD_RATE for
# DRAFTER_DEAD_FOR (drafts rising: 0/0 gives no value).
DRAFTER_DEAD_ALERT = "KaitoSpeculativeDecodingDrafterDead"
DRAFTER_DEAD_RATE = "0.02"
DRAFTER_DEAD_FOR = "10m"
# Prefix-cache queries rising and hits flat over PREFIX_CACHE_WINDOW, held for as long, while the workload drafts.
PREFIX_CACHE_INERT_ALERT = "KaitoSpeculativeDecodingPrefixCacheInert"
PREFIX_CACHE_WINDOW = "30m"
PREFIX_CACHE_FOR = "30m"
PREFIX_CACHE_QUERIES_RECORD = "kaito_specdec:prefix_cache_queries:increase" + PREFIX_CACHE_WINDOW
PREFIX_CACHE_HITS_RECORD = "kaito_specdec:prefix_cache_hits:increase" + PREFIX_CACHE_WINDOW
# The acceptance rate over the window below DROPPED_FRACTION of the workload's own over BASELINE_WINDOW, for
# DROPPED_FOR: a drop against the workload itself, whatever its level.
ACCEPTANCE_DROPPED_ALERT = "KaitoSpeculativeDecodingAcceptanceDropped"
BASELINE_WINDOW = "6h"
DROPPED_FRACTION = "0.5"
DROPPED_FOR = "30m"
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


def _sum_increase(metric: str, selector: str, window: str = NOT_DRAFTING_WINDOW) -> str:
    return f"sum by (namespace) (increase({metric}{selector}[{window}]))"


def expressions(namespace: str, workload: Monitored, window: str = DEFAULT_WINDOW,
                neighbours: Iterable[Monitored] | Neighbours = ()) -> dict[str, str]:
    """The PromQL of the workload's records (also what docs/monitoring.md shows); `neighbours`: the other
    workloads in the namespace, whose pods are left out where the workload's pattern would match them. The
    prefix-cache records count the pods that draft: a prefill side's cache, which speculation does not touch,
    would hide a decode side's that never hits."""
    sel = _selector(namespace, workload, neighbours)
    accepted = _sum_rate(ACCEPTED_TOKENS, sel, window)
    drafting = _selector(namespace, workload, neighbours, drafting_names_of(workload)) if has_prefill(workload) else sel
    return {
        "acceptance_rate": f"{accepted} / {_sum_rate(DRAFT_TOKENS, sel, window)}",
        "mean_acceptance_length": f"1 + {accepted} / {_sum_rate(DRAFTS, sel, window)}",
        "decode_tokens": f"{_sum_increase(GENERATION_TOKENS, drafting)} - {_sum_increase(FINISHED_REQUESTS, drafting)}",
        "drafts": _sum_increase(DRAFTS, drafting),
        "acceptance_rate_baseline": f"{_sum_rate(ACCEPTED_TOKENS, sel, BASELINE_WINDOW)} / "
                                    f"{_sum_rate(DRAFT_TOKENS, sel, BASELINE_WINDOW)}",
        "prefix_cache_queries": _sum_increase(PREFIX_CACHE_QUERIES, drafting, PREFIX_CACHE_WINDOW),
        "prefix_cache_hits": _sum_increase(PREFIX_CACHE_HITS, drafting, PREFIX_CACHE_WINDOW),
    }


def _check(window: str, min_acceptance_rate: float) -> None:
    if not isinstance(window, str) or not _DURATION.fullmatch(window) or window == BASELINE_WINDOW:
        raise ValueError(f"window must be a Prometheus duration such as 5m, other than the baseline's "
                         f"{BASELINE_WINDOW}, got {window!r}")
    if isinstance(min_acceptance_rate, bool) or not isinstance(min_acceptance_rate, (int, float)) \
            or not 0 <= min_acceptance_rate <= 1:
        raise ValueError(f"minAcceptanceRate must be a number from 0 to 1, got {min_acceptance_rate!r}")


def number(value: float) -> str:
    """A threshold as PromQL and messages write it: every digit the user gave (`format(x, "g")` keeps six,
    turning 0.1234567 into 0.123457), without a trailing `.0` (1, not 1.0)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _records(namespace: str, workload: Monitored, window: str, around: Neighbours) -> list[dict[str, Any]]:
    """The workload's records: the four of the first releases, then the baseline and the prefix cache's."""
    labels = {WORKLOAD_LABEL: workload.name, KIND_LABEL: workload.kind}
    records = (ACCEPTANCE_RATE.format(window=window), ACCEPTANCE_LENGTH.format(window=window), DECODE_TOKENS,
               DRAFTS_RECORD, ACCEPTANCE_RATE.format(window=BASELINE_WINDOW), PREFIX_CACHE_QUERIES_RECORD,
               PREFIX_CACHE_HITS_RECORD)
    return [{"record": record, "expr": expr, "labels": dict(labels)}
            for record, expr in zip(records, expressions(namespace, workload, window, around).values(), strict=True)]


_ON = f"on (namespace, {WORKLOAD_LABEL}, {KIND_LABEL})"
_WHO = "{{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/{{ $labels.kaito_workload }}"


def _new_alerts(selector: str, window: str) -> list[dict[str, Any]]:
    """The alerts on a dead drafter, an inert prefix cache and a drop of acceptance (docs/monitoring.md's
    runbooks), over the records of the workloads `selector` names."""
    rate = ACCEPTANCE_RATE.format(window=window)
    baseline = ACCEPTANCE_RATE.format(window=BASELINE_WINDOW)
    percent = f"{float(DRAFTER_DEAD_RATE):.0%}"
    return [{
        "alert": DRAFTER_DEAD_ALERT,
        "expr": f"{rate}{selector} < {DRAFTER_DEAD_RATE}",
        "for": DRAFTER_DEAD_FOR,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": f"Speculative decoding on {_WHO} drafts and is almost never accepted: "
                       "{{ $value | humanizePercentage }} of its draft tokens",
            "description": f"The acceptance rate has stayed below {percent} for {DRAFTER_DEAD_FOR} while it drafts: "
                           "the drafter proposes tokens the model never takes (a checkpoint without its MTP "
                           "weights, a drafter trained for another model). Tuning does not help; check in the "
                           "runbook's order.",
            "runbook_url": runbook(DRAFTER_DEAD_ALERT),
        },
    }, {
        "alert": PREFIX_CACHE_INERT_ALERT,
        "expr": f"{PREFIX_CACHE_QUERIES_RECORD}{selector} > 0 unless {_ON} {PREFIX_CACHE_HITS_RECORD} > 0 "
                f"and {_ON} {DRAFTS_RECORD} > 0",
        "for": PREFIX_CACHE_FOR,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": f"Prefix caching on {_WHO} hits nothing while it speculates: "
                       f"{{{{ $value | humanize }}}} tokens looked up in {PREFIX_CACHE_WINDOW}, no hits",
            "description": f"Its drafting pods have looked up prompts in the prefix cache for {PREFIX_CACHE_FOR} "
                           "without one hit: with speculative decoding on, vLLM can leave a hybrid (Mamba, GDN) "
                           "model's prefix cache inert, and every prompt is prefilled in full. Check in the "
                           "runbook's order.",
            "runbook_url": runbook(PREFIX_CACHE_INERT_ALERT),
        },
    }, {
        "alert": ACCEPTANCE_DROPPED_ALERT,
        "expr": f"{rate}{selector} < {_ON} {DROPPED_FRACTION} * {baseline}",
        "for": DROPPED_FOR,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": f"Speculative decoding on {_WHO} accepts {{{{ $value | humanizePercentage }}}} of its draft "
                       f"tokens, under half of its own rate over {BASELINE_WINDOW}",
            "description": f"The acceptance rate over {window} has stayed below half of the workload's over "
                           f"{BASELINE_WINDOW} for {DROPPED_FOR}: acceptance that decays while the pods run "
                           "(only a restart restores it), or traffic unlike before. Check in the runbook's order.",
            "runbook_url": runbook(ACCEPTANCE_DROPPED_ALERT),
        },
    }]


def _alerts(namespace: str, workloads: list[Monitored], min_acceptance_rate: float,
            window: str) -> list[dict[str, Any]]:
    """The alerts over the records of these workloads: the new ones, then no drafts and low acceptance."""
    matchers = [f"namespace={_string(namespace)}"] if namespace else []
    names = "|".join(pod_names.regex(pod_names.literal(n)) for n in dict.fromkeys(w.name for w in workloads))
    matchers.append(f"{WORKLOAD_LABEL}=~{_string(names)}")
    threshold = number(min_acceptance_rate)
    out = _new_alerts("{" + ",".join(matchers) + "}", window)
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


def rules(namespace: str, workloads: Iterable[Monitored], min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE,
          window: str = DEFAULT_WINDOW, neighbours: Iterable[Monitored] = ()) -> list[dict[str, Any]]:
    """One rule group's rules: the records of each workload (in the order given, each once), then the alerts.
    `neighbours`: every workload of the namespace (watched or not), for `expressions`."""
    _check(window, min_acceptance_rate)
    unique = list(dict.fromkeys(workloads))
    around = Neighbours([*unique, *neighbours])
    return [r for w in unique for r in _records(namespace, w, window, around)] + \
        _alerts(namespace, unique, min_acceptance_rate, window)


# The most a PrometheusRule may hold: 256 KiB, what client-side `kubectl apply` (and Argo CD's default sync) can
# keep in its last-applied-configuration annotation (k8s.io/apimachinery's TotalAnnotationSizeLimitB = 256 * (1 <<
# 10), apimachinery/pkg/api/validation/objectmeta.go), half of prometheus-operator's 512 KiB. The rule is split
# below RULE_BUDGET, which leaves 16 KiB for what is added after the function (kpt's path annotations, labels, an
# orchestrator's tracking annotation).
MAX_OBJECT_BYTES = 256 * 1024
RULE_BUDGET = MAX_OBJECT_BYTES - 16 * 1024


def serialized_bytes(obj: dict[str, Any]) -> int:
    """An object's size as written: the larger of its YAML as the writer writes a new item (yamlio.dump) and its
    compact JSON (what the API server stores and `kubectl apply` keeps in its annotation), in UTF-8 bytes."""
    as_json = len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    if as_json > RULE_BUDGET:   # over either way: no need to emit the YAML
        return as_json
    return max(as_json, len(yamlio.dump(obj).encode("utf-8")))


def part_bits(name: str) -> str:
    """The bits of the sha256 of a workload's name, which choose its part of a split rule: the first bit the
    part of the first split, the next ones those of its halves' splits (workloads of one name always together)."""
    return "".join(f"{byte:08b}" for byte in hashlib.sha256(name.encode("utf-8")).digest())


def _rule_object(namespace: str, bits: str, group_rules: list[dict[str, Any]],
                 labels: dict[str, str] | None, more: list[dict[str, Any]]) -> dict[str, Any]:
    """`more`: the records of a second group, `<group>.dashboard` (dashboards.records: what the
    grafanaDashboards setting adds), for the same workloads."""
    annotations = {C.DERIVED_ANNOTATION: "true"}
    group = f"kaito-specdec.{namespace}" if namespace else "kaito-specdec"
    group = f"{group}.{bits}" if bits else group
    spec = {"groups": [{"name": group, "rules": group_rules}]}
    if more:
        spec["groups"].append({"name": f"{group}.dashboard", "rules": more})
    content = {"labels": dict(labels or {}), "annotations": annotations, "spec": spec}
    return {"apiVersion": C.PROMETHEUS_RULE_API_VERSION, "kind": C.PROMETHEUS_RULE_KIND,
            "metadata": metadata(NAME_PREFIX + content_hash(content), namespace, dict(labels or {}), annotations),
            "spec": spec}


class _Split(NamedTuple):
    namespace: str
    records: dict[Monitored, list[dict[str, Any]]]
    min_acceptance_rate: float
    window: str
    labels: dict[str, str] | None
    budget: int | None
    more: Mapping[Monitored, list[dict[str, Any]]]

    def parts(self, workloads: list[Monitored], bits: str) -> list[dict[str, Any]]:
        """The rule of these workloads (those whose names' part_bits start with `bits`), or, when it passes
        the budget, the parts of its two halves by the next bit: the same workloads always give the same parts,
        and a workload added or dropped changes only its own part (or splits it, or joins it to its sibling)."""
        group = [r for w in workloads for r in self.records[w]]
        alerts = _alerts(self.namespace, workloads, self.min_acceptance_rate, self.window)
        more = [r for w in workloads for r in self.more.get(w, ())]
        rule = _rule_object(self.namespace, bits, group + alerts, self.labels, more)
        if self.budget is None or len({w.name for w in workloads}) == 1 or serialized_bytes(rule) <= self.budget:
            return [rule]
        out = []
        for bit in "01":
            half = [w for w in workloads if part_bits(w.name)[len(bits)] == bit]
            if half:
                out += self.parts(half, bits + bit)
        return out


def prometheus_rules(namespace: str, workloads: Iterable[Monitored],
                     min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE, window: str = DEFAULT_WINDOW,
                     labels: dict[str, str] | None = None, neighbours: Iterable[Monitored] = (),
                     budget: int | None = RULE_BUDGET,
                     more: Mapping[Monitored, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """The PrometheusRules for one namespace's enabled workloads: one while it fits in `budget` bytes
    (serialized_bytes; None: no limit), else split by the bits of the workloads' names' hashes (_Split.parts).
    Each is named after a hash of its content and marked as the function's own, like a derived ConfigMap.
    `labels` go on the objects (a Prometheus' `ruleSelector` often asks for one, e.g. `release: <name>`);
    `neighbours`: see `rules`; `more`: each workload's records of the `.dashboard` group, in its part.
    Raises ValueError for a bad window or threshold, or for no workloads (nothing to
    watch: the caller retires the rules instead)."""
    unique = list(dict.fromkeys(workloads))
    if not unique:
        raise ValueError("a PrometheusRule needs at least one workload")
    _check(window, min_acceptance_rate)
    around = Neighbours([*unique, *neighbours])
    records = {w: _records(namespace, w, window, around) for w in unique}
    return _Split(namespace, records, min_acceptance_rate, window, labels, budget, more or {}).parts(unique, "")


def prometheus_rule(namespace: str, workloads: Iterable[Monitored],
                    min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE, window: str = DEFAULT_WINDOW,
                    labels: dict[str, str] | None = None, neighbours: Iterable[Monitored] = (),
                    more: Mapping[Monitored, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """The namespace's whole rule in one object, whatever its size (prometheus_rules without a budget)."""
    (rule,) = prometheus_rules(namespace, workloads, min_acceptance_rate, window, labels, neighbours, budget=None,
                               more=more)
    return rule
