"""monitoring: the opt-in PrometheusRule — its PromQL (parsed by tests/promql.py), pod selection, naming."""
from __future__ import annotations

import re

import pytest

from krm_fn import constants as C
from krm_fn.derived import content_hash
from krm_fn.monitoring import (Monitored, expressions, pod_pattern, prometheus_rule, rules)
from promql import VECTOR, check_rule

WS = Monitored("Workspace", "phi-4")
IS = Monitored("InferenceSet", "llama")
MRI = Monitored("MultiRoleInference", "ds")
WS_PODS = r'pod=~"phi-4-([0-9]+|[a-z0-9]{1,10}-[a-z0-9]{5})"'


def test_both_figures_for_a_workspace() -> None:
    sel = '{namespace="team-a",' + WS_PODS + "}"
    assert expressions("team-a", WS) == {
        "acceptance_rate":
            f"sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{sel}[5m])) / "
            f"sum by (namespace) (rate(vllm:spec_decode_num_draft_tokens_total{sel}[5m]))",
        "mean_acceptance_length":
            f"1 + sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{sel}[5m])) / "
            f"sum by (namespace) (rate(vllm:spec_decode_num_drafts_total{sel}[5m]))",
    }


def test_without_a_namespace_the_pods_are_matched_in_every_namespace_and_kept_apart() -> None:
    expr = expressions("", IS, "10m")["acceptance_rate"]
    assert expr == ('sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{pod=~"llama-[a-z0-9]{5}-[0-9]+"}'
                    '[10m])) / sum by (namespace) (rate(vllm:spec_decode_num_draft_tokens_total'
                    '{pod=~"llama-[a-z0-9]{5}-[0-9]+"}[10m]))')


POD_NAMES = [
    # (workload, matching pod names, pods of other workloads that must not match)
    (WS, ["phi-4-0", "phi-4-12", "phi-4-7d9f8b6c4d-x2x4z"],          # StatefulSet; pre-v0.8.0 Deployment
     ["phi-40-0", "phi-4", "phi-4-0-0", "xphi-4-0", "phi-4-abcde-0", "phi-4-a-0", "phi-4-x-0-0"]),
    (Monitored("Workspace", "a.b"), ["a.b-0"], ["axb-0"]),            # the dot is literal
    (IS, ["llama-x7k2p-0", "llama-b2c4d-11"], ["llama-0", "llama-x7k2p", "llama-x7k2-0", "llama-x7k2pq-0",
                                                 "llama-x-x7k2p-0"]),
    (MRI, ["ds-prefill-x7k2p-0", "ds-decode-b2c4d-3"], ["ds-x7k2p-0", "ds-prefill-0", "ds-other-x7k2p-0"]),
    # GenerateName cuts the base ("<name>-") to 58 characters before the 5 random ones.
    (Monitored("InferenceSet", "s" * 60), ["s" * 58 + "x7k2p-0"], ["s" * 59 + "-x7k2p-0", "s" * 60 + "-x7k2p-0"]),
]


@pytest.mark.parametrize("workload,pods,others", POD_NAMES, ids=lambda x: x.kind if isinstance(x, Monitored) else "")
def test_pod_patterns_select_exactly_the_workloads_pods(workload: Monitored, pods: list, others: list) -> None:
    pattern = pod_pattern(workload)   # PromQL's =~ is anchored on both ends, as fullmatch is
    for pod in pods:
        assert re.fullmatch(pattern, pod), pod
    for pod in others:
        assert not re.fullmatch(pattern, pod), pod


def test_no_pods_known_for_other_kinds() -> None:
    with pytest.raises(ValueError, match="no pods known for kind 'Deployment'"):
        pod_pattern(Monitored("Deployment", "x"))


def _all_exprs(rule: dict) -> list[str]:
    return [r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]]


@pytest.mark.parametrize("namespace", ["team-a", ""])
@pytest.mark.parametrize("threshold,window", [(0.3, "5m"), (0, "1m"), (1, "1h30m"), (0.25, "90s")])
def test_every_expression_the_builder_makes_is_promql(namespace: str, threshold: float, window: str) -> None:
    rule = prometheus_rule(namespace, [WS, IS, MRI, Monitored("Workspace", "a.b")], threshold, window)
    exprs = _all_exprs(rule)
    assert len(exprs) == 9
    for expr in exprs:
        assert check_rule(expr) == VECTOR, expr


def test_the_whole_rule() -> None:
    rule = prometheus_rule("team-a", [WS, IS], labels={"release": "prometheus"})
    spec = {"groups": [{"name": "kaito-specdec.team-a", "rules": [
        {"record": "kaito_specdec:acceptance_rate:ratio_rate5m", "expr": expressions("team-a", WS)["acceptance_rate"],
         "labels": {"kaito_workload": "phi-4", "kaito_workload_kind": "Workspace"}},
        {"record": "kaito_specdec:mean_acceptance_length:rate5m",
         "expr": expressions("team-a", WS)["mean_acceptance_length"],
         "labels": {"kaito_workload": "phi-4", "kaito_workload_kind": "Workspace"}},
        {"record": "kaito_specdec:acceptance_rate:ratio_rate5m", "expr": expressions("team-a", IS)["acceptance_rate"],
         "labels": {"kaito_workload": "llama", "kaito_workload_kind": "InferenceSet"}},
        {"record": "kaito_specdec:mean_acceptance_length:rate5m",
         "expr": expressions("team-a", IS)["mean_acceptance_length"],
         "labels": {"kaito_workload": "llama", "kaito_workload_kind": "InferenceSet"}},
        {"alert": "KaitoSpeculativeDecodingLowAcceptance",
         "expr": 'kaito_specdec:acceptance_rate:ratio_rate5m{namespace="team-a",kaito_workload=~"phi-4|llama"} < 0.3',
         "for": "30m",
         "labels": {"severity": "warning"},
         "annotations": {
             "summary": "Speculative decoding on {{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/"
                        "{{ $labels.kaito_workload }} accepts {{ $value | humanizePercentage }} of its draft tokens",
             "description": "The acceptance rate has stayed below 0.3 for 30m: most drafted tokens are thrown away, "
                            "which costs throughput. Lower num_speculative_tokens, use a method suited to the model "
                            "(mtp or eagle3 with a trained drafter instead of ngram), or set "
                            "kaito.sh/enable-speculative-decoding to \"false\"."}},
    ]}]}
    annotations = {C.DERIVED_ANNOTATION: "true"}
    name = "specdec-prometheusrule-" + content_hash(
        {"labels": {"release": "prometheus"}, "annotations": annotations, "spec": spec})
    assert rule == {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": name, "namespace": "team-a", "labels": {"release": "prometheus"},
                     "annotations": annotations},
        "spec": spec,
    }


def test_name_is_a_hash_of_the_content() -> None:
    base = prometheus_rule("team-a", [WS])["metadata"]["name"]
    assert re.fullmatch(r"specdec-prometheusrule-[0-9a-f]{10}", base)
    assert prometheus_rule("team-a", [WS])["metadata"]["name"] == base                   # deterministic
    for other in (prometheus_rule("team-b", [WS]), prometheus_rule("team-a", [WS, IS]),
                  prometheus_rule("team-a", [WS], 0.5), prometheus_rule("team-a", [WS], window="10m"),
                  prometheus_rule("team-a", [WS], labels={"release": "p"})):
        assert other["metadata"]["name"] != base


def test_a_workload_named_twice_gets_its_records_once() -> None:
    assert rules("ns", [WS, WS, IS]) == rules("ns", [WS, IS])


def test_without_a_namespace() -> None:
    rule = prometheus_rule("", [WS])
    assert "namespace" not in rule["metadata"]
    assert rule["spec"]["groups"][0]["name"] == "kaito-specdec"
    assert rule["spec"]["groups"][0]["rules"][-1]["expr"] == \
        'kaito_specdec:acceptance_rate:ratio_rate5m{kaito_workload=~"phi-4"} < 0.3'


@pytest.mark.parametrize("kwargs,message", [
    ({"workloads": []}, "a PrometheusRule needs at least one workload"),
    ({"window": "5"}, "window must be a Prometheus duration such as 5m, got '5'"),
    ({"window": "five minutes"}, "window must be a Prometheus duration such as 5m, got 'five minutes'"),
    ({"min_acceptance_rate": 1.5}, "minAcceptanceRate must be a number from 0 to 1, got 1.5"),
    ({"min_acceptance_rate": -0.1}, "minAcceptanceRate must be a number from 0 to 1, got -0.1"),
    ({"min_acceptance_rate": True}, "minAcceptanceRate must be a number from 0 to 1, got True"),
    ({"min_acceptance_rate": "0.3"}, "minAcceptanceRate must be a number from 0 to 1, got '0.3'"),
])
def test_bad_arguments(kwargs: dict, message: str) -> None:
    args = {"namespace": "ns", "workloads": [WS], **kwargs}
    with pytest.raises(ValueError) as exc:
        prometheus_rule(**args)
    assert str(exc.value) == message


def test_the_monitoring_doc_shows_what_the_builder_makes() -> None:
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "docs" / "monitoring.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- monitoring-promql:start -->\n```promql\n(.*?)```\n<!-- monitoring-promql:end -->",
                      readme, re.S)
    assert block, "docs/monitoring.md has no monitoring-promql block"
    lines = [ln for ln in block.group(1).splitlines() if not ln.startswith("#")]
    exprs = expressions("team-a", WS)
    assert lines == [exprs["acceptance_rate"], exprs["mean_acceptance_length"]]
    for metric in ("vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
                   "vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total"):
        assert f"`{metric}" in readme
    assert f'`pod=~"{pod_pattern(IS)}"`' in readme
    assert f'`pod=~"{pod_pattern(MRI)}"`' in readme


def test_names_and_durations_are_what_prometheus_accepts() -> None:
    from promql import _duration
    for rule in rules("ns", [WS], window="1h30m"):
        name = rule.get("record") or rule["alert"]
        assert re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", name), name
        for label in rule.get("labels", {}):
            assert re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", label), label
        if "for" in rule:
            _duration(rule["for"])


@pytest.mark.parametrize("threshold,written", [(0.3, "0.3"), (1, "1"), (0, "0"), (0.1234567, "0.1234567"),
                                               (0.00001234567891, "1.234567891e-05"), (0.55, "0.55")])
def test_the_alert_keeps_every_digit_of_the_threshold(threshold: float, written: str) -> None:
    # format(x, "g") kept six significant digits: 0.1234567 alerted below 0.123457.
    alert = rules("team-a", [WS], threshold)[-1]
    assert alert["expr"].endswith(f" < {written}")
    assert f"below {written} for" in alert["annotations"]["description"]
    assert check_rule(alert["expr"]) == VECTOR
