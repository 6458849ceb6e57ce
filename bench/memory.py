"""Peak memory and time of the function by YAML style: block, flow items, JSON on one line and pretty.

    python bench/memory.py [--sizes 2,12] [--function CMD] [--keep DIR]

For each size (MB of input) it writes the same small objects (Namespaces: the most items per byte, so the
per-item cost weighs most) as a `render -` stream of block documents, a List of flow items `- {…}`, a
ResourceList of flow items (KRM mode), a one-line JSON List and a pretty JSON List (`kubectl get -o json`),
runs each once and prints a markdown table: input size, peak RSS (the child's own, as bench/run.py
measures it), wall and CPU seconds, and the bound the README promises, 64 MiB + 20 x the input (issue 19
class 4). Standard library only; not a test (tests/test_memory.py checks the bound at about 1 MB, and at
2-3.5 MB with --deep).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import Command, function_argv, machine, run_once  # noqa: E402

MIB = 1 << 20
PER_MB = 16_000  # about 1 MB of flow items


def _objects(n: int) -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"n{i}"}} for i in range(n)]


def _flow(head: str, n: int) -> str:
    return head + "".join(f"- {{apiVersion: v1, kind: Namespace, metadata: {{name: n{i}}}}}\n" for i in range(n))


STYLES: dict[str, tuple[list[str], Callable[[int], str]]] = {
    # style: (mode argv, text of about n * 62 bytes)
    "block documents (render -)": (["render", "-"], lambda n: "".join(
        f"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n{i}\n" for i in range(n * 62 // 60))),
    "flow items List (render -)": (["render", "-"], lambda n: _flow("apiVersion: v1\nkind: List\nitems:\n", n)),
    "flow items ResourceList (KRM)": ([], lambda n: _flow(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n", n)),
    "one-line JSON List (render -)": (["render", "-"], lambda n: json.dumps(
        {"apiVersion": "v1", "items": _objects(n * 62 // 75), "kind": "List"}) + "\n"),
    "pretty JSON List (render -)": (["render", "-"], lambda n: json.dumps(
        {"apiVersion": "v1", "items": _objects(n * 62 // 150), "kind": "List", "metadata": {"resourceVersion": ""}},
        indent=4) + "\n"),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="2,12", help="MB of input per run, comma-separated (default 2,12)")
    p.add_argument("--function", help="the function's command (default: kaito-specdec beside this Python)")
    p.add_argument("--keep", metavar="DIR", help="write the inputs here and keep them")
    args = p.parse_args(argv)
    fn = function_argv(args.function)
    where = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kaito-specdec-memory-"))
    where.mkdir(parents=True, exist_ok=True)
    print(machine())
    print()
    print("| style | input | peak memory | bound (64 MiB + 20x) | wall | CPU | exit |")
    print("|---|---|---|---|---|---|---|")
    for size in [float(s) for s in args.sizes.split(",")]:
        for style, (mode, make) in STYLES.items():
            path = where / f"{style.split(' (')[0].replace(' ', '-')}-{size:g}MB.yaml"
            path.write_text(make(int(size * PER_MB)), encoding="utf-8")
            n = path.stat().st_size
            elapsed, cpu, peak, code, last = run_once(Command(style, fn + mode, stdin=path))
            bound = 64 * MIB + 20 * n
            print(f"| {style} | {n / MIB:.2f} MiB | {peak / 1024:.0f} MiB | {bound / MIB:.0f} MiB"
                  f"{'' if peak * 1024 <= bound else ' (over)'} | {elapsed:.2f} s | {cpu:.2f} s | {code} |")
            if not args.keep:
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
