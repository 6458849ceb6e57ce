"""JSON Patch ops as text edits on one item (SPEC 6: changed items change only what the patch changes).

Expected texts are written by hand: the edit must touch only the patched lines, keep comments and the
quoting style of a replaced scalar, and quote new strings YAML 1.1 would read as something else.
"""
from __future__ import annotations

import jsonpatch
import pytest
import yaml

from krm_fn.text import items
from krm_fn.text import reader, textedit, yamlio
from krm_fn.text.textedit import Unsupported, apply_text_edits, edit_item
from build import add, rep, rm


def item_of(text: str) -> items.Item:
    """A standalone document as an Item (region = the whole mapping, column 0)."""
    return items.make_item(0, yamlio.compose(text), text)


def edit(text: str, ops: list[dict]) -> str:
    it = item_of(text)
    return apply_text_edits(it.source, it.node, ops, it.start, it.end)


ROLES = "spec:\n  model:\n    name: m\n  roles:\n  - type: prefill\n    replicas: 1\n  - type: decode\n"

# (id, source, ops, exact expected text)
BLOCK_CASES = [
    ("replace-plain", "metadata:\n  name: a # keep\n  namespace: n\n",
     [rep("/metadata/name", "b")], "metadata:\n  name: b # keep\n  namespace: n\n"),
    ("replace-double-quoted", 'data:\n  v: "a"\n  w: x\n',
     [rep("/data/v", "b")], 'data:\n  v: "b"\n  w: x\n'),
    ("replace-single-quoted", "data:\n  v: 'a'\n  w: x\n",
     [rep("/data/v", "b")], "data:\n  v: 'b'\n  w: x\n"),
    ("replace-single-quoted-escape", "data:\n  v: 'a'\n",
     [rep("/data/v", "it's")], "data:\n  v: 'it''s'\n"),
    ("add-as-replace-of-existing", "inference:\n  config: old # why\n",
     [add("/inference/config", "new")], "inference:\n  config: new # why\n"),
    ("add-key-end-of-mapping",
     "metadata:\n  name: a\n  namespace: n\n# next\nspec:\n  x: 1\n",
     [add("/metadata/labels", {"app": "b"})],
     "metadata:\n  name: a\n  namespace: n\n  labels:\n    app: b\n# next\nspec:\n  x: 1\n"),
    ("add-scalar-key-nested",
     "inference:\n  preset:\n    name: deepseek-r1-0528\nresource:\n  count: 1\n",
     [add("/inference/config", "specdec-mtp-1")],
     "inference:\n  preset:\n    name: deepseek-r1-0528\n  config: specdec-mtp-1\nresource:\n  count: 1\n"),
    ("add-under-sequence-entry", ROLES, [add("/spec/roles/0/runtimeConfig", "cfg")],
     ROLES.replace("    replicas: 1\n", "    replicas: 1\n    runtimeConfig: cfg\n")),
    ("add-under-last-sequence-entry", ROLES, [add("/spec/roles/1/runtimeConfig", "cfg")],
     ROLES + "    runtimeConfig: cfg\n"),
    ("add-under-indented-sequence-entry",
     "spec:\n  roles:\n    - type: prefill\n      replicas: 1\n    - type: decode\n",
     [add("/spec/roles/0/runtimeConfig", "cfg")],
     "spec:\n  roles:\n    - type: prefill\n      replicas: 1\n      runtimeConfig: cfg\n    - type: decode\n"),
    ("add-missing-mapping", "metadata:\n  name: a\nspec: {}\n",
     [add("/metadata/annotations", {"kaito.sh/enable-speculative-decoding": "true"})],
     "metadata:\n  name: a\n  annotations:\n    kaito.sh/enable-speculative-decoding: \"true\"\nspec: {}\n"),
    ("remove-key", "metadata:\n  name: a\n  labels: {x: y} # gone\n  namespace: n\n",
     [rm("/metadata/labels")], "metadata:\n  name: a\n  namespace: n\n"),
    ("remove-block-valued-key", "metadata:\n  labels:\n    x: y\n    z: w\n  name: a\n",
     [rm("/metadata/labels")], "metadata:\n  name: a\n"),
    ("remove-last-key", "metadata:\n  name: a\n  annotations:\n    a: b\n",
     [rm("/metadata/annotations/a")], "metadata:\n  name: a\n  annotations: {}\n"),
    ("replace-empty-null-with-mapping", "metadata:\n  annotations:\n  name: a\n",
     [add("/metadata/annotations", {"x": "y"})], 'metadata:\n  annotations:\n    x: "y"\n  name: a\n'),
    ("replace-tilde-null-with-mapping", "metadata:\n  annotations: ~\n  name: a\n",
     [add("/metadata/annotations", {"x": "y"})], 'metadata:\n  annotations:\n    x: "y"\n  name: a\n'),
    ("replace-empty-flow-mapping", "metadata:\n  annotations: {}\n  name: a\n",
     [add("/metadata/annotations", {"x": "y"})], 'metadata:\n  annotations:\n    x: "y"\n  name: a\n'),
    ("two-ops-one-item", "metadata:\n  name: a\n  annotations:\n    k: v\ninference:\n  config: c\n",
     [add("/metadata/annotations/n", "1"), rep("/inference/config", "d")],
     'metadata:\n  name: a\n  annotations:\n    k: v\n    "n": "1"\ninference:\n  config: d\n'),  # `n`: false to go-yaml v2
    # A block scalar or a collection that becomes a scalar: the value goes, the key and the comments stay.
    ("block-scalar-replaced", "data:\n  f: |\n    a\n  g: x # kept\n", [rep("/data/f", "b")],
     "data:\n  f: b\n  g: x # kept\n"),
    # (the comment after its last leaf ends the line that is left)
    ("mapping-replaced-by-scalar", "data:\n  f:\n    a: 1 # last\n  g: x # kept\n", [rep("/data/f", "b")],
     "data:\n  f: b # last\n  g: x # kept\n"),
    ("empty-null-replaced-by-scalar", "data:\n  f:\n  g: x\n", [rep("/data/f", "on")],
     'data:\n  f: "on"\n  g: x\n'),
    ("null-with-comment-becomes-mapping", "metadata:\n  annotations: ~ # none yet\n  name: a\n",
     [add("/metadata/annotations", {"x": "y"})], 'metadata:\n  annotations: # none yet\n    x: "y"\n  name: a\n'),
    ("escaped-pointer", "metadata:\n  annotations:\n    a/b: x\n    c: d\n",
     [rm("/metadata/annotations/a~1b")], "metadata:\n  annotations:\n    c: d\n"),
]


@pytest.mark.parametrize("source, ops, expected", [c[1:] for c in BLOCK_CASES],
                         ids=[c[0] for c in BLOCK_CASES])
def test_block_edit_exact_text(source, ops, expected):
    assert edit(source, ops) == expected
    # edit_item takes the text edit (it verifies), and the result means what jsonpatch means.
    assert edit_item(item_of(source), ops) == expected
    assert yaml.safe_load(expected) == jsonpatch.apply_patch(yaml.safe_load(source), ops)


def test_edit_inside_an_indented_item_of_a_resource_list():
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a # c\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b\n")
    rl = reader.read_resource_list(text.encode())
    out = edit_item(rl.items[0], [add("/metadata/namespace", "on"), rep("/metadata/name", "z")])
    assert out == "apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: z # c\n" \
                  "      namespace: \"on\"\n"


AMBIGUOUS = ["true", "on", "010", "1.10", "null", "yes", "~", "0x1F", "1:20"]


@pytest.mark.parametrize("value", AMBIGUOUS)
def test_yaml11_ambiguous_strings_are_quoted(value):
    src = "data:\n  old: plain\n"
    cases = [
        ([rep("/data/old", value)], f'data:\n  old: "{value}"\n'),
        ([add("/data/new", value)], f'data:\n  old: plain\n  new: "{value}"\n'),
        ([add("/data/m", {"k": value})], f'data:\n  old: plain\n  m:\n    k: "{value}"\n'),
        ([add("/data/m", [value])], f'data:\n  old: plain\n  m:\n    - "{value}"\n'),
        ([add("/data/" + value.replace("~", "~0"), "x")], f'data:\n  old: plain\n  "{value}": x\n'),  # keys too
    ]
    for ops, expected in cases:
        assert edit(src, ops) == expected
        assert yaml.safe_load(expected) == jsonpatch.apply_patch(yaml.safe_load(src), ops)
    # a quoted scalar keeps its own quoting style
    assert edit("data:\n  old: 'a'\n", [rep("/data/old", value)]) == f"data:\n  old: '{value}'\n"
    assert edit('data:\n  old: "a"\n', [rep("/data/old", value)]) == f'data:\n  old: "{value}"\n'


@pytest.mark.parametrize("value, text", [("plain", "plain"), ("with space", "with space"),
                                         ("é😀", "é😀"), ("", '""'), ("a: b", "'a: b'")])
def test_unambiguous_new_strings(value, text):
    assert edit("data:\n  old: x\n", [rep("/data/old", value)]) == f"data:\n  old: {text}\n"


# Flow layouts are edited in flow syntax: the rest of the line stays as written.
FLOW_EDITS = [
    ("flow-add", "metadata: {name: a, annotations: {x: y}}\n", [add("/metadata/annotations/z", "1")],
     'metadata: {name: a, annotations: {x: y, z: "1"}}\n'),
    ("flow-add-to-empty", "metadata: {name: a, annotations: {}}  # c\n", [add("/metadata/annotations/z", "on")],
     'metadata: {name: a, annotations: {z: "on"}}  # c\n'),
    ("flow-add-mapping", "metadata: {name: a}\n", [add("/metadata/labels", {"k": "a, b"})],
     'metadata: {name: a, labels: {k: "a, b"}}\n'),
    ("flow-replace", "metadata: {name: a, namespace: n}\n", [rep("/metadata/name", "b")],
     "metadata: {name: b, namespace: n}\n"),
    ("flow-replace-quoted", "metadata: {name: 'a', namespace: n}\n", [rep("/metadata/name", "b")],
     "metadata: {name: 'b', namespace: n}\n"),
    ("flow-remove", "metadata: {name: a, labels: {x: y}}\n", [rm("/metadata/labels")],
     "metadata: {name: a}\n"),
    ("flow-remove-first", "metadata: {labels: {x: y}, name: a}\n", [rm("/metadata/labels")],
     "metadata: {name: a}\n"),
    ("flow-remove-last", "metadata: {name: a, annotations: {x: y}}\n", [rm("/metadata/annotations/x")],
     "metadata: {name: a, annotations: {}}\n"),
    ("flow-sequence-entry", "spec:\n  roles: [{type: prefill}, {type: decode}]\n",
     [add("/spec/roles/0/runtimeConfig", "cfg")],
     "spec:\n  roles: [{type: prefill, runtimeConfig: cfg}, {type: decode}]\n"),
    ("json-document", '{"metadata": {"name": "a"}, "inference": {"preset": {"name": "p"}}}\n',
     [add("/inference/config", "c")],
     '{"metadata": {"name": "a"}, "inference": {"preset": {"name": "p"}, "config": "c"}}\n'),
]


@pytest.mark.parametrize("source, ops, expected", [c[1:] for c in FLOW_EDITS], ids=[c[0] for c in FLOW_EDITS])
def test_flow_layouts_are_edited_in_flow_syntax(source, ops, expected):
    assert edit(source, ops) == expected
    assert edit_item(item_of(source), ops) == expected
    assert yaml.safe_load(expected) == jsonpatch.apply_patch(yaml.safe_load(source), ops)


# What cannot be edited as text is emitted whole, as block YAML meaning the patch result.
FLOW_CASES = [
    ("block-scalar-replaced-by-a-multi-line-string", "data:\n  f: |\n    a\n  g: x # lost on fallback\n",
     [rep("/data/f", "b\nc\n")], "data:\n  f: |\n    b\n    c\n  g: x\n"),
    ("multi-line-new-string", "data:\n  g: x\n", [add("/data/f", "a\nb\n")],
     "data:\n  g: x\n  f: |\n    a\n    b\n"),
    ("whole-document", "a: 1 # c\n", [{"op": "replace", "path": "", "value": {"b": "on"}}], 'b: "on"\n'),
    ("replace-nonempty-collection", "metadata:\n  labels:\n    a: b\n", [rep("/metadata/labels", {"c": "d"})],
     "metadata:\n  labels:\n    c: d\n"),
]


@pytest.mark.parametrize("source, ops, expected", [c[1:] for c in FLOW_CASES],
                         ids=[c[0] for c in FLOW_CASES])
def test_unsupported_layouts_fall_back_to_whole_item(source, ops, expected):
    with pytest.raises(Unsupported):
        edit(source, ops)
    out = edit_item(item_of(source), ops)
    assert out == expected
    assert yaml.safe_load(out) == jsonpatch.apply_patch(yaml.safe_load(source), ops)
    assert "{" not in out.replace("{}", "")  # block style


def test_reparse_check_rejects_a_wrong_edit(monkeypatch):
    src = "metadata:\n  name: a # keep\n"
    ops = [rep("/metadata/name", "b")]
    assert edit_item(item_of(src), ops) == "metadata:\n  name: b # keep\n"
    # Make every new value's text wrong: the text edit is still produced, but verification refuses it.
    monkeypatch.setattr(textedit, "_value_text", lambda value, indent, style=None: " wrong")
    assert edit(src, ops) == "metadata:\n  name: wrong # keep\n"
    assert edit_item(item_of(src), ops) == "metadata:\n  name: b\n"  # re-emitted whole: comment gone


def test_reparse_check_rejects_an_edit_that_breaks_yaml(monkeypatch):
    src = 'metadata:\n  name: a\n  namespace: "n"\n'
    ops = [add("/metadata/labels", {"x": "y"})]
    monkeypatch.setattr(textedit, "_block", lambda value, indent: "\n x: y\n  - broken")
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(edit(src, ops))
    # re-emitted whole: the strings `n` and `y` are booleans to go-yaml v2 written plain, so they are quoted
    assert edit_item(item_of(src), ops) == 'metadata:\n  name: a\n  namespace: "n"\n  labels:\n    x: "y"\n'


def test_fallback_keeps_the_item_column_and_trailing_newline():
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            "  - apiVersion: v1\n    kind: ConfigMap\n    data: |\n      x\n    metadata: {name: a}\n")
    rl = reader.read_resource_list(text.encode())
    out = edit_item(rl.items[0], [rep("/data", "y\n")])  # a block scalar replaced: emitted whole
    assert out == "apiVersion: v1\n    kind: ConfigMap\n    data: |\n      y\n    metadata:\n      name: a\n"


@pytest.mark.parametrize("source, ops, why", [
    ("a: 1\n", [{"op": "move", "from": "/a", "path": "/b"}], "operation"),
    ("metadata:\n  name: a\n", [rm("/metadata/missing")], "nothing to remove"),
    ("metadata:\n  name: a\n", [add("/nope/deeper/key", "x")], "parent path"),
    ("name: a\n", [rm("/name")], "emptying the item"),
    ("roles:\n- type: a\n", [rm("/roles/0/type")], "emptying a sequence entry"),
    ("metadata: [a]\n", [add("/metadata/name", "a")], "parent is not a mapping"),
    ("a: 1\n", [{"op": "replace", "path": "", "value": {}}], "whole-document"),
], ids=["move", "remove-missing", "missing-parent", "empty-item", "empty-seq-entry", "sequence-parent",
        "whole-doc"])
def test_apply_text_edits_refuses(source, ops, why):
    with pytest.raises(Unsupported, match=why):
        edit(source, ops)
