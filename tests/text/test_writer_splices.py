"""writer: the output is the input text with splices (edited items, new items, cut items, results).
Expected texts are written by hand; every byte the changes do not reach comes out as it came in."""
from __future__ import annotations

import pytest

from krm_fn.text import reader, writer
from krm_fn.text.results import Result, Severity

from krm_fn.text.edits import Added, Changes

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
A = "- kind: A  # a\n  metadata:\n    name: a\n"
B = "- kind: B\n  metadata:\n    name: b  # b\n"
NEW = {"kind": "C", "metadata": {"name": "c"}}
PATCH = {"op": "add", "path": "/metadata/namespace", "value": "ns"}


def changes(patches=None, added=(), removed=()) -> Changes:
    """The plan's value as the writer gets it (changes.py): ops per item, items added after one, items removed."""
    return Changes({i: tuple(ops) for i, ops in (patches or {}).items() if ops},
                   tuple(Added(after, data) for after, data in added), frozenset(removed))


# (id, input, changes, exact output)
SPLICES = [
    ("nothing-changed-is-the-input", HEAD + A + B, changes(), HEAD + A + B),
    ("patch-one-item", HEAD + A + B, changes({1: [PATCH]}), HEAD + A + B + "    namespace: ns\n"),
    ("add-after-an-item", HEAD + A + "# about b\n" + B, changes(added=[(0, NEW)]),
     HEAD + A + "- kind: C\n  metadata:\n    name: c\n# about b\n" + B),
    ("remove-an-item", HEAD + A + B, changes(removed={0}), HEAD + B),
    ("indented-entries", HEAD + "  - kind: A\n    x: 1\n", changes({0: [{"op": "add", "path": "/y", "value": 2}]},
                                                             added=[(0, NEW)]),
     HEAD + "  - kind: A\n    x: 1\n    \"y\": 2\n  - kind: C\n    metadata:\n      name: c\n"),
    ("crlf", (HEAD + A).replace("\n", "\r\n"), changes({0: [PATCH]}, added=[(0, NEW)]),
     (HEAD + A + "    namespace: ns\n- kind: C\n  metadata:\n    name: c\n").replace("\n", "\r\n")),
    ("no-final-newline", HEAD + A.rstrip("\n"), changes(added=[(0, NEW)]),
     HEAD + A + "- kind: C\n  metadata:\n    name: c\n"),
    ("block-scalar-last-without-newline", HEAD + "- kind: A\n  d: |\n    x", changes(added=[(0, NEW)]),
     HEAD + "- kind: A\n  d: |-\n    x\n- kind: C\n  metadata:\n    name: c\n"),
    ("flow-list-is-re-emitted-as-block", "{apiVersion: config.kubernetes.io/v1, kind: ResourceList, "
     "items: [{kind: A, metadata: {name: a}}]}\n", changes({0: [PATCH]}),
     "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
     "- kind: A\n  metadata:\n    name: a\n    namespace: ns\n"),
]


@pytest.mark.parametrize("text, change, expected", [c[1:] for c in SPLICES], ids=[c[0] for c in SPLICES])
def test_resource_list_splices(text, change, expected):
    rl = reader.read_resource_list(text.encode())
    assert writer.write_resource_list(rl, change, []) == expected


def test_results_replace_stale_ones_and_keep_the_indentation():
    text = HEAD + A + "results:\n- message: old\n"
    rl = reader.read_resource_list(text.encode())
    out = writer.write_resource_list(rl, changes(), [Result(Severity.INFO, "new finding")])
    assert out == HEAD + A + "results:\n- message: new finding\n  severity: info\n"


# (id, file text, changes, exact stream)
STREAMS = [
    ("comments-travel-with-their-document", "# about a\nkind: A\nmetadata:\n  name: a\n---\nkind: B\n",
     changes({0: [PATCH]}), "---\n# about a\nkind: A\nmetadata:\n  name: a\n  namespace: ns\n---\nkind: B\n"),
    ("orchestrator-annotations-cut", "kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/index: '0'\n"
     "    keep: x  # k\n", changes(), "---\nkind: A\nmetadata:\n  annotations:\n    keep: x  # k\n"),
    ("crlf-stream", "kind: A\r\n---\r\nkind: B\r\n", changes(added=[(1, NEW)]),
     "---\r\nkind: A\r\n---\r\nkind: B\r\n---\r\nkind: C\r\nmetadata:\r\n  name: c\r\n"),
    ("no-final-newline", "kind: A\nd: |\n  x", changes(added=[(0, NEW)]),
     "---\nkind: A\nd: |-\n  x\n---\nkind: C\nmetadata:\n  name: c\n"),
]


@pytest.mark.parametrize("text, change, expected", [c[1:] for c in STREAMS], ids=[c[0] for c in STREAMS])
def test_stream_documents(text, change, expected):
    stream = reader.read_stream([("f.yaml", text.encode())])
    assert writer.write_stream(stream, change) == expected
