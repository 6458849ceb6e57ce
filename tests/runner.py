"""The one way a test runs the function in-process: `run(argv, stdin, env)`, as the command line would.

`argv` is the command line after `kaito-specdec`: `[]` is KRM mode (a ResourceList on stdin), `["render", …]`
renders. The environment is exactly `env` (never the test process's own), so a setting a developer exported
cannot change a test's outcome. The YAML backend is whatever `yamlio` has (the `backend` fixture in
tests/conftest.py picks it).

Tests that need a real process (a crash, a hang, a closed pipe, the installed script) use tests/hostile.py's
`run` or subprocess directly: what they check does not show in-process.
"""
from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import yaml

from krm_fn import pipeline
from krm_fn.text import reader, yamlio
from krm_fn.cli import main


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


def run(argv: Sequence[str] = (), stdin: str | bytes = b"", env: Mapping[str, str] | None = None,
        compare: bool = True) -> Run:
    """One run of `kaito-specdec ARGV` with `stdin` (text is sent as UTF-8) and exactly the environment `env`.

    The run reads its input as the image does (reader.SCAN_FROM decides whether the scan of shapes is
    tried). Every `render` run of every test also runs the other way, the scan forced on a small input or
    every item composed for a large one, and must give the same exit status, stdout and stderr (issue 13;
    tests/test_render_fastread.py). `compare=False`: one run only (the fuzzer times each run against a limit)."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    if not (compare and list(argv[:1]) == ["render"] and yamlio.C_AVAILABLE and yamlio.backend() == "c"):
        return _once(argv, data, env)
    sizes: list[int] = []
    with reading(..., sizes):
        result = _once(argv, data, env)
    tried = bool(sizes) and sizes[-1] >= reader.SCAN_FROM  # the scan was tried: compare with composing
    with reading(None if tried else 0):
        other = _once(argv, data, env)
    assert "Traceback" not in result.err, result.err
    assert result == other, f"render {list(argv[1:])}: the scan and composing every item differ\n{result}\n{other}"
    return result


@contextlib.contextmanager
def reading(scan_from: Any, sizes: list[int] | None = None) -> Iterator[None]:
    """Runs inside read their input with reader's `scan_from` (0: the scan tried on every input; None:
    every item composed, the reference; `...`: the reader's default); `sizes` gets each input's size."""
    saved = pipeline.read_resource_list, pipeline.read_stream
    given = {} if scan_from is ... else {"scan_from": scan_from}

    def read_resource_list(data: bytes) -> reader.ResourceList:
        if sizes is not None:
            sizes.append(len(data))
        return reader.read_resource_list(data, **given)

    def read_stream(sources: list[tuple[str, bytes]]) -> reader.Stream:
        if sizes is not None:
            sizes.append(sum(len(data) for _, data in sources))
        return reader.read_stream(sources, **given)

    pipeline.read_resource_list, pipeline.read_stream = read_resource_list, read_stream
    try:
        yield
    finally:
        pipeline.read_resource_list, pipeline.read_stream = saved


def _once(argv: Sequence[str], data: bytes, env: Mapping[str, str] | None) -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.BytesIO(data), stdout=out, stderr=err, environ=dict(env or {}))
    return Run(code, out.getvalue(), err.getvalue())
