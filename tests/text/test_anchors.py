"""Anchors and aliases shared across items: an edit never leaves an alias whose anchor went with another
item, and items nobody changes keep them as written (KRM mode and `render`)."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner import run as _run

# These tests are about what is read and how bytes come back, with "false" as the workload left alone:
# kaitoVersion v0.13.0, where a disabled Workspace keeps no config reference and no release notes are
# added (not set, the rollout output safe on every release does both: tests/test_lifecycle.py).
PINNED = {"KAITO_SPECDEC_KAITO_VERSION": "v0.13.0"}


def run(argv, stdin=b"", env=None, **kw):
    return _run(argv, stdin, {**PINNED, **(env or {})}, **kw)

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"

ANCHORED = (RL + "- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n"
            "    labels: &lbl {app: demo}\n    annotations:\n      kaito.sh/enable-speculative-decoding: \"true\"\n"
            "  inference: {preset: {name: phi-4}}\n"
            "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    labels: *lbl\n")


def test_anchors_shared_across_items_never_dangle() -> None:
    r = run([], ANCHORED)
    assert r.code == 0, r.err
    # parsing would fail with "found undefined alias" if the anchor's item were cut
    assert r.items[-1]["metadata"]["labels"] == {"app": "demo"}
    assert "*lbl" not in r.out and "&lbl" not in r.out  # the whole list re-emitted, aliases expanded


def test_anchors_shared_across_items_untouched_are_kept_as_written() -> None:
    text = ANCHORED.replace('"true"', '"false"')
    code, out, _ = run([], text)
    assert (code, out) == (0, text)


def test_render_splits_a_list_whose_items_share_anchors_into_standalone_documents(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        "    labels: &l {x: z}\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n")
    r = run(["render", str(tmp_path)])
    assert r.code == 0, r.err
    assert [d["metadata"]["labels"] for d in r.docs] == [{"x": "z"}, {"x": "z"}]


# --- anchors in the envelope (issue #19, class 3) ------------------------------------------------------------
# The output replaces the old `results` and edits `items` in place: an alias elsewhere of an anchor in them
# must neither dangle nor come to name the new list. stdout is one readable ResourceList, every entry
# meaning what it meant (an entry the function does not own keeps its value), and a second run agrees.

WS_ON = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
         "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference: {preset: {name: phi-4}}\n")
SVC = "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n"
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
ORIGINAL_WS = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "metadata": {"name": "ws", "annotations": {
    "kaito.sh/enable-speculative-decoding": "true"}}, "inference": {"preset": {"name": "phi-4"}}}

ENVELOPES = {
    # the old results anchored, aliased by another entry: that entry keeps their value
    "old-results-aliased": (HEAD + "results: &r []\nextra: *r\nitems:\n" + SVC,
                            {"extra": [], "results": None, "kinds": ["Service"]}),
    "old-results-aliased-new-results": (HEAD + "results: &r []\nextra: *r\nitems:\n" + WS_ON,
                                        {"extra": [], "results": "SD301", "kinds": ["Workspace", "ConfigMap"]}),
    # an anchor inside them, aliased before and after the items, and a chain: `more` names what `extra` defines
    "anchor-inside-old-results": (HEAD + "results:\n- message: &m old\n  severity: info\nextra: [&x a, *m]\n"
                                  "more: *x\nitems:\n" + SVC + "last: {a: *m}\n",
                                  {"extra": ["a", "old"], "more": "a", "last": {"a": "old"}, "kinds": ["Service"]}),
    # an item's alias of an anchor in the old results: the item keeps the value
    "item-aliases-old-results": (HEAD + "results:\n- message: &m old\n  severity: info\nitems:\n" + SVC
                                 + "    labels: {a: *m}\n", {"kinds": ["Service"], "label": "old"}),
    # the items anchored and aliased: the alias keeps the list as it came in
    "items-aliased": (HEAD + "items: &i\n" + WS_ON + "other: *i\n",
                      {"other": [ORIGINAL_WS], "kinds": ["Workspace", "ConfigMap"]}),
    # the items an alias of another entry: that entry keeps its value
    "items-an-alias": (HEAD + "other: &o\n" + WS_ON + "items: *o\n",
                       {"other": [ORIGINAL_WS], "kinds": ["Workspace", "ConfigMap"]}),
    # the old results an alias of an anchor before them: replaced where they are, never written twice
    "old-results-an-alias": (HEAD + "extra: &e []\nresults: *e\nitems:\n" + WS_ON,
                             {"extra": [], "results": "SD301", "kinds": ["Workspace", "ConfigMap"]}),
    # the items aliased, one of them YAML gives no data (`{[a]: b}`, a key that is a list): its own text, once in each place
    "items-aliased-unreadable-item": (HEAD + "items: &i\n" + SVC + "    annotations: {[a]: b}\n"
                                      "other: *i\nresults: []\n", {"kinds": ["Service"], "other-kinds": ["Service"]}),
}


def _root_keys(out: str) -> list[str]:
    import yaml
    return [k.value for k, _ in yaml.compose(out).value]


@pytest.mark.parametrize("text, want", ENVELOPES.values(), ids=ENVELOPES.keys())
def test_anchors_in_the_envelope_never_dangle_nor_move(text, want) -> None:
    import fuzz
    r = run([], text)
    assert r.code == 0, r.err
    # (the key that is a list, which no reading gives data, made a string for the reference reading)
    status, docs = fuzz.load_all(r.out.replace("{[a]: b}", "{a: b}"))
    assert status == "ok" and len(docs) == 1, (status, r.out)
    keys = _root_keys(r.out)
    assert len(keys) == len(set(keys)), keys  # no key twice (a second `results`)
    doc = docs[0]
    assert [i["kind"] for i in doc["items"]] == want["kinds"]
    for key in ("extra", "more", "last", "other"):
        if key in want:
            assert doc[key] == want[key], (key, r.out)
    if "results" in want:
        # (SD428, once a run: the vLLM release a KAITO workload was judged by, vllmVersion not being set)
        ids = [x["tags"]["id"] for x in doc.get("results") or [] if x["tags"]["id"] != "SD428"]
        assert ids == ([want["results"]] if want["results"] else [])
    if "label" in want:
        assert doc["items"][0]["metadata"]["labels"] == {"a": want["label"]}
    if "other-kinds" in want:
        assert [i["kind"] for i in doc["other"]] == want["other-kinds"]
    again = run([], r.out)
    assert again.code == 0, again.err
    assert fuzz.without_results(again.out) == fuzz.without_results(r.out)


def test_items_written_out_whole_keep_an_unreadable_one_as_one_item() -> None:
    """Items tied by anchors and changed are written out whole; an untouched one YAML gives no data
    (`{[a]: b}`, a key that is a list) keeps its own lines, moved under its dash: one item, not a null entry and a list.
    (`!!bool 6` and then `!!binary 'a'` were the examples: kubectl refuses both files, and the function now does
    too, SD018.)"""
    text = ANCHORED + "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: t\n    annotations: {[a]: b}\n  spec:\n"
    r = run([], text)
    assert r.code == 0, r.err
    import fuzz
    status, docs = fuzz.load_all(r.out.replace("{[a]: b}", "{a: b}"))  # (no reading gives that key data)
    assert status == "ok"
    assert [(i["kind"], i["metadata"]["name"]) for i in docs[0]["items"]] == [
        ("Workspace", "ws"), ("ConfigMap", "specdec-ngram-80815d3ebc"), ("Service", "svc"), ("Service", "t")]
    assert "    annotations: {[a]: b}\n  spec:\n" in r.out


def test_a_function_config_aliasing_the_old_results_it_cannot_read_is_its_error_alone() -> None:
    """The functionConfig is an alias of the old results and cannot be read: its error, exit 1, and no
    ResourceList (it could only be written out whole, expanded, which it cannot be): never an internal error
    nor a list with a dangling alias."""
    text = HEAD + "results: &r\n- message: old\n  x: !!bool 6\nfunctionConfig: *r\nitems:\n" + SVC
    r = run([], text)
    assert (r.code, r.out) == (2, "")
    assert "invalid functionConfig" in r.err and "[SD032]" in r.err and "internal error" not in r.err
