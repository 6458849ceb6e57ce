"""The opt-in annotation where KAITO does not read it, which passes admission and silently does nothing: on
an InferenceSet's own `metadata.annotations` (KAITO reads `spec.template.metadata.annotations`, SD408),
under `labels:` (SD414), anywhere else (SD415), or a key almost the opt-in's (SD416: KAITO compares keys
exactly, and so does this function for the plain workloads and KServe services it reads). Said before the error
gate, so the warning shows even when something else stops the run.
"""

from collections.abc import Iterator
from difflib import SequenceMatcher

from ..domain import constants as C
from ..domain import kinds
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.index import Index, Workload
from ..model.report import about
from ..text.results import Finding, Result, finding

# How alike a key must be to the opt-in's to be taken for a misspelling of it: `…/enable-speculative-decode`
# and `…/enable-speculative-decodng` are, `kaito.sh/runtime` is not.
_ALIKE = 0.85
_DEPTH = 12  # the opt-in is never deeper than spec.template.metadata.annotations: no walk through big values
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
        found = finding("SD408", f"metadata.annotations[{C.ENABLE_ANNOTATION}]")
        out.append(about(found, w.item, proposed_value=TEMPLATE_ANNOTATIONS))
    for w in index.workloads:
        out.extend(_elsewhere(w, plan.data_of(w.item)))
    for p in index.plain:
        # A plain workload's opt-in is read at its kind's opt_in_paths (docs/plain-vllm.md): the first names it.
        right = kinds.dotted(p.spec.opt_in_paths[0])
        out.extend(about(found, p.item, proposed_value=C.ENABLE_ANNOTATION)
                   for found in _near_misses(plan.data_of(p.item), right))
    return step(out)


def _near(key: str) -> bool:
    if key == C.ENABLE_ANNOTATION:
        return False
    low = key.lower()
    if low == C.ENABLE_ANNOTATION:
        return True
    # A ratio of 0.85 needs lengths within about a sixth of each other: most keys are ruled out without
    # comparing them.
    if abs(len(low) - len(C.ENABLE_ANNOTATION)) > 6:
        return False
    return SequenceMatcher(None, low, C.ENABLE_ANNOTATION).ratio() >= _ALIKE


def _keys(data: object, path: kinds.Path = ()) -> Iterator[tuple[kinds.Path, str]]:
    """(path of the mapping, key) for every string key of every mapping in `data`, to a bounded depth."""
    if len(path) > _DEPTH:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str):
                yield path, key
                yield from _keys(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _keys(value, (*path, i))


def _elsewhere(w: Workload, data: object) -> list[Result]:
    """The opt-in key anywhere but where the kind's opt-in is read (and an InferenceSet's own metadata,
    SD408's), and near-misses of it among annotation and label keys."""
    right = kinds.dotted(w.spec.annotations)
    out = []
    for path, key in _keys(data):
        at = kinds.dotted(path)
        field = f"{at}[{key}]"
        if key == C.ENABLE_ANNOTATION:
            if path == w.spec.annotations or (w.spec is kinds.INFERENCESET and path == ("metadata", "annotations")):
                continue
            found = (finding("SD414", field, annotations=right) if path and path[-1] == "labels"
                     else finding("SD415", field, annotations=right))
            out.append(about(found, w.item, proposed_value=right))
        elif _near_miss(path, key):
            out.append(about(finding("SD416", field, annotations=right), w.item, proposed_value=C.ENABLE_ANNOTATION))
    return out


def _near_miss(path: kinds.Path, key: str) -> bool:
    """An annotation or label key almost the opt-in's."""
    return bool(path) and path[-1] in ("annotations", "labels") and _near(key)


def _near_misses(data: object, right: str) -> Iterator[Finding]:
    """SD416 for each annotation or label key almost the opt-in's (`right`: where the opt-in is read)."""
    for path, key in _keys(data):
        if _near_miss(path, key):
            yield finding("SD416", f"{kinds.dotted(path)}[{key}]", annotations=right)
