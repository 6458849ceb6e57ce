"""The opt-in Grafana dashboard (the grafanaDashboards setting, docs/monitoring.md "Dashboard"): one ConfigMap per
namespace with enabled workloads, which the kube-prometheus-stack's Grafana sidecar loads by its label, holding one
dashboard over the PrometheusRule's records.

The dashboard names no workload: its `kaito_workload` variable lists the workloads the records carry, so its size
and its name (a hash of its content) depend on the namespace alone, however many workloads it holds. What the rule
records for the dashboard alone (the prefix cache, the requests running) is recorded per workload with the rule's
own pod selectors (`records`), since vLLM's series name pods, not workloads.

vLLM's series (names, types and labels as vLLM's PrometheusStatLogger registers them, `labelnames =
["model_name", "engine"]`, vllm/v1/metrics/loggers.py in every release from v0.10.2 to v0.28.0: 168 at v0.10.2,
468 at v0.28.0); prometheus_client exports a Counter as `<name>_total`:
- `vllm:prefix_cache_queries`, `vllm:prefix_cache_hits`: Counters, "Prefix cache queries, in terms of number of
  queried tokens" and "Prefix cache hits, in terms of number of cached tokens" (loggers.py:252,260 at v0.10.2;
  :518,529 at v0.11.1; :470,481 at v0.12.0; :585,596 at v0.28.0). Until v0.11.2 vLLM also exported the same
  counts as `vllm:gpu_prefix_cache_queries`/`…_hits` (deprecated in 0.9, hidden from v0.11.0 unless
  --show-hidden-metrics-for-version; gone in v0.12.0): the new names hold on every release the tables cover.
- `vllm:num_requests_running`: a Gauge, "Number of requests in model execution batches" (loggers.py:189 at
  v0.10.2, :494 at v0.28.0).
"""

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from . import constants as C
from . import monitoring
from .derived import content_hash, metadata

NAME_PREFIX = "specdec-grafana-dashboard-"
# The kube-prometheus-stack chart's Grafana sidecar loads every ConfigMap with this label (its values.yaml:
# `grafana.sidecar.dashboards.label: grafana_dashboard`, `labelValue: "1"`), each data key a file of one folder.
SIDECAR_LABEL, SIDECAR_LABEL_VALUE = "grafana_dashboard", "1"
MAX_UID = 40   # Grafana refuses a dashboard uid longer than 40 characters
SCHEMA_VERSION = 39

PREFIX_CACHE_QUERIES = "vllm:prefix_cache_queries_total"
PREFIX_CACHE_HITS = "vllm:prefix_cache_hits_total"
REQUESTS_RUNNING = "vllm:num_requests_running"
PREFIX_CACHE_HIT_RATIO = "kaito_specdec:prefix_cache_hit_ratio:ratio_rate{window}"
REQUESTS_RUNNING_RECORD = "kaito_specdec:requests_running:sum"


def record_expressions(namespace: str, workload: monitoring.Monitored, window: str = monitoring.DEFAULT_WINDOW,
                       neighbours: Iterable[monitoring.Monitored] | monitoring.Neighbours = ()) -> dict[str, str]:
    """The PromQL of the workload's two records for the dashboard, over the rule's pod selectors: the prefix
    cache's hit ratio over all its pods (a prefill side caches prompts too), the requests running on the pods that
    draft (a disaggregated request runs on both sides; its decode is what speculation serves)."""
    sel = monitoring._selector(namespace, workload, neighbours)
    drafting = sel
    if monitoring.has_prefill(workload):
        drafting = monitoring._selector(namespace, workload, neighbours, monitoring.drafting_names_of(workload))
    hits = monitoring._sum_rate(PREFIX_CACHE_HITS, sel, window)
    return {
        "prefix_cache_hit_ratio": f"{hits} / {monitoring._sum_rate(PREFIX_CACHE_QUERIES, sel, window)}",
        "requests_running": f"sum by (namespace) ({REQUESTS_RUNNING}{drafting})",
    }


def records(namespace: str, workloads: Iterable[monitoring.Monitored], window: str = monitoring.DEFAULT_WINDOW,
            neighbours: Iterable[monitoring.Monitored] = ()) -> dict[monitoring.Monitored, list[dict[str, Any]]]:
    """The records the dashboard adds to the namespace's PrometheusRule, by workload (in the order given, each
    once): two each, labelled as the rule's own, in a `.dashboard` group of the part that watches the workload."""
    unique = list(dict.fromkeys(workloads))
    around = monitoring.Neighbours([*unique, *neighbours])
    out: dict[monitoring.Monitored, list[dict[str, Any]]] = {}
    for w in unique:
        labels = {monitoring.WORKLOAD_LABEL: w.name, monitoring.KIND_LABEL: w.kind}
        names = (PREFIX_CACHE_HIT_RATIO.format(window=window), REQUESTS_RUNNING_RECORD)
        exprs = record_expressions(namespace, w, window, around).values()
        out[w] = [{"record": record, "expr": expr, "labels": dict(labels)}
                  for record, expr in zip(names, exprs, strict=True)]
    return out


def uid(namespace: str) -> str:
    """The dashboard's uid: from the namespace alone, so that links to it outlive every change of its content."""
    return "kaito-specdec-" + hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:20]


def title(namespace: str) -> str:
    return f"Speculative decoding: {namespace}" if namespace else "Speculative decoding"


def data_key(namespace: str) -> str:
    """The file the sidecar writes: one folder holds every namespace's, so the namespace is in its name."""
    return f"kaito-specdec-{namespace}.json" if namespace else "kaito-specdec.json"


_DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def _selector(namespace: str) -> str:
    return f'{{namespace="$namespace",{monitoring.WORKLOAD_LABEL}=~"$kaito_workload"}}'


def _target(ref: str, expr: str, legend: str) -> dict[str, Any]:
    return {"datasource": _DATASOURCE, "editorMode": "code", "expr": expr, "legendFormat": legend, "range": True,
            "refId": ref}


def _panel(number: int, title: str, description: str, unit: str, targets: list[dict[str, Any]],
           overrides: list[dict[str, Any]] | None = None, bounds: tuple[float, float] | None = None) -> dict[str, Any]:
    defaults: dict[str, Any] = {"unit": unit}
    if bounds is not None:
        defaults["min"], defaults["max"] = bounds
    return {
        "datasource": _DATASOURCE,
        "description": description,
        "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
        "gridPos": {"h": 8, "w": 12, "x": 12 * (number % 2), "y": 8 * (number // 2)},
        "id": number + 1,
        "options": {"legend": {"calcs": [], "displayMode": "list", "placement": "bottom", "showLegend": True},
                    "tooltip": {"mode": "multi", "sort": "none"}},
        "targets": targets,
        "title": title,
        "type": "timeseries",
    }


def panels(window: str = monitoring.DEFAULT_WINDOW) -> list[dict[str, Any]]:
    """The panels, each over the rule's records of the workloads the variables pick."""
    sel = _selector("")
    legend = "{{" + monitoring.WORKLOAD_LABEL + "}}"
    rate = monitoring.ACCEPTANCE_RATE.format(window=window)
    length = monitoring.ACCEPTANCE_LENGTH.format(window=window)
    right = [{"matcher": {"id": "byFrameRefID", "options": "B"},
              "properties": [{"id": "custom.axisPlacement", "value": "right"}, {"id": "unit", "value": "none"}]}]
    return [
        _panel(0, "Acceptance rate", f"Accepted draft tokens / draft tokens, over {window} ({rate}).",
               "percentunit", [_target("A", rate + sel, legend)], bounds=(0, 1)),
        _panel(1, "Mean acceptance length", f"Tokens per draft round: 1 + accepted tokens / drafts, over {window} "
               f"({length}).", "none", [_target("A", length + sel, legend)]),
        _panel(2, "Drafts against decode tokens", f"Draft rounds and tokens decoded, over "
               f"{monitoring.NOT_DRAFTING_WINDOW}: decode tokens without drafts is the NotDrafting alert's fault.",
               "short", [_target("A", monitoring.DRAFTS_RECORD + sel, legend + " drafts"),
                         _target("B", monitoring.DECODE_TOKENS + sel, legend + " decode tokens")]),
        _panel(3, "Prefix-cache hit ratio", f"Prefix-cache hits / queries in tokens, over {window}: flat at 0 while "
               "queries rise is caching made inert (hybrid models with speculative decoding).", "percentunit",
               [_target("A", PREFIX_CACHE_HIT_RATIO.format(window=window) + sel, legend)], bounds=(0, 1)),
        _panel(4, "Requests running beside acceptance length", "Requests running on the drafting pods (left) and "
               "the mean acceptance length (right): acceptance that falls as the batch grows.", "short",
               [_target("A", REQUESTS_RUNNING_RECORD + sel, legend + " running"),
                _target("B", length + sel, legend + " acceptance length")], overrides=right),
    ]


def _variables(namespace: str) -> list[dict[str, Any]]:
    datasource = {"hide": 0, "includeAll": False, "label": "Data source", "multi": False,
                  "name": "datasource", "options": [], "query": "prometheus", "refresh": 1, "regex": "",
                  "type": "datasource"}
    if namespace:
        ns: dict[str, Any] = {"current": {"selected": True, "text": namespace, "value": namespace}, "hide": 0,
                              "includeAll": False, "label": "Namespace", "multi": False, "name": "namespace",
                              "options": [{"selected": True, "text": namespace, "value": namespace}],
                              "query": namespace, "type": "custom"}
    else:
        found = f"label_values({monitoring.DRAFTS_RECORD}, namespace)"
        ns = {"datasource": _DATASOURCE, "hide": 0, "includeAll": False,
              "label": "Namespace", "multi": False, "name": "namespace", "options": [], "query": found,
              "refresh": 1, "regex": "", "sort": 1, "type": "query"}
    listed = f'label_values({monitoring.DRAFTS_RECORD}{{namespace="$namespace"}}, {monitoring.WORKLOAD_LABEL})'
    workload = {"datasource": _DATASOURCE, "hide": 0, "includeAll": True,
                "label": "Workload", "multi": True, "name": monitoring.WORKLOAD_LABEL, "options": [],
                "query": listed, "refresh": 2, "regex": "", "sort": 1, "type": "query"}
    return [datasource, ns, workload]


def dashboard(namespace: str, window: str = monitoring.DEFAULT_WINDOW) -> dict[str, Any]:
    """The dashboard JSON model of one namespace."""
    return {
        "annotations": {"list": []},
        "description": "Speculative decoding of the workloads kaito-specdec enabled in this namespace, from the "
                       "records of its PrometheusRule.",
        "editable": False,
        "graphTooltip": 1,
        "links": [],
        "panels": panels(window),
        "refresh": "1m",
        "schemaVersion": SCHEMA_VERSION,
        "tags": ["kaito-specdec", "speculative-decoding", "vllm"],
        "templating": {"list": _variables(namespace)},
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "timezone": "",
        "title": title(namespace),
        "uid": uid(namespace),
        "version": 1,
    }


def dashboard_json(namespace: str, window: str = monitoring.DEFAULT_WINDOW) -> str:
    """The dashboard as the ConfigMap holds it: keys sorted, two-space indents, a final newline."""
    return json.dumps(dashboard(namespace, window), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def configmap(namespace: str, window: str = monitoring.DEFAULT_WINDOW) -> dict[str, Any]:
    """The namespace's dashboard ConfigMap, named after a hash of its content and marked as the function's own."""
    labels = {SIDECAR_LABEL: SIDECAR_LABEL_VALUE}
    annotations = {C.DASHBOARD_ANNOTATION: "true"}
    data = {data_key(namespace): dashboard_json(namespace, window)}
    content = {"labels": labels, "annotations": annotations, "data": data}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": metadata(NAME_PREFIX + content_hash(content), namespace, dict(labels), dict(annotations)),
            "data": data}
