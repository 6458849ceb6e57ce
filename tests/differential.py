"""A differential fuzzer with the real readers as its oracle (issue #40, ask 3).

Inputs are mutated from the fixtures' streams and tests/corpus/ (tags, anchors and aliases in every position,
explicit keys, merge keys, numbers in every spelling, byte-order marks, directives, JSON and flow starts,
indentation, quoting and line-break variants), then each is read three ways:

- kubectl: `kubectl label --local -f DIR x=y -o json` over many files at once (as `kubectl apply` and Argo CD
  read: sigs.k8s.io/yaml, go-yaml v2); a sentinel ConfigMap file after each input tells whose objects are whose,
  and stderr names each file kubectl refuses;
- kustomize: `kubectl kustomize` of a kustomization listing one folder per input (each its own `namePrefix`, so
  that copies of one object do not collide; taken off again), its output read by kubectl as above (what
  `kustomize build | kubectl apply -f -` sends); a folder kustomize refuses is named in its error and left out,
  and the batch built again;
- the function: its reader (`read_stream`: each item's identity and opt-in from the walk, its data composed)
  and a `render` of the file, whose exit status and SD0xx warnings say whether it refused or warned.

Per object the readings compared are its identity (apiVersion, kind, name, namespace), its opt-in annotation
wherever the kind reads it, and the fields a check reads (krm_fn/domain/kinds.py and plain_kinds.py: preset
names, config references, integer fields, KServe's pipeline stages, each pod template's containers' names,
images, commands and arguments), integers as the cluster reads them (kinds.integer). A disagreement (kubectl
and kustomize read the file apart, or the function reads it otherwise than they do, or reads what both refuse)
is a failure unless the function refused the file or warned about its reading.

    python tests/differential.py -n 2000 --seed 7      # KAITO_SPECDEC_DIFF_SEED / KAITO_SPECDEC_DIFF_N likewise

prints the seed, and each failure with its input (repr of the bytes). tests/e2e/test_e2e_differential.py runs it
in the deep pass.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from krm_fn.domain import kinds, plain_kinds  # noqa: E402
from krm_fn.text import reader  # noqa: E402
from krm_fn.text.items import InputError, ItemError  # noqa: E402
from runner import run as run_function  # noqa: E402

OPT_IN = "kaito.sh/enable-speculative-decoding"
SEED_ENV, N_ENV = "KAITO_SPECDEC_DIFF_SEED", "KAITO_SPECDEC_DIFF_N"
DEFAULT_N = 10000
# CI's deep pass tries the same inputs every run, so that a red run is a change's and not the draw's; a seed of
# one's own (KAITO_SPECDEC_DIFF_SEED, or `python tests/differential.py` with none) explores further.
DEFAULT_SEED = 2
BATCH = 250          # inputs per kubectl call
KUSTOMIZE_BATCH = 40  # folders per kustomize build
KUSTOMIZE_TIMEOUT = 30  # seconds: a batch that takes longer is split (an input kustomize never finishes)
REFUSED = None

# --- the inputs ------------------------------------------------------------------------------------------------

# Seeds: what kubectl and kustomize can both take as a resource file (no ResourceList, no kustomize or kpt
# configuration, which kustomize reads otherwise).
_SKIP = re.compile(r"kind: *(ResourceList|Kustomization|Kptfile|Component)|kustomize\.config\.k8s\.io|"
                   r"config\.kubernetes\.io/local-config|^items:", re.M)


def seeds() -> list[bytes]:
    out = []
    for path in sorted((ROOT / "fixtures").glob("*/items.yaml")) + sorted((HERE / "corpus").rglob("*.yaml")):
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        if len(data) < 20000 and not _SKIP.search(text) and "kind:" in text:
            out.append(data)
    return out


def _lines(text: str) -> list[str]:
    return text.splitlines(True)


_KEY_LINE = re.compile(r"^( *)(- +)?([A-Za-z0-9_./-]+|\"[^\"]*\"|'[^']*'):( +|$)(.*?)(\r?\n)?$", re.S)


def _entries(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    return [(i, m) for i, ln in enumerate(lines) if (m := _KEY_LINE.match(ln)) and not ln.lstrip().startswith("#")]


def _scalar_entries(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    return [(i, m) for i, m in _entries(lines) if m.group(5).strip() and m.group(5).strip()[0] not in "|>#&*!{["]


def _set(lines: list[str], i: int, m: re.Match[str], key: str | None = None, value: str | None = None) -> None:
    indent, dash, k, sp, v, nl = m.group(1), m.group(2) or "", m.group(3), m.group(4), m.group(5), m.group(6) or ""
    lines[i] = f"{indent}{dash}{k if key is None else key}:{sp or ' '}{v if value is None else value}{nl}"


def _edit(b: bytes, fn: Callable[[list[str], random.Random], None], rng: random.Random) -> bytes:
    lines = _lines(b.decode("utf-8", "replace"))
    fn(lines, rng)
    return "".join(lines).encode("utf-8", "surrogatepass")


TAGS = ["!!str", "!!int", "!!float", "!!bool", "!!null", "!foo", "!", "!!binary", "!!timestamp",
        "!<tag:yaml.org,2002:str>", "!!map", "!!seq", "!!set", "!!merge"]


def m_tag(rng: random.Random, b: bytes) -> bytes:
    """A tag on a value, or on a key."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _entries(lines)
        if entries:
            i, m = rng.choice(entries)
            tag = rng.choice(TAGS)
            if rng.random() < 0.3:
                _set(lines, i, m, key=f"{tag} {m.group(3)}")
            else:
                _set(lines, i, m, value=f"{tag} {m.group(5)}".rstrip())
    return _edit(b, fn, rng)


def m_anchor_alias(rng: random.Random, b: bytes) -> bytes:
    """An anchor on a value or a key, an alias in place of another value or key, before or after it."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _scalar_entries(lines)
        if len(entries) < 2:
            return
        (i, m), (j, n) = rng.sample(entries, 2)
        on_key, to_key = rng.random() < 0.3, rng.random() < 0.3
        if on_key:
            _set(lines, i, m, key=f"&a{i} {m.group(3)}")
        else:
            _set(lines, i, m, value=f"&a{i} {m.group(5)}")
        if to_key:
            _set(lines, j, n, key=f"*a{i} ")
        else:
            _set(lines, j, n, value=f"*a{i}")
    return _edit(b, fn, rng)


def m_anchor_block(rng: random.Random, b: bytes) -> bytes:
    """An anchor on a block (a key with nothing after its colon) and a merge key or an alias of it later."""
    def fn(lines: list[str], rng: random.Random) -> None:
        blocks = [(i, m) for i, m in _entries(lines) if not m.group(5).strip()]
        if not blocks:
            return
        i, m = rng.choice(blocks)
        _set(lines, i, m, value=f"&b{i}")
        later = [(j, n) for j, n in _entries(lines) if j > i + 1]
        if later:
            j, n = rng.choice(later)
            indent = " " * (len(n.group(1)) + len(n.group(2) or ""))
            key = rng.choice(["<<", "<<", "copy", "metadata", "annotations"])
            lines.insert(j + rng.choice([0, 1]), f"{indent}{key}: *b{i}\n")
    return _edit(b, fn, rng)


def m_explicit_key(rng: random.Random, b: bytes) -> bytes:
    """`key: value` written `? key` / `: value`, or `? key` with no value at all."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _scalar_entries(lines)
        if entries:
            i, m = rng.choice(entries)
            indent = m.group(1) + (" " * len(m.group(2)) if m.group(2) else "")
            first = m.group(1) + (m.group(2) or "")
            nl = m.group(6) or "\n"
            if rng.random() < 0.3:
                lines[i] = f"{first}? {m.group(3)}{nl}"
            else:
                lines[i] = f"{first}? {m.group(3)}{nl}{indent}: {m.group(5)}{nl}"
    return _edit(b, fn, rng)


def m_merge(rng: random.Random, b: bytes) -> bytes:
    """An entry moved into a merge key's flow mapping (`<<: {k: v}`), before or after a key it may set."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _scalar_entries(lines)
        if entries:
            i, m = rng.choice(entries)
            if m.group(2):
                return
            lines[i] = f"{m.group(1)}<<: {{{m.group(3)}: {m.group(5)}}}{m.group(6) or ''}"
            if rng.random() < 0.3:
                lines.insert(i, f"{m.group(1)}{m.group(3)}: other\n")
    return _edit(b, fn, rng)


NUMBERS = ["2.0", "2e0", "2E0", "!!float 2", "+2", "0x2", "0o2", "02", "2_0", "0b10", "2.", ".5", "-1.0", "1e21",
           "1e400", ".nan", ".inf", "-.Inf", "2.5", "25e-1", "!!int 2", "\"2\"", "0", "-0", "9223372036854775808"]


def m_number(rng: random.Random, b: bytes) -> bytes:
    """A number (or any value) in another spelling."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _scalar_entries(lines)
        numeric = [(i, m) for i, m in entries if re.fullmatch(r"-?[0-9]+", m.group(5).strip())]
        pool = numeric if numeric and rng.random() < 0.8 else entries
        if pool:
            i, m = rng.choice(pool)
            _set(lines, i, m, value=rng.choice(NUMBERS))
    return _edit(b, fn, rng)


QUOTINGS = [lambda v: f"'{v}'", lambda v: f'"{v}"', lambda v: v.strip("'\""),
            lambda v: "|-\n" + v.strip("'\""), lambda v: f'"{v.strip(chr(34))}\\\n  "']


def m_quote(rng: random.Random, b: bytes) -> bytes:
    """A value in another quoting (plain, single, double, a block scalar, a double-quoted line continuation)."""
    def fn(lines: list[str], rng: random.Random) -> None:
        entries = _scalar_entries(lines)
        if entries:
            i, m = rng.choice(entries)
            v = m.group(5).split(" #")[0].strip()
            if "\n" in v or "'" in v.strip("'") or '"' in v.strip('"'):
                return
            new = rng.choice(QUOTINGS)(v)
            if new.startswith("|-"):
                indent = " " * (len(m.group(1)) + len(m.group(2) or "") + 2)
                new = "|-\n" + indent + new[3:]
            _set(lines, i, m, value=new)
    return _edit(b, fn, rng)


def m_bom(rng: random.Random, b: bytes) -> bytes:
    """A byte-order mark at the start, after a `---`, or at the start of any line."""
    lines = _lines(b.decode("utf-8", "replace"))
    where = rng.choice(["start", "doc", "line"])
    if where == "start" or not lines:
        return "\ufeff".encode() + b
    if where == "doc":
        docs = [i for i, ln in enumerate(lines) if ln.startswith("---")]
        if docs:
            i = rng.choice(docs)
            lines.insert(i + 1, "\ufeff")
            return "".join(lines).encode()
    i = rng.randrange(len(lines))
    lines[i] = "\ufeff" + lines[i]
    return "".join(lines).encode()


DIRECTIVES = ["%YAML 1.1\n---\n", "%YAML 1.2\n---\n", "%TAG !e! tag:example.com,2000:\n---\n", "---\n",
              "--- # start\n", "...\n", "# comment\n---\n"]


def m_directive(rng: random.Random, b: bytes) -> bytes:
    """A directive, a document start or end marker, at the start or between documents."""
    text = b.decode("utf-8", "replace")
    d = rng.choice(DIRECTIVES)
    if rng.random() < 0.5 or "\n---\n" not in text:
        return (d + text).encode()
    return text.replace("\n---\n", "\n" + d.replace("---\n", "") + "---\n", 1).encode()


def m_json(rng: random.Random, b: bytes) -> bytes:
    """The documents as JSON (one line or indented), or a flow mapping, or one line of JSON with a comment."""
    import yaml
    try:
        docs = [d for d in yaml.safe_load_all(b.decode("utf-8", "replace")) if d is not None]
    except Exception:  # noqa: BLE001 - a mutant already broken: left alone
        return b
    style = rng.choice(["json", "indented", "flow", "comment", "trailing-comma", "leading-blank"])
    try:
        if style == "flow":
            return "---\n".join(yaml.safe_dump(d, default_flow_style=True, width=1 << 16) for d in docs).encode()
        text = "\n".join(json.dumps(d, default=str, indent=2 if style == "indented" else None) for d in docs) + "\n"
    except (TypeError, ValueError):
        return b
    if len(text) > 20 * len(b) + 1000:  # aliases expanded: a bomb, not a spelling
        return b
    if style == "comment":
        text = "# generated\n" + text
    elif style == "trailing-comma":
        text = text.replace("}", ",}", 1)
    elif style == "leading-blank":
        text = "\n  \n" + text
    return text.encode()


def m_indent(rng: random.Random, b: bytes) -> bytes:
    """Indentation variants: everything indented twice as far, or block sequences indented under their key."""
    lines = _lines(b.decode("utf-8", "replace"))
    if rng.random() < 0.5:
        out = [re.sub(r"^( +)", lambda m: m.group(1) * 2, ln) for ln in lines]
    else:
        out = []
        for ln in lines:
            m = re.match(r"^( *)- ", ln)
            out.append("  " + ln if m and not ln.startswith("- ") and rng.random() < 0.5 else ln)
    return "".join(out).encode()


def m_line_breaks(rng: random.Random, b: bytes) -> bytes:
    """CRLF, bare CR on one line, no final line break, or a trailing blank and comment."""
    text = b.decode("utf-8", "replace")
    kind = rng.choice(["crlf", "cr-one", "no-final", "trailing"])
    if kind == "crlf":
        return text.replace("\n", "\r\n").encode()
    if kind == "cr-one":
        lines = _lines(text)
        if lines:
            i = rng.randrange(len(lines))
            lines[i] = lines[i].replace("\n", "\r")
        return "".join(lines).encode()
    if kind == "no-final":
        return text.rstrip("\n").encode()
    return (text + "\n\n# end\n").encode()


def m_concat(rng: random.Random, b: bytes) -> bytes:
    """The stream twice, with or without a `---` between (two files concatenated)."""
    text = b.decode("utf-8", "replace")
    sep = rng.choice(["---\n", "", "\ufeff", "...\n"])
    return (text + ("" if text.endswith("\n") else "\n") + sep + text).encode()


MUTATORS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "tag": m_tag, "anchor-alias": m_anchor_alias, "anchor-block": m_anchor_block, "explicit-key": m_explicit_key,
    "merge": m_merge, "number": m_number, "quote": m_quote, "bom": m_bom, "directive": m_directive,
    "json": m_json, "indent": m_indent, "line-breaks": m_line_breaks, "concat": m_concat,
}


@dataclass
class Case:
    n: int
    data: bytes
    mutations: list[str]


def inputs(seed: int, count: int) -> list[Case]:
    rng = random.Random(seed)
    pool = seeds()
    out = []
    for n in range(count):
        data = rng.choice(pool)
        names = [rng.choice(list(MUTATORS)) for _ in range(rng.choice([1, 1, 2, 3]))]
        for name in names:
            data = MUTATORS[name](rng, data)
        out.append(Case(n, data, names))
    return out


# --- the readings ------------------------------------------------------------------------------------------------

def _normal(value: Any) -> Any:
    """A value as JSON carries it to the cluster: a whole float is the integer (kinds.integer); `!!binary`'s
    bytes the string Go's encoding/json writes of them (a byte that is no UTF-8 as U+FFFD)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, float) and kinds.integer(value) is not None:
        value = kinds.integer(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1 << 53:
        return int(float(value))  # kubectl's JSON holds it as a float64: 2**63 is sent as 9223372036854775808.0
    return value


def _paths(obj: dict[str, Any]) -> list[tuple[str, kinds.Path]]:
    """The fields the checks read of this object's kind (with the opt-in wherever the kind reads it)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    out: list[tuple[str, kinds.Path]] = [("metadata.annotations[opt-in]", ("metadata", "annotations", OPT_IN))]
    spec = kinds.spec_for(api, kind) if isinstance(api, str) and isinstance(kind, str) else None
    if spec is not None:
        out.append(("annotations[opt-in]", spec.annotations + (OPT_IN,)))
        out.append(("preset", spec.preset))
        out += [(kinds.dotted(p), p) for p in spec.config_refs(obj)]
        out += [(kinds.dotted(p), p) for p in kinds.integer_fields(spec.kind, obj)]
    plain = plain_kinds.kind_of(api, kind) if isinstance(api, str) and isinstance(kind, str) else None
    if plain is not None:
        for path in plain.opt_in_paths:
            out.append((kinds.dotted(path) + "[opt-in]", path + (OPT_IN,)))
        for t in plain.templates:
            out.append((kinds.dotted(t.spec) + ".containers", t.spec + ("containers",)))
        if plain.kserve is not None:
            k = plain.kserve
            out += [(kinds.dotted(p), p) for p in (k.model, k.pipeline)]
    return out


def _containers(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    return [{k: c.get(k) for k in ("name", "image", "command", "args")} if isinstance(c, dict) else c for c in value]


def reading(obj: Any) -> tuple[Any, ...]:
    """One object's reading: identity, then each read field's value."""
    if not isinstance(obj, dict):
        return ("not a mapping",)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    ident = (obj.get("apiVersion") or "", obj.get("kind") or "", meta.get("name") or "", meta.get("namespace") or "")
    fields = []
    for name, path in _paths(obj):
        value = _normal(kinds.get(obj, path))
        fields.append((name, _containers(value) if name.endswith("containers") else value))
    return ident + tuple(fields)


@dataclass
class Function:
    refused: bool
    warned: bool
    readings: list[tuple[Any, ...]] | None
    said: str = ""


def function_reads(data: bytes) -> Function:
    r = run_function(["render", "-"], data)
    warned = [ln for ln in r.err.splitlines() if "[warning]" in ln and re.search(r"\[SD0\d\d\]$", ln)]
    refused = r.code != 0
    try:
        items = reader.read_stream([("m.yaml", data)]).items
    except (InputError, ItemError, ValueError, RecursionError) as exc:
        return Function(True, bool(warned), None, str(exc))
    out = []
    for item in items:
        if not item.is_mapping:
            out.append(("not a mapping",))
            continue
        try:
            obj = item.data()
        except ItemError:
            obj = None
        if isinstance(obj, dict):
            got = reading(obj)
            # identity and opt-in as the walk read them: what the stages use
            walk = (item.api_version, item.kind, item.name, item.namespace)
            out.append(got if walk == got[:4] else walk + ("(walk)",) + got)
        else:
            out.append((item.api_version, item.kind, item.name, item.namespace, "(no data)"))
    return Function(refused, bool(warned), out, r.err)


def _local(read: list[Any]) -> list[Any]:
    """Objects kustomize drops from its output (local-config) left out of the other readings too."""
    return [o for o in read if not (isinstance(o, dict) and isinstance(o.get("metadata"), dict)
                                    and isinstance(o["metadata"].get("annotations"), dict)
                                    and o["metadata"]["annotations"].get("config.kubernetes.io/local-config")
                                    == "true")]


def _env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8",
            "KUBECONFIG": os.devnull}


def _decode_json_stream(text: str) -> list[Any]:
    decoder, out, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        obj, at = decoder.raw_decode(text, at)
        out.extend(obj["items"] if isinstance(obj, dict) and obj.get("kind") == "List" else [obj])


SENTINEL = "kaito-specdec-sentinel-"


def kubectl_reads(kubectl: str, files: dict[str, bytes], work: Path) -> dict[str, list[Any] | None]:
    """Each file's objects as kubectl reads them (None: refused), many files in one call."""
    folder = Path(tempfile.mkdtemp(dir=work))
    names = sorted(files)
    for i, name in enumerate(names):
        (folder / f"{name}.yaml").write_bytes(files[name])
        (folder / f"{name}_z.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {SENTINEL}{i}\n")
    proc = subprocess.run([kubectl, "label", "--local", "-f", str(folder), "x-kaito-specdec=1", "-o", "json"],
                          capture_output=True, text=True, env=_env(), timeout=600)
    objs = _decode_json_stream(proc.stdout)
    out: dict[str, list[Any] | None] = {}
    at = 0
    for i, name in enumerate(names):
        mine = []
        while at < len(objs) and not ((objs[at].get("metadata") or {}).get("name") == f"{SENTINEL}{i}"):
            mine.append(objs[at])
            at += 1
        at += 1
        refused = re.search(rf"[/\\]{re.escape(name)}\.yaml\b", proc.stderr) is not None
        out[name] = None if refused else mine
    return out


# kustomize's own rules, not its reading: an object it cannot name, the same object twice.
KUSTOMIZE_RULES = re.compile(r"missing metadata\.name|already registered id|may not add resource")
NOT_COMPARED = "kustomize refuses it by its own rules"


def kustomize_reads(kubectl: str, files: dict[str, bytes], work: Path) -> dict[str, list[Any] | str | None]:
    """Each file's objects as kustomize (`kubectl kustomize`, go-yaml v3) builds them, as kubectl then reads them;
    None where kustomize refuses to read it, NOT_COMPARED where it refuses it by its own rules."""
    built: dict[str, bytes | str] = {}
    names = sorted(files)
    for start in range(0, len(names), KUSTOMIZE_BATCH):
        _kustomize_batch(kubectl, {n: files[n] for n in names[start:start + KUSTOMIZE_BATCH]}, work, built)
    readable = {n: b for n, b in built.items() if isinstance(b, bytes)}
    read = kubectl_reads(kubectl, readable, work) if readable else {}
    out: dict[str, list[Any] | str | None] = {}
    for name in names:
        said = built.get(name)
        if isinstance(said, str):
            out[name] = NOT_COMPARED if KUSTOMIZE_RULES.search(said) else None
            continue
        objs = read.get(name)
        if objs is not None:
            prefix = f"p{name}-"
            for o in objs:
                meta = o.get("metadata") or {}
                for key in ("name", "namespace"):
                    if isinstance(meta.get(key), str) and meta[key].startswith(prefix):
                        meta[key] = meta[key][len(prefix):]
        out[name] = objs
    return out


def _kustomize_batch(kubectl: str, files: dict[str, bytes], work: Path, built: dict[str, bytes | str]) -> None:
    """Each input's output (bytes), or kustomize's error (str)."""
    pending = dict(files)
    while pending:
        top = Path(tempfile.mkdtemp(dir=work))
        for name, data in pending.items():
            (top / name).mkdir()
            (top / name / "m.yaml").write_bytes(data)
            (top / name / "kustomization.yaml").write_text(f"resources: [m.yaml]\nnamePrefix: p{name}-\n")
        (top / "kustomization.yaml").write_text("resources:\n" + "".join(f"- {n}\n" for n in sorted(pending)))
        try:
            proc = subprocess.run([kubectl, "kustomize", str(top)], capture_output=True, env=_env(),
                                  timeout=KUSTOMIZE_TIMEOUT)
        except subprocess.TimeoutExpired:  # an input kustomize does not finish (an alias it expands forever)
            proc = subprocess.CompletedProcess([], -1, b"", b"timed out")
        if proc.returncode == 0:
            _split_built(proc.stdout, pending, built)
            return
        err = proc.stderr.decode("utf-8", "replace")
        named = [n for n in pending if f"'{n}'" in err or f"p{n}-" in err or f"/{n}/" in err]
        if len(named) == 1:
            built[named[0]] = err
            del pending[named[0]]
        elif len(pending) == 1:
            built[next(iter(pending))] = err
            return
        else:  # not named: each half on its own
            half = sorted(pending)[: len(pending) // 2]
            _kustomize_batch(kubectl, {n: pending[n] for n in half}, work, built)
            _kustomize_batch(kubectl, {n: pending[n] for n in pending if n not in half}, work, built)
            return


def _split_built(out: bytes, pending: dict[str, bytes], built: dict[str, bytes | str]) -> None:
    """kustomize's output cut back into each input's documents, by the name prefix each one carries."""
    docs = re.split(rb"(?m)^---\r?\n", out)
    mine: dict[str, list[bytes]] = {n: [] for n in pending}
    for doc in docs:
        m = re.search(rb"(?m)^  name: p(f\d{5})-", doc)
        if m is not None and m.group(1).decode() in mine:
            mine[m.group(1).decode()].append(doc)
        elif doc.strip():
            for n in pending:  # an object without a name: whose it is cannot be told
                mine[n].append(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p" + n.encode() + b"-unnamed\n")
                break
    for n, parts in mine.items():
        built[n] = b"---\n".join(parts)


# --- the oracle ------------------------------------------------------------------------------------------------

# Every disagreement fails the run: the function must refuse or warn where the readers read apart (issue #40
# fixed each one this fuzzer found, with its own test).


@dataclass
class Failure:
    case: Case
    why: str

    def show(self, seed: int) -> str:
        return (f"[FAILURE] seed {seed} input {self.case.n} ({'+'.join(self.case.mutations)}): {self.why}\n"
                f"  input: {self.case.data!r}")


@dataclass
class Report:
    seed: int
    tried: int
    failures: list[Failure] = field(default_factory=list)
    agreed: int = 0
    refused_by_function: int = 0


def _compare(kube: list[Any] | None, kust: list[Any] | str | None, fn: Function) -> str | None:
    if kust == NOT_COMPARED:
        if kube is None:
            return "kubectl refuses the file; the function reads it without a word"
        k = [reading(o) for o in kube]
        return None if fn.readings == k else f"kubectl reads {k!r}\n  the function reads {fn.readings!r}"
    if kube is None and kust is None:
        return "kubectl and kustomize refuse the file; the function reads it without a word"
    if (kube is None) != (kust is None):
        who = "kubectl" if kube is None else "kustomize"
        return f"{who} refuses the file, the other reads it; the function neither refuses nor warns"
    assert kube is not None and isinstance(kust, list) and fn.readings is not None
    k = [reading(o) for o in kube]
    z = sorted((reading(o) for o in kust), key=repr)
    f = fn.readings
    if sorted(map(repr, [reading(o) for o in _local(kube)])) != sorted(map(repr, z)):
        return f"kubectl reads {k!r}\n  kustomize reads {z!r}"
    if f != k:
        return f"kubectl reads {k!r}\n  the function reads {f!r}"
    return None


def run_cases(cases: list[Case], seed: int, kubectl: str) -> Report:
    """The function first: an input it refuses or warns about needs no oracle; the rest go to both readers in
    batches."""
    report = Report(seed, len(cases))
    silent: list[tuple[Case, Function]] = []
    for c in cases:
        fn = function_reads(c.data)
        if fn.refused or fn.warned:
            report.refused_by_function += 1
        elif fn.readings is None:
            report.failures.append(Failure(c, "the function's reader fails where its run passes: " + fn.said))
        else:
            silent.append((c, fn))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for start in range(0, len(silent), BATCH):
            batch = silent[start:start + BATCH]
            files = {f"f{c.n:05d}": c.data for c, _ in batch}
            kube = kubectl_reads(kubectl, files, work)
            kust = kustomize_reads(kubectl, files, work)
            for c, fn in batch:
                name = f"f{c.n:05d}"
                why = _compare(kube[name], kust[name], fn)
                if why is None:
                    report.agreed += 1
                else:
                    report.failures.append(Failure(c, why))
    return report


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=int(os.environ.get(N_ENV, DEFAULT_N)))
    ap.add_argument("--seed", type=int, default=int(os.environ.get(SEED_ENV, random.randrange(1 << 30))),
                    help=f"the seed (default: a new one each run; CI's deep pass uses {DEFAULT_SEED})")
    ap.add_argument("--kubectl", default="kubectl")
    args = ap.parse_args(list(argv) if argv is not None else None)
    print(f"differential fuzz: seed {args.seed} ({SEED_ENV}={args.seed} repeats it), {args.n} inputs", flush=True)
    report = run_cases(inputs(args.seed, args.n), args.seed, args.kubectl)
    for f in report.failures:
        print(f.show(args.seed))
    print(f"{report.tried} inputs: {report.agreed} read alike, {report.refused_by_function} refused or warned about "
          f"by the function, {len(report.failures)} failures")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
