"""I/O faults through a real process (issue 10, item 9): every byte written or a non-zero exit with one
stderr line — never a traceback, never a truncated output with exit 0."""
from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from collections.abc import Iterator

import pytest
import yaml

CMD = [sys.executable, "-m", "krm_fn"]
# Larger than any pipe buffer (64 KiB on Linux), so that the writer really meets the reader's state.
ITEMS = 5_000


@pytest.fixture(scope="module")
def big_input(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("io") / "rl.yaml"
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n  data:\n    k: v\n"
                    for i in range(ITEMS))
    path.write_text("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items)
    return path


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("KAITO_SPECDEC_")}
    e.update(extra)
    return e


def one_error_line(stderr: bytes, *words: str) -> str:
    text = stderr.decode()
    assert "Traceback" not in text and "Exception ignored" not in text, text
    lines = text.splitlines()
    assert len(lines) == 1 and lines[0].startswith("[error] "), text
    assert all(w in lines[0] for w in words), text
    return lines[0]


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_pipe_into_true(big_input, unbuffered):
    """`kaito-specdec < big | true`: the reader is gone; one line, exit 1 (no BrokenPipeError traceback)."""
    proc = subprocess.run(["bash", "-c", '"$0" -m krm_fn < "$1" | true; exit "${PIPESTATUS[0]}"',
                           sys.executable, str(big_input)], capture_output=True, timeout=120,
                          env=env(PYTHONUNBUFFERED=unbuffered))
    assert proc.returncode == 2
    one_error_line(proc.stderr, "stdout", "closed the pipe", "incomplete")


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_stdout_and_stderr_into_a_pipe_nobody_reads(big_input, unbuffered):
    """`kaito-specdec < big 2>&1 | true`: the line about stdout is lost with it, and the exit status is still 1,
    not the interpreter's 120 for a stream it cannot flush at exit."""
    r, w = os.pipe()
    os.close(r)
    try:
        with open(big_input, "rb") as stdin:
            proc = subprocess.run(CMD, stdin=stdin, stdout=w, stderr=w, timeout=120, env=env(PYTHONUNBUFFERED=unbuffered))
    finally:
        os.close(w)
    assert proc.returncode == 2


def test_reader_closes_early(big_input):
    """A reader that takes a little and closes: exit 1 and one line, never exit 0 with part of the output."""
    with open(big_input, "rb") as stdin:
        proc = subprocess.Popen(CMD, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env(PYTHONUNBUFFERED="1"))
        head = proc.stdout.read(4096)
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=120)
    assert head.startswith(b"apiVersion: config.kubernetes.io/v1")
    assert code == 2
    one_error_line(err, "closed the pipe")


def test_non_blocking_stdout_gets_every_byte(big_input):
    """With PYTHONUNBUFFERED=1 and a non-blocking stdout (a slow reader), all of the output arrives."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    with open(big_input, "rb") as stdin:
        proc = subprocess.Popen(CMD, stdin=stdin, stdout=w, stderr=subprocess.PIPE,
                                env=env(PYTHONUNBUFFERED="1"))
    os.close(w)
    time.sleep(1.0)  # let the writer fill the pipe and meet EAGAIN
    chunks = []
    while True:
        select.select([r], [], [], 120)
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        time.sleep(0.001)
    os.close(r)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    out = b"".join(chunks)
    assert out == big_input.read_bytes()  # untouched: the input, byte for byte
    assert len(yaml.safe_load(out)["items"]) == ITEMS


def test_dev_full(big_input):
    with open(big_input, "rb") as stdin, open("/dev/full", "wb") as full:
        proc = subprocess.run(CMD, stdin=stdin, stdout=full, stderr=subprocess.PIPE, timeout=120, env=env())
    assert proc.returncode == 2
    one_error_line(proc.stderr, "stdout", "No space left on device")


@pytest.mark.parametrize("redirect, words", [(">&-", ["stdout is closed"]), ("<&-", ["stdin is closed"])],
                         ids=["stdout-closed", "stdin-closed"])
def test_closed_stdout_or_stdin(big_input, redirect, words):
    script = f'"$0" -m krm_fn < "$1" {redirect}' if redirect == ">&-" else f'"$0" -m krm_fn {redirect}'
    proc = subprocess.run(["bash", "-c", script, sys.executable, str(big_input)], capture_output=True,
                          timeout=120, env=env())
    assert proc.returncode == 2
    one_error_line(proc.stderr, *words)


def test_closed_stdout_render(tmp_path):
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")
    proc = subprocess.run(["bash", "-c", '"$0" -m krm_fn render "$1" >&-', sys.executable, str(tmp_path)],
                          capture_output=True, timeout=120, env=env())
    assert proc.returncode == 2
    one_error_line(proc.stderr, "stdout is closed")


def test_help_into_a_closed_pipe():
    proc = subprocess.run(["bash", "-c", '"$0" -m krm_fn --help >&-', sys.executable], capture_output=True,
                          timeout=60, env=env())
    assert proc.returncode == 2
    one_error_line(proc.stderr, "stdout is closed")


@contextlib.contextmanager
def waiting_on_a_terminal() -> Iterator[tuple[subprocess.Popen, int, bytes]]:
    """The command with no arguments and a terminal as stdin: (process, terminal fd, its first stderr line)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    # Ctrl-C as at a terminal: a runner in the background (`cmd &`) ignores SIGINT, and its children with it.
    proc = subprocess.Popen(CMD, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "nothing on stderr"
        yield proc, master, proc.stderr.readline()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def test_no_arguments_on_a_terminal_says_what_it_waits_for():
    """Run by hand with no arguments: not a silent hang, but a line saying what it waits for."""
    with waiting_on_a_terminal() as (proc, terminal, first):
        line = first.decode()
        assert "waiting for a ResourceList on stdin" in line and "--help" in line
        assert proc.poll() is None  # and it does wait
        os.write(terminal, b"\x04")  # Ctrl-D: end of input
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and b"input is empty" in err


def test_ctrl_c_while_waiting_is_one_line():
    with waiting_on_a_terminal() as (proc, _, first):
        assert b"waiting for a ResourceList" in first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert (proc.returncode, out) == (130, b"")
        assert err.decode() == "[error] interrupted; any output is incomplete [SD063]\n"


def test_output_that_is_not_unicode_is_one_line_not_a_traceback():
    """stdout is UTF-8, which no lone surrogate has. The settings refuse every one that could reach the
    output (tests/test_bad_input.py); should one still get there, it is one line and exit 1, nothing
    written (issue 19: it was a UnicodeEncodeError traceback, outside the error boundary)."""
    code = ("import krm_fn.domain.presets as p; p.describe = lambda *a, **k: 'tuned \\ud800\\n'; "
            "from krm_fn.cli import run; run()")
    proc = subprocess.run([sys.executable, "-c", code, "presets"], capture_output=True, timeout=60, env=env())
    assert (proc.returncode, proc.stdout) == (2, b"")
    one_error_line(proc.stderr, "internal error", "UnicodeEncodeError", "surrogates not allowed", "[SD065]")
