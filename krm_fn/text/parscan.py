"""A second core for large inputs: a forked helper process takes the tail of a list of jobs while this
process works through its head.

Reading a large ResourceList is one Python thread's work (libyaml's validation of the whole text, then the
line scanner over every item), while `kpt fn source` and `kustomize build` use every core they are given.
Where more than one CPU is usable, `fastread` forks once: the helper validates the text and scans items
from the last one backwards, this process scans from the first one forwards, and each stops where the
other has been (two counters in shared memory: each side publishes how far it has finished, so an item
may be scanned twice at the meeting point, never left out). The helper sends its verdict and its items'
facts back through a pipe, marshalled.

The helper is an optimisation only: whatever goes wrong with it (fork refused, a crash, a kill, garbage or
a short answer on the pipe, an exit status other than 0, no answer in time) this process does the
helper's share itself, with the same result. The helper writes nothing but the pipe, ends with
`os._exit` (no exit hooks, no flushing of the stdio buffers it inherited), is always reaped, and leaves
no descriptor open; it holds none of the caller's stdin, stdout and stderr, and (Linux) dies with this
process, so a function stopped by SIGTERM or SIGKILL ends its output at once. No fork with one usable
CPU, by affinity or by a cgroup CPU quota.
"""
from __future__ import annotations

import gc
import marshal
import os
import sys
import time

from collections.abc import Callable
from typing import Any

# Texts of at least this many lines are scanned on two cores: the scan's work goes by lines (a
# ResourceList has about 27 per object of the benchmark, the same objects as a stream 22, so both modes
# change over near 700 objects). Below it the fork, the helper's exit and its answer (a few ms) take
# about what the second core saves. Tests set 0.
THRESHOLD = 16_384
ENABLED = True
# Tests: simulate a failure of the helper ("fork", "exit", "garbage", "wrong", "short", "kill", "hang",
# "raise"), and make this process stop at a share of the jobs (so that the helper's answer is used even
# where this process alone would be done before the helper starts).
FAULT = ""
SPLIT: float | None = None
# Tests: the helper's work done in this process, at once (its answer marshalled and checked as usual), so
# that thousands of generated inputs can go through the parallel scan's bookkeeping without a fork each.
INLINE = False
# No answer this long after this process finished its share (and at least MIN_WAIT seconds): the helper
# is killed and its share scanned here.
WAIT_FACTOR = 3.0
MIN_WAIT = 5.0
STATS = {"forked": 0, "helped": 0, "failed": 0}

_cpus: int | None = None
_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity, capped by a cgroup CPU quota (a container's limit)."""
    global _cpus
    if _cpus is None:
        try:
            n = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            n = os.cpu_count() or 1
        quota = _quota()
        _cpus = max(1, min(n, int(quota))) if quota is not None else n
    return _cpus


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
    """Whether scanning `text` is worth a helper process."""
    return ENABLED and len(text) >= THRESHOLD and hasattr(os, "fork") and text.count("\n") >= THRESHOLD \
        and usable_cpus() > 1


def _detach(parent: int, keep: tuple[int, ...]) -> None:
    """In the helper, first: it dies with this process and holds none of the caller's stdin, stdout or stderr.

    When kpt, Argo CD or a CI job stops the function (SIGTERM, SIGKILL), whatever reads its stdout waits for
    EOF, which an inherited descriptor would hold back until the helper is done (seconds). On Linux the
    kernel kills the helper with its parent (PR_SET_PDEATHSIG); everywhere its 0, 1 and 2 are /dev/null
    (it writes nothing but its pipe, which is in `keep`: with stderr closed at start, pipe() may give 2)."""
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
            import ctypes  # here only: a few ms of the helper's time, nothing of a run that does not fork
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(9), ctypes.c_ulong(0), ctypes.c_ulong(0),
                                    ctypes.c_ulong(0))
        except (ImportError, OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the kernel was asked to tell
        os._exit(2)


class Helper:
    """A forked helper working through jobs n-1, n-2, … while this process works through 0, 1, …

    In the helper: `take(j)` says whether job j is still to do (this process has not finished it), `did(j)`
    publishes that jobs j… are done. Here: `take(i)` says whether job i is still to do (the helper has not
    finished it), `did(i)` publishes that jobs …i are done; `answer()` is the helper's result (None: it
    failed, do its share here). Published counts only grow (or shrink) past finished jobs, so a job may
    be done on both sides at the meeting point, never on neither."""

    def __init__(self, n: int) -> None:
        import mmap
        self.n = n
        self._shared = mmap.mmap(-1, 16)  # anonymous and shared with the forked process
        self._counters = memoryview(self._shared).cast("q")  # [0]: this process's jobs done, [1]: the helper's first
        self._counters[0] = 0
        self._counters[1] = n
        self.pid = 0  # the helper's, here; 0 in the helper; -1: INLINE
        self._read = self._write = -1
        self._inline = b""

    # -- both sides --------------------------------------------------------------------------------------

    def take(self, job: int) -> bool:
        if self.pid:
            return job < self._counters[1] and (SPLIT is None or job < self.n * SPLIT)
        return job >= self._counters[0]

    def did(self, job: int) -> None:
        if self.pid:
            self._counters[0] = job + 1
        else:
            self._counters[1] = job

    # -- this process ------------------------------------------------------------------------------------

    def start(self, work: Callable[[Helper], Any]) -> bool:
        """Fork the helper to run `work(self)` and send back its marshalled result; False if it could not."""
        if INLINE:
            self._inline = self._payload(work)
            self.pid = -1
            STATS["forked"] += 1
            return True
        try:
            self._read, self._write = os.pipe()
            if FAULT == "fork":
                raise OSError("simulated: fork refused")
            parent = os.getpid()
            pid = os.fork()
        except OSError:
            self._close()
            return False
        if pid == 0:  # the helper: never returns
            code = 2
            try:
                _detach(parent, (self._read, self._write))
                os.close(self._read)
                code = self._serve(work)
            finally:
                os._exit(code)
        self.pid = pid
        os.close(self._write)
        self._write = -1
        STATS["forked"] += 1
        return True

    def answer(self, started: float, check: Callable[[Any], bool]) -> Any:
        """The helper's result if `check` accepts it, or None if it failed (then it is gone and nothing of
        it is left); `started`: when this process began its share (how long to wait follows from it)."""
        try:
            data = self._inline if self.pid < 0 else self._receive(started)
            result = None
            if data is not None and len(data) >= 8:
                size = int.from_bytes(data[:8], "little")
                if size == len(data) - 8:
                    result = marshal.loads(data[8:])
                    if not check(result):
                        result = None
        except (OSError, ValueError, EOFError, TypeError):
            result = None
        status = self._reap(kill=result is None)
        if status != 0:
            result = None
        if result is None:
            STATS["failed"] += 1
        else:
            STATS["helped"] += 1
        self._close()
        return result

    def cancel(self) -> None:
        """This process no longer needs the helper (it fell back, or is interrupted)."""
        if self.pid:
            self._reap(kill=True)
        self._close()

    def _receive(self, started: float) -> bytes | None:
        import select
        elapsed = time.monotonic() - started
        deadline = time.monotonic() + max(MIN_WAIT, WAIT_FACTOR * elapsed)
        poller = select.poll()
        poller.register(self._read, select.POLLIN)
        chunks = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                return None  # no answer in time
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    def _reap(self, kill: bool) -> int:
        pid, self.pid = self.pid, 0
        if pid < 0:  # INLINE
            return 0
        if kill:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                return status
            except InterruptedError:
                continue
            except ChildProcessError:
                return -1

    def _close(self) -> None:
        for fd in (self._read, self._write):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._read = self._write = -1
        try:
            self._counters.release()
            self._shared.close()
        except (BufferError, ValueError):
            pass

    # -- the helper --------------------------------------------------------------------------------------

    def _serve(self, work: Callable[[Helper], Any]) -> int:
        # A collection would walk (and so copy, page by page) everything this process shares with its
        # parent, for nothing: the helper's objects die with it.
        gc.disable()
        if FAULT == "exit":
            return 3
        if FAULT == "kill":
            os.kill(os.getpid(), 9)
        if FAULT == "hang":
            time.sleep(60)
        data = self._payload(work)
        view = memoryview(data)
        while view:
            view = view[os.write(self._write, view):]
        return 0

    def _payload(self, work: Callable[[Helper], Any]) -> bytes:
        """The marshalled result of `work(self)`, its length in front (a short read shows)."""
        if FAULT == "raise":
            raise RuntimeError("simulated")
        payload = marshal.dumps(work(self) if FAULT != "wrong" else ("ok", 0, [1, 2]))
        if FAULT == "garbage":
            payload = os.urandom(len(payload) // 2 + 9)
        data = len(payload).to_bytes(8, "little") + payload
        if FAULT == "short":
            data = data[:len(data) // 2]
        return data
