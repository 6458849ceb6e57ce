"""The three alerts of issue 39 run by promtool (tests/promtool.py; skipped, with the reason, where it is not
installed): KaitoSpeculativeDecodingDrafterDead, …PrefixCacheInert and …AcceptanceDropped, each on the rule the
function writes for a golden case, over series named, typed and labelled as vLLM V1 exports them: the counters
`vllm:spec_decode_num_draft_tokens_total`, `…_num_accepted_tokens_total`, `…_num_drafts_total`
(vllm/v1/spec_decode/metrics.py) and `vllm:prefix_cache_queries_total`, `vllm:prefix_cache_hits_total`
(vllm/v1/metrics/loggers.py:251-265 at 0.10.2, :504-520 at 0.17.1, :661-677 at 0.34.0), labelled `model_name`
and `engine`, plus the scrape's `namespace`, `pod`, `job`, `instance`, `container` (test_promtool._labels). Each
alert fires on its fault once its window has passed and not before, and stays silent on healthy, idle and
look-alike series (pods of another workload whose names resemble the watched one's, pods of the same names in
another namespace)."""
from __future__ import annotations

import promtool
from test_promtool import ACCEPTED, DRAFT_ROUNDS, DRAFT_TOKENS, FINISHED, GENERATION, _humanize, _inputs, _rule

QUERIES, HITS = "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total"
DEAD = "KaitoSpeculativeDecodingDrafterDead"
INERT = "KaitoSpeculativeDecodingPrefixCacheInert"
DROPPED = "KaitoSpeculativeDecodingAcceptanceDropped"


def _pod(minutes: int, drafted: int = 0, accepted: int = 0, queries: int = 0, hits: int = 0,
         speculates: bool = True, per_draft: int = 5) -> dict[str, str]:
    """A vLLM pod's counters, per minute, over `minutes` (promtool's expanding notation): tokens generated are a
    token per draft round plus those accepted, a request finished a minute."""
    rounds = drafted // per_draft
    out = {GENERATION: f"0+{rounds + accepted + 1}x{minutes}", FINISHED: f"0+1x{minutes}",
           QUERIES: f"0+{queries}x{minutes}", HITS: f"0+{hits}x{minutes}"}
    if speculates:
        out |= {DRAFT_TOKENS: f"0+{drafted}x{minutes}", ACCEPTED: f"0+{accepted}x{minutes}",
                DRAFT_ROUNDS: f"0+{rounds}x{minutes}"}
    return out


def _alert(rule: dict, alertname: str, namespace: str, kind: str, name: str, value: str) -> dict:
    """The alert as Prometheus fires it: its labels, and its annotations with the templates filled in (the
    labels, and $value as `value`: humanize's or humanizePercentage's text)."""
    (alert,) = [r for g in rule["spec"]["groups"] for r in g["rules"] if r.get("alert") == alertname]
    filled = {}
    for key, text in alert["annotations"].items():
        for template, by in (("{{ $labels.kaito_workload_kind }}", kind), ("{{ $labels.namespace }}", namespace),
                             ("{{ $labels.kaito_workload }}", name), ("{{ $value | humanizePercentage }}", value),
                             ("{{ $value | humanize }}", value)):
            text = text.replace(template, by)
        filled[key] = text
    return {"exp_labels": {"severity": "warning", "namespace": namespace, "kaito_workload": name,
                           "kaito_workload_kind": kind}, "exp_annotations": filled}


def _test(rule: dict, alertname: str, series: list[dict], expected: dict[str, list[tuple[str, str, str, str]]]) -> None:
    """promtool over `series`: at each eval time exactly these alerts of `alertname` firing (namespace, kind,
    name, $value's text)."""
    tests = [{"eval_time": at, "alertname": alertname,
              "exp_alerts": [_alert(rule, alertname, *firing) for firing in sorted(want)]}
             for at, want in expected.items()]
    promtool.unit_test(rule["spec"]["groups"], [{"interval": "1m", "input_series": series, "alert_rule_test": tests}])


# --- KaitoSpeculativeDecodingDrafterDead: drafts rising, accepted below 2 % of drafted, for 10 minutes -------

def test_drafter_dead_fires_after_ten_minutes_on_a_drafter_that_is_never_accepted() -> None:
    """monitoring-kinds: the Workspace's pod drafts 600 tokens a minute and has 6 accepted (1 %) from its start:
    no alert at 10 minutes (pending since its second sample), one from 11. The InferenceSet accepts 70 %, the
    MultiRoleInference is idle (its counters flat: 0/0, no value): silent."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _pod(60, drafted=600, accepted=6)),
        ("prod", "llama-x7k2p-0", _pod(60, drafted=600, accepted=420)),
        ("prod", "qwen-decode-b2c4d-0", _pod(60)),
        ("prod", "qwen-prefill-x7k2p-0", _pod(60, queries=100, hits=50)),
    )
    firing = [("prod", "Workspace", "phi-4", "1%")]
    _test(rule, DEAD, series, {"5m": [], "10m": [], "12m": firing, "50m": firing})


def test_drafter_dead_is_silent_on_a_workload_that_stops_drafting_or_recovers() -> None:
    """monitoring-kinds: an acceptance just above 2 % is not below it; a drafter accepted 0.5 % for its first 4
    minutes that then stops drafting (no traffic: no value once its 5-minute window has passed) or recovers:
    below 2 % for less than 10 minutes, never firing."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _pod(60, drafted=600, accepted=13)),
        ("prod", "llama-x7k2p-0", {DRAFT_TOKENS: "0+600x4 2400+0x56", ACCEPTED: "0+3x4 12+0x56"}),
        ("prod", "qwen-decode-b2c4d-0", {DRAFT_TOKENS: "0+600x60", ACCEPTED: "0+3x4 312+300x55"}),
    )
    _test(rule, DEAD, series, {"12m": [], "20m": [], "50m": []})


def test_drafter_dead_counts_no_look_alike() -> None:
    """monitoring-plain-lookalikes: the enabled Deployment "phi-4" (pods `phi-4-<hash>-<5>`) accepts nothing and
    alerts as the Deployment alone; the Workspace "phi-4" (`phi-4-0`) is healthy; the StatefulSet "llama-guard"
    (not enabled, its pods look like an InferenceSet's) and another namespace's pods of the watched names accept
    nothing: no alert for them."""
    rule = _rule("monitoring-plain-lookalikes")
    series = _inputs(
        ("ai", "phi-4-0", _pod(60, drafted=600, accepted=420)),
        ("ai", "phi-4-7d9f8b6c4d-x2x4z", _pod(60, drafted=600)),
        ("ai", "llama-x7k2p-0", _pod(60, drafted=600, accepted=300)),
        ("ai", "llama-guard-0", _pod(60, drafted=600)),
        ("other", "llama-x7k2p-0", _pod(60, drafted=600)),
        ("other", "phi-4-0", _pod(60, drafted=600)),
    )
    _test(rule, DEAD, series, {"10m": [], "40m": [("ai", "Deployment", "phi-4", "0%")]})


# --- KaitoSpeculativeDecodingPrefixCacheInert: queries rising, hits flat, 30 minutes, while drafting -------

def test_prefix_cache_inert_fires_after_thirty_minutes_of_queries_without_a_hit() -> None:
    """monitoring-kinds: the Workspace drafts and looks up 8 000 prompt tokens a minute with no hit from its
    start: pending from its second sample, no alert at 30 minutes, one from 31 (240 000 tokens looked up in the
    30 minutes before). The InferenceSet hits; the MultiRoleInference's prefill side (which drafts nothing)
    looks up without hits while its decode side drafts and looks up nothing: silent."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _pod(90, drafted=600, accepted=420, queries=8000)),
        ("prod", "llama-x7k2p-0", _pod(90, drafted=600, accepted=420, queries=8000, hits=3000)),
        ("prod", "qwen-prefill-x7k2p-0", _pod(90, queries=8000, speculates=False)),
        ("prod", "qwen-decode-b2c4d-0", _pod(90, drafted=600, accepted=420)),
    )
    firing = [("prod", "Workspace", "phi-4", _humanize(240000))]
    _test(rule, INERT, series, {"10m": [], "30m": [], "32m": firing, "80m": firing})


def test_prefix_cache_inert_waits_a_window_after_the_last_hit() -> None:
    """monitoring-kinds: the Workspace's hits stop at minute 20 (a vLLM upgrade, say): its 30-minute window
    holds a hit until minute 50, then the condition must hold 30 minutes more: not at 79, from 81."""
    rule = _rule("monitoring-kinds")
    series = _inputs(("prod", "phi-4-0", {**_pod(120, drafted=600, accepted=420, queries=8000),
                                          HITS: "0+3000x20 60000+0x100"}))
    firing = [("prod", "Workspace", "phi-4", _humanize(240000))]
    _test(rule, INERT, series, {"40m": [], "79m": [], "81m": firing})


def test_prefix_cache_inert_is_silent_without_queries_drafts_or_enablement() -> None:
    """monitoring-kinds and monitoring-plain-lookalikes: a workload idle (no queries), one whose vLLM runs
    without a speculative config (no drafts: the cache's trouble is not speculation's), one that drafts
    nothing while it queries (flat drafts counter), and look-alikes: the StatefulSet "llama-guard" (not
    enabled), another namespace's pods of the watched names."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _pod(90)),
        ("prod", "llama-x7k2p-0", _pod(90, queries=8000, speculates=False)),
        ("prod", "qwen-decode-b2c4d-0", _pod(90, queries=8000)),
        ("staging", "phi-4-0", _pod(90, drafted=600, accepted=420, queries=8000)),
    )
    _test(rule, INERT, series, {"40m": [], "80m": []})
    rule = _rule("monitoring-plain-lookalikes")
    series = _inputs(
        ("ai", "phi-4-0", _pod(90, drafted=600, accepted=420, queries=8000, hits=3000)),
        ("ai", "llama-guard-0", _pod(90, drafted=600, accepted=420, queries=8000)),
        ("ai", "llama-x7k2p-0", _pod(90, drafted=600, accepted=420, queries=8000, hits=10)),
        ("other", "llama-x7k2p-0", _pod(90, drafted=600, accepted=420, queries=8000)),
    )
    _test(rule, INERT, series, {"40m": [], "80m": []})


# --- KaitoSpeculativeDecodingAcceptanceDropped: the 5-minute rate below half the 6-hour one, 30 minutes -----

HOURS = 8 * 60   # minutes of these series


def _dropping(before: int, after: int, at: int, drafted: int = 600) -> dict[str, str]:
    """A pod whose accepted tokens a minute fall from `before` to `after` after minute `at`."""
    return {DRAFT_TOKENS: f"0+{drafted}x{HOURS}",
            ACCEPTED: f"0+{before}x{at} {before * at + after}+{after}x{HOURS - at - 1}",
            DRAFT_ROUNDS: f"0+{drafted // 5}x{HOURS}"}


def test_acceptance_dropped_fires_on_a_drop_below_half_of_the_workloads_own_baseline() -> None:
    """monitoring-kinds: the Workspace accepts 70 % for three hours, then 20 %; its 6-hour baseline stays above
    40 % for two hours more. The 5-minute rate passes below half of it at 3h04m (0.24 against 0.34): pending,
    not firing at 3h30m, firing from 3h36m, at 20 %. The InferenceSet steady at 70 % and the MultiRoleInference steady at 10 % (low, and
    LowAcceptance's business, but no drop) never fire; an idle Workspace neither."""
    rule = _rule("monitoring-kinds")
    series = _inputs(
        ("prod", "phi-4-0", _dropping(420, 120, 180)),
        ("prod", "llama-x7k2p-0", _dropping(420, 420, 180)),
        ("prod", "qwen-decode-b2c4d-0", _dropping(60, 60, 180)),
        ("prod", "llama-b2c4d-0", _pod(HOURS)),
    )
    firing = [("prod", "Workspace", "phi-4", "20%")]
    _test(rule, DROPPED, series, {"2h": [], "3h20m": [], "3h30m": [], "3h36m": firing, "5h": firing})


def test_acceptance_dropped_is_silent_on_a_steady_series_and_a_dip() -> None:
    """monitoring-kinds: steady series at 2 %, 50 % and 95 %, a dip below half for 20 minutes (shorter than the
    alert's 30), and a workload that starts low and stays low: never."""
    rule = _rule("monitoring-kinds")
    dip = {DRAFT_TOKENS: f"0+600x{HOURS}", ACCEPTED: f"0+420x120 50400+60x20 51600+420x{HOURS - 140}",
           DRAFT_ROUNDS: f"0+120x{HOURS}"}
    series = _inputs(
        ("prod", "phi-4-0", _dropping(12, 12, 60)),
        ("prod", "llama-x7k2p-0", _dropping(300, 300, 60)),
        ("prod", "llama-x7k2p-1", _dropping(570, 570, 60)),
        ("prod", "qwen-decode-b2c4d-0", dip),
    )
    _test(rule, DROPPED, series, {"30m": [], "2h30m": [], "2h50m": [], "4h": [], "7h": []})


def test_acceptance_dropped_counts_no_look_alike() -> None:
    """monitoring-plain-lookalikes: the Deployment "phi-4"'s acceptance drops and it alerts alone; the Workspace
    "phi-4" beside it is steady; the StatefulSet "llama-guard" (not enabled) and another namespace's InferenceSet
    pods drop: no alert for them."""
    rule = _rule("monitoring-plain-lookalikes")
    series = _inputs(
        ("ai", "phi-4-0", _dropping(420, 420, 120)),
        ("ai", "phi-4-7d9f8b6c4d-x2x4z", _dropping(420, 60, 120)),
        ("ai", "llama-x7k2p-0", _dropping(300, 300, 120)),
        ("ai", "llama-guard-0", _dropping(420, 30, 120)),
        ("other", "llama-x7k2p-0", _dropping(420, 30, 120)),
    )
    _test(rule, DROPPED, series, {"2h30m": [], "3h": [("ai", "Deployment", "phi-4", "10%")]})
