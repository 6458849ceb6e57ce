"""writer: an item written out whole takes its ops as patch.apply_ops applies them (JSON's meaning: a value
aliases share changes only where the op points), and writing it changes no item's data."""
from __future__ import annotations

import copy

from krm_fn.text import reader, writer
from krm_fn.text.edits import Changes

# A List whose items share an anchor: `render` writes each item out whole, aliases expanded.
LIST = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        "    labels: &l {x: z}\n    annotations: {internal.config.kubernetes.io/path: p.yaml, keep: k}\n"
        "  data: {copy: *l}\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n")
ADD_LABEL = {"op": "add", "path": "/metadata/labels/n", "value": "1"}


def test_an_op_on_an_aliased_value_changes_it_where_it_points_only():
    stream = reader.read_stream([("f.yaml", LIST.encode())])
    assert stream.shared == {0, 1}
    out = writer.write_stream(stream, Changes({0: (ADD_LABEL,)}, (), frozenset()))
    assert out == ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    x: z\n    \"n\": \"1\"\n"
                   "  annotations:\n    keep: k\ndata:\n  copy:\n    x: z\n"
                   "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels:\n    x: z\n")


def test_writing_changes_no_items_data():
    stream = reader.read_stream([("f.yaml", LIST.encode())])
    before = [copy.deepcopy(item.data()) for item in stream.items]
    writer.write_stream(stream, Changes({0: (ADD_LABEL,)}, (), frozenset()))
    assert [item.data() for item in stream.items] == before


def test_strip_data_leaves_its_argument_alone():
    data = {"kind": "A", "metadata": {"name": "a", "annotations": {"internal.config.kubernetes.io/path": "p",
                                                                    "keep": "k"}, "labels": {}}}
    kept = copy.deepcopy(data)
    assert writer.strip_data(data) == {"kind": "A", "metadata": {"name": "a", "annotations": {"keep": "k"},
                                                                 "labels": {}}}
    assert data == kept
    # No annotation left: the key goes, where it was.
    alone = {"metadata": {"annotations": {"config.kubernetes.io/index": "0"}, "name": "a"}}
    assert list(writer.strip_data(alone)["metadata"]) == ["name"] and "annotations" in alone["metadata"]
    assert writer.strip_data({"metadata": {"name": "a", "annotations": {}}}) == {"metadata": {"name": "a"}}
