"""Packaging: the wheel the Dockerfile builds, installed into a fresh venv and run through the Dockerfile's
ENTRYPOINT the way a container runtime would; and the Dockerfiles' contract (user, entrypoint, no test or
fixture files in the image). Offline: the venv sees the machine's PyYAML/jsonpatch (--system-site-packages)
and the wheel is installed with --no-deps --no-index."""
from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from e2e_support import EXAMPLES, REPO, describe, run

DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def stage_named(path: Path, name: str) -> list[tuple[str, str]]:
    found = [s for s in stages(path) if s[0][1].split()[-1] == name and " AS " in s[0][1].upper()]
    assert len(found) == 1, f"no stage {name!r} in {path}"
    return found[0]


def stages(path: Path) -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for ins in instructions(path):
        if ins[0] == "FROM":
            result.append([])
        if result:
            result[-1].append(ins)
    return result


def args_defaults(path: Path) -> dict[str, str]:
    return dict(a.split("=", 1) for w, a in instructions(path) if w == "ARG" and "=" in a)


def last(stage: list[tuple[str, str]], word: str) -> str:
    values = [a for w, a in stage if w == word]
    assert values, f"no {word} in the final stage"
    return values[-1]


def copied_sources(stage: list[tuple[str, str]]) -> list[str]:
    """What a stage copies from the build context (not from other stages)."""
    sources = []
    for word, a in stage:
        if word in ("COPY", "ADD"):
            if any(p.startswith("--from") for p in shlex.split(a)):
                continue
            sources += [p for p in shlex.split(a) if not p.startswith("--")][:-1]
    return sources


def test_function_dockerfile_contract():
    all_stages = stages(DOCKERFILE)
    assert len(all_stages) >= 2, "multi-stage: build the wheel, then install it"
    final = all_stages[-1]
    base = final[0][1].split()[0]
    assert base.replace("${PYTHON_IMAGE}", args_defaults(DOCKERFILE)["PYTHON_IMAGE"]) == "python:3.12-slim"
    assert last(final, "USER").split(":")[0] == "65534"
    assert json.loads(last(final, "ENTRYPOINT")) == ["kaito-specdec"]
    labels = " ".join(a for w, a in final if w == "LABEL")
    for key in ("org.opencontainers.image.title", "org.opencontainers.image.source",
                "org.opencontainers.image.version", "org.opencontainers.image.licenses"):
        assert key in labels
    assert not [w for w, _ in final if w in ("CMD", "SHELL")]
    # The function image is what the build and function stages put in it.
    for src in copied_sources(stage_named(DOCKERFILE, "build")) + copied_sources(final):
        assert src.rstrip("/") in ("pyproject.toml", "README.md", "LICENSE", "krm_fn"), src
        assert not src.startswith(("tests", "fixtures", "examples", ".")), src
    assert "ADD " not in DOCKERFILE.read_text(encoding="utf-8")


def test_dockerignore_excludes_tests_fixtures_examples():
    patterns = [ln.strip() for ln in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
                if ln.strip() and not ln.startswith("#")]
    for needed in (".git", "tests", "fixtures", "examples", "**/__pycache__"):
        assert needed in patterns, needed
    # The only file of examples/ that goes into a build context: the Argo CD plugin definition.
    assert [p for p in patterns if p.startswith("!")] == ["!examples/argocd/plugin.yaml"]


def test_argocd_sidecar_dockerfile_contract():
    final = stage_named(DOCKERFILE, "argocd-cmp")
    assert stages(DOCKERFILE)[-1][0][1].endswith("AS function"), "a plain build must give the function"
    assert last(final, "USER").split(":")[0] == "999"
    assert json.loads(last(final, "ENTRYPOINT")) == ["/var/run/argocd/argocd-cmp-server"]
    copies = [a for w, a in final if w == "COPY"]
    assert any(a.endswith("examples/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml") for a in copies)
    kustomize_image = args_defaults(DOCKERFILE)["KUSTOMIZE_IMAGE"]
    name, _, tag = kustomize_image.rpartition(":")
    assert name == "registry.k8s.io/kustomize/kustomize" and tag.startswith("v5.") and tag != "latest"
    assert any("/app/kustomize /usr/local/bin/kustomize" in a for a in copies)
    assert copied_sources(final) == ["examples/argocd/plugin.yaml"]


def _can_build_offline() -> bool:
    if importlib.util.find_spec("wheel") is not None:
        return True
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
    return version >= (70, 1)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """The wheel built from a copy of the sources (the repository is never written to), installed into a
    fresh venv."""
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    shutil.copytree(REPO / "krm_fn", src / "krm_fn", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp / "dist"
    # Offline when the machine's setuptools can build wheels by itself (`wheel` installed, or setuptools
    # >= 70.1); otherwise pip's isolated build, as in the Dockerfile (fetches setuptools from PyPI).
    offline = ["--no-build-isolation", "--no-index"] if _can_build_offline() else []
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *offline,
                            "--wheel-dir", str(dist), str(src)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, describe(build)
    (wheel,) = dist.glob("kaito_specdec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert all(n.startswith(("krm_fn/", "kaito_specdec-")) for n in names), names
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "kaito-specdec = krm_fn.cli:main" in entry_points

    env_dir = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)],
                   check=True, timeout=300)
    python = env_dir / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                              "--no-warn-script-location", str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, describe(install)
    where = subprocess.run([str(python), "-c", "import krm_fn, yaml, jsonpatch; print(krm_fn.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=str(tmp))
    assert where.returncode == 0, describe(where)
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout
    return env_dir


def container_env(venv: Path) -> dict[str, str]:
    # What `docker run` gives the function: no host environment, PATH of the image, kpt/kustomize's -e.
    return {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": "/",
            "LOG_TO_STDERR": "true", "STRUCTURED_RESULTS": "true"}


def test_wheel_entrypoint_runs_a_resource_list(venv, tmp_path):
    entrypoint = json.loads(last(stages(DOCKERFILE)[-1], "ENTRYPOINT"))
    pkg = EXAMPLES / "kpt" / "package"
    items = "".join(
        "- " + "\n  ".join(doc.strip("\n").splitlines()) + "\n"
        for name in ("workspace-phi-4.yaml", "phi-4-inference.yaml")
        for doc in [(pkg / name).read_text(encoding="utf-8")])
    resource_list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    proc = run(entrypoint, tmp_path, container_env(venv), stdin=resource_list)
    assert proc.returncode == 0, describe(proc)
    out = yaml.safe_load(proc.stdout)
    assert out["kind"] == "ResourceList"
    by_name = {(i["kind"], i["metadata"]["name"]): i for i in out["items"]}
    ref = by_name[("Workspace", "workspace-phi-4")]["inference"]["config"]
    assert ref != "phi-4-inference"
    assert NGRAM in by_name[("ConfigMap", ref)]["data"]["inference_config.yaml"]
    # The same entrypoint with an invalid annotation: exit 1, the message on stderr.
    bad = run(entrypoint, tmp_path, container_env(venv),
              stdin=resource_list.replace('enable-speculative-decoding: "true"', 'enable-speculative-decoding: "1"'))
    assert bad.returncode == 1, describe(bad)
    assert 'has invalid value "1"' in bad.stderr


def test_wheel_entrypoint_version_and_render(venv, tmp_path):
    version = run(["kaito-specdec", "--version"], tmp_path, container_env(venv))
    assert version.returncode == 0 and version.stdout.strip(), describe(version)
    render = run(["kaito-specdec", "render", str(EXAMPLES / "kpt" / "validate")], tmp_path, container_env(venv))
    assert render.returncode == 0, describe(render)
    assert "specdec" in render.stdout
