"""workspace-annotations (SD135, SD136, SD137): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, ws
from krm_fn.checks import workspace_annotations

FAMILY, MODE, LOCAL = "kaito.sh/node-image-family", "kaito.sh/performance-mode", "kaito.sh/use-local-weights"


def _ws(key: str, value: str, api: str = "kaito.sh/v1beta1") -> str:
    return ws(f'"true"\n    {key}: {value}', api=api)


def _iset(key: str, value: str, api: str = "kaito.sh/v1beta1") -> str:
    return iset(api=api).replace("        kaito.sh/enable-speculative-decoding", f"        {key}: {value}\n        kaito.sh/enable-speculative-decoding")


@pytest.mark.parametrize("text", [
    ws(), _ws(FAMILY, "ubuntu"), _ws(FAMILY, "AzureLinux"), _ws(FAMILY, '" Ubuntu\\t"'), _ws(FAMILY, '"UBUNTU\\u0085"'),
    _ws(FAMILY, '"azurel\\u0130nux"'),  # Go's ToLower makes "i" of U+0130
    _ws(MODE, "balanced"), _ws(MODE, "interactivity"), _ws(MODE, "throughput"),
    _ws(LOCAL, '"true"'), _ws(LOCAL, '"false"'),
    _ws(LOCAL, "true"),  # no string: the API server's error, before any webhook
    _ws(MODE, "fast", api="kaito.sh/v1alpha1"), _ws(LOCAL, "yes", api="kaito.sh/v1alpha1"),  # v1beta1's rules
    _iset(FAMILY, "mariner", api="kaito.sh/v1alpha1"),  # a v1alpha1 InferenceSet projects no Workspace
    _ws("Kaito.sh/performance-mode", "fast"), _ws("kaito.sh/Use-Local-Weights", '"yes"'),  # keys are exact
    _ws(MODE, "null"), _ws(FAMILY, "[ubuntu]"),  # no string: the API server's error
])
def test_pass(text: str) -> None:
    assert workspace_annotations.findings(make_workload(text)) == []


@pytest.mark.parametrize("text, expected", [
    (_ws(FAMILY, "mariner"), [('unsupported node image family "mariner", supported values are azurelinux, ubuntu', f"metadata.annotations[{FAMILY}]", "SD135")]),
    (_ws(FAMILY, '"\\x1cubuntu"'), [('unsupported node image family "\\x1cubuntu", supported values are azurelinux, ubuntu', f"metadata.annotations[{FAMILY}]", "SD135")]),
    (_ws(FAMILY, "mariner", api="kaito.sh/v1alpha1"), [('unsupported node image family "mariner", supported values are azurelinux, ubuntu', f"metadata.annotations[{FAMILY}]", "SD135")]),
    (_ws(MODE, "Throughput"), [('"Throughput" is not a valid performance mode; choose one of: balanced, interactivity, throughput', f"metadata.annotations[{MODE}]", "SD136")]),
    (_ws(MODE, '" balanced"'), [('" balanced" is not a valid performance mode; choose one of: balanced, interactivity, throughput', f"metadata.annotations[{MODE}]", "SD136")]),
    (_ws(LOCAL, '"yes"'), [('"yes" must be "true" or "false"', f"metadata.annotations[{LOCAL}]", "SD137")]),
    (_ws(LOCAL, '"TRUE"'), [('"TRUE" must be "true" or "false"', f"metadata.annotations[{LOCAL}]", "SD137")]),
    (_ws(LOCAL, '""'), [('"" must be "true" or "false"', f"metadata.annotations[{LOCAL}]", "SD137")]),
    (_ws(MODE, '""'), [('"" is not a valid performance mode; choose one of: balanced, interactivity, throughput', f"metadata.annotations[{MODE}]", "SD136")]),
    (_ws(FAMILY, '" "'), [('unsupported node image family " ", supported values are azurelinux, ubuntu', f"metadata.annotations[{FAMILY}]", "SD135")]),
    (_iset(MODE, "fast"), [('"fast" is not a valid performance mode; choose one of: balanced, interactivity, throughput', f"spec.template.metadata.annotations[{MODE}]", "SD136")]),
    (_ws(f'{FAMILY}: x\n    {MODE}: w\n    {LOCAL}', '"z"'), [
        ('unsupported node image family "x", supported values are azurelinux, ubuntu', f"metadata.annotations[{FAMILY}]", "SD135"),
        ('"w" is not a valid performance mode; choose one of: balanced, interactivity, throughput', f"metadata.annotations[{MODE}]", "SD136"),
        ('"z" must be "true" or "false"', f"metadata.annotations[{LOCAL}]", "SD137")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in workspace_annotations.findings(make_workload(text))] == expected


@pytest.mark.parametrize("key", [FAMILY, MODE, LOCAL])
def test_a_flux_variable_is_filled_in_later(key: str) -> None:
    assert workspace_annotations.findings(make_workload(_ws(key, '"${VALUE}"'))) == []
    assert workspace_annotations.findings(make_workload(_iset(key, '"x-${VALUE:=y}"'))) == []
