"""The opt-in PrometheusRule: how well speculative decoding works, per workload, once it runs.

One `monitoring.coreos.com/v1` PrometheusRule per namespace with enabled workloads: two recording rules per
workload, from vLLM V1's counters (VLLM.md "Metrics (vLLM V1)"),

  acceptance rate         = accepted tokens / draft tokens
  mean acceptance length  = 1 + accepted tokens / drafts

each a `rate()` over a window summed over the workload's pods, and one alert when a workload's acceptance rate
stays below a threshold for 30 minutes: drafts that are rarely accepted cost GPU time and throughput.
An idle workload divides 0 by 0: the record is NaN, which compares false, so no alert fires for it.

Which series are a workload's. vLLM's metrics carry only `model_name` and `engine`; the scrape adds the pod's
`namespace` and `pod` (prometheus-operator's PodMonitor and ServiceMonitor do so by default, as does the
usual `kubernetes_sd` relabelling), and pod labels only when a monitor copies them (`podTargetLabels`). So
the series are selected by pod name, which KAITO fixes (kaito-project/kaito, main 2026-08):
- Workspace `w`: a StatefulSet named `w` (pkg/workspace/manifests/manifests.go, GenerateStatefulSetManifest;
  "Use StatefulSet for all use cases", #1523, KAITO v0.8.0) -> pods `w-<ordinal>`; before v0.8.0 a single-node
  Workspace ran as a Deployment -> pods `w-<pod-template-hash>-<5 characters>`. Both are matched.
- InferenceSet `s`: child Workspaces from `GenerateName: iObj.Name + "-"` (pkg/utils/inferenceset/
  inferenceset.go, NewWorkspaceForInferenceSet) -> `s-<5 characters>`, pods `s-<5 characters>-<ordinal>`.
  The API server cuts a GenerateName base to 58 characters before adding the 5.
- MultiRoleInference `m`: child InferenceSets `m-prefill` and `m-decode` -> their pods as above.
  Prefill pods draft nothing, so summing both roles gives the decode side's figures.
The pods also carry `kaito.sh/workspace: <workspace>` (and `inferenceset.kaito.sh/created-by`), but a
selector on those would work only where the monitor copies them.
"""
from __future__ import annotations

import bisect
import re
from .record import dataclass
from collections.abc import Iterable

from . import constants as C
from .derived import content_hash

API_VERSION = C.PROMETHEUS_RULE_API_VERSION
KIND = C.PROMETHEUS_RULE_KIND
NAME_PREFIX = "specdec-prometheusrule-"

# vLLM V1 counters (VLLM.md "Metrics (vLLM V1)").
DRAFTS = "vllm:spec_decode_num_drafts_total"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens_total"

# Recorded series, named level:metric:operations as Prometheus' recording-rule guide asks.
ACCEPTANCE_RATE = "kaito_specdec:acceptance_rate:ratio_rate{window}"
ACCEPTANCE_LENGTH = "kaito_specdec:mean_acceptance_length:rate{window}"
WORKLOAD_LABEL = "kaito_workload"
KIND_LABEL = "kaito_workload_kind"
ALERT = "KaitoSpeculativeDecodingLowAcceptance"
ALERT_FOR = "30m"
DEFAULT_MIN_ACCEPTANCE_RATE = C.DEFAULT_MIN_ACCEPTANCE_RATE
DEFAULT_WINDOW = "5m"

_GENERATE_NAME_BASE = 58   # k8s.io/apiserver names.SimpleNameGenerator: maxGeneratedNameLength = 63 - 5
_DURATION = re.compile(r"(?:[0-9]+(?:ms|s|m|h|d|w|y))+")
ROLES = ("prefill", "decode")


@dataclass(frozen=True)
class Monitored:
    """An enabled top-level workload: a Workspace, an InferenceSet or a MultiRoleInference."""

    kind: str
    name: str


_META = frozenset("\\.+*?()|[]{}^$")


def _literal(name: str) -> str:
    """`name` as an RE2 pattern that matches only itself (a Kubernetes name: only its dots need escaping)."""
    return "".join("\\" + ch if ch in _META else ch for ch in name)


def _generated(base: str) -> str:
    """The regex of a name made from `GenerateName: base`."""
    return _literal(base[:_GENERATE_NAME_BASE]) + "[a-z0-9]{5}"


def pod_pattern(workload: Monitored) -> str:
    """An RE2 pattern (PromQL `=~` anchors it) that matches exactly the names of the workload's pods."""
    if workload.kind == "Workspace":
        return _literal(workload.name) + "-([0-9]+|[a-z0-9]{1,10}-[a-z0-9]{5})"
    if workload.kind == "InferenceSet":
        return _generated(workload.name + "-") + "-[0-9]+"
    if workload.kind == "MultiRoleInference":
        return "(" + "|".join(_generated(f"{workload.name}-{role}-") for role in ROLES) + ")-[0-9]+"
    raise ValueError(f"no pods known for kind {workload.kind!r}")


def _string(text: str) -> str:
    """A PromQL double-quoted string (Go escapes: backslash and the quote)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Workspaces:
    """The Workspace names among some workloads, sorted: those starting with a prefix found by bisection
    (a namespace may hold thousands; comparing every pair would be quadratic)."""

    def __init__(self, workloads: Iterable[Monitored]) -> None:
        self.names = sorted({w.name for w in workloads if w.kind == "Workspace"})

    def starting_with(self, prefix: str) -> list[str]:
        lo = bisect.bisect_left(self.names, prefix)
        hi = lo
        while hi < len(self.names) and self.names[hi].startswith(prefix):
            hi += 1
        return self.names[lo:hi]


def swallowed(workload: Monitored, neighbours: Iterable[Monitored] | Workspaces) -> list[Monitored]:
    """The other workloads of the namespace whose pods the workload's pattern would also match.

    Only a Workspace has a fixed pod name (`w-0`); it is swallowed when that name is one a GenerateName
    of the workload could make: a Workspace `s-x7k2p` next to an InferenceSet `s`, or `m-decode-x7k2p`
    next to a MultiRoleInference `m`. Such pods are then excluded by name (`pod!~`). Pods of workloads that
    are not in the input cannot be told apart (see docs/monitoring.md)."""
    around = neighbours if isinstance(neighbours, Workspaces) else Workspaces(neighbours)
    # Every pod name of every kind starts with `<name>-`, up to a GenerateName's cut: only Workspaces named
    # so are candidates, and the pattern is compiled only for those.
    prefix = (workload.name + "-")[:_GENERATE_NAME_BASE]
    candidates = [Monitored("Workspace", name) for name in around.starting_with(prefix)]
    candidates = [n for n in candidates if n != workload]
    if not candidates:
        return []
    pattern = re.compile(pod_pattern(workload))
    return [n for n in candidates if pattern.fullmatch(n.name + "-0")]


def _selector(namespace: str, workload: Monitored, neighbours: Iterable[Monitored] | Workspaces = ()) -> str:
    matchers = [f"namespace={_string(namespace)}"] if namespace else []
    matchers.append(f"pod=~{_string(pod_pattern(workload))}")
    matchers += [f"pod!~{_string(pod_pattern(n))}" for n in swallowed(workload, neighbours)]
    return "{" + ",".join(matchers) + "}"


def _sum_rate(metric: str, selector: str, window: str) -> str:
    # By namespace: without a namespace in the manifests the same names in two namespaces stay apart.
    return f"sum by (namespace) (rate({metric}{selector}[{window}]))"


def expressions(namespace: str, workload: Monitored, window: str = DEFAULT_WINDOW,
                neighbours: Iterable[Monitored] | Workspaces = ()) -> dict[str, str]:
    """The PromQL of both figures for one workload (also what docs/monitoring.md shows); `neighbours`: the other
    workloads in the namespace, whose pods are left out where the workload's pattern would match them."""
    sel = _selector(namespace, workload, neighbours)
    accepted = _sum_rate(ACCEPTED_TOKENS, sel, window)
    return {
        "acceptance_rate": f"{accepted} / {_sum_rate(DRAFT_TOKENS, sel, window)}",
        "mean_acceptance_length": f"1 + {accepted} / {_sum_rate(DRAFTS, sel, window)}",
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
          window: str = DEFAULT_WINDOW, neighbours: Iterable[Monitored] = ()) -> list[dict]:
    """The rule group's rules: two records per workload (in the order given, each once), then the alert.
    `neighbours`: every workload of the namespace (watched or not), for `expressions`."""
    _check(window, min_acceptance_rate)
    unique = list(dict.fromkeys(workloads))
    around = Workspaces([*unique, *neighbours])
    out: list[dict] = []
    for w in unique:
        labels = {WORKLOAD_LABEL: w.name, KIND_LABEL: w.kind}
        exprs = expressions(namespace, w, window, around)
        out.append({"record": ACCEPTANCE_RATE.format(window=window), "expr": exprs["acceptance_rate"],
                    "labels": dict(labels)})
        out.append({"record": ACCEPTANCE_LENGTH.format(window=window), "expr": exprs["mean_acceptance_length"],
                    "labels": dict(labels)})
    matchers = [f"namespace={_string(namespace)}"] if namespace else []
    matchers.append(f"{WORKLOAD_LABEL}=~{_string('|'.join(_literal(n) for n in dict.fromkeys(w.name for w in unique)))}")
    threshold = number(min_acceptance_rate)
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
                    labels: dict[str, str] | None = None, neighbours: Iterable[Monitored] = ()) -> dict:
    """The PrometheusRule for one namespace's enabled workloads, named after a hash of its content.

    `labels` go on the object (a Prometheus' `ruleSelector` often asks for one, e.g. `release: <name>`). The
    `kaito-specdec.dev/derived` annotation marks it as the function's own, like a derived ConfigMap, so that
    a run over its own output regenerates or retires it. `neighbours`: see `rules`. Raises ValueError for a bad window or threshold, or
    for no workloads (nothing to watch: the caller retires the rule instead).
    """
    workloads = list(workloads)
    if not workloads:
        raise ValueError("a PrometheusRule needs at least one workload")
    annotations = {C.DERIVED_ANNOTATION: "true"}
    spec = {"groups": [{"name": f"kaito-specdec.{namespace}" if namespace else "kaito-specdec",
                        "rules": rules(namespace, workloads, min_acceptance_rate, window, neighbours)}]}
    content = {"labels": dict(labels or {}), "annotations": annotations, "spec": spec}
    metadata: dict = {"name": NAME_PREFIX + content_hash(content)}
    if namespace:
        metadata["namespace"] = namespace
    if labels:
        metadata["labels"] = dict(labels)
    metadata["annotations"] = annotations
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec}
