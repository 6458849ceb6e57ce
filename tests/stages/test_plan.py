"""The plan as a value: steps fold in order; `plan()` is the stages, the error gate, `disable` and the
"[not written: …]" marking."""
from __future__ import annotations

import itertools
import re
import tokenize
from pathlib import Path

import pytest

from krm_fn.findings import CATALOGUE
from krm_fn.stages import advice, cascade, decide, materialize
from krm_fn.text.edits import Added, Changes
from krm_fn.model.changes import Plan, step
from krm_fn.model.config import Settings
from krm_fn.plan import CHANGES, CHECKS, plan
from krm_fn.text.results import Result, Severity

from stages.stagekit import configmap, inferenceset, items, workspace

ADD_X = {"op": "add", "path": "/metadata/labels", "value": {"x": "1"}}
ADD_Y = {"op": "add", "path": "/metadata/labels/y", "value": "2"}


def _result(message, **kw):
    return Result(Severity.INFO, message, **kw)


# --- folding ----------------------------------------------------------------------------------------

def test_steps_fold_in_order():
    first = step([_result("a")], ops={0: [ADD_X]}, added=[Added(0, {"kind": "ConfigMap"})])
    second = step([_result("b")], ops={0: [ADD_Y], 1: [ADD_X]}, removed=[2])
    folded = Plan().then(first).then(second)
    assert dict(folded.ops) == {0: (ADD_X, ADD_Y), 1: (ADD_X,)}
    assert [r.message for r in folded.results] == ["a", "b"]
    assert folded.added == (Added(0, {"kind": "ConfigMap"}),) and folded.removed == {2}
    combined = first.then(second)  # two steps fold into one step the same way
    assert (combined.ops, combined.added, combined.removed, combined.results) == \
        (folded.ops, folded.added, folded.removed, folded.results)


def test_a_removed_item_has_no_ops():
    folded = Plan().then(step(ops={1: [ADD_X]})).then(step(removed=[1])).then(step(ops={1: [ADD_Y]}))
    assert (dict(folded.ops), folded.removed) == ({}, {1})


def test_a_plan_is_a_value():
    p = Plan().then(step(ops={0: [ADD_X]}))
    with pytest.raises(AttributeError):
        p.results = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.ops[1] = ()  # type: ignore[index]
    assert Plan().then(step(ops={0: [ADD_X]})) == p


def test_data_of_applies_the_ops_planned_so_far_and_leaves_the_item_alone():
    (item,) = items(workspace("w"))
    before = item.data()
    one = Plan().then(step(ops={0: [ADD_X]}))
    two = one.then(step(ops={0: [ADD_Y]}))
    assert one.data_of(item)["metadata"]["labels"] == {"x": "1"}
    assert two.data_of(item)["metadata"]["labels"] == {"x": "1", "y": "2"}
    assert one.data_of(item)["metadata"]["labels"] == {"x": "1"}  # the earlier plan still says what it said
    assert item.data() is before and "labels" not in before["metadata"]
    assert Plan().data_of(item) is before


def test_changes_are_what_the_writer_needs_and_removing_more_drops_their_ops():
    p = Plan().then(step(ops={0: [ADD_X], 3: [ADD_Y]}, added=[Added(0, {})], removed=[1]))
    changes = p.changes
    assert (dict(changes.patches), changes.added, changes.removed) == ({0: (ADD_X,), 3: (ADD_Y,)}, (Added(0, {}),), {1})
    assert changes.added_after() == {0: [{}]} and not changes.empty and Changes().empty
    fewer = changes.removing({3})
    assert (dict(fewer.patches), fewer.removed, dict(changes.patches)) == ({0: (ADD_X,)}, {1, 3}, {0: (ADD_X,), 3: (ADD_Y,)})


def test_the_stages_in_order():
    assert [s.__name__ for s in CHECKS + CHANGES] == ["cascade", "validate", "misplaced_annotation", "plain_opt_in",
                                                      "decide", "materialize", "advise", "revert", "rollout_notes", "retire",
                                                      "plain_vllm", "prometheus_rules", "grafana_dashboards"]


# --- plan(): the gate, disable, not written -------------------------------------------------------

BROKEN = configmap("cfg", None)  # no inference_config.yaml: KAITO refuses it (SD123, an error after the gate)
# The user's override is a number: vLLM refuses it (SD401, an error after the gate that `disable` may name).
# (A null one vLLM reads as no config: a warning, SD617.)
NULL_OVERRIDE = configmap("cfg", "vllm:\n  speculative-config: 5\n")


def _run(*docs, **settings):
    return plan(items(*docs), Settings(**settings))


def test_an_error_stops_every_change_and_what_would_have_changed_says_it_was_not_written():
    changes, results = _run(workspace("a", annotation="true", config="cfg"), BROKEN, workspace("b", annotation="true"))
    assert changes.empty
    # SD428 (an info once a run): the vLLM release the KAITO workloads were judged by, vllmVersion being unset
    assert [(r.id, r.message.endswith("[not written: errors]")) for r in results] == [
        ("SD123", False), ("SD301", True), ("SD428", False)]


def test_a_disabled_error_no_longer_blocks_writing():
    blocked, _ = _run(workspace("a", annotation="true", config="cfg"), NULL_OVERRIDE, workspace("b", annotation="true"))
    assert blocked.empty
    changes, results = _run(workspace("a", annotation="true", config="cfg"), NULL_OVERRIDE,
                            workspace("b", annotation="true"), disable=frozenset({"SD401"}))
    assert [a.after for a in changes.added] == [2] and list(changes.patches) == [2]
    assert [(r.id, r.message.endswith("]")) for r in results] == [("SD302", False), ("SD301", False), ("SD428", False)]


def test_a_disabled_error_before_the_gate_no_longer_blocks_either():
    unknown = workspace("w", annotation="true", preset="a-preset-of-a-newer-kaito")
    blocked, results = _run(unknown)
    assert blocked.empty and [r.id for r in results][0] == "SD112"
    changes, results = _run(unknown, disable=frozenset({"SD112"}))
    assert not changes.empty and "SD112" not in [r.id for r in results]


def test_disable_drops_warnings_and_infos_too():
    _, results = _run(workspace("a", annotation="true", config="elsewhere"), workspace("b", annotation="true"),
                      disable=frozenset({"SD304", "SD301", "SD428"}))
    assert results == []


def test_validate_mode_marks_exactly_the_results_that_tell_of_a_change():
    docs = (workspace("a", annotation="true"), workspace("b", annotation="true", config="elsewhere"),
            configmap("specdec-ngram-0123456789", annotations={"kaito-specdec.dev/derived": "true"}))
    changes, results = _run(*docs, mode="validate")
    assert changes.empty
    marked = {r.id: r.message.endswith(" [not written: mode validate]") for r in results}
    assert marked == {"SD301": True, "SD304": False, "SD332": True, "SD428": False}
    assert [r.id for r in results if r.change] == ["SD301", "SD332"]
    written, unmarked = _run(*docs)
    assert not written.empty and not any("not written" in r.message for r in unmarked)


def test_at_the_gate_errors_come_before_what_the_cascade_would_have_changed():
    """The order results had before the reshape: input problems, the gated stages' errors, then the rest;
    then what the objects without errors would get (issue #29: one error hides no other object's findings)."""
    _, results = _run(inferenceset("set", annotation="true"),
                      workspace("set-0", preset="nope", labels={"inferenceset.kaito.sh/created-by": "set"}))
    assert [(r.severity.value, r.id, r.resource and r.resource.name, r.message.endswith("[not written: errors]"))
            for r in results] == [
        ("error", "SD112", "set-0", False), ("info", "SD205", "set-0", True),
        ("info", "SD301", "set", True), ("info", "SD428", None, False), ("info", "SD427", "set", False)]


def test_change_is_not_emitted():
    assert "change" not in str(_result("a", change=True).to_krm())


# --- finding ids ----------------------------------------------------------------------------------

MODULES = {cascade: "SD2", decide: "SD3", materialize: "SD3", advice: "SD4"}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_finding_a_stage_emits_is_declared_once_with_its_id(module):
    from finding_ids import ids_used
    used = ids_used(module)
    # An id with message variants has one call site per variant (`finding("SD301.new", …)`).
    called = re.findall(r'\bfinding\(\s*"(SD[0-9]{3}(?:\.[A-Za-z0-9_-]+)?)"', Path(module.__file__).read_text())
    assert used and sorted(called) == sorted(set(called)), "one id (or variant), one call site"
    assert all(i.startswith(MODULES[module]) and i in CATALOGUE for i in used)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_no_message_is_split_across_string_literals(module):
    """So that grep finds a message seen in a result: no implicitly concatenated strings."""
    starts = {tokenize.STRING} | ({tokenize.FSTRING_START} if hasattr(tokenize, "FSTRING_START") else set())
    ends = {tokenize.STRING} | ({tokenize.FSTRING_END} if hasattr(tokenize, "FSTRING_END") else set())
    skip = {tokenize.NL, tokenize.COMMENT}
    with open(module.__file__, "rb") as f:
        tokens = [t for t in tokenize.tokenize(f.readline) if t.type not in skip]
    split = [b.start[0] for a, b in itertools.pairwise(tokens) if a.type in ends and b.type in starts]
    assert split == [], f"{module.__name__}: strings joined implicitly at lines {split}"


def test_ids_are_unique_across_the_stages():
    from finding_ids import ids_used
    ids = [i for m in MODULES for i in set(ids_used(m))]
    assert len(ids) == len(set(ids))
