"""KAITO's speculative-decoding presets and the decision of the method (docs/checks.md, step 2). The tables
are KAITO v0.13.0's; ``PresetTable.extended`` lets the functionConfig pin more tuned presets or another fallback.
"""


import functools
import json
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..text.quoting import goquote
from ..text.results import Severity
from .vllm_schema import DEFAULT_VLLM_VERSION, NGRAM_METHODS, check_speculative_config

MTP: dict[str, Any] = {"method": "mtp", "num_speculative_tokens": 1}
NGRAM_FALLBACK: dict[str, Any] = {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}

# The names as KAITO's user documentation lists them; `describe` shows these, because they are
# what users type into `inference.preset.name`.
TUNED_DISPLAY: tuple[str, ...] = (
    "deepseek-r1-0528",
    "deepseek-v3-0324",
    "deepseek-ai/DeepSeek-V3.2",
    "zai-org/GLM-5.2-FP8",
    "nvidia/DeepSeek-V4-Flash-NVFP4",
    "XiaomiMiMo/MiMo-7B-Base",
    "Qwen/Qwen3.5-2B",
    "Qwen/Qwen3.5-4B",
    "Qwen/Qwen3.5-9B",
    "Qwen/Qwen3.5-122B-A10B-GPTQ-Int4",
    "Qwen/Qwen3.5-122B-A10B",
    "Qwen/Qwen3.5-397B-A17B-GPTQ-Int4",
    "Qwen/Qwen3.6-35B-A3B-FP8",
    "Qwen/Qwen3.6-35B-A3B",
    "Qwen/Qwen3.6-27B",
)

# KAITO's tables the KAITO source holds as data (the legacy short names here, the SKU tables and the model
# catalog kaito_sizing.py reads): krm_fn/domain/data/kaito_catalog.json, written by tools/kaito_catalog.py from
# KAITO's source at the commit the file records, read once, at import: TUNED below names two presets by their
# short names.
KAITO_CATALOG = os.path.join(os.path.dirname(__file__), "data", "kaito_catalog.json")


@functools.cache
def kaito_catalog() -> dict[str, Any]:
    """The data file KAITO_CATALOG, read on the first call."""
    with open(KAITO_CATALOG, "rb") as f:
        data: dict[str, Any] = json.loads(f.read())
    return data


@functools.cache
def aliases() -> Mapping[str, str]:
    """KAITO's legacy short preset names and the HF ids they stand for (`LegacyBuiltinToCatalog`,
    pkg/utils/plugin/plugin.go), in KAITO's order."""
    return MappingProxyType({str(short): str(target) for short, target in kaito_catalog()["aliases"].items()})


def canonical(name: str) -> str:
    """The key KAITO looks a preset up by: lower-cased, legacy short names mapped to HF ids.

    Surrounding whitespace is kept on purpose: KAITO does not strip it, so neither do we.
    """
    key = name.lower()
    return aliases().get(key, key)


# KAITO keys its table by lower-cased HF id; the two DeepSeek legacy names of the documentation reach
# their entries through aliases().
TUNED: dict[str, dict[str, Any]] = {canonical(name): MTP for name in TUNED_DISPLAY}


def config_json(cfg: Mapping[str, Any]) -> str:
    """The exact text vLLM receives: compact, sorted keys, stable across runs."""
    return json.dumps(cfg, separators=(",", ":"), sort_keys=True)


def _reject_constant(token: str) -> Any:
    # NaN and Infinity are Python extensions, not JSON; vLLM's strict parsers would choke later.
    raise ValueError(f"{token} is not valid JSON")


def json_int(digits: str) -> int:
    """json.loads' `parse_int`: int() refuses 4 300 digits and up (sys.get_int_max_str_digits), in words
    about sys.set_int_max_str_digits; this says what is wrong with the setting."""
    try:
        return int(digits)
    except ValueError:
        raise ValueError(f"a number of {len(digits.lstrip('-'))} digits, more than Python's json (vLLM's too) "
                         "reads") from None


def lone_surrogate(value: Any) -> str | None:
    """The first string in `value` (a JSON value: keys too) that is not Unicode text, or None.

    JSON's `\\ud800` escape, or a byte that is not UTF-8 in an environment variable, gives a lone
    surrogate: no UTF-8 output (the ResourceList, a ConfigMap, `presets`) can carry it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def not_unicode(setting: str, text: str, what: str = "") -> str:
    """The message for a string `lone_surrogate` found (json.dumps shows the surrogate as \\udXXX)."""
    return (f"{setting}: {what}{json.dumps(text)} is not Unicode text (a lone surrogate: a \\ud800-style JSON escape "
            "without its pair, or a byte that is not UTF-8), which no output can carry: write the character itself")


def parse_config_json(text: str | Mapping[str, Any], setting: str,
                      vllm_version: str = DEFAULT_VLLM_VERSION) -> dict[str, Any]:
    """Validate a user-supplied speculative config (`tunedPresets` / `ngramFallback`: docs/settings.md says what
    it must be; its method names the derived ConfigMaps), a JSON object as a string or already a mapping (a
    policy's YAML). Raises ValueError naming `setting`. Only vllm_schema's errors refuse it: its warnings and
    infos are about configs that still start."""
    if isinstance(text, Mapping):
        obj: Any = dict(text)
        try:
            # Round-trip so only JSON-representable values survive and the result is a deep copy.
            obj = json.loads(json.dumps(obj, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{setting}: must be representable as JSON: {exc}") from None
    elif isinstance(text, str):
        try:
            obj = json.loads(text, parse_constant=_reject_constant, parse_int=json_int)
        except ValueError as exc:
            raise ValueError(f"{setting}: must be a JSON object, got invalid JSON {quoted(text)}: {exc}") from None
    else:
        raise ValueError(f"{setting}: must be a JSON object string, got {type(text).__name__}")
    if not isinstance(obj, dict):
        raise ValueError(f"{setting}: must be a JSON object, got {json.dumps(obj)}")
    odd = lone_surrogate(obj)
    if odd is not None:
        raise ValueError(not_unicode(setting, odd))
    method = obj.get("method")
    if not isinstance(method, str) or not method:
        raise ValueError(f"{setting}: method must be a non-empty string, got {json.dumps(method)}")
    tokens = obj.get("num_speculative_tokens")
    # bool is a subclass of int in Python; `true` is not a token count.
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0:
        raise ValueError(f"{setting}: num_speculative_tokens must be a positive integer, got {json.dumps(tokens)}")
    for found in check_speculative_config(obj, vllm_version):
        if found.severity is Severity.ERROR:
            raise ValueError(f"{setting}: {found.message}")
    # Not a start-up failure, but a knob that does nothing in a table the user wrote on purpose.
    lookup = [k for k in ("prompt_lookup_max", "prompt_lookup_min") if k in obj]
    if lookup and method not in NGRAM_METHODS:
        raise ValueError(f"{setting}: {' and '.join(lookup)} {'apply' if len(lookup) > 1 else 'applies'} to ngram only")
    return obj


class PresetTable:
    """The tuned presets (canonical name -> config) and the config for every other preset; compared by
    both, never changed once made."""

    __slots__ = ("tuned", "fallback")

    def __init__(self, tuned: Mapping[str, dict[str, Any]] | None = None,
                 fallback: dict[str, Any] | None = None) -> None:
        self.tuned = MappingProxyType(TUNED) if tuned is None else tuned
        self.fallback = dict(NGRAM_FALLBACK) if fallback is None else fallback

    def __eq__(self, other: object) -> bool:
        if type(other) is not PresetTable:
            return NotImplemented
        return (self.tuned, self.fallback) == (other.tuned, other.fallback)

    def extended(self, tuned_extra: Mapping[str, dict[str, Any]],
                 fallback: dict[str, Any] | None = None) -> "PresetTable":
        """A copy with extra tuned presets (they win over built-ins) and optionally a new fallback."""
        tuned = {**self.tuned, **{canonical(name): dict(cfg) for name, cfg in tuned_extra.items()}}
        return PresetTable(MappingProxyType(tuned), dict(fallback) if fallback is not None else self.fallback)


DEFAULT_TABLE = PresetTable()


class Resolution(NamedTuple):
    """What a preset name resolves to; `json` is the exact `speculative-config` text."""

    preset: str
    canonical: str
    method: str
    json: str
    tuned: bool


def resolve(preset: str, table: PresetTable = DEFAULT_TABLE) -> Resolution:
    """Decide the speculative config for a preset name."""
    key = canonical(preset)
    if key not in table.tuned:
        return fallback(table, preset, key)
    return Resolution(preset, key, str(table.tuned[key]["method"]), config_json(table.tuned[key]), tuned=True)


def fallback(table: PresetTable = DEFAULT_TABLE, preset: str = "", key: str = "") -> Resolution:
    """The config of an untuned preset (canonical `key`), or of a model that cannot be known (no preset)."""
    return Resolution(preset, key, str(table.fallback["method"]), config_json(table.fallback), tuned=False)


def _display_names(table: PresetTable) -> list[tuple[str, str]]:
    """(name shown to users, canonical key) for every tuned entry: documented spellings first."""
    shown: dict[str, str] = {}
    for name in TUNED_DISPLAY:
        key = canonical(name)
        if key in table.tuned:
            shown.setdefault(key, name)
    extra = sorted(key for key in table.tuned if key not in shown)
    return [(shown[key], key) for key in shown] + [(key, key) for key in extra]


def describe(table: PresetTable = DEFAULT_TABLE, as_json: bool = False) -> str:
    """The text of `kaito-specdec presets`: tuned presets, legacy aliases and the fallback."""
    names = _display_names(table)
    if as_json:
        doc = {
            "tuned": {name: dict(table.tuned[key]) for name, key in names},
            "aliases": dict(aliases()),
            "fallback": dict(table.fallback),
        }
        return json.dumps(doc, indent=2, sort_keys=True) + "\n"
    width = max(len(name) for name in [*(n for n, _ in names), *aliases()])
    lines = ["Tuned presets:"]
    lines += [f"  {name:<{width}}  {config_json(table.tuned[key])}" for name, key in names]
    lines += ["", "Legacy short names:"]
    lines += [f"  {short:<{width}}  {target}" for short, target in aliases().items()]
    lines += ["", "Every other preset (fallback):", f"  {config_json(table.fallback)}"]
    return "\n".join(lines) + "\n"


def quoted(value: Any) -> str:
    """A value in a message, as Go's %q writes it (the way KAITO's messages quote values)."""
    return goquote(value) if isinstance(value, str) else json.dumps(value, default=str)
