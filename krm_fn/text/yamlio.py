"""PyYAML in one place: libyaml's C loader/dumper when present, pure Python otherwise.

Parsing keeps node positions (character offsets) so the writer can edit source text in place;
emitting is block style, without anchors, with strings quoted wherever go-yaml v2 or v3, YAML 1.1 or
YAML 1.2 would read them as something else (`ambiguous`).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

TYPE_CHECKING = False  # see krm_fn/__init__.py
if TYPE_CHECKING:
    from typing import Any

C_AVAILABLE = hasattr(yaml, "CSafeLoader")

STR_TAG = "tag:yaml.org,2002:str"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"


# Deeper than any Kubernetes object nests, and shallow enough for everything that walks an item afterwards
# (constructing, copying, patching, emitting: Python recursion), on both backends.
MAX_DEPTH = 250
# How many nodes aliases may add to one object when it is expanded (walked as a tree: hashed, compared,
# emitted). Anchors in real manifests add hundreds; an alias bomb adds billions (as Go's yaml.v3 caps it).
MAX_ALIAS_EXPANSION = 100_000


class NestingTooDeep(yaml.MarkedYAMLError):
    """More than MAX_DEPTH levels of nesting; raised while composing, before any recursion can crash."""


class ExpansionTooLarge(ValueError):
    """Aliases make an object too large to walk or emit (an alias bomb)."""


class _DepthGuard:
    """Both composers (libyaml's recursive C composer too) call descend/ascend_resolver around every node:
    counting there refuses deep nesting before the C stack can overflow (a segfault, not an exception)."""

    # This replaces PyYAML's path resolvers (add_path_resolver), which the project does not use: the
    # method is called for every node of every input, and must stay as cheap as the one it replaces.
    _depth = 0

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise NestingTooDeep(problem=f"it nests more than {MAX_DEPTH} levels deep")

    def ascend_resolver(self) -> None:
        self._depth -= 1


# A `!` tag with no name (YAML's non-specific tag) on a scalar: go-yaml v2 and v3 resolve only the tags
# they know (`resolvableTag`: "", !!str, !!bool, !!int, !!float, !!null, !!timestamp) and leave any other
# scalar a string, `!` included, so kubectl and the API server read `! true` as "true". PyYAML (and
# libyaml's composer) resolve a `!`-tagged scalar like an untagged plain one, as a boolean. The loaders
# here make it a string: the nodes an event with tag "!" starts are found by a second parse of the events,
# only for a text where a `!` stands alone (before a blank, a line break, `,`, `]`, `}` or the end).
_BANG_AFTER = frozenset(" \t\r\n\x85\u2028\u2029,]}")


def _may_tag_nonspecific(text: str) -> bool:
    at = text.find("!")
    while at >= 0:
        after = text[at + 1:at + 2]
        if not after or after in _BANG_AFTER or text.startswith("<!>", at + 1):
            return True
        at = text.find("!", at + 1)
    return False


def _nonspecific_scalars(loader: type, text: str) -> set[int]:
    """Where the scalars tagged `!` start (a YAML error ends the search: the composer stops there too)."""
    found: set[int] = set()
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.ScalarEvent) and event.tag == "!":
                found.add(event.start_mark.index)
    except yaml.YAMLError:
        pass
    return found


class _NonSpecificAreStrings:
    """Composing and loading (which composes first) both go through get_node / get_single_node."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self._bang_text = stream if isinstance(stream, str) and _may_tag_nonspecific(stream) else None
        self._bang_at: set[int] | None = None

    def _strings(self, node: Any) -> Any:
        if node is not None and self._bang_text is not None:
            if self._bang_at is None:
                self._bang_at = _nonspecific_scalars(type(self), self._bang_text)
            if self._bang_at:
                for n in nodes(node):
                    if isinstance(n, yaml.ScalarNode) and n.start_mark.index in self._bang_at:
                        n.tag = STR_TAG
        return node

    def get_node(self) -> Any:
        return self._strings(super().get_node())  # type: ignore[misc]

    def get_single_node(self) -> Any:
        return self._strings(super().get_single_node())  # type: ignore[misc]


_BREAKZ = "\0\r\n\x85\u2028\u2029"


class _GoTabs:
    """PyYAML's scanner with libyaml's rules for tabs, which go-yaml v2 (kubectl, Argo CD) and v3 (kpt,
    kustomize) share: the readers of the items. PyYAML refuses every tab outside quotes and block scalars;
    they accept one as a separator after `key:`, an anchor, a tag or a scalar, inside flow collections,
    inside and after a plain scalar, and after a block scalar's `|`, and refuse it as indentation, after
    `-`, `?` or a complex key's `:`, and on a plain scalar's continuation line left of its indentation
    (libyaml scanner.c: yaml_parser_scan_to_next_token, _scan_plain_scalar, _scan_block_scalar). Without
    this the pure backend failed inputs that libyaml, kpt and kubectl read (tests/test_tabs.py)."""

    def scan_to_next_token(self) -> None:
        if self.index == 0 and self.peek() == "\uFEFF":
            self.forward()
        while True:
            ch = self.peek()
            # Tabs are blanks in flow context, and in block context where no simple key may start.
            while ch == " " or (ch == "\t" and (self.flow_level or not self.allow_simple_key)):
                self.forward()
                ch = self.peek()
            if ch == "#":
                while self.peek() not in _BREAKZ:
                    self.forward()
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> Any:
        chunks = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        ch = self.peek()
        if ch in "\r\n\x85\u2028\u2029":
            line_break = self.scan_line_break()
            self.allow_simple_key = True
            prefix = self.prefix(3)
            if (prefix == "---" or prefix == "...") and self.peek(3) in "\0 \t\r\n\x85\u2028\u2029":
                return None
            breaks = []
            while self.peek() in " \t\r\n\x85\u2028\u2029":
                ch = self.peek()
                if ch == " ":
                    self.forward()
                elif ch == "\t":
                    if self.column < indent:
                        raise yaml.scanner.ScannerError("while scanning a plain scalar", start_mark,
                                                        "found a tab character that violates indentation",
                                                        self.get_mark())
                    self.forward()
                else:
                    breaks.append(self.scan_line_break())
                    prefix = self.prefix(3)
                    if (prefix == "---" or prefix == "...") and self.peek(3) in "\0 \t\r\n\x85\u2028\u2029":
                        return None
            if line_break != "\n":
                chunks.append(line_break)
            elif not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        elif whitespaces:
            chunks.append(whitespaces)
        return chunks

    def scan_block_scalar_indicators(self, start_mark: Any) -> Any:
        chomping = increment = None
        ch = self.peek()
        if ch in "+-":
            chomping = ch == "+"
            self.forward()
            if self.peek() in "0123456789":
                increment = self._increment(start_mark)
        elif ch in "0123456789":
            increment = self._increment(start_mark)
            if self.peek() in "+-":
                chomping = self.peek() == "+"
                self.forward()
        ch = self.peek()
        if ch not in "\0 \t\r\n\x85\u2028\u2029":  # PyYAML's own check wants no tab here
            raise yaml.scanner.ScannerError("while scanning a block scalar", start_mark,
                                            "expected chomping or indentation indicators, but found %r" % ch,
                                            self.get_mark())
        return chomping, increment

    def _increment(self, start_mark: Any) -> int:
        increment = int(self.peek())
        if increment == 0:
            raise yaml.scanner.ScannerError("while scanning a block scalar", start_mark,
                                            "expected indentation indicator in the range 1-9, but found 0",
                                            self.get_mark())
        self.forward()
        return increment

    def scan_tag(self) -> Any:
        # PyYAML's own, with a tab ending the tag as a space does (`!!str\tx`).
        start_mark = self.get_mark()
        ch = self.peek(1)
        if ch == "<":
            handle = None
            self.forward(2)
            suffix = self.scan_tag_uri("tag", start_mark)
            if self.peek() != ">":
                raise yaml.scanner.ScannerError("while parsing a tag", start_mark,
                                                "expected '>', but found %r" % self.peek(), self.get_mark())
            self.forward()
        elif ch in "\0 \t\r\n\x85\u2028\u2029":
            handle = None
            suffix = "!"
            self.forward()
        else:
            length = 1
            use_handle = False
            while ch not in "\0 \t\r\n\x85\u2028\u2029":
                if ch == "!":
                    use_handle = True
                    break
                length += 1
                ch = self.peek(length)
            if use_handle:
                handle = self.scan_tag_handle("tag", start_mark)
            else:
                handle = "!"
                self.forward()
            suffix = self.scan_tag_uri("tag", start_mark)
        ch = self.peek()
        if ch not in "\0 \t\r\n\x85\u2028\u2029":
            raise yaml.scanner.ScannerError("while scanning a tag", start_mark,
                                            "expected ' ', but found %r" % ch, self.get_mark())
        return yaml.tokens.TagToken((handle, suffix), start_mark, self.get_mark())

    # A block scalar's indentation is spaces: libyaml refuses a tab where it is still counting them
    # (`|` then `   \tvllm:`), which PyYAML took for a line of content beginning with a tab.
    def _tab_in_indentation(self) -> None:
        raise yaml.scanner.ScannerError("while scanning a block scalar", self._block_start,
                                        "found a tab character where an indentation space is expected",
                                        self.get_mark())

    def scan_block_scalar(self, style: str) -> Any:
        self._block_start = self.get_mark()
        return super().scan_block_scalar(style)  # type: ignore[misc]

    def scan_block_scalar_indentation(self) -> Any:
        chunks, max_indent, end_mark = super().scan_block_scalar_indentation()  # type: ignore[misc]
        if self.peek() == "\t":
            self._tab_in_indentation()
        return chunks, max_indent, end_mark

    def scan_block_scalar_breaks(self, indent: int) -> Any:
        chunks = []
        end_mark = self.get_mark()
        while self.column < indent and self.peek() == " ":
            self.forward()
        if self.column < indent and self.peek() == "\t":
            self._tab_in_indentation()
        while self.peek() in "\r\n\x85\u2028\u2029":
            chunks.append(self.scan_line_break())
            end_mark = self.get_mark()
            while self.column < indent and self.peek() == " ":
                self.forward()
            if self.column < indent and self.peek() == "\t":
                self._tab_in_indentation()
        return chunks, end_mark

    def scan_block_scalar_ignored_line(self, start_mark: Any) -> None:
        while self.peek() in " \t":
            self.forward()
        if self.peek() == "#":
            while self.peek() not in _BREAKZ:
                self.forward()
        ch = self.peek()
        if ch not in _BREAKZ:
            raise yaml.scanner.ScannerError("while scanning a block scalar", start_mark,
                                            "expected a comment or a line break, but found %r" % ch,
                                            self.get_mark())
        self.scan_line_break()


class _PureLoader(_NonSpecificAreStrings, _DepthGuard, _GoTabs, yaml.SafeLoader):
    pass


class StrictPureLoader(_DepthGuard, yaml.SafeLoader):
    """PyYAML as it ships, tabs refused: what `yaml.safe_load` reads with (KAITO's inference server reads
    inference_config.yaml so, whatever backend this process has)."""



if C_AVAILABLE:
    class _CLoader(_NonSpecificAreStrings, _DepthGuard, yaml.CSafeLoader):  # type: ignore[name-defined,misc]
        pass
    _LOADERS = {"c": _CLoader, "pure": _PureLoader}
else:  # pragma: no cover - depends on how PyYAML was built
    _LOADERS = {"pure": _PureLoader}


def _timestamp_as_str(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    # Kubernetes reads timestamps as strings; so do we, or they would change type on the way out.
    return loader.construct_scalar(node)


for _cls in (*_LOADERS.values(), StrictPureLoader):
    _cls.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_str)

_backend = "c" if C_AVAILABLE else "pure"


def set_backend(name: str) -> None:
    """Select the "c" or "pure" loader (tests run both)."""
    global _backend
    if name not in _LOADERS:
        raise ValueError(f"YAML backend {name!r} is not available")
    _backend = name


def backend() -> str:
    return _backend


def loader_class() -> type:
    return _LOADERS[_backend]


def events(text: str, loader: type | None = None) -> Iterator[yaml.Event]:
    """The parser's events (lazily: a caller may stop before an error further on)."""
    return yaml.parse(text, Loader=loader or loader_class())


def _too_deep(text: str) -> NestingTooDeep:
    """The error with the mark of the first node past MAX_DEPTH (found by the iterative event parser)."""
    depth = 0
    try:
        for event in events(text):
            if isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
                if depth + 1 > MAX_DEPTH:
                    return NestingTooDeep(problem=f"it nests more than {MAX_DEPTH} levels deep",
                                          problem_mark=event.start_mark)
                depth += isinstance(event, yaml.CollectionStartEvent)
    except yaml.YAMLError:
        pass
    return NestingTooDeep(problem=f"it nests more than {MAX_DEPTH} levels deep")


def compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=loader_class())
    except NestingTooDeep:
        raise _too_deep(text) from None


def compose_all(text: str) -> list[yaml.Node]:
    try:
        return list(yaml.compose_all(text, Loader=loader_class()))
    except NestingTooDeep:
        raise _too_deep(text) from None


def _first(documents: Iterator[Any], text: str) -> Any:
    try:
        for document in documents:
            return document
    except NestingTooDeep:
        raise _too_deep(text) from None
    except (KeyError, AttributeError, IndexError) as exc:  # `!!bool 6`: KeyError inside PyYAML, just bad YAML
        raise ValueError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    return None


def compose_first(text: str, loader: type | None = None) -> yaml.Node | None:
    """The first document's node only: later documents are not even parsed (KAITO's yaml.Unmarshal reads
    the first document of inference_config.yaml; a broken second one is no error to it). `loader`: another
    reader than the backend's (StrictPureLoader)."""
    return _first(yaml.compose_all(text, Loader=loader or loader_class()), text)


def load_first(text: str, loader: type | None = None) -> Any:
    """The first document's data only (see compose_first)."""
    return _first(yaml.load_all(text, Loader=loader or loader_class()), text)


def second_document(text: str, loader: type | None = None) -> int | None:
    """Where the second document starts (its `---`), or None when there is one document (or the text
    breaks off before a second one starts)."""
    starts = 0
    try:
        for event in events(text, loader):
            if isinstance(event, yaml.DocumentStartEvent):
                starts += 1
                if starts == 2:
                    return event.start_mark.index
    except yaml.YAMLError:
        return None
    return None


def _children(node: Any) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, dict):
        return [n for pair in node.items() for n in pair]
    if isinstance(node, (list, tuple)):
        return list(node)
    return []


def nodes(root: Any) -> Iterator[Any]:
    """Every distinct node under `root` once, however often aliases repeat it (cycles included)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(_children(node))


def expanded_size(root: Any) -> tuple[int, float]:
    """(distinct, expanded) node count of a composed node or of Python data: linear in the distinct nodes,
    however often aliases repeat them (each shared node is counted once and its size remembered).
    A node that contains itself (`&a [*a]`: PyYAML composes that as a cycle) expands without end."""
    sizes: dict[int, float] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
        elif key not in sizes:
            children = _children(node)
            if any(id(c) in open_ or c is node for c in children):
                return len(sizes) + 1, float("inf")
            sizes[key] = 0
            open_.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return len(sizes), sizes[id(root)]


def check_expansion(root: Any) -> None:
    """Raise ExpansionTooLarge when aliases would add more than MAX_ALIAS_EXPANSION nodes to `root`."""
    distinct, expanded = expanded_size(root)
    if expanded == float("inf"):
        raise ExpansionTooLarge("an alias inside it names a node that contains that alias: it would expand without end (a cycle)")
    if expanded - distinct > MAX_ALIAS_EXPANSION:
        raise ExpansionTooLarge(f"its aliases expand it to {expanded:.0f} nodes from {distinct}; more than {MAX_ALIAS_EXPANSION} added nodes is refused (an alias bomb?)")


def _copy(node: yaml.Node, memo: dict[int, yaml.Node]) -> yaml.Node:
    """A copy of a node tree (aliases stay shared, marks are reused)."""
    done = memo.get(id(node))
    if done is not None:
        return done
    if isinstance(node, yaml.ScalarNode):
        new: yaml.Node = yaml.ScalarNode(node.tag, node.value, node.start_mark, node.end_mark, node.style)
    else:
        new = type(node)(node.tag, [], node.start_mark, node.end_mark, node.flow_style)
    memo[id(node)] = new
    if isinstance(node, yaml.MappingNode):
        new.value = [(_copy(k, memo), _copy(v, memo)) for k, v in node.value]
    elif isinstance(node, yaml.SequenceNode):
        new.value = [_copy(v, memo) for v in node.value]
    return new


def construct(node: yaml.Node, may_merge: bool = True, may_alias: bool = True) -> Any:
    """Python data for one node (a subtree of a composed document).

    PyYAML resolves merge keys (`<<: *anchor`) by rewriting the mapping nodes in place; the reader and
    the writer need the composed nodes as they were (their positions are the source text), so the
    constructor works on a copy. `may_alias=False` (the node's text has no `*`) skips the alias budget.
    """
    if may_alias:
        check_expansion(node)
    loader = loader_class()("")
    try:
        return loader.construct_document(_copy(node, {}) if may_merge else node)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        raise
    except Exception as exc:  # `!!bool Standard_NC24` raises KeyError inside PyYAML: still just bad YAML
        raise ValueError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    finally:
        loader.dispose()


def load(text: str) -> Any:
    try:
        return yaml.load(text, Loader=loader_class())
    except NestingTooDeep:
        raise _too_deep(text) from None
    except (KeyError, AttributeError, IndexError) as exc:  # `!!bool 6`: KeyError inside PyYAML, just bad YAML
        raise ValueError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    def ignore_aliases(self, data: Any) -> bool:
        return True


class _PureDumper(yaml.SafeDumper):
    """libyaml's emitter escapes every character outside the BMP (emoji) and so turns a multi-line
    string holding one into a double-quoted "\\U0001F680" line; PyYAML's own emitter writes them as is.

    It also refuses a literal block for a string with trailing spaces or tabs on a line, which YAML
    allows: here such strings stay literal blocks (a user's inference_config.yaml stays reviewable), and
    `dump` checks by re-reading that the block means exactly the string, else emits the cautious way.
    """

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def analyze_scalar(self, scalar: str) -> Any:
        analysis = super().analyze_scalar(scalar)
        if "\n" in scalar and not analysis.allow_block and _block_representable(scalar):
            analysis.allow_block = True
        return analysis


class _CautiousPureDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _block_representable(text: str) -> bool:
    """Printable text (tabs allowed) whose lines a literal block can carry, trailing blanks and all."""
    if text.startswith((" ", "\t")) or "\r" in text:
        return False
    return all(ch in "\t\n" or " " <= ch <= "\x7e" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
               or ch >= "\U00010000" for ch in text)


def _needs_pure(data: Any) -> bool:
    if isinstance(data, str):
        return bool(data) and (max(data) > "\uffff" or ("\n" in data and (" \n" in data or "\t" in data)))
    if isinstance(data, dict):
        return any(_needs_pure(k) or _needs_pure(v) for k, v in data.items())
    if isinstance(data, (list, tuple)):
        return any(_needs_pure(v) for v in data)
    return False


def _dumper_for(data: Any) -> type:
    # The backend switch reaches the emitter too: with "pure", no libyaml code runs at all.
    if _needs_pure(data):
        return _PureDumper
    return _Dumper if _backend == "c" else _CautiousPureDumper


# Which plain scalars some reader of the output takes for something else than a string. Every string the
# function writes must read back as that string under each of them:
# - go-yaml v2 (kubectl, Argo CD, every sigs.k8s.io/yaml user; sigs.k8s.io/yaml forks v2.4.0), resolve.go:
#     resolveMap: "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" (true);
#     "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF" (false);
#     "", "~", "null", "Null", "NULL"; ".nan" ".inf" "+.inf" "-.inf" (and their .NaN/.Inf/.INF spellings); "<<".
#     A first character `+ - 0-9` ('S', 'D'): `plain := strings.Replace(in, "_", "", -1)`, then
#     `strconv.ParseInt(plain, 0, 64)` and `strconv.ParseUint(plain, 0, 64)` (Go literals: 0x 0o 0b in
#     either case, a leading 0 for octal), `yamlStyleFloat` =
#     `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` on plain, and for plain starting "0b"
#     `strconv.ParseInt(plain[2:], 2, 64)` (so `0b-1` too). A first character `.`: `strconv.ParseFloat(in, 64)`.
# - go-yaml v3 (kpt, kustomize's kyaml): the same without y/yes/on/n/no/off, plus "0o" +
#   `strconv.ParseInt(plain[2:], 8, 64)` (`0o-7`), and timestamps (`parseTimestamp`: "2006-1-2",
#   optionally with `T`, `t` or a space and a time) decode to a time.Time.
# - YAML 1.1 as PyYAML reads it (its resolver, asked below: `1:20`, `0b1_0`, `=`, dates, …) and YAML 1.2's
#   core schema (a subset of go-yaml's numbers).
# The test is wider than the readers where that is simpler (any Go literal's digits, whatever the range):
# quoting a string that needed none costs two characters; writing one plain that needed quotes changes it.
_WORDS = frozenset("""y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF
    ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<""".split()) | {""}
_NUMBER_START = frozenset("-+.0123456789")
# Tried on the text without its underscores.
_GO_NUMBER = (
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oObB][0-7]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
    r"|0[bo][-+][0-7]+")
_GO_TIMESTAMP = r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?"


_RESOLVER = yaml.resolver.Resolver()


def ambiguous(value: str) -> bool:
    """Would go-yaml v2 or v3, YAML 1.1 or YAML 1.2 read this plain scalar as anything but this string?"""
    if value in _WORDS:
        return True
    if value[:1] in _NUMBER_START and (re.fullmatch(_GO_NUMBER, value.replace("_", "") if "_" in value else value)
                                       or re.fullmatch(_GO_TIMESTAMP, value)):
        return True
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != STR_TAG


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Multi-line strings as literal blocks; PyYAML itself falls back to quoting when a block cannot
    # represent the string exactly. Strings either YAML version would read as bool/number/null are quoted.
    style = "|" if "\n" in value else None
    if style is None and ambiguous(value):
        style = '"'  # "y", "on", "010", "0X1F", "1_e3", "null": quoted the way Kubernetes manifests quote them
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


class _AliasDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


class _PureAliasDumper(yaml.SafeDumper):
    pass


for _dumper in (_Dumper, _PureDumper, _CautiousPureDumper, _AliasDumper, _PureAliasDumper):
    _dumper.add_representer(str, _str_representer)


def dump(data: Any) -> str:
    """Block YAML for one document, keys in insertion order, no anchors, no `...` end marker."""
    check_expansion(data)
    options = dict(default_flow_style=False, sort_keys=False, allow_unicode=True, width=1 << 16)
    dumper = _dumper_for(data)
    text = yaml.dump(data, Dumper=dumper, **options)
    if dumper is _PureDumper and load(text) != data:
        text = yaml.dump(data, Dumper=_CautiousPureDumper, **options)
    # A keep-chomped (`|+`) string last in the document makes the emitter close it with `...`; these
    # documents are always spliced into a larger one, where the next, less indented line ends it.
    if text.endswith("\n...\n"):
        text = text[: -len("...\n")]
    return text


def dump_keeping_aliases(data: Any) -> str:
    """Block YAML with anchors and aliases: only for data that refers to itself (`&a [*a]`), which `dump`
    cannot write out in full."""
    dumper = _AliasDumper if _backend == "c" else _PureAliasDumper
    return yaml.dump(data, Dumper=dumper, default_flow_style=False, sort_keys=False, allow_unicode=True,
                     width=1_000_000)


def scalar_text(value: Any, style: str | None = None) -> str:
    """One scalar as YAML text; `style` ('"', "'" or None) keeps the quoting of the value it replaces."""
    if isinstance(value, str) and style in ('"', "'") and "\n" not in value:
        if style == "'":
            return "'" + value.replace("'", "''") + "'"
        return dump_inline(value, '"')
    return dump_inline(value, None)


def dump_inline(value: Any, style: str | None) -> str:
    text = yaml.dump(value, Dumper=_dumper_for(value), default_style=style, width=1 << 16,
                     allow_unicode=True, explicit_end=False)
    if text.endswith("\n...\n"):
        text = text[: -len("\n...\n")]
    return text.rstrip("\n")


def position(mark: Any) -> str:
    """'line L, column C' (1-based) for a PyYAML mark."""
    return f"line {mark.line + 1}, column {mark.column + 1}"


# --- node helpers: positions in the source text -------------------------------------------------
# Nodes keep character offsets (marks); these helpers turn them into line and node boundaries, for the
# reader (item regions), the writer (splices) and textedit (edits of an item or of an embedded document).


def child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node under `key` of a mapping node, or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def is_null(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG


def scalar(node: yaml.Node | None) -> str | None:
    """A scalar's string value when it is a string (plain or quoted); None otherwise."""
    if isinstance(node, yaml.ScalarNode) and node.tag == STR_TAG:
        return node.value
    return None


# What YAML 1.1 (PyYAML, libyaml, Go's yaml) counts as a line break besides "\n": a bare CR (old Mac files),
# NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Node marks count lines by them, so every search for a line
# start or end must too.
_ODD_BREAK = "\r(?!\n)|[\x85\u2028\u2029]"
BREAKS = "\r\n\x85\u2028\u2029"


_SEARCHABLE: list = [None, ""]  # the last text asked for and its answer: callers ask again and again for one text


def searchable(text: str) -> str:
    """The text with every line break but CRLF written as "\n", offsets unchanged (one character for one):
    what line searches run on. Output is always cut from the text itself, so no byte changes."""
    # Remembered by identity, not by value: an lru_cache compared a new run's equal text character by
    # character on every lookup (10 000 items: read went from 1.9 s to 24.5 s in a long-lived process).
    if _SEARCHABLE[0] is text:
        return _SEARCHABLE[1]
    out = text
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        out = re.sub(_ODD_BREAK, "\n", text)
    _SEARCHABLE[:] = [text, out]
    return out


def newline_of(text: str) -> str:
    """The line break new text gets: CRLF or a bare CR when the text uses only that, else LF."""
    if "\r\n" in text:
        return "\r\n"
    if "\r" in text and "\n" not in text:
        return "\r"
    return "\n"


def ends_line(text: str) -> bool:
    return bool(text) and text[-1] in BREAKS


# Blank or comment-only line ends, then an alias (`*name`; anchor names are alphanumerics, `-` and `_`).
_GAP = r"(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*"
_ALIAS_VALUE = _GAP + r"\*[0-9A-Za-z_-]+"
_ALIAS_ENTRY = _GAP + "-" + _GAP + r"\*[0-9A-Za-z_-]+"


def node_end(node: yaml.Node, text: str | None = None) -> int:
    """Where a node's own text ends (block collections end where their last value ends).

    An alias (`*name`) is composed as the very node it names, with the anchor's positions: given the
    `text`, an alias that ends a block collection is found after its key or dash instead.
    """
    if text is not None:
        text = searchable(text)
    while True:
        if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
            key, value = node.value[-1]
            if text is not None and value.start_mark.index < key.end_mark.index:
                colon = text.find(":", key.end_mark.index)
                m = re.compile(_ALIAS_VALUE).match(text, colon + 1) if colon >= 0 else None
                if m:
                    return m.end()
            node = value
        elif isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1]
            before = node.value[-2].end_mark.index if len(node.value) > 1 else node.start_mark.index
            if text is not None and last.start_mark.index < before:  # an alias: its node sits earlier
                prev = node_end(node.value[-2], text) if len(node.value) > 1 else node.start_mark.index
                m = re.compile(_ALIAS_ENTRY).match(text, prev)
                if m:
                    return m.end()
            node = last
        else:
            return node.end_mark.index


def line_start(text: str, pos: int) -> int:
    """The offset where the line holding `pos` begins."""
    return searchable(text).rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    """The offset just past the line that `pos` ends in (block scalars already end at a line start)."""
    text = searchable(text)
    if pos > 0 and text[pos - 1] == "\n":
        return pos
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def column_of(text: str, pos: int) -> int:
    return pos - line_start(text, pos)
