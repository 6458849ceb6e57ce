"""The benchmark: the function side by side with what surrounds it, on synthetic platform repositories.

    python bench/run.py [--sizes 100,1000,10000,50000] [--repeat 3] [--quick] [--orphans N]
                        [--function CMD] [--baseline CMD] [--keep DIR]

For each size it writes a kpt package of that many ordinary objects plus ten KAITO objects
(bench/generate.py), the ResourceList `kpt fn source` makes of it, and the same objects as one plain
stream, then times, alternating the commands round by round and taking medians:

- the function in KRM mode (ResourceList on stdin), its peak memory and time per object, also without
  its start-up (less a one-Workspace run timed in the same rounds: at 1 000 objects start-up is a third);
- `kpt fn source DIR` (Go reads and writes the same objects) and `cat` (the floor);
- `kpt fn eval DIR --exec` with the function and with `cat`;
- `kaito-specdec render DIR` and `render -` (the plain stream on stdin);

and a one-Workspace list against `python3 -c 'import yaml, jsonpatch'`. With `--baseline CMD` (another
build of the function, e.g. an older release's `kaito-specdec` in its own virtual environment) it also times
that command in the same rounds, on the same inputs, and prints a before/after table. It prints markdown tables with
the ratios, headed by the machine it ran on. A tool that is missing makes its cells "n/a" with the reason.
Every run's exit status is checked and the function's output is checked to hold every input object.
Standard library only; not a test (tests/test_bench.py runs a tiny smoke round, no timing assertions).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

DEFAULT_SIZES = "100,1000,10000,50000"
QUICK_SIZES = "100,1000"


@dataclass
class Timing:
    """One command's runs: wall seconds, CPU seconds (user + system, its waited-for children included)
    and peak resident memory (KiB) of each."""
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    peak_kib: list[int] = field(default_factory=list)
    problem: str = ""   # why there are no figures ("kpt not installed", "exited 1: …")

    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds and not self.problem else None

    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu) if self.cpu and not self.problem else None

    def peak(self) -> int | None:
        return max(self.peak_kib) if self.peak_kib and not self.problem else None


@dataclass
class Command:
    name: str
    argv: list[str] | None         # None: not available (see `missing`)
    stdin: Path | None = None
    cwd: Path | None = None
    missing: str = ""


# Started by a small interpreter that does nothing else: Linux folds the spawning process's resident
# size into the child's peak (ru_maxrss) at exec, so a command spawned by this script, which holds the
# generated inputs, would be charged for them. The spawner times its child and reads the child's own
# rusage (os.wait4), and writes the figures to the file named first.
SPAWNER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
with open(sys.argv[1], "w") as f:
    json.dump([elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status)], f)
"""


def run_once(cmd: Command, stdout: int | Path = subprocess.DEVNULL) -> tuple[float, float, int, int, str]:
    """Run `cmd` once: (wall seconds, CPU seconds, peak RSS in KiB of the child and what it waited for,
    exit status, the last line of stderr)."""
    if cmd.argv is None:
        raise ValueError(f"{cmd.name} cannot run: {cmd.missing}")
    stdin = open(cmd.stdin, "rb") if cmd.stdin else subprocess.DEVNULL
    out = open(stdout, "wb") if isinstance(stdout, Path) else stdout
    fd, figures = tempfile.mkstemp(prefix="kaito-specdec-bench-", suffix=".json")
    os.close(fd)
    try:
        proc = subprocess.run([sys.executable, "-S", "-c", SPAWNER, figures, *cmd.argv], stdin=stdin, stdout=out,
                              stderr=subprocess.PIPE, cwd=cmd.cwd)
        elapsed, cpu, peak, code = json.loads(Path(figures).read_text() or "[0, 0, 0, -1]")
    finally:
        os.unlink(figures)
        if cmd.stdin:
            stdin.close()  # type: ignore[union-attr]
        if isinstance(stdout, Path):
            out.close()  # type: ignore[union-attr]
    lines = [ln for ln in proc.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return elapsed, cpu, peak, code, (lines[-1] if lines else f"the spawner exited {proc.returncode}")


def measure(commands: list[Command], repeat: int) -> dict[str, Timing]:
    """Every command `repeat` times, round by round, each round starting one command later, so that a
    busy moment on the machine falls on all of them alike."""
    timings = {c.name: Timing(problem=c.missing) for c in commands}
    live = [c for c in commands if not c.missing]
    for r in range(repeat):
        order = live[r % len(live):] + live[:r % len(live)] if live else []
        for cmd in order:
            t = timings[cmd.name]
            if t.problem:
                continue
            seconds, cpu, peak, code, last = run_once(cmd)
            if code != 0:
                t.problem = f"exited {code}: {last[:120]}"
                continue
            t.seconds.append(seconds)
            t.cpu.append(cpu)
            t.peak_kib.append(peak)
    return timings


# --- the commands --------------------------------------------------------------------------------------------

def function_argv(override: str | None) -> list[str]:
    """The function as users start it: the `kaito-specdec` script beside this Python (a virtual
    environment's bin/), else `python -m krm_fn`."""
    if override:
        return override.split()
    script = Path(sys.executable).parent / "kaito-specdec"
    return [str(script)] if script.exists() else [sys.executable, "-m", "krm_fn"]


def interpreter(fn: list[str]) -> str:
    """The Python the function runs on: its script's `#!` line, or the `python -m krm_fn` it is given. The
    start-up figures compare `import yaml, jsonpatch` on that same interpreter: another one (this bench's,
    say, with an editable install's import hook in its site-packages) starts at another speed."""
    first = Path(fn[0])
    try:
        line = first.read_bytes().split(b"\n", 1)[0]
    except OSError:
        return sys.executable
    if line.startswith(b"#!") and b"python" in line:
        return line[2:].decode().strip().split()[0]
    return fn[0] if "python" in first.name else sys.executable


def compile_package() -> str:
    """Compile the function's package ahead, as a wheel install does (an editable install under
    PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module from source on every start and time
    that instead): what the header says about bytecode."""
    where = subprocess.run([sys.executable, "-c", "import krm_fn, os; print(os.path.dirname(krm_fn.__file__))"],
                           capture_output=True, text=True)
    if where.returncode != 0:
        return "krm_fn not importable here; bytecode as found"
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", where.stdout.strip()], capture_output=True)
    return "package compiled ahead (timestamp .pyc)" if done.returncode == 0 else "compileall failed; bytecode as found"


def kpt_missing() -> str:
    return "" if shutil.which("kpt") else "kpt not installed"


@dataclass
class Workload:
    objects: int
    root: Path          # the package folder
    rl: Path            # its ResourceList, as `kpt fn source` writes it
    stream: Path        # the same objects as a plain `---` stream
    input_bytes: int


def prepare(where: Path, layout: list[tuple[str, list[str]]]) -> Workload:
    root = where / "pkg"
    generate.write_package(root, layout)
    rl = where / "resourcelist.yaml"
    rl.write_text(generate.resource_list(layout))
    stream = where / "stream.yaml"
    stream.write_text(generate.plain_stream(layout))
    return Workload(generate.count(layout), root, rl, stream, rl.stat().st_size)


def size_commands(w: Workload, fn: list[str], no_eval: bool = False, one: Workload | None = None) -> list[Command]:
    kpt = kpt_missing()
    exec_fn = fn[0] if len(fn) == 1 else ""
    eval_missing = kpt or ("" if exec_fn else "--function with arguments cannot be given to kpt --exec")
    eval_missing = eval_missing or ("skipped: --no-eval" if no_eval else "")
    return [
        Command("function", fn, stdin=w.rl),
        *([Command("function, one Workspace", fn, stdin=one.rl)] if one is not None else []),
        Command("kpt fn source", ["kpt", "fn", "source", str(w.root)], missing=kpt),
        Command("cat", ["cat"], stdin=w.rl),
        Command("kpt fn eval (function)", ["kpt", "fn", "eval", str(w.root), "--exec", exec_fn, "-o", "stdout"],
                missing=eval_missing),
        Command("kpt fn eval (cat)", ["kpt", "fn", "eval", str(w.root), "--exec", "cat", "-o", "stdout"],
                missing=kpt or ("skipped: --no-eval" if no_eval else "")),
        Command("render DIR", fn + ["render", str(w.root)]),
        Command("render -", fn + ["render", "-"], stdin=w.stream),
    ]


def baseline_commands(w: Workload, fn: list[str], baseline: list[str]) -> list[Command]:
    """The function and the baseline on the same ResourceList, for the before/after table."""
    return [Command("function", fn, stdin=w.rl), Command("baseline", baseline, stdin=w.rl)]


BASELINE_HEADER = "| objects | the function | baseline | ratio | peak memory | baseline's |"


def baseline_row(label: str, t: dict[str, Timing]) -> str:
    cells = [label, secs(t["function"]), secs(t["baseline"]), ratio(t["function"], t["baseline"]),
             mib(t["function"]), mib(t["baseline"])]
    return "| " + " | ".join(cells) + " |"


def startup_commands(w: Workload, fn: list[str], baseline: list[str] | None = None) -> list[Command]:
    return [
        Command("python3 -c pass", [interpreter(fn), "-c", "pass"]),
        Command("python3 -c 'import yaml, jsonpatch'", [interpreter(fn), "-c", "import yaml, jsonpatch"]),
        Command("function, one Workspace", fn, stdin=w.rl),
        Command("render -, one Workspace", fn + ["render", "-"], stdin=w.stream),
        *([Command("baseline, one Workspace", baseline, stdin=w.rl)] if baseline else []),
    ]


# --- checks: figures of a wrong run are no figures --------------------------------------------------------------

def entries(text: str) -> int:
    """Items of a ResourceList as kpt and the function write it: `- ` entries at column 0."""
    return sum(1 for line in text.splitlines() if line.startswith("- "))


def check_output(w: Workload, fn: list[str], keep: Path) -> str:
    """Run the function once more, keeping its output: "" when it holds every input item (plus the
    ConfigMaps it derives), else what is wrong."""
    out = keep / "function.out.yaml"
    _, _, _, code, last = run_once(Command("function", fn, stdin=w.rl), stdout=out)
    if code != 0:
        return f"the function exited {code}: {last}"
    text = out.read_text(encoding="utf-8")
    if not text.startswith("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"):
        return "the function's output is not a ResourceList"
    before, after = entries(w.rl.read_text(encoding="utf-8")), entries(text)
    if after < before:
        return f"the function's output has {after} items, its input {before}"
    return ""


# --- the report ----------------------------------------------------------------------------------------------

def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    kpt = "not installed"
    if shutil.which("kpt"):
        kpt = subprocess.run(["kpt", "version"], capture_output=True, text=True).stdout.strip() or "?"
    yaml_version = subprocess.run([sys.executable, "-c", "import yaml; print(yaml.__version__, "
                                   "'libyaml' if yaml.__with_libyaml__ else 'pure Python')"],
                                  capture_output=True, text=True).stdout.strip() or "not importable"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPUs "
            f"({cpu or platform.machine()}); Python {platform.python_version()}; PyYAML {yaml_version}; "
            f"kpt {kpt}; load average at start {load}")


def _seconds(m: float) -> str:
    return f"{m * 1000:.0f} ms" if m < 1 else f"{m:.2f} s"


def secs(t: Timing) -> str:
    """Wall time, then CPU time in brackets: on a shared machine the wall time includes waiting for a
    core, the CPU time does not."""
    m, c = t.median(), t.cpu_median()
    if m is None or c is None:
        return f"n/a ({t.problem})" if t.problem else "n/a"
    return f"{_seconds(m)} ({_seconds(c)})"


def ratio(a: Timing, b: Timing) -> str:
    ma, mb, ca, cb = a.median(), b.median(), a.cpu_median(), b.cpu_median()
    if ma is None or not mb:
        return "n/a"
    return f"{ma / mb:.2f}× ({ca / cb:.2f}×)" if ca is not None and cb else f"{ma / mb:.2f}×"


def mib(t: Timing) -> str:
    p = t.peak()
    return f"{p / 1024:.0f} MiB" if p is not None else "n/a"


SIZE_HEADER = ("| objects | input | the function | ms/object | ms/object above start-up | peak memory | "
               "`kpt fn source` | ratio | `cat` | "
               "`kpt fn eval --exec` function | with `cat` | ratio | `render DIR` | `render -` | "
               "`render -` / KRM |")
STARTUP_HEADER = "| one Workspace | median | ratio to `import yaml, jsonpatch` | peak memory |"


def size_row(w: Workload, t: dict[str, Timing]) -> str:
    fn = t["function"]
    median = fn.median()
    per = f"{median * 1000 / w.objects:.3f}" if median is not None else "n/a"
    cells = [f"{w.objects:,}".replace(",", " "), f"{w.input_bytes / 2**20:.1f} MiB", secs(fn), per,
             above_startup(w, fn, t.get("function, one Workspace")), mib(fn),
             secs(t["kpt fn source"]), ratio(fn, t["kpt fn source"]), secs(t["cat"]),
             secs(t["kpt fn eval (function)"]), secs(t["kpt fn eval (cat)"]),
             ratio(t["kpt fn eval (function)"], t["kpt fn eval (cat)"]),
             secs(t["render DIR"]), secs(t["render -"]), ratio(t["render -"], fn)]
    return "| " + " | ".join(cells) + " |"


def above_startup(w: Workload, fn: Timing, one: Timing | None) -> str:
    """Time per object once start-up is taken off: (the run - a one-Workspace run of the same rounds) /
    objects, wall (CPU). What "time per object flat from 1 000 to 50 000" is about; the plain ms/object is
    dominated by start-up at 1 000."""
    if one is None or fn.median() is None or one.median() is None:
        return "n/a"
    wall = (fn.median() - one.median()) * 1000 / w.objects  # type: ignore[operator]
    cpu = (fn.cpu_median() - one.cpu_median()) * 1000 / w.objects  # type: ignore[operator]
    return f"{wall:.3f} ({cpu:.3f})"


def startup_rows(t: dict[str, Timing]) -> list[str]:
    base = t["python3 -c 'import yaml, jsonpatch'"]
    return [f"| `{name}` | {secs(v)} | {ratio(v, base)} | {mib(v)} |" if name.startswith("python3")
            else f"| {name} | {secs(v)} | {ratio(v, base)} | {mib(v)} |" for name, v in t.items()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", help=f"ordinary objects per run, comma-separated (default {DEFAULT_SIZES}; "
                                   f"--quick: {QUICK_SIZES}); ten KAITO objects come on top")
    p.add_argument("--repeat", type=int, help="rounds per size, medians reported (default 3; --quick: 1)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes, one round (start-up too): a check that it all runs")
    p.add_argument("--orphans", type=int, default=0,
                   help="plus this many derived ConfigMaps no workload references (the function retires them)")
    p.add_argument("--function", help="the function's command (default: kaito-specdec beside this Python)")
    p.add_argument("--baseline", metavar="CMD",
                   help="another build of the function to time in the same rounds: adds a before/after table")
    p.add_argument("--keep", metavar="DIR", help="write the packages and outputs here and keep them")
    p.add_argument("--no-eval", action="store_true",
                   help="leave out the two `kpt fn eval` columns (minutes each at 50 000 objects)")
    p.add_argument("--no-compile", action="store_true",
                   help="do not compile the package's bytecode ahead (time starts as they come)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in (args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)).split(",")]
    repeat = args.repeat or (1 if args.quick else 3)
    startup_repeat = 1 if args.quick else max(repeat * 5, 5)
    fn = function_argv(args.function)
    baseline = args.baseline.split() if args.baseline else None
    baseline_inputs: list[tuple[str, Workload]] = []
    bytecode = "bytecode as found" if args.no_compile or args.function else compile_package()

    print(f"Machine: {machine()}. Function: `{' '.join(fn)}`. Medians of {repeat} alternating rounds "
          f"(start-up: {startup_repeat}); wall time, CPU time (user + system) in brackets; {bytecode}.\n",
          flush=True)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kaito-specdec-bench-"))
    failed = False
    try:
        print(SIZE_HEADER)
        print("|" + "---:|" * (SIZE_HEADER.count("|") - 1), flush=True)
        one = prepare(work / "one-workspace", generate.one_workspace())
        for n in sizes:
            where = work / f"size-{n}"
            w = prepare(where, generate.files(n, orphans=args.orphans))
            problem = check_output(w, fn, where)
            if problem:
                print(f"error: {w.objects} objects: {problem}", file=sys.stderr)
                failed = True
            print(size_row(w, measure(size_commands(w, fn, args.no_eval, one), repeat)), flush=True)
            baseline_inputs.append((f"{w.objects:,}".replace(",", " "), w))
        w = one
        problem = check_output(w, fn, work / "one-workspace")
        if problem:
            print(f"error: one Workspace: {problem}", file=sys.stderr)
            failed = True
        print()
        print(STARTUP_HEADER)
        print("|---|---:|---:|---:|")
        for row in startup_rows(measure(startup_commands(w, fn, baseline), startup_repeat)):
            print(row)
        if baseline:
            print(f"\nAgainst the baseline `{' '.join(baseline)}` (same inputs, same rounds):\n")
            print(BASELINE_HEADER)
            print("|" + "---:|" * (BASELINE_HEADER.count("|") - 1), flush=True)
            for label, b in [("one Workspace", one), *baseline_inputs]:
                print(baseline_row(label, measure(baseline_commands(b, fn, baseline), repeat)), flush=True)
        print(f"\nLoad average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
