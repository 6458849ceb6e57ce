"""A second core for large inputs: one forked worker validates the text and scans the last items while this
process scans from the first.

Reading a large ResourceList is one Python thread's work (libyaml's validation of the whole text, then the
line scanner over every item), while `kpt fn source` and `kustomize build` use every core they are given.
Where more than one CPU is usable, `fastread` forks one worker: it inherits the text and the scanner, so
nothing large is copied, and only the facts of the items come back through a pipe, marshalled. The worker
validates the text, then scans the items in chunks from the last chunk backwards; this process scans
chunks from the first one on, taking in at each what the worker has sent, and kills the worker where the
two meet. (A plain fork and a pipe: `multiprocessing` would add its import, about 20 ms and 2.5 MiB, to
every large run, and `concurrent.futures` a thread that, on Python 3.11, prints a traceback to stderr when
a worker dies with jobs cancelled.)

The worker is an optimisation only: no fork, a job that raises, a worker that dies or exits, no verdict
on the text in time: this process does the rest itself, with the same result (as flake8 falls back to a
serial run). The worker writes nothing but its pipe (its 0, 1 and 2 are /dev/null from its first step on,
so it holds none of the caller's pipes), ends with `os._exit` (no exit hook, no flush of the stdio buffers
it inherited), is killed and reaped as soon as it is not needed, and dies with this process (Linux:
PR_SET_PDEATHSIG). There is no thread, and nothing waits for the worker at exit. No worker with one usable CPU, by affinity or by a
cgroup CPU quota.
"""
from __future__ import annotations

import marshal
import os
import sys
import time

from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # see krm_fn/__init__.py
if TYPE_CHECKING:
    from typing import Any

# Texts of at least this many lines (and characters) are scanned on two cores: the scan's work goes by
# lines (a ResourceList has about 27 per object of the benchmark, the same objects as a stream 22, so
# both modes change over near 700 objects). Below it the fork and the worker's first answer (a few ms)
# take about what the second core saves. fastread imports this module only from this many lines on.
THRESHOLD = 16_384
# The worker's share goes in chunks: where the two sides meet, at most a chunk is scanned twice.
CHUNKS = 32
# No verdict on the text this long after this process began (and at least MIN_WAIT seconds) once it has
# done everything else: the text is validated here.
WAIT_FACTOR = 3.0
MIN_WAIT = 5.0

_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity, capped by a cgroup CPU quota (a container's limit)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    quota = _quota()
    return max(1, min(n, int(quota))) if quota is not None else n


def _quota(root: str = "/sys/fs/cgroup") -> float | None:
    """The cgroup's CPU limit in CPUs (v2 `cpu.max`, v1 `cpu.cfs_quota_us`), None without one."""
    for quota, period in (("cpu.max", None), ("cpu/cpu.cfs_quota_us", "cpu/cpu.cfs_period_us"),
                          ("cpu,cpuacct/cpu.cfs_quota_us", "cpu,cpuacct/cpu.cfs_period_us")):
        try:
            with open(f"{root}/{quota}", encoding="ascii") as f:
                fields = f.read().split()
            if period is not None:
                with open(f"{root}/{period}", encoding="ascii") as f:
                    fields += f.read().split()
        except (OSError, ValueError):
            continue
        try:
            if fields[0] in ("max", "-1"):
                return None
            return int(fields[0]) / int(fields[1])
        except (IndexError, ValueError, ZeroDivisionError):
            return None
    return None


def wanted(text: str) -> bool:
    """Whether scanning `text` is worth a worker process."""
    return len(text) >= THRESHOLD and text.count("\n") >= THRESHOLD and hasattr(os, "fork") \
        and usable_cpus() > 1


def start(n: int, validate: Callable[[], None], facts_of: Callable[[int], Any], refused: tuple) -> Helper | None:
    """A worker forked to run `validate()` and `facts_of(j)` for the last of n jobs; None if it could not
    start (then this process does everything itself)."""
    size = -(-n // CHUNKS)
    chunks = [(lo, min(lo + size, n)) for lo in range(0, n, size)]
    parent = os.getpid()
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:  # no fork: a serial run
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the worker: never returns
        code = 1
        try:
            _detach(parent, (read, write))
            os.close(read)
            _serve(write, chunks, validate, facts_of, refused)
            code = 0
        finally:
            os._exit(code)
    os.close(write)  # the worker's: its end is an end of file here
    os.set_blocking(read, False)
    return Helper(pid, read, chunks)


def _serve(out: int, chunks: list[tuple[int, int]], validate: Callable[[], None],
           facts_of: Callable[[int], Any], refused: tuple) -> None:
    """The worker: its verdict on the text (a bool), then (k, the facts of chunk k) from the last chunk
    backwards, None for a chunk with a job in it that is refused (this process meets the same refusal
    when it scans the chunk itself). Anything else that goes wrong ends it."""
    def send(message: Any) -> None:
        data = marshal.dumps(message)
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(out, view):]

    try:
        validate()
    except refused:
        send(False)
        return
    send(True)
    for k in range(len(chunks) - 1, -1, -1):
        lo, hi = chunks[k]
        try:
            facts = [facts_of(j) for j in range(lo, hi)]
        except refused:
            facts = None
        send((k, facts))


def _detach(parent: int, keep: tuple[int, ...]) -> None:
    """The worker's first step: it holds none of the caller's stdin, stdout or stderr, and dies with this
    process.

    When kpt, Argo CD or a CI job stops the function (SIGTERM, SIGKILL), whatever reads its stdout waits for
    EOF, which an inherited descriptor would hold back until the worker is done. Its pipe is in `keep`:
    with stderr closed at start, pipe() may give 2."""
    import gc
    gc.disable()  # a collection would touch (and so copy) every page it shares with its parent, for nothing
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        null = -1
    for fd in (0, 1, 2):
        if fd in keep or fd == null:
            continue
        try:
            if null >= 0:
                os.dup2(null, fd)
            else:
                os.close(fd)
        except OSError:
            pass
    if null > 2:
        os.close(null)
    if _LINUX:
        try:
            import ctypes  # here only: a few ms of the worker's time, nothing of a run without one
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(9), ctypes.c_ulong(0), ctypes.c_ulong(0),
                                    ctypes.c_ulong(0))
        except (ImportError, OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the kernel was asked to tell
        os._exit(2)


class Helper:
    """The worker of one run, seen from this process: what it has sent so far."""

    def __init__(self, pid: int, read: int, chunks: list[tuple[int, int]]) -> None:
        self._pid, self._read, self._chunks = pid, read, chunks
        self._buffer = bytearray()
        self._valid: bool | None = None
        self._facts: dict[int, list | None] = {}
        self._gone = False

    def in_order(self, facts_of: Callable[[int], Any]) -> Iterator[tuple[int, Any]]:
        """(j, facts of job j) for every job in order (or fewer, once the worker found the text is not YAML):
        the worker's where it has sent the chunk, found here with `facts_of` otherwise."""
        for k, (lo, hi) in enumerate(self._chunks):
            self._receive()
            if self._valid is False:
                return  # not YAML: the rest is of no use (the verdict is asked next)
            got = self._facts.get(k)
            if k in self._facts:
                self.close()  # met: it has sent every chunk from here on, and is scanning what is done
            if got is not None and len(got) == hi - lo:
                yield from enumerate(got, lo)
            else:
                for j in range(lo, hi):
                    yield j, facts_of(j)

    def verdict(self, started: float) -> bool | None:
        """Whether the text is YAML, by the worker; None if it has not said in time (it failed, or hangs)."""
        import select
        deadline = time.monotonic() + max(MIN_WAIT, WAIT_FACTOR * (time.monotonic() - started))
        while self._valid is None and not self._gone:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            select.select([self._read], [], [], left)
            self._receive()
        return self._valid

    def _receive(self) -> None:
        """Take in what the worker has sent so far, without waiting."""
        if self._gone:
            return
        try:
            while True:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:  # it ended
                    self.close()
                    break
                self._buffer += chunk
        except BlockingIOError:
            pass
        except OSError:
            self.close()
        buffer = self._buffer
        at = 0
        try:
            while len(buffer) - at >= 8:
                size = int.from_bytes(buffer[at:at + 8], "little")
                if len(buffer) - at - 8 < size:
                    break
                got = marshal.loads(buffer[at + 8:at + 8 + size])
                at += 8 + size
                if got.__class__ is bool:
                    self._valid = got
                else:
                    self._facts[got[0]] = got[1]
        except (ValueError, EOFError, TypeError, IndexError, KeyError):  # not what it sends: done here
            self.close()
            self._facts.clear()
        del buffer[:at]

    def close(self) -> None:
        """This process needs the worker no more: it is killed and reaped."""
        if not self._gone:
            self._gone = True
            try:
                os.kill(self._pid, 9)
            except OSError:
                pass
            try:
                os.waitpid(self._pid, 0)
            except ChildProcessError:
                pass
            os.close(self._read)
