"""An object's metadata as kubectl decodes it (ObjectMeta's Go types, SD067), held against the real kubectl:
`kubectl label --local -f FILE x=y -o json` decodes every object's metadata into apimachinery's ObjectMeta and
refuses the object when a field has another JSON type, or a time Go's time.Parse(RFC3339) does not read. For each
case (tests/object_meta_cases.py), kubectl refuses exactly when the function says SD067 of that field, in render
and in KRM mode.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import kubectl_reads, require_tool
from object_meta_cases import CASES, CM, TIMES
from runner import run as run_function

pytestmark = pytest.mark.e2e

TEXTS = {**{k: CM + "".join(f"  {line}\n" for line in body.split("\n")) for k, (body, _) in CASES.items()},
         **{f"time {t!r}": CM + "  creationTimestamp: '" + t + "'\n" for t in TIMES}}
FIELD = {**{k: want for k, (_, want) in CASES.items()},
         **{f"time {t!r}": None if ok else "metadata.creationTimestamp" for t, ok in TIMES.items()}}


@pytest.fixture(scope="module")
def kubectl() -> str:
    return require_tool("kubectl", "kubectl decodes metadata into ObjectMeta as `kubectl apply` does")


def _resource_list(text: str) -> str:
    lines = text.splitlines()
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + lines[0] + "\n"
            + "".join(f"  {line}\n" for line in lines[1:]))


@pytest.mark.parametrize("case", TEXTS)
def test_kubectl_refuses_exactly_what_sd067_names(kubectl: str, tmp_path: Path, case: str) -> None:
    text = TEXTS[case]
    path = tmp_path / "m.yaml"
    path.write_text(text)
    refused = kubectl_reads(kubectl, path, refused=True) is None
    assert refused == (FIELD[case] is not None), f"kubectl's verdict is not the table's: {text}"
    for r in (run_function(["render", "-"], text), run_function([], _resource_list(text))):
        said = [line for line in r.err.splitlines() if "[SD067]" in line]
        if refused:
            assert r.code == 1 and len(said) == 1 and f" {FIELD[case]}: " in said[0], r.err
        else:
            assert r.code == 0 and said == [], r.err
