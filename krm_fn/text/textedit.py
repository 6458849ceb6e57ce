"""JSON Patch operations applied as small text edits: to one item's source region, or to a YAML document
held in a string (the `inference_config.yaml` inside a ConfigMap's data).

Mappings take `add`/`replace`/`remove` of keys; lists (a container's `args`/`command`) take `add` at an
index or `-`, `remove` and `replace` of an element, block and flow alike, and a script in a block scalar
is edited on the line that changes, keeping its header, indentation and chomping.

The patch is the single source of truth: applying it to the data gives the intended value, the text
edits try to produce it while leaving every other byte alone, and one verifier (`same`, after a
re-parse) checks that they did. Where an edit cannot be made safely (odd layouts, aliases), the item
or document is emitted whole instead: comments go, meaning stays.
"""

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import yaml

from . import pointer, yamlio

from . import tree

from . import go_scalars
from .patch import Op, apply_ops, same
from .items import Item
from .runs import common_ends
from .tree import column_of, ends_line, line_end, line_start, node_end, searchable


class Unsupported(Exception):
    """This edit cannot be made as a text edit; the caller falls back to emitting the item."""


class Edit(NamedTuple):
    start: int
    end: int
    text: str
    seq: int


def _find(node: yaml.Node, parts: list[str], lists: dict[int, list[int | None]] | None = None,
          ) -> tuple[yaml.Node | None, yaml.Node | None, yaml.Node | None]:
    """(parent node, key node, value node) for a pointer; value None when the last key is absent.
    `lists`: the sequences earlier ops changed (_sequence_edits), whose indexes no longer match the source."""
    parent: yaml.Node | None = None
    key_node: yaml.Node | None = None
    cur: yaml.Node | None = node
    for i, part in enumerate(parts):
        parent, key_node = cur, None
        if isinstance(cur, yaml.MappingNode):
            nxt = None
            for k, v in cur.value:
                if isinstance(k, yaml.ScalarNode) and k.value == part:
                    key_node, nxt = k, v
            if nxt is not None and key_node is not None and i < len(parts) - 1 and _is_alias(key_node, nxt):
                raise Unsupported("the path goes through an alias")  # never edit the anchored node, shared
            cur = nxt
        elif isinstance(cur, yaml.SequenceNode) and part.isascii() and part.isdigit() and int(part) < len(cur.value):
            if i < len(parts) - 1 and not _in_order(cur):
                raise Unsupported("the path goes through an alias")
            if i < len(parts) - 1 and lists and id(cur) in lists:
                raise Unsupported("a path into a list an earlier operation changed")
            cur = cur.value[int(part)]
        else:
            cur = None
        if cur is None and i < len(parts) - 1:
            raise Unsupported("parent path does not exist in the source")
    return parent, key_node, cur


def _is_block_scalar(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.style in ("|", ">")


def _quote_of(node: yaml.Node) -> str | None:
    """The quote a scalar is written in, or None."""
    return node.style if isinstance(node, yaml.ScalarNode) and node.style in ('"', "'") else None


def indented(text: str, column: int) -> str:
    """Every line of `text` that is not blank moved right by `column` spaces."""
    return "".join(" " * column + line if line.strip() else line for line in text.splitlines(True))


def _block(value: Any, indent: int) -> str:
    """A collection as block YAML, every line indented, starting on a new line."""
    return "\n" + indented(yamlio.dump(value), indent).rstrip("\n")


def _quoted_block(value: dict[str, Any], indent: int, quote: str) -> str | None:
    """A mapping of single-line strings (nested mappings too) as block lines whose strings all take the
    quoting `quote`; None for anything else."""
    lines = []
    for key, val in value.items():
        head = " " * indent + yamlio.scalar_text(key) + ":"
        if isinstance(val, dict) and val:
            nested = _quoted_block(val, indent + 2, quote)
            if nested is None:
                return None
            lines.append(head + nested)
        elif isinstance(val, str) and "\n" not in val:
            lines.append(head + " " + yamlio.scalar_text(val, quote))
        else:
            return None
    return "\n" + "\n".join(lines)


def _value_text(value: Any, indent: int, style: str | None = None) -> str:
    """Text that follows `key:` for a new value (leading space or newline included); `style` ('"', "'")
    is the quoting its strings take where a single line allows (else plain unless YAML needs quotes)."""
    if isinstance(value, (dict, list)):
        if not value:
            return " {}" if isinstance(value, dict) else " []"
        quoted = _quoted_block(value, indent, style) if style and isinstance(value, dict) else None
        if isinstance(value, list) and all(isinstance(v, str) and "\n" not in v for v in value):
            # A new `args`: its strings quoted as an element appended to an existing list would be.
            quoted = "".join("\n" + " " * indent + "- " + (yamlio.scalar_text(v, style) if style else
                                                           _element_text(v, [])) for v in value)
        return quoted if quoted is not None else _block(value, indent)
    if isinstance(value, str) and "\n" in value:
        raise Unsupported("multi-line string")
    return " " + yamlio.scalar_text(value, style)


def _key_column(text: str, mapping: yaml.MappingNode) -> int:
    return column_of(text, mapping.value[0][0].start_mark.index)


def _after_colon(text: str, key_node: yaml.Node) -> int:
    pos = text.find(":", key_node.end_mark.index)
    if pos < 0:
        raise Unsupported("no colon after key")
    return pos + 1


def _key_at(text: str, key_node: yaml.Node) -> bool:
    """The key's text is where its marks say (libyaml does not count a byte-order mark inside the text,
    and every position after one would be off)."""
    if not isinstance(key_node, yaml.ScalarNode):
        return True
    span = text[key_node.start_mark.index:key_node.end_mark.index]
    # Plain keys have the style "" (or None) in libyaml's events.
    return span == key_node.value if not key_node.style else span[:1] == key_node.style


def _is_alias(key_node: yaml.Node, value_node: yaml.Node) -> bool:
    # `key: *name` composes to the anchored node itself, whose text lives earlier in the document.
    return value_node.start_mark.index < key_node.end_mark.index


def _fill(text: str, key_node: yaml.Node, value_node: yaml.Node, new: Any, style: str | None,
          seq: int) -> list[Edit] | None:
    """`key:`, `key: ~` or `key: {}` (on the key's line) becomes a block collection: the old value goes,
    the comment after it stays on the key's line, the new entries follow on lines of their own.
    None where the layout is not that (the value on a later line, or the key not first on its line)."""
    colon = _after_colon(text, key_node)
    start, end = value_node.start_mark.index, value_node.end_mark.index
    if not _starts_line(text, key_node.start_mark.index) or _is_alias(key_node, value_node) \
            or "\n" in searchable(text)[colon:end]:
        return None
    at = line_end(text, colon)
    prefix = "" if ends_line(text[at - 1:at]) else "\n"
    lines = _value_text(new, column_of(text, key_node.start_mark.index) + 2, style).lstrip("\n") + "\n"
    return [Edit(colon, end, "", seq)] * (start < end) + [Edit(at, at, prefix + lines, seq)]


def _empty_value(node: yaml.Node) -> bool:
    """A null, or an empty flow collection (`{}`, `[]`)."""
    return tree.is_null(node) or (
        isinstance(node, yaml.CollectionNode) and not node.value and bool(node.flow_style))


def _edits_for(text: str, root: yaml.Node, op: Op, seq: int, quote: str | None,
               lists: dict[int, list[int | None]]) -> list[Edit]:
    """The text edits for one op: in a sequence, a flow mapping or a block mapping, by where its path ends."""
    kind = op["op"]
    parts = pointer.parse(op["path"])
    if not parts or parts == [""]:
        raise Unsupported("whole-document operation")
    parent, key_node, value_node = _find(root, parts, lists)
    if isinstance(parent, yaml.SequenceNode):
        return _sequence_edits(text, root, parts, parent, op, seq, lists)
    if not isinstance(parent, yaml.MappingNode):
        raise Unsupported("parent is not a mapping")
    landmarks = [key_node] + ([parent.value[0][0], parent.value[-1][0]] if parent.value else [])
    if not all(_key_at(text, k) for k in landmarks if k is not None):
        raise Unsupported("node positions disagree with the text")
    if parent.flow_style:
        return _flow_edits(text, parent, key_node, value_node, kind, parts[-1], op.get("value"), seq, quote)
    if kind in ("add", "replace") and value_node is not None:
        assert key_node is not None
        return _block_value_edits(text, parent, key_node, value_node, op["value"], quote, seq)
    if kind == "add":
        return _block_key_add(text, parent, parts[-1], op["value"], quote, seq)
    if kind == "remove":
        return _block_key_remove(text, root, parts, parent, key_node, value_node, seq)
    raise Unsupported(f"operation {kind!r}")


def _block_value_edits(text: str, parent: yaml.MappingNode, key_node: yaml.Node, value_node: yaml.Node,
                       new: Any, quote: str | None, seq: int) -> list[Edit]:
    """A key's value in a block mapping replaced (an `add` of a key that is there replaces too)."""
    if _is_alias(key_node, value_node):
        raise Unsupported("replacing an alias")
    if isinstance(new, (dict, list)) and new and _empty_value(value_node):
        filled = _fill(text, key_node, value_node, new, quote, seq)
        if filled is not None:
            return filled
    flow_scalar = isinstance(value_node, yaml.ScalarNode) and not _is_block_scalar(value_node)
    empty_flow = isinstance(value_node, yaml.CollectionNode) and _empty_value(value_node)
    nothing = flow_scalar and value_node.start_mark.index == value_node.end_mark.index  # `key:`: a null
    if nothing or (isinstance(new, (dict, list)) and ((flow_scalar and new) or empty_flow)):
        return [Edit(_after_colon(text, key_node), value_node.end_mark.index,
                     _value_text(new, _key_column(text, parent) + 2, quote), seq)]
    if flow_scalar:
        return [Edit(value_node.start_mark.index, value_node.end_mark.index,
                     _value_text(new, 0, quote or _quote_of(value_node)).lstrip(" "), seq)]
    if not isinstance(new, (dict, list)):
        # A block scalar or a collection becomes a scalar: the whole value goes, the key stays.
        start, end = _after_colon(text, key_node), node_end(value_node, text)
        tail = "\n" if ends_line(text[end - 1:end]) else ""
        return [Edit(start, end, _value_text(new, 0, quote) + tail, seq)]
    raise Unsupported("replacing a collection or block scalar")


def _block_key_add(text: str, parent: yaml.MappingNode, key: str, value: Any, quote: str | None,
                   seq: int) -> list[Edit]:
    """A new `key: value` line after the block mapping's last entry, at its keys' column."""
    if not parent.value:
        raise Unsupported("empty mapping")
    col = _key_column(text, parent)
    at = line_end(text, node_end(parent, text))
    prefix = "" if at == 0 or ends_line(text[at - 1]) else "\n"
    line = " " * col + yamlio.scalar_text(key) + ":" + _value_text(value, col + 2, quote) + "\n"
    return [Edit(at, at, prefix + line, seq)]


def _block_key_remove(text: str, root: yaml.Node, parts: list[str], parent: yaml.MappingNode,
                      key_node: yaml.Node | None, value_node: yaml.Node | None, seq: int) -> list[Edit]:
    """A key's lines cut from a block mapping; its last key leaves `{}`, not a null."""
    if value_node is None or key_node is None:
        raise Unsupported("nothing to remove")
    if len(parent.value) == 1:
        owner_parts = parts[:-1]
        if not owner_parts:
            raise Unsupported("emptying the item")
        _, owner_key, _ = _find(root, owner_parts)
        if owner_key is None:
            raise Unsupported("emptying a sequence entry")
        return [Edit(_after_colon(text, owner_key), node_end(parent, text), " {}", seq)]
    begin = line_start(text, key_node.start_mark.index)
    if text[begin:key_node.start_mark.index].strip():
        raise Unsupported("key does not start its line")
    return [Edit(begin, line_end(text, node_end(value_node, text)), "", seq)]


def _flow_text(value: Any, json_style: bool = False, quote: str | None = None) -> str:
    """A value inside a flow collection: `{k: v, …}`, `[a, …]`, scalars quoted when flow syntax needs it
    (and every string double-quoted in a JSON-styled document); `quote`: how string values are quoted."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow_text(k, json_style)}: {_flow_text(v, json_style, quote)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow_text(v, json_style, quote) for v in value) + "]"
    if isinstance(value, str) and quote and "\n" not in value:
        return yamlio.scalar_text(value, quote)
    if isinstance(value, str) and (json_style or any(c in value for c in ",[]{}#:\"'\n")
                                   or value != value.strip()):
        # JSON inside (a recorded speculative config) reads best single-quoted, as the block emitter writes it.
        simple = not json_style and '"' in value and "'" not in value and value.isprintable()
        return yamlio.scalar_text(value, "'" if simple else '"')
    return yamlio.scalar_text(value)


def _flow_edits(text: str, parent: yaml.MappingNode, key_node: yaml.Node | None, value_node: yaml.Node | None,
                kind: str, key: str, value: Any, seq: int, quote: str | None = None) -> list[Edit]:
    """Edits inside a flow mapping (`{a: 1, b: 2}`): the same operations, in flow syntax."""
    # A JSON-looking mapping gets double-quoted keys and strings, unless the caller asked for a quoting.
    json_style = quote is None and bool(parent.value) and parent.value[0][0].style == '"'
    if kind in ("add", "replace") and value_node is not None:
        if key_node is not None and _is_alias(key_node, value_node):
            raise Unsupported("replacing an alias")
        kept = None if isinstance(value, (dict, list)) else _quote_of(value_node)
        new = _flow_text(value, json_style, quote or kept)
        return [Edit(value_node.start_mark.index, node_end(value_node, text), new, seq)]
    if kind == "add":
        entry = f"{_flow_text(key, json_style)}: {_flow_text(value, json_style, quote)}"
        if not parent.value:
            close = parent.end_mark.index - 1
            if text[close] != "}":
                raise Unsupported("odd empty flow mapping")
            return [Edit(close, close, entry, seq)]
        last_key, last = parent.value[-1]
        if _is_alias(last_key, last):  # its text is elsewhere
            raise Unsupported("a flow mapping ending in an alias")
        at = node_end(last, text)
        return [Edit(at, at, ", " + entry, seq)]
    if kind == "remove" and value_node is not None and key_node is not None:
        entries = parent.value
        i = next(n for n, (k, _) in enumerate(entries) if k is key_node)
        if len(entries) == 1:
            return [Edit(parent.start_mark.index, parent.end_mark.index, "{}", seq)]
        if i == 0:
            return [Edit(key_node.start_mark.index, entries[1][0].start_mark.index, "", seq)]
        return [Edit(node_end(entries[i - 1][1], text), node_end(value_node, text), "", seq)]
    raise Unsupported(f"flow operation {kind!r}")


# --- sequences: the elements of `args`/`command` lists (plain vLLM workloads) --------------

def _in_order(seq_node: yaml.SequenceNode) -> bool:
    """Each element's text follows the one before: an alias element (`- *name`) is composed as the anchored
    node, whose marks point earlier in the document, and its text is not where the list is."""
    last = seq_node.start_mark.index
    for element in seq_node.value:
        if element.start_mark.index < last:
            return False
        last = element.end_mark.index
    return True


def _scalar_at(text: str, node: yaml.Node) -> bool:
    """A scalar's text starts where its marks say, with no anchor or tag in front (an edit that rewrites
    it would drop them), and its positions are the text's (see _key_at)."""
    if not isinstance(node, yaml.ScalarNode):
        return isinstance(node, (yaml.SequenceNode, yaml.MappingNode)) and (
            not node.flow_style or text[node.start_mark.index:node.start_mark.index + 1] in ("[", "{"))
    first = text[node.start_mark.index:node.start_mark.index + 1]
    if node.style in ('"', "'", "|", ">"):
        return first == node.style
    value: str = node.value
    if node.start_mark.index == node.end_mark.index:
        return value == ""
    return first == value[:1]


_PLAIN_UNSAFE = set("{}[],\"'#&*!|>%@`")


def _element_text(value: Any, siblings: list[yaml.Node], json_style: bool = False) -> str:
    """A new list element as one line of YAML. Strings take the quoting their neighbours share when all
    of them are quoted alike (`["vllm", "serve"]`), else plain where plain is unremarkable, else single
    quotes (`'--speculative-config={"method":"mtp"}'`: flow indicators and quotes read best inside them)."""
    if not isinstance(value, str):
        if isinstance(value, (dict, list)):
            raise Unsupported("a collection as a new list element")
        return yamlio.scalar_text(value)
    styles = {n.style for n in siblings if isinstance(n, yaml.ScalarNode) and n.tag == go_scalars.STR_TAG}
    if json_style or (len(styles) == 1 and styles <= {'"', "'"}):
        style = '"' if json_style else styles.pop()
        return _quoted(value, style)
    if "\n" not in value and not (set(value) & _PLAIN_UNSAFE) and ": " not in value:
        return yamlio.scalar_text(value)  # plain, or quoted as the emitter quotes "8000" or "on"
    return _quoted(value, "'")


def _quoted(value: str, style: str | None) -> str:
    """`value` as one line in the quoting `style` (a line break forces double quotes: `\\n`)."""
    if style == "'" and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    # PyYAML's own representer: yamlio's writes a multi-line string as a block, which is no one-liner.
    return yaml.dump(value, Dumper=yaml.SafeDumper, default_style='"', width=1 << 16,
                     allow_unicode=True).rstrip("\n")


def _dash(text: str, node: yaml.Node) -> int:
    """The offset of the `-` that introduces a block sequence element (on the element's line)."""
    at = node.start_mark.index
    while at > 0 and text[at - 1] == " ":
        at -= 1
    if at == 0 or text[at - 1] != "-":
        raise Unsupported("a sequence element not on its dash's line")
    return at - 1


def _starts_line(text: str, pos: int) -> bool:
    return text[line_start(text, pos):pos].strip(" ") == ""


def _sequence_edits(text: str, root: yaml.Node, parts: list[str], parent: yaml.SequenceNode,
                    op: Op, seq: int, lists: dict[int, list[int | None]]) -> list[Edit]:
    """Edits of one element of a block or flow sequence: `add` at an index (or `-`), `remove`, `replace`
    of a scalar (a block scalar in place, line by line)."""
    kind = op["op"]
    at, index, emptied = _source_index(parts[-1], kind, parent, lists)
    _check_sequence(text, parent)
    if kind == "add":
        if parent.flow_style:
            # An empty list takes its quoting from its key: `"args": []` is JSON, and stays JSON.
            _, owner_key, _ = _find(root, parts[:-1]) if not parent.value else (None, None, None)
            json_key = isinstance(owner_key, yaml.ScalarNode) and owner_key.style == '"'
            return _flow_sequence_add(text, parent, index, op["value"], seq, first=at == 0, json_key=json_key)
        return _block_sequence_add(text, parent, index, op["value"], seq)
    if kind == "remove":
        if parent.flow_style:
            return _flow_sequence_remove(text, parent, index, seq)
        return _block_sequence_remove(text, root, parts, parent, index, emptied, seq)
    if kind == "replace":
        return _sequence_replace(text, parent, parent.value[index], op["value"], seq)
    raise Unsupported(f"sequence operation {kind!r}")


def _source_index(part: str, kind: str, parent: yaml.SequenceNode,
                  lists: dict[int, list[int | None]]) -> tuple[int, int, bool]:
    """(the op's index, the source element it lands on or len(elements) past the last, the list left empty).

    JSON Patch indexes count the list as the earlier ops left it; `lists` maps each list changed so far
    to its elements' source indexes (None: added by an op), so that two adds in a row, or a remove then
    an add, land where JSON Patch puts them. This op is recorded there for the ops after it."""
    elements = parent.value
    if not ((part.isascii() and part.isdigit()) or (part == "-" and kind == "add")):
        raise Unsupported(f"{part!r} in a sequence: the parent is not a mapping")
    current = lists.setdefault(id(parent), list(range(len(elements))))
    if elements and not current:
        raise Unsupported("an operation on a list earlier operations emptied")  # `key: []` is written already
    at = len(current) if part == "-" else int(part)
    if at > len(current) or (kind != "add" and at == len(current)):
        raise Unsupported("no such index")  # apply_ops says which
    index = current[at] if at < len(current) else len(elements)
    if index is None:
        raise Unsupported("an element an earlier operation added or changed")
    if kind == "add":
        current.insert(at, None)
    elif kind == "remove":
        current.pop(at)
    else:
        current[at] = None  # its text is no longer the source's: a second edit would be made blind
    return at, index, not current


def _check_sequence(text: str, parent: yaml.SequenceNode) -> None:
    """Unsupported unless every element's text is where its marks say, in order."""
    elements = parent.value
    if not _in_order(parent) or not all(_scalar_at(text, e) for e in elements):
        raise Unsupported("aliases, anchors or tags in the sequence")
    if any(e.start_mark.index == e.end_mark.index for e in elements):
        raise Unsupported("an empty element (a null) in the sequence: its marks are not where its dash is")
    if parent.flow_style and text[parent.start_mark.index:parent.start_mark.index + 1] != "[":
        raise Unsupported("node positions disagree with the text")


def _flow_sequence_remove(text: str, parent: yaml.SequenceNode, index: int, seq: int) -> list[Edit]:
    """Element `index` cut from a flow list with the comma that joins it to its neighbour; `[]` for the last one."""
    elements = parent.value
    node = elements[index]
    if len(elements) == 1:
        return [Edit(parent.start_mark.index, parent.end_mark.index, "[]", seq)]
    span = ((node.start_mark.index, elements[1].start_mark.index) if index == 0 else
            (node_end(elements[index - 1], text), node_end(node, text)))
    own = text[node.start_mark.index:node.end_mark.index]  # a `#` in a quoted element is no comment
    if "#" in searchable(text)[span[0]:span[1]].replace(own, "", 1):
        raise Unsupported("a comment inside the flow sequence where an element goes")
    return [Edit(span[0], span[1], "", seq)]


def _block_sequence_remove(text: str, root: yaml.Node, parts: list[str], parent: yaml.SequenceNode, index: int,
                           emptied: bool, seq: int) -> list[Edit]:
    """Element `index`'s lines cut from a block list; `emptied`: no element is left, and the list stays,
    as `key: []` (its comments before the element go with it)."""
    elements = parent.value
    if emptied and len(elements) > 1:
        raise Unsupported("a list emptied by several operations")
    if emptied:
        _, owner_key, _ = _find(root, parts[:-1])
        if owner_key is None:
            raise Unsupported("emptying a nested sequence")
        end = node_end(parent, text)  # past the line break when a block scalar ends the list
        return [Edit(_after_colon(text, owner_key), end, " []" + "\n" * ends_line(text[end - 1:end]), seq)]
    node = elements[index]
    dash = _dash(text, node)
    if not _starts_line(text, dash):
        raise Unsupported("a sequence element that does not start its line")
    cut = line_end(text, node_end(node, text))
    if index and _comment_would_join(text, last_scalar(elements[index - 1]), cut, column_of(text, dash)):
        raise Unsupported("a comment after the element would join the block scalar before it")
    return [Edit(line_start(text, dash), cut, "", seq)]


def _comment_would_join(text: str, before: yaml.ScalarNode | None, cut: int, dash_column: int) -> bool:
    """The line at `cut` is a comment indented past the dash, and what ends the element before is a block
    scalar: with the element between them gone, the comment would read as a line of that scalar."""
    if before is None or not _is_block_scalar(before):
        return False
    view = searchable(text)
    after = view[cut:len(text) if view.find("\n", cut) < 0 else view.find("\n", cut)].rstrip("\r")
    return after.lstrip(" ")[:1] == "#" and len(after) - len(after.lstrip(" ")) > dash_column


def _sequence_replace(text: str, parent: yaml.SequenceNode, node: yaml.Node, new: Any, seq: int) -> list[Edit]:
    """A scalar element replaced: edited where its value changes when that can be done, else rewritten whole
    in its quoting where the value allows."""
    if not isinstance(node, yaml.ScalarNode) or isinstance(new, (dict, list)):
        raise Unsupported("replacing a collection in a sequence")
    if _is_block_scalar(node):
        return _block_scalar_edits(text, node, new, seq)
    try:
        return _flow_scalar_edits(text, node, new, bool(parent.flow_style), seq)
    except Unsupported:
        pass
    if not isinstance(new, str):
        written = yamlio.scalar_text(new)
    elif _quote_of(node) or "\n" in new:
        written = _quoted(new, _quote_of(node) or '"')
    else:
        written = _element_text(new, []) if parent.flow_style else yamlio.scalar_text(new)
    return [Edit(node.start_mark.index, node.end_mark.index, written, seq)]


def _block_sequence_add(text: str, parent: yaml.SequenceNode, index: int, value: Any, seq: int) -> list[Edit]:
    """A new `- value` line: before element `index`, or after the last one (and before the comment lines
    that follow it), at the column of the neighbouring dash and with its spacing."""
    elements = parent.value
    near = elements[index] if index < len(elements) else elements[-1]
    dash = _dash(text, near)
    entry = " " * column_of(text, dash) + "-" + text[dash + 1:near.start_mark.index] \
        + _element_text(value, elements) + "\n"
    if index < len(elements):
        if not _starts_line(text, dash):
            raise Unsupported("a sequence element that does not start its line")
        at = line_start(text, dash)
        return [Edit(at, at, entry, seq)]
    at = line_end(text, node_end(near, text))
    if ends_line(text[at - 1:at]):
        return [Edit(at, at, entry, seq)]
    # The last line had no line break: a block scalar ending there must mean the same with one after it.
    return [Edit(at, at, "\n" + entry, seq)] + [Edit(a, b, new, seq) for a, b, new in tail_edits(text, parent)]


def _flow_sequence_add(text: str, parent: yaml.SequenceNode, index: int, value: Any, seq: int,
                       first: bool, json_key: bool) -> list[Edit]:
    """`value` into a flow list, in flow syntax; `first`: it becomes the list's first element;
    `json_key`: the list is empty and its key double-quoted (a JSON document)."""
    elements = parent.value
    strings = [e for e in elements if isinstance(e, yaml.ScalarNode) and e.tag == go_scalars.STR_TAG]
    entry = _element_text(value, elements, json_key or (bool(strings) and all(e.style == '"' for e in strings)))
    if not elements:
        close = parent.end_mark.index - 1
        if text[close] != "]":
            raise Unsupported("odd empty flow sequence")
        return [Edit(close, close, entry if first else ", " + entry, seq)]
    if index < len(elements):
        at = elements[index].start_mark.index
        return [Edit(at, at, entry + ", ", seq)]
    at = node_end(elements[-1], text)
    return [Edit(at, at, ", " + entry, seq)]


def _diff(old: str, new: str) -> tuple[int, str, str]:
    """(offset, old run, new run): the one run of `old` that `new` replaces. Of the places an insertion or
    removal could be made alike, the leftmost within its line: right after the word it follows
    (` --speculative-config='…'` after the model, not `--speculative-config='…' ` before `2>&1`)."""
    head, tail = common_ends(old, new)
    old_mid, new_mid = old[head:len(old) - tail], new[head:len(new) - tail]
    while head > 0 and old[head - 1] != "\n" and bool(old_mid) != bool(new_mid) \
            and old[head - 1] == (old_mid or new_mid)[-1]:
        if old_mid:
            old_mid = old[head - 1] + old_mid[:-1]
        else:
            new_mid = old[head - 1] + new_mid[:-1]
        head -= 1
    return head, old_mid, new_mid


Line = tuple[str, list[int]]   # a source line's share of a scalar's value, and each character's offset (+ end)


def _line_splice(old: str, new: str, lines: list[Line]) -> tuple[int, int, str, str, int]:
    """(start, end, old run, new run, line) in the source for a change of a scalar's value from `old` to
    `new` that stays inside one of its source `lines` (in order, each the value's text between line
    breaks, folds and blank lines); Unsupported otherwise."""
    head, old_mid, new_mid = _diff(old, new)
    if "\n" in old_mid or "\n" in new_mid or "\r" in new_mid:
        raise Unsupported("a scalar edit across lines")
    cursor = 0
    for n, (content, offsets) in enumerate(lines):
        at = old.find(content, cursor)
        if at < 0 or old[cursor:at].strip(" \n"):
            raise Unsupported("a scalar whose lines do not match its value")
        if at <= head and head + len(old_mid) <= at + len(content):
            return offsets[head - at], offsets[head - at + len(old_mid)], old_mid, new_mid, n
        cursor = at + len(content)
    raise Unsupported("a scalar edit outside its lines")


def _block_scalar_edits(text: str, node: yaml.ScalarNode, new: Any, seq: int) -> list[Edit]:
    """A literal or folded block scalar (a `sh -c` script) edited where its value changes, when that is
    inside one line (what inserting or removing an argument does): header, indentation, chomping, the
    other lines and their line breaks stay as written. Anything else is Unsupported."""
    if not isinstance(new, str):
        raise Unsupported("a block scalar replaced by a non-string")
    start = node.start_mark.index
    header_end = line_end(text, start)
    view = searchable(text)
    header = view[start:header_end].split("#", 1)[0].strip()
    indent = _explicit_indent(view, header_end, node) if any(c.isdigit() for c in header) else None
    lines: list[Line] = []
    pos, end = header_end, node.end_mark.index
    while pos < end:
        nl = view.find("\n", pos, end)
        stop = end if nl < 0 else nl
        line = view[pos:stop].rstrip("\r")
        if line.strip(" "):
            if indent is None:
                indent = len(line) - len(line.lstrip(" "))
            elif len(line) - len(line.lstrip(" ")) < indent:
                break  # past the scalar (a comment line the marks took in)
        if indent is not None and len(line) > indent:
            content = line[indent:]
            lines.append((content, list(range(pos + indent, pos + indent + len(content) + 1))))
        pos = stop + 1
    a, b, old_mid, new_mid, _ = _line_splice(node.value, new, lines)
    if text[a:b] != old_mid:
        raise Unsupported("a block scalar whose lines do not match its value")
    return [Edit(a, b, new_mid, seq)]


def _explicit_indent(view: str, header_end: int, node: yaml.ScalarNode) -> int:
    """The content indentation of a block scalar with an indentation indicator (`|2-`, whose first line may be
    indented further than the others): where its first line that is not blank puts the value's first such line.
    The edit checks every line against the value after, and the whole item is verified by re-parsing."""
    first = next((ln for ln in node.value.split("\n") if ln.strip(" ")), None)
    pos, end = header_end, node.end_mark.index
    while first is not None and pos < end:
        nl = view.find("\n", pos, end)
        line = view[pos:end if nl < 0 else nl].rstrip("\r")
        if line.strip(" "):
            if line.endswith(first) and not line[:len(line) - len(first)].strip(" "):
                return len(line) - len(first)
            break
        pos = (end if nl < 0 else nl) + 1
    raise Unsupported("a block scalar with an explicit indentation whose lines do not match its value")


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _decoded(view: str, lo: int, hi: int, style: str | None) -> Line:
    """A stretch of a quoted or plain scalar's line as value text, with each character's source offset."""
    out: list[str] = []
    offsets: list[int] = []
    i = lo
    while i < hi:
        ch = view[i]
        offsets.append(i)
        if style == "'" and ch == "'":
            if view[i + 1:i + 2] != "'":
                raise Unsupported("a lone quote inside a single-quoted scalar")
            out.append("'")
            i += 2
        elif style == '"' and ch == "\\":
            code = view[i + 1:i + 2]
            if i + 1 == hi:  # an escaped line break: the line's text ends before it, and nothing joins them
                offsets.pop()
                hi = i
                break
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                i += 2
            elif code in _HEX and all(c in "0123456789abcdefABCDEF" for c in view[i + 2:i + 2 + _HEX[code]]) \
                    and i + 2 + _HEX[code] <= hi:
                out.append(chr(int(view[i + 2:i + 2 + _HEX[code]], 16)))
                i += 2 + _HEX[code]
            else:
                raise Unsupported("an unknown escape in a double-quoted scalar")
        else:
            out.append(ch)
            i += 1
    offsets.append(hi)
    return "".join(out), offsets


def _flow_scalar_edits(text: str, node: yaml.ScalarNode, new: Any, flow: bool, seq: int) -> list[Edit]:
    """A plain, single- or double-quoted string (a one-line `sh -c` script, or one over several lines)
    edited where its value changes, the new text escaped for its quoting; Unsupported where that is not
    one stretch of one line, or the new text would need another style (the caller rewrites it whole)."""
    if not isinstance(new, str) or node.tag != go_scalars.STR_TAG:
        raise Unsupported("not a string")
    style = _quote_of(node)
    view = searchable(text)
    q = 1 if style else 0
    first, end = node.start_mark.index + q, node.end_mark.index - q
    lines: list[Line] = []
    pos = first
    while True:
        nl = view.find("\n", pos, end)
        stop = end if nl < 0 else nl
        body_end = stop - 1 if nl >= 0 and view[stop - 1:stop] == "\r" else stop
        lo = pos if pos == first else pos + len(view[pos:body_end]) - len(view[pos:body_end].lstrip(" \t"))
        hi = body_end if nl < 0 else lo + len(view[lo:body_end].rstrip(" \t"))  # folding trims around breaks
        content = _decoded(view, lo, hi, style)
        if content[0]:
            lines.append(content)
        if nl < 0:
            break
        pos = nl + 1
    a, b, _, new_mid, n = _line_splice(node.value, new, lines)
    if not new_mid.isprintable():
        raise Unsupported("control characters need another quoting")
    lo, hi = lines[n][1][0], lines[n][1][-1]
    line = text[lo:a] + new_mid + text[b:hi]
    # Folding trims blanks around line breaks, and a plain scalar's own ends: blanks there would be lost.
    if not line.strip(" \t") or (line[:1] in " \t" and (style is None or lo != first)) \
            or (line[-1:] in " \t" and (style is None or hi != end)):
        raise Unsupported("blanks where the scalar's line begins or ends")
    if style == '"':
        written = new_mid.replace("\\", "\\\\").replace('"', '\\"')
    elif style == "'":
        written = new_mid.replace("'", "''")
    else:
        if go_scalars.ambiguous(new):
            raise Unsupported("a plain scalar that would read as a number, bool or null")
        joined = text[a - 1:a] + new_mid + text[b:b + 1]
        if " #" in joined or ": " in joined or "\t" in joined or (flow and set(new_mid) & set("{}[],")) \
                or (b == end and joined.rstrip().endswith(":")) \
                or (a == first and new_mid[:1] in "-?:,[]{}#&*!|>'\"%@`"):
            raise Unsupported("a plain scalar that the new text would end or change")
        written = new_mid
    return [Edit(a, b, written, seq)]


def apply_text_edits(text: str, root: yaml.Node, ops: Sequence[Op], start: int, end: int,
                     extra: Sequence[tuple[int, int, str]] = (), quote: str | None = None, nl: str = "\n") -> str:
    """The region text[start:end] with ops applied (positions as in `root`), and `extra` (start, end,
    text) edits; raises Unsupported. `quote`: the quoting of the strings the ops write (default: the
    replaced value's, else plain where YAML allows); `nl`: the line break of the lines they write."""
    edits: list[Edit] = [Edit(a, b, new, -1) for a, b, new in extra]
    lists: dict[int, list[int | None]] = {}
    for seq, op in enumerate(ops):
        edits.extend(_edits_for(text, root, op, seq, quote, lists))
    if nl != "\n":
        edits = [Edit(e.start, e.end, e.text.replace("\n", nl), e.seq) for e in edits]
    # The same tail edit may come from the caller and from an op that writes after the last line (two
    # equal insertions are two elements added at one place: both stay).
    edits = list({(e.start, e.end, e.text) if e.start < e.end else e: e for e in edits}.values())
    edits.sort(key=lambda e: (e.start, e.seq))
    # Each insertion after a last line without a line break starts with one; after another that ends with
    # one, a second would leave an empty line.
    for i in range(1, len(edits)):
        before, e = edits[i - 1], edits[i]
        if e.start == e.end == before.end and e.text.startswith(nl) and before.text.endswith(nl) \
                and not ends_line(text[e.start - 1:e.start]):
            edits[i] = Edit(e.start, e.end, e.text[len(nl):], e.seq)
    return splice(text, start, end, edits)


def splice(text: str, start: int, end: int, edits: Iterable[Edit | tuple[int, int, str]]) -> str:
    """text[start:end] with each (start, end, new text, …) edit made, in the text's offsets and in order;
    Unsupported where one overlaps the one before it or reaches outside."""
    out, pos = [], start
    for a, b, new, *_ in edits:
        if a < pos or b > end:
            raise Unsupported("overlapping edits or edits outside the item")
        out += [text[pos:a], new]
        pos = b
    out.append(text[pos:end])
    return "".join(out)


def last_scalar(node: yaml.Node) -> yaml.ScalarNode | None:
    """The scalar that ends a block node's text; None where it ends in a flow collection, or in an alias of
    a node it is in (`containers: &c [..., {x: *c}]`: a cycle, whose last value is no text of its own)."""
    seen: set[int] = set()
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        if id(node) in seen:
            return None
        seen.add(id(node))
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    return node if isinstance(node, yaml.ScalarNode) else None


def tail_edits(text: str, node: yaml.Node) -> list[tuple[int, int, str]]:
    """Edits that keep the value of a block scalar ending `text` without a final line break, for when
    something is written after it: the line break that starts the next line would become part of it.

    A clip (`|`) or keep (`|+`) scalar whose value has no trailing line break becomes strip (`|-`), which
    means the same; a keep scalar whose last line is only blanks loses those blanks (they count as a
    line break as soon as one follows). Everything else already means the same with a line break after it.
    """
    if not text or ends_line(text):
        return []
    last = last_scalar(node)
    if last is None or last.style not in ("|", ">") or last.end_mark.index != len(text):
        return []
    at = last.start_mark.index
    if text[at:at + 1] not in ("|", ">"):
        return []
    header = at + 1
    while header < len(text) and text[header] in "+-123456789":
        header += 1
    chomp = text[at + 1:header]
    if "-" in chomp:
        return []
    if not last.value.endswith("\n"):
        return [(at + 1, header, chomp.replace("+", "") + "-")]
    if "+" in chomp:
        begin = line_start(text, len(text))
        if not text[begin:].strip(" \t"):
            return [(begin, len(text), "")]
    return []


# --- the one verifier ----------------------------------------------------------------------------

def _parses_to(text: str, target: Any, first_document: bool = False) -> bool:
    try:
        return same(yamlio.load_first(text) if first_document else yamlio.load(text), target)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return False  # the edit broke the YAML, or made a document too clever to check (self-referencing)


# --- an item's region ----------------------------------------------------------------------------

def emit_item(data: Any, column: int, trailing_newline: bool) -> str:
    """A whole item by the safe emitter, laid out to continue at `column` after a `- `."""
    body = indented(yamlio.dump(data), column)[column:]  # its first line is never blank
    return body if trailing_newline else body.rstrip("\n")


def edit_item(item: Item, ops: Sequence[Op], followed: bool = False) -> str:
    """The item's new region text: text edits when they verify, else the item emitted whole.

    `followed`: something is written after the region (its last value must mean the same then)."""
    target = apply_ops(item.data(), ops)
    extra = tail_edits(item.source, item.node) if followed and item.end == len(item.source) else []
    try:
        region = apply_text_edits(item.source, item.node, ops, item.start, item.end, extra)
        # What comes after starts a line of its own: a line break only where the region ends none (one
        # more after a `|+` scalar's last line would be one more line of its value, in the check alone).
        if _parses_to(" " * item.column + region + ("\n" if followed and not ends_line(region) else ""), target):
            return region
    except Unsupported:
        pass
    return emit_item(target, item.column, ends_line(item.region))


# --- a document in a string ------------------------------------------------------------------------

_BOM = "\ufeff"


def _document_newline(text: str) -> str:
    """The line break of the document's first line (a ConfigMap value written on Windows keeps CRLF)."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _with_newline(text: str, nl: str) -> str:
    return text if text.endswith("\n") else text + nl


def edit_document(text: str, ops: list[Op], quote: str | None = None) -> str:
    """The YAML document `text` with the ops applied to its first document (what KAITO reads; later ones
    stay as written after it): text edits when they verify, else the first document emitted whole.
    Raises what yamlio raises for text that is not YAML: the caller parses it first to say why."""
    # libyaml does not count a byte-order mark in its marks: edit without it.
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom):]
    root = yamlio.compose_first(body)
    target = apply_ops(yamlio.load_first(body), ops)
    second = yamlio.second_document(body)
    first, rest = (body, "") if second is None else (body[:second], body[second:])
    nl = _document_newline(body)
    try:
        edited = _document_edits(first, root, ops, quote, nl)
        if _parses_to(edited + rest, target, first_document=True):
            return bom + edited + rest
    except Unsupported:
        pass
    return bom + _with_newline(emit_document(target), nl) + rest


def emit_document(data: Any) -> str:
    """A whole document by the safe emitter: shared values in full, no `&id001`."""
    try:
        return yamlio.dump(data)
    except RecursionError:  # only a self-referencing document needs its aliases
        return yamlio.dump_keeping_aliases(data)


def _document_edits(text: str, root: yaml.Node | None, ops: list[Op], quote: str | None, nl: str) -> str:
    if root is None or (tree.is_null(root) and root.start_mark.index == root.end_mark.index):
        # Only comments (or `---`): the document is empty, so new lines at the end are all of it.
        if len(ops) != 1 or ops[0]["path"] != "" or not isinstance(ops[0].get("value"), dict):
            raise Unsupported("an empty document takes one whole-document mapping")
        lines = _value_text(ops[0]["value"], 0, quote).lstrip("\n") + "\n"
        return _with_newline(text, nl) + lines.replace("\n", nl)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        # A flow document (`{…}`) is re-emitted as block YAML, as the embedded document always was.
        raise Unsupported("a document that is not a block mapping")
    return _with_newline(apply_text_edits(text, root, ops, 0, len(text), quote=quote, nl=nl), nl)
