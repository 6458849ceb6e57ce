"""monitoring: the opt-in PrometheusRule — its PromQL (loaded by promtool), pod selection, naming.
Pod-name patterns are checked here against names as the controllers make them; tests/test_promtool.py runs
the rules in Prometheus' own rule engine."""
from __future__ import annotations

import re

import pytest

from krm_fn.domain import constants as C
from krm_fn.domain.derived import content_hash
from krm_fn.domain.monitoring import Monitored, expressions, pod_pattern, prometheus_rule, rules
import promtool

WS = Monitored("Workspace", "phi-4")
IS = Monitored("InferenceSet", "llama")
MRI = Monitored("MultiRoleInference", "ds")
WS_PODS = r'pod=~"phi-4-[0-9]+"'
R5 = "[bcdfghjklmnpqrstvwxz2456789]{5}"   # GenerateName's 5 letters (k8s.io/apimachinery util/rand)


def test_both_figures_for_a_workspace() -> None:
    sel = '{namespace="team-a",' + WS_PODS + "}"
    assert expressions("team-a", WS) == {
        "acceptance_rate":
            f"sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{sel}[5m])) / "
            f"sum by (namespace) (rate(vllm:spec_decode_num_draft_tokens_total{sel}[5m]))",
        "mean_acceptance_length":
            f"1 + sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{sel}[5m])) / "
            f"sum by (namespace) (rate(vllm:spec_decode_num_drafts_total{sel}[5m]))",
        # Over 15 minutes whatever the window: the tokens decoded (each request's first comes from its prefill),
        # and the draft rounds.
        "decode_tokens":
            f"sum by (namespace) (increase(vllm:generation_tokens_total{sel}[15m])) - "
            f"sum by (namespace) (increase(vllm:request_success_total{sel}[15m]))",
        "drafts": f"sum by (namespace) (increase(vllm:spec_decode_num_drafts_total{sel}[15m]))",
        # The workload's own acceptance over 6 hours, the baseline a drop is measured against.
        "acceptance_rate_baseline":
            f"sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{sel}[6h])) / "
            f"sum by (namespace) (rate(vllm:spec_decode_num_draft_tokens_total{sel}[6h]))",
        # vLLM's prefix-cache counters (tokens looked up, tokens found) over 30 minutes.
        "prefix_cache_queries": f"sum by (namespace) (increase(vllm:prefix_cache_queries_total{sel}[30m]))",
        "prefix_cache_hits": f"sum by (namespace) (increase(vllm:prefix_cache_hits_total{sel}[30m]))",
    }
    for fixed in ("decode_tokens", "drafts", "acceptance_rate_baseline", "prefix_cache_queries", "prefix_cache_hits"):
        assert expressions("team-a", WS, "1m")[fixed] == expressions("team-a", WS)[fixed]


@pytest.mark.parametrize("workload, decode, prefill", [
    (MRI, "ds-decode-x7k2p-0", "ds-prefill-x7k2p-0"),
    (Monitored("LLMInferenceService", "qwen", parts=("-kserve", "-kserve-prefill")),
     "qwen-kserve-7d9f8b6c4d-x2x4z", "qwen-kserve-prefill-5f6b8c9d74-k2x8p"),
    (Monitored("LLMInferenceService", "qwen", parts=("-kserve-mn", "-kserve-mn-prefill")),
     "qwen-kserve-mn-0", "qwen-kserve-mn-prefill-0"),
])
def test_the_not_drafting_records_count_the_decode_side_only(workload: Monitored, decode: str, prefill: str) -> None:
    """The prefill side drafts nothing by design: it neither makes a workload look undrafted nor hides its
    decode side. The acceptance records keep both (the prefill side's counters stay flat)."""
    def selected(expr: str, pod: str) -> bool:
        return all(re.fullmatch(p, pod) for p in re.findall(r'pod=~"([^"]+)"', expr))
    exprs = expressions("prod", workload)
    for record in ("decode_tokens", "drafts", "prefix_cache_queries", "prefix_cache_hits"):
        assert selected(exprs[record], decode) and not selected(exprs[record], prefill)
    assert selected(exprs["acceptance_rate"], decode) and selected(exprs["acceptance_rate"], prefill)


def test_the_decode_sides_look_alikes_are_left_out_of_it() -> None:
    """A Workspace `ds-decode-b2c4d` beside the MultiRoleInference `ds`: its pods are no role's."""
    exprs = expressions("prod", MRI, neighbours=[MRI, Monitored("Workspace", "ds-decode-b2c4d"),
                                                 Monitored("Workspace", "ds-prefill-b2c4d")])
    assert 'pod!~"ds-decode-b2c4d-[0-9]+"' in exprs["drafts"] and "ds-prefill-b2c4d" not in exprs["drafts"]
    assert 'pod!~"ds-prefill-b2c4d-[0-9]+"' in exprs["acceptance_rate"]


def test_without_a_namespace_the_pods_are_matched_in_every_namespace_and_kept_apart() -> None:
    expr = expressions("", IS, "10m")["acceptance_rate"]
    assert expr == (f'sum by (namespace) (rate(vllm:spec_decode_num_accepted_tokens_total{{pod=~"llama-{R5}-[0-9]+"}}'
                    '[10m])) / sum by (namespace) (rate(vllm:spec_decode_num_draft_tokens_total'
                    f'{{pod=~"llama-{R5}-[0-9]+"}}[10m]))')


# Pod names as the controllers make them (krm_fn/domain/pod_names.py quotes the code): a pod-template-hash is the
# uint32's decimal digits mapped to 4-9,b,c,d,f; GenerateName's 5 letters leave out vowels and 0, 1, 3.
POD_NAMES = [
    # (workload, matching pod names, pods of other workloads that must not match)
    (WS, ["phi-4-0", "phi-4-12"],                                       # the StatefulSet (KAITO v0.8.0 on)
     ["phi-40-0", "phi-4", "phi-4-0-0", "xphi-4-0", "phi-4-abcde-0", "phi-4-7d9f8b6c4d-x2x4z"]),
    (Monitored("Workspace", "phi-4", "deployment"),                      # kaitoVersion before v0.8.0
     ["phi-4-0", "phi-4-7d9f8b6c4d-x2x4z", "phi-4-4-bcdfg"], ["phi-4-7d9f8b6c4e-x2x4z", "phi-4-7d9f8b6c4d-x2x4a",
                                                               "phi-4-7d9f8b6c4d5-x2x4z", "phi-4-a-0"]),
    (Monitored("Workspace", "a.b"), ["a.b-0"], ["axb-0"]),            # the dot is literal
    (IS, ["llama-x7k2p-0", "llama-b2c4d-11"], ["llama-0", "llama-x7k2p", "llama-x7k2-0", "llama-x7k2pq-0",
                                                 "llama-x-x7k2p-0", "llama-guard-0", "llama-x7k2o-0"]),
    (MRI, ["ds-prefill-x7k2p-0", "ds-decode-b2c4d-3"], ["ds-x7k2p-0", "ds-prefill-0", "ds-other-x7k2p-0"]),
    # GenerateName cuts the base ("<name>-") to 58 characters before the 5 random ones.
    (Monitored("InferenceSet", "s" * 60), ["s" * 58 + "x7k2p-0"], ["s" * 59 + "-x7k2p-0", "s" * 60 + "-x7k2p-0"]),
    (Monitored("Deployment", "phi-4"), ["phi-4-7d9f8b6c4d-x2x4z", "phi-4-5-bcdfg"],
     ["phi-4-0", "phi-4-7d9f8b6c4d-x2x4", "phi-4-x2x4z", "phi-4-7d9f8b6c4d4-x2x4z"]),
    # `<deployment>-<hash>-` cut to 58: the hash loses its end, or its dash.
    (Monitored("Deployment", "d" * 50), ["d" * 50 + "-7d9f8b-x2x4z", "d" * 50 + "-7d9f8b6" + "x2x4z"],
     ["d" * 50 + "-7d9f8b6-x2x4z", "d" * 50 + "-7d9f8b6c4d-x2x4z"]),
    (Monitored("StatefulSet", "llama-guard"), ["llama-guard-0", "llama-guard-3"], ["llama-guard", "llama-guard-a"]),
    (Monitored("DaemonSet", "vllm"), ["vllm-x2x4z"], ["vllm-0", "vllm-7d9f8b6c4d-x2x4z"]),
    (Monitored("ReplicaSet", "vllm"), ["vllm-x2x4z"], ["vllm-0"]),
    (Monitored("Job", "bench"), ["bench-x2x4z", "bench-0-x2x4z", "bench-12-x2x4z"], ["bench-0", "bench-a-x2x4z"]),
    (Monitored("Job", "j" * 57), ["j" * 57 + "-x2x4z", "j" * 55 + "-0-x2x4z", "j" * 54 + "-12-x2x4z"],
     ["j" * 57 + "-0-x2x4z"]),
    (Monitored("CronJob", "nightly"), ["nightly-29260800-x2x4z", "nightly-29260800-3-x2x4z"],
     ["nightly-2926080-x2x4z", "nightly-x2x4z"]),
    (Monitored("Pod", "vllm-0"), ["vllm-0"], ["vllm-00", "vllm-1"]),
    (Monitored("LeaderWorkerSet", "vllm"), ["vllm-0", "vllm-3", "vllm-0-1", "vllm-3-2"], ["vllm-0-1-2", "vllm"]),
    (Monitored("InferenceService", "qwen"), ["qwen-predictor-7d9f8b6c4d-x2x4z",
                                             "qwen-predictor-00001-deployment-7d9f8b6c-x2x4z"],
     ["qwen-predictor-worker-7d9f8b6c4d-x2x4z", "qwen-predictor-0001-deployment-7d9f8b6c-x2x4z"]),
    (Monitored("InferenceService", "qwen", "Standard"), ["qwen-predictor-7d9f8b6c4d-x2x4z"],
     ["qwen-predictor-00001-deployment-7d9f8b6c-x2x4z"]),
    (Monitored("InferenceService", "qwen", "Knative"), ["qwen-predictor-00001-deployment-7d9f8b6c-x2x4z"],
     ["qwen-predictor-7d9f8b6c4d-x2x4z"]),
    # KServe v0.20 `spec.predictor.name: v2`: the Deployment and the Knative Service are `qwen-v2-predictor`;
    # a canary `c1` (Standard mode only) is a Deployment `qwen-c1-predictor`.
    (Monitored("InferenceService", "qwen", "", "v2"), ["qwen-v2-predictor-7d9f8b6c4d-x2x4z",
                                                       "qwen-v2-predictor-00001-deployment-7d9f8b6c-x2x4z"],
     ["qwen-predictor-7d9f8b6c4d-x2x4z", "qwen-predictor-00001-deployment-7d9f8b6c-x2x4z",
      "qwen-v3-predictor-7d9f8b6c4d-x2x4z"]),
    (Monitored("InferenceService", "qwen", "Standard", "stable", ("c1", "c2")),
     ["qwen-stable-predictor-7d9f8b6c4d-x2x4z", "qwen-c1-predictor-7d9f8b6c4d-x2x4z",
      "qwen-c2-predictor-5f4d8c9b7-b2c4d"],
     ["qwen-predictor-7d9f8b6c4d-x2x4z", "qwen-c3-predictor-7d9f8b6c4d-x2x4z",
      "qwen-stable-predictor-00001-deployment-7d9f8b6c-x2x4z"]),
    (Monitored("InferenceService", "qwen", "Standard", "", ("canary",)),
     ["qwen-predictor-7d9f8b6c4d-x2x4z", "qwen-canary-predictor-7d9f8b6c4d-x2x4z"],
     ["qwen-predictor-canary-7d9f8b6c4d-x2x4z"]),
]


@pytest.mark.parametrize("workload,pods,others", POD_NAMES,
                         ids=lambda x: f"{x.kind}-{x.variant}-{len(x.name)}" if isinstance(x, Monitored) else "")
def test_pod_patterns_select_exactly_the_workloads_pods(workload: Monitored, pods: list, others: list) -> None:
    pattern = pod_pattern(workload)   # PromQL's =~ is anchored on both ends, as fullmatch is
    for pod in pods:
        assert re.fullmatch(pattern, pod), pod
    for pod in others:
        assert not re.fullmatch(pattern, pod), pod


def test_no_pods_known_for_other_kinds() -> None:
    with pytest.raises(ValueError, match="no pods known for kind 'RayService'"):
        pod_pattern(Monitored("RayService", "x"))
    # Knative names long revisions' Deployments after an md5 of the revision's name.
    with pytest.raises(ValueError, match="no pods known for kind 'InferenceService'"):
        pod_pattern(Monitored("InferenceService", "q" * 37, "Knative"))
    assert pod_pattern(Monitored("InferenceService", "q" * 36, "Knative"))
    # With spec.predictor.name the bound is on `<name>-<predictor name>-predictor`.
    with pytest.raises(ValueError, match="no pods known for kind 'InferenceService'"):
        pod_pattern(Monitored("InferenceService", "q" * 30, "Knative", "abcdef"))
    assert pod_pattern(Monitored("InferenceService", "q" * 30, "Knative", "abcde"))


def test_every_kind_the_function_reads_says_how_its_pods_are_named() -> None:
    """Each KAITO and plain kind's record names its PodNaming, and each PodNaming has its pattern: a kind
    added to kinds.py or plain_kinds.py alone gets a PrometheusRule, never the error of an unknown kind."""
    from krm_fn.domain import kinds, monitoring, plain_kinds
    from krm_fn.domain.pod_names import PodNaming
    read = [k.kind for k in kinds.KINDS] + [k.kind for k in plain_kinds.KINDS]
    assert sorted(monitoring.NAMING) == sorted(read) and len(set(read)) == len(read)
    assert set(monitoring.PATTERNS) == set(PodNaming)
    for kind in read:
        assert pod_pattern(Monitored(kind, "vllm", parts=(monitoring.LLMISVC_MAIN,))), kind


def test_kserve_predictor_name_in_the_unmonitored_reason() -> None:
    from krm_fn.domain.monitoring import unmonitored
    assert unmonitored("InferenceService", "q" * 30, "", "abcdef").endswith("longer than 46 characters")
    assert unmonitored("InferenceService", "q" * 30, "", "abcde") == ""
    assert unmonitored("InferenceService", "q" * 30, "Standard", "abcdef") == ""


def test_the_hash_alphabet_is_safe_encode_of_decimal_digits() -> None:
    # k8s.io/apimachinery/pkg/util/rand: SafeEncodeString maps each byte to alphanums[int(b) % len(alphanums)].
    from krm_fn.domain.pod_names import HASH, RANDOM
    assert RANDOM == "bcdfghjklmnpqrstvwxz2456789"
    assert sorted(HASH) == sorted({RANDOM[ord(d) % len(RANDOM)] for d in "0123456789"})


def _all_exprs(rule: dict) -> list[str]:
    return [r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]]


def test_every_rule_the_builder_makes_is_one_prometheus_loads() -> None:
    """PromQL with RE2 regexes, record, alert and label names, `for`: every kind, namespace, window and
    threshold, as Prometheus' own rule loader reads them (tests/promtool.py)."""
    every_kind = [WS, IS, MRI, Monitored("Workspace", "a.b"), Monitored("Workspace", "before-v0-8", "deployment"),
                  *(Monitored(kind, "vllm") for kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job",
                                                         "CronJob", "Pod", "LeaderWorkerSet", "InferenceService")),
                  Monitored("InferenceService", "vllm-raw", "Standard"), Monitored("InferenceService", "vllm-kn", "Knative"),
                  Monitored("LLMInferenceService", "pd", parts=("-kserve", "-kserve-prefill")),
                  Monitored("LLMInferenceService", "pd-mn", parts=("-kserve-mn", "-kserve-mn-prefill"))]
    files = []
    for namespace in ("team-a", ""):
        for threshold, window in ((0.3, "5m"), (0, "1m"), (1, "1h30m"), (0.25, "90s"), (0.1234567, "5m"),
                                  (0.00001234567891, "5m")):
            rule = prometheus_rule(namespace, every_kind, threshold, window)
            assert len(_all_exprs(rule)) == 7 * len(every_kind) + 5
            files.append(rule["spec"]["groups"])
    out = promtool.check_rules(files)
    assert out.count(f"SUCCESS: {7 * len(every_kind) + 5} rules found") == len(files)


def _records(workload: Monitored) -> list[dict]:
    labels = {"kaito_workload": workload.name, "kaito_workload_kind": workload.kind}
    exprs = expressions("team-a", workload)
    return [{"record": record, "expr": exprs[figure], "labels": labels} for record, figure in (
        ("kaito_specdec:acceptance_rate:ratio_rate5m", "acceptance_rate"),
        ("kaito_specdec:mean_acceptance_length:rate5m", "mean_acceptance_length"),
        ("kaito_specdec:decode_tokens:increase15m", "decode_tokens"),
        ("kaito_specdec:drafts:increase15m", "drafts"),
        ("kaito_specdec:acceptance_rate:ratio_rate6h", "acceptance_rate_baseline"),
        ("kaito_specdec:prefix_cache_queries:increase30m", "prefix_cache_queries"),
        ("kaito_specdec:prefix_cache_hits:increase30m", "prefix_cache_hits"))]


RUNBOOK = "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md#runbook-"
WHO = "{{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/{{ $labels.kaito_workload }}"
_NEW_ALERTS = [
    {"alert": "KaitoSpeculativeDecodingDrafterDead",
     "expr": 'kaito_specdec:acceptance_rate:ratio_rate5m{namespace="team-a",kaito_workload=~"phi-4|llama"} < 0.02',
     "for": "10m",
     "labels": {"severity": "warning"},
     "annotations": {
         "summary": f"Speculative decoding on {WHO} drafts and is almost never accepted: "
                    "{{ $value | humanizePercentage }} of its draft tokens",
         "description": "The acceptance rate has stayed below 2% for 10m while it drafts: the drafter proposes tokens "
                        "the model never takes (a checkpoint without its MTP weights, a drafter trained for another "
                        "model). Tuning does not help; check in the runbook's order.",
         "runbook_url": RUNBOOK + "kaitospeculativedecodingdrafterdead"}},
    {"alert": "KaitoSpeculativeDecodingPrefixCacheInert",
     "expr": 'kaito_specdec:prefix_cache_queries:increase30m{namespace="team-a",kaito_workload=~"phi-4|llama"} > 0 '
             "unless on (namespace, kaito_workload, kaito_workload_kind) kaito_specdec:prefix_cache_hits:increase30m > 0 "
             "and on (namespace, kaito_workload, kaito_workload_kind) kaito_specdec:drafts:increase15m > 0",
     "for": "30m",
     "labels": {"severity": "warning"},
     "annotations": {
         "summary": f"Prefix caching on {WHO} hits nothing while it speculates: "
                    "{{ $value | humanize }} tokens looked up in 30m, no hits",
         "description": "Its drafting pods have looked up prompts in the prefix cache for 30m without one hit: with "
                        "speculative decoding on, vLLM can leave a hybrid (Mamba, GDN) model's prefix cache inert, "
                        "and every prompt is prefilled in full. Check in the runbook's order.",
         "runbook_url": RUNBOOK + "kaitospeculativedecodingprefixcacheinert"}},
    {"alert": "KaitoSpeculativeDecodingAcceptanceDropped",
     "expr": 'kaito_specdec:acceptance_rate:ratio_rate5m{namespace="team-a",kaito_workload=~"phi-4|llama"} '
             "< on (namespace, kaito_workload, kaito_workload_kind) 0.5 * kaito_specdec:acceptance_rate:ratio_rate6h",
     "for": "30m",
     "labels": {"severity": "warning"},
     "annotations": {
         "summary": f"Speculative decoding on {WHO} accepts {{{{ $value | humanizePercentage }}}} of its draft "
                    "tokens, under half of its own rate over 6h",
         "description": "The acceptance rate over 5m has stayed below half of the workload's over 6h for 30m: "
                        "acceptance that decays while the pods run (only a restart restores it), or traffic unlike "
                        "before. Check in the runbook's order.",
         "runbook_url": RUNBOOK + "kaitospeculativedecodingacceptancedropped"}},
]


def test_the_whole_rule() -> None:
    rule = prometheus_rule("team-a", [WS, IS], labels={"release": "prometheus"})
    spec = {"groups": [{"name": "kaito-specdec.team-a", "rules": [
        *_records(WS),
        *_records(IS),
        *_NEW_ALERTS,
        {"alert": "KaitoSpeculativeDecodingNotDrafting",
         "expr": 'kaito_specdec:decode_tokens:increase15m{namespace="team-a",kaito_workload=~"phi-4|llama"} > 0 '
                 "unless on (namespace, kaito_workload, kaito_workload_kind) kaito_specdec:drafts:increase15m > 0",
         "for": "15m",
         "labels": {"severity": "warning"},
         "annotations": {
             "summary": "Speculative decoding on {{ $labels.kaito_workload_kind }} {{ $labels.namespace }}/"
                        "{{ $labels.kaito_workload }} drafts nothing: {{ $value | humanize }} tokens decoded in 15m, "
                        "no drafts",
             "description": "Its pods have decoded tokens without drafting any for 15m: the speculative config did "
                            "not reach vLLM, or its drafter does nothing. Check in the runbook's order.",
             "runbook_url": "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md"
                            "#runbook-kaitospeculativedecodingnotdrafting"}},
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
    assert rule["spec"]["groups"][0]["rules"][-2]["expr"].startswith(
        'kaito_specdec:decode_tokens:increase15m{kaito_workload=~"phi-4"} > 0 unless on (namespace, ')


@pytest.mark.parametrize("kwargs,message", [
    ({"workloads": []}, "a PrometheusRule needs at least one workload"),
    ({"window": "5"}, "window must be a Prometheus duration such as 5m, other than the baseline's 6h, got '5'"),
    ({"window": "five minutes"},
     "window must be a Prometheus duration such as 5m, other than the baseline's 6h, got 'five minutes'"),
    # The baseline's own window would record the same series twice.
    ({"window": "6h"}, "window must be a Prometheus duration such as 5m, other than the baseline's 6h, got '6h'"),
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


def _monitoring_docs() -> str:
    from pathlib import Path
    return (Path(__file__).resolve().parent.parent / "docs" / "monitoring.md").read_text(encoding="utf-8")


def test_the_monitoring_doc_shows_what_the_builder_makes() -> None:
    docs = _monitoring_docs()
    block = re.search(r"<!-- monitoring-promql:start -->\n```promql\n(.*?)```\n<!-- monitoring-promql:end -->",
                      docs, re.S)
    assert block, "docs/monitoring.md has no monitoring-promql block"
    lines = [ln for ln in block.group(1).splitlines() if not ln.startswith("#")]
    exprs = expressions("team-a", WS)
    assert lines == [exprs["acceptance_rate"], exprs["mean_acceptance_length"]]
    for metric in ("vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
                   "vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total"):
        assert f"`{metric}" in docs
    for workload in (IS, MRI, Monitored("Deployment", "qwen"), Monitored("StatefulSet", "qwen"),
                     Monitored("LeaderWorkerSet", "qwen"), Monitored("InferenceService", "qwen"),
                     Monitored("LLMInferenceService", "qwen", parts=("-kserve", "-kserve-prefill")),
                     Monitored("LLMInferenceService", "qwen", parts=("-kserve-mn",))):
        assert f'`pod=~"{pod_pattern(workload)}"`' in docs, workload
    assert "ruleNamespaceSelector" in docs and "enforcedNamespaceLabel" in docs


def _block(docs: str, name: str) -> list[str]:
    block = re.search(rf"<!-- {name}:start -->\n```promql\n(.*?)```\n<!-- {name}:end -->", docs, re.S)
    assert block, f"docs/monitoring.md has no {name} block"
    return [ln for ln in block.group(1).splitlines() if not ln.startswith("#")]


def test_the_monitoring_doc_shows_the_not_drafting_records_and_alert_as_built() -> None:
    exprs = expressions("team-a", WS)
    (alert,) = [r for r in rules("team-a", [WS]) if r.get("alert") == "KaitoSpeculativeDecodingNotDrafting"]
    assert _block(_monitoring_docs(), "monitoring-not-drafting-promql") == \
        [exprs["decode_tokens"], exprs["drafts"], alert["expr"]]


def test_the_monitoring_doc_shows_the_new_records_and_alerts_as_built() -> None:
    exprs = expressions("team-a", WS)
    alerts = {r["alert"]: r["expr"] for r in rules("team-a", [WS]) if "alert" in r}
    assert _block(_monitoring_docs(), "monitoring-alerts-promql") == [
        exprs["acceptance_rate_baseline"], exprs["prefix_cache_queries"], exprs["prefix_cache_hits"],
        alerts["KaitoSpeculativeDecodingDrafterDead"], alerts["KaitoSpeculativeDecodingPrefixCacheInert"],
        alerts["KaitoSpeculativeDecodingAcceptanceDropped"]]


@pytest.mark.parametrize("block, count", [("monitoring-drafter-dead-promql", 2), ("monitoring-prefix-cache-promql", 2),
                                          ("monitoring-acceptance-dropped-promql", 2)])
def test_the_new_runbooks_promql_is_promql_on_the_workloads_pods(block: str, count: int) -> None:
    """Each runbook's queries parse in Prometheus (promtool loads them as records) and select the Workspace's pods
    as the rule does, every selector of them."""
    lines = _block(_monitoring_docs(), block)
    assert len(lines) == count
    selector = '{namespace="team-a",' + WS_PODS + "}"
    for line in lines:
        assert selector in line and line.count("{") == line.count(selector), line
    promtool.check_rules([[{"name": "runbook", "rules": [{"record": f"runbook:query:{i}", "expr": line}
                                                          for i, line in enumerate(lines)]}]])


def test_the_runbooks_promql_is_promql_on_the_workloads_pods() -> None:
    """The runbook's queries and the load one are ones Prometheus parses (as records: promtool loads them),
    each on the Workspace's pods as the rule selects them."""
    docs = _monitoring_docs()
    lines = _block(docs, "monitoring-runbook-promql") + _block(docs, "monitoring-load-promql")
    assert len(lines) == 4
    selector = '{namespace="team-a",' + WS_PODS + "}"
    for line in lines:
        assert selector in line and line.count("{") == line.count(selector), line
    promtool.check_rules([[{"name": "runbook", "rules": [{"record": f"runbook:query:{i}", "expr": line}
                                                          for i, line in enumerate(lines)]}]])


@pytest.mark.parametrize("threshold,written", [(0.3, "0.3"), (1, "1"), (0, "0"), (0.1234567, "0.1234567"),
                                               (0.00001234567891, "1.234567891e-05"), (0.55, "0.55")])
def test_the_alert_keeps_every_digit_of_the_threshold(threshold: float, written: str) -> None:
    # format(x, "g") kept six significant digits: 0.1234567 alerted below 0.123457.
    alert = rules("team-a", [WS], threshold)[-1]
    assert alert["expr"].endswith(f" < {written}")
    assert f"below {written} for" in alert["annotations"]["description"]


@pytest.mark.parametrize("parent, suffix", [
    ("qwen", "-kserve"),
    ("a" * 56, "-kserve"),                 # exactly 63: kept whole
    ("a" * 57, "-kserve"),                 # 64: cut and hashed
    ("llama-3-1-8b-instruct-speculative-decoding-canary-eastus-two", "-kserve-mn-prefill"),
])
def test_kmeta_child_name(parent: str, suffix: str) -> None:
    """knative.dev/pkg/kmeta ChildName (vendor/knative.dev/pkg/kmeta/names.go), which KServe names an
    LLMInferenceService's workloads with; the md5 taken here with hashlib, independently."""
    import hashlib
    from krm_fn.domain.monitoring import child_name
    want = parent + suffix if len(parent + suffix) <= 63 else \
        parent[:31 - len(suffix)] + hashlib.md5(parent.encode()).hexdigest() + suffix
    assert child_name(parent, suffix) == want and len(want) <= 63


@pytest.mark.parametrize("spec, parts", [
    ({}, ("-kserve",)),
    ({"worker": {}}, ("-kserve-mn",)),                         # an empty worker is not nil: multi-node
    ({"worker": None}, ("-kserve",)),
    ({"prefill": {"template": {}}}, ("-kserve", "-kserve-prefill")),
    ({"worker": {}, "prefill": {"worker": {"containers": []}}}, ("-kserve-mn", "-kserve-mn-prefill")),
    ({"prefill": None}, ("-kserve",)),
])
def test_the_workloads_kserve_makes_of_an_llm_inference_service(spec: dict, parts: tuple) -> None:
    from krm_fn.stages.prometheus_rules import _llm_isvc_parts
    assert _llm_isvc_parts({"spec": spec}) == parts
