"""Every panel of the Grafana dashboard (issue 39, ask 4), its expression as the rendered dashboard JSON holds it,
evaluated by promtool's rule tests over the rule the same run wrote, on series named, typed and labelled as vLLM
V1 exports them (tests/test_promtool.py's labels: `model_name`, `engine` and the scrape's `namespace`, `pod`, …):
the spec-decode counters (vllm/v1/spec_decode/metrics.py), `vllm:prefix_cache_queries_total` and
`vllm:prefix_cache_hits_total` (counters, vllm/v1/metrics/loggers.py:252/260 at 0.10.2, :585/596 at 0.28.0) and
the gauge `vllm:num_requests_running` (loggers.py:189 at 0.10.2, :494 at 0.28.0). The real Prometheus server runs
the same panels in tests/e2e/test_e2e_prometheus_dashboard.py; this is the quick, promtool-only proof.

Grafana fills `$namespace` with the namespace chosen and `$kaito_workload`, a multi-value variable, with the
values chosen joined as a regex alternation (`(phi-4|deepseek)`): so does the test."""
from __future__ import annotations

import json

import promtool
from golden import case_env, case_input
from runner import run
from test_promtool import ACCEPTED, DRAFT_ROUNDS, DRAFT_TOKENS, FINISHED, GENERATION, _inputs

QUERIES, HITS = "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total"
RUNNING = "vllm:num_requests_running"
ROUND = 2 ** -10
CASE = "dashboard-one-namespace"   # the Workspaces phi-4 and deepseek in team-a, opted in


def _rendered() -> tuple[dict, list[dict]]:
    """The case's PrometheusRule and its dashboard's panels, as one run writes them."""
    r = run([], case_input(CASE), case_env(CASE))
    assert r.code == 0, r.err
    (rule,) = [i for i in r.items if i.get("kind") == "PrometheusRule"]
    (cm,) = [i for i in r.items if i.get("kind") == "ConfigMap" and "grafana_dashboard" in
             (i.get("metadata", {}).get("labels") or {})]
    (text,) = cm["data"].values()
    return rule, json.loads(text)["panels"]


def _filled(expr: str, workloads: str) -> str:
    return expr.replace("$namespace", "team-a").replace("$kaito_workload", workloads)


def test_every_panel_s_expression_gives_the_pods_own_figures_under_promtool() -> None:
    rule, panels = _rendered()
    # phi-4's one pod, over an hour, a minute at a time: 600 draft tokens in 150 rounds, 450 accepted
    # (acceptance 0.75, mean acceptance length 1 + 450/150 = 4); 601 tokens generated for one request
    # finished (600 decoded); 1 000 prefix-cache query tokens of which 250 hit (0.25); 3 requests running.
    # A look-alike pod of another workload (phi-4-mini's ReplicaSet pod) and deepseek's pod in another
    # namespace, which the selectors must leave out; deepseek in team-a exports nothing (no pod yet).
    phi = {GENERATION: "0+601x60", FINISHED: "0+1x60", DRAFT_TOKENS: "0+600x60", ACCEPTED: "0+450x60",
           DRAFT_ROUNDS: "0+150x60", QUERIES: "0+1000x60", HITS: "0+250x60", RUNNING: "3x60"}
    noise = {GENERATION: "0+99x60", FINISHED: "0+9x60", DRAFT_TOKENS: "0+50x60", ACCEPTED: "0+1x60",
             DRAFT_ROUNDS: "0+10x60", QUERIES: "0+10x60", HITS: "0+10x60", RUNNING: "40x60"}
    series = _inputs(("team-a", "phi-4-0", phi), ("team-a", "phi-4-mini-7d9f8b6c5d-x7k2p", noise),
                     ("team-b", "deepseek-0", noise))
    labels = 'kaito_workload="phi-4",kaito_workload_kind="Workspace",namespace="team-a"'
    want = {  # record name -> value at 30m
        "kaito_specdec:acceptance_rate:ratio_rate5m": 0.75,
        "kaito_specdec:mean_acceptance_length:rate5m": 4,
        "kaito_specdec:drafts:increase15m": 150 * 15,
        "kaito_specdec:decode_tokens:increase15m": 600 * 15,
        "kaito_specdec:prefix_cache_hit_ratio:ratio_rate5m": 0.25,
        "kaito_specdec:requests_running:sum": 3,
    }
    tests, seen = [], set()
    for panel in panels:
        for target in panel["targets"]:
            record = target["expr"].split("{", 1)[0]
            assert record in want, (panel["title"], target["expr"])
            seen.add(record)
            # rate()'s extrapolation leaves a last bit (0.7500000000000001) and promtool compares exactly:
            # rounded to a power of two, 1/1024, exact in binary (round() drops the name; the labels stay).
            tests.append({"expr": f'round({_filled(target["expr"], "(phi-4|deepseek)")}, {ROUND})', "eval_time": "30m",
                          "exp_samples": [{"labels": f"{{{labels}}}", "value": want[record]}]})
            # Only deepseek chosen: no series (it has no pod), the look-alike's counters never leak in.
            tests.append({"expr": _filled(target["expr"], "(deepseek)"), "eval_time": "30m", "exp_samples": []})
    assert seen == set(want), "a panel lost, or one reads a record the test does not know"
    assert len(panels) == 5
    promtool.unit_test(rule["spec"]["groups"], [{"interval": "1m", "input_series": series,
                                                 "promql_expr_test": tests}])
