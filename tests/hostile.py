"""Run the function as a real process (the way the issues reproduced hostile input: a hang, a segfault or a
traceback only shows in a real process).

Each run is a process of its own, with its own stdin, stdout and stderr (pipes), exit status and signals, as
`python -m krm_fn` is; only it does not start an interpreter and import the package every time: it is forked
from a server process that did so once (_SERVER), and runs `python -m krm_fn`'s own `__main__` from there.
tests/test_startup.py, tests/test_cli.py and tests/test_io.py start the real command."""
from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

from runner import failed_code

# The fork server: imports what `python -m krm_fn` imports, then for each request forks a child that takes
# the three descriptors sent with it as its stdin, stdout and stderr and runs the package's __main__ as
# `python -m krm_fn ARGS` would. The child leaves the server's loop and runs at the top level, so that an
# exception ends it as it ends a command (a traceback, exit 1). The server replies with the child's pid, then
# its wait status.
_SERVER = """
import json, os, runpy, socket, sys
# kaitoVersion v0.13.0: a disabled Workspace passes untouched (not set, it keeps a config reference).
os.environ["KAITO_SPECDEC_KAITO_VERSION"] = "v0.13.0"
from krm_fn import cli

def serve(sock):
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        if not msg:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            sock.close()
            return json.loads(msg), fds
        for fd in fds:
            os.close(fd)
        sock.send(str(pid).encode())
        sock.send(str(os.waitpid(pid, 0)[1]).encode())

args, fds = serve(socket.socket(fileno=int(sys.argv.pop(1))))
for target, fd in enumerate(fds):
    os.dup2(fd, target)
    os.close(fd)
sys.argv[:] = ["krm_fn", *args]
runpy.run_module("krm_fn", run_name="__main__", alter_sys=True)
"""
_server: tuple[subprocess.Popen, socket.socket] | None = None


def _connection() -> socket.socket:
    global _server
    if _server is None or _server[0].poll() is not None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        _server = (proc, mine)
        atexit.register(_stop, proc, mine)
    return _server[1]


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


def _stop(proc: subprocess.Popen, conn: socket.socket) -> None:
    """The server ends when it reads the end of its socket; waited for, so that its children's CPU time
    counts in the test run's own (as a command started by subprocess would)."""
    conn.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run(data: str | bytes, *args: str, timeout: float = 60) -> Run:
    """Exit code (None on a timeout; minus the signal when one ended it), stdout and stderr of one process."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    conn = _connection()
    (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
    socket.send_fds(conn, [json.dumps(list(args)).encode()], [in_r, out_w, err_w])
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    reply = conn.recv(64)
    assert reply, "the fork server in tests/hostile.py has ended: run its _SERVER to see why"
    pid = int(reply)
    out, err, finished = _communicate(in_w, out_r, err_r, data, time.monotonic() + timeout)
    if not finished:
        os.kill(pid, signal.SIGKILL)
    status = int(conn.recv(64))
    if not finished:
        return Run(None, b"", "timeout")
    return Run(os.waitstatus_to_exitcode(status), out, err.decode("utf-8", "replace"))


def _communicate(in_w: int, out_r: int, err_r: int, data: bytes, deadline: float) -> tuple[bytes, bytes, bool]:
    """Write `data` to the child's stdin and read its stdout and stderr to their ends (or the deadline), as
    subprocess.run(input=...) does; whether they ended."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    sel = selectors.DefaultSelector()
    sel.register(out_r, selectors.EVENT_READ)
    sel.register(err_r, selectors.EVENT_READ)
    view = memoryview(data)
    if view:
        os.set_blocking(in_w, False)
        sel.register(in_w, selectors.EVENT_WRITE)
    else:
        os.close(in_w)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", b"", False
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == in_w:
                    try:
                        view = view[os.write(fd, view[:1 << 16]):]
                    except BrokenPipeError:  # the child stopped reading: as subprocess does, no error here
                        view = view[:0]
                    if not view:
                        sel.unregister(fd)
                        os.close(fd)
                    continue
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    sel.unregister(fd)
                    os.close(fd)
    finally:
        for key in list(sel.get_map().values()):
            os.close(key.fd)
        sel.close()
    return b"".join(chunks[out_r]), b"".join(chunks[err_r]), True


def clean_error(r: Run, *words: str) -> None:
    """Exit 1 (2 where the run could not judge: a bad setting), nothing or the input on stdout, one named error, no traceback, no internal error."""
    assert r.code == failed_code(r.err), (r.code, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    for w in words:
        assert w in r.err, (w, r.err)


def bomb(indent: str, levels: int = 9) -> str:
    """A billion-laughs mapping: `levels` anchors, each holding nine aliases of the one before."""
    lines = [f"{indent}a0: &a0 [x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n")
    return "".join(lines)
