"""textedit, one engine for two targets: JSON Patch ops on an item's region, and on a YAML document held
in a string (a ConfigMap's `inference_config.yaml`). Expected texts are written by hand.

What every row shows: only the patched lines change; comments, quoting styles, flow style, CRLF line
breaks and a missing final line break are kept; what cannot be edited in place is emitted whole,
meaning the same (the one verifier, `same`, decides).
"""
from __future__ import annotations

import pytest
import yaml

from krm_fn.text import reader, textedit, yamlio
from krm_fn.text.textedit import apply_ops, edit_document, edit_item, same
from build import add, rep, rm


# --- embedded documents ------------------------------------------------------------------------------
# (id, document text, ops, quote, exact expected text)
DOCUMENTS = [
    ("comments-kept", "# head\nvllm:  # flags\n  a: 1  # one\n# tail\n", [add("/vllm/b", "x")], None,
     "# head\nvllm:  # flags\n  a: 1  # one\n  b: x\n# tail\n"),
    ("double-quoted-kept", 'vllm:\n  a: "1"\n', [rep("/vllm/a", "2")], None, 'vllm:\n  a: "2"\n'),
    ("single-quoted-kept", "vllm:\n  a: '1'  # c\n", [rep("/vllm/a", "it's")], None, "vllm:\n  a: 'it''s'  # c\n"),
    ("plain-ambiguous-quoted", "vllm:\n  a: x\n", [rep("/vllm/a", "on")], None, 'vllm:\n  a: "on"\n'),
    ("quote-forced-on-replace", 'vllm:\n  a: "x"\n', [rep("/vllm/a", "y")], "'", "vllm:\n  a: 'y'\n"),
    ("quote-forced-on-add", "vllm:\n  a: 1\n", [add("/vllm/b", "{}")], "'", "vllm:\n  a: 1\n  b: '{}'\n"),
    ("quote-forced-in-new-mapping", "a: 1\n", [add("/vllm", {"b": "x", "c": {"d": "y"}})], "'",
     "a: 1\nvllm:\n  b: 'x'\n  c:\n    d: 'y'\n"),
    ("flow-mapping", "vllm: {a: 1}  # c\nz: 2\n", [add("/vllm/b", "x")], None, "vllm: {a: 1, b: x}  # c\nz: 2\n"),
    ("flow-mapping-quoted", "vllm: {a: 1}\n", [add("/vllm/b", "{x}")], "'", "vllm: {a: 1, b: '{x}'}\n"),
    ("crlf", "vllm:\r\n  a: 1\r\n", [add("/vllm/b", {"c": "d"})], None, "vllm:\r\n  a: 1\r\n  b:\r\n    c: d\r\n"),
    ("crlf-null-filled", "vllm:\r\nz: 2\r\n", [add("/vllm", {"b": "x"})], None, "vllm:\r\n  b: x\r\nz: 2\r\n"),
    ("no-final-newline", "vllm:\n  a: 1", [add("/vllm/b", "x")], None, "vllm:\n  a: 1\n  b: x\n"),
    ("no-final-newline-middle", "vllm:\n  a: 1\nz: 2", [add("/vllm/b", "x")], None, "vllm:\n  a: 1\n  b: x\nz: 2\n"),
    ("null-with-comment-filled", "vllm: ~  # none\nz: 2\n", [add("/vllm", {"b": "x"})], None,
     "vllm:  # none\n  b: x\nz: 2\n"),
    ("empty-flow-filled", "vllm: {}\n", [add("/vllm", {"b": "x"})], None, "vllm:\n  b: x\n"),
    ("later-documents-kept", "a: 1\n---\nb: [broken\n", [add("/c", "x")], None, "a: 1\nc: x\n---\nb: [broken\n"),
    ("byte-order-mark", "\ufeffa: é\n", [add("/b", "x")], None, "\ufeffa: é\nb: x\n"),
    ("empty-document", "# only a comment", [add("", {"a": {"b": "c"}})], None, "# only a comment\na:\n  b: c\n"),
    ("remove-key", "vllm:\n  a: 1  # one\n  b: 2  # two\n", [rm("/vllm/a")], None, "vllm:\n  b: 2  # two\n"),
    ("remove-only-key", "vllm:\n  a: 1\nz: 2\n", [rm("/vllm/a")], None, "vllm: {}\nz: 2\n"),
    ("remove-from-flow", "vllm: {a: 1, b: 2}  # c\n", [rm("/vllm/a")], None, "vllm: {b: 2}  # c\n"),
    ("replace-block-scalar", "vllm:\n  a: |\n    x\nz: 2  # c\n", [rep("/vllm/a", "y")], None,
     'vllm:\n  a: "y"\nz: 2  # c\n'),  # `y` is true to go-yaml v2
    # Emitted whole (comments go, meaning stays):
    ("flow-root-emitted", "{a: 1}  # c\n", [add("/b", "x")], None, "a: 1\nb: x\n"),
    ("shared-anchor-emitted", "v: &v\n  a: 1\nw: *v\n", [add("/v/b", "x")], None,
     "v:\n  a: 1\n  b: x\nw:\n  a: 1\n"),
    ("through-an-alias-emitted", "v: &v\n  a: 1\nw: *v  # c\n", [add("/w/b", "x")], None,
     "v:\n  a: 1\nw:\n  a: 1\n  b: x\n"),
    ("multi-line-value-emitted", "vllm:\n  a: 1  # c\n", [add("/vllm/b", "x\ny")], None,
     "vllm:\n  a: 1\n  b: |-\n    x\n    y\n"),
]


@pytest.mark.parametrize("text, ops, quote, expected", [c[1:] for c in DOCUMENTS], ids=[c[0] for c in DOCUMENTS])
def test_ops_on_an_embedded_document(text, ops, quote, expected):
    got = edit_document(text, ops, quote)
    assert got == expected
    body = got.removeprefix("\ufeff")
    assert same(yamlio.load_first(body), apply_ops(yamlio.load_first(text.removeprefix("\ufeff")), ops))


@pytest.mark.parametrize("text, ops, quote, expected",
                         [c[1:] for c in DOCUMENTS if not c[0].endswith("-emitted")],
                         ids=[c[0] for c in DOCUMENTS if not c[0].endswith("-emitted")])
def test_text_edits_verify_without_the_emitter(monkeypatch, text, ops, quote, expected):
    monkeypatch.setattr(textedit, "emit_document", lambda data: pytest.fail("emitted whole"))
    assert edit_document(text, ops, quote) == expected


# --- item regions ------------------------------------------------------------------------------------
ENVELOPE = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"

# (id, items text under `items:`, index, ops, exact expected region)
ITEMS = [
    ("comment-after-item-stays", "- kind: A  # a\n  metadata:\n    name: a  # n\n- kind: B\n", 0,
     [add("/metadata/namespace", "ns")], "kind: A  # a\n  metadata:\n    name: a  # n\n    namespace: ns\n"),
    ("indented-entries", "  - kind: A\n    metadata: {name: a}\n", 0, [add("/metadata/labels", {"x": "1"})],
     'kind: A\n    metadata: {name: a, labels: {x: "1"}}\n'),
    ("quoting-kept", "- kind: A\n  data: {k: 'v'}\n  spec:\n    a: \"q\"\n", 0,
     [rep("/data/k", "w"), rep("/spec/a", "r")], "kind: A\n  data: {k: 'w'}\n  spec:\n    a: \"r\"\n"),
    ("crlf-region", "- kind: A\r\n  spec:\r\n    a: 1\r\n", 0, [rep("/spec/a", 2)], "kind: A\r\n  spec:\r\n    a: 2\r\n"),
    ("null-filled", "- kind: A\n  metadata:\n    annotations:  # none\n    name: a\n", 0,
     [add("/metadata/annotations", {"k": "true"})],
     'kind: A\n  metadata:\n    annotations:  # none\n      k: "true"\n    name: a\n'),
    ("last-item-no-final-newline", "- kind: A\n  spec:\n    a: 1", 0, [add("/spec/b", "x")],
     "kind: A\n  spec:\n    a: 1\n    b: x\n"),
    ("emitted-whole-keeps-column", "- kind: A  # gone\n  data: |\n    x\n", 0, [rep("/data", ["a"])],
     "kind: A\n  data:\n  - a\n"),
]


@pytest.mark.parametrize("items, index, ops, expected", [c[1:] for c in ITEMS], ids=[c[0] for c in ITEMS])
def test_ops_on_an_item_region(items, index, ops, expected):
    rl = reader.read_resource_list((ENVELOPE + items).encode())
    item = rl.items[index]
    got = edit_item(item, ops)
    assert got == expected
    assert same(yamlio.load(" " * item.column + got), apply_ops(item.data(), ops))


# --- the verifier and the patch as data -------------------------------------------------------------

@pytest.mark.parametrize("a, b, equal", [
    (1, 1.0, False), (1, True, False), ({"a": [1]}, {"a": [1]}, True), (float("nan"), float("nan"), True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True), ([1, 2], [2, 1], False), ("1", 1, False), (None, None, True),
])
def test_same_tells_what_yaml_tells_apart(a, b, equal):
    assert same(a, b) is equal


def test_same_walks_shared_values_once():
    data = yaml.safe_load("a: &a [x, y]\n" + "".join(f"b{i}: &b{i} [*{'a' if i == 0 else f'b{i - 1}'}, "
                                                       f"*{'a' if i == 0 else f'b{i - 1}'}]\n" for i in range(60)))
    assert same(data, data)


def test_apply_ops_leaves_the_data_and_its_shared_values_alone():
    shared = {"a": 1}
    data = {"v": shared, "w": shared}
    out = apply_ops(data, [add("/v/b", 2)])
    assert out == {"v": {"a": 1, "b": 2}, "w": {"a": 1}}
    assert data == {"v": {"a": 1}, "w": {"a": 1}} and out["w"] is shared


def test_apply_ops_move_leaves_the_data_alone():
    data = {"a": {"b": 1}, "c": {}}
    assert apply_ops(data, [{"op": "move", "from": "/a/b", "path": "/c/b"}]) == {"a": {}, "c": {"b": 1}}
    assert data == {"a": {"b": 1}, "c": {}}


def test_positions_that_disagree_with_the_text_are_refused():
    """libyaml does not count a byte-order mark inside a text: every mark after one is off by one. An edit at
    such positions is refused before it is made."""
    from krm_fn.text.textedit import Unsupported, apply_text_edits
    text = "vllm:\n  a: 1\n"
    shifted = yamlio.compose(" " + text.replace("\n  ", "\n   "))  # the same document, one column to the right
    with pytest.raises(Unsupported, match="positions disagree"):
        apply_text_edits(text, shifted, [add("/vllm/b", "x")], 0, len(text))
    assert apply_text_edits(text, yamlio.compose(text), [add("/vllm/b", "x")], 0, len(text)) == text + "  b: x\n"
