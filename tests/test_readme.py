"""The README tells the truth: its commands are the ones CI runs, its example is the real input and output, its
settings, exit statuses and stderr line are the real ones, and it stays short enough to read."""
from __future__ import annotations

import re
from pathlib import Path

from krm_fn.model import config
from runner import run

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
QUICKSTART = ROOT / "fixtures" / "quickstart-workspace" / "items.yaml"


def _block(name: str, lang: str = "yaml") -> str:
    m = re.search(rf"<!-- {name}:start -->\n```{lang}\n(.*?)```\n<!-- {name}:end -->", README, re.S)
    assert m, f"README has no {name} block"
    return m.group(1)


def _section(marker: str) -> str:
    m = re.search(rf"<!-- {marker}:start -->\n(.*?)<!-- {marker}:end -->", README, re.S)
    assert m, f"README has no {marker} section"
    return m.group(1)


def _render(path: str | Path) -> str:
    code, out, err = run(["render", str(path)])
    assert code == 0, err
    return out


def test_readme_is_under_15_kb() -> None:
    assert len(README.encode("utf-8")) < 15_000, "the README is for reading: move detail to docs/"


def test_readme_starts_with_the_two_commands() -> None:
    """The first thing after the title: install-and-render, then the test suite."""
    first = README.split("\n", 1)[1].lstrip("\n")
    assert first.startswith("```sh\n"), "the README must open with its commands"
    commands = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    lines = [ln for ln in commands.splitlines() if ln and not ln.startswith("#")]
    assert len(lines) == 3
    # Issue 37: on a fresh machine the first command is the clone that every later one runs in (the Install
    # section used to bring it 140 lines later).
    assert lines[0] == "git clone https://github.com/kaito-project/kaito-specdec.git && cd kaito-specdec"
    assert "pip install . && kaito-specdec render fixtures/quickstart-workspace/items.yaml" in lines[1]
    assert "python -m pytest" in lines[2]
    assert README.count("git clone ") == 1, "one clone, at the top"


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    test_command = [ln for ln in commands.splitlines() if "pytest" in ln][0]
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "fixtures/quickstart-workspace/items.yaml" in commands


def test_quickstart_input_and_output_are_real() -> None:
    assert _block("quickstart-workspace-input") == QUICKSTART.read_text(encoding="utf-8")
    assert _block("quickstart-workspace") == _render(QUICKSTART)


def test_quickstart_claims() -> None:
    """What the README says about its example: only the config line added, SD412 on stderr, the fallback, and
    disabling gives the original back."""
    out = _render(QUICKSTART)
    source = QUICKSTART.read_text(encoding="utf-8")
    configmap, workspace = out.split("---\n")[1:]  # render writes a derived ConfigMap before its workload
    assert workspace == source + "  config: specdec-mtp-39f658ba0e\n" and "name: specdec-mtp-39f658ba0e" in configmap
    code, _, err = run(["render", str(QUICKSTART)])
    assert code == 0 and "[SD412]" in err and "11 nodes" in err
    assert 'fallback, `{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}`' in README
    from krm_fn.domain import presets
    assert presets.NGRAM_FALLBACK == {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}
    off = out.replace('decoding: "true"', 'decoding: "false"')
    code, back, err = run(["render", "-"], off, {"KAITO_SPECDEC_KAITO_VERSION": "v0.13.0"})
    assert code == 0, err
    assert back == "---\n" + source.replace('decoding: "true"', 'decoding: "false"')
    # kaitoVersion not set: a reference to an empty `vllm:` stays (safe on every release), as the README says.
    code, back, err = run(["render", "-"], off)
    assert code == 0, err
    assert "  config: specdec-off-" in back and "vllm: {}" in back and "specdec-off-<hash>" in README


def test_key_settings_are_real_settings_with_their_variables() -> None:
    rows = re.findall(r"^\| `(\w+)` \| .* \| `(\w+)` \|$", _section("key-settings"), re.M)
    assert len(rows) >= 5
    for setting, variable in rows:
        assert setting in config.SETTINGS, setting
        assert variable == "KAITO_SPECDEC_" + config.ENV_NAMES[setting], (setting, variable)
    assert str(config.Settings().kaito_version) == "v0.13.0" and "(not set: output safe on v0.10-v0.13, checks of `v0.13.0`)" in README
    assert config.Settings().mode == "materialize" and "`materialize` (default)" in README


def test_exit_statuses_are_the_real_ones(tmp_path) -> None:
    table = dict(re.findall(r"^\| (\d+) \| (.*) \|$", _section("exit-status"), re.M))
    assert set(table) == {"0", "1", "2", "130"}
    assert run(["render", str(QUICKSTART)]).code == 0
    bad = tmp_path / "ws.yaml"
    bad.write_text(QUICKSTART.read_text(encoding="utf-8").replace('"true"', '"True"'), encoding="utf-8")
    code, out, _ = run(["render", str(bad)])
    assert (code, out) == (1, "")
    warn = run(["render", str(QUICKSTART)], env={"KAITO_SPECDEC_FAIL_ON": "warning"})  # SD412 is a warning
    assert (warn.code, warn.out) == (1, "")
    for argv in (["--bogus"], ["render"]):
        assert run(argv).code == 2, argv
    # The run could not judge: a path it cannot open (SD513), a bad setting (SD021), even with errors beside them.
    assert run(["render", str(tmp_path / "missing.yaml")]).code == 2
    assert run(["render", "--kaito-version", "x", str(bad)]).code == 2
    assert run(["render", str(bad), str(tmp_path / "missing.yaml")]).code == 2
    # 130: tests/test_io.py::test_ctrl_c_while_waiting_is_one_line sends a real SIGINT.
    assert "def test_ctrl_c_while_waiting_is_one_line(" in (ROOT / "tests" / "test_io.py").read_text()


def test_the_stderr_line_shown_is_real(tmp_path, monkeypatch) -> None:
    shown = _block("stderr-line", "").strip()
    (tmp_path / "deploy").mkdir()
    text = QUICKSTART.read_text(encoding="utf-8").replace('"true"', '"True"').replace("workspace-deepseek-r1\n", "ws\n", 1)
    (tmp_path / "deploy" / "ws.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["render", "deploy/ws.yaml"])
    assert code == 1 and shown in err.splitlines(), err


def test_every_example_is_linked() -> None:
    links = set(re.findall(r"\]\((examples/[^)]*)\)", README))
    examples = {p.name for p in (ROOT / "examples").iterdir() if p.is_dir()}
    assert {f"examples/{e}/README.md" for e in examples} <= links, "the README's table names every example"
    assert {"kpt", "kustomize", "argocd", "flux", "helm", "pre-commit"} <= examples


def test_every_doc_is_linked() -> None:
    links = set(re.findall(r"\]\((docs/[^)#]*)\)", README))
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= links
    assert "](CONTRIBUTING.md)" in README
