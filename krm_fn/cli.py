"""The command line: the only place that touches stdin, stdout, stderr, files and the exit status."""

import argparse
import contextlib
import errno
import io
import os
import posixpath
import select
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .domain.presets import describe
from .model.config import (MODES, ConfigError, kustomize_flags, kustomize_program, max_input, parse_size,
                           resolve_settings)
from .domain import kustomize_tree
from .domain.kustomize_tree import KUSTOMIZATION_NAMES
from .model.origins import Affixes, Patch, Source, shown
from .pipeline import Build, Outcome, origin_paths, refused, run_krm, run_render
from .text import krm
from .findings import CATALOGUE, RETIRED
from .text import explain, streams, yamlio
from .text.formats import FORMATS, Report
from .text.results import Result
from .text.streams import InputProblem

HELP = """\
KAITO speculative decoding at render time.

With no command, runs as a KRM function: a ResourceList on stdin, the ResourceList on stdout
(kpt fn eval/render, kustomize transformers). Settings come from the functionConfig (a ConfigMap's data,
or a SpeculativeDecodingPolicy's spec) or from the environment; the functionConfig wins, and render's
options win over both. Each environment variable is also read with Argo CD's ARGOCD_ENV_ prefix (the
plain name wins).

settings (functionConfig key, environment variable):
  mode               KAITO_SPECDEC_MODE                 materialize (default) or validate
  failOn             KAITO_SPECDEC_FAIL_ON              error (default) or warning: what exits 1
  tunedPresets       KAITO_SPECDEC_TUNED_PRESETS        JSON: preset name -> speculative config
  ngramFallback      KAITO_SPECDEC_NGRAM_FALLBACK       JSON: the config for every untuned preset
  kaitoVersion       KAITO_SPECDEC_KAITO_VERSION        the KAITO release the cluster runs (v0.13.0)
  vllmVersion        KAITO_SPECDEC_VLLM_VERSION         the vLLM release the image runs (0.25.1)
  featureGates       KAITO_SPECDEC_FEATURE_GATES        KAITO's --feature-gates, e.g. vLLM=false
  disable            KAITO_SPECDEC_DISABLE              finding ids not to report, e.g. SD112,SD008
  prometheusRules    KAITO_SPECDEC_PROMETHEUS_RULES     "true": a PrometheusRule per namespace
  minAcceptanceRate  KAITO_SPECDEC_MIN_ACCEPTANCE_RATE  the rule's alert threshold, 0 to 1 (0.3)
  grafanaDashboards  KAITO_SPECDEC_GRAFANA_DASHBOARDS   "true": a Grafana dashboard per namespace

environment only:
  KAITO_SPECDEC_MAX_INPUT   the cap on the input size (default 256Mi; render --max-input)
  KAITO_SPECDEC_KUSTOMIZE   the kustomize render builds folders with (render --kustomize)
  KAITO_SPECDEC_KUSTOMIZE_FLAGS  flags for every such build (render --kustomize-flag)

Every finding has an id, such as SD112: `kaito-specdec findings` lists them, `kaito-specdec explain SD112`
tells one. The settings in detail: {settings}
"""

WAITING = ("kaito-specdec: waiting for a ResourceList on stdin (KRM function mode; end it with Ctrl-D). "
           "For files run `kaito-specdec render PATH`; see `kaito-specdec --help`.")

YAML_SUFFIXES = (".yaml", ".yml")

# render's flags that set a setting as they are given (the settings' own checks judge the value); given at all,
# they count: `--disable ""` turns off what the config or environment disabled.
FLAG_SETTINGS = (("mode", "mode"), ("fail_on", "failOn"), ("tuned_presets", "tunedPresets"),
                 ("ngram_fallback", "ngramFallback"), ("kaito_version", "kaitoVersion"),
                 ("vllm_version", "vllmVersion"), ("feature_gates", "featureGates"), ("disable", "disable"),
                 ("min_acceptance_rate", "minAcceptanceRate"))


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's."""
    p = argparse.ArgumentParser(prog="kaito-specdec", description=HELP.format(
                                    settings=explain.docs_url("settings.md", __version__)),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"kaito-specdec {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("render", help="render files, folders or stdin (-) to a plain --- stream",
                       description="Read *.yaml/*.yml files (folders recursively, sorted; regular files "
                                   "only, symlinks only within the folders given) or stdin (-), write a "
                                   "plain --- stream with orchestrator annotations stripped. A folder's "
                                   "kustomizations are built with kustomize, each one no other includes on "
                                   "its own, findings at the repository's files and lines; files under no "
                                   "kustomization are read as they are. Results go to stderr; exit 1 on "
                                   "errors (and nothing on stdout).")
    r.add_argument("paths", nargs="+", metavar="PATH", help="file, folder, or - for stdin")
    r.add_argument("--kustomize", metavar="PROGRAM", help="the kustomize to build a folder's kustomizations with: "
                   "a standalone kustomize (run as `PROGRAM build`) or a kubectl (`PROGRAM kustomize`); default: "
                   "KAITO_SPECDEC_KUSTOMIZE, else `kustomize`, else `kubectl` on PATH")
    r.add_argument("--kustomize-flag", metavar="FLAG", action="append", default=[],
                   help="a flag for every build, repeated for more (`--kustomize-flag=--enable-helm`, "
                   "`--kustomize-flag=--load-restrictor=LoadRestrictionsNone`); default: KAITO_SPECDEC_KUSTOMIZE_FLAGS")
    r.add_argument("--no-kustomize", action="store_true", help="read kustomization folders as files, unbuilt")
    r.add_argument("--origin-base", metavar="DIR", help="stdin: the folder kustomize built, which the origin "
                   "annotations' paths are relative to (default: the working directory)")
    r.add_argument("--config", metavar="FILE", help="a functionConfig file (ConfigMap or "
                                                    "SpeculativeDecodingPolicy)")
    r.add_argument("--mode", choices=MODES, help="materialize (default) or validate")
    r.add_argument("--fail-on", choices=("error", "warning"), help="what exits 1: error (default) or warning; the "
                                                                   "same as the failOn setting")
    r.add_argument("--tuned-presets", metavar="JSON", help="preset name -> speculative config, e.g. "
                   "'{\"phi-4\": {\"method\": \"ngram\", \"num_speculative_tokens\": 3}}'; the tunedPresets setting")
    r.add_argument("--ngram-fallback", metavar="JSON", help="the config for every untuned preset; the ngramFallback "
                                                            "setting")
    r.add_argument("--kaito-version", metavar="VERSION", help="the KAITO release the cluster runs, e.g. v0.12.0; the "
                                                              "kaitoVersion setting")
    r.add_argument("--vllm-version", metavar="VERSION", help="the vLLM release the image runs, e.g. 0.25.1; the "
                                                             "vllmVersion setting")
    r.add_argument("--feature-gates", metavar="GATES", help="KAITO's --feature-gates, e.g. vLLM=false; the "
                                                            "featureGates setting")
    r.add_argument("--disable", metavar="IDS", help="finding ids not to report, separated by commas (e.g. "
                                                    "SD112,SD008); the same as the disable setting")
    r.add_argument("--prometheus-rules", action=argparse.BooleanOptionalAction, default=None,
                   help="add a PrometheusRule per namespace with enabled workloads (or not); the same as the "
                        "prometheusRules setting")
    r.add_argument("--grafana-dashboards", action=argparse.BooleanOptionalAction, default=None,
                   help="add a Grafana dashboard ConfigMap per namespace with enabled workloads, and the "
                        "PrometheusRule it reads (or not); the same as the grafanaDashboards setting")
    r.add_argument("--min-acceptance-rate", metavar="RATE", help="the rule's alert threshold, 0 to 1 (default "
                                                                 "0.3); the same as the minAcceptanceRate setting")
    r.add_argument("--format", choices=FORMATS, default="text",
                   help="how the results are reported: text lines (default), github (GitHub Actions "
                        "::error file=F,line=L:: annotations), json (one document) or sarif (SARIF 2.1.0, for "
                        "code scanning)")
    r.add_argument("--output", metavar="FILE", help="write the report to FILE instead of stderr (stdout stays "
                                                    "the manifests)")
    r.add_argument("-v", "--verbose", action="store_true",
                   help="text and github formats: the info results too (what was decided; github: as notices), "
                        "not only their number")
    r.add_argument("--max-input", metavar="SIZE", help="cap on the total input size, e.g. 512Mi "
                                                       "(default: KAITO_SPECDEC_MAX_INPUT or 256Mi)")
    pr = sub.add_parser("presets", help="print the effective tuned presets, legacy aliases and the fallback",
                        description="The preset table the function would use with the same settings: "
                                    "the built-in presets, plus tunedPresets and ngramFallback from "
                                    "--config FILE and the environment.")
    pr.add_argument("--json", action="store_true", help="as JSON")
    pr.add_argument("--config", metavar="FILE", help="a functionConfig file (ConfigMap or "
                                                     "SpeculativeDecodingPolicy)")
    ex = sub.add_parser("explain", help="what a finding id means, and whether disable may name it",
                        description="A finding as this version's catalogue declares it: its title, severity, "
                                    "whether the disable setting may name it, its message (… where the run fills "
                                    "in a value) and why, and a link to its documentation for this release.")
    ex.add_argument("ids", nargs="+", metavar="ID", type=_finding_id, help="a finding id, e.g. SD112")
    fi = sub.add_parser("findings", help="every finding id with its severity and title",
                        description="Every finding id this version reports, one line each: the id, its severity "
                                    "and its title (`kaito-specdec explain ID` tells more).")
    fi.add_argument("--format", dest="listing", choices=("text", "json"), default="text",
                    help="text lines (default) or json (everything explain tells, for every id)")
    return p, {"render": r, "presets": pr, "explain": ex, "findings": fi}


def _finding_id(value: str) -> str:
    """An id `explain` can tell (`sd112` too; a merged one names the id that says it now)."""
    id = value.strip().upper()
    if id not in CATALOGUE and id not in RETIRED:
        raise argparse.ArgumentTypeError(f"{value!r} is no finding id of this version (`kaito-specdec findings` "
                                         "lists them)")
    return id


# --- output: written whole, checked, or one line on stderr and a non-zero exit --------------------------

class _WriteFailed(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


def _say(stderr: Any, line: str) -> None:
    """One line on stderr; a closed or broken stderr loses it rather than raising."""
    if stderr is None:
        return
    try:
        stderr.write(line + "\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


def _write_fd(fd: int, data: bytes) -> None:
    """Every byte to `fd`: short writes continue, a non-blocking fd waits until it is writable."""
    view = memoryview(data)
    done = 0
    while done < len(view):
        try:  # an interrupted write is retried by os.write itself (PEP 475)
            done += os.write(fd, view[done:done + (1 << 20)])
        except BlockingIOError:
            select.select([], [fd], [])
        except OSError as exc:
            failed = (streams.pipe_closed(done, len(view)) if exc.errno == errno.EPIPE
                      else streams.cannot_write(str(exc.strerror or exc), done, len(view)))
            raise _WriteFailed(failed) from None


def _emit(stdout: Any, text: str) -> None:
    """Write the whole output or raise _WriteFailed. The real stdout is written through its file
    descriptor (no buffer or PYTHONUNBUFFERED short write can drop bytes silently)."""
    if not text:
        return
    if stdout is None:
        raise _WriteFailed(streams.stdout_closed())
    fd = _fileno(stdout) if stdout is sys.__stdout__ else None
    if fd is not None:
        stdout.flush()
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate the settings' checks let through: a bug, one line
            raise _WriteFailed(streams.internal_error(exc)) from None
        _write_fd(fd, data)
        return
    try:
        stdout.write(text)
        stdout.flush()
    except (OSError, ValueError) as exc:
        raise _WriteFailed(streams.cannot_write(str(exc))) from None


def _fileno(stream: Any) -> int | None:
    try:
        fd: int = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd


# --- input: stdin and files, capped, regular files only ---------------------------------------------------

def _read_stdin(stdin: Any, budget: int, what: str, limit: int | None = None) -> bytes:
    if stdin is None:
        raise streams.stdin_closed(what)
    fd = _fileno(stdin) if stdin is getattr(sys.__stdin__, "buffer", None) else None
    chunks: list[bytes] = []
    total = 0
    while True:
        try:  # an interrupted read is retried by os.read and read() themselves (PEP 475)
            size = min(1 << 20, budget + 1 - total)
            chunk = os.read(fd, size) if fd is not None else stdin.read(size)
        except BlockingIOError:
            select.select([fd] if fd is not None else [], [], [])
            continue
        except OSError as exc:
            raise streams.stdin_unreadable(str(exc.strerror or exc)) from None
        if chunk is None:  # a non-blocking buffered stdin with nothing yet
            if fd is None:
                fd = _fileno(stdin)
            if fd is not None:
                select.select([fd], [], [])
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > budget:
            raise streams.too_large("stdin", _size(limit or budget))


def _size(n: int) -> str:
    for unit, factor in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if n % factor == 0:
            return f"{n // factor}{unit}"
    return f"{n} bytes"


def _kind_of(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _read_file(path: str, budget: int, limit: int | None = None) -> bytes:
    """A regular file's bytes, at most `budget` of them. Opened non-blocking, so a FIFO never hangs,
    and checked on the open descriptor (not a name that may have changed since)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise streams.cannot_open(path, str(exc.strerror)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise streams.not_regular(path, _kind_of(st.st_mode))
        if st.st_size > budget:
            raise streams.too_large(path, _size(limit or budget))
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, budget + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > budget:
                raise streams.too_large(path, _size(limit or budget))
    except OSError as exc:
        raise streams.cannot_open(path, str(exc.strerror)) from None
    finally:
        os.close(fd)


def _walk(top: Path, roots: Sequence[str]) -> list[Path]:
    """*.yaml/*.yml under `top` (hidden files and folders such as .git or kpt's .expected left out), as
    docs/cli.md's "Input and output limits" says: a folder that cannot be listed would silently miss manifests."""
    found: list[Path] = []
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError as exc:
            raise streams.folder_unreadable(str(folder), str(exc.strerror)) from None
        for entry in listed:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            # kustomize's extension-less `Kustomization` too: render must see it to leave it out and say so.
            yaml_name = entry.name.endswith(YAML_SUFFIXES) or entry.name == "Kustomization"
            if entry.is_symlink():
                if not yaml_name:
                    continue  # a symlinked folder is never descended into, wherever it points (`up -> ..`)
                target = os.path.realpath(entry.path)
                if os.path.isdir(target):
                    continue
                if not os.path.exists(target):
                    raise streams.broken_symlink(str(path), target)
                if not any(target == root or target.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
                    raise streams.symlink_outside(str(path), target)
                found.append(path)  # a FIFO or device behind it is refused when read
            elif entry.is_dir(follow_symlinks=False):
                stack.append(path)
            elif yaml_name:
                found.append(path)  # anything but a regular file is refused when read
    return found


def _sources(paths: Sequence[str], stdin: Any, limit: int, built: list[str] | None = None,
             held: list[str] | None = None) -> list[tuple[str, bytes]]:
    """(name, bytes) of every input: files as named, folders' *.yaml/*.yml (recursive, sorted), each
    file once, all of it together at most `limit` bytes. `built`: given, the folders' kustomization folders
    are put in it, and the files in and under them are not read (kustomize builds them; `held` gets them)."""
    out: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    roots = [os.path.realpath(p) for p in paths if p != "-" and os.path.isdir(p)]
    budget = limit
    for raw in paths:
        if raw == "-":
            data = _read_stdin(stdin, budget, "manifests", limit)
        else:
            try:
                mode = os.stat(raw).st_mode
            except OSError as exc:
                raise streams.cannot_open(raw, str(exc.strerror)) from None
            files = sorted(_walk(Path(raw), roots)) if stat.S_ISDIR(mode) else [Path(raw)]
            if built is not None and stat.S_ISDIR(mode):
                kept = _unbuilt(files, built)
                if held is not None:
                    held.extend(str(f) for f in files if f not in kept)
                files = kept
            for f in files:
                real = os.path.realpath(f)
                if real in seen:
                    continue
                seen.add(real)
                data = _read_file(str(f), budget, limit)
                budget -= len(data)
                out.append((str(f), data))
            continue
        budget -= len(data)
        out.append(("<stdin>", data))
    return out


# --- kustomize: a folder's kustomizations built, each root on its own --------------------------------------

INSTALL = ("install kubectl (`kubectl kustomize`) or kustomize (https://kubectl.docs.kubernetes.io/installation/"
           "kustomize/), or name one with --kustomize")


def _unbuilt(files: list[Path], built: list[str]) -> list[Path]:
    """The files under no kustomization folder; the kustomization folders among `files` added to `built`."""
    folders = {posixpath.normpath(str(f.parent)) for f in files if f.name in KUSTOMIZATION_NAMES}
    built.extend(sorted(folders - set(built)))
    return [f for f in files if not _under(posixpath.normpath(str(f.parent)), folders)]


def _under(folder: str, folders: set[str]) -> bool:
    """`folder` is one of `folders` or below one (`.` is above every relative path)."""
    while folder not in folders:
        up = posixpath.dirname(folder) or "."
        if up == folder:
            return False
        folder = up
    return True


def _kustomize(option: str | None, environ: Any) -> tuple[list[str] | None, str]:
    """The command that builds a folder (`kustomize build`, `kubectl kustomize`), or None and INSTALL (none on
    PATH) or the program named that cannot be run."""
    named, path = kustomize_program(environ)
    named = option or named
    if named:
        found = shutil.which(named, path=path) if os.sep not in named else (named if os.access(named, os.X_OK)
                                                                            else None)
        if found is None:
            return None, named   # required, and not there: SD509, never the silent fallback
        return ([found, "kustomize"] if "kubectl" in os.path.basename(found) else [found, "build"]), ""
    for program, command in (("kustomize", "build"), ("kubectl", "kustomize")):
        found = shutil.which(program, path=path)
        if found is not None:
            return [found, command], ""
    return None, INSTALL


def _kustomization_tree(folders: list[str], limit: int) -> dict[str, kustomize_tree.Kustomization]:
    """Every kustomization the folders' ones include (outside the folders given too), by folder. A folder
    is one by its real path: an include through a symlinked folder (`../base-link` -> `../base`) names the
    folder as first seen (the folders given first), so a base so reached is no root of its own."""
    tree: dict[str, kustomize_tree.Kustomization] = {}
    canon: dict[str, str] = {}
    for folder in folders:
        canon.setdefault(os.path.realpath(folder), folder)
    queue = list(folders)
    while queue:
        folder = queue.pop()
        name = next((n for n in KUSTOMIZATION_NAMES if os.path.isfile(os.path.join(folder, n))), None)
        if folder in tree or name is None:
            continue
        text = _read_file(os.path.join(folder, name), limit).decode("utf-8", "replace")
        found = kustomize_tree.parse(folder, text)
        includes = tuple(canon.setdefault(os.path.realpath(e), e) if os.path.isdir(e) else e for e in found.includes)
        tree[folder] = found._replace(includes=includes, text=text)
        queue += [entry for entry in includes if os.path.isdir(entry)]
    return tree


def _real(path: str) -> str:
    """A file a build read, as shown: through a symlinked folder, the file itself when it is under the working
    directory (a code scanner annotates the file, not a link to its folder)."""
    real = os.path.realpath(path)
    if real == os.path.abspath(path):
        return path
    relative = os.path.relpath(real)
    return path if relative.startswith("..") else relative


def _kustomize_build(command: list[str], root: str, text: str, environ: Any
                     ) -> tuple[subprocess.CompletedProcess[bytes], str, tuple[tuple[str, str], ...]]:
    """kustomize run on a root: (the process, the folder built, absolute, which the origin paths are relative
    to, and what to say instead of the temporary folder's paths in its error). A root that asks for origin
    annotations itself is built as it is, so the paths it writes are those of `kustomize build ROOT`; another
    through a wrapper kustomization in a temporary folder (the user's files untouched) that turns them on."""
    if kustomize_tree.has_origins(text):
        return _run_program([*command, root], environ), os.path.abspath(root), ()
    with tempfile.TemporaryDirectory(prefix="kaito-specdec-") as wrap:
        relative = os.path.relpath(os.path.abspath(root), wrap)
        with open(os.path.join(wrap, "kustomization.yaml"), "w", encoding="utf-8") as f:
            f.write(kustomize_tree.wrapper(relative, text))
        return _run_program([*command, wrap], environ), os.path.abspath(wrap), ((relative, root), (wrap, ""))


def _run_program(argv: list[str], environ: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=dict(environ), check=False)


def _build(command: list[str], root: str, tree: dict[str, kustomize_tree.Kustomization], environ: Any,
           limit: int) -> Build:
    """One root built with its origin annotations on; the files they name and the overlays' patches read
    for the places."""
    text = tree[root].text
    proc, built, renamed = _kustomize_build(command, root, text, environ)
    if proc.returncode != 0:
        reason = kustomize_tree.build_error(proc.stderr.decode("utf-8", "replace")) or f"exit status {proc.returncode}"
        for was, said in renamed:
            reason = reason.replace(was, said)
        return Build(root, b"", {}, failed=streams.build_failed(
            " ".join([os.path.basename(command[0]), *command[1:], root]), reason.strip()))
    if len(proc.stdout) > limit:
        raise streams.too_large(f"kustomize build {root}", _size(limit))
    sources = {}
    for raw in origin_paths(root, proc.stdout):
        path = _real(shown(root, os.path.relpath(os.path.normpath(os.path.join(built, raw)), os.path.abspath(root))))
        sources[raw] = Source(path, _maybe(path, limit))
    patches = _patches_of(tree, root, limit)
    stripped = () if kustomize_tree.has_origins(text) else (krm.ORIGIN_ANNOTATION,)
    return Build(root, proc.stdout, sources, patches, stripped, affixes=kustomize_tree.affixes(tree, root))


def _maybe(path: str, limit: int) -> bytes | None:
    """A repository file a build read, for its lines (None when it cannot be read: the file, no line)."""
    try:
        return _read_file(path, limit)
    except InputProblem:
        return None


def _builds(folders: list[str], option: str | None, flags: list[str], environ: Any, limit: int
            ) -> tuple[tuple[Build, ...], dict[str, kustomize_tree.Kustomization]] | None:
    """The folders' roots built (a root that does not build, with its error), and the tree; None when there
    is no kustomize (SD506 is said). `flags`: for every build (--enable-helm, --load-restrictor …), after
    `build`/`kustomize` and before the folder, as kustomize's own command line takes them."""
    command, install = _kustomize(option, environ)
    if command is None:
        return None
    command = [*command, *flags]
    tree = _kustomization_tree(folders, limit)
    return tuple(_build(command, root, tree, environ, limit) for root in kustomize_tree.roots(tree)), tree


def _tree_policies(tree: dict[str, kustomize_tree.Kustomization], held: list[str],
                   sources: list[tuple[str, bytes]], limit: int) -> tuple[tuple[str, bytes], ...]:
    """The files of the tree that hold a SpeculativeDecodingPolicy: those a kustomization lists and those
    in and under the kustomization folders given (listed or not). kustomize drops a policy (local
    configuration) from its build, so render reads them itself: docs/settings.md, "A policy among the inputs".
    Each file once (by real path), none that is read as a file under no kustomization already."""
    listed = [entry for k in tree.values() for entry in k.includes if os.path.isfile(entry)]
    seen = {os.path.realpath(name) for name, _ in sources if name != STDIN_NAME}
    out: list[tuple[str, bytes]] = []
    for path in [*held, *listed]:
        real = os.path.realpath(path)
        if real in seen or not path.endswith(YAML_SUFFIXES):
            continue
        seen.add(real)
        data = _read_file(path, limit)
        if krm.POLICY_KIND.encode() in data:
            out.append((path, data))
    return tuple(out)


def _places(data: bytes, base: str | None, limit: int) -> dict[str, Source]:
    """stdin's origin annotations: the files they name, relative to `base` (--origin-base) or the working
    directory."""
    if krm.ORIGIN_ANNOTATION.encode() not in data:
        return {}
    out = {}
    for raw in origin_paths(STDIN_NAME, data):
        path = shown(base or "", raw)
        out[raw] = Source(path, _maybe(path, limit))
    return out


def _patches(base: str, limit: int) -> tuple[tuple[Patch, ...], Affixes | None]:
    """The patch files of the kustomization piped in, when `base` is its folder (the overlays' lines), and
    its name prefixes and suffixes (None: no kustomization there)."""
    folder = posixpath.normpath(base)
    tree = _kustomization_tree([folder], limit)
    if folder not in tree:
        return (), None
    return _patches_of(tree, folder, limit), kustomize_tree.affixes(tree, folder)


def _patches_of(tree: dict[str, kustomize_tree.Kustomization], root: str, limit: int) -> tuple[Patch, ...]:
    renamed = kustomize_tree.renamed_above(tree, root)
    return tuple(Patch(p, _maybe(p, limit) or b"", tree[k].namespace, renamed[k])
                 for k in kustomize_tree.reach(tree, root) for p in tree[k].patches)


STDIN_NAME = "<stdin>"


# --- commands ---------------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None, stdin: Any = None, stdout: Any = None, stderr: Any = None,
         environ: Any = None) -> int:
    if stdin is None:
        stdin = sys.stdin.buffer if sys.stdin is not None else None  # None: started with stdin closed
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    environ = environ if environ is not None else os.environ
    if argv is None:
        argv = sys.argv[1:]
    args = argparse.Namespace(command=None) if not argv else _parse(argv, stdout, stderr)  # none: KRM mode
    if isinstance(args, int):
        return args
    try:
        return _run(args, stdin, stdout, stderr, environ)
    except KeyboardInterrupt:  # Ctrl-C while it waits on a terminal: one line, the shell's usual status
        _say(stderr, streams.interrupted().line())
        return 130


def run() -> None:
    """The console script and `python -m krm_fn`: exit with `main()`'s status.

    A stdout or stderr whose reader has gone (a closed pipe) still holds what could not be written, and the
    interpreter's own flush at exit would fail on it and exit 120 instead: such a stream is pointed at
    /dev/null first (the signal module's note on SIGPIPE). `main` has already said what was lost."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
                os.close(devnull)
    raise SystemExit(code)


def _parse(argv: Sequence[str], stdout: Any, stderr: Any) -> argparse.Namespace | int:
    """A command's arguments, or the exit status when argparse has answered (--help, --version, a usage
    error) with its output written checked."""
    said, shown = io.StringIO(), io.StringIO()
    try:
        # argparse prints --help/--version/usage errors itself and exits: collect them, write them checked.
        with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(said):
            parser, commands = _parser()
            args, extra = parser.parse_known_args(argv)
            if extra:  # `render --mdoe`: the command's usage, not the top-level one
                (commands.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        if said.getvalue():
            _say(stderr, said.getvalue().rstrip("\n"))
        try:
            _emit(stdout, shown.getvalue())
        except _WriteFailed as failed:
            _say(stderr, failed.result.line())
            return refused([failed.result]).exit_code
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    return args


def _load_config(path: str | None, limit: int) -> Any:
    if not path:
        return None
    data = _read_file(path, limit)
    try:
        return yamlio.load(data.decode("utf-8"))
    except Exception as exc:  # a config file that is not YAML (or not UTF-8)
        raise streams.config_file_invalid(path, ' '.join(str(exc).split())) from None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _render(args: argparse.Namespace, stdin: Any, limit: int, environ: Any) -> tuple[Outcome, bool]:
    """`render`: the inputs read (the folders' kustomizations built), judged; and whether stdin is Helm's."""
    folders: list[str] | None = None if args.no_kustomize else []
    held: list[str] = []
    sources = _sources(args.paths, stdin, limit, folders, held)
    builds: tuple[Build, ...] = ()
    notes: tuple[Result, ...] = ()
    found: tuple[tuple[str, bytes], ...] = ()
    if folders:
        made = _builds(folders, args.kustomize, args.kustomize_flag or kustomize_flags(environ), environ, limit)
        if made is None:  # no kustomize: the folders read as files after all, as before
            missing = _kustomize(args.kustomize, environ)[1]
            notes = (streams.no_kustomize(", ".join(folders), missing) if missing == INSTALL
                     else streams.kustomize_not_runnable(missing, ", ".join(folders)),)
            sources = _sources(args.paths, stdin, limit)
        else:
            builds, found = made[0], _tree_policies(made[1], held, sources, limit)
    # Helm's stream names each template (`# Source: CHART/templates/FILE`): kustomize's hint is no help.
    helm = any(name == "<stdin>" and b"# Source: " in data for name, data in sources)
    places = next((_places(data, args.origin_base, limit) for name, data in sources if name == STDIN_NAME),
                  {})
    patches, affixes = _patches(args.origin_base or ".", limit) if places and not args.no_kustomize else ((), None)
    fc = _load_config(args.config, limit)
    overrides = {setting: getattr(args, flag) for flag, setting in FLAG_SETTINGS
                 if getattr(args, flag) is not None}
    if args.prometheus_rules is not None:
        overrides["prometheusRules"] = "true" if args.prometheus_rules else "false"
    if args.grafana_dashboards is not None:
        overrides["grafanaDashboards"] = "true" if args.grafana_dashboards else "false"
    return run_render(sources, fc, environ, overrides, builds, places, notes, patches, found, affixes), helm


def _run(args: argparse.Namespace, stdin: Any, stdout: Any, stderr: Any, environ: Any) -> int:
    if stdout is None:
        closed = streams.stdout_closed()
        _say(stderr, closed.line())
        return refused([closed]).exit_code
    if args.command in ("explain", "findings"):
        return _tell(args, stdout, stderr)
    helm = False
    option = getattr(args, "max_input", None)  # an explicit `--max-input ""` is refused, not ignored
    try:
        limit = parse_size(option) if option is not None else max_input(environ)
    except ConfigError as exc:
        failed = (exc.prefixed("--max-input: ") if option is not None else exc).unplaced("")
        return _finish(args, refused([failed]), stdout, stderr)
    try:
        if args.command == "presets":
            settings = resolve_settings(_load_config(args.config, limit), environ)
            outcome = Outcome(describe(settings.presets, as_json=args.json), [], 0)
        elif args.command == "render":
            if "-" in args.paths and _isatty(stdin):
                _say(stderr, "kaito-specdec: reading manifests from stdin (end with Ctrl-D)")
            outcome, helm = _render(args, stdin, limit, environ)
        else:
            if _isatty(stdin):
                _say(stderr, WAITING)
            outcome = run_krm(_read_stdin(stdin, limit, "a ResourceList"), environ)
    except InputProblem as exc:
        outcome = refused([exc.result])
    except ConfigError as exc:
        outcome = refused([e.unplaced("") for e in exc.each()])
    except RecursionError:
        outcome = refused([streams.too_deep()])
    except Exception as exc:  # the one error boundary: a bug must still not print a traceback to users
        outcome = refused([streams.internal_error(exc)])
    # The hints on origin annotations are about a stream piped in: never about the builds render ran itself.
    piped = args.command != "render" or "-" in args.paths
    return _finish(args, outcome, stdout, stderr, hint=not helm and piped)


def _finish(args: argparse.Namespace, outcome: Outcome, stdout: Any, stderr: Any, hint: bool = True) -> int:
    """The output on stdout and the report on stderr, or in `render --output FILE`; the exit status.

    The file is opened once the input is read (it may be one of the input files) and before stdout is
    written: a file that cannot be opened leaves stdout empty, as an error does, and its error (SD519) is
    said on stderr with the whole report. One that fails while it is written (a full disk) likewise, exit 1."""
    report = Report(outcome.results, outcome.exit_code, getattr(args, "verbose", False), hint, outcome.summary,
                    args.command is None, outcome.summary is not None and outcome.summary.kpt and not _isatty(stderr),
                    __version__)
    fmt = getattr(args, "format", "text")
    path = getattr(args, "output", None)
    target = None
    if path is not None:
        try:
            target = open(path, "w", encoding="utf-8")  # written and closed below
        except OSError as exc:
            return _unwritten(report, fmt, path, exc, stderr)
    try:
        _emit(stdout, outcome.output)
    except _WriteFailed as failed:  # no last line: the figures would sum up an output that is not there
        report = report._replace(results=[*outcome.results, failed.result], summary=None,
                                 exit_code=refused([*outcome.results, failed.result]).exit_code)
    lines = FORMATS[fmt](report)
    if target is None:
        for line in lines:
            _say(stderr, line)
        return report.exit_code
    try:
        with target:
            target.write("".join(line + "\n" for line in lines))
    except OSError as exc:
        return _unwritten(report, fmt, path or "", exc, stderr)
    return report.exit_code


def _unwritten(report: Report, fmt: str, path: str, exc: OSError, stderr: Any) -> int:
    """The report on stderr after all, with the error that says why it is not in `path`: exit 2 (SD519)."""
    failed = streams.report_unwritable(path, str(exc.strerror or exc))
    code = refused([*report.results, failed]).exit_code
    for line in FORMATS[fmt](report._replace(results=[*report.results, failed], exit_code=code)):
        _say(stderr, line)
    return code


def _tell(args: argparse.Namespace, stdout: Any, stderr: Any) -> int:
    """`explain ID…` and `findings`: what the installed catalogue says, on stdout."""
    if args.command == "explain":
        text = "\n\n".join("\n".join(explain.explain(id, __version__)) for id in args.ids) + "\n"
    elif args.listing == "json":
        text = explain.listing_json(__version__) + "\n"
    else:
        text = "".join(line + "\n" for line in explain.listing())
    try:
        _emit(stdout, text)
    except _WriteFailed as failed:
        _say(stderr, failed.result.line())
        return refused([failed.result]).exit_code
    return 0
