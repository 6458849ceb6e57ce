"""reader: the source region each item owns, and the line views every splice relies on. Hand-written."""
from __future__ import annotations

import pytest
import yaml

from krm_fn.text import items, reader, tree, yamlio

ENVELOPE = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"

# (id, text under `items:`, exact regions of the items, their columns)
REGIONS = [
    ("block", "- kind: A\n  x: 1\n- kind: B\n", ["kind: A\n  x: 1\n", "kind: B\n"], [2, 2]),
    ("comment-at-line-end-is-the-items", "- kind: A  # a\n  x: 1  # x\n# between\n- kind: B\n",
     ["kind: A  # a\n  x: 1  # x\n", "kind: B\n"], [2, 2]),
    ("indented-dashes", "  - kind: A\n    x: 1\n  - kind: B\n", ["kind: A\n    x: 1\n", "kind: B\n"], [4, 4]),
    ("flow-items-own-their-text", "  [{kind: A}, {kind: B}]  # c\n", ["{kind: A}", "{kind: B}"], [3, 14]),
    ("crlf", "- kind: A\r\n  x: 1\r\n- kind: B\r\n", ["kind: A\r\n  x: 1\r\n", "kind: B\r\n"], [2, 2]),
    ("no-final-newline", "- kind: A\n- kind: B", ["kind: A\n", "kind: B"], [2, 2]),
    ("block-scalar-ends-at-next-line", "- kind: A\n  d: |\n    x\n\n- kind: B\n", ["kind: A\n  d: |\n    x\n\n", "kind: B\n"],
     [2, 2]),
    ("bare-cr-line-breaks", "- kind: A\r  x: 1\r- kind: B\r", ["kind: A\r  x: 1\r", "kind: B\r"], [2, 2]),
    # An explicit key with no value ends the item: libyaml marks the empty value at the next token (the next
    # item's `-`, inside its line when the dashes are indented); the region ends with the key's line.
    ("explicit-key-no-value-indented-dashes", "  - kind: A\n    d:\n      ? x\n  - kind: B\n",
     ["kind: A\n    d:\n      ? x\n", "kind: B\n"], [4, 4]),
    ("explicit-key-no-value", "- kind: A\n  ? x\n- kind: B\n", ["kind: A\n  ? x\n", "kind: B\n"], [2, 2]),
    ("explicit-key-value-on-next-line", "  - kind: A\n    ? x\n    :\n  - kind: B\n",
     ["kind: A\n    ? x\n    :\n", "kind: B\n"], [4, 4]),
    ("explicit-key-deep-no-value", "  - kind: A\n    d:\n      e:\n        ? x  # c\n\n  - kind: B\n",
     ["kind: A\n    d:\n      e:\n        ? x  # c\n", "kind: B\n"], [4, 4]),
]


@pytest.mark.parametrize("items, regions, columns", [c[1:] for c in REGIONS], ids=[c[0] for c in REGIONS])
def test_item_regions(items, regions, columns):
    rl = reader.read_resource_list((ENVELOPE + items).encode())
    assert [it.region for it in rl.items] == regions
    assert [it.column for it in rl.items] == columns
    assert [it.kind for it in rl.items] == ["A", "B"]


# (id, file text, [(region, head comments + region + tail comments)])
DOCUMENTS = [
    ("comments-before-and-after", "# top\n---\n# about a\nkind: A\n# after a\n\n---\nkind: B\n",
     [("kind: A\n", "# about a\nkind: A\n# after a\n"), ("kind: B\n", "kind: B\n")]),
    ("blank-lines-stay-behind", "\n# about a\n\nkind: A\n\n# after\n---\n\nkind: B",
     [("kind: A\n", "# about a\n\nkind: A\n\n# after\n"), ("kind: B", "kind: B")]),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in DOCUMENTS], ids=[c[0] for c in DOCUMENTS])
def test_documents_of_a_file_own_their_comments(text, expected):
    stream = reader.read_stream([("f.yaml", text.encode())])
    got = [(it.region, text[it.head:it.tail]) for it in stream.items]
    assert got == expected
    assert [(it.origin, it.origin_index) for it in stream.items] == [("f.yaml", 0), ("f.yaml", 1)]


# (id, text, position, line_start, line_end, column)
LINES = [
    ("lf", "ab\ncd\n", 4, 3, 6, 1),
    ("at-line-start", "ab\ncd\n", 3, 3, 3, 0),  # a position right after a break ends the line before it
    ("crlf", "ab\r\ncd\r\n", 5, 4, 8, 1),
    ("bare-cr", "ab\rcd\r", 4, 3, 6, 1),
    ("nel-ls-ps", "a\x85b\u2028c\u2029d", 5, 4, 6, 1),
    ("no-final-break", "ab\ncd", 4, 3, 5, 1),
]


@pytest.mark.parametrize("text, pos, start, end, column", [c[1:] for c in LINES], ids=[c[0] for c in LINES])
def test_line_views(text, pos, start, end, column):
    assert tree.line_start(text, pos) == start
    assert tree.line_end(text, pos) == end
    assert tree.column_of(text, pos) == column
    assert len(tree.searchable(text)) == len(text)


@pytest.mark.parametrize("text, newline", [("a\nb\n", "\n"), ("a\r\nb\r\n", "\r\n"), ("a\r\nb\n", "\n"),
                                           ("a\rb\r", "\r"), ("a\rb\r\n", "\n"), ("a", "\n")])
def test_newline_of(text, newline):
    assert tree.newline_of(text) == newline


# (id, text, pointer-ish path to the node, exact text up to node_end)
NODE_ENDS = [
    ("block-mapping-ends-at-last-value", "a:\n  b: 1  # c\n\nz: 2\n", ["a"], "a:\n  b: 1"),
    ("block-scalar-ends-at-next-line", "a:\n  b: |\n    x\nz: 2\n", ["a"], "a:\n  b: |\n    x\n"),
    ("alias-last-value", "x: &x 1\na:\n  b: *x  # c\n", ["a"], "x: &x 1\na:\n  b: *x"),
    ("alias-last-entry", "x: &x 1\na:\n- 1\n- *x\n", ["a"], "x: &x 1\na:\n- 1\n- *x"),
    ("flow", "a: {b: 1}  # c\n", ["a"], "a: {b: 1}"),
    ("explicit-key-no-value", "l:\n  - a:\n      ? x\n  - b\n", ["l"], "l:\n  - a:\n      ? x\n  - b"),
    ("explicit-key-no-value-last", "a:\n  ? x\n  ? y\nz: 1\n", ["a"], "a:\n  ? x\n  ? y"),
    ("explicit-key-colon-next-line", "a:\n  ? x\n  :\nz: 1\n", ["a"], "a:\n  ? x\n  :"),
]


@pytest.mark.parametrize("text, path, upto", [c[1:] for c in NODE_ENDS], ids=[c[0] for c in NODE_ENDS])
def test_node_end(text, path, upto):
    node = yamlio.compose(text)
    for key in path:
        node = tree.child(node, key)
    assert text[:tree.node_end(node, text)] == upto


def test_child_and_scalar_read_strings_only():
    node = yamlio.compose("a: x\nb: 1\nc: 'q'\nd: ~\n")
    assert [tree.scalar(tree.child(node, k)) for k in "abcde"] == ["x", None, "q", None, None]
    assert tree.is_null(tree.child(node, "d")) and not tree.is_null(tree.child(node, "a"))
    assert isinstance(tree.child(node, "a"), yaml.ScalarNode) and tree.child(node, "zz") is None


def test_items_re_exports_the_node_helpers():
    """Stages that read items keep importing them from the items module: one definition, in tree."""
    for name in ("child", "scalar", "node_end", "line_start", "line_end", "column_of", "searchable", "ends_line",
                 "newline_of"):
        assert getattr(items, name) is getattr(tree, name)
