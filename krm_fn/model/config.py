"""functionConfig (and environment) -> frozen Settings, validated once, up front.

Errors name the setting, say what arrived and what was expected. No other stage reads raw config.
"""

import difflib
import shlex
import re
import json
from types import MappingProxyType
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ..domain import constants as C
from ..findings import ID_PATTERN, can_disable, known
from ..text import krm
from ..domain.presets import (DEFAULT_TABLE, PresetTable, json_int, lone_surrogate, not_unicode,
    parse_config_json, quoted as _q)
from ..domain.constants import DEFAULT_MIN_ACCEPTANCE_RATE
from ..domain import kaito_releases
from ..domain.kaito_releases import KaitoRelease
from ..domain.vllm_schema import DEFAULT_VLLM_VERSION
from ..domain.vllm_schema import parse_version as vllm_release
from ..text.results import Finding, Result, Severity, finding

MODES = ("materialize", "validate")
FAIL_ON = ("error", "warning")
SETTINGS = ("mode", "failOn", "tunedPresets", "ngramFallback", "kaitoVersion", "vllmVersion", "featureGates",
            "disable", "prometheusRules", "minAcceptanceRate", "grafanaDashboards")
# Each setting's environment name (after C.ENV_PREFIX): its name in upper snake case (failOn: FAIL_ON).
ENV_NAMES = {s: "".join("_" + c if c.isupper() else c.upper() for c in s) for s in SETTINGS}

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
# ASCII digits only (`\d` would take ٣ and ²), at most 9 a part: int() refuses 4 300 digits and up.
_VERSION = re.compile(r"v?([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?(?:[-+][0-9A-Za-z.+-]*)?")


class ConfigError(Exception):
    """A setting is unknown or has a bad value: `finding` says so (its message names the setting; its field,
    where a functionConfig object set it), `setting` is the setting's name. `more`: the other errors of the
    same source, each said on its own.

    Its message starts with where the value was set (the templates' `{source}`): "" where a value is judged,
    which knows nothing of where it came from; resolve_settings says it (`prefixed`)."""

    def __init__(self, found: Finding, setting: str = "", more: "tuple[ConfigError, ...]" = ()) -> None:
        super().__init__(found.message)
        self.finding = found
        self.setting = setting
        self.more = more

    @property
    def id(self) -> str:
        return self.finding.id

    @property
    def field(self) -> str:
        return self.finding.field

    def prefixed(self, source: str, field: str = "") -> "ConfigError":
        """A copy that says where the setting was set: `source` (`environment variable …: `) in the message's
        leading `{source}`, `field` the functionConfig key it was set at."""
        return ConfigError(self.finding._replace(message=source + self.finding.message, field=field), self.setting)

    def unplaced(self, scope: str) -> Result:
        """This error as a Result where no object stands for the settings' source (a --config file, the
        environment): without the field, `scope` the stderr line's subject."""
        return self.finding._replace(field="").result(scope=scope)

    def each(self) -> "list[ConfigError]":
        """This error and the others found with it, in order."""
        return [self, *self.more]

    def mapped(self, fn: "Callable[[ConfigError], ConfigError]") -> "ConfigError":
        """Every error of it rewritten by `fn` (where the source was: the environment, the functionConfig)."""
        first, *rest = [fn(e) for e in self.each()]
        first.more = tuple(rest)
        return first


# The input size cap: read before any functionConfig exists, so only the environment (and
# `render --max-input`) can set it. Bytes, or a number with a Ki/Mi/Gi suffix.
MAX_INPUT_ENV = "MAX_INPUT"
DEFAULT_MAX_INPUT = 256 * 1024 * 1024
_SIZE_UNITS = {"": 1, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3}


def parse_size(text: str) -> int:
    """`268435456`, `256Mi`, `1Gi` -> bytes; ConfigError with a message a user can act on."""
    raw = text.strip()
    unit = raw[-2:] if raw[-2:] in _SIZE_UNITS else ""
    number = raw[: len(raw) - len(unit)]
    # ASCII digits only: str.isdigit() is true for ² and ٣ (which int() refuses or reads as 3); 18 at most,
    # so int() never meets its 4 300-digit limit (and no size is larger).
    if not (number.isascii() and number.isdigit()) or len(number) > 18 or int(number) == 0:
        raise ConfigError(finding("SD021.maxInput", source="", value=text), "maxInput")
    return int(number) * _SIZE_UNITS[unit]


def max_input(environ: Mapping[str, str]) -> int:
    """The input size cap from KAITO_SPECDEC_MAX_INPUT (or Argo CD's ARGOCD_ENV_ form); the plain form wins."""
    for name in (C.ENV_PREFIX + MAX_INPUT_ENV, C.ARGOCD_ENV_PREFIX + C.ENV_PREFIX + MAX_INPUT_ENV):
        if environ.get(name, "") != "":
            try:
                return parse_size(environ[name])
            except ConfigError as exc:
                raise exc.prefixed(f"environment variable {name}: ") from None
    return DEFAULT_MAX_INPUT


# The kustomize `render DIR` builds kustomizations with: a program only the command line and the environment
# name, never a functionConfig (it travels with the manifests into kpt and Argo CD, which run no program it names).
KUSTOMIZE_ENV = "KUSTOMIZE"


def kustomize_program(environ: Mapping[str, str]) -> tuple[str, str]:
    """The kustomize KAITO_SPECDEC_KUSTOMIZE (or Argo CD's ARGOCD_ENV_ form) names ("" for none; the plain
    form wins), and the PATH to look it up on (render asks for `kustomize`, else `kubectl`, when none is named)."""
    for name in (C.ENV_PREFIX + KUSTOMIZE_ENV, C.ARGOCD_ENV_PREFIX + C.ENV_PREFIX + KUSTOMIZE_ENV):
        if environ.get(name, "") != "":
            return environ[name], environ.get("PATH", "")
    return "", environ.get("PATH", "")


KUSTOMIZE_FLAGS_ENV = "KUSTOMIZE_FLAGS"


def kustomize_flags(environ: Mapping[str, str]) -> list[str]:
    """The flags KAITO_SPECDEC_KUSTOMIZE_FLAGS (or Argo CD's ARGOCD_ENV_ form) passes to every build, split
    as a shell splits words (`--enable-helm --load-restrictor LoadRestrictionsNone`); [] for none."""
    for name in (C.ENV_PREFIX + KUSTOMIZE_FLAGS_ENV, C.ARGOCD_ENV_PREFIX + C.ENV_PREFIX + KUSTOMIZE_FLAGS_ENV):
        if environ.get(name, "").strip():
            try:
                return shlex.split(environ[name])
            except ValueError as exc:  # an unclosed quote
                raise ConfigError(finding("SD021.config", source="", reason=f"{name}: {exc}")) from None
    return []


class Settings(NamedTuple):
    mode: str = "materialize"
    fail_on: Severity = Severity.ERROR
    presets: PresetTable = DEFAULT_TABLE
    # The release whose tables and webhook rules apply; with none set, the newest (v0.13.0, kaito-project/kaito#2312),
    # and the rollout output is then the one safe on every release (docs/settings.md).
    kaito_version: KaitoRelease = kaito_releases.DEFAULT
    kaito_version_unknown: bool = False  # no source set kaitoVersion: the rollout must be safe on every release
    # The vLLM release KAITO workloads are judged by: the vllmVersion setting, else the one kaito_version's image
    # runs (kaito_releases.image_vllm; SD428 says which, at -v). A plain workload goes by the setting alone, else
    # by its own image (plain_vllm_version).
    vllm_version: str = DEFAULT_VLLM_VERSION
    vllm_version_set: bool = False     # given by a source
    feature_gates: Mapping[str, bool] = DEFAULT_GATES
    disable: frozenset[str] = frozenset()  # finding ids not to report (the `disable` setting)
    prometheus_rules: bool = False  # one PrometheusRule per namespace with enabled workloads
    min_acceptance_rate: float = DEFAULT_MIN_ACCEPTANCE_RATE  # the rule's alert threshold
    # One Grafana dashboard ConfigMap per namespace with enabled workloads (grafanaDashboards); the dashboard reads
    # the rule's records, so it turns prometheus_rules on too (resolve_settings).
    grafana_dashboards: bool = False
    notes: tuple[Result, ...] = ()  # warnings about the settings themselves: the pipeline reports them once a run

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
    def rollout_releases(self) -> str:
        """Where a note of the v0.11-v0.12 rollout rules holds (krm_fn/model/rollout.py): the set release, or those."""
        return "v0.11-v0.12 (set kaitoVersion to yours)" \
            if self.kaito_version_unknown else str(self.kaito_version)

    @property
    def plain_vllm_version(self) -> str | None:
        """The vllmVersion setting, which every plain workload runs; None where unset (a plain workload's image
        tag decides, else vllm_schema's default, SD735)."""
        return self.vllm_version if self.vllm_version_set else None

    @property
    def knows_annotation(self) -> bool:
        """KAITO v0.13.0 brought the annotation; older versions ignore it (and do not push a changed
        spec.template.inference to an InferenceSet's existing Workspaces)."""
        return self.kaito_version >= kaito_releases.READS_THE_ANNOTATION


def parse_version(value: Any) -> KaitoRelease:
    """A kaitoVersion (`v0.12.0`, `0.12`) as a release this function has facts of."""
    try:
        release = kaito_releases.parse(value.strip() if isinstance(value, str) else "")
    except ValueError:
        raise ConfigError(finding("SD021.kaitoVersion", source="", value=_q(value)), "kaitoVersion") from None
    if not kaito_releases.known(release):
        raise ConfigError(finding("SD021.kaitoVersion-unmodelled", source="", value=value.strip(),
                                  first=kaito_releases.FIRST_KNOWN.minor_release,
                                  last=kaito_releases.LAST_KNOWN.minor_release), "kaitoVersion")
    return release


def older_than_modelled(version: KaitoRelease, field: str) -> Result | None:
    """SD048 when `version` is older than the releases whose admission and rollout are modelled; `field`:
    where the setting was set (the functionConfig's key, or the setting's name)."""
    if version[:2] >= kaito_releases.MODELLED_FROM[:2]:
        return None
    return finding("SD048", field, version=version, first=kaito_releases.MODELLED_FROM,
                   last=kaito_releases.LAST_KNOWN.minor_release).result()


def parse_vllm_version(value: Any) -> str:
    """`0.25.1`, `v0.11`, `0.11.0rc2` -> the release as given, stripped (vllm_schema judges it by number)."""
    try:
        vllm_release(value)
    except ValueError:
        # Unquoted, YAML reads 0.10 as the number 0.1: refused rather than read as another release.
        said = {"value": _q(value), "default": DEFAULT_VLLM_VERSION}
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ConfigError(finding("SD021.vllmVersion-number", source="", **said), "vllmVersion") from None
        raise ConfigError(finding("SD021.vllmVersion", source="", **said), "vllmVersion") from None
    release: str = value  # a string: parse_version took it
    return release.strip()


def _switch(value: Any) -> bool | None:
    """`"true"`/`"false"` (a ConfigMap's data is strings), or a YAML boolean in a policy's spec; None: neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    return None


def parse_prometheus_rules(value: Any) -> bool:
    found = _switch(value)
    if found is None:
        raise ConfigError(finding("SD021.prometheusRules", source="", value=_q(value)), "prometheusRules")
    return found


def parse_grafana_dashboards(value: Any) -> bool:
    found = _switch(value)
    if found is None:
        raise ConfigError(finding("SD021.grafanaDashboards", source="", value=_q(value)), "grafanaDashboards")
    return found


# A plain decimal: no NaN, no infinity, no hex, no underscores (which float() would take).
_DECIMAL = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"


def parse_min_acceptance_rate(value: Any) -> float:
    """`"0.3"` (a ConfigMap's data is strings) or a number in a policy's spec, from 0 to 1."""
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str) and re.fullmatch(_DECIMAL, value.strip()):
        number = float(value.strip())
    if number is None or not 0 <= number <= 1:
        raise ConfigError(finding("SD021.minAcceptanceRate", source="", value=_q(value),
                                  default=DEFAULT_MIN_ACCEPTANCE_RATE), "minAcceptanceRate")
    return number


def parse_feature_gates(value: Any) -> Mapping[str, bool]:
    """KAITO's `--feature-gates` syntax: `name=bool` pairs separated by commas (Go's ParseBool values)."""
    if not isinstance(value, str):
        raise ConfigError(finding("SD021.featureGates", source="", got=type(value).__name__), "featureGates")
    gates = dict(DEFAULT_GATES)
    for pair in value.split(","):
        if not pair.strip():
            continue
        name, sep, raw = pair.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep:
            raise ConfigError(finding("SD021.featureGates-pair", source="", pair=pair.strip()), "featureGates")
        if name not in KAITO_GATES:
            raise ConfigError(finding("SD021.featureGates-gate", source="", gate=name, known=", ".join(KAITO_GATES)),
                              "featureGates")
        if raw not in _GO_BOOLS:
            raise ConfigError(finding("SD021.featureGates-value", source="", gate=name, value=raw), "featureGates")
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
        raise ConfigError(finding("SD032.not-a-mapping", source=""))
    kind = fc.get("kind")
    if kind == krm.CONFIGMAP_KIND:
        data = fc.get("data")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ConfigError(finding("SD032.data-not-a-mapping", source=""))
        return {str(k): v for k, v in data.items()}
    if kind == krm.POLICY_KIND:
        spec = fc.get("spec")
        if spec is None:
            return {}
        if not isinstance(spec, dict):
            raise ConfigError(finding("SD032.spec-not-a-mapping", source=""))
        return dict(spec)
    raise ConfigError(finding("SD032.kind", source="", kind=_q(kind)))


def _presets_mapping(value: Any) -> dict[str, Any]:
    """tunedPresets: a JSON object as a string (a ConfigMap's data), or a mapping (a policy's spec)."""
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_int=json_int) if value.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(finding("SD021.tunedPresets-json", source="", reason=exc.msg, line=exc.lineno,
                                      column=exc.colno), "tunedPresets") from None
        except ValueError as exc:  # json_int's
            raise ConfigError(finding("SD021.tunedPresets-number", source="", reason=exc), "tunedPresets") from None
    if not isinstance(value, dict):
        raise ConfigError(finding("SD021.tunedPresets", source="", got=type(value).__name__), "tunedPresets")
    return value


def parse_disable(value: Any) -> frozenset[str]:
    """`SD112, SD008` (or, in a policy's spec, a list) -> the ids, each one the catalogue declares and lets
    `disable` name (or one merged into such an id). A typo must not silently disable nothing, so each id is checked."""
    entries = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
    if entries is None or not all(isinstance(e, str) for e in entries):
        raise ConfigError(finding("SD021.disable", source="", value=_q(value)), "disable")
    out = set()
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        if not re.fullmatch(ID_PATTERN, entry):
            raise ConfigError(finding("SD021.disable-malformed", source="", entry=entry), "disable")
        if not known(entry):
            raise ConfigError(finding("SD021.disable-unknown", source="", entry=entry), "disable")
        if not can_disable(entry):
            raise ConfigError(finding("SD041", source="", entry=entry), "disable")
        out.add(entry)
    return frozenset(out)


def settings_from(raw: Mapping[str, Any], judge_by: str | None = None) -> Settings:
    """`judge_by`: the (valid) vLLM release that tunedPresets/ngramFallback are checked against when a later
    source sets vllmVersion or kaitoVersion (resolve_settings checks each source alone, but vLLM runs the merged
    version: _merged_version)."""
    errors: list[ConfigError] = []

    def checked(key: str, parse: Callable[[Any], Any], default: Any, unset: tuple[object, ...] = (None, "")) -> Any:
        """What `parse` reads of setting `key`, or `default` where it is unset or in error (the error kept:
        every setting is checked, every error said)."""
        if raw.get(key) in unset:
            return default
        try:
            return parse(raw[key])
        except ConfigError as exc:
            errors.append(exc)
        except ValueError as exc:  # presets.py words what is wrong with a config
            errors.append(ConfigError(finding("SD021.config", source="", reason=exc), key))
        return default

    for key in sorted(set(raw) - set(SETTINGS), key=str):  # keys may be of mixed types (`1:` and `a:`)
        errors.append(_unknown(key))
    mode = raw.get("mode", "materialize")
    if mode not in MODES:
        errors.append(ConfigError(finding("SD021.mode", source="", value=_q(mode), expected=", ".join(MODES)), "mode"))
    fail_on = raw.get("failOn", "error")
    if fail_on not in FAIL_ON:
        errors.append(ConfigError(finding("SD021.failOn", source="", value=_q(fail_on), expected=", ".join(FAIL_ON)),
                                  "failOn"))
    vllm = checked("vllmVersion", parse_vllm_version, None)
    version = checked("kaitoVersion", parse_version, kaito_releases.DEFAULT)
    if vllm is None:  # unset (or in error): the vLLM of the kaitoVersion release's image (the newest's, with none)
        vllm = kaito_releases.image_vllm(version).vllm
    judge = judge_by or vllm
    tuned = checked("tunedPresets", lambda value: _tuned_presets(value, judge), {})
    fallback = checked("ngramFallback", lambda value: parse_config_json(value, "ngramFallback", judge), None)
    table = DEFAULT_TABLE.extended(tuned, fallback) if (tuned or fallback) else DEFAULT_TABLE
    gates = checked("featureGates", parse_feature_gates, DEFAULT_GATES, unset=(None,))
    disable = checked("disable", parse_disable, frozenset(), unset=(None,))
    rules = checked("prometheusRules", parse_prometheus_rules, False)
    threshold = checked("minAcceptanceRate", parse_min_acceptance_rate, DEFAULT_MIN_ACCEPTANCE_RATE)
    dashboards = checked("grafanaDashboards", parse_grafana_dashboards, False)
    if errors:  # all of them, as one ConfigError
        errors[0].more = tuple(errors[1:])
        raise errors[0]
    return Settings(mode=mode, fail_on=Severity(fail_on), presets=table, kaito_version=version,
                    vllm_version=vllm, feature_gates=gates, disable=disable,
                    prometheus_rules=rules or dashboards, grafana_dashboards=dashboards,
                    min_acceptance_rate=threshold, vllm_version_set=raw.get("vllmVersion") not in (None, ""),
                    kaito_version_unknown=raw.get("kaitoVersion") in (None, ""))


def _tuned_presets(value: Any, judge: str) -> dict[str, dict[str, Any]]:
    tuned: dict[str, dict[str, Any]] = {}
    for name, cfg in _presets_mapping(value).items():
        if not isinstance(name, str) or not name:
            raise ConfigError(finding("SD021.tunedPresets-name", source="", name=_q(name)), "tunedPresets")
        if lone_surrogate(name) is not None:
            not_text = not_unicode("tunedPresets", name, "preset name ")
            raise ConfigError(finding("SD021.config", source="", reason=not_text), "tunedPresets")
        try:
            tuned[name] = parse_config_json(cfg, f"tunedPresets[{json.dumps(name)}]", judge)
        except ValueError as exc:  # presets.py words what is wrong with the config
            raise ConfigError(finding("SD021.config", source="", reason=exc), "tunedPresets") from None
    return tuned


def _unknown(key: Any) -> ConfigError:
    """An unknown setting, with the one it most likely means (`failon`, `kaito_version`, `tunedPreset`), or all
    of them."""
    folded = {s.lower(): s for s in SETTINGS}
    text = str(key).replace("_", "").replace("-", "").lower()
    close = folded.get(text) or next(iter(difflib.get_close_matches(text, list(folded), n=1, cutoff=0.6)), None)
    if close is not None:
        return ConfigError(finding("SD020.did-you-mean", source="", key=_q(key), setting=folded.get(close, close)), key)
    return ConfigError(finding("SD020.known-settings", source="", key=_q(key), known=", ".join(SETTINGS)), key)


def resolve_settings(fc: Any, environ: Mapping[str, str], overrides: Mapping[str, Any] | None = None) -> Settings:
    """Environment, then the functionConfig, then explicit CLI flags: later wins (`disable` too: the
    later list replaces the earlier one).

    Each source is checked on its own first, so an error says where the bad value was set.
    """
    env = from_environment(environ)
    where = "spec" if isinstance(fc, dict) and fc.get("kind") == krm.POLICY_KIND else "data"
    try:
        later = raw_from_function_config(fc)
    except ConfigError:
        later = {}  # reported below, as the functionConfig's error
    # vLLM runs the merged version: each source's configs are judged by it.
    version = _merged_version(env, later, overrides or {})
    try:
        settings_from(env, version)
    except ConfigError as exc:
        def in_env(e: ConfigError) -> ConfigError:
            name = C.ENV_PREFIX + ENV_NAMES.get(e.setting, e.setting.upper())
            return e.prefixed(f"environment variable {name} (or {C.ARGOCD_ENV_PREFIX}{name}): ")
        raise exc.mapped(in_env) from None
    try:
        raw = raw_from_function_config(fc)
        settings_from(raw, version)
    except ConfigError as exc:
        def in_fc(e: ConfigError) -> ConfigError:
            known = e.setting in SETTINGS
            return e.prefixed("invalid functionConfig: ", f"functionConfig.{where}.{e.setting}" if known else "")
        raise exc.mapped(in_fc) from None
    merged = {**env, **raw, **(overrides or {})}
    settings = settings_from(merged)
    if settings.kaito_version_unknown:
        return settings
    # Said where the kaitoVersion that wins was set: the functionConfig's key, else the setting (a flag, the
    # environment).
    from_fc = (overrides or {}).get("kaitoVersion") in (None, "") and raw.get("kaitoVersion") not in (None, "")
    note = older_than_modelled(settings.kaito_version,
                               f"functionConfig.{where}.kaitoVersion" if from_fc else "kaitoVersion")
    return settings if note is None else settings._replace(notes=(note,))


def _merged_version(*sources: Mapping[str, Any]) -> str | None:
    """The vllmVersion the last source that sets one sets; with none, the vLLM of the image of the kaitoVersion
    the last source that sets one sets. None where that value is invalid (it is that source's error)."""
    def last(key: str) -> Any:
        return next((s[key] for s in reversed(sources) if s.get(key) not in (None, "")), None)

    try:
        if last("vllmVersion") is not None:
            return parse_vllm_version(last("vllmVersion"))
        kaito = last("kaitoVersion")
        return kaito_releases.image_vllm(kaito_releases.DEFAULT if kaito is None else parse_version(kaito)).vllm
    except ConfigError:
        return None


def unreadable(exc: Exception) -> ConfigError:
    """A functionConfig that is not YAML one can construct (an alias bomb, a bad tag)."""
    return ConfigError(finding("SD032.unreadable", reason=" ".join(str(exc).split())))
