"""Run the function as a real `python -m krm_fn` process on a chosen YAML backend (the way the issues
reproduced hostile input: a hang, a segfault or a traceback only shows in a real process)."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from krm_fn.text import yamlio

from backends import BACKENDS  # noqa: F401  (re-exported for the tests)
# `python -m krm_fn` with the backend chosen first (tests/conftest.py's `backend` fixture, in a process).
_BOOT = ("import runpy, sys; from krm_fn.text import yamlio; yamlio.set_backend(sys.argv.pop(1)); "
         "sys.argv[0] = 'krm_fn'; runpy.run_module('krm_fn', run_name='__main__', alter_sys=True)")

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
WS = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
      "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference:\n    preset:\n      name: phi-4\n")


@dataclass
class Run:
    code: int | None
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")


def run(data: str | bytes, backend: str, *args: str, timeout: float = 60) -> Run:
    """Exit code (None on a timeout), stdout and stderr of one process."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        # kaitoVersion v0.13.0: a disabled Workspace passes untouched (not set, it keeps a config reference).
        proc = subprocess.run([sys.executable, "-c", _BOOT, backend, *args], input=data, capture_output=True,
                              timeout=timeout, env={**os.environ, "KAITO_SPECDEC_KAITO_VERSION": "v0.13.0"})
    except subprocess.TimeoutExpired:
        return Run(None, b"", "timeout")
    return Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))


def clean_error(r: Run, *words: str) -> None:
    """Exit 1, nothing or the input on stdout, one named error, no traceback, no internal error."""
    assert r.code == 1, (r.code, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    for w in words:
        assert w in r.err, (w, r.err)


def bomb(indent: str, levels: int = 9) -> str:
    """A billion-laughs mapping: `levels` anchors, each holding nine aliases of the one before."""
    lines = [f"{indent}a0: &a0 [x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n")
    return "".join(lines)
