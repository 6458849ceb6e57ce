"""Bring the vLLM tables up to the newest vLLM releases: find the releases newer than the tables, run
tools/vllm_verdicts.py and tools/vllm_argv.py on them, and write the tables and the package's data files.

The weekly workflow (.github/workflows/vllm-releases.yml) runs it and opens a pull request with what it
wrote; it works the same on a developer's machine:

  python tools/vllm_update.py --plan                  # the releases to add, one a line (none: nothing)
  python tools/vllm_update.py --apply --vllm-python /tmp/vllm/venv-new/bin/python

`--plan` asks pip (`pip index versions vllm`, the index pip is set up for) which releases exist;
`--releases FILE` reads that command's output from a file instead (tests/vllm_releases_recorded.txt is one,
recorded, for the tests: no network there). Which releases are added: every final release (no rc, dev or
post) newer than the newest in RELEASES, the last patch of each minor, the way RELEASES was chosen.

`--apply` does, for each release to add, what the headers of the two tools say, in their venv
(`--vllm-python`: a venv with a CPU torch and the light requirements tools/vllm_verdicts.py lists):
  1. vllm_verdicts.py --fetch R (the wheel's Python files under --root/src/R);
  2. vllm_verdicts.py --run R, installing a module the run names as missing ("No module named ...") and
     running again, up to 8 times;
  3. the table: every release's rows as tests/vllm_verdicts.json holds them, the new release's from its
     run, merged by vllm_verdicts.py --merge; then --data writes krm_fn/domain/data/vllm_schema.json;
  4. vllm_argv.py: --rows with this package (it runs the function), --run R for each new release, the
     older releases' rows as the table holds them (those the function still writes), --merge, --data;
  5. vllm_combos.py over every release's source (krm_fn/domain/data/vllm_combos.json).
RELEASES in tools/vllm_verdicts.py gets the new releases first, so both tools see them.
What the new facts mean for the function (a method renamed, a key refused) is for the pull request's
reviewer: tests/domain/test_vllm_schema.py then names each row the function judges otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
VERDICTS = ROOT / "tests" / "vllm_verdicts.json"
ARGV = ROOT / "tests" / "vllm_argv.json"
sys.path.insert(0, str(TOOLS))

Version = tuple[int, ...]
_FINAL = re.compile(r"[0-9]+(?:\.[0-9]+)*")


def version(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def published(pip_output: str) -> list[str]:
    """The releases in the output of `pip index versions vllm` ("Available versions: 0.34.0, 0.33.0, ..."),
    final releases only (no rc, dev, post or local part), oldest first."""
    for line in pip_output.splitlines():
        if line.strip().startswith("Available versions:"):
            names = [n.strip() for n in line.split(":", 1)[1].split(",")]
            return sorted({n for n in names if _FINAL.fullmatch(n)}, key=version)
    raise ValueError("no 'Available versions:' line in the output of pip index versions")


def to_add(available: list[str], releases: list[str]) -> list[str]:
    """The releases the tables lack: of those newer than the newest in `releases`, the last patch of each
    minor, oldest first."""
    newest = version(releases[-1])
    last: dict[Version, str] = {}
    for name in available:
        v = version(name)
        if v > newest and (v[:2] not in last or v > version(last[v[:2]])):
            last[v[:2]] = name
    return sorted(last.values(), key=version)


_RELEASES = re.compile(r"^RELEASES = \[(?P<body>[^\]]*)\]", re.M)


def with_releases(source: str, added: list[str]) -> str:
    """tools/vllm_verdicts.py's text with `added` appended to its RELEASES list (wrapped as it is)."""
    m = _RELEASES.search(source)
    if m is None:
        raise ValueError("no RELEASES = [...] in tools/vllm_verdicts.py")
    names = re.findall(r'"([^"]+)"', m.group("body")) + [r for r in added]
    lines, line = [], "RELEASES = ["
    for i, name in enumerate(names):
        item = f'"{name}"' + ("," if i < len(names) - 1 else "]")
        if len(line) + len(item) + 1 > 116:
            lines.append(line.rstrip())
            line = " " * 12
        line += item + " "
    lines.append(line.rstrip())
    return source[:m.start()] + "\n".join(lines) + source[m.end():]


def split(table: dict[str, Any], folder: Path, prefix: str,
          keep: set[tuple[str, str, str, str | None]] | None = None) -> list[Path]:
    """Each release's rows (and its facts) of a table as the files `--merge` reads: folder/<prefix>-R.json.
    `keep`: the row keys (source, item, container, release) to keep (vllm_argv's rows the function still
    writes); None keeps every row."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for facts in table["facts"]:
        release = facts["release"]
        rows = [r for r in table["rows"] if r["release"] == release
                and (keep is None or (r["source"], r["item"], r["container"], r["release"]) in keep)]
        path = folder / f"{prefix}-{release}.json"
        path.write_text(json.dumps(rows) + "\n")
        Path(f"{path}.facts").write_text(json.dumps(facts) + "\n")
        out.append(path)
    return out


def _missing_module(log: str) -> str | None:
    found = re.findall(r"No module named '([^']*)'", log)
    return found[-1].split(".")[0].replace("_", "-") if found else None


def _run_with_installs(cmd: list[str], log: Path, python: str, env: dict[str, str], target: str | None = None) -> None:
    for _ in range(8):
        with log.open("w") as f:
            code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
        if code == 0:
            return
        module = _missing_module(log.read_text(errors="replace"))
        if module is None:
            break
        extra = ["--no-deps", "--target", target] if target else []
        subprocess.run([python, "-m", "pip", "install", "-q", *extra, module], check=True)
    raise SystemExit(f"{' '.join(cmd)} failed: see {log}")


def apply(added: list[str], vllm_python: str, root: Path) -> None:
    source = (TOOLS / "vllm_verdicts.py").read_text()
    (TOOLS / "vllm_verdicts.py").write_text(with_releases(source, added))
    env = dict(os.environ)
    for release in added:
        subprocess.run([vllm_python, str(TOOLS / "vllm_verdicts.py"), "--fetch", release, "--root", str(root)],
                       check=True)
        _run_with_installs([vllm_python, str(TOOLS / "vllm_verdicts.py"), "--run", release, "--src",
                            str(root / "src" / release), "--models", str(root / "models"), "--out",
                            str(root / f"rows-{release}.json")], root / f"log-{release}.txt", vllm_python, env)
    merge = root / "merge"
    files = split(json.loads(VERDICTS.read_text()), merge, "rows") + [root / f"rows-{r}.json" for r in added]
    merged = subprocess.run([sys.executable, str(TOOLS / "vllm_verdicts.py"), "--merge", *map(str, files)],
                            check=True, capture_output=True, text=True).stdout
    VERDICTS.write_text(merged)
    subprocess.run([sys.executable, str(TOOLS / "vllm_verdicts.py"), "--data", str(VERDICTS)], check=True)
    # vllm_argv: the rows this package writes now, parsed by each new release; the older ones as they were.
    rows_file = root / "argv-rows.json"
    subprocess.run([sys.executable, str(TOOLS / "vllm_argv.py"), "--rows", "--out", str(rows_file)], check=True)
    site = root / "argv-site"
    subprocess.run([vllm_python, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                    "prometheus-fastapi-instrumentator", "model-hosting-container-standards", "orjson", "jmespath"],
                   check=True)
    argv_env = dict(env, PYTHONPATH=str(site))
    for release in added:
        _run_with_installs([vllm_python, str(TOOLS / "vllm_argv.py"), "--run", release, "--src",
                            str(root / "src" / release), "--rows-file", str(rows_file), "--out",
                            str(root / f"argv-{release}.json")], root / f"argvlog-{release}.txt", vllm_python,
                           argv_env, str(site))
    wanted = {(r["source"], r["item"], r["container"], r["release"]) for r in json.loads(rows_file.read_text())}
    files = split(json.loads(ARGV.read_text()), root / "amerge", "argv", keep=wanted) + \
        [root / f"argv-{r}.json" for r in added]
    merged = subprocess.run([sys.executable, str(TOOLS / "vllm_argv.py"), "--rows-file", str(rows_file), "--merge",
                             *map(str, files)], check=True, capture_output=True, text=True).stdout
    ARGV.write_text(merged)
    subprocess.run([sys.executable, str(TOOLS / "vllm_argv.py"), "--data", str(ARGV)], check=True)
    combos(added, vllm_python, root)


def combos(added: list[str], vllm_python: str, root: Path) -> None:
    """Step 5: tools/vllm_combos.py over every release's source (the new ones were fetched above; an older one
    missing under --root/src/ is fetched first), writing krm_fn/domain/data/vllm_combos.json."""
    from vllm_verdicts import RELEASES
    for release in dict.fromkeys([*RELEASES, *added]):
        if not (root / "src" / release / "vllm").exists():
            subprocess.run([vllm_python, str(TOOLS / "vllm_verdicts.py"), "--fetch", release, "--root", str(root)],
                           check=True)
    subprocess.run([sys.executable, str(TOOLS / "vllm_combos.py"), "--root", str(root)], check=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", help="the output of `pip index versions vllm`, recorded (default: ask pip)")
    ap.add_argument("--plan", action="store_true", help="print the releases to add, one a line")
    ap.add_argument("--apply", action="store_true", help="run the tools on them and write the tables")
    ap.add_argument("--vllm-python", default="/tmp/vllm/venv-new/bin/python")
    ap.add_argument("--root", default="/tmp/vllm")
    a = ap.parse_args(argv)
    if a.releases:
        text = Path(a.releases).read_text()
    else:
        text = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "vllm"], check=True,
                              capture_output=True, text=True).stdout
    from vllm_verdicts import RELEASES
    added = to_add(published(text), RELEASES)
    if a.apply and added:
        apply(added, a.vllm_python, Path(a.root))
    for release in added:
        print(release)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
