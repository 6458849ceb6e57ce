"""An item's identity (krm_fn/text/identity.py) is one record decided by one function, whatever it is read
from: the reader's walk of the events, a composed node, or the item's data (when an alias or a merge key gives
it). The walk is held to the composed node over every golden fixture's items, in both modes.
"""
from __future__ import annotations

import pytest
from golden import ROOT, case_input, cases

from krm_fn.text import reader
from krm_fn.text.identity import Identity, identity, of_data, of_node
from krm_fn.text.items import Item, Source


def _walked(text: str, envelope: bool) -> list[Item]:
    """Every item the walk makes of `text`, as the walk leaves it (before an alias or a merge key has its
    identity read from its data): each document's root (but an envelope's, which is composed, not walked) and
    the entries of its `items`."""
    source = Source(text)
    docs = [doc for base, line, piece in source.pieces() for doc in reader._walk(piece, source, base, line, envelope)]
    return [item for doc in docs for item in ([] if envelope or doc.item is None else [doc.item]) + (doc.entries or [])]


def _inputs() -> list[tuple[str, str, bool]]:
    out = []
    for case in cases():
        out.append((f"{case} (ResourceList)", case_input(case), True))
        stream = ROOT / case / ("items.yaml" if (ROOT / case / "items.yaml").exists() else "input.yaml")
        out.append((f"{case} (stream)", stream.read_text(encoding="utf-8"), False))
    return out


def _check(text: str, envelope: bool) -> int:
    checked = 0
    for item in _walked(text, envelope):
        if not item.is_mapping:
            assert item.identity == Identity(), item
            continue
        if item.derive:  # an alias or a merge key in its identity: read from its data, which has them resolved
            data = item.data()
            assert isinstance(data, dict)
            assert reader._derive([item]) is None and item.identity == of_data(data), item
            continue
        assert item.identity == of_node(item.node), item
        checked += 1
    return checked


def test_the_walk_reads_every_fixture_item_as_its_composed_node() -> None:
    checked = 0
    for name, text, envelope in _inputs():
        try:
            checked += _check(text, envelope)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
        except Exception:  # noqa: BLE001 - an input the reader refuses (a fixture of bad input) has no items
            continue
    assert checked > 500  # the fixtures' items were walked


ODD = [
    # (an item, its identity): the first odd field is the first of apiVersion, kind, metadata.name,
    # metadata.namespace, wherever it is written
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: 1\n  name: true\n",
     Identity("v1", "ConfigMap", odd=("metadata.name", "true", "a boolean"))),
    ("metadata: {name: 1e3}\nkind: 2\n", Identity(odd=("kind", "2", "a number"))),
    ("kind: Pod\nmetadata: {name: 2024-01-01, generateName: p-}\n",
     Identity(kind="Pod", generate_name=True, odd=("metadata.name", "2024-01-01", "a timestamp"))),
    ("kind: !foo Pod\napiVersion: 'v1'\nmetadata: {name: ~, namespace: !!binary aGk=, generateName: 1}\n",
     Identity("v1", "Pod", odd=("metadata.namespace", "aGk=", "binary data"))),
    ("kind: [Pod]\nmetadata: x\napiVersion: {v: 1}\n", Identity()),
    ("kind: Pod\nkind: 1\nmetadata:\n  name: a\nmetadata:\n  name: b\n", Identity(kind="Pod", name="a")),
]


@pytest.mark.parametrize(("text", "want"), ODD, ids=range(len(ODD)))
def test_the_walk_and_the_node_read_one_identity(text: str, want: Identity) -> None:
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.identity == want
    assert of_node(item.node) == want
    (entry,) = _walked("items:\n" + "".join(("- " if i == 0 else "  ") + ln + "\n"
                                            for i, ln in enumerate(text.splitlines())), False)[1:]
    assert entry.identity == want


def test_the_data_feeds_the_same_function() -> None:
    """From data, a value's text is what Python makes of it (the text as written is gone): the tags and the
    first odd field are the same."""
    data = {"kind": "Pod", "apiVersion": True, "metadata": {"name": 5, "namespace": None, "generateName": "p-"}}
    assert of_data(data) == Identity(kind="Pod", generate_name=True, odd=("apiVersion", "true", "a boolean"))
    assert of_data({"metadata": [], "kind": {"a": 1}}) == Identity()
    assert identity({"metadata.name": ("tag:yaml.org,2002:float", "1.5")}).odd == ("metadata.name", "1.5", "a number")


def test_an_alias_or_a_merge_key_in_the_identity_is_read_from_the_data() -> None:
    text = ("base: &b {kind: Pod, apiVersion: v1, metadata: {name: from-merge}}\n<<: *b\n"
            "---\nkind: &k Pod\nmetadata: {name: *k, namespace: &n 1}\nx: *n\n")
    items = reader.read_stream([("m.yaml", text.encode())]).items
    assert [i.identity for i in items] == [Identity("v1", "Pod", "from-merge"),
                                           Identity(kind="Pod", name="Pod", odd=("metadata.namespace", "1", "a number"))]
