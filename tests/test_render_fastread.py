"""`render`'s scan of shapes (krm_fn/text/fastread.py, `scan_documents`) against composing every document, the
reference: the same documents read both ways (reader.read_stream's `scan_from`) must give the same stdout,
stderr and exit status. Every `render` run of every test already runs both ways (tests/runner.py); here:
every golden fixture's documents, the shared corpus, generated streams (tests/render_cases.py), read as
stdin and as the files of a folder; the documents' facts and lazily composed nodes against the composed
ones; a record of the sources the scan read proves it reads plain streams (and so that this test
compares something).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from golden import ROOT, case_env, cases
from render_cases import split, stream
from krm_fn.text import fastread, yamlio
from krm_fn.text.reader import read_stream
from runner import _once, reading
from test_fastread import CORPUS_FILES, _facts, _tree, scans, two_cores

GENERATED = 800  # the deep pass; the suite's test_generated takes the first SUITE_GENERATED
SUITE_GENERATED = 250

pytestmark = pytest.mark.skipif(not yamlio.C_AVAILABLE, reason="the fast path needs libyaml's C parser")


@pytest.fixture(autouse=True)
def _c_backend(c_backend):
    """The fast path needs libyaml: every test here runs on the C backend (tests/conftest.py)."""


def both(argv: list[str], data: str | bytes, env: dict | None = None, fork: bool = True) -> bool:
    """Run `render ARGV` with the scan tried however small the input, in one process and on two
    (krm_fn/text/parscan.py forced on for every source; `fork=False`: one process only), and with every document composed; assert the same outcome;
    whether the scan read a source."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with reading(0), scans() as read:
        fast = _once(["render", *argv], raw, env)
    if fork:
        with reading(0), two_cores():
            assert _once(["render", *argv], raw, env) == fast
    with reading(None):
        full = _once(["render", *argv], raw, env)
    took = bool(read)
    assert "Traceback" not in fast.err, fast.err
    assert (fast.code, fast.err) == (full.code, full.err)
    assert fast.out == full.out
    return took


def _fixture_streams() -> list[tuple[str, str]]:
    out = []
    for case in cases():
        for name in ("items.yaml", "input.yaml"):
            p = ROOT / case / name
            if p.exists():
                out.append((case, p.read_text(encoding="utf-8")))
    return out


def test_fixtures() -> None:
    streams = _fixture_streams()
    taken = sum(both(["-"], text, case_env(case)) for case, text in streams)
    assert taken >= len(streams) * 0.6, (taken, len(streams))  # most fixtures' documents are plain streams


def test_fixtures_as_a_folder(tmp_path: Path) -> None:
    for case, text in _fixture_streams()[::7]:
        folder = tmp_path / case
        folder.mkdir()
        for n, part in enumerate(split(text, random.Random(case))):
            (folder / f"{n:02}.yaml").write_text(part, encoding="utf-8")
        both([str(folder)], b"", case_env(case))


def test_corpus() -> None:
    if not CORPUS_FILES:
        pytest.skip("the shared corpus is not beside this checkout")
    taken = sum(both(["-"], path.read_bytes()) for path in CORPUS_FILES)
    assert taken >= len(CORPUS_FILES) * 0.5, (taken, len(CORPUS_FILES))
    # and as folders: every file of a corpus folder in one run (file names, document numbers, origins)
    for folder in sorted({p.parent for p in CORPUS_FILES})[::5]:
        both([str(folder)], b"")


def test_generated(tmp_path: Path) -> None:
    _generated(SUITE_GENERATED, tmp_path)


@pytest.mark.deep
def test_deep_generated(tmp_path: Path) -> None:
    _generated(GENERATED, tmp_path)


def _generated(count: int, tmp_path: Path) -> None:
    taken = plain = plain_taken = 0
    for seed in range(count):
        text, unmutated = stream(seed)
        try:
            took = both(["-"], text, fork=seed % 10 == 0)  # on two cores for one in ten
            if seed % 8 == 0:
                folder = tmp_path / str(seed)
                folder.mkdir()
                for n, part in enumerate(split(text, random.Random(seed))):
                    (folder / f"{n:02}.yaml").write_bytes(part.encode("utf-8"))
                both([str(folder)], b"", fork=False)
        except AssertionError:
            raise AssertionError(f"seed {seed}: the paths differ on\n{text!r}") from None
        taken += took
        plain += unmutated
        plain_taken += unmutated and took
    assert plain_taken == plain, (plain_taken, plain)  # every plain stream
    assert taken >= count * 0.3, taken


def test_plain_streams_pass_as_text(monkeypatch) -> None:
    """kustomize build / helm template output: ordinary objects are not composed at all."""
    text = ("# Source: chart/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n"
            "spec:\n  ports:\n  - port: 80\n---\n# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\n"
            "kind: Deployment\nmetadata:\n  name: b\n  labels: {app: b}\nspec:\n  replicas: 1\n---\n")
    assert both(["-"], text)
    stream = read_stream([("<stdin>", text.encode())], scan_from=0)
    assert [(item.checked, item._node) for item in stream.items] == [(True, None)] * 2
    composed = []
    real = fastread._compose_document
    monkeypatch.setattr(fastread, "_compose_document", lambda *args: composed.append(args) or real(*args))
    assert both(["-"], text)
    assert composed == []  # both documents passed, in one process and on two, and none composed on demand


@pytest.mark.parametrize("text", [
    "%YAML 1.1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n",
    "--- {apiVersion: v1, kind: Service, metadata: {name: a}}\n",
    "apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: a\r\n",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: a",
    "- apiVersion: v1\n  kind: Service\n",
])
def test_falls_back_where_its_assumptions_do_not_hold(text: str) -> None:
    assert fastread.scan_documents(text, 0) is None
    both(["-"], text)


def test_documents_read_alike() -> None:
    """What the scanner reads of a document passed as text, and its node composed later from its own
    lines, are what the full reader makes of it: positions, tags, styles, facts, head and tail comments."""
    compared = 0
    for seed in range(0, GENERATED, 3):
        text, _ = stream(seed)
        sources = [("<stdin>", text.encode("utf-8"))]
        if fastread.scan_documents(text, 0) is None:
            continue
        fast = read_stream(sources, scan_from=0)
        full = read_stream(sources, scan_from=None)
        assert len(fast.items) == len(full.items), seed
        for a, b in zip(fast.items, full.items):
            assert _facts(a) == _facts(b), seed
            assert (a.index, a.origin, a.origin_index, a.head, a.tail) == \
                (b.index, b.origin, b.origin_index, b.head, b.tail), seed
            assert _tree(a.node) == _tree(b.node), seed
            compared += a.checked
        assert fast.shared == full.shared and fast.function_config is None is full.function_config
    assert compared > 150, compared


# --- Lists among the documents (issue 19 class 4): `kubectl get -o yaml` / `-o json`, flow items, a ResourceList

def _list(items: list, indent: int | None = None, kind: str = "List", **more: object) -> str:
    import json
    api = "config.kubernetes.io/v1" if kind == "ResourceList" else "v1"
    return json.dumps({"apiVersion": api, "items": items, "kind": kind, **more}, indent=indent, ensure_ascii=False) + "\n"


def _objects(n: int) -> list[dict]:
    return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}", "namespace": "é"},
             "data": {"k": "v"}} for i in range(n)]


_WS = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
       "metadata": {"name": "phi", "namespace": "ml", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
       "inference": {"preset": {"name": "phi-4"}}}
_DOC = "# a document of its own\napiVersion: v1\nkind: Service\nmetadata:\n  name: alone\n"
LISTS = {
    "block List (kubectl get -o yaml)": "apiVersion: v1\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n  data:\n    k: |\n      v\n" for i in range(3))
        + "kind: List\nmetadata:\n  resourceVersion: \"\"\n",
    "pretty JSON List (kubectl get -o json)": _list(_objects(3), indent=4, metadata={"resourceVersion": ""}),
    "one-line JSON List": _list(_objects(3)),
    "one-line JSON List with a Workspace": _list(_objects(2) + [_WS]),
    "flow items": "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}, data: {{k: v}}}}\n" for i in range(3)),
    "more items than a run": _list(_objects(fastread.RUN + 5)),
    "a ResourceList with a functionConfig": _list(_objects(2), kind="ResourceList",
                                                  functionConfig={"apiVersion": "v1", "kind": "ConfigMap",
                                                                  "metadata": {"name": "fc"}, "data": {"mode": "validate"}}),
    "documents around a List": _DOC + "---\n" + _list(_objects(2), indent=2) + "---\n" + _DOC.replace("alone", "after"),
}


@pytest.mark.parametrize("name", sorted(LISTS))
def test_lists_take_the_fast_path(name: str) -> None:
    """A List's items are found by the parser's events and composed a run at a time (the ones no stage
    looks into kept without their nodes), never as one node tree of the whole list: the same output as
    the full reader's, and the same items (facts, numbers, comments, nodes and positions)."""
    text = LISTS[name]
    assert both(["-"], text), "the fast path was not taken"
    sources = [("<stdin>", text.encode("utf-8"))]
    fast, full = read_stream(sources, scan_from=0), read_stream(sources, scan_from=None)
    assert len(fast.items) == len(full.items)
    for a, b in zip(fast.items, full.items):
        assert _facts(a) == _facts(b)
        assert (a.index, a.origin, a.origin_index, a.head, a.tail) == (b.index, b.origin, b.origin_index, b.head, b.tail)
        assert _tree(a.node) == _tree(b.node)
    assert fast.shared == full.shared
    assert (fast.function_config is None) == (full.function_config is None)
    if full.function_config is not None:
        assert _tree(fast.function_config) == _tree(full.function_config)


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Service, metadata: &m {name: a}}, {kind: Service, metadata: *m}]\n",
    _list(_objects(1) + [[1, 2]]),
    "apiVersion: v1\nkind: List\nkind: List\nitems: [{apiVersion: v1, kind: Service, metadata: {name: a}}]\n",
])
def test_lists_the_events_path_leaves_to_the_full_reader(text: str) -> None:
    assert fastread.scan_documents(text, 0) is None
    both(["-"], text)
