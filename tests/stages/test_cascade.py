"""cascade: parents to the children KAITO creates, as a step (ops, rewrites, results); nothing mutated."""
from __future__ import annotations

from types import MappingProxyType

import pytest

from krm_fn.stages.cascade import cascade
from krm_fn.stages.shape import typed_metadata
from krm_fn.model.changes import Plan
from krm_fn.model.config import GATE_MRI, Settings
from krm_fn.model.index import ABSENT

from stages.stagekit import index, inferenceset, messages, mri, run, workspace

CREATED_BY = "inferenceset.kaito.sh/created-by"
ANN = "/metadata/annotations/kaito.sh~1enable-speculative-decoding"
GATE_OFF = Settings(feature_gates=MappingProxyType({GATE_MRI: False}))


def _ws(annotation=None, owner="set", **kw):
    return workspace("set-0", annotation=annotation, labels={CREATED_BY: owner}, **kw)


@pytest.mark.parametrize("parent,child,ops,expected", [
    pytest.param("true", None, [{"op": "add", "path": "/metadata/annotations",
                                 "value": {"kaito.sh/enable-speculative-decoding": "true"}}],
                 ("SD205", "info", 'set to "true" from InferenceSet '
                                   '"set" (KAITO propagates it to the Workspaces it creates)'), id="set"),
    pytest.param("false", "true", [{"op": "add", "path": ANN, "value": "false"}],
                 ("SD205", "info", 'set to "false" from InferenceSet '
                                   '"set" (KAITO propagates it to the Workspaces it creates)'), id="replaced"),
    pytest.param(None, "true", [{"op": "remove", "path": "/metadata/annotations"}],
                 ("SD206", "info", "removed, as on InferenceSet "
                                   '"set" (KAITO propagates it to the Workspaces it creates)'), id="removed"),
])
def test_an_inferenceset_passes_its_annotation_to_its_workspaces(parent, child, ops, expected):
    idx = index(inferenceset("set", annotation=parent), _ws(child))
    step = run(cascade, idx)
    assert dict(step.ops) == {1: tuple(ops)}
    assert messages(step)[0] == expected
    # A value written on the child decides nothing: an info says so (SD207)
    assert [r.id for r in step.results[1:]] == ([] if child is None else ["SD207"])
    assert step.results[0].change and step.results[0].field_path == \
        "metadata.annotations[kaito.sh/enable-speculative-decoding]"
    assert step.results[0].proposed_value == (None if parent is None else parent)
    # The index is read-only: the child as read is unchanged; the plan has it as cascaded.
    assert idx.workloads[1].value == (ABSENT if child is None else child)
    planned = Plan().then(step).workload(idx.workloads[1])
    assert planned.value == (ABSENT if parent is None else parent)


@pytest.mark.parametrize("value", ["true", "false", None])
def test_a_child_that_already_agrees_gets_nothing(value):
    step = run(cascade, index(inferenceset("set", annotation=value), _ws(value)))
    assert (dict(step.ops), step.results) == ({}, ())


def test_a_workspace_is_a_child_by_its_label_in_the_same_namespace_only():
    idx = index(inferenceset("set", annotation="true"), _ws(owner="other"),
                workspace("w", labels={CREATED_BY: "set"}, namespace="elsewhere"))
    step = run(cascade, idx)
    assert (dict(step.ops), step.results) == ({}, ())


def test_a_parent_with_an_invalid_value_passes_nothing_on():
    """Its own error is the validate stage's; copying the value would only repeat it."""
    step = run(cascade, index(inferenceset("set", annotation="yes"), _ws()))
    assert (dict(step.ops), step.results) == ({}, ())


def test_parents_that_disagree_leave_the_child_as_it_is():
    step = run(cascade, index(inferenceset("set", annotation="true"), inferenceset("set", annotation="false"), _ws()))
    assert dict(step.ops) == {}
    assert messages(step) == [("SD202", "warning", 'claimed by InferenceSet "set" (2 objects of that name), which '
                                                   "disagree on the opt-in; left as it is")]


def test_parents_that_agree_are_one_claim():
    step = run(cascade, index(inferenceset("set", annotation="true"), inferenceset("set", annotation="true"), _ws()))
    assert list(step.ops) == [2] and [r.id for r in step.results] == ["SD205"]


def test_a_child_whose_annotations_are_not_a_mapping_is_left_as_it_is_and_said_once():
    child = ("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n  namespace: ns\n"
             f"  labels:\n    {CREATED_BY}: set\n  annotations: [a]\ninference:\n  preset:\n    name: phi-4\n")
    step = run(cascade, index(inferenceset("set", annotation="true"), child))
    assert dict(step.ops) == {}
    assert messages(step) == []  # SD067's (shape.typed_metadata), said of every object whose annotations are no mapping
    assert [(r.id, r.field_path) for r in typed_metadata(index(child))] == [("SD067", "metadata.annotations")]


ON = {"kaito.sh/enable-speculative-decoding": "true"}


def test_a_multiroleinference_rewrites_its_children_as_its_controller_does():
    idx = index(mri("m", annotations=ON, configs=("cfg-p", None)),
                inferenceset("m-prefill", preset="Qwen/Qwen3.5-9B", config="cfg-p"),
                inferenceset("m-decode", preset="Qwen/Qwen3.5-9B"))
    step = run(cascade, idx)
    # The opt-in key is written to both children; the rest of the rewrite is only how they are checked.
    assert sorted(step.ops) == [1, 2]
    assert step.ops[1] == ({"op": "add", "path": "/spec/template/metadata", "value": {"annotations": ON}},)
    assert sorted(step.rewrites) == [1, 2]
    assert step.rewrites[1].by.name == "m"
    template = step.rewrites[1].data["spec"]["template"]
    assert template["inference"] == {"preset": {"name": "Qwen/Qwen3.5-9B"}, "config": "cfg-p"}
    assert template["metadata"]["annotations"] == ON
    assert "config" not in step.rewrites[2].data["spec"]["template"]["inference"]
    assert [r.id for r in step.results] == ["SD205", "SD205"]
    planned = Plan().then(step).workload(idx.workloads[1])
    assert (planned.value, planned.rewritten_by.name, planned.effective) == ("true", "m", step.rewrites[1].data)


def test_a_child_that_differs_from_its_multiroleinference_is_warned_about():
    idx = index(mri("m", annotations=ON, configs=("cfg-p", None)),
                inferenceset("m-prefill", annotation="true", preset="phi-4", config="mine"))
    step = run(cascade, idx)
    assert dict(step.ops) == {}
    assert messages(step) == [("SD204", "warning", 'differs from what MultiRoleInference "m" makes of it '
                               "(spec.template.inference.preset.name, spec.template.inference.config): KAITO's "
                               "controller replaces these from the MultiRoleInference, so it is checked and decided "
                               "as KAITO will run it; update the file to match")]
    assert step.results[0].field_path == "spec.template.inference.preset.name"


def test_a_multiroleinference_without_annotations_rewrites_but_copies_no_annotation():
    """KAITO copies annotations only when the MultiRoleInference has some: the child keeps its own."""
    idx = index(mri("m"), inferenceset("m-prefill", annotation="true", preset="Qwen/Qwen3.5-9B"))
    step = run(cascade, idx)
    assert dict(step.ops) == {} and list(step.rewrites) == [1]
    assert Plan().then(step).workload(idx.workloads[1]).value == "true"
    # Neither side opts in? Then no warning about differences either.
    quiet = run(cascade, index(mri("m"), inferenceset("m-prefill", preset="phi-4")))
    assert (quiet.results, list(quiet.rewrites)) == ((), [1])


def test_two_levels_in_one_step_the_inferenceset_passes_on_what_its_multiroleinference_gave_it():
    idx = index(mri("m", annotations=ON), inferenceset("m-decode", preset="Qwen/Qwen3.5-9B"),
                workspace("m-decode-0", labels={CREATED_BY: "m-decode"}))
    step = run(cascade, idx)
    assert sorted(step.ops) == [1, 2]
    assert [(r.id, r.resource.kind) for r in step.results] == [("SD205", "InferenceSet"), ("SD205", "Workspace")]


def test_with_the_multiroleinference_controller_off_nothing_cascades_from_it():
    idx = index(mri("m", annotations=ON), inferenceset("m-decode", preset="Qwen/Qwen3.5-9B"),
                inferenceset("set", annotation="true"), _ws())
    step = run(cascade, idx, GATE_OFF)
    assert list(step.rewrites) == [] and list(step.ops) == [3]  # the InferenceSet -> Workspace level still runs
    assert messages(step)[0] == ("SD201", "warning", "KAITO runs with the feature gate "
                                 "enableMultiRoleInferenceController=false (featureGates setting): it creates no "
                                 "InferenceSets for a MultiRoleInference, so nothing cascades from it")
    # Only a MultiRoleInference that carries the annotation is told about.
    assert run(cascade, index(mri("m")), GATE_OFF).results == ()


def test_the_rewrite_carries_the_model_access_secret_as_kaitos_controller_writes_it():
    doc = mri("m", annotations=ON).replace("    name: Qwen/Qwen3.5-9B\n",
                                           "    name: Qwen/Qwen3.5-9B\n    modelAccessSecret: hf-token\n")
    step = run(cascade, index(doc, inferenceset("m-decode", preset="Qwen/Qwen3.5-9B")))
    assert step.rewrites[1].data["spec"]["template"]["inference"]["preset"] == {
        "name": "Qwen/Qwen3.5-9B", "presetOptions": {"modelAccessSecret": "hf-token"}}


def test_a_child_with_an_empty_template_is_not_rewritten():
    """`template:` with nothing: no mapping to rewrite, and nothing that is not a mapping either."""
    child = ("apiVersion: kaito.sh/v1beta1\nkind: InferenceSet\nmetadata:\n  name: m-decode\n  namespace: ns\n"
             "spec:\n  template:\n")
    step = run(cascade, index(mri("m", annotations=ON), child))
    assert list(step.rewrites) == [] and [r.id for r in step.results] == ["SD205"]


def test_the_planned_value_is_the_one_the_cascade_writes_the_rewrite_supplies_the_rest():
    """A child with `spec: null`: the key is written into it (a new spec), so it is enabled as planned,
    while the rewrite, made from the child as it came, has no template: it is checked as having no preset."""
    child = "apiVersion: kaito.sh/v1beta1\nkind: InferenceSet\nmetadata:\n  name: m-decode\n  namespace: ns\nspec:\n"
    idx = index(mri("m", annotations=ON), child)
    step = run(cascade, idx)
    assert step.ops[1] == ({"op": "add", "path": "/spec", "value": {"template": {"metadata": {"annotations": ON}}}},)
    planned = Plan().then(step).workload(idx.workloads[1])
    assert (planned.value, planned.effective["spec"]) == ("true", None)


def test_a_value_written_on_a_child_is_told_to_be_overwritten():
    step = run(cascade, index(inferenceset("set", annotation="true"), _ws("false")))
    assert [(r.id, r.severity.value, r.message, r.field_path) for r in step.results[1:]] == [(
        "SD207", "info", '"false" here decides nothing: KAITO copies the annotation from InferenceSet "set", which says '
        '"true"; set it there (spec.template.metadata.annotations)',
        "metadata.annotations[kaito.sh/enable-speculative-decoding]")]


@pytest.mark.parametrize("config", ["specdec-ngram-80815d3ebc", "mine-specdec-4d1b1f0a2e"])
def test_a_true_from_an_earlier_cascade_is_no_mistake_of_the_user(config):
    """The child's "true" and its reference to a derived ConfigMap are this function's own output; the parent
    has been switched off since: SD206 tells the change, no SD207."""
    step = run(cascade, index(inferenceset("set"), _ws("true", config=config)))
    assert [r.id for r in step.results] == ["SD206"]
