"""A PrometheusRule too big for one object (issue 39): split into parts by the bits of the sha256 of its workloads'
names (krm_fn/domain/monitoring.py, prometheus_rules), none of them past 256 KiB as written, the same workloads
always in the same parts, a workload added or dropped changing only its own part; the stage keeps, adds and
retires parts, and a second run over its output changes nothing. The 2 000-workload runs are deep."""
from __future__ import annotations

import json

import pytest
import yaml

from golden import wrap
from krm_fn.domain.monitoring import (MAX_OBJECT_BYTES, RULE_BUDGET, Monitored, part_bits, prometheus_rule,
                                      prometheus_rules, serialized_bytes)
from krm_fn.text import yamlio
from runner import run

NS = "inference-platform-prod"
KIND_NAMES = [("Workspace", "workspace-qwen3-coder-team-service-{:04d}"),
              ("InferenceSet", "inferenceset-llama-3-1-8b-instruct-{:04d}"),
              ("Deployment", "d" * 40 + "-{:04d}"),
              ("MultiRoleInference", "mri-deepseek-v3-{:04d}")]


def _workloads(n: int, kind: str = "Workspace", name: str = "workspace-qwen3-coder-team-service-{:04d}") -> list:
    return [Monitored(kind, name.format(i)) for i in range(n)]


def _watched(rule: dict) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"])
                              for r in rule["spec"]["groups"][0]["rules"] if "record" in r))


def _written_bytes(rule: dict) -> int:
    """The object as the writer writes it (yamlio.dump, a file of kpt's or a --- document) and as JSON (the API
    server's, and `kubectl apply`'s annotation), measured here independently of serialized_bytes."""
    return max(len(yamlio.dump(rule).encode()), len(json.dumps(rule, separators=(",", ":")).encode()))


def _check_parts(parts: list[dict], workloads: list[Monitored], budget: int) -> None:
    names = [p["metadata"]["name"] for p in parts]
    groups = [p["spec"]["groups"][0]["name"] for p in parts]
    assert len(set(names)) == len(names) and len(set(groups)) == len(groups)
    seen: list[tuple[str, str]] = []
    for part in parts:
        assert _written_bytes(part) <= budget
        watched = _watched(part)
        seen += watched
        bits = part["spec"]["groups"][0]["name"].rpartition(".")[2] if len(parts) > 1 else ""
        assert all(part_bits(name).startswith(bits) for _, name in watched)
        # Every alert of a part reads its own workloads' records only.
        names_re = "|".join(name for _, name in watched)
        for alert in (r for r in part["spec"]["groups"][0]["rules"] if "alert" in r):
            assert f'kaito_workload=~"{names_re}"' in alert["expr"]
    assert sorted(seen) == sorted((w.kind, w.name) for w in workloads)


def test_a_rule_that_fits_is_one_object_the_whole_rule() -> None:
    ws = _workloads(20)
    (rule,) = prometheus_rules(NS, ws)
    assert rule == prometheus_rule(NS, ws) and rule["spec"]["groups"][0]["name"] == f"kaito-specdec.{NS}"


def test_a_rule_past_the_budget_is_split_and_each_part_fits() -> None:
    ws = _workloads(60)
    budget = 60 * 1024
    whole = prometheus_rule(NS, ws)
    assert _written_bytes(whole) > budget
    parts = prometheus_rules(NS, ws, budget=budget)
    assert len(parts) > 1
    _check_parts(parts, ws, budget)
    assert prometheus_rules(NS, list(ws), budget=budget) == parts   # deterministic
    for part in parts:
        assert part["spec"]["groups"][0]["name"].startswith(f"kaito-specdec.{NS}.")


def test_a_workload_added_or_dropped_changes_its_own_part_only() -> None:
    ws = _workloads(60)
    budget = 60 * 1024
    before = {p["metadata"]["name"] for p in prometheus_rules(NS, ws, budget=budget)}
    for changed in (ws + [Monitored("Workspace", "a-new-one")], ws[:17] + ws[18:]):
        after = {p["metadata"]["name"] for p in prometheus_rules(NS, changed, budget=budget)}
        # One part replaced by one (or by its two halves, or two joined into one).
        assert len(before - after) <= 2 and len(after - before) <= 2 and len(before & after) >= len(before) - 2
    # A threshold applies to every part: all of them change.
    other = {p["metadata"]["name"] for p in prometheus_rules(NS, ws, 0.5, budget=budget)}
    assert not other & before


def test_workloads_of_one_name_stay_together() -> None:
    ws = [Monitored(kind, f"model-{i:03d}") for i in range(40) for kind in ("Workspace", "Deployment")]
    for part in prometheus_rules(NS, ws, budget=40 * 1024):
        names = [name for _, name in _watched(part)]
        assert sorted(names) == sorted(name for name in set(names) for _ in range(2))


def test_one_workload_too_big_alone_is_its_own_part() -> None:
    ws = _workloads(3)
    parts = prometheus_rules(NS, ws, budget=1024)
    assert [len(_watched(p)) for p in parts] == [1, 1, 1]


def _krm(n: int, template: str) -> str:
    fc = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  prometheusRules: "true"\n'
    return wrap("\n---\n".join(template.format(i=i, ns=NS) for i in range(n)), fc)


WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: workspace-qwen3-coder-team-service-{i:04d}
  namespace: {ns}
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
inference:
  preset:
    name: phi-4
"""


def _rules(out: str) -> list[dict]:
    return [i for i in yaml.safe_load(out)["items"] if i["kind"] == "PrometheusRule"]


def test_the_stage_replaces_only_the_part_of_a_workload_dropped() -> None:
    """Parts fed back are kept; the part of a workload dropped is replaced (SD802 naming its successor), the
    others are kept as they are; and a second run changes nothing."""
    n = 120
    first = run([], _krm(n, WORKSPACE), {})
    assert first.code == 0, first.err
    parts = _rules(first.out)
    assert len(parts) > 1   # 120 Workspaces pass the budget: parts
    assert sum("[SD801]" in r["message"] for r in first.results) == len(parts)
    again = run([], first.out, {})
    assert again.out.split("\nresults:")[0] == first.out.split("\nresults:")[0]
    assert not [r for r in again.results if r["message"].endswith(("[SD801]", "[SD802]", "[SD805]"))]
    # Drop one Workspace from the output and run again.
    doc = yaml.safe_load(first.out)
    gone = "workspace-qwen3-coder-team-service-0007"
    doc["items"] = [i for i in doc["items"] if i["metadata"]["name"] != gone]
    third = run([], yaml.safe_dump(doc, sort_keys=False), {})
    after = _rules(third.out)
    (old,) = [p for p in parts if ("Workspace", gone) in _watched(p)]
    (new,) = [p for p in after if p["metadata"]["name"] not in {q["metadata"]["name"] for q in parts}] or [None]
    assert {p["metadata"]["name"] for p in parts} - {p["metadata"]["name"] for p in after} == {old["metadata"]["name"]}
    assert new is not None and new["spec"]["groups"][0]["name"] == old["spec"]["groups"][0]["name"]
    replaced = [r for r in third.results if r["message"].endswith("[SD802]")]
    assert len(replaced) == 1 and f'"{new["metadata"]["name"]}"' in replaced[0]["message"]
    assert replaced[0]["resourceRef"]["name"] == old["metadata"]["name"]


@pytest.mark.deep
@pytest.mark.parametrize("kind, name", KIND_NAMES)
def test_no_part_passes_256_kib_at_2000_workloads_in_one_namespace(kind: str, name: str) -> None:
    ws = _workloads(2000, kind, name)
    parts = prometheus_rules(NS, ws)
    _check_parts(parts, ws, RULE_BUDGET)
    assert max(serialized_bytes(p) for p in parts) <= RULE_BUDGET < MAX_OBJECT_BYTES == 256 * 1024


@pytest.mark.deep
def test_2000_workspaces_rendered_fit_and_a_second_run_changes_nothing() -> None:
    first = run([], _krm(2000, WORKSPACE), {})
    assert first.code == 0, first.err
    parts = _rules(first.out)
    _check_parts(parts, [Monitored("Workspace", f"workspace-qwen3-coder-team-service-{i:04d}") for i in range(2000)],
                 MAX_OBJECT_BYTES)
    # As written in the output, kpt's annotations included.
    for part in parts:
        assert _written_bytes(part) <= MAX_OBJECT_BYTES
    again = run([], first.out, {})
    assert again.out.split("\nresults:")[0] == first.out.split("\nresults:")[0]
