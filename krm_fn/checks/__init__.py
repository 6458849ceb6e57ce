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
from types import ModuleType
from typing import Protocol

from ..domain.kaito_releases import KaitoRelease
from ..model.config import Settings
from ..model.index import ABSENT, Workload
from ..model.report import about
from ..text.results import Finding, Result
from . import (adapters, annotation_value, inference_configmap, inference_or_tuning, label_selector,
    maintenance_window, name_label, preset_and_template, preset_required, preset_supported, replicas, roles,
    served, string_fields, vllm_runtime, workspace_annotations)


class WorkloadCheck(Protocol):
    """What every workload check module declares (read-only: a module's constants are its own)."""

    @property
    def ID(self) -> str: ...  # its row in docs/checks.md
    @property
    def KINDS(self) -> tuple[str, ...]: ...  # the kinds it applies to
    @property
    def SINCE(self) -> KaitoRelease: ...  # the KAITO release that brought the rule: older ones are not checked


class OptInCheck(WorkloadCheck, Protocol):
    def check(self, w: Workload, settings: Settings | None = None) -> Finding | None: ...


class AdmissionCheck(WorkloadCheck, Protocol):
    def findings(self, w: Workload, settings: Settings | None = None) -> list[Finding]: ...


OPT_IN: tuple[OptInCheck, ...] = (annotation_value, preset_required, vllm_runtime)
ADMISSION: tuple[AdmissionCheck, ...] = (
    served, name_label, string_fields, inference_or_tuning, preset_and_template, preset_supported, roles,
    label_selector, replicas, maintenance_window, workspace_annotations, adapters)
# Every check module, for docs/checks.md's table (inference_configmap's rules apply to a referenced ConfigMap).
CHECKS: tuple[ModuleType, ...] = (
    annotation_value, preset_required, vllm_runtime, served, name_label, string_fields, inference_or_tuning,
    preset_and_template, preset_supported, roles, label_selector, replicas, maintenance_window, workspace_annotations,
    adapters, inference_configmap)


def applies(check: WorkloadCheck, w: Workload, settings: Settings | None) -> bool:
    """`check` judges `w`: its kind, on a KAITO release that has its rule (no settings: the newest rules)."""
    return w.spec.kind in check.KINDS and (settings is None or settings.kaito_version >= check.SINCE)


def validate(workloads: Iterable[Workload], settings: Settings) -> list[Result]:
    """The opt-in checks (the first failing one) and every admission rule KAITO would refuse the object by.
    The plan drops the ids the `disable` setting turns off before its error gate."""
    out = []
    for w in workloads:
        if w.value is ABSENT or w.value == "false":
            continue
        for check in OPT_IN:
            found = check.check(w, settings) if applies(check, w, settings) else None
            if found is not None:
                out.append(about(found, w.item, current_value=w.value))
                break
        for rule in ADMISSION:
            if applies(rule, w, settings):
                out += [about(f, w.item) for f in rule.findings(w, settings)]
    return out
