"""Peak memory and time of the function by YAML style: block, flow items, JSON on one line and pretty.

    python bench/memory.py [--sizes 2,12] [--function CMD] [--keep DIR]

For each size (MB of input) it writes the same small objects (Namespaces: the most items per byte, so the
per-item cost weighs most) as a `render -` stream of block documents, a List of flow items `- {…}`, a
ResourceList of flow items (KRM mode), a one-line JSON List and a pretty JSON List (`kubectl get -o json`),
runs each once and prints a markdown table: input size, peak RSS (the child's own, as bench/run.py
measures it), wall and CPU seconds, and the bound the README promises, 64 MiB + 20 x the input (issue 19
class 4); then, by items (`--items`, default 100 000), a list whose first and last item an alias ties, and one
whose every item is the same object (issue 40). Standard library only; not a test (tests/test_memory.py checks
the bound at about 1 MB, and at 2-3.5 MB with --deep, and the anchors and duplicates at 20 000 items).
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


def _tied_or_twice(n: int, tied: bool) -> str:
    """n block items: the first and the last tied by an alias (the rest plain), or all one object (SD008 on
    each but the first: the smallest item, so the most results a byte of input)."""
    if not tied:
        return "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n0\n" * n
    return "".join(f"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n{i}\n    labels:\n      team: "
                   f"{'&t t0' if i == 0 else '*t' if i == n - 1 else f't{i % 20}'}\n" for i in range(n))


RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
LIST_HEAD = "apiVersion: v1\nkind: List\nitems:\n"
# (issue 40) By items, not by size: one alias tying the first and the last item (the two composed together,
# not the list), and every item the same object (a result for each).
BY_ITEMS: dict[str, tuple[list[str], Callable[[int], str]]] = {
    "alias ties two items ResourceList (KRM)": ([], lambda n: RL_HEAD + _tied_or_twice(n, True)),
    "alias ties two items List (render -)": (["render", "-"], lambda n: LIST_HEAD + _tied_or_twice(n, True)),
    "duplicates ResourceList (KRM)": ([], lambda n: RL_HEAD + _tied_or_twice(n, False)),
    "duplicates List (render -)": (["render", "-"], lambda n: LIST_HEAD + _tied_or_twice(n, False)),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="2,12", help="MB of input per run, comma-separated (default 2,12)")
    p.add_argument("--items", default="100000",
                   help="items per run of the anchors and duplicates rows, comma-separated (default 100000)")
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
    for size in [float(s) for s in args.sizes.split(",") if s]:
        for style, (mode, make) in STYLES.items():
            path = where / f"{style.split(' (')[0].replace(' ', '-')}-{size:g}MB.yaml"
            path.write_text(make(int(size * PER_MB)), encoding="utf-8")
            _row(style, fn + mode, path, args.keep)
    for count in [int(c) for c in args.items.split(",") if c]:
        for style, (mode, make) in BY_ITEMS.items():
            path = where / f"{style.split(' (')[0].replace(' ', '-')}-{count}.yaml"
            path.write_text(make(count), encoding="utf-8")
            _row(f"{style}, {count} items", fn + mode, path, args.keep)
    return 0


def _row(style: str, argv: list[str], path: Path, keep: str | None) -> None:
    n = path.stat().st_size
    elapsed, cpu, peak, code, last = run_once(Command(style, argv, stdin=path))
    bound = 64 * MIB + 20 * n
    print(f"| {style} | {n / MIB:.2f} MiB | {peak / 1024:.0f} MiB | {bound / MIB:.0f} MiB"
          f"{'' if peak * 1024 <= bound else ' (over)'} | {elapsed:.2f} s | {cpu:.2f} s | {code} |")
    if not keep:
        path.unlink()


if __name__ == "__main__":
    sys.exit(main())
