"""A vLLM model argument (a Hugging Face id, or a path to the weights: docs/plain-vllm.md) -> the same
tuned-or-fallback decision KAITO makes for a preset. No new table: `presets.canonical` and `presets.resolve`
decide, so `tunedPresets`/`ngramFallback` apply.
"""

from typing import NamedTuple
import re

from .presets import DEFAULT_TABLE, PresetTable, Resolution, aliases, canonical, resolve
from .presets import fallback  # noqa: F401  (re-exported: the decision for a model that cannot be known)

# Text that makes a model argument unknowable at render time: a shell or Kubernetes variable
# (`$MODEL`, `${MODEL}`, `$(MODEL)`), a template left unrendered (`{{ .Values.model }}`), a command
# substitution (`` `cat /model` ``).
_UNKNOWABLE = (("$", "an environment variable"), ("{{", "a template placeholder"),
               ("`", "a command substitution"))


# huggingface_hub's cache folder for a model repo: `models--{org}--{name}` (repo names cannot hold `--`).
_HF_CACHE = re.compile(r"models--([^/]+?)--([^/]+)")


class ModelDecision(NamedTuple):
    """What a model argument resolves to. `key` is the table key that decided (the HF id the model was read
    as); `resolution.json` is the exact `--speculative-config` text."""

    model: str
    key: str
    resolution: Resolution


def unknowable(model: str) -> str | None:
    """Why `model` cannot be known at render time (`an environment variable` …), or None."""
    for marker, why in _UNKNOWABLE:
        if marker in model:
            return why
    return None


def _is_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or "://" in model


def candidates(model: str) -> list[str]:
    """The table keys a model argument may stand for, most specific first: the whole argument when it is an
    `org/name` id or a bare (legacy) name, else the path's last two components, then its last one."""
    parts = [p for p in model.split("/") if p and p != "."]
    if not parts:
        return [canonical(model)]
    if len(parts) == 1:
        return [canonical(parts[0])]
    is_path = _is_path(model) or len(parts) > 2
    if not is_path:
        return [canonical("/".join(parts))]
    cached = next((m for m in map(_HF_CACHE.fullmatch, parts) if m), None)
    if cached:   # a snapshot in a Hugging Face cache names its repo in the folder above
        return [canonical(cached.group(1) + "/" + cached.group(2))]
    keys = [canonical(parts[-2] + "/" + parts[-1])]
    if parts[-1].lower() in aliases():
        keys.append(canonical(parts[-1]))
    return keys


def by_name(model: str, table: PresetTable = DEFAULT_TABLE) -> str | None:
    """The one tuned key whose model name (after the org) is the argument's last component
    (`/models/Qwen3.5-9B/` -> qwen/qwen3.5-9b), when no other tuned key has that name; else None."""
    parts = [p for p in model.split("/") if p and p != "."]
    if not parts or (len(parts) == 2 and not _is_path(model)):
        return None   # an HF id names its org: another org's model of that name is another model
    name = parts[-1].lower()
    found = [key for key in table.tuned if key.rpartition("/")[2] == name]
    return found[0] if len(found) == 1 else None


def decide_model(model: str, table: PresetTable = DEFAULT_TABLE) -> ModelDecision:
    """The decision for a known model argument: the first candidate in the tuned table wins, then a tuned
    model of the same name when the argument has no org folder and only one fits (by_name), else the
    fallback (reported under the most specific candidate)."""
    keys = candidates(model)
    for key in keys:
        if key in table.tuned:
            return ModelDecision(model, key, resolve(key, table))
    named = by_name(model, table)
    if named is not None:
        return ModelDecision(model, named, resolve(named, table))
    return ModelDecision(model, keys[0], resolve(keys[0], table))

