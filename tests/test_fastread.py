"""The reader's scan of shapes (krm_fn/text/fastread.py) against composing every item, the reference: the same
input read both ways (reader.read_resource_list's `scan_from`: 0 tries the scan on every input, None composes
every item) must give the same stdout, stderr and exit status. Fixtures, the shared corpus, the inputs that
fooled earlier scanners (issue 13) and a few thousand generated inputs; a record of the inputs the scan read
proves it reads the kpt-shaped ones (and so that this test compares something).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from fastpath_cases import case
from golden import case_env, case_input, cases, wrap
from krm_fn.text import fastread, parscan, yamlio
from krm_fn.text.reader import read_resource_list
from runner import reading, run

# KAITO's examples, shipped in tests/corpus; a team's shared corpus beside the checkout adds more files.
CORPUS = Path(__file__).resolve().parent / "corpus"
_SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CORPUS_FILES = [f for root in (CORPUS, _SHARED) if root.is_dir()
                for f in sorted(root.rglob("*.yaml")) + sorted(root.rglob("*.yml"))]
GENERATED = 2000  # the deep pass; the suite's test_generated takes the first SUITE_GENERATED
SUITE_GENERATED = 600

pytestmark = pytest.mark.skipif(not yamlio.C_AVAILABLE, reason="the fast path needs libyaml's C parser")


def both(text: str, env: dict | None = None, fork: bool = True) -> bool:
    """Run `text` with the scan tried however small the input, in one process and on two
    (krm_fn/text/parscan.py: forced on; `fork=False`: one process only), and with every item
    composed; assert the same outcome; whether the scan read it."""
    with reading(0), scans() as read:
        fast = run([], text, env or {})
    if fork:
        with reading(0), two_cores():
            assert run([], text, env or {}) == fast
    with reading(None):
        full = run([], text, env or {})
    took = bool(read)
    assert "Traceback" not in fast.err
    assert (fast.code, fast.err) == (full.code, full.err)
    assert fast.out == full.out
    return took


@contextlib.contextmanager
def scans() -> Iterator[list[bool]]:
    """A list that gets an entry for every input (or render source) the scan reads while inside."""
    read: list[bool] = []
    scan, scan_documents = fastread.scan, fastread.scan_documents

    def recorded(real):
        def run(*args):
            got = real(*args)
            if got is not None:
                read.append(True)
            return got
        return run

    fastread.scan, fastread.scan_documents = recorded(scan), recorded(scan_documents)
    try:
        yield read
    finally:
        fastread.scan, fastread.scan_documents = scan, scan_documents


@contextlib.contextmanager
def two_cores() -> Iterator[None]:
    """The parallel scan for any input, even on a machine with one CPU."""
    saved = parscan.THRESHOLD, parscan.usable_cpus
    parscan.THRESHOLD, parscan.usable_cpus = 0, lambda: 2
    try:
        yield
    finally:
        parscan.THRESHOLD, parscan.usable_cpus = saved


@pytest.fixture(autouse=True)
def _c_backend(c_backend):
    """The fast path needs libyaml: every test here runs on the C backend (tests/conftest.py)."""


def test_fixtures() -> None:
    """Every fixture on two cores, the scan tried however small the input, gives the fixture's expected
    output. (One core with the scan, and every item composed, are test_golden's two passes over the same
    expectations; comparing them here again only repeated those runs.)"""
    from golden import ROOT
    read_by_scan = 0
    for c in cases():
        with reading(0), two_cores(), scans() as read:
            got = run([], case_input(c), case_env(c))
        assert "Traceback" not in got.err
        assert got.out == (ROOT / c / "expected.yaml").read_text(encoding="utf-8"), c
        read_by_scan += bool(read)
    assert read_by_scan >= len(cases()) * 0.6, read_by_scan  # fixtures are mostly kpt-shaped


def test_corpus() -> None:
    if not CORPUS_FILES:
        pytest.fail(f"the corpus is missing ({CORPUS}): it is part of the repository")
    taken = 0
    for path in CORPUS_FILES:
        text = path.read_text(encoding="utf-8", errors="replace")
        taken += both(wrap(text))
    assert taken >= len(CORPUS_FILES) * 0.5, (taken, len(CORPUS_FILES))


# Inputs that fooled earlier scanners (issue 13), each a wrong output there until fixed.
FOOLED = {
    "unterminated quote hiding a key twice": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: \"a\n    name: b\"\n    name: c\n",
    "key twice after a multi-line quote": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    x: 'a\n    b'\n    name: n\n    name: m\n",
    "NEL line break": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\x85    name: b\n",
    "LINE SEPARATOR": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\u2028    name: b\n",
    "PARAGRAPH SEPARATOR": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\u2029    namespace: b\n",
    "metadata followed by |": "- apiVersion: v1\n  kind: Secret\n  metadata: |\n    name: a\n",
    "metadata followed by a lone -": "- apiVersion: v1\n  kind: Secret\n  metadata:\n  -\n    name: a\n",
    "non-mapping entries": "- a\n- - b\n-\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n",
    "# inside a one-line flow collection": "- apiVersion: v1\n  kind: Secret\n  metadata: {name: a, labels: {x: '#', x: y}}\n",
    "# inside a flow list": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  data: ['#', x] # c\n",
    "block body read as keys": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  data:\n    s: |\n      name: b\n      name: c\n",
    "block body with a document marker": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  data:\n    s: |\n      ---\n      x\n    t: u\n",
    "key twice in a flow mapping": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n    labels: {x: 1, x: 2}\n",
    "key twice, quoted and plain": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n    'name': b\n",
    "twice: an int and its quoted text (go-yaml v3 compares texts)": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  data:\n    1: a\n    '1': b\n",
    "plain scalar over lines": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n    namespace: b\n      c\n",
    "anchors across items": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: &n a\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: *n\n",
    "an alias to the envelope": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: *v\n",
    "int annotation": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/index: 0\n      config.kubernetes.io/path: x.yaml\n",
    "item ends in a block scalar": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  s: |+\n    x\n\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: b\n",
    "generateName": "- apiVersion: v1\n  kind: Pod\n  metadata:\n    generateName: a-\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    generateName: 1\n",
    "tab in a value": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\tb\n",
}


@pytest.mark.parametrize("name", sorted(FOOLED))
def test_fooled_scanners(name: str) -> None:
    head = "apiVersion: &v config.kubernetes.io/v1\n" if "envelope" in name else "apiVersion: config.kubernetes.io/v1\n"
    text = head + "kind: ResourceList\nitems:\n" + FOOLED[name]
    both(text)
    both(text.replace("\n", "\r\n"))


def test_plain_kpt_lists_take_the_fast_path() -> None:
    text = wrap("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/path: a.yaml\n")
    assert both(text)
    rl = read_resource_list(text.encode(), scan_from=0)
    assert [(item.checked, item._node) for item in rl.items] == [(True, None)]  # read as text, not composed


def test_generated() -> None:
    _generated(SUITE_GENERATED)


@pytest.mark.deep
def test_deep_generated() -> None:
    _generated(GENERATED)


def _generated(count: int) -> None:
    taken = plain = plain_taken = 0
    for seed in range(count):
        text, unmutated = case(seed)
        try:
            took = both(text, fork=seed % 10 == 0)  # on two cores for one in ten
        except AssertionError:
            raise AssertionError(f"seed {seed}: the paths differ on\n{text}") from None
        taken += took
        plain += unmutated
        plain_taken += unmutated and took
    assert plain_taken == plain, (plain_taken, plain)  # every unmutated kpt-shaped list
    assert taken >= count * 0.4, taken


def _tree(node, seen=None) -> object:
    """A node tree as plain data, positions included (aliases once)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return ("alias", node.start_mark.index)
    seen.add(id(node))
    marks = (node.start_mark.index, node.start_mark.line, node.start_mark.column,
             node.end_mark.index, node.end_mark.line, node.end_mark.column)
    if isinstance(node, yaml.MappingNode):
        value: object = [(_tree(k, seen), _tree(v, seen)) for k, v in node.value]
    elif isinstance(node, yaml.SequenceNode):
        value = [_tree(v, seen) for v in node.value]
    else:
        value = node.value
    return (type(node).__name__, node.tag, value, marks, getattr(node, "style", None), getattr(node, "flow_style", None))


def _facts(item) -> tuple:
    return (item.start, item.end, item.api_version, item.kind, item.name, item.namespace, item.column,
            item.is_mapping, item.annotations(), item.file(), item.has_generate_name(),
            [item.annotation(k) for k in item.annotations()])


def test_items_read_alike() -> None:
    """What the scanner reads of an item passed as text, and its node composed later from its own lines,
    are what the full reader makes of it: positions, tags, styles, facts."""
    compared = 0
    for seed in range(0, GENERATED, 4):
        text, _ = case(seed)
        data = text.encode()
        fast = fastread.scan(text)
        if fast is None:
            continue
        full = read_resource_list(data, scan_from=None)
        assert len(fast.items) == len(full.items)
        for a, b in zip(fast.items, full.items):
            assert _facts(a) == _facts(b), seed
            assert _tree(a.node) == _tree(b.node), seed
            compared += a.checked
        assert [(k.value, k.start_mark.index) for k, _ in fast.root.value] == \
            [(k.value, k.start_mark.index) for k, _ in full.root.value]
        assert fast.items_node.start_mark.index == full.items_node.start_mark.index
        assert (fast.function_config is None) == (full.function_config is None)
        if fast.function_config is not None:
            assert _tree(fast.function_config) == _tree(full.function_config), seed
    assert compared > 300, compared


ENVELOPE_ALIASES = {
    # the entry after the items aliases a node before them: it stays where it is
    "tail-aliases-head": "results:\n- message: &m old\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n"
                         "last: {a: *m}\n",
    # two entries after the items share a node: it moves once
    "tail-shares-a-node": "items:\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\nlast: &t {a: [1]}\n"
                          "more: *t\nother: [*t]\n",
}


@pytest.mark.parametrize("body", ENVELOPE_ALIASES.values(), ids=ENVELOPE_ALIASES.keys())
def test_the_envelope_around_the_items_is_where_the_full_reader_has_it(body: str) -> None:
    """The entries after `items` are composed with those before them, then moved to their place in the text:
    a node an alias shares moves once, and a node before the items stays (issue #19: the old results'
    positions were moved, so the writer did not see an alias of them)."""
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n" + body
    fast = fastread.scan(text)
    assert fast is not None
    full = read_resource_list(text.encode(), scan_from=None)
    for (fk, fv), (k, v) in zip(fast.root.value, full.root.value):
        if k.value != "items":
            assert (_tree(fk), _tree(fv)) == (_tree(k), _tree(v)), k.value
    assert both(text)


class _Forgetful(dict):
    """A `_programs` that keeps no program: every item's scan is worked out afresh."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def test_programs_replay_fresh_scans(monkeypatch) -> None:
    """An item's scan is worked out once per sequence of line shapes and replayed for every item of that
    sequence (fastread._programs): the replayed facts are the facts a fresh scan finds, item by item,
    whether the programs were learnt from the same list or from the lists before it."""
    def facts(text: str) -> list | None:
        rl = fastread.scan(text)
        return None if rl is None else [(i.checked, _facts(i)) for i in rl.items]

    texts = [case(seed)[0] for seed in range(0, GENERATED, 3)]
    try:
        with monkeypatch.context() as m:
            m.setattr(fastread, "_programs", _Forgetful())
            fresh = []
            for text in texts:
                fastread.reset()
                fresh.append(facts(text))
        fastread.reset()
        for _ in range(2):  # learnt from the lists before (and this one), then replayed
            for seed, (text, expected) in enumerate(zip(texts, fresh)):
                assert facts(text) == expected, seed * 3
        learnt = len(fastread._programs)
    finally:
        fastread.reset()
    assert sum(f is not None for f in fresh) > 300
    assert learnt < sum(len(f) for f in fresh if f is not None) / 4, learnt  # mostly replayed


def test_small_caches_change_nothing(monkeypatch) -> None:
    """The scanner's caches are bounded (fastread.LIMITS): emptied between items when full, they are
    learnt again, and the facts stay those of a fresh scan."""
    texts = [case(seed)[0] for seed in range(0, 400, 7)]
    try:
        with monkeypatch.context() as m:
            m.setattr(fastread, "_programs", _Forgetful())
            fresh = []
            for text in texts:
                fastread.reset()
                rl = fastread.scan(text)
                fresh.append(None if rl is None else [_facts(i) for i in rl.items])
        monkeypatch.setattr(fastread, "LIMITS", (40, 3, 25))
        fastread.reset()
        for seed, (text, expected) in enumerate(zip(texts, fresh)):
            rl = fastread.scan(text)
            assert (None if rl is None else [_facts(i) for i in rl.items]) == expected, seed * 7
            assert len(fastread._programs) <= 3 + 1 and len(fastread._sids) <= 40 + 80
    finally:
        fastread.reset()


def test_items_keep_their_fields_in_slots() -> None:
    """One Item type for every item, its attributes in slots (no per-item dict: a large list has hundreds
    of thousands of items), whether the scan read it or it was composed."""
    text = SPLIT_LISTS["flow entries and a Workspace"]
    rl = fastread.scan(text)
    assert any(i.checked for i in rl.items) and not all(i.checked for i in rl.items)
    full = read_resource_list(text.encode(), scan_from=None)
    for item in rl.items + full.items:
        assert not hasattr(item, "__dict__")
        assert type(item) is type(full.items[0])


# --- lists the line scanner does not read (issue 19 class 4): entries found by the parser's events ----------

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
_SVC = "{apiVersion: v1, kind: Service, metadata: {name: s%d, labels: {app: a}}}"
_WS = ('{apiVersion: kaito.sh/v1beta1, kind: Workspace, metadata: {name: phi, namespace: ml, annotations: '
       '{kaito.sh/enable-speculative-decoding: "true"}}, inference: {preset: {name: phi-4}}}')


def _objects(n: int) -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"s{i}", "namespace": "é"}} for i in range(n)]


def _json(items: list, indent: int | None = None, **more: object) -> str:
    import json
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items, **more},
                      indent=indent, ensure_ascii=False) + "\n"


_WS_DATA = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
            "metadata": {"name": "phi", "namespace": "ml", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
            "inference": {"preset": {"name": "phi-4"}}}
SPLIT_LISTS = {
    "flow entries": RL + "items:\n" + "".join(f"- {_SVC % i}\n" for i in range(3)),
    "flow entries and a Workspace": RL + "items:\n" + f"- {_SVC % 0}\n- {_WS}\n- {_SVC % 1}  # c\n",
    "more entries than a run": RL + "items:\n" + "".join(f"- {_SVC % i}\n" for i in range(fastread.RUN * 2 + 3)),
    "one-line JSON": _json(_objects(3)),
    "one-line JSON, no final line break": _json(_objects(3)).rstrip("\n"),
    "one-line JSON with a Workspace and a functionConfig": _json(_objects(2) + [_WS_DATA],
                                                              functionConfig={"data": {"mode": "validate"}}),
    "pretty JSON": _json(_objects(4), indent=2),
    "pretty JSON with a Workspace": _json([_WS_DATA] + _objects(2), indent=4),
    "a flow list in a block envelope": RL + f"items: [{_SVC % 0},\n  {_SVC % 1}, # c\n  {_SVC % 2}]\n",
    "indented block entries": RL + "items:\n" + "".join(
        f"  - apiVersion: v1\n    kind: Service\n    metadata:\n      name: s{i}\n    spec: {{a: [1, {{b: c}}]}}\n"
        for i in range(3)),
    "indented entries with comments between": RL + "items:\n  # first\n  - apiVersion: v1\n    kind: Service\n"
        "    metadata: {name: a}\n  # - not an entry\n\n  -   # the second\n    apiVersion: v1\n    kind: Service\n"
        "    metadata: {name: b}\n",
}
# What the events path leaves to the full reader (it words the error, or finds what anchors tie together).
SPLIT_REFUSED = {
    "an anchor": RL + f"items: [{_SVC % 0}, &a {_SVC % 1}, *a]\n",
    "an item that is not a mapping": _json(_objects(1) + ["x"]),
    "items twice": RL + f"items: [{_SVC % 0}]\nitems: [{_SVC % 1}]\n",
    "two documents": _json(_objects(1)) + "---\n" + _json(_objects(1)),
    "not a ResourceList": '{"apiVersion": "v1", "kind": "Pod", "items": [{"a": 1}]}\n',
    "nesting too deep": RL + "items: [" + "[" * 300 + "]" * 300 + "]\n",
}


def _read_alike(text: str) -> None:
    fast, full = fastread.scan(text), read_resource_list(text.encode(), scan_from=None)
    assert fast is not None
    assert len(fast.items) == len(full.items)
    for a, b in zip(fast.items, full.items):
        assert _facts(a) == _facts(b)
        assert _tree(a.node) == _tree(b.node)
    assert [(k.value, k.start_mark.index) for k, _ in fast.root.value] == \
        [(k.value, k.start_mark.index) for k, _ in full.root.value]
    assert (fast.items_node.start_mark.index, fast.items_node.flow_style) == \
        (full.items_node.start_mark.index, full.items_node.flow_style)
    assert fast.splicable == full.splicable
    assert (fast.function_config is None) == (full.function_config is None)
    if fast.function_config is not None:
        assert _tree(fast.function_config) == _tree(full.function_config)


@pytest.mark.parametrize("name", sorted(SPLIT_LISTS))
def test_lists_the_line_scanner_does_not_read_take_the_fast_path(name: str) -> None:
    """Flow entries, JSON (one line or pretty), entries not at column 0: found by the parser's events and
    composed a run at a time, the ones no stage looks into kept without their nodes. The same output as the
    full reader's, and the same items (facts, nodes and positions)."""
    text = SPLIT_LISTS[name]
    assert both(text), "the fast path was not taken"
    _read_alike(text)


def test_entries_no_stage_looks_into_keep_no_node() -> None:
    text = SPLIT_LISTS["flow entries and a Workspace"]
    rl = fastread.scan(text)
    kept = [it.kind for it in rl.items if not it.checked]
    assert kept == ["Workspace"]
    assert all(it._node is None for it in rl.items if it.checked)


@pytest.mark.parametrize("name", sorted(SPLIT_REFUSED))
def test_what_the_events_path_leaves_to_the_full_reader(name: str) -> None:
    text = SPLIT_REFUSED[name]
    assert fastread.scan(text) is None
    assert not both(text)
