"""The image ships compiled bytecode, so that no start compiles a module from source.

No container engine here: one test reads the Dockerfile, one simulates the image — the package and its
dependencies copied without any .pyc (as the official python images ship), run with
PYTHONDONTWRITEBYTECODE=1, then compiled the way the Dockerfile compiles them and run again. `python -v`
says where each module's code came from ("code object from '….py'" is a compile from source).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonpatch
import jsonpointer
import yaml

from build import ONE_WORKSPACE

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"



def _runs(stage: str) -> tuple[list[str], list[str]]:
    """(RUN commands, ENV lines) of a Dockerfile stage, continuation lines joined."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    joined = re.sub(r"\\\n\s*", " ", "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#")))
    runs, envs, inside = [], [], False
    for line in joined.splitlines():
        if line.startswith("FROM "):
            inside = line.rstrip().endswith(f" AS {stage}")
        elif inside and line.startswith("RUN "):
            runs.append(line)
        elif inside and line.startswith("ENV "):
            envs.append(line)
    return runs, envs


def test_both_images_compile_the_standard_library_and_packages_after_installing():
    for stage in ("function", "argocd-cmp"):
        runs, envs = _runs(stage)
        install = [r for r in runs if "kaito_specdec-*.whl" in r]
        assert len(install) == 1, stage
        steps = [s.strip() for s in install[0].split("&&")]
        wheel = next(i for i, s in enumerate(steps) if "kaito_specdec-*.whl" in s)
        compiles = [i for i, s in enumerate(steps) if "-m compileall" in s]
        assert compiles and compiles[0] > wheel, f"{stage}: compileall must run after the last pip install"
        step = steps[compiles[0]]
        assert "--invalidation-mode unchecked-hash" in step, stage
        # The stdlib folder holds site-packages: one walk compiles the standard library, PyYAML, jsonpatch
        # and the function.
        assert 'sysconfig.get_path("stdlib")' in step, stage
        assert any(re.search(r"\bPYTHONDONTWRITEBYTECODE=1\b", e) for e in envs), stage


def _site(tmp: Path) -> Path:
    """The function and its dependencies as a wheel install would lay them out, without any bytecode."""
    site = tmp / "site"
    site.mkdir()
    shutil.copytree(ROOT / "krm_fn", site / "krm_fn", ignore=shutil.ignore_patterns("__pycache__"))
    for module in (yaml, jsonpatch, jsonpointer):
        path = Path(module.__file__)
        if path.name == "__init__.py":
            shutil.copytree(path.parent, site / path.parent.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, site / path.name)
    return site


def _start(site: Path) -> tuple[str, list[str], list[str]]:
    """One KRM run as the image starts it: (stdout, modules compiled from source under `site`, modules
    read from bytecode there). -S: only `site` provides packages (no editable install's finder)."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-S", "-v", "-c", "import sys; from krm_fn.cli import main; sys.exit(main())"],
                          input=ONE_WORKSPACE.encode(), capture_output=True, env=env, timeout=120,
                          cwd=site.parent)  # not the repository: `-c` puts the working folder first
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    origins = re.findall(r"^# code object from '?([^'\n]+)'?$", proc.stderr.decode(), re.M)
    mine = [o for o in origins if o.startswith(str(site))]
    return proc.stdout.decode(), [o for o in mine if o.endswith(".py")], [o for o in mine if o.endswith(".pyc")]


def test_a_start_from_the_compiled_image_compiles_nothing(tmp_path):
    site = _site(tmp_path)
    out_before, compiled, cached = _start(site)
    assert "specdec-ngram-" in out_before
    # Without bytecode every module is compiled from source, and PYTHONDONTWRITEBYTECODE keeps it so:
    assert any(c.endswith("krm_fn/cli.py") for c in compiled) and any("/yaml/" in c for c in compiled)
    assert not cached and not list(site.rglob("*.pyc"))

    build = subprocess.run([sys.executable, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash",
                            str(site)], capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert build.returncode == 0, build.stdout + build.stderr  # compileall writes despite the variable
    out_after, compiled, cached = _start(site)
    assert out_after == out_before
    assert compiled == []
    assert any(c.endswith(f"krm_fn/__pycache__/cli.cpython-{sys.version_info[0]}{sys.version_info[1]}.pyc") for c in cached)

    # unchecked-hash: a source whose mtime changed (a layer tool, a copy) still starts from the bytecode.
    for py in site.rglob("*.py"):
        os.utime(py, (1, 1))
    _, compiled, _ = _start(site)
    assert compiled == []
