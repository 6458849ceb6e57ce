"""Bytes in, a ResourceList (or a plain stream of documents) out: parsed once, positions kept.

Every item keeps the exact region of source text it came from, so the writer can copy untouched items
verbatim and edit changed ones in place. Python data is built only on demand (`Item.data`), for the
items the function inspects. One entry each for a ResourceList and a stream (`read_resource_list`,
`read_stream`): a large input is first scanned for its shapes (fastread), which reads ordinary items'
kind, name and annotations from their text and composes the rest item by item; otherwise every item is
composed, and its facts read straight from its node.
"""
from __future__ import annotations

from collections.abc import Callable

import yaml

from .items import (InputError, Item, ResourceList, Stream, _comments_around, _compose_all, _empty, _is_envelope,
                    _refuse_duplicates, child, decode, make_item, read_text, scalar, sharing_anchors)

TYPE_CHECKING = False  # see krm_fn/__init__.py
if TYPE_CHECKING:
    from typing import Any


# The scan of shapes pays for its own import (compiling its regular expressions, about 2 ms) from about
# this much input on; below it composing every item is as quick, and a small run does without the import.
# The answer is the same either way (tests/test_fastread.py).
SCAN_FROM = 16 * 1024


def read_resource_list(data: bytes, scan_from: int | None = SCAN_FROM) -> ResourceList:
    """The ResourceList of the input, the one way it is read. For an input of at least `scan_from` bytes
    the first step is the scan of shapes (fastread.scan): it reads ordinary items from their text and
    composes, item by item, those it cannot vouch for or a stage may look into; where its assumptions do
    not hold for the input as a whole, every item is composed (`read_text`), which alone words every
    error. `scan_from=None`: every item composed (the reference the tests compare the scan with)."""
    text = decode(data)
    if scan_from is not None and len(data) >= scan_from and text.strip():
        from . import fastread
        rl = fastread.scan(text)
        if rl is not None:
            return rl
    return read_text(text)


def read_stream(sources: list[tuple[str, bytes]], scan_from: int | None = SCAN_FROM) -> Stream:
    """Documents of several files (name, bytes), in order; empty documents are skipped.

    As read_resource_list: where the sources hold at least `scan_from` bytes, each text is first scanned
    (fastread.scan_documents: the items of a text numbered from `first`, each with its document's number,
    no anchor shared between them; a List's or ResourceList's items in its place, the scanned list's
    `documents` those that are documents, its `function_config` the first envelope's), and composed
    where the scan does not read it."""
    scan: Callable[[str, int], Any] | None = None
    if scan_from is not None and sum(len(data) for _, data in sources) >= scan_from:
        from .fastread import scan_documents as scan
    items: list[Item] = []
    shared: set[int] = set()
    function_config: yaml.Node | None = None
    for name, data in sources:
        try:
            text = decode(data)
            scanned = scan(text, len(items)) if scan is not None else None
            docs = _compose_all(text) if scanned is None else []
        except InputError as exc:
            exc.source = name  # render names the file (and line) in front of the message
            raise
        if scanned is not None:
            for item in scanned:
                item.origin = name  # (its origin_index is the scanner's: a List's items share their document's)
            items.extend(scanned)
            _comments_around(text, getattr(scanned, "documents", scanned))
            if function_config is None:
                function_config = getattr(scanned, "function_config", None)
            continue
        first = len(items)
        nodes = [n for n in docs if not _empty(n)]
        documents: list[Item] = []
        for number, node in enumerate(nodes):
            members, in_flow = [node], False
            if isinstance(node, yaml.MappingNode) and _is_envelope(node):
                try:
                    _refuse_duplicates(node, scalar(child(node, "kind")) or "List")
                except InputError as exc:
                    error = InputError(f"document {number + 1}: {exc}")
                    error.source, error.line = name, exc.line
                    raise error from None
            if isinstance(node, yaml.MappingNode) and _is_envelope(node) \
                    and isinstance(child(node, "items"), yaml.SequenceNode):
                members = child(node, "items").value  # a `kind: List` (kubectl's) or a ResourceList: its items
                in_flow = bool(child(node, "items").flow_style)
                fc = child(node, "functionConfig")
                if function_config is None and isinstance(fc, yaml.MappingNode):
                    function_config = fc
            for sub in members:
                item = make_item(len(items), sub, text, in_flow)
                item.origin, item.origin_index = name, number
                items.append(item)
                if sub is node:
                    documents.append(item)
        _comments_around(text, documents)
        shared.update(sharing_anchors(text, items[first:]))
    return Stream(items=items, shared=shared, function_config=function_config)
