"""The README tells the truth: its commands are the ones CI runs, its outputs are the real ones."""
from __future__ import annotations

import io
import re
from pathlib import Path

from krm_fn import checks
from krm_fn.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n```yaml\n(.*?)```\n<!-- {name}:end -->", README, re.S)
    assert m, f"README has no {name} block"
    return m.group(1)


def _render(path: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(["render", str(ROOT / path)], stdout=out, stderr=err, environ={}) == 0, err.getvalue()
    return out.getvalue()


def test_quickstart_outputs_are_real() -> None:
    assert _block("quickstart-workspace") == _render("fixtures/quickstart-workspace/items.yaml")
    assert _render("fixtures/quickstart-inferenceset/items.yaml").endswith(_block("quickstart-inferenceset"))


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    test_command = [ln for ln in commands.splitlines() if "pytest" in ln][0]
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "fixtures/quickstart-workspace/items.yaml" in commands


def test_every_check_is_documented() -> None:
    for check in checks.CHECKS:
        assert f"`{check.ID}`" in README, check.ID
        assert check.__doc__ and "PASS" in check.__doc__ and "FAIL" in check.__doc__
        assert "KAITO rule mirrored" in check.__doc__, check.ID


def test_check_table_names_the_kaito_rule_of_every_check() -> None:
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^   \| `([a-z-]+)` \|(.*)\|$", README, re.M)}
    for check in checks.CHECKS:
        cells = [c.strip() for c in rows[check.ID].split(" | ")]
        assert len(cells) == 2 and cells[1], f"{check.ID}: no KAITO rule column"


def test_every_link_to_the_repo_resolves() -> None:
    links = re.findall(r"\]\(((?:examples|docs|Dockerfile)[^)]*)\)", README)
    assert {"examples/kpt/README.md", "examples/kustomize/README.md", "examples/argocd/README.md",
            "examples/flux/README.md"} <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link
