"""Retiring derived ConfigMaps reads each item's text once, however many are retired (issue 10, failure 6:
500 orphans among 5,000 items took 35-40 s, every orphan searching every item). A counter, not a timer:
`bench/run.py --orphans 500` times it."""
from __future__ import annotations

import pytest

from krm_fn.model.config import resolve_settings
from krm_fn.plan import plan
from krm_fn.text.reader import read_resource_list
from krm_fn.text.items import Item


def _resource_list(orphans: int, others: int) -> bytes:
    out = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    for i in range(orphans):
        out.append(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: specdec-ngram-{i:010x}\n"
                   "    annotations:\n      kaito-specdec.dev/derived: \"true\"\n  data: {}\n")
    for i in range(others):
        out.append(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web-{i}\n"
                   "  spec: {replicas: 1}\n")
    # The last item mounts the first orphan, which therefore stays.
    out.append("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: uses-one\n  spec:\n    volumes:\n"
               "    - configMap: {name: specdec-ngram-0000000000}\n")
    return "".join(out).encode()


@pytest.mark.parametrize("orphans,others", [(40, 200), (80, 400)])
def test_retire_reads_each_item_once(monkeypatch: pytest.MonkeyPatch, orphans: int, others: int) -> None:
    reads = 0
    region = Item.region

    def counted(self: Item) -> str:
        nonlocal reads
        reads += 1
        return region.fget(self)

    rl = read_resource_list(_resource_list(orphans, others))
    monkeypatch.setattr(Item, "region", property(counted))
    changes, results = plan(rl.items, resolve_settings(None, {}))
    assert changes.removed == set(range(1, orphans))
    kept = [r for r in results if "kept" in r.message]
    assert len(kept) == 1 and "Pod \"uses-one\"" in kept[0].message
    # Linear: a handful of reads per item, not one per (orphan, item) pair (before: orphans x others).
    assert reads <= 3 * len(rl.items), reads


def test_name_that_is_not_one_word_is_still_found() -> None:
    """A derived ConfigMap named with characters outside DNS names (hand-made) is found as a whole word
    too, and never across the boundary of two items."""
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: 'odd name'\n"
            "    annotations:\n      kaito-specdec.dev/derived: \"true\"\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: 'x name'\n"
            "    annotations:\n      kaito-specdec.dev/derived: \"true\"\n"
            "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n  stringData: {a: not odd}\n"
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n  spec: {note: 'odd name here'}\n"
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: xx name\n")
    rl = read_resource_list(text.encode())
    changes, results = plan(rl.items, resolve_settings(None, {}))
    assert changes.removed == {1}
    assert any(r.message == "derived ConfigMap kept: Pod \"p\" mentions it at spec.note" for r in results), results
