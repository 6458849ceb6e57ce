"""functionConfig (and environment) -> frozen Settings, validated once, up front.

Errors name the setting, say what arrived and what was expected. No other stage reads raw config.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from . import constants as C
from .quoting import goquote
from .presets import DEFAULT_TABLE, TABLES_VERSION, PresetTable, parse_config_json
from .results import Severity

MODES = ("materialize", "validate")
FAIL_ON = ("error", "warning")
SETTINGS = ("mode", "failOn", "tunedPresets", "ngramFallback", "kaitoVersion", "featureGates")
# Environment names for the settings that make sense outside a functionConfig.
ENV_NAMES = {"mode": "MODE", "failOn": "FAIL_ON", "tunedPresets": "TUNED_PRESETS",
             "ngramFallback": "NGRAM_FALLBACK", "kaitoVersion": "KAITO_VERSION",
             "featureGates": "FEATURE_GATES"}

# KAITO's --feature-gates names (pkg/featuregates/featuregates.go, v0.12.0). The function follows two of
# them; the others are accepted so that a cluster's flag can be pasted as it is.
GATE_VLLM = "vLLM"
GATE_MRI = "enableMultiRoleInferenceController"
KAITO_GATES = (GATE_VLLM, "disableNodeAutoProvisioning", "gatewayAPIInferenceExtension",
               "enableInferenceSetController", "enableMIG", "enableAccelerator", GATE_MRI, "ModelMirror",
               "ModelStreaming", "enableBaseImageAutoUpgrade")
# Both on by default: KAITO's own default for the MultiRoleInference controller is off, but a repository
# that holds MultiRoleInferences runs KAITO with it on.
DEFAULT_GATES = MappingProxyType({GATE_VLLM: True, GATE_MRI: True})
# Go's strconv.ParseBool, which KAITO's flag parser (cliflag.MapStringBool) uses.
_GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
             "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?")


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
    kaito_version: str = TABLES_VERSION
    feature_gates: Mapping[str, bool] = field(default_factory=lambda: DEFAULT_GATES)
    disable: frozenset[str] = frozenset()  # finding ids whose results are dropped (before the error gate)

    @property
    def materialize(self) -> bool:
        return self.mode == "materialize"

    @property
    def vllm_gate(self) -> bool:
        return self.feature_gates.get(GATE_VLLM, True)

    @property
    def mri_controller(self) -> bool:
        return self.feature_gates.get(GATE_MRI, True)

    @property
    def knows_annotation(self) -> bool:
        """KAITO v0.13.0 brought the annotation; older versions ignore it (and do not push a changed
        spec.template.inference to an InferenceSet's existing Workspaces)."""
        return version_tuple(self.kaito_version) >= (0, 13, 0)


def version_tuple(text: str) -> tuple[int, int, int]:
    m = _VERSION.fullmatch(text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def parse_version(value: Any) -> str:
    if not isinstance(value, str) or not _VERSION.fullmatch(value.strip()):
        raise ConfigError(f"kaitoVersion: invalid value {_q(value)}; expected a KAITO release such as v0.12.0",
                          "kaitoVersion")
    major, minor, patch = version_tuple(value.strip())
    return f"v{major}.{minor}.{patch}"


def parse_feature_gates(value: Any) -> Mapping[str, bool]:
    """KAITO's `--feature-gates` syntax: `name=bool` pairs separated by commas (Go's ParseBool values)."""
    if not isinstance(value, str):
        raise ConfigError(f"featureGates: expected a string such as \"vLLM=false\", got {type(value).__name__}",
                          "featureGates")
    gates = dict(DEFAULT_GATES)
    for pair in value.split(","):
        if not pair.strip():
            continue
        name, sep, raw = pair.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep:
            raise ConfigError(f"featureGates: malformed pair {_q(pair.strip())}, expect name=bool", "featureGates")
        if name not in KAITO_GATES:
            raise ConfigError(f"featureGates: unknown KAITO feature gate {_q(name)}; known gates: "
                              f"{', '.join(KAITO_GATES)}", "featureGates")
        if raw not in _GO_BOOLS:
            raise ConfigError(f"featureGates: invalid value of {name}: {_q(raw)}; expected true or false",
                              "featureGates")
        gates[name] = _GO_BOOLS[raw]
    return MappingProxyType(gates)


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
    raise ConfigError(f"functionConfig has kind {_q(kind)}; expected ConfigMap or {C.POLICY_KIND}")


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
    unknown = sorted(set(raw) - set(SETTINGS), key=str)  # keys may be of mixed types (`1:` and `a:`)
    if unknown:
        raise ConfigError(f"unknown setting {_q(unknown[0])}; known settings: {', '.join(SETTINGS)}",
                          unknown[0])
    mode = raw.get("mode", "materialize")
    if mode not in MODES:
        raise ConfigError(f"mode: invalid value {_q(mode)}; expected one of: {', '.join(MODES)}", "mode")
    fail_on = raw.get("failOn", "error")
    if fail_on not in FAIL_ON:
        raise ConfigError(f"failOn: invalid value {_q(fail_on)}; expected one of: {', '.join(FAIL_ON)}",
                          "failOn")
    tuned: dict[str, dict] = {}
    if raw.get("tunedPresets") not in (None, ""):
        for name, cfg in _mapping(raw["tunedPresets"], "tunedPresets").items():
            if not isinstance(name, str) or not name:
                raise ConfigError(f"tunedPresets: preset names must be non-empty strings, got {_q(name)}",
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
    version = parse_version(raw["kaitoVersion"]) if raw.get("kaitoVersion") not in (None, "") else TABLES_VERSION
    gates = parse_feature_gates(raw["featureGates"]) if raw.get("featureGates") is not None else DEFAULT_GATES
    return Settings(mode=mode, fail_on=Severity(fail_on), presets=table, kaito_version=version,
                    feature_gates=gates)


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


def _q(value: Any) -> str:
    """A value in a message, as Go's %q writes it (the way KAITO's messages quote values)."""
    return goquote(value) if isinstance(value, str) else json.dumps(value, default=str)
