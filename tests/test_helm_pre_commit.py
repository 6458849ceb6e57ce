"""examples/helm and examples/pre-commit work as their READMEs say.

Helm 3 runs a post-renderer as `EXECUTABLE ARGS…` with the chart's rendered manifests on stdin, each
`---\\n# Source: CHART/templates/FILE\\n` and the template's text. Without `helm` here, the chart's few
template directives are filled in as Helm fills them (any other directive fails the stand-in, so a changed chart
shows up), and the post-renderer command the README names is run on that stream. With `helm` on PATH,
`helm template` itself runs. The pre-commit hook's command is read from the example's config and run on a
folder; with `pre-commit` on PATH, `pre-commit run` itself runs in a fresh git repository.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HELM = ROOT / "examples" / "helm"
CHART = HELM / "chart"
PRE_COMMIT = ROOT / "examples" / "pre-commit"
QUICKSTART = ROOT / "fixtures" / "quickstart-workspace" / "items.yaml"
_BESIDE = Path(sys.executable).parent / "kaito-specdec"  # this environment's, as the suite runs it
KAITO_SPECDEC = str(_BESIDE) if _BESIDE.exists() else shutil.which("kaito-specdec")


def _block(text: str, name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n```\w*\n(.*?)```\n<!-- {name}:end -->", text, re.S)
    assert m, f"no {name} block"
    return m.group(1)


def _helm_command() -> list[str]:
    readme = (HELM / "README.md").read_text(encoding="utf-8")
    invoke = readme.split("## Invoke", 1)[1]
    block = re.search(r"```sh\n(.*?)```", invoke, re.S).group(1).replace("\\\n", " ")
    return shlex.split(block)


def _post_renderer(argv: list[str]) -> list[str]:
    """`--post-renderer X --post-renderer-args A --post-renderer-args B` -> [X, A, B], as Helm runs it."""
    exe = [argv[i + 1] for i, a in enumerate(argv) if a == "--post-renderer"]
    args = [argv[i + 1] for i, a in enumerate(argv) if a == "--post-renderer-args"]
    assert len(exe) == 1
    return exe + args


def _helm_stream(values: dict, namespace: str) -> str:
    """The stream `helm template` hands a post-renderer for this chart."""
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))["name"]
    defaults = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    values = {**defaults, **values}

    def fill(m: re.Match) -> str:
        expr = m.group(1).strip()
        if expr == ".Release.Namespace":
            return namespace
        quoted = re.fullmatch(r"\.Values\.(\w+) \| quote", expr)
        if quoted:
            value = values[quoted.group(1)]
            return f'"{str(value).lower()}"' if isinstance(value, bool) else f'"{value}"'
        plain = re.fullmatch(r"\.Values\.(\w+)", expr)
        assert plain, f"the stand-in does not know the directive {{{{ {expr} }}}}: extend it or install helm"
        return str(values[plain.group(1)])

    out = ""
    for path in sorted((CHART / "templates").glob("*.yaml")):
        out += f"---\n# Source: {chart}/templates/{path.name}\n" + re.sub(r"\{\{(.*?)\}\}", fill, path.read_text(encoding="utf-8"))
    return out


def _namespace(argv: list[str]) -> str:
    return argv[argv.index("--namespace") + 1]


@pytest.fixture
def kaito_specdec() -> str:
    if KAITO_SPECDEC is None:
        pytest.skip("kaito-specdec is not on PATH (pip install -e .)")
    return KAITO_SPECDEC


def test_helm_post_renderer_writes_the_derived_config(kaito_specdec) -> None:
    argv = _helm_command()
    assert argv[:2] == ["helm", "template"]
    command = _post_renderer(argv)
    assert command == ["kaito-specdec", "render", "-"]
    proc = subprocess.run([kaito_specdec, *command[1:]], input=_helm_stream({}, _namespace(argv)),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    readme = (HELM / "README.md").read_text(encoding="utf-8")
    assert proc.stdout.endswith(_block(readme, "helm-output"))
    assert proc.stdout.startswith("---\n# Source: kaito-demo/templates/phi-4-inference.yaml\n")


def test_helm_post_renderer_off_and_invalid(kaito_specdec) -> None:
    argv = _helm_command()
    stream = _helm_stream({"speculativeDecoding": False}, _namespace(argv))
    proc = subprocess.run([kaito_specdec, "render", "-"], input=stream, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, stream), proc.stderr  # "as the chart rendered it"
    stream = _helm_stream({"speculativeDecoding": "yes"}, _namespace(argv))
    proc = subprocess.run([kaito_specdec, "render", "-"], input=stream, capture_output=True, text=True, timeout=60)
    readme = (HELM / "README.md").read_text(encoding="utf-8")
    assert (proc.returncode, proc.stdout) == (1, "")
    # The README's transcript is all the post-renderer prints (issue 37: docs that run).
    assert _block(readme, "helm-error") == proc.stderr, proc.stderr


def test_real_helm_template(kaito_specdec, tmp_path) -> None:
    helm = shutil.which("helm")
    if helm is None:
        pytest.skip("helm is not on PATH")
    argv = _helm_command()
    env = {**os.environ, "PATH": f"{Path(kaito_specdec).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "HELM_CACHE_HOME": str(tmp_path), "HELM_CONFIG_HOME": str(tmp_path), "HELM_DATA_HOME": str(tmp_path)}
    proc = subprocess.run([helm, *argv[1:]], cwd=HELM, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    out = (HELM / "README.md").read_text(encoding="utf-8")
    for line in _block(out, "helm-output").splitlines():
        assert line in proc.stdout.splitlines(), line


def _hook() -> dict:
    config = yaml.safe_load((PRE_COMMIT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    (hook,) = repo["hooks"]
    assert hook["language"] == "system" and hook["pass_filenames"] is False
    return hook


def _repo(tmp_path: Path, annotation: str) -> Path:
    hook = _hook()
    folder = tmp_path / hook["args"][0]
    folder.mkdir(parents=True)
    assert re.match(hook["files"], f"{hook['args'][0].rstrip('/')}/workspace.yaml")
    text = QUICKSTART.read_text(encoding="utf-8").replace('"true"', annotation)
    (folder / "workspace.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_pre_commit_hook_command(kaito_specdec, tmp_path) -> None:
    """The hook's entry and args, as pre-commit runs them (pass_filenames: false): passes on valid manifests
    (warnings allowed), fails with the README's line on an invalid one."""
    hook = _hook()
    command = shlex.split(hook["entry"]) + hook["args"]
    assert command[:4] == ["kaito-specdec", "render", "--mode", "validate"]
    good = _repo(tmp_path / "good", '"true"')
    proc = subprocess.run([kaito_specdec, *command[1:]], cwd=good, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "specdec-" not in proc.stdout, "validate writes no change"
    bad = _repo(tmp_path / "bad", '"True"')
    proc = subprocess.run([kaito_specdec, *command[1:]], cwd=bad, capture_output=True, text=True, timeout=60)
    readme = (PRE_COMMIT / "README.md").read_text(encoding="utf-8")
    # The README's transcript: pre-commit's header (the hook's name, id and exit code), a blank line, then every
    # line the hook printed (issue 37: the summary line was missing).
    header, said = _block(readme, "pre-commit-output").split("\n\n", 1)
    assert f"- exit code: {proc.returncode}" in header.splitlines() and proc.returncode == 1
    assert said.splitlines() == proc.stderr.splitlines(), proc.stderr


def test_real_pre_commit_run(kaito_specdec, tmp_path) -> None:
    pre_commit = shutil.which("pre-commit")
    git = shutil.which("git")
    if pre_commit is None or git is None:
        pytest.skip("pre-commit or git is not on PATH")
    repo = _repo(tmp_path, '"True"')
    shutil.copy(PRE_COMMIT / ".pre-commit-config.yaml", repo / ".pre-commit-config.yaml")
    env = {**os.environ, "PATH": f"{Path(kaito_specdec).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PRE_COMMIT_HOME": str(tmp_path / ".cache"), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for cmd in (["init", "-q"], ["add", "-A"]):
        subprocess.run([git, *cmd], cwd=repo, check=True, env=env, timeout=60)
    proc = subprocess.run([pre_commit, "run", "kaito-specdec", "--all-files"], cwd=repo, capture_output=True,
                          text=True, timeout=300, env=env)
    readme = (PRE_COMMIT / "README.md").read_text(encoding="utf-8")
    assert proc.returncode == 1
    for line in _block(readme, "pre-commit-output").splitlines():
        assert line in proc.stdout.splitlines(), (line, proc.stdout)


def _plugin_command(plugin_dir: Path) -> list[str]:
    """plugin.yaml's platformCommand, with `${HELM_PLUGIN_DIR}` expanded as Helm expands it."""
    plugin = yaml.safe_load((HELM / "plugin" / "plugin.yaml").read_text(encoding="utf-8"))
    assert (plugin["apiVersion"], plugin["type"], plugin["runtime"]) == ("v1", "postrenderer/v1", "subprocess")
    (cmd,) = plugin["runtimeConfig"]["platformCommand"]
    def expand(s: str) -> str:
        return s.replace("${HELM_PLUGIN_DIR}", str(plugin_dir))

    return [expand(cmd["command"]), *map(expand, cmd.get("args", []))]


def test_helm4_plugin_renders_and_keeps_the_findings(kaito_specdec, tmp_path) -> None:
    if shutil.which("sh") is None:
        pytest.skip("sh is not on PATH")
    argv = _helm_command()
    command = _plugin_command(HELM / "plugin")
    env = {**os.environ, "PATH": f"{Path(kaito_specdec).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "HELM_PLUGIN_DIR": str(HELM / "plugin")}
    good = subprocess.run(command, input=_helm_stream({}, _namespace(argv)), capture_output=True, text=True,
                          timeout=60, env=env, cwd=tmp_path)
    readme = (HELM / "README.md").read_text(encoding="utf-8")
    assert good.returncode == 0 and good.stdout.endswith(_block(readme, "helm-output")), good.stderr
    assert not (tmp_path / "kaito-specdec-helm.log").exists()
    bad = subprocess.run(command, input=_helm_stream({"speculativeDecoding": "yes"}, _namespace(argv)),
                         capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert (bad.returncode, bad.stdout) == (1, "")
    log = (tmp_path / "kaito-specdec-helm.log").read_text(encoding="utf-8")
    assert set(_block(readme, "helm-error").splitlines()) <= set(log.splitlines()), log
    assert "its findings are in kaito-specdec-helm.log" in bad.stderr
