"""vLLM's `--speculative-config` by version, and a check of a user's value against it.

`check_speculative_config(value, vllm_version)` returns findings as plain data (the JSON key each is about, a
proposed value where the fix is mechanical); no Items, and no I/O but reading the facts' data file once.

Facts are vLLM's own, generated from every release from 0.10.2 to the newest by running its
`create_speculative_config` (tools/vllm_verdicts.py says how): the facts this module reads,
krm_fn/domain/data/vllm_schema.json, are written from tests/vllm_verdicts.json, against whose every row
tests/domain/test_vllm_schema.py holds this module's verdict.

PASS:  '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
FAIL:  '{"method":"Ngram","num_speculative_tokens":5}'             SD603 (case-sensitive)
FAIL:  '{"method":"eagle3","num_speculative_tokens":3}'            SD610 (no draft model)
FAIL:  '{"method":"ngram","num_speculative_tokens":5,"kv_cache_dtype":"auto"}'  SD613 on 0.25.1 (added in 0.26)
WARN:  '', 'None', 'null' (the whole value)                              SD617 (starts without speculation)
INFO:  '{"method":"deepseek_mtp","num_speculative_tokens":1}'      SD615 (write "mtp")
"""

import difflib
import functools
import json
import os
import re
from typing import Any

from ..findings import spec
from ..text.results import Finding, Severity, finding

# The vLLM that KAITO's newest inference image ships: kaito_releases.IMAGE_VLLM's last row, which judges the KAITO
# workloads with no vllmVersion and no kaitoVersion (the others by their release's row), and a plain workload whose
# image names no release (SD735). When KAITO ships another, this constant, that row and docs/settings.md change
# together (tests/domain/test_kaito_releases.py holds them equal).
DEFAULT_VLLM_VERSION = "0.25.1"


Version = tuple[int, int, int]

# ASCII digits only (`\d` would take ٣), at most 9 a part: int() refuses 4 300 digits and up.
_VERSION = (r"v?([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?(?:\.[0-9]{1,9})*"  # 0.25.1, v0.11, 0.10.1.1
            r"(?:[.-]?(?:a|b|rc|post|dev)[0-9]*)*(?:\+[0-9A-Za-z.]+)?")  # rc2, .post1, .dev0+cu128


def parse_version(text: str) -> Version:
    """`0.25.1`, `v0.11`, `0.10.1.1`, `0.11.0rc2`, `0.9.2.post1+cu128` -> (major, minor, patch); ValueError.
    Pre-release, post-release and local parts are dropped: a 0.16 release candidate is judged as 0.16."""
    plain = _plain_release(text.strip()) if isinstance(text, str) else None
    if plain is not None:
        return plain
    m = re.fullmatch(_VERSION, text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"vllmVersion must be a vLLM release such as {DEFAULT_VLLM_VERSION}, got {text!r}")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def _plain_release(text: str) -> Version | None:
    """`0.25.1` or `0.11` (ASCII digits only, the usual spelling and the default): what the pattern reads
    from it, without compiling the pattern."""
    parts = text.split(".")
    if 2 <= len(parts) <= 3 and all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts):
        return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) == 3 else 0
    return None


def shown(version: Version) -> str:
    return ".".join(map(str, version[:2] if version[2] == 0 else version))


# --- the facts, per release ------------------------------------------------------------------------------
# DATA (the module's docstring says how it is written) is read on first use: a run that checks no
# speculative-config never reads it. A span is (the first release run that has it, the first later release
# run without it); a release between two releases run is judged by the older one, a release older than all by
# the oldest, a newer one by the newest.
#   releases:     the releases run, oldest first.
#   fields:       the fields of `SpeculativeConfig` (vllm/config/speculative.py; vllm/config.py before 0.11).
#   methods:      the values its `method` field takes (`SpeculativeMethod`, MTP aliases included).
#   mtp:          the model-specific MTP names it rewrites to "mtp" (`MTPModelTypes`).
#   quantization: the names `quantization` takes (`QUANTIZATION_METHODS`), where the release checks them.
#   flags:        behaviours read off one row of the table each (the row is named in tools/vllm_verdicts.py).
#   rejection:    the values `rejection_sample_method` takes (`RejectionSampleMethod`, read from each release's
#                 source by tools/vllm_verdicts.py read_facts: a pydantic Literal, anything else refused).
DATA = os.path.join(os.path.dirname(__file__), "data", "vllm_schema.json")

Span = tuple[Version, Version | None]
Spans = tuple[Span, ...]


class Facts:
    """vLLM's speculative config in every release run (DATA); `mtp_aliases`: the MTP names but "mtp", sorted."""

    __slots__ = ("fields", "flags", "methods", "mtp", "mtp_aliases", "quantization", "rejection", "releases")

    def __init__(self, data: dict[str, Any]) -> None:
        def spans(key: str) -> dict[str, Spans]:
            return {name: tuple((_run(since), None if until is None else _run(until)) for since, until in runs)
                    for name, runs in data[key].items()}
        self.releases = tuple(_run(r) for r in data["releases"])
        self.fields = spans("fields")
        self.methods = spans("methods")
        self.mtp = spans("mtp_aliases")
        self.quantization = spans("quantization")
        self.flags = spans("flags")
        self.rejection = spans("rejection_sample_methods")
        self.mtp_aliases = tuple(sorted(n for n in self.mtp if n != "mtp"))


def _run(text: str) -> Version:
    major, minor, patch = text.split(".")
    return int(major), int(minor), int(patch)


@functools.cache
def facts() -> Facts:
    """The facts, read from the package's data file on the first call."""
    with open(DATA, "rb") as f:
        return Facts(json.loads(f.read()))


def _release(version: Version) -> Version:
    """The release run whose facts judge `version`: the one of its minor release at or below it (the
    minor's first run if none is), else the newest older one (the oldest run for anything older)."""
    releases = facts().releases
    same = [r for r in releases if r[:2] == version[:2]]
    if same:
        older = [r for r in same if r <= version]
        return older[-1] if older else same[0]
    older = [r for r in releases if r <= version]
    return older[-1] if older else releases[0]


def judging_release(version: Version) -> Version:
    """The release read whose facts judge `version` (vllm_combos judges by the same one)."""
    return _release(version)


def beyond(version: Version) -> Version | None:
    """The newest release run, when `version` is newer than it (its facts then judge `version`), else None.
    What a newer release does is not known here: the messages name the release whose facts they state."""
    newest = facts().releases[-1]
    return newest if version > newest else None


def newer_release(vllm_version: str, source: str) -> Finding | None:
    """SD622 for a release newer than every release run (`source`: where it was read, "the vllmVersion
    setting", "image vllm/vllm-openai:v0.40.0"), else None."""
    version = parse_version(vllm_version)
    known = beyond(version)
    if known is None:
        return None
    return finding("SD622", version=shown(version), source=source, newest=named(known))


def named(release: Version) -> str:
    """A release run as messages name it: its minor where only one patch of that minor was run (0.34, 0.11.1)."""
    if sum(1 for r in facts().releases if r[:2] == release[:2]) == 1:
        return shown((release[0], release[1], 0))
    return shown(release)


def refusal(value: object, vllm_version: str) -> str:
    """Why `vllm_version` refuses `value` at start-up (the title of its first error), or ""."""
    errors = [f for f in check_speculative_config(value, vllm_version) if f.severity is Severity.ERROR]
    return spec(errors[0].id).title if errors else ""


def _in(spans: Spans, version: Version) -> bool:
    r = _release(version)
    return any(since <= r and (until is None or r < until) for since, until in spans)


def _flag(name: str, version: Version) -> bool:
    return _in(facts().flags.get(name, ()), version)


def _since(spans: Spans, version: Version) -> Version | None:
    """The first release run after `version` that has it."""
    later = [since for since, _ in spans if since > _release(version)]
    return min(later) if later else None


def _until(spans: Spans, version: Version) -> Version | None:
    """The release run, at or before `version`, that first lacked it after having it."""
    gone = [until for _, until in spans if until is not None and until <= _release(version)]
    return max(gone) if gone else None


# The methods in the order suggestions list them (the rest of a release's names follow, sorted).
_ORDER = ("ngram", "draft_model", "suffix", "eagle", "eagle3", "medusa", "mlp_speculator", "mtp", "ngram_gpu",
          "dflash", "custom_class", "dspark", "extract_hidden_states")
# vLLM's `__post_init__`: these need a draft `model` (mtp and dspark default it to the target model).
NEEDS_MODEL = frozenset({"eagle", "eagle3", "draft_model", "medusa", "mlp_speculator", "dflash", "custom_class"})
# prompt_lookup_* apply to these (vLLM's `__post_init__` checks min <= max for them only).
NGRAM_METHODS = frozenset({"ngram", "ngram_gpu"})


# Read, not run, for the releases before the oldest run (0.10.2), which are judged by its facts otherwise:
# `SpeculativeMethod = Literal["ngram", "eagle", "eagle3", "medusa", "mlp_speculator", "draft_model",
# "deepseek_mtp"]` (vllm/config.py:2594-2595 at 0.10.0, vllm/config/__init__.py:1903-1904 at 0.10.1; a pydantic
# dataclass, so other names are refused); 0.10.2 adds the ernie_mtp and qwen3_next_mtp aliases.
_READ_SINCE: dict[str, Version] = {"ernie_mtp": (0, 10, 2), "qwen3_next_mtp": (0, 10, 2)}
# Also read: from 0.10.1 "" and "None" are no config at all (check_speculative_config).
EMPTY_IS_NONE_SINCE: Version = (0, 10, 1)


def available(method: str, version: Version) -> bool:
    """Whether a server of `version` takes this method name (an MTP alias included)."""
    if isinstance(method, str) and method in _READ_SINCE and version < _READ_SINCE[method]:
        return False
    return isinstance(method, str) and _in(facts().methods.get(method, ()), version)


def methods_for(version: Version) -> list[str]:
    """The method names to suggest for `version`: the MTP aliases only before `mtp` existed."""
    known = facts()
    names = [m for m in known.methods if available(m, version)]
    has_mtp = "mtp" in names
    names = [m for m in names if not (has_mtp and m in known.mtp and m != "mtp")]
    first = [m for m in _ORDER if m in names]
    return first + sorted(m for m in names if m not in first)


def _compact(obj: object) -> str:
    # default=str: an already-parsed value from YAML may hold a date; the proposal then shows it as text.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str)


def _with(obj: dict[str, Any], key: str, value: object = None, *, drop: bool = False, rename: str | None = None) -> str:
    """The value with one key changed, dropped or renamed, in the user's key order."""
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if k != key:
            out[k] = v
        elif rename is not None:
            out[rename] = v
        elif not drop:
            out[k] = value
    return _compact(out)


_INT_TEXT = r"[+-]?[0-9]+"


def _as_int(value: object, lax: bool) -> int | None:
    """The integer vLLM reads from `value`, or None where it refuses it. Strict: a JSON integer only. Lax
    (pydantic's lax mode, the releases whose SpeculativeConfig is a pydantic dataclass): also true/false,
    a float with no fraction, and a string of ASCII digits."""
    if isinstance(value, bool):
        return int(value) if lax else None
    if isinstance(value, int):
        return value
    if not lax:
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and re.fullmatch(_INT_TEXT, value.strip()):
        return int(value.strip())
    return None


# pydantic's lax booleans (its `bool_parsing`): what a `bool` field takes besides true and false.
_BOOL_TEXT = frozenset({"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"})


def _as_bool_ok(value: object) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value in (0, 1)
    return isinstance(value, str) and value.strip().lower() in _BOOL_TEXT


def check_speculative_config(value: object, vllm_version: str = DEFAULT_VLLM_VERSION) -> list[Finding]:
    """Findings about a `speculative-config` value (its text, or a parsed mapping) for a vLLM release.

    Raises ValueError for a `vllm_version` that is no release number (the setting is validated up front).
    """
    version = parse_version(vllm_version)
    # A release newer than every release run is judged by the newest one's facts, named `v` (docs/settings.md,
    # SD622-SD624); `newer`: the release as the user named it.
    known = beyond(version)
    v = shown(version) if known is None else named(known)
    newer = None if known is None else shown(version)
    # vLLM's `optional_type`: "" and "None" are no config at all, as is JSON null; the server starts without
    # speculative decoding (from 0.10.1: `vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)`,
    # vllm/engine/arg_utils.py:843 at 0.10.1). Before, `--speculative-config` has `type=json.loads`
    # (arg_utils.py:746 at 0.10.0, :750 at 0.8.5): argparse exits on "" and "None" ("invalid loads value"),
    # which is not JSON below (SD601); null is JSON's None there too.
    empty_is_none = (version >= EMPTY_IS_NONE_SINCE or value is None or not isinstance(value, str)
                     or value.strip() == "null")
    if empty_is_none and (value is None or (isinstance(value, str)
                                            and (value in ("", "None") or value.strip() == "null"))):
        shown_value = "null" if value is None else json.dumps(value)
        return [finding("SD617", value=shown_value, release=v)]
    cfg = value  # a text, or already parsed (a mapping from a policy, or what json.loads made of the text)
    if isinstance(value, str):
        try:
            cfg = json.loads(value)
        except ValueError as exc:
            return [finding("SD601", error=exc)]
    if not isinstance(cfg, dict):
        kind = ("a list" if isinstance(cfg, list) else "a string" if isinstance(cfg, str)
                else "a boolean" if isinstance(cfg, bool) else "a number")
        return [finding("SD602", kind=kind)]
    if _flag("dashed_keys", version):
        # From this release create_speculative_config reads `num-speculative-tokens` as `num_speculative_tokens`.
        cfg = {(k.replace("-", "_") if isinstance(k, str) else k): val for k, val in cfg.items()}
    method, findings = _method(cfg, version, v, newer)
    findings += _tokens(cfg, version)
    findings += _lookup(cfg, method, version)
    findings += _values(cfg, version, v, method)
    findings += _keys(cfg, version, v, newer)
    findings += _advice(cfg, version, v)
    return findings


def _inferred(cfg: dict[str, Any], version: Version) -> str:
    """The method vLLM's `__post_init__` infers from a `model` without a method."""
    model = cfg.get("model")
    if (isinstance(model, str) and "." in model and "/" not in model and available("custom_class", version)
            and not model.startswith(("http://", "https://", "file://"))):
        return "custom_class"
    return "ngram" if model in ("ngram", "[ngram]") else "draft_model"


def _method(cfg: dict[str, Any], version: Version, v: str,
            newer: str | None = None) -> tuple[str | None, list[Finding]]:
    """The method vLLM goes on with (None where it refuses the value), and what is wrong with it. For a vLLM
    newer than every release modelled (`newer`), what `v`, the newest, does not know is SD623, a warning
    (the newer release may know it); nothing is said of what that release does."""
    method = cfg.get("method")
    choices = ", ".join(methods_for(version))
    has_model = isinstance(cfg.get("model"), str) and bool(cfg["model"])
    if method is None and ("method" not in cfg or _flag("method_null_infers", version)):
        if not has_model:
            return None, [finding("SD605")]
        method = _inferred(cfg, version)
        return method, _draft_model(method, version, v, inferred=True)
    spans = facts().methods
    if not isinstance(method, str) or method not in spans:
        fixed = next((m for m in methods_for(version) if isinstance(method, str) and m.lower() == method.lower()), None)
        proposed = _with(cfg, "method", fixed) if fixed else None
        shown_method = _compact(method) if isinstance(method, (dict, list)) else json.dumps(method)
        if newer is not None and isinstance(method, str):
            return None, [finding("SD623.unknown", "method", proposed=proposed, method=shown_method, release=v,
                                  newer=newer, choices=choices)]
        return None, [finding("SD603", "method", proposed=proposed, method=shown_method, release=v, choices=choices)]
    if not available(method, version):
        history = _method_history(method, version)
        if newer is not None:
            return None, [finding("SD623.not-in-release", "method", method=json.dumps(method), release=v,
                                  history=history, newer=newer, choices=choices)]
        return None, [finding("SD604", "method", method=json.dumps(method), release=v, history=history,
                              choices=choices)]
    if method in NEEDS_MODEL and not has_model:
        return None, [finding("SD610", "model", method=json.dumps(method))]
    return ("mtp" if method in facts().mtp_aliases else method), _draft_model(method, version, v, inferred=False)


def _method_history(method: str, version: Version) -> str:
    """Why a method vLLM knows is not in `version`: "added in vLLM 0.20", "removed in vLLM 0.12"."""
    read = method in _READ_SINCE and version < _READ_SINCE[method]
    spans = facts().methods[method]
    since = _READ_SINCE[method] if read else _since(spans, version)
    if since:
        return f"added in vLLM {shown(since) if read else named(since)}"
    removed = _until(spans, version)
    assert removed is not None  # a known method no release after `version` adds: one at or before it removed it
    return f"removed in vLLM {named(removed)}"


# vLLM's words when it cannot run a draft model (SD618).
_NOT_SUPPORTED = '"Speculative decoding with draft model is not supported yet"'
_UNSUPPORTED_NONE = "\"Unsupported speculative method: 'None'\""


def _draft_model(method: str, version: Version, v: str, *, inferred: bool) -> list[Finding]:
    """Draft-model speculation: refused up to 0.14 ("not supported yet"), and without a method up to 0.16."""
    if method != "draft_model":
        return []
    runs = _flag("draft_model_runs", version)
    if inferred and not _flag("draft_model_inferred", version):
        error = _UNSUPPORTED_NONE if runs else _NOT_SUPPORTED
    elif not runs:
        error = _NOT_SUPPORTED
    else:
        return []
    if inferred:
        return [finding("SD618.model-without-method", "model", release=v, error=error)]
    return [finding("SD618.draft-model", "model", release=v, error=error)]


def _tokens(cfg: dict[str, Any], version: Version) -> list[Finding]:
    if "num_speculative_tokens" not in cfg:
        if cfg.get("method") == "suffix":
            return []  # suffix defaults num_speculative_tokens (to 24)
        return [finding("SD606", "num_speculative_tokens")]
    tokens = cfg["num_speculative_tokens"]
    if _flag("tokens_any_number", version):
        # 0.11.0: a plain dataclass field, compared with 0: any JSON number (a boolean too) above it runs.
        bad = not isinstance(tokens, (int, float)) or not tokens > 0
    else:
        count = _as_int(tokens, _flag("lax_numbers", version))
        bad = count is None or count < 1
    if bad:
        return [finding("SD607", "num_speculative_tokens", value=json.dumps(tokens, default=str))]
    return []


# Read from the source (no row of the table has it): up to 0.11.0 prompt_lookup_min/max are plain
# `Optional[int]` fields checked only for ngram, `if self.method in ("ngram", "[ngram]"): ... if
# self.prompt_lookup_min < 1: raise ValueError(...)` (vllm/config/speculative.py:97-100, 247-269 at 0.11.0);
# from 0.11.1 `prompt_lookup_max: int | None = Field(default=None, ge=1)` (speculative.py:107-110) for every method.
LOOKUP_CHECKED_FOR_EVERY_METHOD_SINCE: Version = (0, 11, 1)


def _lookup(cfg: dict[str, Any], method: str | None, version: Version) -> list[Finding]:
    findings: list[Finding] = []
    numbers: dict[str, int | None] = {}
    lax = _flag("lax_lookup", version)
    if method not in NGRAM_METHODS and version < LOOKUP_CHECKED_FOR_EVERY_METHOD_SINCE:
        return []   # neither the values nor their order are checked for another method there
    for key in ("prompt_lookup_min", "prompt_lookup_max"):
        if key not in cfg or (cfg[key] is None and _flag("lookup_null", version)):
            continue
        number = _as_int(cfg[key], lax)
        if number is None or number < 1:
            findings.append(finding("SD608", key, key=key, value=json.dumps(cfg[key], default=str)))
        numbers[key] = number
    low, high = numbers.get("prompt_lookup_min"), numbers.get("prompt_lookup_max")
    if (not findings and low is not None and high is not None and low > high
            and (method in NGRAM_METHODS or not _flag("lookup_order_ngram_only", version))):
        findings.append(finding("SD609", "prompt_lookup_min", low=low, high=high))
    return findings


# key -> (the flag of the releases that check it, what it must be, the fix)
_CHECKED = {
    "draft_tensor_parallel_size": ("draft_tp_at_least_1", "an integer of at least 1", "write 1, or leave it out"),
    "max_model_len": ("max_model_len_at_least_1", "an integer of at least 1",
                      "write the draft's context length, or leave it out"),
    "disable_padded_drafter_batch": ("bools_checked", "true or false", "write true or false (no quotes)"),
    "enforce_eager": ("bools_checked", "true or false", "write true or false (no quotes)"),
    "disable_by_batch_size": ("disable_by_batch_size_at_least_2", "an integer of at least 2",
                              "remove it: it has no effect since vLLM 0.10"),
}


def _values(cfg: dict[str, Any], version: Version, v: str, method: str | None = None) -> list[Finding]:
    """Values of the other keys that the release's own validation refuses."""
    known = facts()
    problems: list[tuple[str, str, str]] = []
    for key, (flag, what, fix) in _CHECKED.items():
        if key not in cfg or cfg[key] is None or not _flag(flag, version) \
                or not _in(known.fields.get(key, ()), version):
            continue
        val = cfg[key]
        if what.startswith("true"):
            bad = not _as_bool_ok(val)
        else:
            number = _as_int(val, _flag("lax_lookup", version))
            bad = number is None or number < (2 if "2" in what else 1)
        if bad:
            problems.append((key, what, fix))
    if (cfg.get("enable_adaptive_verification") not in (None, False) and method != "dspark"
            and _flag("adaptive_verification_dspark_only", version)
            and _in(known.fields.get("enable_adaptive_verification", ()), version)):
        problems.append(("enable_adaptive_verification",
                         '"method":"dspark" for it ("Adaptive verification only supported with DSpark")', "remove it"))
    depth = cfg.get("suffix_decoding_max_tree_depth")
    if method == "suffix" and depth is not None \
            and _in(known.fields.get("suffix_decoding_max_tree_depth", ()), version):
        # Read, then run: `if self.suffix_decoding_max_tree_depth < 1: raise ValueError(f"suffix_decoding_max_
        # tree_depth={...} must be >= 1")` (speculative.py:479 at 0.11.1, :1741 at 0.33.0, after the arctic
        # check; vllm/v1/worker/gpu/spec_decode/suffix/config.py:34 at 0.34.0, the row of that release).
        number = _as_int(depth, _flag("lax_lookup", version))
        if number is None or number < 1:
            problems.append(("suffix_decoding_max_tree_depth", "an integer of at least 1",
                             "write the tree depth (24 by default), or leave it out"))
    rejection = cfg.get("rejection_sample_method")
    if rejection is not None and known.rejection and _in(known.fields.get("rejection_sample_method", ()), version):
        # `rejection_sample_method: RejectionSampleMethod = "strict"`, `Literal["strict", "probabilistic"]` at 0.18.1
        # (speculative.py:60, 175), "standard" from 0.25 (read_facts of each release): another value is refused.
        names = sorted(n for n, spans in known.rejection.items() if _in(spans, version))
        if names and rejection not in names:
            problems.append(("rejection_sample_method", "one of " + ", ".join(names),
                             "write one of them, or leave it out"))
    findings = [finding("SD619", key, key=key, value=json.dumps(cfg[key], default=str), release=v, needs=needs, fix=fix)
                for key, needs, fix in problems]
    quant = cfg.get("quantization")
    if isinstance(quant, str) and _flag("quantization_checked", version) and known.quantization:
        names = sorted(n for n, spans in known.quantization.items() if _in(spans, version))
        if names and quant not in names:
            findings.append(finding("SD620", "quantization", value=json.dumps(quant), release=v,
                                    choices=", ".join(names)))
    return findings


def _keys(cfg: dict[str, Any], version: Version, v: str, newer: str | None = None) -> list[Finding]:
    findings: list[Finding] = []
    refuses = _flag("refuses_unknown_keys", version)
    newest = refuses and newer is not None
    fields = facts().fields
    known = sorted(k for k, spans in fields.items() if _in(spans, version))
    for key in cfg:
        if key == "tensor_parallel_size" and _flag("tensor_parallel_size_refused", version):
            renamed = (_with(cfg, key, rename="draft_tensor_parallel_size") if "draft_tensor_parallel_size" not in cfg
                       else _with(cfg, key, drop=True))
            findings.append(finding("SD621", key, proposed=renamed, release=v))
            continue
        spans = fields.get(key, ()) if isinstance(key, str) else ()
        if _in(spans, version):
            if key in UNUSED_KEYS:
                # the first release run after `version` without it
                ends = [until for since, until in spans if until is not None and since <= _release(version) < until]
                history = f" (vLLM {named(min(ends))} removed it)" if ends else ""
                findings.append(finding("SD612.unused", key, proposed=_with(cfg, key, drop=True), key=key,
                                        history=history, release=v))
            continue
        removed = _until(spans, version)
        if removed and refuses and not newest:
            findings.append(finding("SD611", key, proposed=_with(cfg, key, drop=True), key=key, removed=named(removed),
                                    release=v))
        elif removed and not refuses:
            findings.append(finding("SD612.removed", key, proposed=_with(cfg, key, drop=True), key=key,
                                    removed=named(removed), release=v))
        else:
            findings.append(_unknown(cfg, key, spans, version, v, newer if newest else None, known))
    return findings


def _unknown(cfg: dict[str, Any], key: str, spans: Spans, version: Version, v: str, newer: str | None,
             known: list[str]) -> Finding:
    """A key `version` does not take: renamed to the known key it is close to, else dropped. For a vLLM newer
    than every release modelled (`newer`, when `v`, the newest, refuses unknown keys) SD624, a warning (the
    newer release may take it); nothing said of what that release does."""
    close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.75)
    proposed = _with(cfg, key, rename=close[0]) if close and close[0] not in cfg else _with(cfg, key, drop=True)
    if newer is not None:
        removed = _until(spans, version)
        return finding("SD624", key, proposed=proposed, key_json=json.dumps(key), release=v, newer=newer,
                       history=f" (removed in vLLM {named(removed)})" if removed else "",
                       fix=f'rename it to "{close[0]}"' if close else f"remove {key}")
    added = _since(spans, version)
    values = {"key_json": json.dumps(key), "release": v, "history": f" (vLLM {named(added)} added it)" if added else "",
              "fix": f'rename it to "{close[0]}"' if close else "remove it"}
    if _flag("refuses_unknown_keys", version):
        return finding("SD613", key, proposed=proposed, **values)
    return finding("SD614", key, proposed=proposed, **values)


# Fields a release accepts and validates but no other code of it reads (read, not run: a grep of each
# release's source from 0.10.2 to 0.16.0 finds `disable_by_batch_size` only in its config class).
UNUSED_KEYS = frozenset({"disable_by_batch_size"})


def _advice(cfg: dict[str, Any], version: Version, v: str) -> list[Finding]:
    method = cfg.get("method")
    if isinstance(method, str) and method in facts().mtp_aliases and available(method, version) \
            and available("mtp", version):
        return [finding("SD615", "method", proposed=_with(cfg, "method", "mtp"), method=json.dumps(method), release=v)]
    if method == "suffix" and available("suffix", version) and _flag("suffix_needs_arctic", version):
        # speculative.py _validate_suffix_decoding at 0.33.0: `if not has_arctic_inference(): raise ImportError(
        # "Arctic Inference is required for suffix decoding. ...")`; 0.34.0 runs its own suffix speculator
        # (vllm/v1/worker/gpu/spec_decode/suffix/), with no such import.
        return [finding("SD616", "method")]
    return []


# --- the dotted form ------------------------------------------------------
# KAITO's runtime (presets/workspace/inference/vllm/inference_api.py) passes each `vllm:` key of
# inference_config.yaml as `--<key> <str(value)>`, the value as `yaml.safe_load` read it. vLLM's
# FlexibleArgumentParser (vllm/utils/argparse_utils.py) merges every `--speculative-config.<a>[.<b>…] <v>`
# (`_` or `-` before the first dot) into one object: the value through `json.loads`, else
# `human_readable_int` (`5k`), else the text; a key ending in `+` is a list from the comma-separated
# text; repeated keys merge (mappings recursively, lists concatenated, anything else: the last wins). That
# object is appended as the last `--speculative-config`, so a JSON `speculative-config` beside dotted keys
# is dropped.
_HUMAN_INT = r"(\d+(?:\.\d+)?)([kKmMgGtT])"
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


# A mapping or list as a dotted value: str() of it is what KAITO passes, but YAML aliases can make it
# exponentially large (a billion laughs in 30 lines); past this many elements it is not spelled out.
_MAX_ELEMENTS = 10_000


def _elements(value: object, budget: int) -> int:
    """How many elements `value` spells out when printed, counting shared parts each time, up to `budget`."""
    stack, seen = [value], 0
    while stack and seen <= budget:
        item = stack.pop()
        seen += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return seen


def _kaito_text(value: object) -> str:
    """The text KAITO's runtime puts on the command line: Python's str() of the YAML value (a structure too
    large to spell out stands for itself as a short text; it is no speculative-config value either way)."""
    if isinstance(value, (dict, list)) and _elements(value, _MAX_ELEMENTS) > _MAX_ELEMENTS:
        return f"<a {type(value).__name__} of more than {_MAX_ELEMENTS} elements>"
    return str(value)


def _human_int(text: str) -> int | None:
    """vLLM's human_readable_int, or None where it raises (a plain int is json.loads's already)."""
    m = re.fullmatch(_HUMAN_INT, text.strip())
    if not m:
        return None
    number, suffix = m.groups()
    # `\d` and int() as vLLM's own (٣k is 3000 there too). What they cannot convert (4 300 digits or more, a
    # float too large for an int) fails vLLM's start-up; here the text stays, which the checks refuse too.
    try:
        if suffix in _DECIMAL:
            return int(float(number) * _DECIMAL[suffix])
        return int(number) * _BINARY[suffix] if number.isdigit() else None
    except (ValueError, OverflowError):
        return None


def _merged(into: dict[str, Any], update: dict[str, Any]) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merged(into[k], v)
        elif isinstance(v, list) and isinstance(into.get(k), list):
            into[k] = into[k] + v
        else:
            into[k] = v


def dotted_config(entries: list[tuple[str, object]]) -> dict[str, Any]:
    """The object vLLM builds from dotted `speculative-config.<field>` keys (in file order; each key with
    its `vllm:` value as read from YAML), as KAITO's runtime passes them to it."""
    out: dict[str, Any] = {}
    for key, raw in entries:
        field = key.split(".", 1)[1]
        text = _kaito_text(raw)
        if field.endswith("+"):
            field, text = field[:-1], json.dumps(text.split(","))
        try:
            value: object = json.loads(text)
        except ValueError:
            number = _human_int(text)
            value = text if number is None else number
        parts = field.split(".")
        tree = {parts[-1]: value}
        for part in reversed(parts[:-1]):
            tree = {part: tree}
        _merged(out, tree)
    return out
