"""The examples' "Fetch" commands work when followed literally from a fresh clone (issue 9): every `cd`
lands in a folder that exists, every `pip install PATH` names the project, and the folders the "Invoke"
commands then use exist where the reader stands. git, pip, docker and kpt are not run: a clone is this
repository as committed (checked against `git ls-files`)."""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLONE_URL = "https://github.com/kaito-project/kaito-specdec.git"


def _committed() -> set[str] | None:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return set(out.stdout.splitlines()) if out.returncode == 0 else None


def _blocks(text: str, heading: str) -> list[str]:
    section = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, f"no section {heading!r}"
    return re.findall(r"```sh\n(.*?)```", section.group(1), re.S)


def _commands(block: str) -> list[list[str]]:
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        for part in filter(None, (p.strip() for p in line.split("&&"))):
            out.append(shlex.split(part))
    return out


def _follow(readme: Path, tmp_path: Path) -> Path:
    """Run the Fetch block's cd / git clone / pip install in a model of the reader's disk; return where the
    reader stands afterwards."""
    clone = ROOT  # `git clone URL` makes ./kaito-specdec: this repository
    cwd = tmp_path
    places: dict[Path, Path] = {}
    for block in _blocks(readme.read_text(encoding="utf-8"), "Fetch"):
        for cmd in _commands(block):
            if cmd[:2] == ["git", "clone"]:
                assert cmd[2] == CLONE_URL
                places[cwd / "kaito-specdec"] = clone
            elif cmd[0] == "cd":
                target = (cwd / cmd[1]).resolve() if not cmd[1].startswith("/") else Path(cmd[1])
                cwd = target
            elif cmd[:2] == ["pip", "install"]:
                paths = [a for a in cmd[2:] if not a.startswith("-")]
                real = _real(cwd, places)
                for p in paths:
                    assert real is not None and (real / p / "pyproject.toml").exists(), \
                        f"{readme}: `pip install {p}` in {cwd} finds no project"
    return cwd if _real(cwd, places) is None else _real(cwd, places)


def _real(cwd: Path, places: dict[Path, Path]) -> Path | None:
    """Where `cwd` of the model is in this repository (None outside the clone)."""
    for fake, real in places.items():
        if cwd == fake or fake in cwd.parents:
            mapped = real / cwd.relative_to(fake)
            assert mapped.is_dir(), f"cd into {cwd}: no such folder in a clone"
            return mapped
    return None


@pytest.mark.parametrize("example, stands_in", [("kustomize", "examples/kustomize"), ("flux", "examples/flux"),
                                                ("kpt", None)])
def test_fetch_commands_work_literally(tmp_path, example, stands_in):
    readme = ROOT / "examples" / example / "README.md"
    where = _follow(readme, tmp_path)
    if stands_in is None:
        return
    assert where == ROOT / stands_in, where
    committed = _committed()
    # The folders the Invoke commands name exist where the reader now stands, and are in a clone.
    for block in _blocks(readme.read_text(encoding="utf-8"), "Invoke"):
        for cmd in _commands(block):
            for arg in cmd:
                if re.fullmatch(r"[\w.-]+/([\w.-]+/)*", arg) or arg.startswith(("overlays/", "./")):
                    target = (where / arg).resolve()
                    assert target.exists(), f"{readme}: {' '.join(cmd)}: {arg} does not exist in {where}"
                    if committed is not None and target.is_file():
                        assert str(target.relative_to(ROOT)) in committed, f"{arg} is not committed"


def test_the_old_broken_command_is_gone():
    for example in ("kustomize", "kpt", "flux"):
        assert "pip install ./kaito-specdec" not in (ROOT / "examples" / example / "README.md").read_text()


# --- issue 37, item 9: docs that run ---------------------------------------------------------------------
# A transcript (what a command prints: findings, the line that sums up, kpt's or pre-commit's frame) is a
# fenced block between `<!-- NAME:start -->` and `<!-- NAME:end -->`, and a test compares it with what the
# command prints today: tests/test_ci_example.py (github-output), tests/test_helm_pre_commit.py (helm-output,
# helm-error, pre-commit-output), tests/e2e/test_e2e_kpt.py (kpt-error), tests/e2e/test_e2e_kustomize.py
# (kustomize-error).
_PRINTED = re.compile(r"\[(error|warning|info)\] |^kaito-specdec: \d+ errors?|^::(error|warning|notice)|Exit code:", re.M)


def _transcripts(text: str) -> list[tuple[str | None, str]]:
    """(marker name or None, body) of every fenced block that shows what a command printed."""
    return [(name, body) for name, body in
            re.findall(r"(?:<!-- ([\w-]+):start -->\n)?```\w*\n(.*?)```", text, re.S) if _PRINTED.search(body)]


@pytest.mark.parametrize("readme", sorted((ROOT / "examples").glob("*/README.md")),
                         ids=lambda p: p.parent.name)
def test_every_transcript_is_marked_and_held_by_a_test(readme):
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for name, body in _transcripts(readme.read_text(encoding="utf-8")):
        assert name, f"{readme}: a transcript no test holds: {body.splitlines()[0][:100]}"
        assert f'"{name}"' in tests or f"<!-- {name}:start -->" in tests, f"{readme}: no test reads {name}"
        # What kaito-specdec prints on stderr ends with the line that sums up (pre-commit, kustomize, helm).
        if "[error] " in body and "Results:" not in body and "::error" not in body:
            assert re.search(r"^kaito-specdec: \d+ errors?, ", body, re.M), f"{readme}: {name} lacks the summary"


def test_the_kpt_readme_counts_its_packages():
    readme = (ROOT / "examples" / "kpt" / "README.md").read_text(encoding="utf-8")
    folders = sorted(p.name for p in (ROOT / "examples" / "kpt").iterdir() if p.is_dir())
    words = {2: "Two", 3: "Three", 4: "Four"}
    assert f"{words[len(folders)]} packages:" in readme
    assert re.findall(r"^\| `([\w-]+)/` \|", readme, re.M) == ["package", "validate", "plain-vllm"] and \
        sorted(["package", "validate", "plain-vllm"]) == folders
    # Under kpt the function writes only the line that sums up to stderr (each finding is in kpt's Results:).
    stderr = re.search(r"  Stderr:\n(.*?)\n  Exit code", readme, re.S).group(1)
    assert [ln.strip() for ln in stderr.splitlines()][0].startswith('"kaito-specdec: 1 error')
