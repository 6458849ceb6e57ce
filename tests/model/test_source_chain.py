"""revert and decide: a derived ConfigMap whose recorded source is another derived ConfigMap (a hand edit, or
an anchor and alias shared between the two: the fuzzer's `anchor-alias` on seed `disable-reverts`) is
followed back to the user's ConfigMap, or to none. Restoring the reference to a derived ConfigMap left a
reference that the next run reverted again: not a fixpoint."""
from __future__ import annotations

import pytest

from krm_fn.stages.decide import decide
from krm_fn.model.decisions import Inject, source_of
from krm_fn.stages.materialize import revert

from stages.stagekit import configmap, index, messages, run, workspace

DERIVED_ANN = "kaito-specdec.dev/derived"
SOURCE = "kaito-specdec.dev/source-configmap"
X, Y, Z = "cfg-specdec-0123456789", "specdec-mtp-0123456789", "cfg-specdec-abcdef0123"


def derived(name: str, source: str | None = None) -> str:
    return configmap(name, annotations={DERIVED_ANN: "true", **({SOURCE: source} if source else {})})


RESTORED = ("SD322", "info", 'speculative decoding is disabled: reference restored to ConfigMap "cfg"')
REMOVED = ("SD323", "info", "speculative decoding is disabled: derived ConfigMap reference removed")
SET = {"op": "add", "path": "/inference/config", "value": "cfg"}
REMOVE = {"op": "remove", "path": "/inference/config"}

# (id, ConfigMaps beside a disabled Workspace referencing X, the op on the reference, the result)
CHAINS = [
    ("source-is-the-users", [configmap("cfg"), derived(X, "cfg")], SET, RESTORED),
    ("source-is-derived-from-nothing", [derived(X, Y), derived(Y)], REMOVE, REMOVED),
    ("source-is-derived-from-the-users", [configmap("cfg"), derived(X, Z), derived(Z, "cfg")], SET, RESTORED),
    ("source-is-gone-but-named-as-derived-from-nothing", [derived(X, Y)], REMOVE, REMOVED),
    ("source-is-itself", [derived(X, X)], REMOVE, REMOVED),
    ("sources-in-a-circle", [derived(X, Z), derived(Z, X)], REMOVE, REMOVED),
]


@pytest.mark.parametrize("cms, op, result", [c[1:] for c in CHAINS], ids=[c[0] for c in CHAINS])
def test_revert_follows_derived_sources_back_to_the_users(cms, op, result):
    s = run(revert, index(workspace("a", annotation="false", config=X), *cms))
    assert dict(s.ops) == {0: (op,)}
    assert messages(s) == [result]


@pytest.mark.parametrize("cms, op, result", [c[1:] for c in CHAINS], ids=[c[0] for c in CHAINS])
def test_a_second_revert_changes_nothing(cms, op, result):
    """What the first revert writes is left alone by the next run (the fixpoint the fuzzer missed)."""
    ref = op.get("value")
    again = run(revert, index(workspace("a", annotation="false", config=ref), *cms))
    assert (dict(again.ops), again.results) == ({}, ())


def test_an_enabled_workload_is_derived_from_the_users_configmap_at_the_chains_end():
    idx = index(workspace("a", annotation="true", config=X), configmap("cfg"), derived(X, Z), derived(Z, "cfg"))
    (d,) = run(decide, idx).decisions
    assert isinstance(d, Inject) and (d.current, d.source_name, d.source.name, d.via_derived) == (X, "cfg", "cfg", True)
    assert source_of(idx, "ns", X)[:2] == ("cfg", d.source)
