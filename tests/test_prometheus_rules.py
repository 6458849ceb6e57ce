"""The opt-in PrometheusRule as the function writes it (krm_fn/stages/prometheus_rules.py): the goldens' rules' shape
and the pods they select (tests/test_promtool.py runs them in Prometheus); settings; placement; the
kustomization warning."""
from __future__ import annotations

import re
import shutil

import pytest
import yaml

from golden import ROOT, cases
from krm_fn.model.config import ConfigError, resolve_settings
from krm_fn.domain.monitoring import Monitored, pod_pattern, swallowed
import promtool
from runner import run

ON = {"KAITO_SPECDEC_PROMETHEUS_RULES": "true"}

# safe_load's data, read with libyaml's parser (at collection, for every fixture).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _rules(case: str) -> list[dict]:
    text = (ROOT / case / "expected.yaml").read_text(encoding="utf-8")
    if "PrometheusRule" not in text:
        return []
    doc = yaml.load(text, Loader=SAFE_LOADER) or {}
    return [i for i in doc.get("items") or [] if isinstance(i, dict) and i.get("kind") == "PrometheusRule"]


RULE_CASES = [c for c in cases() if _rules(c)]


def test_the_goldens_hold_rules() -> None:
    # Every case with the setting on and something enabled, fed back or not; a typo in the filter must fail.
    assert {"monitoring-one-namespace", "monitoring-two-namespaces", "monitoring-kinds", "monitoring-pod-names",
            "monitoring-rerun", "monitoring-regenerated", "monitoring-edited-by-hand", "monitoring-plain-kinds",
            "monitoring-plain-lookalikes", "monitoring-kaito-before-v0.8", "monitoring-no-namespace",
            "monitoring-no-namespace-fixed", "monitoring-kserve-long-name",
            "monitoring-kserve-long-name-fixed"} <= set(RULE_CASES)


RECORDS = ["kaito_specdec:acceptance_rate:ratio_rate5m", "kaito_specdec:mean_acceptance_length:rate5m",
           "kaito_specdec:decode_tokens:increase15m", "kaito_specdec:drafts:increase15m",
           "kaito_specdec:acceptance_rate:ratio_rate6h", "kaito_specdec:prefix_cache_queries:increase30m",
           "kaito_specdec:prefix_cache_hits:increase30m"]
ALERTS = ["KaitoSpeculativeDecodingDrafterDead", "KaitoSpeculativeDecodingPrefixCacheInert",
          "KaitoSpeculativeDecodingAcceptanceDropped", "KaitoSpeculativeDecodingNotDrafting",
          "KaitoSpeculativeDecodingLowAcceptance"]


@pytest.mark.parametrize("case", RULE_CASES)
def test_every_golden_rule_has_records_and_the_alerts_on_them(case: str) -> None:
    rules = _rules(case)
    assert rules
    for rule in rules:
        assert rule["apiVersion"] == "monitoring.coreos.com/v1"
        for group in rule["spec"]["groups"]:
            if group["name"].endswith(".dashboard"):   # the dashboard's records (tests/test_dashboards.py)
                continue
            records = [r for r in group["rules"] if "record" in r]
            alerts = [r for r in group["rules"] if "alert" in r]
            # Seven records for each workload, the same seven, then the five alerts.
            workloads = {(r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"]) for r in records}
            assert workloads and len(records) == 7 * len(workloads)
            assert RECORDS * len(workloads) == [r["record"] for r in records]
            assert [a["alert"] for a in alerts] == ALERTS
            assert group["rules"][-5:] == alerts
            dead, inert, dropped, not_drafting, low = alerts
            assert [a["for"] for a in alerts] == ["10m", "30m", "30m", "15m", "30m"]
            # Each alert reads the series the records make: decode tokens unless drafts; the acceptance rate.
            assert not_drafting["expr"].startswith(records[2]["record"] + "{")
            assert not_drafting["expr"].endswith(" " + records[3]["record"] + " > 0")
            assert low["expr"].startswith(records[0]["record"] + "{")
            assert dead["expr"].startswith(records[0]["record"] + "{") and dead["expr"].endswith(" < 0.02")
            assert inert["expr"].startswith(records[5]["record"] + "{")
            assert f" {records[6]['record']} > 0 " in inert["expr"] and inert["expr"].endswith(f" {records[3]['record']} > 0")
            assert dropped["expr"].startswith(records[0]["record"] + "{")
            assert dropped["expr"].endswith(f" 0.5 * {records[4]['record']}")
            for alert in alerts:
                assert set(alert["labels"]) == {"severity"}
            for alert in (dead, inert, dropped, not_drafting):
                assert alert["annotations"]["runbook_url"].endswith(
                    "/docs/monitoring.md#runbook-" + alert["alert"].lower())


_MATCHER = re.compile(r'(\w+)(=~|!~|=|!=)"((?:[^"\\]|\\.)*)"')


def _selects(expr: str, namespace: str, pod: str) -> bool:
    """Whether every selector of `expr` (PromQL's regex matchers are anchored) takes this pod's series."""
    selectors = re.findall(r'vllm:\w+\{((?:[^"}]|"(?:[^"\\]|\\.)*")*)\}', expr)
    assert selectors
    out = set()
    for sel in selectors:
        ok = True
        for label, op, value in _MATCHER.findall(sel):
            value = value.replace("\\\\", "\\")
            have = {"namespace": namespace, "pod": pod}[label]
            hit = re.fullmatch(value, have) is not None if "~" in op else value == have
            ok &= hit if op in ("=", "=~") else not hit
        out.add(ok)
    assert len(out) == 1, expr  # numerator and denominator select alike
    return out.pop()


@pytest.mark.parametrize("pod, owner", [
    ("llama-x7k2p-0", "llama"),            # the InferenceSet's generated Workspace
    ("llama-b2c4d-0", "llama-b2c4d"),      # the Workspace that looks like one of them: its own only
    ("llama-b2c4d-x-0", None),             # not enabled, and no name the InferenceSet makes
    ("ds-decode-b2c4d-0", "ds"),
    ("ds-prefill-x7k2p-3", "ds"),
    ("ds-decode-x7k2p-0", None),           # a Workspace's pods, though they look like the MRI's
])
def test_each_pod_is_one_workloads_at_most(pod: str, owner: str | None) -> None:
    (rule,) = _rules("monitoring-pod-names")
    records = [r for r in rule["spec"]["groups"][0]["rules"] if "record" in r]
    owners = {r["labels"]["kaito_workload"] for r in records if _selects(r["expr"], "prod", pod)}
    assert owners == ({owner} if owner else set())
    assert not any(_selects(r["expr"], "staging", pod) for r in records)


def test_swallowed_neighbours() -> None:
    ws = [Monitored("Workspace", n) for n in ("s-x7k2p", "s-x7k2", "s-0", "m-decode-bcdfg", "m-bcdfg")]
    assert swallowed(Monitored("InferenceSet", "s"), ws) == [ws[0]]
    assert swallowed(Monitored("MultiRoleInference", "m"), ws) == [ws[3]]
    assert swallowed(Monitored("Workspace", "s"), ws) == []   # s-0 is a Workspace's own pod name, not s's
    # An InferenceSet is never left out of another: its pods' names are random.
    assert swallowed(Monitored("InferenceSet", "s"), [Monitored("InferenceSet", "s-x7k2p")]) == []
    assert re.fullmatch(pod_pattern(Monitored("InferenceSet", "s")), "s-x7k2p-0")
    # Plain look-alikes: a StatefulSet whose name GenerateName could have made is left out; "llama-guard"
    # (vowels) is no such name, nor is a Deployment's or a DaemonSet's pod ever an InferenceSet's.
    plain = [Monitored("StatefulSet", "llama-guard"), Monitored("StatefulSet", "llama-bcdfg"),
             Monitored("Pod", "llama-x7k2p-0"), Monitored("Deployment", "llama-bcdfg"), Monitored("DaemonSet", "llama-b"),
             Monitored("LeaderWorkerSet", "llama-zzzzz")]
    assert swallowed(Monitored("InferenceSet", "llama"), plain) == [plain[1], plain[2], plain[5]]
    # Same name, other kind: never a candidate (their pods never meet, or they cannot both exist).
    assert swallowed(Monitored("Workspace", "phi-4", "deployment"), [Monitored("Deployment", "phi-4")]) == []
    # A Deployment next to a DaemonSet whose pods look like its own (a 3-digit pod-template-hash "bcd").
    assert swallowed(Monitored("Deployment", "a"), [Monitored("DaemonSet", "a-bcd"), Monitored("DaemonSet", "a-bcdx")]) \
        == [Monitored("DaemonSet", "a-bcd")]
    assert swallowed(Monitored("Pod", "a"), [Monitored("StatefulSet", "a-b")]) == []


@pytest.mark.parametrize("fc, env, overrides, on, rate", [
    (None, {}, {}, False, 0.3),
    ({"kind": "ConfigMap", "data": {"prometheusRules": "true"}}, {}, {}, True, 0.3),
    ({"kind": "ConfigMap", "data": {"prometheusRules": "false", "minAcceptanceRate": ".5"}}, ON, {}, False, 0.5),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"prometheusRules": True, "minAcceptanceRate": 1}}, {}, {},
     True, 1.0),
    (None, {"ARGOCD_ENV_KAITO_SPECDEC_PROMETHEUS_RULES": "true",
            "KAITO_SPECDEC_MIN_ACCEPTANCE_RATE": "0"}, {}, True, 0.0),
    ({"kind": "ConfigMap", "data": {"prometheusRules": "true"}}, {}, {"prometheusRules": "false",
                                                                      "minAcceptanceRate": "0.25"}, False, 0.25),
    (None, {}, {"prometheusRules": ""}, False, 0.3),   # empty is the default, as for every setting
])
def test_settings(fc, env, overrides, on, rate) -> None:
    s = resolve_settings(fc, env, overrides)
    assert (s.prometheus_rules, s.min_acceptance_rate) == (on, rate)


@pytest.mark.parametrize("fc, env, id, words", [
    ({"kind": "ConfigMap", "data": {"prometheusRules": "True"}}, {}, "SD021",
     'invalid functionConfig: prometheusRules: invalid value "True"; expected "true" or "false"'),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"prometheusRules": 1}}, {}, "SD021", "invalid value 1"),
    (None, {"KAITO_SPECDEC_PROMETHEUS_RULES": "on"}, "SD021",
     "environment variable KAITO_SPECDEC_PROMETHEUS_RULES (or ARGOCD_ENV_KAITO_SPECDEC_PROMETHEUS_RULES)"),
    ({"kind": "ConfigMap", "data": {"minAcceptanceRate": "1.01"}}, {}, "SD021", 'invalid value "1.01"'),
    ({"kind": "ConfigMap", "data": {"minAcceptanceRate": "nan"}}, {}, "SD021", 'invalid value "nan"'),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"minAcceptanceRate": float("nan")}}, {}, "SD021", "NaN"),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"minAcceptanceRate": True}}, {}, "SD021", "invalid value true"),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"minAcceptanceRate": -0.1}}, {}, "SD021", "invalid value -0.1"),
    (None, {"KAITO_SPECDEC_MIN_ACCEPTANCE_RATE": "30%"}, "SD021", "KAITO_SPECDEC_MIN_ACCEPTANCE_RATE"),
])
def test_bad_settings(fc, env, id, words) -> None:
    with pytest.raises(ConfigError) as err:
        resolve_settings(fc, env)
    assert err.value.id == id and words in str(err.value)


WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: phi
  namespace: a
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
inference:
  preset:
    name: phi-4
"""


def test_render_flags(tmp_path) -> None:
    (tmp_path / "ws.yaml").write_text(WORKSPACE)
    code, out, err = run(["render", "--prometheus-rules", str(tmp_path)], env={})
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    (rule,) = [d for d in docs if d["kind"] == "PrometheusRule"]
    assert rule["spec"]["groups"][0]["rules"][-1]["expr"].endswith("< 0.3")
    assert "internal.config.kubernetes.io/path" not in rule["metadata"]["annotations"]   # render strips them
    code, out, _ = run(["render", str(tmp_path), "--prometheus-rules", "--min-acceptance-rate", "0.6"], env={})
    assert code == 0 and [d for d in yaml.safe_load_all(out) if d["kind"] == "PrometheusRule"][0][
        "spec"]["groups"][0]["rules"][-1]["expr"].endswith("< 0.6")
    code, out, _ = run(["render", "--no-prometheus-rules", str(tmp_path)], env=ON)
    assert code == 0 and "PrometheusRule" not in out
    code, out, err = run(["render", str(tmp_path), "--min-acceptance-rate", "2"], env=ON)
    assert code == 2 and out == "" and "[SD021]" in err


def _krm(*docs: str, settings: str = 'prometheusRules: "true"') -> str:
    from golden import wrap
    fc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  " + settings + "\n"
    return wrap("\n---\n".join(docs), fc)


def _kpt(doc: str, path: str) -> str:
    head, sep, rest = doc.partition("  annotations:\n")
    return head + sep + f"    internal.config.kubernetes.io/path: '{path}'\n" + rest


def test_a_kustomization_that_does_not_list_the_rule_file_is_warned_about() -> None:
    kustomization = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  annotations:\n"
                     "    internal.config.kubernetes.io/path: 'app/kustomization.yaml'\nresources:\n- ws.yaml\n")
    code, out, _ = run([], _krm(kustomization, _kpt(WORKSPACE, "app/ws.yaml")), {})
    assert code == 0
    results = yaml.safe_load(out)["results"]
    ids = [r["tags"]["id"] for r in results]
    assert ids.count("SD808") == 1 and ids.count("SD050") == 1   # the rule, and the derived ConfigMap
    (sd808,) = [r for r in results if r["tags"]["id"] == "SD808"]
    assert re.search(r"does not list specdec-prometheusrule-[0-9a-f]{10}\.yaml, the PrometheusRule", sd808["message"])
    (sd050,) = [r for r in results if r["tags"]["id"] == "SD050"]
    assert "prometheusrule" not in sd050["message"]


def test_two_namespaces_in_one_folder_get_a_file_each() -> None:
    other = WORKSPACE.replace("namespace: a", "namespace: b")
    code, out, _ = run([], _krm(_kpt(WORKSPACE, "m/a.yaml"), _kpt(other, "m/b.yaml")), {})
    assert code == 0
    paths = [i["metadata"]["annotations"]["internal.config.kubernetes.io/path"]
             for i in yaml.safe_load(out)["items"] if i["kind"] == "PrometheusRule"]
    assert len(paths) == 2 and len(set(paths)) == 2 and all(p.startswith("m/specdec-prometheusrule-") for p in paths)


def test_off_by_default_nothing_changes() -> None:
    text = _krm(WORKSPACE, settings='mode: materialize')
    code, out, _ = run([], text, {})
    assert code == 0 and "PrometheusRule" not in out and "SD8" not in out


def test_a_disabled_namespace_keeps_no_rule_while_another_keeps_its_own() -> None:
    on = _krm(WORKSPACE, WORKSPACE.replace("namespace: a", "namespace: b").replace("name: phi\n", "name: q\n"))
    code, out, _ = run([], on, {})
    assert code == 0
    fed = out.split("\nfunctionConfig:\n")[0] + "\n"
    # b's Workspace disabled: b's rule dropped (SD803), a's kept as it is.
    second = fed.replace('name: q\n    namespace: b\n    annotations:\n      kaito.sh/enable-speculative-decoding: "true"',
                         'name: q\n    namespace: b\n    annotations:\n      kaito.sh/enable-speculative-decoding: "false"')
    assert second != fed
    from golden import _indent
    second += _indent('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  prometheusRules: "true"\n',
                      "functionConfig:\n  ", "  ")
    code, out2, _ = run([], second, {})
    assert code == 0
    doc = yaml.safe_load(out2)
    rules = [i for i in doc["items"] if i["kind"] == "PrometheusRule"]
    assert [r["metadata"]["namespace"] for r in rules] == ["a"]
    assert [r["tags"]["id"] for r in doc["results"] if r["tags"]["id"].startswith("SD8")] == ["SD803"]


def test_an_unreadable_derived_rule_of_the_wanted_name_is_an_error_and_nothing_is_written() -> None:
    code, out, _ = run([], _krm(WORKSPACE), {})
    (rule,) = [i for i in yaml.safe_load(out)["items"] if i["kind"] == "PrometheusRule"]
    name = rule["metadata"]["name"]
    unreadable = (f"apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: {name}\n"
                  "  namespace: a\n  annotations:\n    kaito-specdec.dev/derived: \"true\"\nspec:\n  ? [a, b]\n  : c\n")
    text = _krm(WORKSPACE, unreadable)
    code, out, err = run([], text, {})
    assert code == 1 and f'derived PrometheusRule "{name}" cannot be read: ' in err and "[SD807]" in err
    # Another name: replaced without being read.
    code, out, _ = run([], _krm(WORKSPACE, unreadable.replace(name, "specdec-prometheusrule-0000000000")), {})
    assert code == 0 and "specdec-prometheusrule-0000000000" not in out.split("\nresults:\n")[0]


@pytest.mark.parametrize("raw, error", [
    ("9" * 5000, "value out of range"),   # found by the seeded fuzz on monitoring-one-namespace: int() raised
    ("-" + "1" * 20, "value out of range"),
    ("0" * 40 + "8192", None),           # leading zeros are no significant digits, as for Go's Atoi
    ("9223372036854775807", None),
    ("9223372036854775808", "value out of range"),
])
def test_atoi_error_on_very_long_numbers(raw: str, error: str | None) -> None:
    from krm_fn.domain.inference_config import atoi_error
    got = atoi_error(raw)
    assert (got is None) if error is None else (error in got)


def test_a_configmap_not_in_the_input_is_watched_only_where_kaito_reads_the_annotation() -> None:
    elsewhere = WORKSPACE + "  config: elsewhere\n"
    code, out, _ = run([], _krm(elsewhere), {})
    assert code == 0 and "kind: PrometheusRule" in out.split("\nresults:\n")[0]
    # Before v0.13.0 KAITO ignores the annotation: only the function's own output enables it, and here it
    # writes nothing.
    code, out, _ = run([], _krm(elsewhere, settings='prometheusRules: "true"\n  kaitoVersion: v0.12.0'), {})
    assert code == 0 and "kind: PrometheusRule" not in out.split("\nresults:\n")[0]


MRI = """apiVersion: kaito.sh/v1alpha1
kind: MultiRoleInference
metadata:
  name: m
  namespace: a
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
spec:
  labelSelector:
    matchLabels:
      apps: m
  model:
    name: Qwen/Qwen3.5-4B
  roles:
    - type: prefill
      replicas: 1
      instanceType: Standard_NC24ads_A100_v4
    - type: decode
      replicas: 1
      instanceType: Standard_NC24ads_A100_v4
"""
CHILD_IS = """apiVersion: kaito.sh/v1beta1
kind: InferenceSet
metadata:
  name: m-decode
  namespace: a
spec:
  template:
    metadata:
      annotations:
        kaito.sh/enable-speculative-decoding: "true"
    inference:
      preset:
        name: Qwen/Qwen3.5-4B
"""
GRANDCHILD = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: m-decode-x7k2p
  namespace: a
  labels:
    inferenceset.kaito.sh/created-by: m-decode
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
inference:
  preset:
    name: Qwen/Qwen3.5-4B
"""


@pytest.mark.parametrize("gates, watched, left_out", [
    ("", [("MultiRoleInference", "m")], False),   # the grandchild's pods are the MRI's: not left out either
    # Without the MRI controller nothing creates m-decode: the InferenceSet is a workload of its own, and its
    # pods are left out of the MultiRoleInference's.
    ("enableMultiRoleInferenceController=false", [("MultiRoleInference", "m"), ("InferenceSet", "m-decode")], True),
])
def test_a_grandchild_is_watched_as_part_of_its_top_level_workload(gates: str, watched: list, left_out: bool) -> None:
    settings = 'prometheusRules: "true"' + (f"\n  featureGates: {gates}" if gates else "")
    code, out, err = run([], _krm(MRI, CHILD_IS, GRANDCHILD, settings=settings), {})
    assert code == 0, err
    (rule,) = [i for i in yaml.safe_load(out)["items"] if i["kind"] == "PrometheusRule"]
    records = [r for r in rule["spec"]["groups"][0]["rules"] if "record" in r]
    assert [(r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"]) for r in records[::7]] == watched
    assert ('pod!~"m-decode-' in records[0]["expr"]) == left_out


def test_kaitos_example_tree_rendered_with_the_setting(tmp_path) -> None:
    """`render DIR --prometheus-rules` on KAITO's inference examples (tests/corpus): as they are (nothing
    enabled) the output is the same as without the setting; with every workload KAITO would admit enabled,
    each namespace gets one rule, every workload in it, every expression PromQL."""
    from test_corpus import CORPUS, DECIDED, _enabled
    tree = CORPUS / "inference"
    if not tree.is_dir():
        pytest.skip(f"the shared corpus is not beside this checkout ({CORPUS})")
    plain = run(["render", str(tree)], env={})
    assert plain == run(["render", "--prometheus-rules", str(tree)], env={})
    assert "PrometheusRule" not in plain.out
    paths = [p for p in DECIDED if tree in p.parents]
    assert len(paths) > 20
    expected: set[tuple[str, str, str]] = set()
    for i, path in enumerate(paths):
        docs, enabled = _enabled(path)
        expected |= {((d["metadata"].get("namespace") or ""), d["kind"], d["metadata"]["name"]) for d in enabled}
        (tmp_path / f"{i:02d}-{path.name}").write_text(
            "---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs), encoding="utf-8")
    r = run(["render", "--prometheus-rules", str(tmp_path)], env={})
    assert r.code == 0, r.err
    rules = [d for d in yaml.safe_load_all(r.out) if d and d["kind"] == "PrometheusRule"]
    namespaces = [rule["metadata"].get("namespace", "") for rule in rules]
    assert sorted(namespaces) == sorted({ns for ns, _, _ in expected})
    found = set()
    if shutil.which("promtool"):
        promtool.check_rules([rule["spec"]["groups"] for rule in rules])
    for rule in rules:
        for rec in rule["spec"]["groups"][0]["rules"]:
            if "record" in rec:
                found.add((rule["metadata"].get("namespace", ""), rec["labels"]["kaito_workload_kind"],
                           rec["labels"]["kaito_workload"]))
    assert found == expected
