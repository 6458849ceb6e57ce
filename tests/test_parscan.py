"""The parallel scan of large ResourceLists (krm_fn/text/parscan.py, fastread): a forked helper validates the
text and scans items from the end while the function scans from the start. It is an optimisation only:
with the helper working, and with every way it can fail (fork refused, an exit status, a kill, garbage,
a wrong or short answer, no answer in time, an exception), stdout, stderr and the exit status are those of
the one-process scan and of the full reader; no helper is left behind, no descriptor stays open, the
helper writes nothing; and no fork with one usable CPU. tests/test_fastread.py runs every case it has
through the parallel scan as well.
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

FAULTS = ["fork", "exit", "garbage", "wrong", "short", "kill", "hang", "raise"]


@pytest.fixture(autouse=True)
def _c_backend(c_backend):
    """The fast path needs libyaml: every test here runs on the C backend (tests/conftest.py)."""


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


_forked: list[int] = []


@pytest.fixture(autouse=True)
def _record_forks(monkeypatch):
    """Every helper this test forks, so that `children()` can tell whether one is left."""
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            _forked.append(pid)
        return pid

    _forked.clear()
    monkeypatch.setattr(os, "fork", fork)


def children() -> bool:
    """Whether a helper this test forked is left (running, or a zombie nobody reaped)."""
    left = False
    for pid in _forked:
        try:
            os.waitpid(pid, os.WNOHANG)  # (reaps a zombie, so that one failure does not spread)
        except ChildProcessError:
            continue  # reaped by the function, as it should be
        left = True
    return left


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def test_the_helpers_share_is_used() -> None:
    text = kpt_list(120)
    assert not children()
    one, full = outcomes(text)
    assert one == full and one.code == 0
    before = dict(parscan.STATS)
    fds = open_fds()
    with two_cores(split=0.3):
        assert run([], text, {}) == one
    assert parscan.STATS["helped"] == before["helped"] + 1 and parscan.STATS["failed"] == before["failed"]
    assert not children() and open_fds() == fds


def test_both_sides_meet_without_a_forced_split() -> None:
    """Without a forced share, both sides take what the other has not finished: some items may be read
    twice, none missed, whoever is faster."""
    text = kpt_list(400)
    one, _ = outcomes(text)
    for _ in range(3):
        with two_cores(split=None):
            assert run([], text, {}) == one
    assert not children()


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failing_helper_changes_nothing(fault: str, monkeypatch) -> None:
    monkeypatch.setattr(parscan, "MIN_WAIT", 0.3)
    monkeypatch.setattr(parscan, "WAIT_FACTOR", 0.0)
    text = kpt_list(60)
    one, full = outcomes(text)
    assert one == full
    before = dict(parscan.STATS)
    fds = open_fds()
    with two_cores(fault=fault), scans() as read:
        assert run([], text, {}) == one
    assert read == [True]  # the helper's share scanned here: still the scan
    if fault == "fork":
        assert parscan.STATS["forked"] == before["forked"]
    else:
        assert parscan.STATS["failed"] == before["failed"] + 1
    assert not children() and open_fds() == fds


@pytest.mark.parametrize("where", ["helper", "this process"])
def test_invalid_yaml_only_libyaml_sees(where: str) -> None:
    """A control character in a block scalar: the scanner never reads the block's text, libyaml's
    validation (the helper's) refuses it, and the full reader words the error."""
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bad\n  data:\n    s: |\n      a\x01b\n"
    text = kpt_list(80, {70 if where == "helper" else 5: bad})
    one, full = outcomes(text)
    assert one == full and one.code == 1
    with two_cores():
        assert run([], text, {}) == one


@pytest.mark.parametrize("where", ["helper", "this process"])
def test_an_entry_for_the_full_reader(where: str) -> None:
    text = kpt_list(80, {70 if where == "helper" else 5: "- - not a mapping\n"})
    one, full = outcomes(text)
    assert one == full and one.code == 1
    for fault in ("", "raise"):
        with two_cores(fault=fault):
            assert run([], text, {}) == one


def test_an_unforeseen_error_here_waits_for_the_verdict_on_the_text(monkeypatch) -> None:
    """One process validates the text before it scans: invalid YAML goes to the full reader even where
    the scan would have failed in a way nobody foresaw. With the helper validating, the same."""
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bad\n  data:\n    s: |\n      a\x01b\n"
    text = kpt_list(40, {35: bad})
    me = os.getpid()
    real = fastread._make

    def broken(*args, **kwargs):
        if os.getpid() == me:
            raise TypeError("unforeseen")
        return real(*args, **kwargs)

    one, full = outcomes(text)
    monkeypatch.setattr(fastread, "_make", broken)
    assert run([], text, {}) == full
    with two_cores():
        assert run([], text, {}) == full
    assert not children()


def stream(n: int, extra: dict[int, str] | None = None) -> str:
    """The same objects as `kpt_list` as a plain stream of documents (`kustomize build`, `render -`)."""
    makers = [_deployment, _service, _deployment]
    return "---\n".join((extra or {}).get(i, "") + (_workspace if i % 50 == 7 else makers[i % 3])(i) for i in range(n))


@pytest.mark.parametrize("fault", ["", "raise", "garbage", "kill"])
def test_render_on_two_cores(fault: str) -> None:
    text = stream(150)
    one = run(["render", "-"], text, {})  # (tests/runner.py compares it with the full reader)
    assert one.code == 0 and one.out.count("\nkind: ") >= 150
    before = dict(parscan.STATS)
    with two_cores(fault=fault, split=0.3):
        assert run(["render", "-"], text, {}) == one
    assert parscan.STATS["helped" if not fault else "failed"] == before["helped" if not fault else "failed"] + 1
    assert not children()


@pytest.mark.parametrize("where", [120, 5])
def test_render_invalid_or_a_list(where: int) -> None:
    for bad in ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  s: |\n    a\x01b\n",
                "apiVersion: v1\nkind: List\nitems: []\n"):
        text = stream(150, {where: bad + "---\n"})
        one = run(["render", "-"], text, {})
        with two_cores():
            assert run(["render", "-"], text, {}) == one


def test_one_cpu_means_no_fork() -> None:
    saved = parscan._cpus
    try:
        parscan._cpus = 1
        assert not parscan.wanted("\n" * (1 << 20))
        parscan._cpus = 2
        lines = "a: b\n" * parscan.THRESHOLD
        assert parscan.wanted(lines) and not parscan.wanted(lines[:-1]) and not parscan.wanted(lines.replace("\n", " "))
    finally:
        parscan._cpus = saved
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from krm_fn.text import parscan; print(parscan.usable_cpus(), parscan.wanted('\\n' * (1 << 20)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["1", "False"], out


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


# --- a real process: the console script's exit, its closed stdout, and a helper that crashes -------------

# `python -m krm_fn` with the parallel scan forced (any size, two CPUs, the helper's share the latter half)
# and a simulated fault, or with it off; what became of the helper's answer is logged to a file.
_BOOT = """
import sys
from krm_fn.text import parscan
mode, log = sys.argv.pop(1), sys.argv.pop(1)
parscan.ENABLED = mode != "off"
parscan.THRESHOLD, parscan.SPLIT, parscan._cpus = 0, 0.5, 2
parscan.FAULT = "" if mode in ("on", "off") else mode
answer = parscan.Helper.answer
def logged(self, *args):
    got = answer(self, *args)
    with open(log, "a") as f:
        f.write("failed\\n" if got is None else "helped\\n")
    return got
parscan.Helper.answer = logged
from krm_fn.cli import run
run()
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("parscan") / "rl.yaml"
    path.write_text(kpt_list(1500))  # more than a pipe's buffer of output
    return path


def process(big: Path, mode: str, shell: str = "") -> tuple[subprocess.CompletedProcess, str]:
    """The run, and what became of the helper's answer."""
    log = big.parent / f"{mode}-{len(shell)}.log"
    log.unlink(missing_ok=True)
    script = f'"$0" -c "$1" "$2" "$3" < "$4" {shell}; exit "${{PIPESTATUS[0]}}"'
    proc = subprocess.run(["bash", "-c", script, sys.executable, _BOOT, mode, str(log), str(big)],
                          capture_output=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if not k.startswith("KAITO_SPECDEC_")})
    return proc, log.read_text() if log.exists() else ""


@pytest.mark.parametrize("mode", ["on", "raise", "kill", "exit"])
def test_a_real_process(big: Path, mode: str) -> None:
    (off, _), (got, helper) = process(big, "off"), process(big, mode)
    assert off.returncode == 0 and off.stdout.count(b"\n- ") > 1500
    assert (got.returncode, got.stdout, got.stderr) == (off.returncode, off.stdout, off.stderr)
    assert helper == ("helped\n" if mode == "on" else "failed\n")


@pytest.mark.parametrize("shell", [">&-", "| true", "> /dev/full"])
def test_stdout_that_fails(big: Path, shell: str) -> None:
    (off, _), (got, helper) = process(big, "off", shell), process(big, "on", shell)
    assert off.returncode == 1 and b"Traceback" not in got.stderr
    assert helper == ("" if shell == ">&-" else "helped\n")  # a closed stdout is found before reading
    assert (got.returncode, got.stdout, got.stderr) == (off.returncode, off.stdout, off.stderr)


def test_a_small_run_does_not_import_it(tmp_path: Path) -> None:
    """A list read by the fast path but far below the threshold does not load krm_fn.text.parscan."""
    path = tmp_path / "rl.yaml"
    path.write_text(kpt_list(100))
    code = ("import sys; from krm_fn.cli import main; main([], open(sys.argv[1], 'rb'));"
            "print('krm_fn.text.fastread' in sys.modules, 'krm_fn.text.parscan' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines()[-1] == "True False", out
    assert parscan.THRESHOLD == 16_384  # krm_fn/text/fastread.py's _parscan assumes this default


def _helper_of(pid: int) -> int | None:
    """The pid of a process whose parent is `pid` (Linux /proc), or None."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                return int(entry)
    return None


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


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds the helper and its descriptors in /proc")
def test_sigterm_ends_the_output_at_once_and_the_helper_with_it(big: Path) -> None:
    """kpt, Argo CD or a cancelled CI job stop the function with SIGTERM while the helper works (here: it
    hangs, so it surely runs when the signal comes). Whatever reads the function's stdout and stderr sees
    EOF at once, and no helper is left running: it holds neither, and dies with its parent (issue 19)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAITO_SPECDEC_")}
    with open(big, "rb") as stdin:
        proc = subprocess.Popen([sys.executable, "-c", _BOOT, "hang", str(big.parent / "sigterm.log")],
                                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    helper = None
    try:
        assert _waited(lambda: _helper_of(proc.pid) is not None, 30), "the helper never started"
        helper = _helper_of(proc.pid)
        _waited(lambda: os.readlink(f"/proc/{helper}/fd/1") == os.devnull, 2)  # (just after the fork: not yet)
        holds = [os.readlink(f"/proc/{helper}/fd/{fd}") for fd in (0, 1, 2)]
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        try:
            out, err = proc.communicate(timeout=5)  # EOF on both pipes, and the exit
        except subprocess.TimeoutExpired:
            pytest.fail("no EOF on the function's stdout/stderr 5 s after SIGTERM: the helper holds them")
        assert time.monotonic() - start < 0.5
        assert proc.returncode == -signal.SIGTERM and out == b"" and b"Traceback" not in err
        assert _waited(lambda: not _alive(helper), 0.5), "the helper outlived its parent"
        assert holds == [os.devnull] * 3, f"the helper's stdin, stdout, stderr: {holds}"
    finally:
        proc.kill()
        proc.wait()
        if helper is not None and _alive(helper):
            os.kill(helper, signal.SIGKILL)
