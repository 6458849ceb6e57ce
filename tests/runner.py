"""The one way a test runs the function in-process: `run(argv, stdin, env)`, as the command line would.

`argv` is the command line after `kaito-specdec`: `[]` is KRM mode (a ResourceList on stdin), `["render", …]`
renders. The environment is exactly `env` (never the test process's own), so a setting a developer exported
cannot change a test's outcome. YAML is read with libyaml, the one reader.

Tests that need a real process (a crash, a hang, a closed pipe, the installed script) use tests/hostile.py's
`run` or subprocess directly: what they check does not show in-process.
"""
from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import yaml

from krm_fn.cli import main
from krm_fn.findings import CATALOGUE


class Run(NamedTuple):
    """Exit status, stdout and stderr; unpacks as `code, out, err = run(...)`."""

    code: int
    out: str
    err: str

    @property
    def doc(self) -> Any:
        """stdout parsed as one YAML document (KRM mode's ResourceList)."""
        return yaml.safe_load(self.out)

    @property
    def items(self) -> list:
        return self.doc["items"]

    @property
    def results(self) -> list:
        """The ResourceList's results ([] when it has none)."""
        return (self.doc or {}).get("results") or []

    @property
    def docs(self) -> list:
        """stdout parsed as a stream of documents (render's output)."""
        return list(yaml.safe_load_all(self.out))


def run(argv: Sequence[str] = (), stdin: str | bytes = b"", env: Mapping[str, str] | None = None) -> Run:
    """One run of `kaito-specdec ARGV` with `stdin` (text is sent as UTF-8) and exactly the environment `env`."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return _once(argv, data, env)


def _once(argv: Sequence[str], data: bytes, env: Mapping[str, str] | None) -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.BytesIO(data), stdout=out, stderr=err, environ=dict(env or {}))
    return Run(code, out.getvalue(), without_summary(err.getvalue()))


# The last line `render` (and a KRM run with findings) writes: `kaito-specdec: 1 error, 2 warnings, …`.
SUMMARY = re.compile(r"kaito-specdec: [0-9]+ errors?, [0-9]+ warnings?, [0-9]+ infos?\b[^\n]*\n\Z")


def without_summary(err: str) -> str:
    """stderr without its summary line: most tests compare the findings' lines; `run_whole` keeps it
    (tests/test_say_all.py checks the line itself)."""
    return SUMMARY.sub("", err)


def run_whole(argv: Sequence[str] = (), stdin: str | bytes = b"", env: Mapping[str, str] | None = None) -> Run:
    """`run`, stderr as written, its summary line included."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.BytesIO(data), stdout=out, stderr=err, environ=dict(env or {}))
    return Run(code, out.getvalue(), err.getvalue())


def failed_code(said: str) -> int:
    """The exit status of a failed run that said `said`: 2 when it names a finding that means the run could not
    judge (the catalogue's could_not_judge: a bad setting, a path it cannot read), else 1."""
    ids = re.findall(r"\bSD[0-9]{3}\b", said)
    return 2 if any(CATALOGUE[id].could_not_judge for id in ids if id in CATALOGUE) else 1
