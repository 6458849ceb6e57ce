"""A rule KAITO brought in a later release than the `kaitoVersion` setting is not checked: that cluster's
webhook admits what it would refuse. Each row: the check, a manifest it refuses, the id, and the release that
brought the rule (KAITO's history: `git tag --contains` of the commit that added the message)."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, settings, ws
from krm_fn import checks
from krm_fn.checks import adapters, label_selector, maintenance_window, preset_and_template, workspace_annotations


def _annotated(key: str, value: str) -> str:
    return ws().replace("  annotations:\n", f"  annotations:\n    {key}: {value}\n", 1)


def _iset(extra: str, template_note: str = "") -> str:
    text = iset(inference_extra=extra)
    if template_note:
        text = text.replace("      annotations:\n", f"      annotations:\n        {template_note}\n", 1)
    return text


SELECTOR = "resource:\n  labelSelector:\n    matchLabels:\n      kaito.sh/workspace: other\n"
ADAPTERS = "      adapters:\n" + "".join(f"      - source:\n          name: a{i}\n" for i in range(11))
WINDOW = "spec:\n  autoUpgrade:\n    maintenanceWindow:\n      schedule: \"0 2 * *\"\n"

ROWS = [
    (workspace_annotations, _annotated("kaito.sh/node-image-family", "mariner"), "SD135", "v0.9.0"),
    (workspace_annotations, _annotated("kaito.sh/performance-mode", "fast"), "SD136", "v0.10.0"),
    (workspace_annotations, _annotated("kaito.sh/use-local-weights", "'yes'"), "SD137", "v0.12.0"),
    (workspace_annotations, _iset("", "kaito.sh/node-image-family: mariner"), "SD135", "v0.12.0"),
    (label_selector, ws(extra=SELECTOR), "SD141", "v0.11.0"),
    (label_selector, iset().replace("spec:\n", "spec:\n  labelSelector:\n    matchExpressions:\n"
                                     "    - {key: a, operator: Exists}\n", 1), "SD140", "v0.12.0"),
    (maintenance_window, iset().replace("spec:\n", WINDOW, 1), "SD143", "v0.11.0"),
    (adapters, ws(inference="  preset:\n    name: phi-4\n  adapters:\n" + "".join(
        f"  - source:\n      name: a{i}\n" for i in range(11))), "SD138", "v0.3.0"),
    (adapters, _iset(ADAPTERS), "SD138", "v0.12.0"),
    (preset_and_template, iset().replace("      preset:\n          name: phi-4\n", "      config: c\n"),
     "SD132", "v0.12.0"),
]


@pytest.mark.parametrize("check, text, finding, release", ROWS)
def test_checked_from_the_release_that_brought_it(check: object, text: str, finding: str, release: str) -> None:
    w = make_workload(text)

    def found(kaito_version: str | None = None) -> list[str]:
        s = settings(kaitoVersion=kaito_version) if kaito_version else settings()
        return [f.id for f in check.findings(w, s)] if checks.applies(check, w, s) else []  # as validate does

    assert finding in found()  # the default, v0.13.0
    assert finding in found(release)
    major, minor, _ = release[1:].split(".")
    if (major, minor) != ("0", "3"):
        assert finding not in found(f"v{major}.{int(minor) - 1}.4")


def test_a_v1beta1_inferenceset_still_gets_sd111_before_v0_12() -> None:
    """Preset and template both: the Workspace its controller makes is refused whatever the release."""
    text = iset(inference_extra="      template:\n        spec: {}\n")
    assert [f.id for f in preset_and_template.findings(make_workload(text), settings(kaitoVersion="v0.11.0"))] \
        == ["SD111"]


def test_every_workload_check_declares_the_release_it_starts_at() -> None:
    from krm_fn.domain import kaito_releases
    for check in (*checks.OPT_IN, *checks.ADMISSION):
        assert kaito_releases.FIRST_KNOWN <= check.SINCE <= kaito_releases.LAST_KNOWN, check.ID
    assert maintenance_window.SINCE == kaito_releases.AUTO_UPGRADE
