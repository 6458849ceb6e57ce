"""annotation-value (SD101, SD102): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import make_workload, ws
from krm_fn.checks import annotation_value

FIELD = "metadata.annotations[kaito.sh/enable-speculative-decoding]"


@pytest.mark.parametrize("written", ['"true"'])
def test_pass(written: str) -> None:
    assert annotation_value.check(make_workload(ws(written))) is None


@pytest.mark.parametrize("written, id, message", [
    ('"True"', "SD101", 'annotation kaito.sh/enable-speculative-decoding has invalid value "True"; expected "true" or "false"'),
    ('"yes"', "SD101", 'annotation kaito.sh/enable-speculative-decoding has invalid value "yes"; expected "true" or "false"'),
    ('""', "SD101", 'annotation kaito.sh/enable-speculative-decoding has invalid value ""; expected "true" or "false"'),
    ("true", "SD102", 'annotation kaito.sh/enable-speculative-decoding has invalid value true (unquoted, YAML reads it as a boolean; write "true" or "false" in quotes)'),
    ("1", "SD102", 'annotation kaito.sh/enable-speculative-decoding has invalid value 1 (unquoted, YAML reads it as a number; write "true" or "false" in quotes)'),
    ("[a]", "SD102", 'annotation kaito.sh/enable-speculative-decoding has invalid value (a collection) (unquoted, YAML reads it as a list; write "true" or "false" in quotes)'),
])
def test_fail(written: str, id: str, message: str) -> None:
    assert annotation_value.check(make_workload(ws(written)))[:3] == (message, FIELD, id)
