"""The opt-in annotation where KAITO does not read it (issue 11).

KAITO reads an InferenceSet's opt-in from `spec.template.metadata.annotations` (KAITO's
documentation: "InferenceSet: spec.template.metadata.annotations"). The same key on the InferenceSet's own
`metadata.annotations` passes admission and does nothing: speculative decoding silently never happens. This
stage says so before the error gate, so the warning shows even when something else stops the run.
"""
from __future__ import annotations

from . import constants as C
from . import kinds
from .changes import Plan, Step, step
from .config import Settings
from .index import Index
from .report import about
from .results import Severity

FINDINGS = {
    "SD408": "the annotation on an InferenceSet's own metadata, where KAITO does not read it",
}
TEMPLATE_ANNOTATIONS = "spec.template.metadata.annotations"


def misplaced_annotation(index: Index, settings: Settings, plan: Plan) -> Step:
    """A warning per InferenceSet whose own metadata carries the opt-in annotation."""
    out = []
    for w in index.workloads:
        if w.spec is not kinds.INFERENCESET:
            continue
        own = kinds.get(plan.data_of(w.item), ("metadata", "annotations"))
        if not isinstance(own, dict) or C.ENABLE_ANNOTATION not in own:
            continue
        out.append(about(Severity.WARNING, f"annotation {C.ENABLE_ANNOTATION} is on the InferenceSet's own metadata, where KAITO does not read it: speculative decoding is not enabled by it; move it to {TEMPLATE_ANNOTATIONS}", w.item, f"metadata.annotations[{C.ENABLE_ANNOTATION}]", id="SD408", proposed_value=TEMPLATE_ANNOTATIONS))
    return step(out)
