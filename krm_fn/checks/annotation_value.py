"""annotation-value: the annotation must be exactly the string "true" or "false".

PASS:  kaito.sh/enable-speculative-decoding: "true"   (or "false", or no annotation at all)
FAIL:  kaito.sh/enable-speculative-decoding: "True"   (case matters)
FAIL:  kaito.sh/enable-speculative-decoding: "yes"
FAIL:  kaito.sh/enable-speculative-decoding: true     (a YAML boolean; Kubernetes annotations are strings)
"""
from __future__ import annotations

import json

from ..index import Workload

ID = "annotation-value"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")


def _quoted(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return json.dumps(str(value).lower())
    return json.dumps("" if value is None else str(value))


def check(w: Workload) -> str | None:
    if w.value == "true":
        return None
    message = (f"annotation kaito.sh/enable-speculative-decoding has invalid value {_quoted(w.value)}; "
               'expected "true" or "false"')
    if not isinstance(w.value, str):
        # The same words as KAITO, plus what makes an unquoted `true` wrong: it is not a string.
        message += " (the value is a YAML " + ("boolean" if isinstance(w.value, bool) else
                                               "null" if w.value is None else type(w.value).__name__) \
            + ", not a string: quote it)"
    return message
