"""A lean start: no run imports a network module; the entry point exits with main's status.

Checked in a fresh interpreter started with -S, so that nothing a site hook or an editable install's
finder imports (pathlib, contextlib, …) hides what the package itself imports. The figures are in the
docs/performance.md; no timings here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonpatch
import jsonpointer
import pytest
import yaml

from build import ONE_WORKSPACE

ROOT = Path(__file__).resolve().parent.parent
# The same Workspace as a plain stream (render's input): the ResourceList's one item, dedented.
STREAM = "".join(line[2:] + "\n" for line in ONE_WORKSPACE.split("items:\n", 1)[1].splitlines())


# What no run needs at all: nothing that reaches a network.
NEVER = ["socket", "ssl", "http.client", "urllib.request"]
HINT = "a run imports a network module: `python -X importtime` names the importer"

PROBE = """
import io, json, sys
sys.argv = ["kaito-specdec", *json.loads(sys.argv[1])]
before = set(sys.modules)
from krm_fn.cli import main
out, err = io.StringIO(), io.StringIO()
data = sys.stdin.buffer.read()
code = main(stdin=io.BytesIO(data), stdout=out, stderr=err, environ={})
imported = sorted(set(sys.modules) - before)
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(), "imported": imported}))
"""


def _env() -> dict:
    paths = {str(ROOT)} | {str(Path(m.__file__).resolve().parent.parent) for m in (yaml, jsonpatch, jsonpointer)}
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sorted(paths))}


def _probe(argv: list[str], stdin: str) -> dict:
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, json.dumps(argv)],
                          input=stdin.encode(), capture_output=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_krm_mode_imports_only_what_the_input_needs():
    got = _probe([], ONE_WORKSPACE)
    assert got["code"] == 0, got["err"]
    assert "specdec-ngram-" in got["out"]  # the run did its work: a derived ConfigMap
    assert "krm_fn.pipeline" in got["imported"] and "yaml" in got["imported"]  # the probe sees imports
    assert [m for m in NEVER if m in got["imported"]] == [], HINT


def _fixture(case: str) -> str:
    from golden import case_input
    return case_input(case)


def _large(n: int) -> str:
    """The one Workspace, then `n` Services: a ResourceList of about 200 bytes per Service."""
    return ONE_WORKSPACE + "".join(f"- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s{i}\n"
                                   f"    annotations:\n      config.kubernetes.io/path: s{i}.yaml\n"
                                   f"  spec:\n    ports: [{{port: 80}}]\n" for i in range(n))


def test_render_imports_none_of_what_no_run_needs():
    got = _probe(["render", "-"], STREAM)
    assert got["code"] == 0, got["err"]
    assert "specdec-ngram-" in got["out"] and "argparse" in got["imported"]
    assert [m for m in NEVER if m in got["imported"]] == [], HINT


@pytest.mark.parametrize("case", ["plain-deployment", "monitoring-one-namespace", "findings-disable-warning"])
def test_no_run_imports_what_no_run_needs(case):
    """Every kind of run keeps the rule: a plain vLLM workload, a PrometheusRule, a `disable`."""
    got = _probe([], _fixture(case))
    assert got["code"] in (0, 1), got["err"]
    assert [m for m in NEVER if m in got["imported"]] == [], HINT


@pytest.mark.parametrize("argv, stdin, code, words", [
    ([], ONE_WORKSPACE, 0, "specdec-ngram-"),
    ([], "items: [", 1, ""),
    (["--no-such-flag"], "", 2, ""),
    (["--version"], "", 0, "kaito-specdec 0.1.0"),
], ids=["ok", "bad-input", "usage", "version"])
def test_the_entry_point_exits_with_mains_status_and_loses_nothing(argv, stdin, code, words):
    """`kaito-specdec` and `python -m krm_fn` (cli.run): the exit status is main's, stdout and stderr are
    complete."""
    script = "import sys; sys.argv[1:] = " + repr(argv) + "\nfrom krm_fn.cli import run; run()"
    proc = subprocess.run([sys.executable, "-S", "-c", script], input=stdin.encode(), capture_output=True,
                          env=_env(), timeout=120)
    assert proc.returncode == code, proc.stderr.decode()
    assert words in proc.stdout.decode()
    if code == 1:
        assert proc.stdout == b"" and "error" in proc.stderr.decode()


@pytest.mark.parametrize("argv", [["--version"], ["render", "-"]])
def test_the_commands_still_parse_their_arguments(argv):
    got = _probe(argv, ONE_WORKSPACE)
    assert got["code"] == 0, got["err"]
    assert ("kaito-specdec 0.1.0" if argv == ["--version"] else "specdec-ngram-") in got["out"]


def test_a_bad_argument_is_a_usage_error_not_krm_mode():
    got = _probe(["--no-such-flag"], ONE_WORKSPACE)
    assert got["code"] == 2 and got["out"] == ""
    assert "unrecognized arguments: --no-such-flag" in got["err"]


def test_no_record_has_an_annotation_typing_must_compile():
    """A NamedTuple field annotated with a string (a forward reference, or any annotation under
    `from __future__ import annotations`) makes typing compile it at import: the first compile() builds the
    interpreter's AST types, about a quarter of a one-Workspace run's own start-up."""
    import importlib
    import pkgutil
    import typing

    import krm_fn

    strings = []
    for m in pkgutil.walk_packages(krm_fn.__path__, "krm_fn."):
        if m.name == "krm_fn.__main__":
            continue
        module = importlib.import_module(m.name)
        for name, value in vars(module).items():
            if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields"):
                strings += [f"{m.name}.{name}.{field}" for field, t in value.__annotations__.items()
                            if isinstance(t, (str, typing.ForwardRef))]
    assert strings == []
