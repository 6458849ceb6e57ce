"""Packaging: the wheel the Dockerfile builds, installed into a fresh venv and run through the Dockerfile's
ENTRYPOINT the way a container runtime would; and the Dockerfiles' contract (user, entrypoint, no test or
fixture files in the image). Offline: the venv sees the machine's PyYAML/jsonpatch (--system-site-packages)
and the wheel is installed with --no-deps --no-index."""
from __future__ import annotations

import importlib.util
import json
import re
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
    image = base.replace("${PYTHON_IMAGE}", args_defaults(DOCKERFILE)["PYTHON_IMAGE"])
    assert image.split("@")[0] == "python:3.12-slim"
    assert last(final, "USER").split(":")[0] == "65534"
    assert json.loads(last(final, "ENTRYPOINT")) == ["kaito-specdec"]
    labels = " ".join(a for w, a in final if w == "LABEL")
    for key in ("org.opencontainers.image.title", "org.opencontainers.image.source",
                "org.opencontainers.image.version", "org.opencontainers.image.licenses"):
        assert key in labels
    assert not [w for w, _ in final if w in ("CMD", "SHELL")]
    # The function image is what the build and function stages put in it.
    for src in copied_sources(stage_named(DOCKERFILE, "build")) + copied_sources(final):
        assert src.rstrip("/") in ("pyproject.toml", "README.md", "LICENSE", "krm_fn", "requirements"), src
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
    name, _, tag = kustomize_image.split("@")[0].rpartition(":")
    assert name == "registry.k8s.io/kustomize/kustomize" and tag.startswith("v5.") and tag != "latest"
    assert any("/app/kustomize /usr/local/bin/kustomize" in a for a in copies)
    assert copied_sources(final) == ["examples/argocd/plugin.yaml"]


DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
REQUIREMENTS = REPO / "requirements"


def test_base_images_are_pinned_by_digest():
    """Every FROM names a stage or an ARG whose default is pinned by digest (issue 10, container)."""
    defaults = args_defaults(DOCKERFILE)
    stage_names = set()
    for stage in stages(DOCKERFILE):
        words = stage[0][1].split()
        image = words[0]
        if image not in stage_names:
            resolved = re.sub(r"\$\{(\w+)\}", lambda m: defaults[m.group(1)], image)
            assert DIGEST.search(resolved), f"FROM {image} -> {resolved} is not pinned by digest"
        if len(words) == 3 and words[1].upper() == "AS":
            stage_names.add(words[2])


def _requirements(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of a hash-pinned requirements file."""
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        req, *opts = line.split()
        name, sep, version = req.partition("==")
        assert sep, f"{path.name}: {req} is not pinned with =="
        hashes = [o.removeprefix("--hash=sha256:") for o in opts]
        assert hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), f"{path.name}: {req} hashes"
        out[name.lower()] = (version, hashes)
    return out


def test_runtime_dependencies_are_pinned_with_hashes():
    runtime = _requirements(REQUIREMENTS / "runtime.txt")
    # What pyproject.toml declares, plus jsonpatch's own dependency: --require-hashes needs the whole closure.
    declared = {re.split(r"[<>=!~ ]", d.strip())[0].lower() for d in
                re.search(r"^dependencies = \[(.*?)\]", (REPO / "pyproject.toml").read_text(), re.M | re.S)
                .group(1).replace('"', "").split(",") if d.strip()}
    assert set(runtime) == declared | {"jsonpointer"}
    # linux/amd64 and linux/arm64 wheels of the compiled one
    assert len(runtime["pyyaml"][1]) >= 2
    build = _requirements(REQUIREMENTS / "build.txt")
    assert set(build) == {"setuptools"}
    text = DOCKERFILE.read_text(encoding="utf-8")
    for stage_name in ("argocd-cmp", "function"):
        runs = " ".join(a for w, a in stage_named(DOCKERFILE, stage_name) if w == "RUN")
        assert "--require-hashes" in runs and "-r /requirements/runtime.txt" in runs, stage_name
        assert "--no-index" in runs  # nothing fetched in the final stages
        assert re.search(r"pip install [^&]*--no-deps [^&]*kaito_specdec-", runs), stage_name
    build_runs = " ".join(a for w, a in stage_named(DOCKERFILE, "build") if w == "RUN")
    assert "--require-hashes --only-binary=:all: -r requirements/build.txt" in build_runs
    assert "--no-build-isolation" in build_runs
    assert "PYTHONUNBUFFERED" not in "".join(a for w, a in instructions(DOCKERFILE) if w == "ENV"), text[:0]


def test_final_stages_are_non_root_offline_and_write_no_bytecode():
    for name, user in (("function", "65534"), ("argocd-cmp", "999")):
        stage = stage_named(DOCKERFILE, name)
        assert last(stage, "USER").split(":")[0] == user
        env = " ".join(a for w, a in stage if w == "ENV")
        assert re.search(r"\bPYTHONDONTWRITEBYTECODE=1\b", env), name


def test_dockerignore_names_only_what_exists():
    """Every path .dockerignore lets through exists, and LICENSE (Apache-2.0, as pyproject.toml says) is there."""
    for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        if line.startswith("!"):
            assert (REPO / line[1:]).exists(), line
    license_text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert 'license = { text = "Apache-2.0" }' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    comment = "".join(ln for ln in DOCKERIGNORE.read_text(encoding="utf-8").splitlines() if ln.startswith("#"))
    assert "examples/argocd/Dockerfile" not in comment
    for src in ("pyproject.toml", "README.md", "LICENSE", "krm_fn", "requirements/runtime.txt",
                "requirements/build.txt"):
        assert (REPO / src).exists(), src


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
    # the per-release vLLM tables are package data (pyproject's [tool.setuptools.package-data])
    assert {"krm_fn/domain/data/vllm_schema.json", "krm_fn/domain/data/vllm_options.json"} <= set(names), names
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "kaito-specdec = krm_fn.cli:run" in entry_points  # main, then its exit status

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


def test_wheel_explains_every_finding_without_the_repository(venv, tmp_path):
    """A wheel has no docs/: `explain` and `findings` tell a finding from the catalogue it carries."""
    listed = run(["kaito-specdec", "findings"], tmp_path, container_env(venv))
    assert listed.returncode == 0 and listed.stdout.startswith("SD001  error  "), describe(listed)
    ids = [line.split()[0] for line in listed.stdout.splitlines()]
    told = run(["kaito-specdec", "explain", *ids], tmp_path, container_env(venv))
    assert told.returncode == 0 and told.stdout.count("\nmore: https://github.com/") == len(ids), describe(told)
    assert "why:" in told.stdout and "message (… is filled in by the run):" in told.stdout


def test_installed_package_reads_its_vllm_tables(venv, tmp_path):
    """The vLLM tables are data files beside the modules that read them: found in the installed package."""
    probe = ("from krm_fn.domain import vllm_options, vllm_schema\n"
             "print(vllm_schema.DATA, vllm_options.DATA, len(vllm_schema.facts().releases),"
             " len(vllm_options.options().no_value))")
    proc = run([str(venv / "bin" / "python"), "-c", probe], tmp_path, container_env(venv))
    assert proc.returncode == 0, describe(proc)
    schema, options, releases, flags = proc.stdout.split()
    assert Path(schema).is_relative_to(venv) and Path(options).is_relative_to(venv), proc.stdout
    assert int(releases) > 0 and int(flags) > 0, proc.stdout


AUDIT = """
import os, sys
events = []
def hook(event, args):
    if event.startswith("socket.") or event in ("subprocess.Popen", "os.system"):
        events.append(event)
    elif event == "open":
        path, mode, flags = (list(args) + [None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \\
                  (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        if writing and not str(path).startswith("/dev/"):
            events.append(f"write {path}")
sys.addaudithook(hook)
from krm_fn.cli import main
code = main(sys.argv[1:])
sys.stderr.write("AUDIT " + repr(events) + "\\n")
sys.exit(code)
"""


@pytest.mark.parametrize("argv", [[], ["render", "PKG"]], ids=["krm", "render"])
def test_installed_function_opens_no_socket_and_writes_no_file(venv, tmp_path, argv):
    """Offline and read-only-root friendly, as the image runs it: with PYTHONDONTWRITEBYTECODE=1 the run opens
    no socket, starts no process and opens no file for writing (Python's audit hooks see every attempt)."""
    pkg = EXAMPLES / "kpt" / "package"
    argv = [str(pkg) if a == "PKG" else a for a in argv]
    stdin = None
    if not argv:
        stdin = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
            "- " + "\n  ".join((pkg / n).read_text(encoding="utf-8").strip("\n").splitlines()) + "\n"
            for n in ("workspace-phi-4.yaml", "phi-4-inference.yaml"))
    env = {**container_env(venv), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = run([str(venv / "bin" / "python"), "-c", AUDIT, *argv], tmp_path, env, stdin=stdin)
    assert proc.returncode == 0, describe(proc)
    assert "specdec" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "AUDIT []", describe(proc)
