"""writer: `render` strips orchestrator annotations whatever their value, on items it edits and on items it
does not (the fuzzer found a list-valued `internal.config.kubernetes.io/path` left on an edited Workspace:
class `deep`, seed `kpt-two-namespaces-one-folder`). Expected texts are written by hand."""
from __future__ import annotations

import pytest

from krm_fn.text import reader, writer
from krm_fn.text.edits import Changes

PATCH = {"op": "add", "path": "/metadata/namespace", "value": "ns"}
# Values an orchestrator annotation may be given by hand or by a broken tool (Kubernetes wants strings).
VALUES = ["'x.yaml'", "[]", "[[[a]]]", "{a: 1}", "12", "null", "|\n      x\n"]


def doc(value: str, keep: bool) -> str:
    value = value if value.endswith("\n") else value + "\n"
    return ("kind: A\nmetadata:\n  name: a\n  annotations:\n" + ("    keep: x\n" if keep else "")
            + "    internal.config.kubernetes.io/path: " + value + "    config.kubernetes.io/index: {b: c}\n"
            + "spec: 1\n")


def expected(keep: bool, patched: bool) -> str:
    return ("---\nkind: A\nmetadata:\n  name: a\n" + ("  annotations:\n    keep: x\n" if keep else "")
            + ("  namespace: ns\n" if patched else "") + "spec: 1\n")


CASES = [(value, keep, patched) for value in VALUES for keep in (True, False) for patched in (True, False)]


@pytest.mark.parametrize("value, keep, patched", CASES,
                         ids=[f"{v.split(chr(10))[0]}-{'keep' if k else 'all'}-{'patched' if p else 'as-is'}"
                              for v, k, p in CASES])
def test_orchestrator_annotations_go_whatever_their_value(value, keep, patched):
    stream = reader.read_stream([("f.yaml", doc(value, keep).encode())])
    change = Changes({0: (PATCH,)} if patched else {}, (), frozenset())
    assert writer.write_stream(stream, change) == expected(keep, patched)


def test_flow_style_annotations_with_a_list_value():
    """Flow style: no lines to cut, the ops remove them (the path the Workspace took)."""
    text = "kind: A\nmetadata: {name: a, annotations: {internal.config.kubernetes.io/path: [x], keep: y}}\n"
    stream = reader.read_stream([("f.yaml", text.encode())])
    out = writer.write_stream(stream, Changes({}, (), frozenset()))
    assert "internal.config" not in out and "keep: y" in out, out
