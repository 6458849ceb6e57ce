"""Enable-then-disable returns the original resources (SPEC 5.2), for every fixture that changes something
(its golden output is not its input) and starts from the user's files.

Run with kaitoVersion v0.13.0 (unless the case sets its own): on v0.11-v0.12 a disabled Workspace that had
no config keeps one (krm_fn/model/rollout.py, SD421), and on every release a derived ConfigMap the Workspaces of an
InferenceSet or MultiRoleInference already have still mount is kept, marked (SD422): those are the two
exceptions, checked here as such (issue 21)."""
from __future__ import annotations

import re

import pytest
import yaml

from golden import ROOT, case_env, case_input, cases, without_results
from runner import run

ON = 'kaito.sh/enable-speculative-decoding: "true"'
OFF = 'kaito.sh/enable-speculative-decoding: "false"'
DERIVED_NAME = re.compile(r"specdec-[a-z0-9.-]*-[0-9a-f]{10}\b")
PLAIN_RECORD = "kaito-specdec.dev/speculative-config"
# Plain cases restored as objects, not bytes, and why (textedit's business; take a case out when it edits so).
PLAIN_REWRAPPED: dict[str, str] = {}
# Cases whose envelope has its old results before the items, or anchors that tie an entry to the items or
# to the old results (issue #19): the results come where they were, and aliases tied so are written out
# expanded. They are restored as data (results aside), not bytes.
ENVELOPE_REWRITTEN = {"envelope-items-aliased", "envelope-old-results-aliased", "envelope-old-results-an-alias"}
FLOW_ON, FLOW_OFF = ('"kaito.sh/enable-speculative-decoding": "true"', '"kaito.sh/enable-speculative-decoding": "false"')

# safe_load's data, read with libyaml's parser (at collection, for every fixture).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _off(text: str) -> str:
    """The opt-in turned off, in block and in flow (JSON) spelling."""
    return text.replace(ON, OFF).replace(FLOW_ON, FLOW_OFF)


def _enabled_cases() -> list[str]:
    out = []
    for case in cases():
        text = case_input(case)
        # Inputs that already hold or name derived ConfigMaps start from an earlier run, not from the
        # user's files.
        if ON in text and "kaito-specdec.dev/derived" not in text and not DERIVED_NAME.search(text) \
                and PLAIN_RECORD not in text:
            out.append(case)
    return out


def _writes(case: str) -> bool:
    """What the case's golden fixture expects: exit 0 and an output that is not the input (an error case,
    validate mode or a workload left to its own config writes nothing, so there is nothing to undo)."""
    status = yaml.load((ROOT / case / "results.yaml").read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    expected = (ROOT / case / "expected.yaml").read_text(encoding="utf-8")
    # (Where the results stand before the items, all but the results is the whole text less its results.)
    body = expected.replace(_results_block(expected), "") if case in ENVELOPE_REWRITTEN else without_results(expected)
    return status["exitCode"] == 0 and body != case_input(case) \
        and ("kaito-specdec.dev/derived" in body or PLAIN_RECORD in body)


def _results_block(text: str) -> str:
    """The `results:` block of a ResourceList at column 0, wherever it stands."""
    m = re.search(r"(?m)^results:\n(?:[ -].*\n)*", text)
    return m.group() if m else ""


# The cases with something to undo; the run below asserts that it writes, so none of them passes unchecked.
REVERSED = [case for case in _enabled_cases() if _writes(case)]


@pytest.mark.parametrize("case", REVERSED)
def test_enable_then_disable_restores_input(case: str) -> None:
    text = case_input(case)
    env = {"KAITO_SPECDEC_KAITO_VERSION": "v0.13.0", **case_env(case)}
    first = run([], text, env)
    out = first.out
    assert first.code == 0, first.err
    assert without_results(out) != text
    if case.startswith("plain-") or "kaito-specdec.dev/derived" not in out:
        # Plain vLLM workloads (issue #12): the injected arguments and records go again, byte for byte. (A case
        # named otherwise with plain workloads only, kept out of tests/vllm_argv.json's plain-* rows, too.)
        code2, out2, err2 = run([], _off(without_results(out)), env)
        assert code2 == 0, err2
        assert PLAIN_RECORD in out and PLAIN_RECORD not in out2
        if case in PLAIN_REWRAPPED:
            assert yaml.safe_load(without_results(out2)) == yaml.safe_load(_off(text))
        else:
            assert without_results(out2) == _off(text)
        return
    if case in ENVELOPE_REWRITTEN:
        code2, out2, err2 = run([], out.replace(ON, OFF), env)
        assert code2 == 0, err2

        def data(t: str) -> dict:
            doc = yaml.safe_load(t)
            doc.pop("results", None)
            return doc
        assert data(out2) == data(text.replace(ON, OFF))
        return
    code2, out2, err2 = run([], without_results(out).replace(ON, OFF), env)
    assert code2 == 0, err2
    assert "kaito-specdec.dev/derived" in out
    if "specdec-off-" in out2:
        # An older kaitoVersion of the case's own: the disabled Workspace keeps a config without
        # speculative-config (SD421), so there is nothing more to compare.
        assert "[SD421]" in " ".join(r["tags"]["id"] for r in yaml.safe_load(out2)["results"]) or "SD421" in out2
        return
    # A MultiRoleInference's child that said otherwise than its parent is decided as KAITO rewrites it: its
    # config reference now follows the role's (as KAITO's controller would set it), so it is compared apart.
    rewritten = {r["resourceRef"]["name"] for r in first.results
                 if r["message"].startswith("differs from what MultiRoleInference")}
    kept = [i for i in yaml.safe_load(out2)["items"] if i.get("kind") == "ConfigMap"
            and "kaito-specdec.dev/derived" in ((i.get("metadata") or {}).get("annotations") or {})]
    assert all("kaito-specdec.dev/kept-for" in i["metadata"]["annotations"] for i in kept), kept
    if kept:
        names = {i["metadata"]["name"] for i in kept} | rewritten
        after = [i for i in _without_opt_in(without_results(out2)) if i["metadata"].get("name") not in names]
        assert after == [i for i in _without_opt_in(text) if i["metadata"].get("name") not in names]
        return
    if "created-by" in text or "ownerReferences" in text or rewritten:
        # Children took the parent's value, as KAITO syncs it: "false" now where they had none before.
        after, before = _without_opt_in(without_results(out2)), _without_opt_in(text)
        assert [i for i in after if i["metadata"]["name"] not in rewritten] == \
            [i for i in before if i["metadata"]["name"] not in rewritten]
        for item in (i for i in after if i["metadata"]["name"] in rewritten):
            assert "specdec" not in str(item), item  # no reference to a derived ConfigMap is left behind
    else:
        assert without_results(out2) == text.replace(ON, OFF)


def _without_opt_in(text: str) -> list:
    items = yaml.safe_load(text)["items"]
    for item in items:
        for meta in (item.get("metadata") or {}, ((item.get("spec") or {}).get("template") or {}).get("metadata")):
            ann = (meta or {}).get("annotations")
            if isinstance(ann, dict):
                ann.pop("kaito.sh/enable-speculative-decoding", None)
                if not ann:
                    del meta["annotations"]
            if meta == {} and item.get("spec", {}).get("template", {}).get("metadata") is meta:
                del item["spec"]["template"]["metadata"]
    return items


def test_some_cases_are_reversed() -> None:
    """Counts the cases that run the reversal (each asserts it), not the ones that merely enable."""
    assert len(REVERSED) >= 28, REVERSED
    assert sum(case.startswith("plain-") for case in REVERSED) >= 15, REVERSED
    assert set(PLAIN_REWRAPPED) <= set(REVERSED)
    assert ENVELOPE_REWRITTEN <= set(REVERSED)


# A file whose `args` end it without a final line break: the element and the record both go after its last
# line, and only the first of them supplies the line break (no empty line between them, none left behind).
NO_FINAL_NEWLINE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: q
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        command: ["vllm", "serve"]
        args:
        - Qwen/Qwen3.5-4B
        # between
        - --port # c1
        - "8000\""""


def test_a_file_without_a_final_newline_is_enabled_and_disabled_without_an_empty_line() -> None:
    code, on, err = run(["render", "-"], NO_FINAL_NEWLINE)
    assert code == 0, err
    assert on.endswith('''        - "8000"
        - '--speculative-config={"method":"mtp","num_speculative_tokens":1}'
    metadata:
      annotations:
        kaito-specdec.dev/speculative-config: '{"method":"mtp","num_speculative_tokens":1}'
''')
    code, off, err = run(["render", "-"], _off(on))
    assert code == 0, err
    assert off == "---\n" + _off(NO_FINAL_NEWLINE) + "\n"   # render ends every document with a line break


INFERENCESET_ON = """\
apiVersion: kaito.sh/v1beta1
kind: InferenceSet
metadata:
  name: phi-set
spec:
  replicas: 2
  labelSelector:
    matchLabels:
      apps: phi-set
  template:
    metadata:
      annotations:
        kaito.sh/enable-speculative-decoding: "true"
    resource:
      instanceType: Standard_NC24ads_A100_v4
    inference:
      preset:
        name: microsoft/Phi-4-mini-instruct
"""


@pytest.mark.parametrize("version", ["v0.12.0", "v0.13.0"])
def test_an_inferenceset_enabled_disabled_and_enabled_again_is_as_first_enabled(version: str) -> None:
    """Disabling keeps the derived ConfigMap for the InferenceSet's old Workspaces, marked `kept-for` (SD422);
    enabling again uses it again, and the mark (which tells readers to delete it) goes: the third output is
    the first, byte for byte (issue #40, class 8)."""
    from golden import wrap
    env = {"KAITO_SPECDEC_KAITO_VERSION": version}
    first = run([], wrap(INFERENCESET_ON), env)
    assert first.code == 0, first.err
    off = run([], _off(without_results(first.out)), env)
    assert off.code == 0 and "kaito-specdec.dev/kept-for: InferenceSet/phi-set" in off.out, off.out
    again = run([], without_results(off.out).replace(OFF, ON), env)
    assert again.code == 0, again.err
    assert without_results(again.out) == without_results(first.out)


def test_a_kept_derived_configmap_regenerated_and_in_use_again_loses_its_mark_once() -> None:
    """Found by the deep pass's mutations (test_invariants, seed 3, `truncate`): the enabled-again case cut after
    the mark's key, so the ConfigMap (no data left) is regenerated by materialize, which drops the mark, and
    retire then removed it a second time from the data as read: an internal error (SD065). Retire takes the mark
    off the ConfigMap as the plan leaves it."""
    text = case_input("rollout-inferenceset-enabled-again")
    cut = text[:text.index("kaito-specdec.dev/kept-for:") + len("kaito-specdec.dev/kept-for:")] + "\n"
    r = run([], cut, case_env("rollout-inferenceset-enabled-again"))
    assert r.code == 0 and "SD065" not in r.out + r.err, r.err
    (cm,) = [i for i in r.items if i.get("kind") == "ConfigMap"]
    assert "kaito-specdec.dev/kept-for" not in cm["metadata"]["annotations"]
