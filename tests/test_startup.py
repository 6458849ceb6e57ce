"""A lean start: KRM function mode (no arguments, what runs on every render) imports only what it uses.

Checked in a fresh interpreter started with -S, so that nothing a site hook or an editable install's
finder imports (pathlib, contextlib, …) hides what the package itself imports. The figures are in the
README's performance section; no timings here.
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


# What only the commands, --help or an error need: argparse (and the shutil, locale and gettext its help
# formatter imports), pathlib (render's folder walk, with the fnmatch and urllib.parse it imports).
NOT_ON_THE_KRM_PATH = ["argparse", "shutil", "locale", "gettext", "pathlib", "fnmatch", "urllib.parse"]

PROBE = """
import io, json, sys
sys.argv = ["kaito-specdec", *json.loads(sys.argv[1])]
before = set(sys.modules)
from krm_fn.cli import main
out, err = io.StringIO(), io.StringIO()
code = main(stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out, stderr=err, environ={})
print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(),
                  "imported": sorted(set(sys.modules) - before)}))
"""


def _probe(argv: list[str], stdin: str) -> dict:
    paths = {str(ROOT)} | {str(Path(m.__file__).resolve().parent.parent) for m in (yaml, jsonpatch, jsonpointer)}
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sorted(paths))}
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, json.dumps(argv)], input=stdin.encode(),
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_krm_mode_imports_nothing_only_the_commands_need():
    got = _probe([], ONE_WORKSPACE)
    assert got["code"] == 0, got["err"]
    assert "specdec-ngram-" in got["out"]  # the run did its work: a derived ConfigMap
    assert "krm_fn.pipeline" in got["imported"] and "yaml" in got["imported"]  # the probe sees imports
    assert [m for m in NOT_ON_THE_KRM_PATH if m in got["imported"]] == []


@pytest.mark.parametrize("argv", [["--version"], ["render", "-"]])
def test_the_commands_still_parse_their_arguments(argv):
    """The other side of the lazy imports: the commands import argparse when they run, and work."""
    got = _probe(argv, ONE_WORKSPACE)
    assert got["code"] == 0, got["err"]
    assert "argparse" in got["imported"]
    assert ("kaito-specdec 0.1.0" if argv == ["--version"] else "specdec-ngram-") in got["out"]


def test_a_bad_argument_is_a_usage_error_not_krm_mode():
    got = _probe(["--no-such-flag"], ONE_WORKSPACE)
    assert got["code"] == 2 and got["out"] == ""
    assert "unrecognized arguments: --no-such-flag" in got["err"]
