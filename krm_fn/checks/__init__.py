"""KAITO's admission rules for the objects the function touches, one module each.

Every check module has `ID` (its name in docs/checks.md's table) and a docstring that quotes the KAITO rule
it mirrors, with PASS and FAIL examples; a workload check also has `KINDS` (the kinds `validate` runs it on).
Its findings are `Finding`s made from the catalogue (krm_fn/findings/kaito.py: SD1xx, every one an error).
Opt-in checks (`OPT_IN`): `check(workload, settings) -> Finding | None`; the first failing one is reported,
as KAITO's speculative-decoding webhook does.
Admission checks (`ADMISSION`): `findings(workload, settings) -> [Finding]`; every one is reported, as
KAITO's webhooks collect every FieldError (`errs.Also`).
`inference_configmap` holds the rules on a referenced ConfigMap (`problem(configmap, …)`, used when deciding).
"""

from collections.abc import Iterable

from ..model.config import Settings
from ..model.index import ABSENT, Workload
from ..model.report import about
from ..text.results import Result
from . import (adapters, annotation_value, inference_configmap, inference_or_tuning, label_selector,
    maintenance_window, name_label, preset_and_template, preset_required, preset_supported, replicas, roles,
    served, string_fields, vllm_runtime, workspace_annotations)

OPT_IN = (annotation_value, preset_required, vllm_runtime)
ADMISSION = (served, name_label, string_fields, inference_or_tuning, preset_and_template, preset_supported, roles,
             label_selector, replicas, maintenance_window, workspace_annotations, adapters)
CHECKS = OPT_IN + ADMISSION + (inference_configmap,)


def validate(workloads: Iterable[Workload], settings: Settings) -> list[Result]:
    """The opt-in checks (the first failing one) and every admission rule KAITO would refuse the object by.
    The plan drops the ids the `disable` setting turns off before its error gate."""
    out = []
    for w in workloads:
        if w.value is ABSENT or w.value == "false":
            continue
        for check in OPT_IN:
            found = check.check(w, settings) if w.spec.kind in check.KINDS else None
            if found is not None:
                out.append(about(found, w.item, current_value=w.value))
                break
        for rule in ADMISSION:
            if w.spec.kind in rule.KINDS:
                out += [about(f, w.item) for f in rule.findings(w, settings)]
    return out
