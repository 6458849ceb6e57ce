"""The parallel scan of large inputs (krm_fn/text/parscan.py, fastread): a forked worker validates the text
and scans the last items while the function scans from the first. It is an optimisation only: with the
worker working, and with every way it can fail (no pool, a job that raises, a worker killed or exiting, a
verdict that does not come), stdout, stderr and the exit status are those of the one-process scan and of
the full reader; the worker writes nothing, holds none of the caller's pipes, dies with its parent and
does not hold its exit; and there is no worker with one usable CPU. tests/test_fastread.py runs inputs of
every kind through the parallel scan as well.

Faults are made in the worker only: the fork inherits whatever a test patched, and the patch acts where
`os.getpid()` is not the test's own.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastpath_cases import HEAD, _deployment, _entry, _service, _workspace
from runner import reading, run
from test_fastread import scans, two_cores
from krm_fn.text import fastread, parscan, yamlio

pytestmark = pytest.mark.skipif(not yamlio.C_AVAILABLE or not hasattr(os, "fork"),
                                reason="the parallel scan needs libyaml's C parser and fork")

ME = os.getpid()


@pytest.fixture(autouse=True)
def _c_backend(c_backend):
    """The fast path needs libyaml: every test here runs on the C backend (tests/conftest.py)."""


@pytest.fixture(autouse=True)
def _no_worker_left(monkeypatch):
    """Every test ends with no worker it forked left, running or unreaped: each run kills and reaps its
    own."""
    forked = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    yield
    left = []
    for pid in forked:
        try:
            os.waitpid(pid, os.WNOHANG)  # (reaps a zombie, so that one failure does not spread)
        except ChildProcessError:
            continue  # reaped by the function, as it should be
        left.append(pid)
    assert not left, "a worker outlived its run"


def kpt_list(n: int, extra: dict[int, str] | None = None) -> str:
    """A kpt-shaped list of n objects (Deployments, Services, a Workspace every 50), `extra[i]` put
    before the i-th."""
    makers = [_deployment, _service, _deployment]
    parts = []
    for i in range(n):
        parts.append((extra or {}).get(i, ""))
        parts.append(_entry((_workspace if i % 50 == 7 else makers[i % 3])(i), "compact"))
    return HEAD + "".join(parts)


@pytest.fixture(autouse=True)
def _scan_every_input() -> Iterator[None]:
    """The scan of shapes tried however small the input (the reader's scan_from), as the parallel scan is."""
    with reading(0):
        yield


def outcomes(text: str) -> tuple:
    """(one process, every item composed) for `text`."""
    one = run([], text, {})
    with reading(None):
        full = run([], text, {})
    return one, full


def in_worker(monkeypatch, name: str, fault: str, slow_here: float = 0.0) -> list[int]:
    """Patch fastread's `name` (`_item_facts` or `_validate`) so that it fails by `fault` in the worker
    ("raise", "kill", "exit", "hang"; "" for none) and takes `slow_here` seconds longer in this process;
    the list counts its calls here."""
    real = getattr(fastread, name)
    here = [0]

    def patched(*args, **kwargs):
        if os.getpid() == ME:
            here[0] += 1
            time.sleep(slow_here)
        elif fault == "raise":
            raise RuntimeError("simulated")
        elif fault == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif fault == "exit":
            os._exit(3)
        elif fault == "hang":
            time.sleep(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(fastread, name, patched)
    return here


def test_the_workers_share_is_used(monkeypatch) -> None:
    text = kpt_list(300)
    one, full = outcomes(text)
    assert one == full and one.code == 0
    here = in_worker(monkeypatch, "_item_facts", "", slow_here=0.002)  # the worker surely has time
    with two_cores(), scans() as read:
        assert run([], text, {}) == one
    assert len(read) == 1  # not the full reader's output, after some refusal
    assert 0 < here[0] < 300, here  # some items' facts came from the worker


def test_both_sides_meet_anywhere() -> None:
    """Whoever is faster, every item is read once in order: some twice, none missed."""
    text = kpt_list(400)
    one, _ = outcomes(text)
    for _ in range(3):
        with two_cores(), scans() as read:
            assert run([], text, {}) == one
        assert len(read) == 1


@pytest.mark.parametrize("name", ["_item_facts", "_validate"])
@pytest.mark.parametrize("fault", ["raise", "kill", "exit", "hang"])
def test_a_failing_worker_changes_nothing(name: str, fault: str, monkeypatch) -> None:
    monkeypatch.setattr(parscan, "MIN_WAIT", 0.3)
    monkeypatch.setattr(parscan, "WAIT_FACTOR", 0.0)
    text = kpt_list(60)
    one, full = outcomes(text)
    assert one == full
    here = in_worker(monkeypatch, name, fault)
    with two_cores(), scans() as read:
        assert run([], text, {}) == one
    assert len(read) == 1  # the worker's share scanned here: still the fast path
    assert here[0] == (60 if name == "_item_facts" else 1)  # every item here / the text validated here


def test_no_fork_is_a_serial_run(monkeypatch) -> None:
    def refused():
        raise OSError("simulated: fork refused")

    text = kpt_list(60)
    one, _ = outcomes(text)
    monkeypatch.setattr(os, "fork", refused)
    here = in_worker(monkeypatch, "_validate", "")
    with two_cores(), scans() as read:
        assert run([], text, {}) == one
    assert here[0] == 1


@pytest.mark.parametrize("where", ["worker", "this process"])
def test_invalid_yaml_only_libyaml_sees(where: str) -> None:
    """A control character in a block scalar: the scanner never reads the block's text, libyaml's
    validation (the worker's) refuses it, and the full reader words the error."""
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bad\n  data:\n    s: |\n      a\x01b\n"
    text = kpt_list(80, {70 if where == "worker" else 5: bad})
    one, full = outcomes(text)
    assert one == full and one.code == 1
    with two_cores(), scans() as read:
        assert run([], text, {}) == one


@pytest.mark.parametrize("fault", ["", "raise"])
@pytest.mark.parametrize("where", ["worker", "this process"])
def test_an_entry_for_the_full_reader(where: str, fault: str, monkeypatch) -> None:
    text = kpt_list(80, {70 if where == "worker" else 5: "- - not a mapping\n"})
    one, full = outcomes(text)
    assert one == full and one.code == 1
    in_worker(monkeypatch, "_item_facts", fault, slow_here=0.001)
    with two_cores(), scans() as read:
        assert run([], text, {}) == one


def test_an_unforeseen_error_here_waits_for_the_verdict_on_the_text(monkeypatch) -> None:
    """One process validates the text before it scans: invalid YAML goes to the full reader even where
    the scan would have failed in a way nobody foresaw. With the worker validating, the same."""
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bad\n  data:\n    s: |\n      a\x01b\n"
    text = kpt_list(40, {35: bad})
    real = fastread._make

    def broken(*args, **kwargs):
        if os.getpid() == ME:
            raise TypeError("unforeseen")
        return real(*args, **kwargs)

    one, full = outcomes(text)
    monkeypatch.setattr(fastread, "_make", broken)
    assert run([], text, {}) == full
    with two_cores(), scans() as read:
        assert run([], text, {}) == full


def stream(n: int, extra: dict[int, str] | None = None) -> str:
    """The same objects as `kpt_list` as a plain stream of documents (`kustomize build`, `render -`)."""
    makers = [_deployment, _service, _deployment]
    return "---\n".join((extra or {}).get(i, "") + (_workspace if i % 50 == 7 else makers[i % 3])(i) for i in range(n))


@pytest.mark.parametrize("fault", ["", "raise", "kill"])
def test_render_on_two_cores(fault: str, monkeypatch) -> None:
    text = stream(150)
    one = run(["render", "-"], text, {})  # (tests/runner.py compares it with the full reader)
    assert one.code == 0 and one.out.count("\nkind: ") >= 150
    here = in_worker(monkeypatch, "_document_facts", fault, slow_here=0.002)
    with two_cores(), scans() as read:
        assert run(["render", "-"], text, {}) == one
    assert len(read) == 1
    assert (here[0] == 150) if fault else (0 < here[0] < 150), here


@pytest.mark.parametrize("where", [120, 5])
def test_render_invalid_or_a_list(where: int) -> None:
    for bad in ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  s: |\n    a\x01b\n",
                "apiVersion: v1\nkind: List\nitems: []\n"):
        text = stream(150, {where: bad + "---\n"})
        one = run(["render", "-"], text, {})
        with two_cores(), scans() as read:
            assert run(["render", "-"], text, {}) == one


def test_one_cpu_means_no_worker(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(parscan, "usable_cpus", lambda: 1)
    assert not parscan.wanted("\n" * (1 << 20))
    monkeypatch.setattr(parscan, "usable_cpus", lambda: 2)
    lines = "a: b\n" * parscan.THRESHOLD
    assert parscan.wanted(lines) and not parscan.wanted(lines[:-1]) and not parscan.wanted(lines.replace("\n", " "))
    # A process allowed one CPU: no pool even for a large input.
    code = ("import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
            "from krm_fn.text import parscan\n"
            "def refused(*args): raise AssertionError('a worker on one CPU')\n"
            "parscan.start = refused\n"
            "from krm_fn.cli import main\n"
            "code = main([], open(sys.argv[1], 'rb'))\n"
            "print(parscan.usable_cpus(), code, file=sys.stderr)\n")
    path = tmp_path / "rl.yaml"
    path.write_text(kpt_list(800))
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.stderr.split()[-2:] == ["1", "0"], out.stderr[-2000:]


@pytest.mark.parametrize("files, cpus", [
    ({"cpu.max": "max 100000\n"}, None),
    ({"cpu.max": "150000 100000\n"}, 1.5),
    ({"cpu.max": "400000 100000\n"}, 4.0),
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0.5),
    ({"cpu,cpuacct/cpu.cfs_quota_us": "200000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 2.0),
    ({"cpu.max": "garbage\n"}, None),
    ({}, None),
])
def test_a_cgroup_cpu_limit_counts(tmp_path: Path, files: dict[str, str], cpus: float | None) -> None:
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    assert parscan._quota(str(tmp_path)) == cpus


# --- a real process: the console script's exit, its closed stdout, a worker that fails, a signal ---------

# `python -m krm_fn` with two CPUs, the parallel scan at its default threshold (or off), and a fault made
# in the worker ("facts-raise": its `_item_facts` raises; "validate-hang": its validation never ends …);
# each time the run lets its worker go (where they meet, and at the end), the worker's verdict on the text
# so far and how many items' facts this process found itself are logged.
_BOOT = """
import os, sys, time
from krm_fn.text import fastread, parscan
mode, log = sys.argv.pop(1), sys.argv.pop(1)
parscan.usable_cpus = lambda: 2
if mode == "off":
    parscan.THRESHOLD = 1 << 60
if mode.endswith("-hang") and "sigterm" not in log:
    parscan.MIN_WAIT, parscan.WAIT_FACTOR = 0.5, 0.0
me = os.getpid()
here = [0]
def patched(name, real):
    def call(*args):
        if os.getpid() == me:
            here[0] += name == "facts"
        elif mode.startswith(name):
            fault = mode.split("-")[1]
            if fault == "raise":
                raise RuntimeError("simulated")
            if fault == "kill":
                os.kill(os.getpid(), 9)
            if fault == "exit":
                os._exit(3)
            if fault == "hang":
                time.sleep(60)
        return real(*args)
    return call
fastread._item_facts = patched("facts", fastread._item_facts)
fastread._validate = patched("validate", fastread._validate)
verdict, close = parscan.Helper.verdict, parscan.Helper.close
said = []
def logged_verdict(self, *args):
    said.append(verdict(self, *args))
    return said[-1]
def logged_close(self):
    close(self)
    with open(log, "a") as f:
        f.write(f"{said} {here[0]}\\n")
parscan.Helper.verdict, parscan.Helper.close = logged_verdict, logged_close
from krm_fn.cli import run
run()
"""
OBJECTS = 1500  # more than a pipe's buffer of output, more lines than the threshold


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("parscan") / "rl.yaml"
    path.write_text(kpt_list(OBJECTS))
    assert path.read_text().count("\n") > parscan.THRESHOLD
    return path


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("KAITO_SPECDEC_")}


def process(big: Path, mode: str, shell: str = "") -> tuple[subprocess.CompletedProcess, str]:
    """The run, and what its log says of the worker."""
    log = big.parent / f"{mode}-{len(shell)}.log"
    log.unlink(missing_ok=True)
    script = f'"$0" -c "$1" "$2" "$3" < "$4" {shell}; exit "${{PIPESTATUS[0]}}"'
    proc = subprocess.run(["bash", "-c", script, sys.executable, _BOOT, mode, str(log), str(big)],
                          capture_output=True, timeout=120, env=_env())
    return proc, log.read_text().splitlines(keepends=True)[-1] if log.exists() else ""  # the run's last word


@pytest.mark.parametrize("mode, log", [
    ("on", None),  # the worker's verdict; how many items it scanned depends on the machine
    ("facts-raise", f"[True] {OBJECTS}\n"),
    ("facts-kill", f"[True] {OBJECTS}\n"),  # (its verdict came before its first chunk)
    ("facts-exit", f"[True] {OBJECTS}\n"),
    ("facts-hang", f"[True] {OBJECTS}\n"),  # its first chunk never ends: killed, not waited for
    ("validate-raise", None),
    ("validate-kill", None),
    ("validate-hang", None),
])
def test_a_real_process(big: Path, mode: str, log: str | None) -> None:
    (off, _), (got, said) = process(big, "off"), process(big, mode)
    assert off.returncode == 0 and off.stdout.count(b"\n- ") > OBJECTS
    assert (got.returncode, got.stdout, got.stderr) == (off.returncode, off.stdout, off.stderr)
    verdict, here = said.split(maxsplit=1)
    if log is not None:
        assert said == log
    elif mode == "on":
        assert verdict == "[True]"
    else:
        assert verdict == "[None]"  # validated here


def test_a_worker_that_never_ends_does_not_hold_the_exit(big: Path) -> None:
    start = time.monotonic()
    got, said = process(big, "facts-hang")
    assert got.returncode == 0 and said.startswith("[True]")
    assert time.monotonic() - start < 30  # (the worker would sleep 60 s)


@pytest.mark.parametrize("shell", [">&-", "| true", "> /dev/full"])
def test_stdout_that_fails(big: Path, shell: str) -> None:
    (off, _), (got, said) = process(big, "off", shell), process(big, "on", shell)
    assert off.returncode == 1 and b"Traceback" not in got.stderr
    assert said.startswith("" if shell == ">&-" else "[True]")  # a closed stdout is found before reading
    assert (got.returncode, got.stdout, got.stderr) == (off.returncode, off.stdout, off.stderr)


def test_a_small_run_does_not_import_it(tmp_path: Path) -> None:
    """A list read by the fast path but far below the threshold loads neither krm_fn.text.parscan nor a
    process pool."""
    path = tmp_path / "rl.yaml"
    path.write_text(kpt_list(100))
    code = ("import sys; from krm_fn.cli import main; main([], open(sys.argv[1], 'rb'));"
            "print('krm_fn.text.fastread' in sys.modules, 'krm_fn.text.parscan' in sys.modules,"
            " 'concurrent.futures' in sys.modules, 'multiprocessing' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines()[-1] == "True False False False", out
    assert parscan.THRESHOLD == 16_384  # krm_fn/text/fastread.py's _parscan assumes this default


def _children(pid: int) -> list[int]:
    """The pids of the processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie holds nothing: no descriptor, no CPU)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _waited(until, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not until():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds the worker and its descriptors in /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_ends_the_output_at_once_and_the_worker_with_it(big: Path, sig: int) -> None:
    """kpt, Argo CD or a cancelled CI job stop the function with SIGTERM (or SIGKILL) while the worker
    works (here: its validation hangs, so it surely runs when the signal comes). Whatever reads the
    function's stdout and stderr sees EOF at once, and no worker is left running: it holds neither, and
    dies with its parent."""
    with open(big, "rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-c", _BOOT, "validate-hang", str(big.parent / "sigterm.log")],
                                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    workers: list[int] = []
    try:
        assert _waited(lambda: _children(proc.pid), 30), "the worker never started"
        workers = _children(proc.pid)
        assert len(workers) == 1, workers
        worker = workers[0]
        assert _waited(lambda: os.readlink(f"/proc/{worker}/fd/2") == os.devnull, 5)  # (just after the fork: not yet)
        holds = [os.readlink(f"/proc/{worker}/fd/{fd}") for fd in (0, 1, 2)]
        time.sleep(0.2)  # the worker is in its validation now (60 s)
        proc.send_signal(sig)
        start = time.monotonic()
        try:
            out, err = proc.communicate(timeout=5)  # EOF on both pipes, and the exit
        except subprocess.TimeoutExpired:
            pytest.fail("no EOF on the function's stdout/stderr 5 s after the signal: the worker holds them")
        assert time.monotonic() - start < 0.5
        assert proc.returncode == -sig and out == b"" and b"Traceback" not in err
        assert _waited(lambda: not _alive(worker), 0.5), "the worker outlived its parent"
        assert holds == [os.devnull] * 3, f"the worker's stdin, stdout, stderr: {holds}"
    finally:
        proc.kill()
        proc.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
