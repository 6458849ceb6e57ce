"""Helpers for the end-to-end tests: real kpt, kubectl kustomize, bash, git, pip — no mocks of them.

Goldens are plain files. Set KAITO_SPECDEC_UPDATE_GOLDEN=1 (or KAITO_SPECDEC_UPDATE=1) to rewrite
them from the current output, then read every diff before committing it.
"""
from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("KAITO_SPECDEC_UPDATE_GOLDEN") == "1" or os.environ.get("KAITO_SPECDEC_UPDATE") == "1"

# The image name the examples use; the docker stand-in runs the installed function in its place.
IMAGE = "ghcr.io/kaito-project/kaito-specdec:0.1.0"

# The exact messages of SPEC.md section 3.
def invalid_value_message(value: str) -> str:
    return (f'annotation kaito.sh/enable-speculative-decoding has invalid value "{value}"; '
            'expected "true" or "false"')


def require_tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not on PATH ({hint})")
    return path


def specdec_executable() -> Path:
    """The installed `kaito-specdec` console script (not a pyenv shim), or skip."""
    candidates = [Path(sys.executable).parent / "kaito-specdec"]
    found = shutil.which("kaito-specdec")
    if found:
        candidates.append(Path(found))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            probe = subprocess.run([str(c), "--version"], capture_output=True, text=True, timeout=60)
            if probe.returncode == 0:
                return c
    pytest.skip("kaito-specdec is not installed or `kaito-specdec --version` fails (pip install -e .)")


def clean_env(extra_path: list[Path] | None = None, **overrides: str) -> dict[str, str]:
    """The caller's environment without kaito-specdec/Argo CD settings, so a developer's shell cannot
    change what the tests see; extra_path entries go first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KAITO_SPECDEC_", "ARGOCD_ENV_", "PARAM_", "ARGOCD_APP_"))}
    env.pop("KUSTOMIZE", None)
    if extra_path:
        env["PATH"] = os.pathsep.join([str(p) for p in extra_path] + [env.get("PATH", "")])
    env.update(overrides)
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None,
        timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=str(cwd), env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


# ---- git ------------------------------------------------------------------------------------------

def kubectl_reads(kubectl: str, path: Path, refused: bool = False) -> list[dict] | None:
    """Every object of the file as `kubectl label --local -f FILE -o json` reads it (kubectl's reading:
    sigs.k8s.io/yaml, go-yaml v2, as `kubectl apply` and Argo CD read), a List's items in its place. None
    where kubectl refuses the file, when `refused` allows that; else a refusal fails the test."""
    proc = run([kubectl, "label", "--local", "-f", str(path), "e2e=1", "-o", "json"], path.parent, clean_env())
    if proc.returncode != 0 and refused:
        assert "error" in proc.stderr, describe(proc)
        return None
    assert proc.returncode == 0, describe(proc)
    decoder, out, at, text = json.JSONDecoder(), [], 0, proc.stdout
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return out
        obj, at = decoder.raw_decode(text, at)
        out.extend(obj["items"] if obj.get("kind") == "List" else [obj])


def _git(path: Path, *args: str) -> str:
    env = clean_env(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_AUTHOR_NAME="e2e",
                    GIT_AUTHOR_EMAIL="e2e@example.com", GIT_COMMITTER_NAME="e2e",
                    GIT_COMMITTER_EMAIL="e2e@example.com")
    proc = subprocess.run(["git", *args], cwd=str(path), env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, f"git {' '.join(args)}: {describe(proc)}"
    return proc.stdout


def git_init(path: Path) -> None:
    _git(path, "init", "-q")
    git_commit(path, "original")


def git_commit(path: Path, message: str) -> None:
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "--allow-empty", "-m", message)


def git_diff(path: Path) -> str:
    """Like kpt's e2e runner: stage everything, diff against the last commit. `index` lines (blob ids,
    whose abbreviation length depends on the git version) are dropped."""
    _git(path, "add", "-A")
    diff = _git(path, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames")
    return "".join(line for line in diff.splitlines(True) if not line.startswith("index "))


def git_changed(path: Path) -> list[str]:
    _git(path, "add", "-A")
    return [ln for ln in _git(path, "diff", "--cached", "--name-only").splitlines() if ln]


# ---- a kpt package's render life cycle (render, render again, turn the feature off) ------------------

ENABLED = 'kaito.sh/enable-speculative-decoding: "true"'
DISABLED = 'kaito.sh/enable-speculative-decoding: "false"'


def snapshot(pkg: Path) -> dict[str, bytes]:
    """Every file of the package (not .git), by relative path."""
    return {str(p.relative_to(pkg)): p.read_bytes()
            for p in sorted(pkg.rglob("*")) if p.is_file() and ".git" not in p.relative_to(pkg).parts}


def kpt_render(kpt: str, pkg: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = run([kpt, "fn", "render", ".", "--allow-exec"], pkg, env)
    assert proc.returncode == 0, describe(proc)
    return proc


def assert_render_is_a_fixpoint(kpt: str, pkg: Path, env: dict[str, str]) -> None:
    """Commit what the first render wrote; a second render must change nothing."""
    git_commit(pkg, "rendered")
    kpt_render(kpt, pkg, env)
    assert git_changed(pkg) == [], "second render changed the package:\n" + git_diff(pkg)


def turn_off(pkg: Path) -> None:
    """The opt-in annotation set to "false" in every YAML file of the package that sets it to "true"."""
    for path in pkg.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        if ENABLED in text:
            path.write_text(text.replace(ENABLED, DISABLED), encoding="utf-8")


# ---- goldens ---------------------------------------------------------------------------------------

def assert_golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"golden file {path.relative_to(REPO)} is missing: run the e2e tests once with "
                    "KAITO_SPECDEC_UPDATE_GOLDEN=1, then read it before committing it")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"{path.name} (expected)", f"{path.name} (actual)"))
        pytest.fail(f"output differs from {path.relative_to(REPO)}:\n{diff}")


# ---- stand-ins -------------------------------------------------------------------------------------

_DOCKER_STANDIN = '''#!{python}
"""docker stand-in for the e2e tests: runs the installed kaito-specdec in place of the image.

Supports what kpt and kustomize call: `docker version --format ...` and `docker run ... IMAGE [ARGS]`.
Like a container, the function gets a clean environment holding only the `-e` variables, and the
docker arguments themselves are ignored (recorded in the log for the tests).
"""
import os
import sys

LOG = {log!r}
FUNCTION = {function!r}
VALUE_FLAGS = {{"-a", "--attach", "--network", "--net", "-u", "--user", "--security-opt", "--pull",
               "-v", "--volume", "--mount", "-w", "--workdir", "--name", "--entrypoint", "--platform"}}

args = sys.argv[1:]
with open(LOG, "a", encoding="utf-8") as log:
    log.write(" ".join(args) + "\\n")
if args[:1] == ["version"]:
    print("28.0.0-e2e-standin")
    sys.exit(0)
if args[:1] != ["run"]:
    sys.stderr.write("docker stand-in: unsupported command: %s\\n" % " ".join(args))
    sys.exit(125)
env = {{"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/"}}
i = 1
while i < len(args):
    a = args[i]
    if a in ("-e", "--env"):
        kv = args[i + 1]
        if "=" in kv:
            k, v = kv.split("=", 1)
            env[k] = v
        elif kv in os.environ:
            env[kv] = os.environ[kv]
        i += 2
    elif a in VALUE_FLAGS:
        i += 2
    elif a.startswith("-"):
        i += 1
    else:
        break  # the image; what follows would be the container's arguments
os.execve(FUNCTION, [FUNCTION], env)
'''


def write_docker_standin(bin_dir: Path, function: Path) -> Path:
    """Write `docker` into bin_dir; returns the log file that records each call's arguments."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    log = bin_dir / "docker-calls.log"
    script = bin_dir / "docker"
    script.write_text(_DOCKER_STANDIN.format(python=sys.executable, log=str(log), function=str(function)),
                      encoding="utf-8")
    script.chmod(0o755)
    return log


def write_kustomize_shim(bin_dir: Path) -> None:
    """`kustomize build DIR` → `kubectl kustomize DIR`: kubectl embeds kustomize v5.5.0, the version the
    Argo CD sidecar image pins."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "kustomize"
    shim.write_text(textwrap.dedent("""\
        #!/bin/sh
        if [ "$1" != build ]; then echo "kustomize shim: only 'build' is supported" >&2; exit 2; fi
        shift
        exec kubectl kustomize "$@"
        """), encoding="utf-8")
    shim.chmod(0o755)


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def set_annotation(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace the annotation's value text in one file (exactly `count` occurrences must exist)."""
    text = path.read_text(encoding="utf-8")
    needle = f"kaito.sh/enable-speculative-decoding: {old}"
    assert text.count(needle) >= count, f"{path}: {needle!r} not found"
    path.write_text(text.replace(needle, f"kaito.sh/enable-speculative-decoding: {new}", count),
                    encoding="utf-8")
