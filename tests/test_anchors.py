"""Anchors and aliases shared across items: an edit never leaves an alias whose anchor went with another
item, and items nobody changes keep them as written (KRM mode and `render`)."""
from __future__ import annotations

from pathlib import Path

import yaml

from runner import run

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"

ANCHORED = (RL + "- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n"
            "    labels: &lbl {app: demo}\n    annotations:\n      kaito.sh/enable-speculative-decoding: \"true\"\n"
            "  inference: {preset: {name: phi-4}}\n"
            "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    labels: *lbl\n")


def test_anchors_shared_across_items_never_dangle(backend) -> None:
    code, out, err = run([], ANCHORED)
    assert code == 0, err
    doc = yaml.safe_load(out)  # would fail with "found undefined alias" if the anchor's item were cut
    assert doc["items"][-1]["metadata"]["labels"] == {"app": "demo"}
    assert "*lbl" not in out and "&lbl" not in out  # the whole list re-emitted, aliases expanded


def test_anchors_shared_across_items_untouched_are_kept_as_written(backend) -> None:
    text = ANCHORED.replace('"true"', '"false"')
    code, out, _ = run([], text)
    assert (code, out) == (0, text)


def test_render_splits_a_list_whose_items_share_anchors_into_standalone_documents(backend, tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        "    labels: &l {x: y}\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n")
    code, out, err = run(["render", str(tmp_path)])
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    assert [d["metadata"]["labels"] for d in docs] == [{"x": "y"}, {"x": "y"}]
