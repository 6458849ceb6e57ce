"""The command line: the only place that touches stdin, stdout, stderr, files and the exit status."""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from . import __version__, yamlio
from .config import MODES
from .pipeline import Outcome, run_krm, run_render
from .presets import describe
from .results import Severity

HELP = """\
KAITO speculative decoding at render time.

With no command, runs as a KRM function: a ResourceList on stdin, the ResourceList on stdout
(kpt fn eval/render, kustomize transformers). Settings come from the functionConfig, or from
KAITO_SPECDEC_MODE / KAITO_SPECDEC_FAIL_ON / KAITO_SPECDEC_TUNED_PRESETS / KAITO_SPECDEC_NGRAM_FALLBACK
(also with Argo CD's ARGOCD_ENV_ prefix); the functionConfig wins.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kaito-specdec", description=HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"kaito-specdec {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("render", help="render files, folders or stdin (-) to a plain --- stream",
                       description="Read *.yaml/*.yml files (folders recursively, sorted) or stdin (-), "
                                   "write a plain --- stream with orchestrator annotations stripped. "
                                   "Results go to stderr; exit 1 on errors (and nothing on stdout).")
    r.add_argument("paths", nargs="+", metavar="PATH", help="file, folder, or - for stdin")
    r.add_argument("--config", metavar="FILE", help="a functionConfig file (ConfigMap or "
                                                    "SpeculativeDecodingPolicy)")
    r.add_argument("--mode", choices=MODES, help="materialize (default) or validate")
    pr = sub.add_parser("presets", help="print the tuned presets, legacy aliases and the fallback")
    pr.add_argument("--json", action="store_true", help="as JSON")
    return p


def _report(outcome: Outcome, stderr: Any) -> None:
    for r in outcome.results:
        if r.severity is not Severity.INFO:
            print(r.line(), file=stderr)


def _sources(paths: Sequence[str], stdin: Any) -> list[tuple[str, bytes]]:
    """(name, bytes) of every input: files as named, folders' *.yaml/*.yml (recursive, sorted, hidden
    files and folders such as .git or kpt's .expected left out), each file once."""
    out: list[tuple[str, bytes]] = []
    seen: set[Path] = set()
    for raw in paths:
        if raw == "-":
            out.append(("<stdin>", stdin.read()))
            continue
        path = Path(raw)
        if path.is_dir():
            files = sorted(f for f in path.rglob("*") if f.suffix in (".yaml", ".yml") and f.is_file()
                           and not any(part.startswith(".") for part in f.relative_to(path).parts))
        else:
            files = [path]
        for f in files:
            if f.resolve() not in seen:
                seen.add(f.resolve())
                out.append((str(f), f.read_bytes()))
    return out


def main(argv: Sequence[str] | None = None, stdin: Any = None, stdout: Any = None, stderr: Any = None,
         environ: Any = None) -> int:
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    environ = environ if environ is not None else os.environ
    try:
        # argparse prints --help/--version/usage errors itself and exits: keep that on our streams.
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    # One short run builds millions of small objects and frees almost none: the cyclic collector would
    # walk them again and again (half the run time on large inputs) and find nothing to collect.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(args, stdin, stdout, stderr, environ)
    finally:
        if was_enabled:
            gc.enable()


def _run(args: argparse.Namespace, stdin: Any, stdout: Any, stderr: Any, environ: Any) -> int:
    try:
        if args.command == "presets":
            stdout.write(describe(as_json=args.json))
            return 0
        if args.command == "render":
            try:
                sources = _sources(args.paths, stdin)
                fc = yamlio.load(Path(args.config).read_text(encoding="utf-8")) if args.config else None
            except OSError as exc:
                print(f"[error] {exc.filename}: {exc.strerror}", file=stderr)
                return 1
            except Exception as exc:  # a config file that is not YAML
                print(f"[error] {args.config}: not a valid functionConfig: {' '.join(str(exc).split())}",
                      file=stderr)
                return 1
            overrides = {"mode": args.mode} if args.mode else {}
            outcome = run_render(sources, fc, environ, overrides)
        else:
            outcome = run_krm(stdin.read(), environ)
    except RecursionError:
        print("[error] ResourceList: the input nests too deeply to process (hundreds of levels); "
              "no Kubernetes object does", file=stderr)
        return 1
    except Exception as exc:  # the one error boundary: a bug must still not print a traceback to users
        print(f"[error] kaito-specdec internal error: {type(exc).__name__}: {' '.join(str(exc).split())}",
              file=stderr)
        return 1
    stdout.write(outcome.output)
    _report(outcome, stderr)
    return outcome.exit_code
