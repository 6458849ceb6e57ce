"""Output text: the input with changed items edited in place, new items inserted, retired ones cut.

Untouched items are never re-serialised: the output is the input text with splices, so every byte the
function has no reason to change comes out as it came in.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import yaml

from . import krm
from . import pointer, yamlio
from . import tree
from . import go_scalars
from .edits import Changes
from .patch import Op, apply_ops
from .items import InputError, Item, ItemError, ResourceList, Stream
from .results import Result
from .textedit import edit_item, emit_item, indented, splice, tail_edits
from .tree import child, column_of, ends_line, line_end, line_start, newline_of, node_end, searchable


def _dash(text: str, lower: int, item_start: int) -> int:
    """Offset of the `-` that opens a block sequence entry (comments may sit between it and the item)."""
    best = -1
    pos = lower
    for line in text[lower:item_start].splitlines(True):
        content = line.split("#", 1)[0]
        idx = content.rfind("-")
        if idx >= 0:
            best = pos + idx
        pos += len(line)
    return best if best >= 0 else item_start


def _entry(data: Any, dash_col: int) -> str:
    return " " * dash_col + "- " + emit_item(data, dash_col + 2, True)


def _results_block(results: list[Result], col: int) -> list[str]:
    """The `results:` entry, in pieces that the output is joined from (never joined on their own: 100 000
    results are 20 MiB of text, and each copy of it counts against the memory bound). A few hundred results at
    a time: the emitter's graph of thousands at once is 13 bytes for each of theirs, and a string per result
    (100 000 of them, indented at once) left 90 MiB of small ones."""
    pieces = [" " * col + "results:\n"]
    for at in range(0, len(results), _RESULTS_AT_ONCE):
        chunk = yamlio.dump([r.to_krm() for r in results[at:at + _RESULTS_AT_ONCE]])
        pieces.append(indented(chunk, col) if col else chunk)
    return pieces


_RESULTS_AT_ONCE = 500


def write_resource_list(rl: ResourceList, changes: Changes, results: list[Result]) -> str:
    stale = any(k.value == "results" for k, _ in rl.root.value)  # results are output only: ours replace them
    if changes.empty and not results and not stale and not rl.root.flow_style:
        return rl.text  # a JSON (flow) ResourceList still comes out as block YAML
    kept = len(rl.items) - len(changes.removed) + len(changes.added)
    touched = set(changes.patches) | changes.removed
    tied, all_tied = _tied(rl)
    if not rl.splicable or (kept == 0 and rl.items) or (touched & rl.shared) or all_tied:
        # Cutting or re-emitting an item that shares anchors with others would leave a dangling alias.
        return _reemit(rl, changes, results)
    text = rl.text
    splices: list[Splice] = [_written_whole(rl, key, value) for key, value in tied]
    lower = rl.items_node.start_mark.index if rl.items_node is not None else 0
    added_after = changes.added_after()
    for item in rl.items:
        dash = _dash(text, lower, item.start)
        lower = item.end
        if item.index in changes.removed:
            splices.append((line_start(text, dash), item.end, ""))
        elif item.index in changes.patches:
            splices.append((item.start, item.end, edit_item(item, changes.patches[item.index],
                                                            followed=item.end == len(text))))
            item.release_node()  # one item's node at a time (Item.release_node)
        if item.index in added_after:
            dash_col = column_of(text, dash)
            at = _past_own_comments(text, item.end, dash_col)
            new = "".join(_entry(d, dash_col) for d in added_after[item.index])
            splices.append((at, at, LINE_START + new))
    if results or stale:
        splices.append(_results_splice(rl, results))
    end = len(text)
    if any(a == b == end and _writes(new) for a, b, new in splices) \
            and not any(a < b == end for a, b, _ in splices):
        # Text written after an input without a final line break: its last value must not change.
        # (the items' node holds no entries: the last item's own node when it ends the text)
        last = rl.items[-1] if rl.items and rl.items[-1].end == end else None
        splices.extend(tail_edits(text, last.node if last is not None else rl.root))
    return _apply(text, splices)


def _tied(rl: ResourceList) -> tuple[list[tuple[yaml.Node, yaml.Node]], bool]:
    """The envelope's entries an alias ties to what the output rewrites, and whether the items are tied.

    The old `results` go (ours replace them): an alias elsewhere of an anchor in them would dangle, so
    such an entry is written out whole, its aliases expanded (and then so is any entry with an alias of
    an anchor in it). The `items` list is edited in place: an alias of it elsewhere (`other: *i`, or
    `items: *o`) would name the edited list, and an item's alias of an anchor that goes would dangle;
    then the whole list is written out (`_reemit`), each entry as it was. No anchor in the text, no
    alias: nothing to look for."""
    if "&" not in rl.text:
        return [], False
    text, items = rl.text, rl.items_node
    entries: list[tuple[yaml.Node, yaml.Node, dict[int, yaml.Node], tuple[int, int]]] = []
    gone: set[int] = set()

    def defined(reached: dict[int, yaml.Node], span: tuple[int, int]) -> set[int]:
        # An alias there of an anchor elsewhere takes nothing away: only what is defined there goes.
        return {n for n, node in reached.items() if span[0] <= node.start_mark.index < span[1]}

    for key, value in rl.root.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name == "items" and value is items:
            continue
        reached = {id(n): n for part in (key, value) for n in tree.nodes(part, items)}
        span = _entry_span(text, key, value)
        if name == "results":
            gone |= defined(reached, span)
        else:
            entries.append((key, value, reached, span))
    if items is not None and (id(items) in gone or any(id(items) in e[2] for e in entries)):
        return [], True
    tied: list[tuple[yaml.Node, yaml.Node]] = []
    more = bool(gone)
    while more:
        more = False
        for key, value, reached, span in entries:
            if not any(key is k for k, _ in tied) and not gone.isdisjoint(reached):
                tied.append((key, value))
                gone |= defined(reached, span)
                more = True
    if gone and any(not gone.isdisjoint(map(id, tree.nodes(item.node)))
                    for item in rl.items if item.index in rl.shared):
        return [], True
    return sorted(tied, key=lambda kv: kv[0].start_mark.index), False


def _entry_span(text: str, key: yaml.Node, value: yaml.Node) -> tuple[int, int]:
    """Where an entry of the (block) envelope begins and ends: its key's line to its value's last line.
    A value that is an alias ends at the alias (the node it names sits at its anchor)."""
    pair = yaml.MappingNode("tag:yaml.org,2002:map", [(key, value)], key.start_mark, value.end_mark,
                            flow_style=False)
    return line_start(text, key.start_mark.index), line_end(text, node_end(pair, text))


def _written_whole(rl: ResourceList, key: yaml.Node, value: yaml.Node) -> tuple[int, int, str]:
    """The splice that writes an envelope entry out whole, its aliases expanded (see _tied)."""
    text = rl.text
    name = key.value if isinstance(key, yaml.ScalarNode) else None
    try:
        data = yamlio.dump({yamlio.construct(key): yamlio.construct(value)})
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        what = repr(name) if isinstance(name, str) else f"entry on line {key.start_mark.line + 1}"
        raise InputError(
            f"the ResourceList's {what} holds an alias of an anchor in its old results, which the output replaces, so it can only be written out whole, and it cannot be read: {' '.join(str(exc).split())}",  # noqa: E501
        ) from None
    start, end = _entry_span(text, key, value)
    return (start, end, indented(data, column_of(text, key.start_mark.index)))


def _past_own_comments(text: str, pos: int, col: int) -> int:
    """Past the comment lines right after `pos` indented deeper than `col`: they belong to what ends at
    `pos`, and a new item put before them would swallow them into its last block scalar."""
    end = scan = pos
    text = searchable(text)
    while scan < len(text):
        nl = text.find("\n", scan)
        stop = len(text) if nl < 0 else nl + 1
        line = text[scan:stop]
        body = line.lstrip(" \t")
        if body.startswith("#") and len(line) - len(body) > col:
            end = stop
        elif body.strip():
            break
        scan = stop
    return end


# A splice that must begin on a line of its own (after an input that ends without a newline, say).
LINE_START = "\x00line-start\x00"


# A splice: text from start to end replaced by new text; new text in pieces (a list) starts at a line start, as
# one that starts with LINE_START does.
Splice = tuple[int, int, "str | list[str]"]


def _writes(new: str | list[str]) -> bool:
    """Does a splice write any text?"""
    return any(new) if isinstance(new, list) else bool(new.replace(LINE_START, ""))


def _apply(text: str, splices: list[Splice]) -> str:
    """One pass over the text; at one position, what was listed first ends up first (linear, not n²)."""
    order = sorted(range(len(splices)), key=lambda i: (splices[i][0], splices[i][1], i))
    nl = newline_of(text)
    pieces, pos = [], 0
    for i in order:
        start, end, new = splices[i]
        pieces.append(text[pos:start])
        if isinstance(new, list):  # pieces: never joined on their own (_results_block)
            last = next((p for p in reversed(pieces) if p), "")
            if any(new) and last and not ends_line(last):
                pieces.append("\n")
            pieces.extend(_newlines(piece, nl) for piece in new)
            pos = max(pos, end)
            continue
        if new.startswith(LINE_START):
            new = new[len(LINE_START):]
            last = next((p for p in reversed(pieces) if p), "")
            if last and not ends_line(last):
                new = "\n" + new
        # New text follows the input's line endings (a Windows checkout keeps its CRLF).
        pieces.append(_newlines(new, nl))
        pos = max(pos, end)
    pieces.append(text[pos:])
    return "".join(pieces)


def _newlines(new: str, nl: str) -> str:
    """New text (written with "\n") in the input's line breaks; text copied from a CRLF input keeps its own."""
    if nl == "\r\n":
        return new.replace("\r\n", "\n").replace("\n", "\r\n")
    return new.replace("\n", nl) if nl != "\n" else new


def _results_splice(rl: ResourceList, results: list[Result]) -> tuple[int, int, list[str]]:
    text = rl.text
    col = column_of(text, rl.root.value[0][0].start_mark.index) if rl.root.value else 0
    block = _results_block(results, col) if results else []
    for k, v in rl.root.value:
        if k.value == "results":
            return (*_entry_span(text, k, v), block)
    at = _past_own_comments(text, line_end(text, node_end(rl.root, text)), col)
    return (at, at, block)


def _reemit(rl: ResourceList, changes: Changes, results: list[Result]) -> str:
    """Flow-style (JSON) input: the whole ResourceList through the safe emitter, as block YAML.

    What the function does not target and YAML cannot turn into data (a custom tag, a 5000-digit
    integer, a complex key) keeps its own flow text instead of failing the run."""
    out: list[str] = []
    added_after = changes.added_after()
    shared = rl.shared
    for key, value in rl.root.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name == "results":
            continue
        if name == "items" and value is rl.items_node:
            entries: list[str] = []
            for item in rl.items:
                if item.index in changes.patches:
                    entries.append(_entry(apply_ops(item.data(), changes.patches[item.index]), 0))
                elif item.index not in changes.removed:
                    entries.append(_kept(item.node, rl.text, item.start, item.end, "- ",
                                         lambda it=item: _whole(it) if it.index in shared else it.data()))
                    item.forget()  # its node and data are built again if asked for, not all kept
                entries.extend(_entry(d, 0) for d in added_after.get(item.index, []))
            out.append("items:\n" + "".join(entries) if entries else "items: []\n")
            continue
        if name is None:
            raise ValueError("a ResourceList key that is not a string")
        prefix = (yamlio.scalar_text(name) if go_scalars.ambiguous(name) else name) + ": "
        out.append(_kept(value, rl.text, value.start_mark.index, node_end(value, rl.text), prefix,
                         lambda v=value: yamlio.construct(v), name))
    if results:
        out.extend(_results_block(results, 0))
    return "".join(out)


def _whole(item: Item) -> Any:
    """The data of an item that shares anchors with others and so must be written out whole."""
    try:
        return item.data()
    except ItemError as exc:
        who = f"{item.kind or 'item'} {item.name!r}" if item.name else f"items[{item.index}]"
        raise InputError(
            f"{who} shares anchors with other items of its list, so it can only be written out whole, and it cannot be read: {exc}",  # noqa: E501
        ) from None


def _kept(node: yaml.Node, text: str, start: int, end: int, prefix: str, data: Any, key: str | None = None) -> str:
    """A node of a ResourceList written out whole as block YAML after `prefix` (`- ` at column 0, or
    `key: `); its own text when YAML gives it no data (a custom tag, a 5000-digit integer, a complex key):
    flow text with every further line indented (flow text ignores indentation), a block item's lines
    moved under its new dash, a block value's lines as they are."""
    try:
        value = data()
    except (ItemError, yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        if any(not start <= n.start_mark.index <= end for n in tree.nodes(node)):
            # Its text names an anchor elsewhere, which the output (written out whole) no longer has.
            raise InputError(
                f"the value on line {node.start_mark.line + 1} cannot be read ({' '.join(str(exc).split())}) and has an alias of an anchor outside it, so it cannot be written out as it is",  # noqa: E501
            ) from None
        lines = text[start:end].splitlines(True)
        last = "" if ends_line(lines[-1]) else "\n"
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
            if prefix == "- ":
                col = column_of(text, start)
                return "- " + lines[0] + "".join(_moved(ln, col) for ln in lines[1:]) + last
            if text[line_start(text, start):start].strip():
                return prefix + "".join(lines) + last  # an anchor or a tag on the key's line (`key: &a`)
            # A block value of a block root (beside a flow `items`): its lines as they are.
            body = text[line_start(text, start):end]
            return prefix.rstrip() + "\n" + body + ("" if ends_line(body) else "\n")
        return prefix + lines[0] + "".join("  " + ln for ln in lines[1:]) + last
    if key is not None:
        return yamlio.dump({key: value})
    return _entry(value, 0)


def _moved(line: str, col: int) -> str:
    """A further line of a block item at column `col`, for the item at column 2 (under `- `): what is
    indented at least `col` keeps its depth below the item; a less indented comment goes to column 2."""
    if line[:col].strip(" "):
        return "  " + line.lstrip(" ")
    return ("  " + line[col:]) if line.strip() else line.lstrip(" ")


# --- render: a plain stream -----------------------------------------------------------------------

def strip_ops(item: Item, planned: Sequence[Op], stripped: tuple[str, ...] = krm.RENDER_STRIPPED) -> list[Op]:
    """Remove ops for orchestrator annotations (render output goes to a cluster, not back to kpt)."""
    ann = child(child(item.node, "metadata"), "annotations")
    doomed = [k.value for k, _ in _doomed(ann, stripped)]
    every = isinstance(ann, yaml.MappingNode) and len(doomed) == len(ann.value)
    if doomed and every and not _touches_annotations(planned):
        return [{"op": "remove", "path": pointer.build(("metadata", "annotations"))}]
    return [{"op": "remove", "path": pointer.build(("metadata", "annotations", k))} for k in doomed]


def _doomed(ann: yaml.Node | None, stripped: tuple[str, ...] = krm.RENDER_STRIPPED
            ) -> list[tuple[yaml.Node, yaml.Node]]:
    """The orchestrator annotations among `ann`'s entries: every key, whatever its value (`Item.ann` skips
    values that are not strings, and a non-string orchestrator annotation must not survive either)."""
    if not isinstance(ann, yaml.MappingNode):
        return []
    return [(k, v) for k, v in ann.value if isinstance(k, yaml.ScalarNode) and k.value.startswith(stripped)]


def _touches_annotations(ops: Iterable[Op]) -> bool:
    return any(pointer.parse(op["path"])[:2] == ["metadata", "annotations"] for op in ops)


def strip_data(data: dict[str, Any], stripped: tuple[str, ...] = krm.RENDER_STRIPPED) -> dict[str, Any]:
    """The data without the annotations only an orchestrator should see (nor `annotations`, when none are
    left); `data` itself untouched: what apply_ops gives shares all it did not change with an item's data."""
    meta = data.get("metadata", {})
    ann = meta.get("annotations")
    if not isinstance(ann, dict):
        return data
    kept = {k: v for k, v in ann.items() if not k.startswith(stripped)}
    return {**data, "metadata": {k: kept if k == "annotations" else v for k, v in meta.items()
                                 if k != "annotations" or kept}}


def is_manifest(item: Item) -> bool:
    """What a cluster should get: not local config (Kptfile, a function's config), as kustomize does."""
    return item.annotation(krm.LOCAL_CONFIG_ANNOTATION) != "true" and item.kind != krm.POLICY_KIND


def write_stream(stream: Stream, changes: Changes, also_stripped: tuple[str, ...] = ()) -> str:
    """The stream with its changes; orchestrator annotations (and `also_stripped`: the origin annotations of a
    build render ran for its findings' places) left out."""
    stripped = krm.RENDER_STRIPPED + also_stripped
    docs: list[str] = []
    added_after = changes.added_after()
    for item in stream.items:
        # A derived ConfigMap goes before the first workload that needs it: KAITO's webhook refuses a
        # Workspace create (and, from v0.12, every v1beta1 InferenceSet admission) whose ConfigMap does not
        # exist yet (api/v1beta1/inference_config_validation.go), and `kubectl apply -f` applies in order.
        later = []
        for data in added_after.get(item.index, []):
            if isinstance(data, dict) and data.get("kind") == krm.CONFIGMAP_KIND:
                docs.append(yamlio.dump(strip_data(data, stripped)))
            else:
                later.append(data)
        if item.index in changes.removed or not is_manifest(item):
            pass
        elif item.index in stream.shared:
            # Its aliases point into other documents of its file: each document must stand alone.
            data = apply_ops(_whole(item), changes.patches.get(item.index, []))
            docs.append(yamlio.dump(strip_data(data, stripped)))
        else:
            text = item.source
            head = text[item.head:line_start(text, item.start)] if item.head is not None else ""
            tail = text[item.end:item.tail] if item.tail is not None else ""
            # The region starts at the item's first key; lay it out as a document at column 0. (A region of
            # one line needs no column: finding it in one-line JSON took a search back over the line.)
            region = _render_region(item, changes.patches.get(item.index, []), bool(tail), stripped)
            item.release_node()
            docs.append(head + _dedent(region, item.column if len(region.splitlines()) > 1 else 0) + tail)
        docs.extend(yamlio.dump(strip_data(data, stripped)) for data in later)
    # A stream read from CRLF (or CR) files is written with CRLF (CR) throughout, new documents included.
    styles = {newline_of(text) for text in {id(item.source): item.source for item in stream.items}.values()}
    nl = styles.pop() if len(styles) == 1 else "\n"
    # kubectl, kustomize and kpt split documents at `---` lines ending in LF: a document that ends in a bare
    # CR (or NEL, LS, PS, or nothing) would swallow the next one for them.
    lf = "\r\n" if nl == "\r\n" else "\n"
    return "".join(f"---{lf}{d}" + ("" if d.endswith("\n") else lf) for d in (_newlines(d, nl) for d in docs))


def _render_region(item: Item, patch: Sequence[Op], has_tail: bool,
                   stripped: tuple[str, ...] = krm.RENDER_STRIPPED) -> str:
    """The item's text for `render`: its changes made, orchestrator annotations gone, and its last value
    meaning the same with the line break (and the next document) written after it."""
    # (A text ending in a line break needs no tail edits: its item is not composed for them.)
    tail = [] if has_tail or item.end != len(item.source) or ends_line(item.source) \
        else tail_edits(item.source, item.node)
    if not patch:
        cuts = _strip_cuts(item, stripped)
        if cuts is not None:  # the common case: lines cut out, no parsing, no verification needed
            # A block scalar at the end that is cut out with its annotation needs no care.
            kept = [t for t in tail if not any(a <= t[0] < b for a, b, _ in cuts)]
            return splice(item.source, item.start, item.end, sorted(cuts + kept))
    ops = [*patch, *strip_ops(item, patch, stripped)]
    if not ops:
        return splice(item.source, item.start, item.end, tail)
    return edit_item(item, ops, followed=True)


def _strip_cuts(item: Item, stripped: tuple[str, ...] = krm.RENDER_STRIPPED) -> list[tuple[int, int, str]] | None:
    """The whole lines to cut for removing orchestrator annotations, or None where cutting lines is
    not exact (flow style, keys sharing a line, aliases, anchors): then a verified edit does it."""
    if not any(k.startswith(stripped) for k in item.ann_keys):
        return []  # (its keys need no node)
    meta = child(item.node, "metadata")
    ann = child(meta, "annotations")
    doomed = _doomed(ann, stripped)
    if not doomed or not isinstance(ann, yaml.MappingNode):
        return []
    if len(doomed) < len(ann.value):
        cuts = [_line_cut(item.source, k, v, ann) for k, v in doomed]
        made = [cut for cut in cuts if cut is not None]
        return made if len(made) == len(cuts) else None
    # Every annotation goes: the `annotations:` entry goes, unless it is all metadata has.
    assert isinstance(meta, yaml.MappingNode)
    if len(meta.value) < 2:
        return None
    key = next(k for k, v in meta.value if v is ann)
    cut = _line_cut(item.source, key, ann, meta)
    return None if cut is None else [cut]


def _line_cut(text: str, key: yaml.Node, value: yaml.Node, parent: yaml.MappingNode) -> tuple[int, int, str] | None:
    if parent.flow_style or value.start_mark.index < key.end_mark.index:  # flow, or an alias
        return None
    begin = line_start(text, key.start_mark.index)
    end = line_end(text, node_end(value, text))
    if text[begin:key.start_mark.index].strip() or "&" in text[key.start_mark.index:end]:
        return None
    return (begin, end, "")


def _dedent(region: str, column: int) -> str:
    if column == 0:
        return region
    pad = " " * column
    lines = region.splitlines(True)
    return lines[0] + "".join(ln[column:] if ln.startswith(pad) else ln for ln in lines[1:])
