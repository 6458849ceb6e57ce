"""Settings: where each comes from, which wins, and errors that say where the bad value was set."""
from __future__ import annotations

import pytest

from krm_fn.model.config import ConfigError, resolve_settings
from krm_fn.text.results import Severity
from runner import run

POLICY = {"kind": "SpeculativeDecodingPolicy", "spec": {"mode": "validate"}}


@pytest.mark.parametrize("fc, env, mode", [
    (None, {}, "materialize"),
    ({}, {}, "materialize"),  # an empty functionConfig is no functionConfig
    ({"kind": "ConfigMap", "data": {}}, {"KAITO_SPECDEC_MODE": "validate"}, "validate"),
    ({"kind": "ConfigMap", "data": {}}, {"ARGOCD_ENV_KAITO_SPECDEC_MODE": "validate"}, "validate"),
    ({"kind": "ConfigMap", "data": {"mode": "materialize"}}, {"KAITO_SPECDEC_MODE": "validate"}, "materialize"),
    (POLICY, {}, "validate"),
    (None, {"KAITO_SPECDEC_MODE": "materialize", "ARGOCD_ENV_KAITO_SPECDEC_MODE": "validate"}, "materialize"),
])
def test_precedence(fc, env, mode) -> None:
    assert resolve_settings(fc, env).mode == mode


def test_render_flag_wins_over_everything() -> None:
    assert resolve_settings(POLICY, {"KAITO_SPECDEC_MODE": "validate"}, {"mode": "materialize"}).mode \
        == "materialize"


def test_fail_on_from_environment() -> None:
    assert resolve_settings(None, {"KAITO_SPECDEC_FAIL_ON": "warning"}).fail_on is Severity.WARNING


@pytest.mark.parametrize("env, words", [
    ({"KAITO_SPECDEC_MODE": "fast"}, "environment variable KAITO_SPECDEC_MODE (or ARGOCD_ENV_KAITO_SPECDEC_MODE): "
                                     "mode: invalid value \"fast\""),
    ({"ARGOCD_ENV_KAITO_SPECDEC_FAIL_ON": "info"}, "environment variable KAITO_SPECDEC_FAIL_ON"),
    ({"KAITO_SPECDEC_NGRAM_FALLBACK": "{}"}, "environment variable KAITO_SPECDEC_NGRAM_FALLBACK"),
])
def test_environment_errors_name_the_variable(env, words) -> None:
    with pytest.raises(ConfigError) as exc:
        resolve_settings(None, env)
    assert words in str(exc.value)


def test_policy_errors_point_into_spec() -> None:
    with pytest.raises(ConfigError) as exc:
        resolve_settings({"kind": "SpeculativeDecodingPolicy", "spec": {"failOn": "never"}}, {})
    assert exc.value.field == "functionConfig.spec.failOn"


def test_a_kaito_item_that_is_no_object_is_an_error_result_not_a_crash() -> None:
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: kaito.sh/v1beta1\n"
            "  kind: Workspace\n  metadata:\n    name: w\n  ? [x]\n  : y\n")
    code, out, err = run([], text)
    assert code == 1
    assert out.startswith(text)  # every input byte, then the results
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "[error] kaito.sh/v1beta1/Workspace/w: cannot be read as a Kubernetes object: ")
    assert "internal error" not in err


@pytest.mark.parametrize("value, want", [
    ("v0.12.0", "v0.12.0"), ("0.12", "v0.12.0"), (" v0.13.1 ", "v0.13.1"), ("v0.13.0-rc.1", "v0.13.0"),
])
def test_kaito_version_values(value, want) -> None:
    assert str(resolve_settings({"kind": "ConfigMap", "data": {"kaitoVersion": value}}, {}).kaito_version) == want


def test_kaito_version_default_is_the_tables_version_and_knows_the_annotation() -> None:
    settings = resolve_settings(None, {})
    assert settings.kaito_version == (0, 13, 0) and settings.knows_annotation
    assert not resolve_settings(None, {"KAITO_SPECDEC_KAITO_VERSION": "v0.12.3"}).knows_annotation


@pytest.mark.parametrize("value", ["latest", "v1", "0.12.x"])
def test_kaito_version_rejects(value) -> None:
    with pytest.raises(ConfigError, match="kaitoVersion: invalid value"):
        resolve_settings({"kind": "ConfigMap", "data": {"kaitoVersion": value}}, {})


def test_kaito_version_empty_is_the_default() -> None:
    assert resolve_settings({"kind": "ConfigMap", "data": {"kaitoVersion": ""}}, {}).kaito_version == (0, 13, 0)


@pytest.mark.parametrize("value, want", [("0.16", "0.16"), (" v0.11.0rc2 ", "v0.11.0rc2"), ("0.9.2.post1+cu128", "0.9.2.post1+cu128")])
def test_vllm_version_values(value, want) -> None:
    assert resolve_settings({"kind": "ConfigMap", "data": {"vllmVersion": value}}, {}).vllm_version == want


def test_vllm_version_default_is_what_kaitos_image_ships_and_the_environment_sets_it() -> None:
    assert resolve_settings(None, {}).vllm_version == "0.25.1"
    assert resolve_settings({"kind": "ConfigMap", "data": {"vllmVersion": ""}}, {}).vllm_version == "0.25.1"
    assert resolve_settings(None, {"KAITO_SPECDEC_VLLM_VERSION": "0.15.1"}).vllm_version == "0.15.1"
    assert resolve_settings(None, {"ARGOCD_ENV_KAITO_SPECDEC_VLLM_VERSION": "0.15.1"}).vllm_version == "0.15.1"


@pytest.mark.parametrize("fc, message, field", [
    ({"kind": "ConfigMap", "data": {"vllmVersion": "latest"}},
     'invalid functionConfig: vllmVersion: invalid value "latest"; expected the vLLM release your inference image runs, such as 0.25.1 (the one KAITO\'s current image ships)',
     "functionConfig.data.vllmVersion"),
    ({"kind": "SpeculativeDecodingPolicy", "spec": {"vllmVersion": 0.1}},
     "invalid functionConfig: vllmVersion: invalid value 0.1; expected the vLLM release your inference image runs in quotes (YAML reads an unquoted 0.10 as the number 0.1), such as 0.25.1 (the one KAITO's current image ships)",
     "functionConfig.spec.vllmVersion"),
])
def test_vllm_version_rejects_what_is_no_release(fc, message, field) -> None:
    with pytest.raises(ConfigError) as exc:
        resolve_settings(fc, {})
    assert (str(exc.value), exc.value.field, exc.value.id) == (message, field, "SD021")


def test_the_settings_configs_are_judged_by_the_vllm_version_in_force() -> None:
    """An unknown key is ignored before vLLM 0.16: a tuned config carrying one passes for 0.15 whichever
    source sets the version, and is refused (SD021, naming the version) for the default 0.25.1."""
    tuned = '{"org/m": {"method": "ngram", "num_speculative_tokens": 3, "extra": 1}}'
    fc = {"kind": "ConfigMap", "data": {"tunedPresets": tuned}}
    assert "org/m" in resolve_settings(fc, {"KAITO_SPECDEC_VLLM_VERSION": "0.15"}).presets.tuned
    env = {"KAITO_SPECDEC_TUNED_PRESETS": tuned}
    assert "org/m" in resolve_settings({"kind": "ConfigMap", "data": {"vllmVersion": "0.15"}}, env).presets.tuned
    with pytest.raises(ConfigError) as exc:
        resolve_settings(fc, {})
    assert exc.value.id == "SD021" and 'of vLLM 0.25.1, which refuses unknown keys' in str(exc.value)


def test_with_vllm_version_unset_the_kaito_release_decides_it() -> None:
    """KAITO v0.10.0's image runs vLLM 0.17.1, v0.11.0's 0.22.1: with no vllmVersion, KAITO workloads are judged
    by the kaitoVersion release's; a plain workload still by its image (plain_vllm_version: no setting)."""
    s = resolve_settings({"kind": "ConfigMap", "data": {"kaitoVersion": "v0.10.0"}}, {})
    assert (s.vllm_version, s.vllm_version_set, s.plain_vllm_version) == ("0.17.1", False, None)
    assert resolve_settings(None, {"KAITO_SPECDEC_KAITO_VERSION": "0.11"}).vllm_version == "0.22.1"
    s = resolve_settings({"kind": "ConfigMap", "data": {"kaitoVersion": "v0.10.0", "vllmVersion": "0.25.1"}}, {})
    assert (s.vllm_version, s.vllm_version_set, s.plain_vllm_version) == ("0.25.1", True, "0.25.1")


def test_the_settings_configs_are_judged_by_the_kaito_releases_vllm_whichever_source_sets_it() -> None:
    """ngram_gpu came in vLLM 0.18: a tuned config with it passes for the default 0.25.1, and is refused for
    KAITO v0.10.0's 0.17.1, also where the environment sets kaitoVersion and the functionConfig the presets."""
    tuned = '{"org/m": {"method": "ngram_gpu", "num_speculative_tokens": 5}}'
    fc = {"kind": "ConfigMap", "data": {"tunedPresets": tuned}}
    assert "org/m" in resolve_settings(fc, {}).presets.tuned
    with pytest.raises(ConfigError) as exc:
        resolve_settings(fc, {"KAITO_SPECDEC_KAITO_VERSION": "v0.10.0"})
    assert exc.value.field == "functionConfig.data.tunedPresets" and 'not in vLLM 0.17.1' in str(exc.value)
    assert "org/m" in resolve_settings(fc, {"KAITO_SPECDEC_KAITO_VERSION": "v0.10.0",
                                            "KAITO_SPECDEC_VLLM_VERSION": "0.18.1"}).presets.tuned


def test_vllm_version_from_the_environment_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="environment variable KAITO_SPECDEC_VLLM_VERSION .*vllmVersion: invalid value"):
        resolve_settings(None, {"KAITO_SPECDEC_VLLM_VERSION": "0.x"})


@pytest.mark.parametrize("value, vllm, mri", [
    ("", True, True),
    ("vLLM=false", False, True),
    ("vLLM=F, enableMultiRoleInferenceController=0", False, False),
    ("enableMultiRoleInferenceController=TRUE,enableMIG=true,", True, True),
])
def test_feature_gates(value, vllm, mri) -> None:
    settings = resolve_settings(None, {"ARGOCD_ENV_KAITO_SPECDEC_FEATURE_GATES": value})
    assert (settings.vllm_gate, settings.mri_controller) == (vllm, mri)


@pytest.mark.parametrize("value, words", [
    ("vllm=false", "unknown KAITO feature gate \"vllm\""),
    ("vLLM", "malformed pair \"vLLM\", expect name=bool"),
    ("vLLM=no", "invalid value of vLLM: \"no\""),
])
def test_feature_gates_reject(value, words) -> None:
    with pytest.raises(ConfigError) as err:
        resolve_settings(None, {"KAITO_SPECDEC_FEATURE_GATES": value})
    assert "environment variable KAITO_SPECDEC_FEATURE_GATES" in str(err.value) and words in str(err.value)
