"""The PrometheusRules the function writes, run by Prometheus itself (tests/promtool.py; skipped, with the
reason, where promtool is not installed).

`promtool check rules` parses every rule of every golden case as Prometheus loads it (PromQL with Go's RE2
regexes, record and label names, the `for` duration). `promtool test rules` evaluates the rules of the
monitoring cases over synthetic series named as vLLM V1 exports them (`vllm:spec_decode_num_drafts_total`,
`…_num_draft_tokens_total`, `…_num_accepted_tokens_total`, with vLLM's `model_name` and `engine` and the
scrape's `namespace`, `pod`, `job`, `instance`, `container`), on pods named as KAITO and the plain
controllers name them, next to look-alikes of other workloads and other namespaces. Each pod says whose it
is; the expected figures are summed from that, independently of the rule's regexes, so a pattern that takes
a look-alike's pod (issue 22: `llama-guard-0` read into InferenceSet `llama`, 0.467 instead of 0.7; a plain
Deployment `phi-4` into Workspace `phi-4`, 0.2 instead of 0.4 and a false alert) fails here. The same pods
also export `vllm:generation_tokens_total` and `vllm:request_success_total`, so every case checks the
KaitoSpeculativeDecodingNotDrafting alert too; the tests at the end run it over hand-written series (absent
and flat drafts, idle and one-token traffic, look-alikes, prefill sides, restarts, pods just started).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import pytest
import yaml

import promtool
from golden import case_env, case_input
from runner import run

MINUTES = 60          # length of the synthetic series, one sample a minute
SETTLED = "40m"       # every alert that stays below the threshold fires (for: 30m) by then
PENDING = "20m"       # pending, not firing yet
RECORDS = ("kaito_specdec:acceptance_rate:ratio_rate5m", "kaito_specdec:mean_acceptance_length:rate5m")
ALERT = "KaitoSpeculativeDecodingLowAcceptance"
NOT_DRAFTING = "KaitoSpeculativeDecodingNotDrafting"
DECODE_TOKENS, DRAFTS = "kaito_specdec:decode_tokens:increase15m", "kaito_specdec:drafts:increase15m"
NOT_YET = "14m"       # the not-drafting condition holds from the second sample on, for 15m before it fires
SCALE = 1_000_000
GENERATION, FINISHED = "vllm:generation_tokens_total", "vllm:request_success_total"
DRAFT_TOKENS, ACCEPTED, DRAFT_ROUNDS = ("vllm:spec_decode_num_draft_tokens_total",
                                        "vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_drafts_total")


class Pod(NamedTuple):
    namespace: str
    name: str
    owner: tuple[str, str] | None   # (kind, name) of the workload that made it; None: not a watched one's
    tokens: int = 0                 # draft tokens per minute (0: the counters stay flat, as on an idle pod)
    accepted: int = 0               # accepted tokens per minute
    per_draft: int = 5              # draft tokens per draft (num_speculative_tokens)
    exported: bool = True           # False: no vLLM server (an LWS worker): no series at all
    generated: int | None = None    # tokens generated per minute (None: one per draft round and those accepted)
    requests: int = 0               # requests finished per minute (each one's first token comes from its prefill)
    speculates: bool = True         # False: vLLM runs without a speculative config: no spec_decode series at all
    prefill: bool = False           # a prefill side's pod, which drafts nothing by design

    @property
    def drafts(self) -> int:
        return self.tokens // self.per_draft

    @property
    def decoded(self) -> int:
        generated = self.drafts + self.accepted if self.generated is None else self.generated
        return generated - self.requests


def _labels(namespace: str, pod: str, i: int) -> str:
    return (f'namespace="{namespace}",pod="{pod}",model_name="m",engine="0",job="vllm",'
            f'instance="10.0.{i // 250}.{i % 250}:8000",container="vllm"')


def _series(pods: list[Pod]) -> list[dict]:
    out = []
    for i, pod in enumerate(p for p in pods if p.exported):
        assert pod.speculates or not pod.tokens
        labels = _labels(pod.namespace, pod.name, i)
        metrics = [(GENERATION, pod.decoded + pod.requests), (FINISHED, pod.requests)]
        if pod.speculates:
            metrics += [(DRAFT_TOKENS, pod.tokens), (ACCEPTED, pod.accepted), (DRAFT_ROUNDS, pod.drafts)]
        for metric, per_minute in metrics:
            out.append({"series": f"{metric}{{{labels}}}", "values": f"0+{per_minute}x{MINUTES}"})
    return out


def _not_drafting(rule: dict, pods: list[Pod]) -> dict[tuple[str, str, str], tuple[int, int | None]]:
    """(namespace, kind, name) -> (tokens decoded, draft rounds, None where no pod exports the counter) over
    15 minutes, for each watched workload with pods that draft (not the prefill side's), from the pods' owners."""
    namespace = rule["metadata"].get("namespace", "")
    watched = {(r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"])
               for g in rule["spec"]["groups"] for r in g["rules"] if "record" in r}
    out: dict[tuple[str, str, str], tuple[int, int | None]] = {}
    for pod in pods:
        if pod.exported and not pod.prefill and pod.owner in watched and namespace in ("", pod.namespace):
            decoded, drafts = out.get((pod.namespace, *pod.owner), (0, None))
            if pod.speculates:
                drafts = (drafts or 0) + 15 * pod.drafts
            out[(pod.namespace, *pod.owner)] = (decoded + 15 * pod.decoded, drafts)
    return out


def _humanize(value: float) -> str:
    # Prometheus' template function for values from 1 on: SI prefixes and fmt.Sprintf("%.4g%s", v, prefix).
    prefix = ""
    for p in ("k", "M", "G", "T"):
        if abs(value) < 1000:
            break
        prefix, value = p, value / 1000
    return format(value, ".4g") + prefix


def _not_drafting_alert(rule: dict, namespace: str, kind: str, name: str, decoded: float) -> dict:
    (alert,) = [r for g in rule["spec"]["groups"] for r in g["rules"] if r.get("alert") == NOT_DRAFTING]
    summary = (f"Speculative decoding on {kind} {namespace}/{name} drafts nothing: {_humanize(decoded)} tokens "
               "decoded in 15m, no drafts")
    return {"exp_labels": {"severity": "warning", "namespace": namespace, "kaito_workload": name,
                           "kaito_workload_kind": kind},
            "exp_annotations": {**alert["annotations"], "summary": summary}}


def _expected(rule: dict, pods: list[Pod]) -> dict[tuple[str, str, str], tuple[float, float] | None]:
    """(namespace, kind, name) -> (acceptance rate, mean acceptance length), None for 0/0, for each watched
    workload of the rule, from the pods' owners: a rule with a namespace counts that namespace's pods; one
    without (SD810) the pods of these names in every namespace."""
    namespace = rule["metadata"].get("namespace", "")
    watched = {(r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"])
               for g in rule["spec"]["groups"] for r in g["rules"] if "record" in r}
    sums: dict[tuple[str, str, str], list[int]] = {}
    for pod in pods:
        if pod.exported and pod.owner in watched and namespace in ("", pod.namespace):
            s = sums.setdefault((pod.namespace, *pod.owner), [0, 0, 0])
            s[0] += pod.tokens
            s[1] += pod.accepted
            s[2] += pod.tokens // pod.per_draft
    return {key: (acc / tokens, 1 + acc / drafts) if tokens else None for key, (tokens, acc, drafts) in sums.items()}


def _selector(namespace: str, kind: str, name: str) -> str:
    return f'namespace="{namespace}",kaito_workload="{name}",kaito_workload_kind="{kind}"'


def _humanize_percentage(value: float) -> str:
    # Prometheus' template function: fmt.Sprintf("%.4g%%", v*100) (Go's %g and Python's agree here).
    return format(value * 100, ".4g") + "%"


def _unit_tests(rule: dict, pods: list[Pod]) -> list[dict]:
    expected = _expected(rule, pods)
    watched = sorted({(kind, name) for _, kind, name in expected})
    group = rule["spec"]["groups"][0]["rules"]
    alert = group[-1]
    threshold = float(alert["expr"].rsplit(" < ", 1)[1])
    exprs = []
    for kind, name in watched:
        # Every namespace that has pods of the workload, and no other.
        counted = sorted(ns for ns, k, n in expected if (k, n) == (kind, name))
        exprs.append({"expr": f'count by (namespace) ({RECORDS[0]}{{kaito_workload="{name}",kaito_workload_kind="{kind}"}})',
                      "eval_time": SETTLED,
                      "exp_samples": [{"labels": f'{{namespace="{ns}"}}', "value": 1} for ns in counted]})
    for (ns, kind, name), figures in sorted(expected.items()):
        sel = _selector(ns, kind, name)
        if figures is None:   # 0/0 is NaN, which compares false: no value, and no alert
            for record in RECORDS:
                exprs.append({"expr": f"{record}{{{sel}}} >= 0", "eval_time": SETTLED, "exp_samples": []})
            continue
        for record, value in zip(RECORDS, figures, strict=True):
            # promtool compares sample values exactly, and the rate's extrapolation leaves a last-digit error:
            # compared in millionths (PromQL's round is floor(v + 0.5)).
            exprs.append({"expr": f"round({record}{{{sel}}} * {SCALE})", "eval_time": SETTLED,
                          "exp_samples": [{"labels": f"{{{sel}}}", "value": math.floor(value * SCALE + 0.5)}]})
    firing = []
    for (ns, kind, name), figures in sorted(expected.items()):
        if figures is not None and figures[0] < threshold:
            summary = (f"Speculative decoding on {kind} {ns}/{name} accepts {_humanize_percentage(figures[0])} of "
                       "its draft tokens")
            firing.append({"exp_labels": {"severity": "warning", "namespace": ns, "kaito_workload": name,
                                          "kaito_workload_kind": kind},
                           "exp_annotations": {"summary": summary,
                                               "description": alert["annotations"]["description"]}})
    undrafted = []
    for (ns, kind, name), (decoded, drafts) in sorted(_not_drafting(rule, pods).items()):
        sel = _selector(ns, kind, name)
        exprs.append({"expr": f"round({DECODE_TOKENS}{{{sel}}})", "eval_time": SETTLED,
                      "exp_samples": [{"labels": f"{{{sel}}}", "value": decoded}]})
        exprs.append({"expr": f"round({DRAFTS}{{{sel}}})", "eval_time": SETTLED,
                      "exp_samples": [] if drafts is None else [{"labels": f"{{{sel}}}", "value": drafts}]})
        if decoded > 0 and not drafts:
            undrafted.append(_not_drafting_alert(rule, ns, kind, name, decoded))
    alerts = [{"eval_time": PENDING, "alertname": ALERT, "exp_alerts": []},
              {"eval_time": SETTLED, "alertname": ALERT, "exp_alerts": firing},
              {"eval_time": NOT_YET, "alertname": NOT_DRAFTING, "exp_alerts": []},
              {"eval_time": SETTLED, "alertname": NOT_DRAFTING, "exp_alerts": undrafted}]
    return [{"interval": "1m", "input_series": _series(pods), "promql_expr_test": exprs,
             "alert_rule_test": alerts}]


def _rule(case: str, text: str | None = None) -> dict:
    r = run([], text if text is not None else case_input(case), case_env(case))
    assert r.code == 0, r.err
    (rule,) = [i for i in r.items if i.get("kind") == "PrometheusRule"]
    return rule


def _check(case: str, pods: list[Pod], firing: set[tuple[str, str, str]], text: str | None = None,
           not_drafting: frozenset[tuple[str, str, str]] = frozenset()) -> None:
    """The case's rule (run on `text` instead of its input when given) under promtool over these pods;
    `firing`: the low-acceptance alerts the test expects at SETTLED (namespace, kind, name), `not_drafting`
    the not-drafting ones, which must also be what the pods' own figures give."""
    rule = _rule(case, text)
    expected = _expected(rule, pods)
    threshold = float(rule["spec"]["groups"][0]["rules"][-1]["expr"].rsplit(" < ", 1)[1])
    assert {k for k, f in expected.items() if f is not None and f[0] < threshold} == firing   # the scenario itself
    assert {k for k, (decoded, drafts) in _not_drafting(rule, pods).items() if decoded > 0 and not drafts} \
        == set(not_drafting)
    promtool.unit_test(rule["spec"]["groups"], _unit_tests(rule, pods))


def test_without_promtool_these_tests_skip_and_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(promtool.shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match=r"promtool is not installed \(Debian/Ubuntu: apt-get install prometheus"):
        promtool.require()


def test_every_golden_rule_is_one_prometheus_loads() -> None:
    from golden import ROOT
    from test_prometheus_rules import RULE_CASES
    assert len(RULE_CASES) >= 10
    files = []
    for case in RULE_CASES:
        doc = yaml.safe_load((ROOT / case / "expected.yaml").read_text(encoding="utf-8"))
        files += [item["spec"]["groups"] for item in doc["items"] if item.get("kind") == "PrometheusRule"]
    out = promtool.check_rules(files)
    for i, groups in enumerate(files):
        assert f"Checking rules-{i}.yaml\n  SUCCESS: {sum(len(g['rules']) for g in groups)} rules found" in out


@pytest.mark.parametrize("threshold", ["", "0.55"])
def test_look_alikes_are_not_counted(threshold: str) -> None:
    """issue 22, 4: the StatefulSet "llama-guard" is not InferenceSet "llama"'s, the Deployment "phi-4" not
    Workspace "phi-4"'s (it is its own, and alerts), another namespace's "llama-x7k2p-0" not this one's."""
    pods = [
        Pod("ai", "llama-x7k2p-0", ("InferenceSet", "llama"), 600, 420),
        Pod("ai", "llama-b2c4d-1", ("InferenceSet", "llama"), 600, 420),
        Pod("ai", "llama-guard-0", None, 600, 0),
        Pod("ai", "phi-4-0", ("Workspace", "phi-4"), 600, 240),
        Pod("ai", "phi-4-7d9f8b6c4d-x2x4z", ("Deployment", "phi-4"), 1200, 120),
        Pod("other", "llama-x7k2p-0", ("InferenceSet", "llama"), 600, 0),
    ]
    firing = {("ai", "Deployment", "phi-4")} | ({("ai", "Workspace", "phi-4")} if threshold else set())
    case = "monitoring-plain-lookalikes"
    text = case_input(case).replace('prometheusRules: "true"',
                                    f'prometheusRules: "true"\n    minAcceptanceRate: "{threshold}"') if threshold else None
    _check(case, pods, firing, text)


def test_kaitos_kinds() -> None:
    """A Workspace (idle: no value, no alert), an InferenceSet (its child Workspace's pods are its own), a
    MultiRoleInference whose prefill pods draft nothing: its figures are the decode side's."""
    pods = [
        Pod("prod", "phi-4-0", ("Workspace", "phi-4")),
        Pod("prod", "llama-x7k2p-0", ("InferenceSet", "llama"), 600, 480),
        Pod("prod", "llama-q8w4r-0", ("InferenceSet", "llama"), 300, 240),
        # The prefill side runs the prompts (max_tokens 1: a token per request) and drafts nothing.
        Pod("prod", "qwen-prefill-x7k2p-0", ("MultiRoleInference", "qwen"), generated=40, requests=40, prefill=True),
        Pod("prod", "qwen-decode-b2c4d-0", ("MultiRoleInference", "qwen"), 600, 150, per_draft=1, requests=40),
    ]
    _check("monitoring-kinds", pods, {("prod", "MultiRoleInference", "qwen")})


def test_the_pods_of_look_alike_kaito_workloads() -> None:
    """monitoring-pod-names: a Workspace named like one of an InferenceSet's children, one like a
    MultiRoleInference's grandchildren: each pod is counted once, by its own workload."""
    pods = [
        Pod("prod", "llama-x7k2p-0", ("InferenceSet", "llama"), 600, 420),
        Pod("prod", "llama-b2c4d-0", ("Workspace", "llama-b2c4d"), 600, 60),
        Pod("prod", "llama-b2c4d-x-0", None, 600, 0),
        Pod("prod", "ds-decode-b2c4d-0", ("MultiRoleInference", "ds"), 600, 300, per_draft=1),
        Pod("prod", "ds-decode-x7k2p-0", None, 600, 0),
        Pod("staging", "llama-x7k2p-0", ("InferenceSet", "llama"), 600, 0),
        # Look-alikes that decode and draft nothing: no alert for the workloads whose names they resemble.
        Pod("prod", "llama-b2c4d-x-1", None, generated=600, speculates=False),
        Pod("prod", "ds-decode-x7k2p-1", None, generated=600, speculates=False),
    ]
    _check("monitoring-pod-names", pods, {("prod", "Workspace", "llama-b2c4d")})


def test_plain_vllm_workloads() -> None:
    """monitoring-plain-kinds: a Deployment's pods, a StatefulSet's, a LeaderWorkerSet's leaders (its workers
    run no vLLM server), a KServe InferenceService's in both deployment modes, or in the one it names."""
    pods = [
        Pod("llm", "qwen-7d9f8b6c4d-x2x4z", ("Deployment", "qwen"), 600, 420),
        Pod("llm", "qwen-7d9f8b6c4d-b7q5n", ("Deployment", "qwen"), 600, 420),
        Pod("llm", "own-config-5f6b8c9d74-k2x8p", ("Deployment", "own-config"), 600, 300, per_draft=2),
        Pod("llm", "phi-0", ("StatefulSet", "phi"), 600, 120),
        Pod("llm", "vllm-0", ("LeaderWorkerSet", "vllm"), 600, 360),
        Pod("llm", "vllm-1", ("LeaderWorkerSet", "vllm"), 600, 360),
        Pod("llm", "vllm-0-1", ("LeaderWorkerSet", "vllm"), exported=False),
        Pod("llm", "qwen-kserve-predictor-6d4b7c9f8d-wz2xq", ("InferenceService", "qwen-kserve"), 300, 150),
        Pod("llm", "qwen-kserve-predictor-00001-deployment-7c9f4d6b5-m9h2k", ("InferenceService", "qwen-kserve"),
            300, 150),
        Pod("llm", "phi-raw-predictor-8b7c6d5f4-hx7k2", ("InferenceService", "phi-raw"), 600, 480),
        # Knative pods of "phi-raw", which its RawDeployment annotation rules out: another's.
        Pod("llm", "phi-raw-predictor-00001-deployment-7c9f4d6b5-m9h2k", None, 600, 0),
        Pod("llm", "opted-out-7d9f8b6c4d-x2x4z", None, 600, 0),
        Pod("llm", "opted-out-7d9f8b6c4d-b7q5n", None, generated=600, requests=5, speculates=False),
    ]
    _check("monitoring-plain-kinds", pods, {("llm", "StatefulSet", "phi")})


@pytest.mark.parametrize("case, firing", [
    # Without a namespace (SD810) the rule takes team-b's pods of the same names too: records and an alert
    # for team-b, whichever namespace the rule lands in.
    ("monitoring-no-namespace", {("team-b", "Workspace", "workspace-phi-4-mini")}),
    ("monitoring-no-namespace-fixed", set()),
])
def test_a_rule_without_a_namespace_counts_every_namespace(case: str, firing: set) -> None:
    pods = [
        Pod("team-a", "workspace-phi-4-mini-0", ("Workspace", "workspace-phi-4-mini"), 600, 300),
        Pod("team-b", "workspace-phi-4-mini-0", ("Workspace", "workspace-phi-4-mini"), 600, 60),
        Pod("team-a", "qwen-7d9f8b6c4d-x2x4z", ("Deployment", "qwen"), 600, 420),
        Pod("team-b", "qwen-5f6b8c9d74-k2x8p", ("Deployment", "qwen"), 600, 420),
    ]
    _check(case, pods, firing)


@pytest.mark.parametrize("case, pods", [
    # kaitoVersion v0.7.2: the single-node Workspace ran as a Deployment.
    ("monitoring-kaito-before-v0.8", [Pod("ai", "phi-4-7d9f8b6c4d-x2x4z", ("Workspace", "phi-4"), 600, 240)]),
    # Default kaitoVersion: a pod of that shape is no Workspace's (a plain Deployment "phi-4"'s).
    ("monitoring-plain-lookalikes", [Pod("ai", "phi-4-7d9f8b6c4d-x2x4z", ("Deployment", "phi-4"), 600, 240),
                                     Pod("ai", "phi-4-0", ("Workspace", "phi-4"), 600, 240)]),
])
def test_the_workspace_deployment_form_only_before_kaito_v0_8(case: str, pods: list) -> None:
    _check(case, pods, set())


def test_long_kserve_names_in_standard_mode() -> None:
    """monitoring-kserve-long-name: the long-named InferenceService's Standard-mode pods, the 58-character cut
    of its ReplicaSet's name included; its Knative pods are not counted (SD811 says so)."""
    name = "llama-3-1-8b-instruct-huggingface-vllm-gpu"
    pods = [
        # "<name>-predictor-" is 53 characters: a 4-character hash keeps its dash, a longer one is cut to 5.
        Pod("kserve-test", f"{name}-predictor-7c9f-x2x4z", ("InferenceService", name), 600, 420),
        Pod("kserve-test", f"{name}-predictor-7c9f4" + "b7q5n", ("InferenceService", name), 600, 420),
        Pod("kserve-test", f"{name}-predictor-7c9f4-b7q5n", None, 600, 0),   # 64 characters: no generated name
    ]
    _check("monitoring-kserve-long-name", pods, set())


def _kmeta_child_name(parent: str, suffix: str) -> str:
    """knative.dev/pkg/kmeta ChildName (vendor/knative.dev/pkg/kmeta/names.go), for suffixes under 31 characters."""
    import hashlib
    return parent + suffix if len(parent) <= 63 - len(suffix) else \
        parent[:31 - len(suffix)] + hashlib.md5(parent.encode()).hexdigest() + suffix


def _deployment_pod(deployment: str, hash_: str, suffix: str) -> str:
    # the ReplicaSet `<deployment>-<pod-template-hash>`, its pods GenerateName'd `<replicaset>-`, cut to 58
    # characters before the 5 random ones (k8s.io/apiserver names.SimpleNameGenerator)
    return f"{deployment}-{hash_}-"[:58] + suffix


def test_llm_inference_services() -> None:
    """monitoring-llminferenceservice: the pods of the Deployments and LeaderWorkerSets KServe makes of an
    LLMInferenceService (decode and prefill, single- and multi-node), a name kmeta.ChildName hashes, and
    look-alikes of other workloads in the namespace."""
    long = "llama-3-1-8b-instruct-speculative-decoding-canary-eastus-two"
    long_child = _kmeta_child_name(long, "-kserve")
    assert len(long_child) == 63 and long_child != long + "-kserve"
    pods = [
        Pod("llm", _deployment_pod("qwen-pd-kserve", "7d9f8b6c4d", "x2x4z"), ("LLMInferenceService", "qwen-pd"), 600, 420),
        Pod("llm", _deployment_pod("qwen-pd-kserve", "7d9f8b6c4d", "b7q5n"), ("LLMInferenceService", "qwen-pd"), 600, 420),
        # prefill pods draft nothing: their counters stay flat while they run the prompts (a token each)
        Pod("llm", _deployment_pod("qwen-pd-kserve-prefill", "5f6b8c9d74", "k2x8p"), ("LLMInferenceService", "qwen-pd"),
            generated=30, requests=30, prefill=True),
        Pod("llm", "deepseek-multinode-kserve-mn-0", ("LLMInferenceService", "deepseek-multinode"), 600, 120),
        Pod("llm", "deepseek-multinode-kserve-mn-1", ("LLMInferenceService", "deepseek-multinode"), 600, 120),
        Pod("llm", "deepseek-multinode-kserve-mn-0-1", ("LLMInferenceService", "deepseek-multinode"), exported=False),
        Pod("llm", "deepseek-multinode-kserve-mn-prefill-0", ("LLMInferenceService", "deepseek-multinode"),
            generated=30, requests=30, prefill=True),
        Pod("llm", _deployment_pod(long_child, "6c8d9f7b5d", "wz2xq"), ("LLMInferenceService", long), 600, 480),
        # the router's scheduler (EPP) and another team's Deployment whose names start alike: not theirs
        Pod("llm", _deployment_pod("qwen-pd-kserve-router-scheduler", "8b7c6d5f4", "hx7k2"), None, 600, 0),
        Pod("llm", _deployment_pod("qwen-pd", "7d9f8b6c4d", "m9h2k"), None, 600, 0),
        Pod("other", _deployment_pod("qwen-pd-kserve", "7d9f8b6c4d", "x2x4z"), None, 600, 0),
    ]
    _check("monitoring-llminferenceservice", pods, {("llm", "LLMInferenceService", "deepseek-multinode")})


# --- KaitoSpeculativeDecodingNotDrafting over hand-written series ------------------------------------------

LONG = 90   # minutes of the hand-written series, one sample a minute


def _inputs(*pods: tuple[str, str, dict[str, str]]) -> list[dict]:
    """(namespace, pod, {metric: promtool's expanding notation}) -> promtool's input series."""
    return [{"series": f"{metric}{{{_labels(namespace, pod, i)}}}", "values": values}
            for i, (namespace, pod, metrics) in enumerate(pods) for metric, values in metrics.items()]


def _steady(generated: int, requests: int, drafts: int | None, minutes: int = LONG) -> dict[str, str]:
    """A pod's counters over the whole series, per minute; drafts None: no drafts counter at all (vLLM runs
    without speculative decoding)."""
    out = {GENERATION: f"0+{generated}x{minutes}", FINISHED: f"0+{requests}x{minutes}"}
    if drafts is not None:
        out[DRAFT_ROUNDS] = f"0+{drafts}x{minutes}"
    return out


def _not_drafting_test(rule: dict, series: list[dict],
                       expected: dict[str, list[tuple[str, str, str, float]]]) -> None:
    """promtool over `series`: at each eval time, exactly these alerts firing (namespace, kind, name, tokens
    decoded in the 15 minutes before)."""
    alerts = [{"eval_time": at, "alertname": NOT_DRAFTING,
               "exp_alerts": [_not_drafting_alert(rule, *firing) for firing in sorted(want)]}
              for at, want in expected.items()]
    promtool.unit_test(rule["spec"]["groups"], [{"interval": "1m", "input_series": series,
                                                 "alert_rule_test": alerts}])


def test_not_drafting_fires_where_drafts_are_absent_or_flat() -> None:
    """monitoring-kinds: a Workspace whose vLLM has no drafts counter (the config never reached it), an
    InferenceSet whose counter stays at 0 (a drafter that loads nothing), a MultiRoleInference whose decode
    side has no counter while its prefill side exports one, flat (it does not hide the decode side); not
    before the condition has held for 15 minutes."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _steady(300, 2, None)),
        ("prod", "llama-x7k2p-0", _steady(300, 2, 0)),
        ("prod", "llama-b2c4d-1", _steady(100, 1, 0)),
        ("prod", "qwen-prefill-x7k2p-0", _steady(40, 40, 0)),
        ("prod", "qwen-decode-b2c4d-0", _steady(200, 40, None)),
    )
    firing = [("prod", "Workspace", "phi-4", 298 * 15), ("prod", "InferenceSet", "llama", (298 + 99) * 15),
              ("prod", "MultiRoleInference", "qwen", 160 * 15)]
    _not_drafting_test(rule, series, {"1m": [], NOT_YET: [], "20m": firing, "80m": firing})


def test_not_drafting_is_silent_for_idle_one_token_and_drafting_workloads() -> None:
    """monitoring-kinds: a Workspace that only answers one-token requests (a probe, a prefill: no decode step,
    so nothing to draft for), an idle InferenceSet (counters flat) beside a pod that exports nothing yet, and a
    MultiRoleInference whose prefill side is busy, one decode pod idle and the other drafting."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _steady(3, 3, 0)),
        ("prod", "llama-x7k2p-0", _steady(0, 0, 0)),
        ("prod", "llama-x7k2p-1", {GENERATION: f"_x{LONG}"}),
        ("prod", "qwen-prefill-x7k2p-0", _steady(40, 40, 0)),
        ("prod", "qwen-decode-b2c4d-0", _steady(0, 0, 0)),
        ("prod", "qwen-decode-b2c4d-1", _steady(600, 40, 120)),   # its other decode pod drafts
    )
    _not_drafting_test(rule, series, {NOT_YET: [], "40m": [], "80m": []})


def test_not_drafting_counts_no_look_alike() -> None:
    """monitoring-plain-lookalikes: the InferenceSet "llama" and the Workspace "phi-4" are idle; the StatefulSet
    "llama-guard" (not enabled) and another namespace's "llama-x7k2p-0" decode without drafting, and so
    does the enabled Deployment "phi-4", whose pods look like the Workspace's: it alerts, alone."""
    rule = _rule("monitoring-plain-lookalikes")
    series = _inputs(
        ("ai", "llama-x7k2p-0", _steady(0, 0, 0)),
        ("ai", "llama-guard-0", _steady(300, 2, None)),
        ("ai", "phi-4-0", _steady(0, 0, 0)),
        ("ai", "phi-4-7d9f8b6c4d-x2x4z", _steady(500, 5, None)),
        ("other", "llama-x7k2p-0", _steady(300, 2, 0)),
        ("other", "phi-4-0", _steady(300, 2, None)),
    )
    _not_drafting_test(rule, series, {NOT_YET: [], "40m": [("ai", "Deployment", "phi-4", 495 * 15)]})


def test_not_drafting_across_a_restart() -> None:
    """monitoring-kinds: pods restarted at minute 31 (two scrapes missed, every counter back to 0). The
    Workspace's pod drafts on after it: no alert at any time. The InferenceSet's comes back without
    speculative decoding (its drafts counter gone): the alert fires once the restart is a whole window plus
    15 minutes behind, not before."""
    rule = _rule("monitoring-kinds")
    restarted = lambda per_minute: f"0+{per_minute}x30 _x2 0+{per_minute}x57"   # noqa: E731
    series = _inputs(
        ("prod", "phi-4-0", {GENERATION: restarted(300), FINISHED: restarted(2), DRAFT_ROUNDS: restarted(50)}),
        ("prod", "llama-x7k2p-0", {GENERATION: restarted(300), FINISHED: restarted(2), DRAFT_ROUNDS: "0+50x30"}),
    )
    # The InferenceSet's last two drafts samples are at minutes 29 and 30: from 45m no window holds two.
    _not_drafting_test(rule, series, {"32m": [], "40m": [], "58m": [],
                                      "65m": [("prod", "InferenceSet", "llama", 298 * 15)]})


def test_not_drafting_waits_for_a_pod_that_has_just_started() -> None:
    """monitoring-kinds: pods that start at minute 30. The Workspace's drafts nothing: no alert while it is
    younger than 15 minutes (the condition must hold for 15 minutes), then one. The InferenceSet's drafts
    from the start, the MultiRoleInference's decode pod only after its first minutes: neither fires."""
    rule = _rule("monitoring-kinds")
    late = lambda values: f"_x30 {values}"   # noqa: E731
    series = _inputs(
        ("prod", "phi-4-0", {GENERATION: late("0+300x60"), FINISHED: late("0+2x60")}),
        ("prod", "llama-x7k2p-0", {GENERATION: late("0+300x60"), FINISHED: late("0+2x60"),
                                   DRAFT_ROUNDS: late("0+50x60")}),
        ("prod", "qwen-decode-b2c4d-0", {GENERATION: late("0+300x60"), FINISHED: late("0+2x60"),
                                         DRAFT_ROUNDS: late("0+0x4 0+50x55")}),
    )
    _not_drafting_test(rule, series, {"31m": [], "44m": [], "50m": [("prod", "Workspace", "phi-4", 298 * 15)],
                                      "89m": [("prod", "Workspace", "phi-4", 298 * 15)]})
