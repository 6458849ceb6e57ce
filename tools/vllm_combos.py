"""Regenerate krm_fn/domain/data/vllm_combos.json: what each vLLM release does with speculative decoding beside
another setting of the server (a flag, an environment variable), read from the release's own source.

Each combination is one probe below: it reads a file of the release's wheel (`--fetch R` of
tools/vllm_verdicts.py puts its Python files under /tmp/vllm/src/R) and finds the statement that refuses
speculative decoding beside the setting at start-up (`raise` in the engine's config code) or silently turns it,
or its metrics, off. A row is the release, the statement's file and line, and the methods it applies to, as the
release's own code decides them (a Literal type, a `self.method in (...)` predicate, an `if` chain of methods);
"*" is every method. A release where the probe finds no such statement has no row. Nothing is run: the rows are
what the source shows, with no row for a failure at request time or a slowdown.

  python tools/vllm_verdicts.py --fetch             # every release's source, once
  python tools/vllm_combos.py                        # writes the data file
  python tools/vllm_combos.py --check                # writes nothing, exit 1 if the file differs

tools/vllm_update.py --apply runs it after the two other tables, so the weekly refresh covers it.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "krm_fn" / "domain" / "data" / "vllm_combos.json"
SCHEMA = ROOT / "krm_fn" / "domain" / "data" / "vllm_schema.json"
sys.path.insert(0, str(ROOT / "tools"))

Row = dict[str, Any]


class Source:
    """One release's source: its files' lines, and the methods the release knows (vllm_schema.json)."""

    def __init__(self, root: Path, release: str, methods: list[str], mtp_aliases: set[str]) -> None:
        self.root = root
        self.release = release
        self.methods = methods
        self.mtp_aliases = mtp_aliases

    def lines(self, path: str) -> list[str]:
        file = self.root / path
        return file.read_text(encoding="utf-8").splitlines() if file.exists() else []

    def find(self, path: str, pattern: str, start: int = 0) -> int | None:
        """The 0-based index of the first line at or after `start` matching `pattern`, or None."""
        rx = re.compile(pattern)
        for i, line in enumerate(self.lines(path)[start:], start):
            if rx.search(line):
                return i
        return None

    def literal(self, name: str) -> set[str]:
        """The strings of `name = Literal[...]` in vllm/config/speculative.py, other Literals in it expanded."""
        tree = ast.parse((self.root / "vllm/config/speculative.py").read_text(encoding="utf-8"))
        found: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                found[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                found[node.target.id] = node.value

        def strings(expr: ast.expr | None, depth: int = 0) -> set[str]:
            if expr is None or depth > 10:
                return set()
            if isinstance(expr, ast.Subscript):
                inner = expr.slice
                parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
                return set().union(*(strings(p, depth + 1) for p in parts))
            if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
                return {expr.value}
            if isinstance(expr, ast.Name):
                return strings(found.get(expr.id), depth + 1)
            return set()
        return strings(found.get(name))

    def refused_but(self, allowed: set[str]) -> list[str]:
        """The release's methods not in `allowed` (an MTP alias counts as allowed with "mtp")."""
        return [m for m in self.methods
                if m not in allowed and not (m in self.mtp_aliases and "mtp" in allowed)]

    def only(self, named: set[str]) -> list[str]:
        """The release's methods in `named` (an MTP alias is in it with "mtp")."""
        return [m for m in self.methods if m in named or (m in self.mtp_aliases and "mtp" in named)]


def _row(path: str, index: int, methods: list[str] | str) -> Row:
    return {"at": f"{path}:{index + 1}", "methods": methods}


_METHOD_TEST = re.compile(r"method\s+(not in|!=|==|in)\s+(.+?)\s*(?:\)|and|or|$)")


def _allowed(src: Source, path: str, start: int, end: int) -> set[str]:
    """The methods a chain of `X.method not in get_args(T)` / `X.method != "m"` / `X.method not in ("a", …)`
    between lines `start` and `end` lets through."""
    allowed: set[str] = set()
    for line in src.lines(path)[start:end]:
        m = re.search(r"method\s+not in\s+get_args\((\w+)\)", line)
        if m:
            allowed |= src.literal(m.group(1))
            continue
        m = re.search(r"method\s+!=\s+\"(\w+)\"", line)
        if m:
            allowed.add(m.group(1))
            continue
        m = re.search(r"method\s+not in\s+\(([^)]*)\)", line)
        if m:
            allowed |= set(re.findall(r"\"(\w+)\"", m.group(1)))
    return allowed


# --- the probes: Source -> Row | None ------------------------------------------------------------------------

def async_any_method(src: Source) -> Row | None:
    """--async-scheduling: "speculative decoding is not supported with async scheduling" (EngineArgs)."""
    path = "vllm/engine/arg_utils.py"
    at = src.find(path, r"speculative decoding is not supported with")
    if at is None or src.find(path, r"if self\.async_scheduling:", max(0, at - 40)) is None:
        return None
    return _row(path, at, "*")


def _async_allow_list(src: Source, guard: str) -> tuple[int, list[str]] | None:
    path = "vllm/config/vllm.py"
    at = src.find(path, guard)
    if at is None:
        return None
    lines = src.lines(path)
    end = next((i for i in range(at, min(at + 30, len(lines))) if "raise ValueError" in lines[i]
                or "_incompat = (" in lines[i]), None)
    if end is None:
        return None
    allowed = _allowed(src, path, at, end)
    return (end, src.refused_but(allowed)) if allowed else None


def async_allow_list(src: Source) -> Row | None:
    """--async-scheduling given: vLLM refuses every method not in the release's list (VllmConfig)."""
    path = "vllm/config/vllm.py"
    at = src.find(path, r"if self\.scheduler_config\.async_scheduling:\s*$")
    while at is not None:
        lines = src.lines(path)
        if any("Async scheduling explicitly enabled" in line for line in lines[at:at + 3]):
            found = _async_allow_list(src, r"self\.speculative_config\.method not in")
            if found is not None and found[0] < at + 30 and found[0] > at:
                return _row(path, found[0], found[1])
            return None
        at = src.find(path, r"if self\.scheduler_config\.async_scheduling:\s*$", at + 1)
    return None


def async_v1_runner(src: Source) -> Row | None:
    """--async-scheduling given, on the V1 model runner: the methods its list does not hold (VllmConfig)."""
    path = "vllm/config/vllm.py"
    if src.find(path, r"v1_async_sched_incompat") is None:
        return None
    found = _async_allow_list(src, r"spec_config\.method not in")
    return None if found is None else _row(path, found[0], found[1])


def v0_engine(src: Source) -> Row | None:
    """VLLM_USE_V1=0: "Speculative decoding is not supported on vLLM V0." (the CUDA platform)."""
    path = "vllm/platforms/cuda.py"
    at = src.find(path, r"Speculative decoding is not supported on vLLM V0")
    return None if at is None else _row(path, at, "*")


def v2_model_runner(src: Source) -> Row | None:
    """VLLM_USE_V2_MODEL_RUNNER=1: init_speculator raises NotImplementedError for a method it has no branch for;
    ngram (and ngram_gpu) have none where neither it nor the runner names them."""
    path = "vllm/v1/worker/gpu/spec_decode/__init__.py"
    at = src.find(path, r"raise NotImplementedError\(f\"\{speculative_config\.method\} is not supported yet")
    if at is None or src.find("vllm/envs.py", r"\"VLLM_USE_V2_MODEL_RUNNER\"") is None:
        return None
    if src.find(path, r"ngram") is not None or src.find("vllm/v1/worker/gpu/model_runner.py", r"ngram") is not None:
        return None
    methods = src.only({"ngram", "ngram_gpu"})
    return _row(path, at, methods) if methods else None


def _on_v1(row: Row | None) -> Row | None:
    return None if row is None else {**row, "runner": "v1"}


def _on_v2(row: Row | None) -> Row | None:
    return None if row is None else {**row, "runner": "v2"}


def _method_predicate(src: Source, name: str) -> set[str] | None:
    """The methods `def name(self): return self.method in (...)` of SpeculativeConfig says yes to (in
    vllm/config/speculative.py; before 0.11, vllm/config/__init__.py)."""
    for path in ("vllm/config/speculative.py", "vllm/config/__init__.py"):
        at = src.find(path, rf"def {name}\(self\)")
        if at is not None:
            text = " ".join(src.lines(path)[at:at + 8])
            m = re.search(r"return self\.method in \(([^)]*)\)", text)
            return set(re.findall(r"\"(\w+)\"", m.group(1))) if m else None
    return None


def _hidden_state_methods(src: Source) -> set[str]:
    """The base methods of the speculator configs whose `uses_target_hidden_states` is True (a class attribute,
    inherited), under vllm/v1/worker/gpu/spec_decode/."""
    classes: dict[str, tuple[list[str], dict[str, Any]]] = {}
    for file in sorted((src.root / "vllm/v1/worker/gpu/spec_decode").rglob("*.py")):
        for node in ast.parse(file.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            attrs: dict[str, Any] = {}
            for stmt in node.body:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
                    stmt.target if isinstance(stmt, ast.AnnAssign) else None
                value = getattr(stmt, "value", None)
                if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
                    attrs[target.id] = value.value
            classes[node.name] = ([b.id for b in node.bases if isinstance(b, ast.Name)], attrs)

    def attr(name: str, key: str, depth: int = 0) -> Any:
        if name not in classes or depth > 20:
            return None
        bases, attrs = classes[name]
        if key in attrs:
            return attrs[key]
        return next((v for v in (attr(b, key, depth + 1) for b in bases) if v is not None), None)
    return {m for c in classes if attr(c, "uses_target_hidden_states") is True
            for m in [attr(c, "base_method")] if isinstance(m, str)}


def kv_sharing_fast_prefill(src: Source) -> Row | None:
    """--kv-sharing-fast-prefill: "not compatible with EAGLE" for the methods the release's predicate names."""
    for path in ("vllm/config/vllm.py", "vllm/config/__init__.py"):
        at = src.find(path, r"if self\.cache_config\.kv_sharing_fast_prefill:")
        while at is not None:
            block = src.lines(path)[at:at + 12]
            raised = next((i for i, line in enumerate(block) if line.strip().startswith("raise")
                           and "EAGLE" in " ".join(block[i:i + 3])), None)
            if raised is not None:
                text = " ".join(block[:raised])
                if "use_eagle()" in text:
                    named = _method_predicate(src, "use_eagle")
                elif "uses_target_hidden_states" in text:
                    named = _hidden_state_methods(src)
                else:
                    named = None
                if named:
                    return _row(path, at + raised, src.only(named))
            at = src.find(path, r"if self\.cache_config\.kv_sharing_fast_prefill:", at + 1)
    return None


def disable_log_stats(src: Source) -> Row | None:
    """--disable-log-stats: AsyncLLM makes no stat loggers (the Prometheus one among them) without log_stats."""
    path = "vllm/v1/engine/async_llm.py"
    at = src.find(path, r"log_stats=not engine_args\.disable_log_stats")
    made = src.find(path, r"^\s+if self\.log_stats:")
    if at is None or made is None:
        return None
    return _row(path, made, "*")


def data_parallel_schedule(src: Source) -> Row | None:
    """--data-parallel-size > 1: num_speculative_tokens_per_batch_size dropped with a warning (VllmConfig)."""
    path = "vllm/config/vllm.py"
    defined = src.find(path, r"def _maybe_disable_dynamic_sd_for_data_parallel")
    if defined is None or src.find(path, r"self\._maybe_disable_dynamic_sd_for_data_parallel\(\)") is None:
        return None
    at = src.find(path, r"num_speculative_tokens_per_batch_size = None", defined)
    return None if at is None else _row(path, at, "*")


def logits_processors(src: Source) -> Row | None:
    """--logits-processors: build_logitsprocs raises STR_SPEC_DEC_REJECTS_LOGITSPROCS, on the V1 model runner
    (gpu_model_runner.py builds them; Model Runner V2 does not call it)."""
    path = "vllm/v1/sample/logits_processor/__init__.py"
    at = src.find(path, r"raise ValueError\(STR_SPEC_DEC_REJECTS_LOGITSPROCS\)")
    if at is None or src.find("vllm/v1/worker/gpu_model_runner.py", r"build_logitsprocs\(") is None:
        return None
    return {**_row(path, at, "*"), "runner": "v1"}


def lora(src: Source) -> Row | None:
    """LoRA (--enable-lora): "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens"
    when max_num_batched_tokens < max_num_seqs * (num_speculative_tokens + 1) (EngineArgs)."""
    path = "vllm/engine/arg_utils.py"
    at = src.find(path, r"Consider increasing max_num_batched_tokens or")
    if at is None:
        return None
    before = " ".join(src.lines(path)[max(0, at - 12):at])
    if not all(w in before for w in ("lora_config is not None", "max_num_seqs", "num_speculative_tokens + 1")):
        return None
    return _row(path, at - 1 if "raise" in src.lines(path)[at - 1] else at, "*")


def watermark(src: Source) -> Row | None:
    """--watermark-config: "Speculative decoding with watermarking requires draft_sample_method='probabilistic'"
    (VllmConfig), against the field's default (vllm/config/speculative.py)."""
    path = "vllm/config/vllm.py"
    at = src.find(path, r"draft_sample_method != \"probabilistic\"")
    spec = "vllm/config/speculative.py"
    default = src.find(spec, r"^\s+draft_sample_method: \w+ = \"")
    # called in VllmConfig.__post_init__: _check_watermarking_unsupported (0.30-0.31), _check_supports_watermarking
    checked = src.find(path, r"^\s+self\._check_(watermarking_unsupported|supports_watermarking)\(\)")
    if at is None or default is None or checked is None:
        return None
    value = src.lines(spec)[default].split("=", 1)[1].strip().strip('"')
    return {**_row(path, at, "*"), "needs": {"draft_sample_method": "probabilistic"},
            "default": {"draft_sample_method": value}}


def draft_max_model_len(src: Source) -> Row | None:
    """A draft `max_model_len` above the target's (`--max-model-len`): "cannot be larger than
    target_max_model_len" (SpeculativeConfig._maybe_override_draft_max_model_len), for the methods whose branch
    of SpeculativeConfig.__post_init__ calls it (the `else` of the chain that handles ngram, suffix, …)."""
    for path in ("vllm/config/speculative.py", "vllm/config/__init__.py"):
        at = src.find(path, r"larger than \{target_max_model_len=\}")
        if at is None:
            continue
        raised = max(i for i in range(at + 1) if "raise ValueError" in src.lines(path)[i])
        call = src.find(path, r"SpeculativeConfig\._maybe_override_draft_max_model_len\(")
        tree = ast.parse((src.root / path).read_text(encoding="utf-8"))
        excluded = _excluded_before(tree, (call or 0) + 1)
        if call is None or excluded is None:
            return None
        return _row(path, raised, src.refused_but(excluded))
    return None


def _excluded_before(tree: ast.Module, line: int) -> set[str] | None:
    """The methods an `if self.method in (…)` / `elif self.method == "…"` chain takes before the `else` that
    holds `line` (None: `line` is in no such `else`)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        chain, excluded = node, set()
        while isinstance(chain, ast.If):
            test = chain.test
            if not (isinstance(test, ast.Compare) and ast.unparse(test.left) == "self.method"
                    and isinstance(test.ops[0], (ast.In, ast.Eq))):
                break
            right = test.comparators[0]
            excluded |= {e.value for e in getattr(right, "elts", [right])
                         if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if len(chain.orelse) == 1 and isinstance(chain.orelse[0], ast.If):
                chain = chain.orelse[0]
                continue
            if chain.orelse and chain.orelse[0].lineno <= line <= (chain.orelse[-1].end_lineno or 0):
                return excluded
            break
    return None


def runner(src: Source) -> dict[str, Any] | None:
    """Which model runner runs when VLLM_USE_V2_MODEL_RUNNER is unset: "none" (no Model Runner V2 in the wheel),
    "only" (no V1 runner in it), "opt-in" (vllm/envs.py's default is
    False: V1) or "auto" (None: V2 unless VllmConfig._get_v2_model_runner_unsupported_features names a feature
    of the config: the methods and whether custom logits processors are among them)."""
    envs = "vllm/envs.py"
    v1, v2 = "vllm/v1/worker/gpu_model_runner.py", "vllm/v1/worker/gpu/model_runner.py"
    if not (src.root / v2).exists():
        return {"at": v1, "v2": "none"}
    if not (src.root / v1).exists():
        return {"at": v2, "v2": "only"}
    declared = src.find(envs, r"^\s+VLLM_USE_V2_MODEL_RUNNER: ")
    if declared is None:
        return None
    if "None" not in src.lines(envs)[declared]:
        return {"at": f"{envs}:{declared + 1}", "v2": "opt-in"}
    path = "vllm/config/vllm.py"
    tree = ast.parse((src.root / path).read_text(encoding="utf-8"))
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
               and n.name == "_get_v2_model_runner_unsupported_features"), None)
    if fn is None:
        return None
    unsupported: set[str] = set()
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                and ast.unparse(node.left).endswith("speculative_config.method")):
            continue
        right = node.comparators[0]
        names = {e.value for e in getattr(right, "elts", [right])
                 if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        if isinstance(node.ops[0], (ast.In, ast.Eq)):
            unsupported |= names
        elif isinstance(node.ops[0], ast.NotIn) and _appends(fn, node):
            unsupported |= set(src.refused_but(names))
    logits = "custom logits processors" in ast.unparse(fn)
    return {"at": f"{path}:{fn.lineno}", "v2": "auto", "v2_unsupported_methods": src.only(unsupported),
            "v2_unsupported_logits_processors": logits}


def _appends(fn: ast.FunctionDef, compare: ast.Compare) -> bool:
    """Whether the `if` testing `compare` (a `method not in (...)`) appends to the unsupported list."""
    return any(isinstance(n, ast.If) and n.test is compare and "unsupported.append" in ast.unparse(n.body[0])
               for n in ast.walk(fn))


# combination -> (what the server is given, the probes in order: the first that finds a row is the release's)
PROBES: dict[str, list[Callable[[Source], Row | None]]] = {
    "async-scheduling": [async_any_method, async_allow_list],
    "async-scheduling-v1-runner": [lambda src: _on_v1(async_v1_runner(src))],
    "v0-engine": [v0_engine],
    "v2-model-runner": [lambda src: _on_v2(v2_model_runner(src))],
    "kv-sharing-fast-prefill": [kv_sharing_fast_prefill],
    "logits-processors": [logits_processors],
    "lora": [lora],
    "watermark": [watermark],
    "draft-max-model-len": [draft_max_model_len],
    "disable-log-stats": [disable_log_stats],
    "data-parallel-schedule": [data_parallel_schedule],
}


def _methods(schema: dict[str, Any], release: str) -> tuple[list[str], set[str]]:
    def v(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in text.split("."))

    def holds(spans: list[list[str | None]]) -> bool:
        return any(v(str(a)) <= v(release) and (b is None or v(release) < v(b)) for a, b in spans)
    methods = sorted(m for m, spans in schema["methods"].items() if holds(spans))
    aliases = {m for m, spans in schema["mtp_aliases"].items() if holds(spans) and m != "mtp"}
    return methods, aliases


def table(root: Path, releases: list[str]) -> dict[str, Any]:
    schema = json.loads(SCHEMA.read_text())
    combos: dict[str, dict[str, Row]] = {name: {} for name in PROBES}
    runners: dict[str, dict[str, Any]] = {}
    for release in releases:
        methods, aliases = _methods(schema, release)
        src = Source(root / "src" / release, release, methods, aliases)
        if not (src.root / "vllm").exists():
            raise SystemExit(f"no source for vLLM {release} under {src.root}: python tools/vllm_verdicts.py --fetch")
        for name, probes in PROBES.items():
            row = next((r for r in (p(src) for p in probes) if r is not None), None)
            if row is not None:
                combos[name][release] = row
        found = runner(src)
        if found is not None:
            runners[release] = found
    return {"about": "speculative decoding beside another setting of vLLM's server, per release: the source line "
                     "that refuses it at start-up or turns it (or its metrics) off, and the methods it applies to "
                     "(\"*\": every one); generated by tools/vllm_combos.py from each release's wheel, do not edit",
            "releases": releases, "combos": combos, "runner": runners}


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    from vllm_verdicts import RELEASES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="/tmp/vllm", help="where --fetch put the releases' sources (ROOT/src/R)")
    ap.add_argument("--write", default=str(DATA))
    ap.add_argument("--check", action="store_true",
                    help="write nothing, exit 1 if the file is not what the source gives")
    a = ap.parse_args(argv)
    text = render(table(Path(a.root), list(RELEASES)))
    if a.check:
        same = Path(a.write).exists() and Path(a.write).read_text() == text
        if not same:
            print(f"{a.write} is not what the releases' source gives: python tools/vllm_combos.py", file=sys.stderr)
        return 0 if same else 1
    Path(a.write).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
