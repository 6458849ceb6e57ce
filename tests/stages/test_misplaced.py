"""misplaced_annotation: the opt-in on an InferenceSet's own metadata, where KAITO does not read it."""
from __future__ import annotations

from krm_fn.model.changes import Plan
from krm_fn.model.config import Settings
from krm_fn.stages.misplaced import misplaced_annotation
from stages.stagekit import index, inferenceset, workspace

OWN = "  annotations:\n    kaito.sh/enable-speculative-decoding: \"true\"\n"


def _found(*docs: str) -> list[tuple[str, str, str, object]]:
    step = misplaced_annotation(index(*docs), Settings(), Plan())
    return [(r.id, r.severity.value, r.field_path, r.proposed_value) for r in step.results]


def test_the_annotation_on_an_inferencesets_own_metadata_is_a_warning_naming_where_it_goes():
    own = inferenceset("set").replace("  namespace: ns\n", "  namespace: ns\n" + OWN, 1)
    assert _found(own) == [("SD408", "warning", "metadata.annotations[kaito.sh/enable-speculative-decoding]",
                            "spec.template.metadata.annotations")]


def test_the_template_annotation_and_other_kinds_are_where_kaito_reads_them():
    assert _found(inferenceset("set", annotation="true")) == []
    assert _found(workspace("w", annotation="true")) == []  # a Workspace's own metadata is its place
    assert _found(inferenceset("set")) == []
