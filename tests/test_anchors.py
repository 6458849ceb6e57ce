"""Anchors and aliases shared across items: an edit never leaves an alias whose anchor went with another
item, and items nobody changes keep them as written (KRM mode and `render`)."""
from __future__ import annotations

from pathlib import Path

from runner import run

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"

ANCHORED = (RL + "- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n"
            "    labels: &lbl {app: demo}\n    annotations:\n      kaito.sh/enable-speculative-decoding: \"true\"\n"
            "  inference: {preset: {name: phi-4}}\n"
            "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    labels: *lbl\n")


def test_anchors_shared_across_items_never_dangle(backend) -> None:
    r = run([], ANCHORED)
    assert r.code == 0, r.err
    # parsing would fail with "found undefined alias" if the anchor's item were cut
    assert r.items[-1]["metadata"]["labels"] == {"app": "demo"}
    assert "*lbl" not in r.out and "&lbl" not in r.out  # the whole list re-emitted, aliases expanded


def test_anchors_shared_across_items_untouched_are_kept_as_written(backend) -> None:
    text = ANCHORED.replace('"true"', '"false"')
    code, out, _ = run([], text)
    assert (code, out) == (0, text)


def test_render_splits_a_list_whose_items_share_anchors_into_standalone_documents(backend, tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        "    labels: &l {x: y}\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n")
    r = run(["render", str(tmp_path)])
    assert r.code == 0, r.err
    assert [d["metadata"]["labels"] for d in r.docs] == [{"x": "y"}, {"x": "y"}]
