"""A seeded fuzzer for kaito-specdec and the oracle that judges every run (issue 10; stdlib + PyYAML only).

    python tests/fuzz.py                          # the long pass: 20,000 inputs, every mutation class
    python tests/fuzz.py -n 500 --seed 7 --classes flip,tab --modes render

Seeds are every fixture (its ResourceList for the KRM mode, its plain stream for `render`). Each input is
a seed with one to three mutations (MUTATIONS below). Every run, in-process through `krm_fn.cli.main` (tests/runner.py)
under a wall-clock limit, is checked by `violations()` against what docs/guarantees.md's "What it promises"
section says. Failures are printed as one line each (class, seed, mutations, what broke) and written, with
the input that reproduces them, under --out (default `fuzz-failures/`). tests/test_invariants.py runs a
short pass of the same code in CI with fixed seeds; tests/fuzz_findings.md lists what it found.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import pickle
import posixpath
import random
import re
import resource
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from krm_fn.findings import CATALOGUE  # noqa: E402
from krm_fn.text import refusals  # noqa: E402
import golden  # noqa: E402
import goyaml  # noqa: E402
import runner  # noqa: E402

# --- what the oracle knows, written down independently of the code under test -------------------------

KAITO_KINDS = {"Workspace", "InferenceSet", "MultiRoleInference"}
# Objects the function may change, add or drop; every other object must come out as it came in.
TARGETED_KINDS = KAITO_KINDS | {"ConfigMap", "SpeculativeDecodingPolicy"}
# Plain vLLM workloads (issue #12, SPEC 8): changed only when they carry the opt-in or the function's record
# of an injection (on the object or any pod template); without either they must come out as they came in.
PLAIN_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod", "LeaderWorkerSet",
               "InferenceService", "LLMInferenceService"}
PLAIN_KEYS = ("kaito.sh/enable-speculative-decoding", "kaito-specdec.dev/speculative-config")
INTERNAL = ("internal.config.kubernetes.io/", "config.kubernetes.io/path", "config.kubernetes.io/index",
            "config.k8s.io/id", "kustomize.config.k8s.io/id")
DERIVED = "kaito-specdec.dev/derived"
DASHBOARD = "kaito-specdec.dev/grafana-dashboard"   # a dashboard ConfigMap (grafanaDashboards): the function's own
LOCAL_CONFIG = "config.kubernetes.io/local-config"
# kustomize's file names for a kustomization (docs/cli.md, `render`: kind and apiVersion are optional there).
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
PATHS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
# CPU seconds, not wall-clock (a loaded machine slows every run alike): the largest fixture takes well
# under a second of CPU; a hang or an alias bomb takes minutes.
TIME_LIMIT = 60.0
# Output may grow by new derived ConfigMaps and results, not by expanded aliases (117 MB from 1 KB).
MAX_GROWTH, MAX_EXTRA = 20, 256 * 1024


def _holds_key(data: Any, keys: tuple, depth: int = 0) -> bool:
    """Whether any mapping within `data` has one of `keys` (an annotation anywhere in the object)."""
    if depth > 60:
        return True   # too deep to tell: treat as targeted rather than report a false failure
    if isinstance(data, dict):
        return any(k in keys or _holds_key(v, keys, depth + 1) for k, v in data.items())
    if isinstance(data, list):
        return any(_holds_key(v, keys, depth + 1) for v in data)
    return False


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so the function's error boundary does not catch it."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


@dataclass
class Run:
    code: int
    out: str
    err: str
    seconds: float


def run(mode: str, data: bytes, env: dict[str, str] | None = None, limit: float = TIME_LIMIT) -> Run:
    """One in-process run (`render -` for the render mode); a run over `limit` seconds of CPU raises Hang."""
    argv = ["render", "-"] if mode == "render" else []
    old = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, limit)
    start = time.perf_counter()
    try:
        r = runner.run_whole(argv, data, env)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return Run(r.code, r.out, r.err, time.perf_counter() - start)


# Address space for one isolated run: the function's own needs are tens of MiB.
MEMORY_LIMIT = 2 * 2 ** 30


def isolated(mode: str, data: bytes, env: dict[str, str] | None = None, fixpoint: bool = True,
             memory: int = MEMORY_LIMIT) -> list[str]:
    """`violations()` in a forked child under an address-space limit and a hard wall-clock limit: a
    crash (libyaml's composer recursing without a limit segfaults), memory exhaustion or a hang is a
    finding, not the end of the fuzzer."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(rfd)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            payload = pickle.dumps(violations(mode, data, env, fixpoint))
            with os.fdopen(wfd, "wb") as w:
                w.write(payload)
        except MemoryError:
            code = 3
        except BaseException:  # noqa: BLE001 - the oracle itself failed: say so, below
            code = 4
        os._exit(code)
    os.close(wfd)
    chunks, deadline = [], time.monotonic() + 3 * TIME_LIMIT + 10
    with os.fdopen(rfd, "rb") as r:
        while True:
            ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return [f"time: killed after {3 * TIME_LIMIT + 10:.0f} s"]
            chunk = os.read(r.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return [f"crash: killed by signal {os.WTERMSIG(status)}"]
    code = os.WEXITSTATUS(status)
    if code == 3:
        return [f"memory: over {memory // 2 ** 20} MiB"]
    if code:
        return [f"oracle: failed (status {code})"]
    return pickle.loads(b"".join(chunks))


# --- an independent reading of input and output -------------------------------------------------------

class TooDeep(Exception):
    """More levels than the oracle reads (DEEP_LIMIT)."""


# The function refuses more than refusals.MAX_DEPTH levels; the oracle stops at twice that, before libyaml's
# recursive C composer can overflow the C stack (a segfault of the whole test process, not an exception).
DEEP_LIMIT = 2 * refusals.MAX_DEPTH


class _Guard:
    """Counts nesting as the composer descends (the hook PyYAML calls around every node)."""

    _depth = 0

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        self._depth += 1
        if self._depth > DEEP_LIMIT:
            raise TooDeep()

    def ascend_resolver(self) -> None:
        self._depth -= 1


class _LaterAnchorWins(yaml.composer.Composer):
    """PyYAML's composer, but an anchor given again names the later node (YAML 1.2, go-yaml) instead of
    refusing the document."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if not isinstance(event, yaml.AliasEvent) and event.anchor is not None:
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)


class _Loader(_Guard, _LaterAnchorWins, yaml.CSafeLoader):
    """PyYAML on libyaml's parser, as the function reads, that constructs any tag by its node's shape and keeps
    odd scalars as strings; tabs read by libyaml's (go-yaml's) rules (tests/text/test_tabs.py)."""

    def __init__(self, stream: Any) -> None:
        yaml.CSafeLoader.__init__(self, stream)
        yaml.composer.Composer.__init__(self)


class Unconstructed(str):
    """The text of a scalar under a tag nobody constructs (`!foo`), or that its tag's constructor refused (a
    5,000-digit int, a bad timestamp): compared as text, but no string value (no apiVersion or kind, say),
    as the function reads only plain and quoted strings as strings."""


class _Dumper(yaml.SafeDumper):
    """Writes an Unconstructed back as the string it is compared as."""


_Dumper.add_representer(Unconstructed, yaml.SafeDumper.represent_str)


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return Unconstructed(loader.construct_scalar(node))  # a tagged scalar: no string to the function


def _lenient(tag: str) -> None:
    original = yaml.SafeLoader.yaml_constructors[tag]

    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        try:
            return original(loader, node)
        except Exception:  # noqa: BLE001 - any odd scalar: its text
            return Unconstructed(loader.construct_scalar(node))
    _Loader.add_constructor(tag, construct)


_Loader.add_multi_constructor("!", _any_tag)
_Loader.add_multi_constructor("tag:", _any_tag)
for _tag in ("int", "float", "timestamp", "binary", "bool", "null"):
    _lenient("tag:yaml.org,2002:" + _tag)
# go-yaml reads a tagged mapping or sequence by its shape, `!!set` and `!!omap` too (kubectl, kustomize, kpt).
for _tag in ("set", "omap", "pairs"):
    _Loader.add_constructor("tag:yaml.org,2002:" + _tag, lambda loader, node: _any_tag(loader, "", node))


def _size(node: yaml.Node, memo: dict[int, int], budget: int = 10 ** 6) -> int:
    """Nodes in a composed graph counted as a tree (aliases expanded), capped just above `budget`."""
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = budget + 1  # a cycle counts as too large
    n = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            n += _size(k, memo, budget) + _size(v, memo, budget)
            if n > budget:
                break
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            n += _size(v, memo, budget)
            if n > budget:
                break
    memo[id(node)] = min(n, budget + 1)
    return memo[id(node)]


SYNTAX, UNCONSTRUCTIBLE, HUGE, DEEP = "syntax", "unconstructible", "huge", "deep"


def load_all(text: str) -> tuple[str, list[Any]]:
    """("ok", every document as data), or (SYNTAX, []) when the reference reading refuses the text,
    (HUGE, []) for an alias bomb, (DEEP, []) past DEEP_LIMIT levels, (UNCONSTRUCTIBLE, []) for YAML that is no data (a recursive merge …)."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except TooDeep:
        return DEEP, []
    except Exception:  # noqa: BLE001 - whatever the reference reading refuses
        return SYNTAX, []
    if any(n is not None and _size(n, {}) > 10 ** 5 for n in nodes):
        return HUGE, []
    try:
        return "ok", [_Loader("").construct_document(node) if node is not None else None for node in nodes]
    except Exception:  # noqa: BLE001
        return UNCONSTRUCTIBLE, []


def canonical(data: Any) -> str:
    # repr: keeps key order, tells 1 from "1", and NaN equals itself as text.
    return repr(data)


def _get(data: Any, *path: str) -> Any:
    for p in path:
        data = data.get(p) if isinstance(data, dict) else None
    return data


@dataclass(frozen=True)
class Obj:
    api_version: Any
    kind: Any
    namespace: Any
    name: Any
    data: Any = field(compare=False, hash=False)

    @property
    def key(self) -> tuple:
        """What a cluster tells objects apart by: API group (not version), kind, namespace, name."""
        group = self.api_version.rpartition("/")[0] if isinstance(self.api_version, str) else self.api_version
        return (repr(group), repr(self.kind), repr(self.namespace), repr(self.name))

    @property
    def annotations(self) -> dict:
        ann = _get(self.data, "metadata", "annotations")
        return ann if isinstance(ann, dict) else {}

    @property
    def targeted(self) -> bool:
        # A kind may be a mapping (unhashable): only a string names a kind.
        return isinstance(self.kind, str) and (self.kind in TARGETED_KINDS
                                               or (self.kind == "PrometheusRule" and self.derived)
                                               or (self.kind in PLAIN_KINDS and _holds_key(self.data, PLAIN_KEYS)))

    @property
    def derived(self) -> bool:
        # Derived ConfigMaps, the PrometheusRule of the prometheusRules setting and the dashboard ConfigMaps of the
        # grafanaDashboards setting (regenerated, retired).
        return (self.kind in ("ConfigMap", "PrometheusRule") and self.annotations.get(DERIVED) == "true"
                or self.kind == "ConfigMap" and self.annotations.get(DASHBOARD) == "true")

    @property
    def local(self) -> bool:
        # What `render` leaves out: local config, the policy, kustomize's own files and function configs.
        return (self.annotations.get(LOCAL_CONFIG) == "true" or self.kind == "SpeculativeDecodingPolicy"
                or self.kustomization or self.api_version == "builtin"
                or any(a in self.annotations for a in ("config.kubernetes.io/function", "config.k8s.io/function")))

    @property
    def kustomization(self) -> bool:
        """kustomize's own file (docs/cli.md, `render`): kind Kustomization or Component, or no kind in a file of a
        kustomization's name, or no kind and no file to go by (anything else without a kind is no object
        and fails the run); apiVersion kustomize's or none. Only strings are an apiVersion or a kind."""
        api, kind = (x if type(x) is str else "" for x in (self.api_version, self.kind))
        if api and not api.startswith("kustomize.config.k8s.io/"):
            return False
        if kind:
            return kind in ("Kustomization", "Component")
        path = next((p for p in map(self.annotations.get, PATHS) if type(p) is str and p), "")
        return not path or path.replace("\\", "/").rpartition("/")[2] in KUSTOMIZATION_FILES

    @property
    def path(self) -> str:
        """The file kpt (or a ResourceList's author) recorded for it, or ""."""
        found = next((p for p in map(self.annotations.get, PATHS) if type(p) is str and p), "")
        return found.replace("\\", "/")

    def internal(self) -> dict:
        return {k: v for k, v in self.annotations.items() if isinstance(k, str) and k.startswith(INTERNAL)}


def obj(data: Any) -> Obj:
    return Obj(_get(data, "apiVersion"), _get(data, "kind"), _get(data, "metadata", "namespace"),
               _get(data, "metadata", "name"), data)


def _is_envelope(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("items"), list) and (
        doc.get("kind") == "List" or (doc.get("kind") == "ResourceList"
                                      and str(doc.get("apiVersion", "")).startswith("config.kubernetes.io/")))


_FIELD_SPECS = {"nameReference", "varReference", "namespace", "commonLabels", "commonAnnotations", "namePrefix",
                "nameSuffix", "images", "replicas", "labels"}


def _kustomize_data(objs: list[Obj]) -> set[str]:
    """Paths `render` leaves out beside kustomizations (docs/cli.md): the files a configMapGenerator or
    secretGenerator reads (`files: [[KEY=]FILE]`, `envs:`, `env:`), and files without a kind in a
    kustomization's folder that it does not list and that look like kustomize's own (a `*patch*` name,
    `kustomizeconfig.yaml`, or only field-spec keys with nameReference or varReference)."""
    out: set[str] = set()
    folders: dict[str, Obj] = {}
    for o in objs:
        if not (o.kustomization and o.path and isinstance(o.data, dict)):
            continue
        folder = o.path.rpartition("/")[0]
        folders[folder] = o
        for gen_field in ("configMapGenerator", "secretGenerator"):
            gens = o.data.get(gen_field)
            for gen in gens if isinstance(gens, list) else []:
                if not isinstance(gen, dict):
                    continue
                refs = [e for k in ("files", "envs") if isinstance(gen.get(k), list) for e in gen[k]]
                refs.append(gen.get("env"))
                for ref in refs:
                    if isinstance(ref, str) and ref:
                        out.add(posixpath.normpath(posixpath.join(folder, ref.split("=", 1)[-1])))
    for o in objs:
        if o.kind or not o.path or o.kustomization or o.path.rpartition("/")[0] not in folders:
            continue
        listed = folders[o.path.rpartition("/")[0]].data.get("resources")
        name = o.path.rpartition("/")[2]
        if isinstance(listed, list) and name in listed:
            continue
        keys = set(o.data) - {"metadata"} if isinstance(o.data, dict) else set()
        if "patch" in name.lower() or name in ("kustomizeconfig.yaml", "kustomizeconfig.yml") or (
                keys and keys <= _FIELD_SPECS and keys & {"nameReference", "varReference"}):
            out.add(o.path)
    return out


def stream_objects(docs: list[Any]) -> list[Obj]:
    out = []
    for doc in docs:
        if doc is None:
            continue
        out.extend(obj(d) for d in (doc["items"] if _is_envelope(doc) else [doc]))
    return out


def without_results(out: str) -> str:
    """A KRM output without its results block (the function writes it last, at the root's column)."""
    # Line starts after LF, CRLF or a bare CR (YAML's line breaks; `(?m)^` knows only LF).
    starts = [m.start() for m in re.finditer(r"(?:\A|(?<=[\r\n]))results:", out)]
    # Blanks after the input's last line break (a file cut mid-line) are kept, after the results when there
    # are any: where they stand is no change of content.
    return (out[:starts[-1]] if starts else out).rstrip(" \t")


def _stripped(data: Any) -> Any:
    """What `render` writes of an object: orchestrator annotations gone (and an emptied mapping)."""
    if not isinstance(data, dict) or not isinstance(_get(data, "metadata", "annotations"), dict):
        return data
    ann = {k: v for k, v in data["metadata"]["annotations"].items()
           if not (isinstance(k, str) and k.startswith(INTERNAL))}
    meta = dict(data["metadata"])
    if ann:
        meta["annotations"] = ann
    else:
        meta.pop("annotations")
    return {**data, "metadata": meta}


# --- the invariants -------------------------------------------------------------------------------------

def _not_judged(said: str) -> bool:
    """Whether `said` names a finding that means the run could not judge (exit 2: Spec.could_not_judge)."""
    return any(CATALOGUE[id].could_not_judge for id in re.findall(r"\b(SD[0-9]{3})\b", said) if id in CATALOGUE)


def violations(mode: str, data: bytes, env: dict[str, str] | None = None, fixpoint: bool = True) -> list[str]:
    """What this one run breaks of the promises (empty: none). Runs the function once or twice."""
    try:
        r = run(mode, data, env)
    except Hang:
        return [f"time: over {TIME_LIMIT:.0f} s of CPU"]
    bad = []
    if r.code not in (0, 1, 2):
        bad.append(f"exit: status {r.code}")
    if r.code == 2 and not _not_judged(r.err + r.out):
        bad.append("exit 2 without a finding that says the run could not judge")
    if "Traceback" in r.err:
        bad.append("traceback: " + r.err.strip().splitlines()[-1][:200])
    if "internal error" in r.err:
        bad.append("internal-error: " + r.err.strip().splitlines()[-1][:200])
    if len(r.out) > MAX_GROWTH * len(data) + MAX_EXTRA:
        bad.append(f"size: {len(r.out)} characters out of {len(data)} bytes")
        return bad
    if r.code in (1, 2) and mode == "render" and r.out:
        bad.append("render: output written although it failed")
    # Under kpt (every item has kpt's seqindent annotation) each finding is in the ResourceList's results,
    # which kpt prints, and stderr holds only the summary line, which counts them (issue 29, item 3).
    in_results = mode == "krm" and re.search(r"kaito-specdec: [1-9][0-9]* errors?, .*under kpt's Results", r.err) \
        and "severity: error" in r.out
    if r.code in (1, 2) and not re.search(r"(?m)^(?:\S[^\n]*: )?\[(error|warning)\] ", r.err) and not in_results:
        bad.append("silent-failure: exit 1 without an error or warning on stderr")
    if not r.out:
        if r.code == 0:
            bad.append("empty: exit 0 and nothing written")
        return bad
    status, docs = load_all(r.out)
    if status == SYNTAX:
        return bad + ["output: does not parse"]
    if status != "ok":
        return bad  # a bomb or a recursive merge passed through: nothing more to compare as data
    if mode == "krm":
        docs = [d for d in docs if d is not None]
        if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("kind") not in ("ResourceList", "List"):
            return bad + ["output: not exactly one ResourceList"]
        items = docs[0].get("items")
        if items is not None and not isinstance(items, list):
            return bad + ["output: items is not a list"]
        out_objs = [obj(d) for d in items or []]
    else:
        out_objs = stream_objects(docs)
    try:
        text = data.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError:
        text = None
    status, in_docs = load_all(text) if text is not None else (SYNTAX, [])
    if status != "ok":
        if r.code == 0 and status == SYNTAX:
            bad.append("accepted: exit 0 on input the reference parser refuses")
        return bad
    if mode == "krm":
        root = next((d for d in in_docs if d is not None), None)
        in_objs = [obj(d) for d in root.get("items") or []] if isinstance(root, dict) \
            and isinstance(root.get("items"), list) else []
        if r.code in (1, 2):
            # Never a half-written output: the items as they came in, or nothing.
            if [canonical(o.data) for o in out_objs] != [canonical(o.data) for o in in_objs]:
                bad.append(f"half-written: exit {r.code} and the items changed")
            return bad
    else:
        objs = stream_objects(in_docs)
        kustomize_data = _kustomize_data(objs)
        in_objs = [o for o in objs if not o.local and not (o.path and o.path in kustomize_data)]
        if r.code in (1, 2):
            return bad
    bad += _compare(mode, in_objs, out_objs)
    # kubectl's reading (go-yaml v2; v3 and YAML 1.2 too): a string the function writes plain must read back
    # as that string. A plain look-alike in the output is one the input had as plain text, or it is written.
    written = goyaml.plain_misreadings(r.out) - goyaml.plain_misreadings(text)
    if written:
        bad.append("kubectl: written plain, misread by go-yaml or YAML 1.2: " + ", ".join(map(repr, list(written)[:5])))
    if mode == "krm" and not _raw_copied(text, r.out, in_objs):
        bad.append("bytes: an untargeted item is not byte-identical")
    if fixpoint and not bad:
        again = r.out.encode("utf-8")
        try:
            r2 = run(mode, again, env)
        except Hang:
            return bad + [f"fixpoint: second run over {TIME_LIMIT:.0f} s"]
        if r2.code != 0:
            bad.append(f"fixpoint: second run exits {r2.code}: {r2.err.strip()[:200]}")
        elif (without_results(r2.out) if mode == "krm" else r2.out) != \
                (without_results(r.out) if mode == "krm" else r.out):
            bad.append("fixpoint: a second run changes the output")
    return bad


def _compare(mode: str, in_objs: list[Obj], out_objs: list[Obj]) -> list[str]:
    bad = []
    out_by_key: dict[tuple, list[Obj]] = collections.defaultdict(list)
    for o in out_objs:
        out_by_key[o.key].append(o)
    in_count = collections.Counter(o.key for o in in_objs)
    for key, objs in out_by_key.items():
        if len(objs) > max(1, in_count[key]):
            bad.append(f"duplicate: {len(objs)} output objects are {key}")
    for o in in_objs:
        found = out_by_key.get(o.key, [])
        if not found:
            if not o.derived:
                bad.append(f"lost: {o.key}")
            continue
        if mode == "krm" and o.internal() and not any(f.internal() == o.internal() for f in found):
            bad.append(f"internal-annotation: changed on {o.key}")
        if not o.targeted:
            want = canonical(o.data if mode == "krm" else _stripped(o.data))
            if not any(canonical(f.data) == want for f in found):
                bad.append(f"changed: untargeted {o.key}")
    bad += _retired_in_use(in_objs, out_objs)
    if mode == "render":
        for o in out_objs:
            if o.internal():
                bad.append(f"render: orchestrator annotation left on {o.key}")
            if o.local:
                bad.append(f"render: local config written {o.key}")
    return bad


def _strings(data: Any) -> list[str]:
    """Every key and string below `data` (each shared or recursive object once)."""
    out: list[str] = []
    seen: set[int] = set()
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif id(x) not in seen and isinstance(x, (dict, list)):
            seen.add(id(x))
            stack.extend([v for kv in x.items() for v in kv] if isinstance(x, dict) else x)
    return out


def _retired_in_use(in_objs: list[Obj], out_objs: list[Obj]) -> list[str]:
    """Every mention of a retired object is found: a derived ConfigMap the output drops is named by no
    other object, as YAML composes it (escapes decoded, aliases and merge keys followed), in any key or
    string, as a whole word (README: kept "while another object such as a Deployment still mentions it").
    Any namespace: keeping one too many is safe, dropping one in use is not."""
    left = {o.name for o in out_objs if o.kind == "ConfigMap" and isinstance(o.name, str)}
    dropped = {o.name for o in in_objs if o.kind == "ConfigMap" and isinstance(o.name, str) and o.derived
               and o.name not in left}
    if not dropped:
        return []
    bad = []
    for name in sorted(dropped):
        word = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
        user = next((u for u in out_objs if not u.derived and any(word.search(s) for s in _strings(u.data))), None)
        if user is not None:
            bad.append(f"retired-in-use: derived ConfigMap {name!r} dropped, but {user.kind} {user.name!r} names it")
    return bad


def _raw_copied(text: str, out: str, in_objs: list[Obj]) -> bool:
    """Every untargeted item of a block-style ResourceList appears in the output as the same lines.

    The item's lines are found independently of the function's reader: from its `- ` entry at the
    items' indentation to the next one (or the next line indented less)."""
    if all(o.targeted for o in in_objs) or "&" in text or re.search(r"(?m)^items:\s*[\[{]", text) or \
            text.lstrip().startswith(("{", "[")):
        return True
    lines = text.splitlines(True)
    entries: list[list[str]] = []
    col = None
    for ln in lines:
        if col is None:
            if re.match(r"items:\s*(#.*)?$", ln.rstrip("\r\n")):
                col = -1
            continue
        body = ln.lstrip(" ")
        indent = len(ln) - len(body)
        if col == -1 and body.startswith("- "):
            col = indent
        if col >= 0 and indent == col and (body.startswith("- ") or body.rstrip("\r\n") == "-"):
            entries.append([ln])
        elif col >= 0 and entries and (indent > col or not body.strip() or body.startswith("#")):
            entries[-1].append(ln)
        elif col >= 0 and body.strip():
            break
    if len(entries) != len(in_objs):
        return True  # a layout this simple splitter does not follow: the data checks still hold
    for o, entry in zip(in_objs, entries, strict=True):
        while entry and (not entry[-1].strip() or entry[-1].lstrip().startswith("#")):
            entry.pop()
        if not o.targeted and "".join(entry).rstrip("\r\n") not in out:
            return False
    return True


# --- mutations ----------------------------------------------------------------------------------------

# Every key the function reads somewhere (kinds.py, index.py, config.py, reader.py, inference_config.py).
READ_FIELDS = ["apiVersion", "kind", "metadata", "name", "namespace", "annotations", "labels",
               "ownerReferences", "controller", "generateName", "inference", "preset", "config", "template",
               "spec", "roles", "runtimeConfig", "model", "data", "inference_config.yaml", "vllm",
               "speculative-config", "items", "functionConfig", "mode", "failOn", "tunedPresets",
               "ngramFallback", "kaito.sh/enable-speculative-decoding", "kaito.sh/runtime",
               "kaito-specdec.dev/derived", "kaito-specdec.dev/source-configmap",
               "config.kubernetes.io/local-config", "internal.config.kubernetes.io/path",
               "internal.config.kubernetes.io/index", "internal.config.kubernetes.io/previousNames",
               "inferenceset.kaito.sh/created-by", "multiroleinference.kaito.sh/created-by"]
WRONG_VALUES = ["[]", "{}", "[a, 1]", "{a: b}", "12", "-1", "1.5", "true", "false", "null", "~", "''",
                "!!binary aGVsbG8=", "2024-01-01", ".nan", "0x1F", "'true'", "\"\""]
TAGS = ["!foo", "!!str", "!!int", "!!map", "!!seq", "!!binary", "!!timestamp", "!!set", "!<tag:x>",
        "!!python/object:os.system", "!!float", "!!null", "!!bool", "!!omap"]


def _lines(text: str) -> list[str]:
    return text.splitlines(True)


def _value_lines(lines: list[str]) -> list[int]:
    return [i for i, ln in enumerate(lines) if re.match(r"\s*(- )?[^#\s][^:#]*:( |\r?\n|$)", ln)]


def m_truncate(rng: random.Random, b: bytes) -> bytes:
    return b[:rng.randrange(len(b) + 1)]


def m_truncate_line(rng: random.Random, b: bytes) -> bytes:
    """Cut at a line end: what is left ends with its newline."""
    ends = [m.end() for m in re.finditer(rb"\n", b)]
    return b[:rng.choice(ends)] if ends else b


def m_flip(rng: random.Random, b: bytes) -> bytes:
    a = bytearray(b)
    for _ in range(rng.randint(1, 3)):
        if a:
            a[rng.randrange(len(a))] ^= 1 << rng.randrange(8)
    return bytes(a)


def m_ascii_flip(rng: random.Random, b: bytes) -> bytes:
    """A printable character replaced by another one of YAML's indicators (stays UTF-8)."""
    a = bytearray(b)
    if a:
        a[rng.randrange(len(a))] = ord(rng.choice(":-?[]{},#&*!|>'\"%@` \n"))
    return bytes(a)


def m_tab(rng: random.Random, b: bytes) -> bytes:
    lines = _lines(b.decode("utf-8", "replace"))
    if not lines:
        return b
    i = rng.randrange(len(lines))
    ln = lines[i]
    if ln.startswith(" "):
        lines[i] = "\t" + ln[1:] if rng.random() < 0.5 else ln.replace(": ", ":\t", 1)
    else:
        lines[i] = ln.replace(": ", ":\t", 1) if ": " in ln else "\t" + ln
    return "".join(lines).encode()


def m_crlf(rng: random.Random, b: bytes) -> bytes:
    return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def m_cr(rng: random.Random, b: bytes) -> bytes:
    return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def m_cr_one(rng: random.Random, b: bytes) -> bytes:
    idx = [m.start() for m in re.finditer(b"\n", b)]
    if not idx:
        return b
    i = rng.choice(idx)
    return b[:i] + b"\r" + b[i + 1:]


def m_bom(rng: random.Random, b: bytes) -> bytes:
    return b"\xef\xbb\xbf" + b


def m_bom_inside(rng: random.Random, b: bytes) -> bytes:
    i = rng.randrange(len(b) + 1)
    return b[:i] + b"\xef\xbb\xbf" + b[i:]


def m_nul(rng: random.Random, b: bytes) -> bytes:
    i = rng.randrange(len(b) + 1)
    return b[:i] + b"\x00" + b[i:]


def m_no_final_newline(rng: random.Random, b: bytes) -> bytes:
    return b.rstrip(b"\r\n")


def _edit_value(rng: random.Random, b: bytes, make: Callable[[str, str], str | None],
                only: list[str] | None = None) -> bytes:
    text = b.decode("utf-8", "replace")
    lines = _lines(text)
    idx = _value_lines(lines)
    if only is not None:
        idx = [i for i in idx if lines[i].strip().lstrip("- ").split(":", 1)[0].strip("\"'") in only]
    if not idx:
        return b
    i = rng.choice(idx)
    head, _, rest = lines[i].partition(":")
    new = make(head, rest)
    if new is not None:
        lines[i] = new
    return "".join(lines).encode()


def m_anchor_alias(rng: random.Random, b: bytes) -> bytes:
    """An anchor on one value, an alias to it in place of another (a small DAG, shared or not)."""
    text = b.decode("utf-8", "replace")
    lines = _lines(text)
    idx = [i for i in _value_lines(lines) if lines[i].partition(":")[2].strip()]
    if len(idx) < 2:
        return b
    i, j = sorted(rng.sample(idx, 2))
    if rng.random() < 0.5:
        i, j = j, i  # an alias before its anchor: an error
    head, _, rest = lines[i].partition(":")
    lines[i] = f"{head}: &x{i} {rest.lstrip()}"
    head, _, rest = lines[j].partition(":")
    end = "\r\n" if rest.endswith("\r\n") else "\n"
    lines[j] = f"{head}: *x{i}{end}"
    return "".join(lines).encode()


def m_anchor_block(rng: random.Random, b: bytes) -> bytes:
    """An anchor on a whole block mapping (a key with nothing after its colon) and a merge or alias of it."""
    text = b.decode("utf-8", "replace")
    lines = _lines(text)
    idx = [i for i in _value_lines(lines) if not lines[i].partition(":")[2].strip()]
    if not idx:
        return b
    i = rng.choice(idx)
    head, _, rest = lines[i].partition(":")
    lines[i] = f"{head}: &blk{i}{rest}"
    later = [j for j in _value_lines(lines) if j > i + 1]
    if later:
        j = rng.choice(later)
        indent = len(lines[j]) - len(lines[j].lstrip(" -"))
        key = rng.choice(["<<", "copy"])
        lines.insert(j, " " * indent + f"{key}: *blk{i}\n")
    return "".join(lines).encode()


def m_tag(rng: random.Random, b: bytes) -> bytes:
    tag = rng.choice(TAGS)
    return _edit_value(rng, b, lambda head, rest: f"{head}: {tag} {rest.lstrip()}" if rest.strip()
                       else f"{head}: {tag}{rest}")


def m_wrong_type(rng: random.Random, b: bytes) -> bytes:
    """A field the function reads given a value of another type (inline: the block below it, if any,
    then parses as an error or a sibling, which is hostile input too)."""
    value = rng.choice(WRONG_VALUES)

    def make(head: str, rest: str) -> str:
        end = "\r\n" if rest.endswith("\r\n") else "\n"
        return f"{head}: {value}{end}"
    return _edit_value(rng, b, make, READ_FIELDS)


def m_wrong_type_tree(rng: random.Random, b: bytes) -> bytes:
    """The same, structurally: the input re-written with one read field of the wrong type anywhere."""
    _, docs = load_all(b.decode("utf-8", "replace"))
    if not docs:
        return b
    spots: list[tuple[dict, Any]] = []

    def walk(x: Any, depth: int = 0) -> None:
        if depth > 30:
            return
        if isinstance(x, dict):
            for k, v in x.items():
                if k in READ_FIELDS:
                    spots.append((x, k))
                walk(v, depth + 1)
        elif isinstance(x, list):
            for v in x:
                walk(v, depth + 1)
    walk(docs)
    if not spots:
        return b
    parent, key = rng.choice(spots)
    parent[key] = rng.choice([[], {}, ["a", 1], {"a": "b"}, 12, -1, 1.5, True, False, None, "", "x" * 300,
                              {"nested": {"deep": [1, {"x": None}]}}])
    try:
        return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, allow_unicode=True).encode()
    except yaml.YAMLError:
        return b


def wrong_type_variants(data: bytes, values: tuple = ([], {}, 12, None), each: int | None = None) -> list[tuple[str, bytes]]:
    """Every read field of every document, each given each wrong value in turn: (where, input). `each`: only
    that many of the values per field, the n-th field starting at the n-th value (every value still used)."""
    status, docs = load_all(data.decode("utf-8"))
    if status != "ok":
        return []
    paths: list[tuple] = []

    def walk(x: Any, path: tuple) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if k in READ_FIELDS:
                    paths.append(path + (k,))
                walk(v, path + (k,))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, path + (i,))
    walk(docs, ())
    out = []
    plain = json.dumps(docs, default=str)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the same data as safe_load, at C speed
    for n, path in enumerate(paths):
        chosen = 0
        for value in values if each is None else values[n % len(values):] + values[:n % len(values)]:
            if each is not None and chosen == each:
                break
            copy = yaml.load(plain, Loader=loader)  # a deep copy of plain data
            parent = copy
            for part in path[:-1]:
                parent = parent[part]
            if parent[path[-1]] == value:
                continue
            chosen += 1
            parent[path[-1]] = value
            where = "/".join(str(p) for p in path) + f"={json.dumps(value)}"
            out.append((where, yaml.safe_dump_all(copy, sort_keys=False).encode()))
    return out


def m_duplicate_line(rng: random.Random, b: bytes) -> bytes:
    lines = _lines(b.decode("utf-8", "replace"))
    idx = _value_lines(lines)
    if not idx:
        return b
    i = rng.choice(idx)
    lines.insert(i, lines[i])
    return "".join(lines).encode()


def m_duplicate_items_key(rng: random.Random, b: bytes) -> bytes:
    """A second `items:` in the ResourceList (issue 10, failure 8)."""
    return b + b"items:\n- {apiVersion: v1, kind: Namespace, metadata: {name: second}}\n"


def m_json(rng: random.Random, b: bytes) -> bytes:
    """The input as one-line JSON (kubectl get -o json | …, issue 10 failure 4)."""
    docs = [d for d in load_all(b.decode("utf-8", "replace"))[1] if d is not None]
    if not docs:
        return b
    try:
        return "\n".join(json.dumps(d, default=str, separators=(", ", ": ")) for d in docs).encode() + b"\n"
    except (TypeError, ValueError):
        return b


def m_alias_bomb(rng: random.Random, b: bytes) -> bytes:
    """A few hundred bytes that expand to millions of nodes, put at one field (issue 10, failure 1)."""
    bomb = "[&b0 [x, x, x, x, x, x, x, x, x]" + "".join(
        f", &b{i} [*b{i - 1}, *b{i - 1}, *b{i - 1}, *b{i - 1}, *b{i - 1}, *b{i - 1}, *b{i - 1}, *b{i - 1}]"
        for i in range(1, 8)) + "]"
    return _edit_value(rng, b, lambda head, rest: f"{head}: {bomb}\n" if rest.strip() else None)


def m_deep(rng: random.Random, b: bytes) -> bytes:
    depth = rng.choice([200, 2000, 30000])
    return _edit_value(rng, b, lambda head, rest: f"{head}: {'[' * depth}{']' * depth}\n")


def m_big_int(rng: random.Random, b: bytes) -> bytes:
    return _edit_value(rng, b, lambda head, rest: f"{head}: {'9' * 5000}\n")


def m_complex_key(rng: random.Random, b: bytes) -> bytes:
    return _edit_value(rng, b, lambda head, rest: f"{head}: {{[a, b]: c}}\n")


def m_swap_items(rng: random.Random, b: bytes) -> bytes:
    """Two documents or list entries swapped, or one repeated (the same object twice)."""
    text = b.decode("utf-8", "replace")
    parts = re.split(r"(?m)(?=^- )", text) if re.search(r"(?m)^- ", text) else re.split(r"(?m)(?=^---)", text)
    if len(parts) < 3:
        return b
    head, body = parts[0], parts[1:]
    if rng.random() < 0.5:
        i, j = rng.randrange(len(body)), rng.randrange(len(body))
        body[i], body[j] = body[j], body[i]
    else:
        body.insert(rng.randrange(len(body) + 1), rng.choice(body))
    tail = "".join(body)
    if not tail.endswith("\n"):
        tail += "\n"
    return (head + tail).encode()


def m_long_name(rng: random.Random, b: bytes) -> bytes:
    return _edit_value(rng, b, lambda head, rest: f"{head}: {'n' * rng.choice([63, 64, 253, 254, 1000])}\n",
                       ["name", "config", "runtimeConfig"])


# Keys whose values decide what the function does, and values worth trying there.
SEMANTIC_KEYS = {"name", "namespace", "config", "runtimeConfig", "kaito.sh/enable-speculative-decoding",
                 "kaito.sh/runtime", "kaito-specdec.dev/derived", "kaito-specdec.dev/source-configmap",
                 "inferenceset.kaito.sh/created-by", "multiroleinference.kaito.sh/created-by", "kind",
                 "apiVersion", "controller", "mode", "failOn", "config.kubernetes.io/local-config"}
SEMANTIC_VALUES = ['"true"', '"false"', "true", '"True"', "transformers", "vllm", "phi-4", "deepseek-r1-0528",
                   "Qwen/Qwen3.5-4B", "v1", "kaito.sh/v1beta1", "kaito.sh/v1alpha1", "ConfigMap", "Workspace",
                   "InferenceSet", "MultiRoleInference", "validate", "warning", "default", "other-ns"]


def m_semantic(rng: random.Random, b: bytes) -> bytes:
    """A value that decides something replaced by another meaningful one: a name found elsewhere in the
    input (another ConfigMap, a derived name, a parent), a preset, true/false, another kind."""
    text = b.decode("utf-8", "replace")
    found = re.findall(r"(?m)^\s*(?:- )?(?:name|config|runtimeConfig|namespace|[\w.]+/created-by):[ \t]*"
                       r"([\w./-]+)[ \t]*\r?$", text)
    pool = SEMANTIC_VALUES + found

    def make(head: str, rest: str) -> str:
        end = "\r\n" if rest.endswith("\r\n") else "\n"
        return f"{head}: {rng.choice(pool)}{end}"
    return _edit_value(rng, b, make, list(SEMANTIC_KEYS))


def m_drop_line(rng: random.Random, b: bytes) -> bytes:
    """A key the function reads deleted (with its block, when it has one)."""
    lines = _lines(b.decode("utf-8", "replace"))
    idx = [i for i in _value_lines(lines)
           if lines[i].strip().lstrip("- ").split(":", 1)[0].strip("\"'") in READ_FIELDS]
    if not idx:
        return b
    i = rng.choice(idx)
    indent = len(lines[i]) - len(lines[i].lstrip(" "))
    if lines[i].lstrip().startswith("- "):
        return "".join(lines).encode()  # the first key of an entry: dropping it changes the layout too much
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip(" ")) > indent):
        j += 1
    del lines[i:j]
    return "".join(lines).encode()


def m_enable(rng: random.Random, b: bytes) -> bytes:
    """Speculative decoding switched on (or off) in one `metadata:` block: what a user does to a tree."""
    lines = _lines(b.decode("utf-8", "replace"))
    blocks = [i for i, ln in enumerate(lines) if re.match(r"\s*(- )?metadata:[ \t]*\r?$", ln)]
    if not blocks:
        return b
    i = rng.choice(blocks)
    end = "\r\n" if lines[i].endswith("\r\n") else "\n"
    nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
    if nxt is None:
        return b
    col = len(lines[nxt]) - len(lines[nxt].lstrip(" "))
    value = rng.choice(['"true"', '"true"', '"false"'])
    entry = f"kaito.sh/enable-speculative-decoding: {value}{end}"
    j = nxt
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip(" ")) >= col):
        if len(lines[j]) - len(lines[j].lstrip(" ")) == col and re.match(r"\s*annotations:[ \t]*\r?$", lines[j]):
            lines.insert(j + 1, " " * (col + 2) + entry)
            return "".join(lines).encode()
        j += 1
    lines.insert(nxt, " " * col + "annotations:" + end + " " * (col + 2) + entry)
    return "".join(lines).encode()


MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "truncate": m_truncate, "truncate-line": m_truncate_line, "flip": m_flip, "ascii-flip": m_ascii_flip, "tab": m_tab, "crlf": m_crlf,
    "cr": m_cr, "cr-one": m_cr_one, "bom": m_bom, "bom-inside": m_bom_inside, "nul": m_nul,
    "no-final-newline": m_no_final_newline, "anchor-alias": m_anchor_alias, "anchor-block": m_anchor_block,
    "tag": m_tag, "wrong-type": m_wrong_type, "wrong-type-tree": m_wrong_type_tree,
    "duplicate-line": m_duplicate_line, "duplicate-items-key": m_duplicate_items_key, "json": m_json,
    "alias-bomb": m_alias_bomb, "deep": m_deep, "big-int": m_big_int, "complex-key": m_complex_key,
    "swap-items": m_swap_items, "long-name": m_long_name, "semantic": m_semantic, "drop-line": m_drop_line,
    "enable": m_enable,
}


# --- seeds and the driver -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Seed:
    name: str
    mode: str
    data: bytes
    env: dict


def seeds() -> list[Seed]:
    """Every fixture: its ResourceList (KRM mode) and its plain stream or ResourceList (render)."""
    out = []
    for case in golden.cases():
        env = golden.case_env(case)
        out.append(Seed(case, "krm", golden.case_input(case).encode(), env))
        d = golden.ROOT / case
        stream = (d / "items.yaml") if (d / "items.yaml").exists() else (d / "input.yaml")
        out.append(Seed(case, "render", stream.read_bytes(), env))
    return out


def corpus_seeds(folder: Path) -> list[Seed]:
    """Every *.yaml/*.yml under `folder` (real trees nobody here tuned for): as a file for `render`, and
    wrapped into a ResourceList for the KRM mode."""
    out = []
    for f in sorted(folder.rglob("*")):
        if f.suffix not in (".yaml", ".yml") or not f.is_file():
            continue
        data = f.read_bytes()
        name = str(f.relative_to(folder))
        out.append(Seed(name, "render", data, {}))
        try:
            out.append(Seed(name, "krm", golden.wrap(data.decode("utf-8")).encode(), {}))
        except (UnicodeDecodeError, IndexError):
            pass
    return out


@dataclass
class Finding:
    seed: str
    mode: str
    mutations: tuple[str, ...]
    data: bytes
    problems: list[str]

    def line(self) -> str:
        return f"{self.mode} {self.seed} +{'+'.join(self.mutations) or 'none'}: " \
               + "; ".join(self.problems)


def mutate(rng: random.Random, data: bytes, classes: list[str], most: int = 3) -> tuple[bytes, tuple[str, ...]]:
    chosen = tuple(rng.choice(classes) for _ in range(min(most, rng.choice([1, 1, 1, 2, 3]))))
    for name in chosen:
        data = MUTATIONS[name](rng, data)
    return data, chosen


def fuzz(iterations: int, seed: int, classes: list[str], modes: list[str], fixpoint: bool = True, most: int = 3,
         isolate: bool = False, skip: frozenset = frozenset(), extra: list[Seed] | None = None,
         progress: Callable[[int, Finding | None], None] | None = None) -> list[Finding]:
    """`iterations` mutated inputs, deterministic for a given seed; every one that breaks a promise."""
    rng = random.Random(seed)
    pool = [s for s in seeds() + (extra or []) if s.mode in modes and (s.mode, s.name) not in skip]
    found = []
    for n in range(iterations):
        s = rng.choice(pool)
        data, chosen = mutate(rng, s.data, classes, most)
        problems = (isolated if isolate else violations)(s.mode, data, s.env, fixpoint)
        f = Finding(s.name, s.mode, chosen, data, problems) if problems else None
        if f:
            found.append(f)
        if progress:
            progress(n, f)
    return found


def stable_rng(*parts: object) -> random.Random:
    """A generator that depends on `parts` alone (never on what else is in the pool), the same on every run."""
    digest = hashlib.sha256("\0".join(map(str, parts)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def share_of(s: Seed, shares: int) -> int:
    """Which of `shares` disjoint parts a seed belongs to: by its name and mode, not its place in the pool."""
    return stable_rng("share", s.mode, s.name).randrange(shares)


def fuzz_each(per_seed: int, seed: int, classes: list[str], modes: list[str], share: tuple[int, int] = (0, 1),
              fixpoint: bool = True, most: int = 3, skip: frozenset = frozenset()) -> list[Finding]:
    """`per_seed` mutated inputs of every seed in share `share` = (i, n), input k of a seed drawn from a
    generator of (seed, mode, fixture name, k) alone: adding, removing or renaming a fixture changes no
    other fixture's inputs (a global sequence reshuffles them all, and finds old failures as new ones)."""
    i, n = share
    pool = [s for s in seeds() if s.mode in modes and (s.mode, s.name) not in skip and share_of(s, n) == i]
    found = []
    for s in pool:
        for k in range(per_seed):
            rng = stable_rng(seed, s.mode, s.name, k)
            data, chosen = mutate(rng, s.data, classes, most)
            problems = violations(s.mode, data, s.env, fixpoint)
            if problems:
                found.append(Finding(s.name, s.mode, chosen, data, problems))
    return found


def main_fuzz(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--iterations", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--classes", default=",".join(MUTATIONS), help="mutation classes, comma-separated")
    p.add_argument("--modes", default="krm,render")
    p.add_argument("--corpus", metavar="DIR", action="append", default=[],
                   help="more seeds: every YAML file under DIR (e.g. tests/corpus)")
    p.add_argument("--max-mutations", type=int, default=3, help="mutations per input, at most")
    p.add_argument("--in-process", action="store_true",
                   help="run every input in this process (faster; a crash ends the pass)")
    p.add_argument("--out", default="fuzz-failures", help="folder for the inputs that break a promise")
    args = p.parse_args(argv)
    classes = args.classes.split(",")
    unknown = [c for c in classes if c not in MUTATIONS]
    if unknown:
        p.error(f"unknown mutation classes: {', '.join(unknown)}; known: {', '.join(MUTATIONS)}")
    out = Path(args.out)
    kinds: collections.Counter = collections.Counter()
    start = time.monotonic()

    def progress(n: int, f: Finding | None) -> None:
        if f is not None:
            kinds.update(p.split(":")[0] for p in f.problems)
            out.mkdir(parents=True, exist_ok=True)
            name = f"{n:06d}-{f.mode}-{f.seed}-{'+'.join(f.mutations)}"
            (out / (name + ".input")).write_bytes(f.data)
            (out / (name + ".txt")).write_text(f.line() + "\n", encoding="utf-8")
            print(f.line()[:300], flush=True)
        if (n + 1) % 1000 == 0:
            print(f"# {n + 1} inputs, {time.monotonic() - start:.0f} s, failures by kind: {dict(kinds)}",
                  file=sys.stderr, flush=True)

    found = fuzz(args.iterations, args.seed, classes, args.modes.split(","), most=args.max_mutations,
                 isolate=not args.in_process, extra=[s for d in args.corpus for s in corpus_seeds(Path(d))],
                 progress=progress)
    print(f"# {args.iterations} inputs, {len(found)} broke a promise ({dict(kinds)}); inputs in {out}/",
          file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main_fuzz())
