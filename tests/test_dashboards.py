"""The Grafana dashboard ConfigMaps (grafanaDashboards, docs/monitoring.md "Dashboard"): what they hold, that they
read only records the rule writes, their size at 2 000 workloads, and the setting's on and off. The fixtures
dashboard-* hold the output byte for byte; tests/e2e/test_e2e_prometheus_dashboard.py runs the panels' PromQL on a
real Prometheus; tests/e2e/test_e2e_grafana_schema.py type-checks the JSON against @grafana/schema."""
from __future__ import annotations

import json
import re

import yaml

from krm_fn.domain import dashboards, monitoring
from runner import run

WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    kaito.sh/enable-speculative-decoding: "{enabled}"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: phi-4
"""
ISVC = """apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
spec:
  predictor:
    model:
      modelFormat:
        name: vLLM
      args: ["--model", "microsoft/phi-4"]
"""
SELECTOR = r'\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\}'
KUBECTL_ANNOTATION_LIMIT = 256 * 1024   # client-side apply keeps the whole object in an annotation


def _stream(*docs: str) -> str:
    return "---\n".join(docs)


def _render(stream: str, *flags: str) -> tuple[int, list[dict], str]:
    code, out, err = run(["render", *flags, "-"], stream, env={})
    return code, [d for d in yaml.safe_load_all(out) if d], err


def _dashboards(docs: list[dict]) -> list[dict]:
    return [d for d in docs if d["kind"] == "ConfigMap" and "grafana_dashboard" in (d["metadata"].get("labels") or {})]


def test_the_dashboard_of_a_namespace() -> None:
    cm = dashboards.configmap("team-a")
    assert cm["metadata"]["labels"] == {"grafana_dashboard": "1"}
    assert cm["metadata"]["name"].startswith("specdec-grafana-dashboard-") and cm["metadata"]["namespace"] == "team-a"
    (key, text), = cm["data"].items()
    assert key == "kaito-specdec-team-a.json"
    board = json.loads(text)
    # Deterministic: sorted keys, two-space indents, a final newline.
    assert text == json.dumps(board, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert board["uid"] == dashboards.uid("team-a") and len(board["uid"]) <= 40
    assert board["title"] == "Speculative decoding: team-a"
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert list(variables) == ["datasource", "namespace", "kaito_workload"]
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["namespace"]["query"] == "team-a"
    assert variables["kaito_workload"]["multi"] and variables["kaito_workload"]["includeAll"]
    assert [p["title"] for p in board["panels"]] == [
        "Acceptance rate", "Mean acceptance length", "Drafts against decode tokens", "Prefix-cache hit ratio",
        "Requests running beside acceptance length"]
    ids = [p["id"] for p in board["panels"]]
    assert len(set(ids)) == len(ids)
    for panel in board["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        for target in panel["targets"]:
            assert target["expr"].endswith('{namespace="$namespace",kaito_workload=~"$kaito_workload"}')


def test_uids_titles_and_keys_differ_between_namespaces_and_stay() -> None:
    names = ["team-a", "team-b", "a" * 63, ""]
    for field in (dashboards.uid, dashboards.title, dashboards.data_key):
        assert len({field(n) for n in names}) == len(names)
    assert all(len(dashboards.uid(n)) <= 40 and re.fullmatch(r"[a-z0-9-]+", dashboards.uid(n)) for n in names)
    assert dashboards.uid("team-a") == "kaito-specdec-96c2886c51d1dfb4901d"   # never changes: links to it last


def test_every_panel_reads_records_the_rule_writes() -> None:
    workloads = [monitoring.Monitored("Workspace", "phi-4"), monitoring.Monitored("MultiRoleInference", "m")]
    rule = monitoring.prometheus_rule("team-a", workloads, more=dashboards.records("team-a", workloads))
    recorded = {r["record"] for g in rule["spec"]["groups"] for r in g["rules"] if "record" in r}
    read = {t["expr"].split("{")[0] for p in dashboards.panels() for t in p["targets"]}
    assert read <= recorded
    assert {"kaito_specdec:prefix_cache_hit_ratio:ratio_rate5m", "kaito_specdec:requests_running:sum"} <= read


def test_the_dashboard_records_use_the_rules_pod_selectors() -> None:
    m = monitoring.Monitored("MultiRoleInference", "m")
    exprs = dashboards.record_expressions("team-a", m)
    rule = monitoring.expressions("team-a", m)
    everything = re.search(SELECTOR, rule["acceptance_rate"]).group(0)        # all the workload's pods
    drafting = re.search(SELECTOR, rule["drafts"]).group(0)                   # its decode side
    assert everything != drafting
    assert exprs["prefix_cache_hit_ratio"] == (
        f"sum by (namespace) (rate(vllm:prefix_cache_hits_total{everything}[5m])) / "
        f"sum by (namespace) (rate(vllm:prefix_cache_queries_total{everything}[5m]))")
    assert exprs["requests_running"] == f"sum by (namespace) (vllm:num_requests_running{drafting})"


def test_nothing_without_the_setting_or_without_an_enabled_workload() -> None:
    enabled = WORKSPACE.format(name="phi-4", namespace="team-a", enabled="true")
    disabled = WORKSPACE.format(name="phi-4", namespace="team-a", enabled="false")
    code, docs, _ = _render(enabled)
    assert code == 0 and not _dashboards(docs)
    code, docs, _ = _render(enabled, "--prometheus-rules")
    assert code == 0 and not _dashboards(docs)
    code, docs, _ = _render(disabled, "--grafana-dashboards")
    assert code == 0 and not _dashboards(docs) and not [d for d in docs if d["kind"] == "PrometheusRule"]
    code, docs, _ = _render(enabled, "--grafana-dashboards")
    assert code == 0 and len(_dashboards(docs)) == 1
    # The setting turns the rule on, whose records the dashboard reads.
    assert [d["kind"] for d in docs].count("PrometheusRule") == 1


def test_off_again_drops_what_the_function_wrote() -> None:
    enabled = WORKSPACE.format(name="phi-4", namespace="team-a", enabled="true")
    _, out, _ = run(["render", "--grafana-dashboards", "-"], enabled, env={})
    code, docs, err = _render(out, "--no-grafana-dashboards")
    assert code == 0 and not _dashboards(docs) and "[SD817]" not in err   # infos: said with -v
    code, _, err = run(["render", "-v", "--no-grafana-dashboards", "-"], out, env={})
    assert "dropped: the grafanaDashboards setting is off [SD817]" in err
    code, again, _ = run(["render", "--grafana-dashboards", "-"], out, env={})
    assert code == 0 and again == out   # a fixed point


def test_the_dashboard_is_small_and_its_name_stable_at_2000_workloads_in_one_namespace() -> None:
    one = WORKSPACE.format(name="ws-0", namespace="big", enabled="true")
    _, docs, _ = _render(one, "--grafana-dashboards")
    small, = _dashboards(docs)
    many = [WORKSPACE.format(name=f"ws-{i}", namespace="big", enabled="true") for i in range(1000)]
    many += [ISVC.format(name=f"isvc-{i}", namespace="big") for i in range(1000)]
    code, docs, err = _render(_stream(*many), "--grafana-dashboards")
    assert code == 0, err
    big, = _dashboards(docs)
    assert big == small   # the dashboard names no workload: the same content, so the same name
    as_json = json.dumps(big, separators=(",", ":"))
    as_yaml = yaml.safe_dump(big)
    assert max(len(as_json.encode()), len(as_yaml.encode())) < KUBECTL_ANNOTATION_LIMIT
    assert len(as_json.encode()) < 32 * 1024
