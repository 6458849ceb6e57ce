"""The repository's own `.pre-commit-hooks.yaml`, run by a real pre-commit the way a user's repository pins
it (`repo: URL`, `rev: SHA`): pre-commit clones this repository at that commit, pip-installs it into a
virtualenv of its own and runs the hook on the changed files. Skips without pre-commit or git."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "fixtures" / "quickstart-workspace" / "items.yaml"
# What `pip install .` of a clone needs (pyproject.toml names README.md and LICENSE).
PACKAGE = ("pyproject.toml", "README.md", "LICENSE", "krm_fn", ".pre-commit-hooks.yaml")


def _git(args: list[str], cwd: Path, env: dict) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True,
                          timeout=120).stdout.strip()


@pytest.fixture
def tools(tmp_path):
    pre_commit = shutil.which("pre-commit")
    if pre_commit is None or shutil.which("git") is None:
        pytest.skip("pre-commit or git is not on PATH (pip install pre-commit)")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("VIRTUAL_ENV", None)
    # The hook repository: this tree's package, committed (pre-commit clones a rev, not a work tree).
    hook_repo = tmp_path / "kaito-specdec"
    hook_repo.mkdir()
    for name in PACKAGE:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, hook_repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, hook_repo / name)
    _git(["init", "-q"], hook_repo, env)
    _git(["add", "-A"], hook_repo, env)
    _git(["commit", "-q", "-m", "hook"], hook_repo, env)
    return pre_commit, env, hook_repo, _git(["rev-parse", "HEAD"], hook_repo, env)


def _user_repo(path: Path, hook_repo: Path, rev: str, env: dict) -> Path:
    path.mkdir()
    (path / "deploy").mkdir()
    (path / "deploy" / "workspace.yaml").write_text(QUICKSTART.read_text(encoding="utf-8"), encoding="utf-8")
    config = {"repos": [{"repo": hook_repo.as_uri(), "rev": rev,
                         "hooks": [{"id": "kaito-specdec", "files": "^deploy/"}]}]}
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    # A file the hook must not see: narrowed away by `files:`.
    (path / ".github").mkdir()
    (path / ".github" / "ci.yml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    _git(["init", "-q"], path, env)
    _git(["add", "-A"], path, env)
    return path


def test_real_pre_commit_runs_the_published_hook(tools, tmp_path) -> None:
    pre_commit, env, hook_repo, rev = tools
    repo = _user_repo(tmp_path / "user", hook_repo, rev, env)
    manifest = repo / "deploy" / "workspace.yaml"
    before = manifest.read_bytes()
    proc = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "kaito-specdec validate" in proc.stdout and "Passed" in proc.stdout
    assert manifest.read_bytes() == before, "validate writes nothing"
    # An invalid opt-in value, staged (what a commit would check): the hook fails with the file and line.
    manifest.write_text(before.decode().replace('"true"', '"True"'), encoding="utf-8")
    _git(["add", "-A"], repo, env)
    proc = subprocess.run([pre_commit, "run"], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout
    assert "- hook id: kaito-specdec" in proc.stdout
    assert any(ln.startswith("deploy/workspace.yaml:") and "[SD101]" in ln for ln in proc.stdout.splitlines()), \
        proc.stdout
