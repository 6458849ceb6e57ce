"""vLLM's `--speculative-config` by version, and a check of a user's value against it.

Pure knowledge and one pure function: `check_speculative_config(value, vllm_version)` returns findings as
plain data (id, severity, one-literal message that says how to fix it, the JSON key it is about, a proposed
value where the fix is mechanical). No Items, no I/O: a stage reports the findings on the ConfigMap whose
`inference_config.yaml` carries the value (field `data[inference_config.yaml]`, key `vllm.speculative-config`).

Facts are from `../shared/spec/VLLM.md` (section cited as "VLLM.md <section>"). Where VLLM.md is silent the
comment names the source read instead; "snapshot" means vLLM's `vllm/config/speculative.py` as stored in
the search index (a release between 0.25 and 0.33: it has `dspark`, added in 0.25, and still `medusa`,
removed in 0.33). What neither source dates is accepted for every version (a false "unknown" would fail a
build that works; the cost of leniency is only a missed finding).

PASS:  '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
FAIL:  '{"method":"Ngram","num_speculative_tokens":5}'             SD603 (case-sensitive)
FAIL:  '{"method":"eagle3","num_speculative_tokens":3}'            SD610 (no draft model)
FAIL:  '{"method":"ngram","num_speculative_tokens":5,"disable_by_batch_size":4}'  SD611 on vLLM >= 0.17
INFO:  '{"method":"deepseek_mtp","num_speculative_tokens":1}'      SD615 (write "mtp")
"""
from __future__ import annotations

import re
import json
from typing import Any

from .results import Finding, Severity

# The vLLM that KAITO's current inference image ships: kaito-project/kaito main (2026-08-21, tag v0.12.0),
# `presets/workspace/dependencies/requirements.txt` pins `vllm==0.25.1` (v0.11.0: 0.22.1, v0.10.0: 0.17.1,
# v0.9.4: 0.14.1). KAITO v0.13.0, the release SPEC.md's feature comes from, is not in the stored snapshot of
# KAITO's repository; when it ships another vLLM, this constant and docs/settings.md change together.
DEFAULT_VLLM_VERSION = "0.25.1"

FINDINGS = {
    "SD601": "speculative-config is not valid JSON",
    "SD602": "speculative-config is not a JSON object",
    "SD603": "unknown speculative method (case-sensitive)",
    "SD604": "speculative method not available in the chosen vLLM version",
    "SD605": "neither method nor model given",
    "SD606": "num_speculative_tokens missing",
    "SD607": "num_speculative_tokens not a positive integer",
    "SD608": "prompt_lookup_min/max not an integer of at least 1",
    "SD609": "prompt_lookup_min greater than prompt_lookup_max",
    "SD610": "method needs a draft model",
    "SD611": "key removed from the chosen vLLM version (refused at start-up)",
    "SD612": "key removed from the chosen vLLM version (ignored)",
    "SD613": "unknown key (refused at start-up)",
    "SD614": "unknown key (ignored)",
    "SD615": "model-specific MTP method name: use mtp",
    "SD616": "suffix decoding needs arctic-inference in the image",
}

Version = tuple[int, int, int]
# The newest release the facts below cover (VLLM.md's sources: 0.8 to 0.33). A newer vllmVersion is judged
# by 0.33's rules; a setting stage may say so.
KNOWN_UP_TO: Version = (0, 33, 0)

# ASCII digits only (`\d` would take ٣), at most 9 a part: int() refuses 4 300 digits and up.
_VERSION = re.compile(r"v?([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?(?:\.[0-9]{1,9})*"  # 0.25.1, v0.11, 0.10.1.1
                      r"(?:[.-]?(?:a|b|rc|post|dev)[0-9]*)*(?:\+[0-9A-Za-z.]+)?")  # rc2, .post1, .dev0+cu128


def parse_version(text: str) -> Version:
    """`0.25.1`, `v0.11`, `0.10.1.1`, `0.11.0rc2`, `0.9.2.post1+cu128` -> (major, minor, patch).

    Pre-release, post-release and local parts are dropped: a 0.16 release candidate is judged as 0.16 (the
    schema changes this module knows happened at minor releases and 0.11.2). Raises ValueError.
    """
    if isinstance(text, str):
        plain = _plain_release(text.strip())
        if plain is not None:
            return plain
    m = _VERSION.fullmatch(text.strip()) if isinstance(text, str) else None
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


# --- methods (VLLM.md "Schema": `method` is case-sensitive; anything else fails at start-up) ---------------
# name -> (first version that has it, first version without it); None: no bound known.
_ALWAYS = (None, None)
METHODS: dict[str, tuple[Version | None, Version | None]] = {
    "ngram": _ALWAYS,
    "draft_model": _ALWAYS,
    "suffix": _ALWAYS,   # in VLLM.md's 0.12 schema; merged as vllm-project/vllm#25784 (2025-10), not dated here
    "eagle": _ALWAYS,
    "eagle3": _ALWAYS,
    "medusa": (None, (0, 33, 0)),           # VLLM.md: removed in 0.33
    "mlp_speculator": (None, (0, 33, 0)),   # VLLM.md: removed in 0.33
    "mtp": ((0, 11, 0), None),              # VLLM.md: `mtp` exists from 0.11
    "ngram_gpu": ((0, 18, 0), None),        # VLLM.md: 0.18
    "dflash": ((0, 22, 0), None),           # VLLM.md: 0.22
    "custom_class": ((0, 22, 0), None),     # VLLM.md: 0.22
    "dspark": ((0, 25, 0), None),           # VLLM.md: 0.25
    # Not in VLLM.md; in the snapshot's `SpeculativeMethod` (via EagleModelTypes). Dated 0.18 by
    # vllm-project/vllm-ascend#8513 ("vllm > 0.18") and a training_hub#86 comment ("v0.18.0+", vllm#33736).
    "extract_hidden_states": ((0, 18, 0), None),
}
# VLLM.md "Schema": model-specific MTP names, rewritten to `mtp` with a deprecation warning from 0.11.
MTP_ALIASES = ("deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp",
               "pangu_ultra_moe_mtp")
# Not in VLLM.md: further `MTPModelTypes` of the snapshot, rewritten the same way there
# (`if self.method in get_args(MTPModelTypes) and self.method != "mtp": ... self.method = "mtp"`). When
# each arrived is not known here, so they are accepted for every version.
MTP_ALIASES_LATER = ("dots3_note_mtp", "mimo_v2_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp", "nemotron_h_mtp",
                     "exaone_moe_mtp", "exaone4_5_mtp", "qwen4_exp_mtp", "qwen3_5_mtp", "bailing_hybrid_v3_mtp",
                     "minimax_m3_mtp", "bailing_hybrid_mtp", "kimi_k3_mtp", "step3p5_mtp", "hy_v3_mtp", "hy_v4_mtp",
                     "gemma4_mtp", "inkling_mtp", "glm5_next_mtp")
ALL_MTP_ALIASES = MTP_ALIASES + MTP_ALIASES_LATER
MTP_SINCE: Version = (0, 11, 0)

# VLLM.md "Schema": `model` is required for these. `dflash` and `custom_class` too in the snapshot's
# `__post_init__` (no model and a token count: "num_speculative_tokens was provided but without speculative
# model." for dflash; "method='custom_class' requires 'model' to contain the custom proposer module path").
NEEDS_MODEL = frozenset({"eagle", "eagle3", "draft_model", "medusa", "mlp_speculator", "dflash", "custom_class"})
# VLLM.md "Schema": prompt_lookup_* apply to ngram (the snapshot treats ngram_gpu the same way).
NGRAM_METHODS = frozenset({"ngram", "ngram_gpu"})

# --- keys ------------------------------------------------------------------------------------------------
# VLLM.md "Schema" (vLLM 0.12's fields).
KEYS_012 = frozenset({
    "method", "num_speculative_tokens", "model", "prompt_lookup_max", "prompt_lookup_min",
    "draft_tensor_parallel_size", "quantization", "max_model_len", "revision", "code_revision",
    "disable_padded_drafter_batch", "enforce_eager", "suffix_decoding_max_tree_depth",
    "suffix_decoding_max_cached_requests", "suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob",
})
# Not in VLLM.md: the snapshot's other `SpeculativeConfig` fields (its engine-filled fields included: the
# pydantic model accepts them). Undated, so known for every version from 0.12 on: a key added after the
# user's version is then missed, never falsely reported. `tensor_parallel_size` is a field there only to be
# refused ("'tensor_parallel_size' is not a valid argument ... pass 'draft_tensor_parallel_size'"), so it is
# left out and reported as unknown, with `draft_tensor_parallel_size` as the close match.
KEYS_LATER = frozenset({
    "moe_backend", "attention_backend", "kv_cache_dtype", "index_share_for_mtp_iteration",
    "disable_eagle_block_drop", "use_local_argmax_reduction", "use_heterogeneous_vocab", "parallel_drafting",
    "num_speculative_tokens_per_batch_size", "draft_load_config", "rejection_sample_method",
    "synthetic_acceptance_rates", "synthetic_acceptance_length", "enable_adaptive_verification",
    "draft_sample_method", "dspark_draft_topk", "target_model_config", "target_parallel_config",
    "draft_model_config", "draft_parallel_config",
})
KNOWN_KEYS = KEYS_012 | KEYS_LATER
# VLLM.md "Schema": unknown keys are ignored up to 0.15 and rejected from 0.16.
REJECTS_UNKNOWN_FROM: Version = (0, 16, 0)
# The key set above is 0.12's and later: older servers had other fields, so unknown keys are judged from here.
KEYS_KNOWN_FROM: Version = (0, 12, 0)
# VLLM.md "Schema": key -> (no effect from, removed in). Removed keys are unknown keys from then on, so a
# server refuses them from max(removed, 0.16) and ignores them before.
REMOVED_KEYS: dict[str, tuple[Version, Version]] = {
    "disable_logprobs": ((0, 11, 2), (0, 11, 2)),
    "disable_by_batch_size": ((0, 10, 0), (0, 17, 0)),   # "no effect since 0.10, removed 0.17"
    "speculative_token_tree": ((0, 22, 0), (0, 22, 0)),  # "removed by 0.22"
}


def available(method: str, version: Version) -> bool:
    """Whether a server of `version` starts with this method name (an MTP alias: always, see above)."""
    if method in ALL_MTP_ALIASES:
        return True
    since, until = METHODS.get(method, _ALWAYS)
    return (since is None or version >= since) and (until is None or version < until)


def methods_for(version: Version) -> list[str]:
    """The method names to suggest for `version`: the MTP aliases only before `mtp` existed."""
    names = [m for m in METHODS if available(m, version)]
    return names if version >= MTP_SINCE else names + list(MTP_ALIASES)


def _compact(obj: dict) -> str:
    # default=str: an already-parsed value from YAML may hold a date; the proposal then shows it as text.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str)


def _with(obj: dict, key: str, value: Any = None, *, drop: bool = False, rename: str | None = None) -> str:
    """The value with one key changed, dropped or renamed, in the user's key order."""
    out: dict = {}
    for k, v in obj.items():
        if k != key:
            out[k] = v
        elif rename is not None:
            out[rename] = v
        elif not drop:
            out[k] = value
    return _compact(out)


def _positive_int(value: Any) -> bool:
    # JSON `true` is a bool, not a count (Python's bool is an int).
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _parse(value: Any) -> tuple[Any, list[Finding]]:
    if not isinstance(value, str):
        return value, []  # already parsed (a mapping from a policy, or what json.loads made of the text)
    try:
        return json.loads(value), []
    except ValueError as exc:
        return None, [Finding(f"speculative-config is not valid JSON ({exc}); vLLM exits at start-up: write one JSON object with double-quoted keys and strings, e.g. '{{\"method\":\"ngram\",\"num_speculative_tokens\":5}}' (single quotes around it in YAML)", id="SD601", severity=Severity.ERROR)]


def check_speculative_config(value: Any, vllm_version: str = DEFAULT_VLLM_VERSION) -> list[Finding]:
    """Findings about a `speculative-config` value (its text, or a parsed mapping) for a vLLM release.

    Raises ValueError for a `vllm_version` that is no release number (the setting is validated up front).
    """
    version = parse_version(vllm_version)
    v = shown(version)
    cfg, findings = _parse(value)
    if findings:
        return findings
    if not isinstance(cfg, dict):
        kind = "a list" if isinstance(cfg, list) else "a string" if isinstance(cfg, str) else "null" if cfg is None else "a boolean" if isinstance(cfg, bool) else "a number"
        return [Finding(f"speculative-config is {kind}, not a JSON object; vLLM exits at start-up: write an object such as '{{\"method\":\"ngram\",\"num_speculative_tokens\":5}}'", id="SD602", severity=Severity.ERROR)]
    findings += _method(cfg, version, v)
    findings += _tokens(cfg)
    findings += _lookup(cfg)
    findings += _keys(cfg, version, v)
    findings += _advice(cfg, version, v)
    return findings


def _method(cfg: dict, version: Version, v: str) -> list[Finding]:
    method = cfg.get("method")
    if "method" not in cfg:
        if "model" in cfg:
            return []  # vLLM infers the method from the draft model (VLLM.md is silent; snapshot __post_init__)
        return [Finding('speculative-config has neither "method" nor "model"; vLLM takes it for a draft model without one and exits at start-up: add "method" (for example "ngram" or "mtp")', id="SD605", severity=Severity.ERROR)]
    choices = ", ".join(methods_for(version))
    if not isinstance(method, str) or (method not in METHODS and method not in ALL_MTP_ALIASES):
        fixed = next((m for m in methods_for(version) if isinstance(method, str) and m.lower() == method.lower()), None)
        return [Finding(f"method {json.dumps(method)} is not a speculative method vLLM {v} knows (names are case-sensitive), so the server exits at start-up; use one of: {choices}", "method", proposed=_with(cfg, "method", fixed) if fixed else None, id="SD603", severity=Severity.ERROR)]
    if not available(method, version):
        since, until = METHODS[method]
        when = f"added in vLLM {shown(since)}" if since and version < since else f"removed in vLLM {shown(until)}"
        return [Finding(f"method {json.dumps(method)} is not in vLLM {v} ({when}), so the server exits at start-up; use one of: {choices}, or set vllmVersion to the vLLM your image runs", "method", id="SD604", severity=Severity.ERROR)]
    if method in NEEDS_MODEL and not (isinstance(cfg.get("model"), str) and cfg["model"]):
        return [Finding(f'method {json.dumps(method)} needs a draft "model" (a Hugging Face id or path) and vLLM exits at start-up without one: add "model", or use "ngram", which needs none', "model", id="SD610", severity=Severity.ERROR)]
    return []


def _tokens(cfg: dict) -> list[Finding]:
    if "num_speculative_tokens" not in cfg:
        if cfg.get("method") == "suffix":
            return []  # VLLM.md "Schema": suffix defaults num_speculative_tokens (to 24)
        return [Finding('speculative-config has no "num_speculative_tokens"; vLLM needs it for every method but suffix and exits at start-up: add it (KAITO uses 1 for mtp, 5 for ngram)', "num_speculative_tokens", id="SD606", severity=Severity.ERROR)]
    tokens = cfg["num_speculative_tokens"]
    if not _positive_int(tokens):
        return [Finding(f"num_speculative_tokens is {json.dumps(tokens)}; vLLM needs an integer greater than 0 and exits at start-up: write a JSON integer such as 5 (no quotes)", "num_speculative_tokens", id="SD607", severity=Severity.ERROR)]
    return []


def _lookup(cfg: dict) -> list[Finding]:
    findings = []
    for key in ("prompt_lookup_min", "prompt_lookup_max"):
        if key in cfg and not _positive_int(cfg[key]):
            findings.append(Finding(f"{key} is {json.dumps(cfg[key])}; vLLM needs an integer of at least 1 and exits at start-up: write a JSON integer such as 2 (no quotes), or leave it out", key, id="SD608", severity=Severity.ERROR))
    low, high = cfg.get("prompt_lookup_min"), cfg.get("prompt_lookup_max")
    if not findings and _positive_int(low) and _positive_int(high) and low > high:
        findings.append(Finding(f"prompt_lookup_min ({low}) is greater than prompt_lookup_max ({high}); vLLM exits at start-up: make prompt_lookup_min at most prompt_lookup_max", "prompt_lookup_min", id="SD609", severity=Severity.ERROR))
    return findings


def _keys(cfg: dict, version: Version, v: str) -> list[Finding]:
    findings = []
    for key in cfg:
        if key in REMOVED_KEYS:
            no_effect, removed = REMOVED_KEYS[key]
            if version >= max(removed, REJECTS_UNKNOWN_FROM):
                findings.append(Finding(f"{key} was removed in vLLM {shown(removed)} and vLLM {v} refuses unknown keys, so the server exits at start-up: remove {key}", key, proposed=_with(cfg, key, drop=True), id="SD611", severity=Severity.ERROR))
            elif version >= no_effect:
                findings.append(Finding(f"{key} has no effect in vLLM {v} (removed in {shown(removed)}; refused from {shown(max(removed, REJECTS_UNKNOWN_FROM))}): remove {key}", key, proposed=_with(cfg, key, drop=True), id="SD612", severity=Severity.WARNING))
        elif key not in KNOWN_KEYS and version >= KEYS_KNOWN_FROM:
            import difflib  # only for a misspelled key: its import compiles a pattern and a namedtuple
            close = difflib.get_close_matches(str(key), sorted(KNOWN_KEYS), n=1, cutoff=0.75)
            fix = f'rename it to "{close[0]}"' if close else "remove it"
            proposed = _with(cfg, key, rename=close[0]) if close and close[0] not in cfg else _with(cfg, key, drop=True)
            if version >= REJECTS_UNKNOWN_FROM:
                findings.append(Finding(f"{json.dumps(key)} is not a speculative-config key and vLLM {v} refuses unknown keys (from 0.16), so the server exits at start-up: {fix}", key, proposed=proposed, id="SD613", severity=Severity.ERROR))
            else:
                findings.append(Finding(f"{json.dumps(key)} is not a speculative-config key; vLLM {v} ignores it (vLLM 0.16 and later refuse it): {fix}", key, proposed=proposed, id="SD614", severity=Severity.WARNING))
    return findings


def _advice(cfg: dict, version: Version, v: str) -> list[Finding]:
    method = cfg.get("method")
    if method in ALL_MTP_ALIASES and version >= MTP_SINCE:
        return [Finding(f'method {json.dumps(method)} is a model-specific MTP name that vLLM {v} rewrites to "mtp" with a deprecation warning: write "method":"mtp" (the target model\'s MTP layers are found either way)', "method", proposed=_with(cfg, "method", "mtp"), id="SD615", severity=Severity.INFO)]
    if method == "suffix":
        return [Finding("method \"suffix\" needs the arctic-inference package in the inference image (vLLM exits at start-up without it: \"Arctic Inference is required for suffix decoding\"): check the image has it, or use \"ngram\"", "method", id="SD616", severity=Severity.INFO)]
    return []


# --- the dotted form (VLLM.md "On the command line") ------------------------------------------------------
# KAITO's runtime (presets/workspace/inference/vllm/inference_api.py) passes each `vllm:` key of
# inference_config.yaml as `--<key> <str(value)>`, the value as `yaml.safe_load` read it. vLLM's
# FlexibleArgumentParser (vllm/utils/argparse_utils.py) merges every `--speculative-config.<a>[.<b>…] <v>`
# (`_` or `-` before the first dot) into one object: the value through `json.loads`, else
# `human_readable_int` (`5k`), else the text; a key ending in `+` is a list from the comma-separated
# text; repeated keys merge (mappings recursively, lists concatenated, anything else: the last wins). That
# object is appended as the last `--speculative-config`, so a JSON `speculative-config` beside dotted keys
# is dropped.
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


# A mapping or list as a dotted value: str() of it is what KAITO passes, but YAML aliases can make it
# exponentially large (a billion laughs in 30 lines); past this many elements it is not spelled out.
_MAX_ELEMENTS = 10_000


def _elements(value: Any, budget: int) -> int:
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


def _kaito_text(value: Any) -> str:
    """The text KAITO's runtime puts on the command line: Python's str() of the YAML value (a structure too
    large to spell out stands for itself as a short text; it is no speculative-config value either way)."""
    if isinstance(value, (dict, list)) and _elements(value, _MAX_ELEMENTS) > _MAX_ELEMENTS:
        return f"<a {type(value).__name__} of more than {_MAX_ELEMENTS} elements>"
    return str(value)


def _human_int(text: str) -> Any:
    """vLLM's human_readable_int, or None where it raises (a plain int is json.loads's already)."""
    m = _HUMAN_INT.fullmatch(text.strip())
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


def _merged(into: dict, update: dict) -> None:
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merged(into[k], v)
        elif isinstance(v, list) and isinstance(into.get(k), list):
            into[k] = into[k] + v
        else:
            into[k] = v


def dotted_config(entries: list[tuple[str, Any]]) -> dict:
    """The object vLLM builds from dotted `speculative-config.<field>` keys (in file order; each key with
    its `vllm:` value as read from YAML), as KAITO's runtime passes them to it."""
    out: dict = {}
    for key, raw in entries:
        field = key.split(".", 1)[1]
        text = _kaito_text(raw)
        if field.endswith("+"):
            field, text = field[:-1], json.dumps(text.split(","))
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = _human_int(text)
            value = text if value is None else value
        for part in reversed(field.split(".")):
            value = {part: value}
        _merged(out, value)
    return out
