"""Where a one-Workspace run's start-up goes, in instructions: repeatable where timings are not.

    python bench/startup.py [--function CMD]

Counts the instructions (valgrind's callgrind, `Ir`) of whole processes on the function's own interpreter,
with PYTHONHASHSEED=0 so that two runs count the same: the interpreter alone, `import yaml, jsonpatch` (the
budget's baseline), that plus each standard module the function imports on every run (typing for its
NamedTuple records, hashlib for the derived ConfigMaps' content hashes, argparse with gettext), the function's
records themselves (as many typing.NamedTuple classes as a run defines, five fields each), as many empty
modules as a run imports (what a module costs before its body runs: finding, reading and loading it), and the
function on bench/generate.py's one-Workspace ResourceList. Prints a markdown table: each row's count and its
ratio to the baseline. On a quiet machine CPU time follows these counts within about 10 %; timings are bench/run.py's.
Standard library only; without valgrind it says so and exits 2.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
from run import function_argv, interpreter  # noqa: E402

RECORDS = """
import sys
from krm_fn import cli
ours = [m for m in list(sys.modules.values()) if m.__name__.startswith("krm_fn")]
classes = [v for m in ours for v in vars(m).values() if isinstance(v, type) and v.__module__ == m.__name__]
print(sum(1 for v in classes if issubclass(v, tuple) and hasattr(v, "_fields")), len(ours),
      sum(1 for v in classes if "__dataclass_fields__" in vars(v)))
"""


def count(argv: list[str], stdin: bytes = b"") -> int:
    """Instructions of one run of `argv`, as callgrind counts them (its `refs` line)."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *argv],
                              input=stdin, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    for line in proc.stderr.decode(errors="replace").splitlines():
        if "refs:" in line:
            return int(line.rsplit(None, 1)[-1].replace(",", ""))
    raise SystemExit(f"error: valgrind counted nothing for {' '.join(argv)}:\n{proc.stderr.decode()[-2000:]}")


def records_source(n: int) -> str:
    fields = "\n".join(f"    f{i}: str = ''" for i in range(5))
    return "from typing import NamedTuple\n" + "".join(f"class R{k}(NamedTuple):\n{fields}\n" for k in range(n))


def dataclasses_source(n: int) -> str:
    fields = "\n".join(f"    f{i}: str = ''" for i in range(5))
    return ("from dataclasses import dataclass\n"
            + "".join(f"@dataclass(frozen=True, slots=True)\nclass D{k}:\n{fields}\n" for k in range(n)))


def empty_package(python: str, root: Path, n: int) -> str:
    """A package `floor` of `n` modules of one line under `root`, their bytecode written by `python` (as a
    wheel's is when it is installed), and the statement that imports them all."""
    package = root / "floor"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(n):
        (package / f"m{i}.py").write_text(f"x = {i}\n")
    subprocess.run([python, "-m", "compileall", "-q", str(package)], check=True)
    return "import floor, " + ", ".join(f"floor.m{i}" for i in range(n - 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--function", help="the function's command (default: kaito-specdec beside this Python)")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("error: valgrind is not installed: the counts need it (Debian/Ubuntu: apt-get install valgrind)",
              file=sys.stderr)
        return 2
    fn = function_argv(args.function)
    python = interpreter(fn)
    records = subprocess.run([python, "-c", RECORDS], capture_output=True, text=True)
    n, modules, frozen = (int(v) for v in records.stdout.split()) if records.returncode == 0 else (0, 0, 0)
    one = generate.resource_list(generate.one_workspace()).encode()
    base = "import yaml, jsonpatch"
    rows = [
        ("the interpreter alone (`-c pass`)", [python, "-c", "pass"], b""),
        (f"`{base}` (the baseline)", [python, "-c", base], b""),
        ("+ typing", [python, "-c", base + ", typing"], b""),
        ("+ hashlib", [python, "-c", base + ", hashlib"], b""),
        ("+ argparse", [python, "-c", base + ", argparse"], b""),
        (f"+ typing, hashlib, argparse and {n} NamedTuple records",
         [python, "-c", base + ", hashlib, argparse\n" + records_source(n)], b""),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        floor = empty_package(python, Path(tmp), modules)
        rows.append((f"+ typing, hashlib, argparse, {n} records and {modules} empty modules",
                     [python, "-c", f"import sys; sys.path.insert(0, {tmp!r})\n{floor}\n{base}, hashlib, argparse\n"
                      + records_source(n)], b""))
        if frozen:
            rows.append((f"+ those and {frozen} frozen dataclasses (slots), the dataclasses module with them",
                         [python, "-c", f"import sys; sys.path.insert(0, {tmp!r})\n{floor}\n{base}, hashlib, argparse\n"
                          + records_source(n) + dataclasses_source(frozen)], b""))
        rows.append(("the function, one Workspace (KRM mode)", fn, one))
        counted = [(label, count(argv, stdin)) for label, argv, stdin in rows]
    baseline = counted[1][1]
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                             text=True).stdout.strip()
    print(f"Python {version}; a run imports {modules} modules of its own and defines {n} NamedTuple classes "
          f"and {frozen} frozen dataclasses\n")
    print("| what runs | instructions | ratio to the baseline |")
    print("|---|---:|---:|")
    for label, ir in counted:
        print(f"| {label} | {ir / 1e6:.1f} M | {ir / baseline:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
