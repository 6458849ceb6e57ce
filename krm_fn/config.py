"""functionConfig (and environment) -> frozen Settings, validated once, up front.

Errors name the setting, say what arrived and what was expected. No other stage reads raw config.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import constants as C
from .presets import DEFAULT_TABLE, PresetTable, parse_config_json
from .results import Severity

MODES = ("materialize", "validate")
FAIL_ON = ("error", "warning")
SETTINGS = ("mode", "failOn", "tunedPresets", "ngramFallback")
# Environment names for the settings that make sense outside a functionConfig.
ENV_NAMES = {"mode": "MODE", "failOn": "FAIL_ON", "tunedPresets": "TUNED_PRESETS",
             "ngramFallback": "NGRAM_FALLBACK"}


class ConfigError(Exception):
    """A setting is unknown or has a bad value; the message names it, `field` says where it was set."""

    def __init__(self, message: str, setting: str = "", field: str = "") -> None:
        super().__init__(message)
        self.setting = setting
        self.field = field


# The input size cap (issue 10): read before any functionConfig exists, so only the environment (and
# `render --max-input`) can set it. Bytes, or a number with a Ki/Mi/Gi suffix.
MAX_INPUT_ENV = "MAX_INPUT"
DEFAULT_MAX_INPUT = 256 * 1024 * 1024
_SIZE_UNITS = {"": 1, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3}


def parse_size(text: str) -> int:
    """`268435456`, `256Mi`, `1Gi` -> bytes; ValueError with a message a user can act on."""
    raw = text.strip()
    unit = raw[-2:] if raw[-2:] in _SIZE_UNITS else ""
    number = raw[: len(raw) - len(unit)]
    if not number.isdigit() or int(number) == 0:
        raise ValueError(f"invalid size {text!r}; expected a positive number of bytes, optionally with "
                         "Ki, Mi or Gi (e.g. 512Mi)")
    return int(number) * _SIZE_UNITS[unit]


def max_input(environ: Mapping[str, str]) -> int:
    """The input size cap from KAITO_SPECDEC_MAX_INPUT (or Argo CD's ARGOCD_ENV_ form); the plain form wins."""
    for name in (C.ENV_PREFIX + MAX_INPUT_ENV, C.ARGOCD_ENV_PREFIX + C.ENV_PREFIX + MAX_INPUT_ENV):
        if environ.get(name, "") != "":
            try:
                return parse_size(environ[name])
            except ValueError as exc:
                raise ConfigError(f"environment variable {name}: {exc}", "maxInput") from None
    return DEFAULT_MAX_INPUT


@dataclass(frozen=True)
class Settings:
    mode: str = "materialize"
    fail_on: Severity = Severity.ERROR
    presets: PresetTable = field(default=DEFAULT_TABLE)

    @property
    def materialize(self) -> bool:
        return self.mode == "materialize"


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings from KAITO_SPECDEC_* and Argo CD's ARGOCD_ENV_KAITO_SPECDEC_* (the plain form wins)."""
    raw: dict[str, Any] = {}
    for setting, suffix in ENV_NAMES.items():
        for name in (C.ARGOCD_ENV_PREFIX + C.ENV_PREFIX + suffix, C.ENV_PREFIX + suffix):
            if environ.get(name, "") != "":
                raw[setting] = environ[name]
    return raw


def raw_from_function_config(fc: Any) -> dict[str, Any]:
    """The settings mapping inside a functionConfig object (ConfigMap data or a policy's spec)."""
    if fc is None or fc == {}:
        return {}
    if not isinstance(fc, dict):
        raise ConfigError("functionConfig is not a mapping; expected a ConfigMap or a "
                          f"{C.POLICY_KIND}")
    kind = fc.get("kind")
    if kind == C.CONFIGMAP_KIND:
        data = fc.get("data")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ConfigError("functionConfig ConfigMap data is not a mapping of strings")
        return {str(k): v for k, v in data.items()}
    if kind == C.POLICY_KIND:
        spec = fc.get("spec")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            raise ConfigError(f"functionConfig {C.POLICY_KIND} spec is not a mapping")
        return dict(spec)
    raise ConfigError(f"functionConfig has kind {kind!r}; expected ConfigMap or {C.POLICY_KIND}")


def _mapping(value: Any, setting: str) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{setting}: not valid JSON ({exc.msg} at line {exc.lineno}, "
                              f"column {exc.colno})", setting) from None
    if not isinstance(value, dict):
        raise ConfigError(f"{setting}: expected a mapping of preset name to speculative config JSON, "
                          f"got {type(value).__name__}", setting)
    return value


def settings_from(raw: Mapping[str, Any]) -> Settings:
    unknown = sorted(set(raw) - set(SETTINGS))
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r}; known settings: {', '.join(SETTINGS)}",
                          unknown[0])
    mode = raw.get("mode", "materialize")
    if mode not in MODES:
        raise ConfigError(f"mode: invalid value {mode!r}; expected one of: {', '.join(MODES)}", "mode")
    fail_on = raw.get("failOn", "error")
    if fail_on not in FAIL_ON:
        raise ConfigError(f"failOn: invalid value {fail_on!r}; expected one of: {', '.join(FAIL_ON)}",
                          "failOn")
    tuned: dict[str, dict] = {}
    if raw.get("tunedPresets") not in (None, ""):
        for name, cfg in _mapping(raw["tunedPresets"], "tunedPresets").items():
            if not isinstance(name, str) or not name:
                raise ConfigError(f"tunedPresets: preset names must be non-empty strings, got {name!r}",
                                  "tunedPresets")
            try:
                tuned[name] = parse_config_json(cfg, f"tunedPresets[{json.dumps(name)}]")
            except ValueError as exc:
                raise ConfigError(str(exc), "tunedPresets") from None
    fallback = None
    if raw.get("ngramFallback") not in (None, ""):
        try:
            fallback = parse_config_json(raw["ngramFallback"], "ngramFallback")
        except ValueError as exc:
            raise ConfigError(str(exc), "ngramFallback") from None
    table = DEFAULT_TABLE.extended(tuned, fallback) if (tuned or fallback) else DEFAULT_TABLE
    return Settings(mode=mode, fail_on=Severity(fail_on), presets=table)


def resolve_settings(fc: Any, environ: Mapping[str, str], overrides: Mapping[str, Any] | None = None
                     ) -> Settings:
    """Environment, then the functionConfig, then explicit CLI flags: later wins.

    Each source is checked on its own first, so an error says where the bad value was set.
    """
    env = from_environment(environ)
    try:
        settings_from(env)
    except ConfigError as exc:
        name = C.ENV_PREFIX + ENV_NAMES.get(exc.setting, exc.setting.upper())
        raise ConfigError(f"environment variable {name} (or {C.ARGOCD_ENV_PREFIX}{name}): {exc}",
                          exc.setting) from None
    try:
        raw = raw_from_function_config(fc)
        settings_from(raw)
    except ConfigError as exc:
        where = "spec" if isinstance(fc, dict) and fc.get("kind") == C.POLICY_KIND else "data"
        known = exc.setting in SETTINGS
        raise ConfigError(f"invalid functionConfig: {exc}", exc.setting,
                          f"functionConfig.{where}.{exc.setting}" if known else "") from None
    merged = {**env, **raw, **(overrides or {})}
    return settings_from(merged)
