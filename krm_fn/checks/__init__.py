"""KAITO's admission rules for the objects the function touches, one module each (SPEC.md 3 and 5.3a).

Opt-in checks (`OPT_IN`): `ID`, `KINDS`, `check(workload, settings) -> str | None` (the exact message, or
None); the first failing one is reported, as KAITO's speculative-decoding webhook does.
Admission checks (`ADMISSION`): `ID`, `KINDS`, `findings(workload, settings) -> [(message, field path)]`;
every one is reported, as KAITO's webhooks collect every FieldError (`errs.Also`).
`inference_configmap` holds the rules on a referenced ConfigMap (used when deciding).
Each module's docstring is its documentation and quotes the KAITO rule it mirrors.
"""
from __future__ import annotations

from . import (annotation_value, inference_configmap, inference_or_tuning, preset_and_template, preset_required,
               preset_supported, roles, string_fields, vllm_runtime)

OPT_IN = (annotation_value, preset_required, vllm_runtime)
ADMISSION = (string_fields, inference_or_tuning, preset_and_template, preset_supported, roles)
CHECKS = OPT_IN + ADMISSION + (inference_configmap,)
