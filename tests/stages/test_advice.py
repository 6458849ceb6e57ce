"""advise: findings about what was decided, each from the decisions (and the plan) alone."""
from __future__ import annotations

import pytest

from krm_fn.stages.advice import (advise, document_warnings, override_checks, pinned_away, role_mismatches,
    spelling_warnings)
from krm_fn.stages.cascade import cascade
from krm_fn.model.changes import Plan
from krm_fn.model.config import settings_from
from krm_fn.stages.decide import decide
from krm_fn.stages.materialize import materialize

from stages.stagekit import SETTINGS, configmap, index, inferenceset, mri, run, workspace

ON = {"kaito.sh/enable-speculative-decoding": "true"}


def decisions(*docs):
    idx = index(*docs)
    return run(decide, idx).decisions


def _override(value_text: str, key: str = "speculative-config"):
    return decisions(workspace("a", annotation="true", config="cfg"),
                     configmap("cfg", f"vllm:\n  {key}: {value_text}\n"))


@pytest.mark.parametrize("text,shown", [("true", "the boolean true"), ("5", "the number 5"), ("' '", "an empty string"),
                                        ("!!binary aGVsbG8=", "a bytes")])
def test_an_override_that_is_no_string_is_an_error_as_vllm_refuses_it(text, shown):
    out = override_checks(_override(text), SETTINGS)
    assert [(r.id, r.severity.value, r.message) for r in out] == [(
        "SD401", "error", f"vllm.speculative-config is {shown}: KAITO passes it to vLLM as --speculative-config, which "
        "vLLM refuses at start-up (it takes a JSON object); write speculative-config: '{\"method\": …}' or remove "
        "the key")]
    assert (out[0].resource.kind, out[0].field_path) == ("ConfigMap", "data[inference_config.yaml]")


@pytest.mark.parametrize("text,shown", [("null", "null"), ("''", '""'), ("None", '"None"')])
def test_a_null_or_empty_override_starts_without_speculation(text, shown):
    """vLLM's optional_type reads "" and "None" (KAITO's str() of null) as no config: the server starts, without
    speculative decoding (tests/vllm_verdicts.json, every release from 0.10.2). A warning, not an error."""
    out = override_checks(_override(text), SETTINGS)
    assert [(r.id, r.severity.value, r.message) for r in out] == [(
        "SD617", "warning", f"speculative-config is {shown}, which vLLM 0.25.1 reads as no speculative config: the "
        "server starts without speculative decoding; write an object such as "
        "'{\"method\":\"ngram\",\"num_speculative_tokens\":5}', or remove the key")]


def test_an_override_that_is_no_json_object_is_one_error_from_the_schema():
    """Not a JSON object: vllm_schema's SD602, an error (vLLM exits), told once (no second advice finding)."""
    out = override_checks(_override("'[1]'"), SETTINGS)
    assert [(r.id, r.severity.value, r.message) for r in out] == [
        ("SD602", "error", "speculative-config is a list, not a JSON object; vLLM exits at start-up: write an object such as '{\"method\":\"ngram\",\"num_speculative_tokens\":5}'")]
    assert (out[0].resource.name, out[0].field_path) == ("cfg", "data[inference_config.yaml]")


def test_an_override_that_is_no_json_is_one_error_from_the_schema():
    out = override_checks(_override("\"{'method': 'ngram'}\""), SETTINGS)
    assert [(r.id, r.severity.value) for r in out] == [("SD601", "error")]
    assert out[0].message.startswith("speculative-config is not valid JSON (Expecting property name enclosed in double quotes")


@pytest.mark.parametrize("text,key", [("'{\"method\": \"ngram\", \"num_speculative_tokens\": 3}'", "speculative-config"),
                                      ("'{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'", "speculative_config"),
                                      ("suffix", "speculative-config.method")])
def test_a_json_object_or_dotted_keys_vllm_accepts_pass(text, key):
    assert [r.id for r in override_checks(_override(text, key), SETTINGS)] == (["SD616"] if "suffix" in text else [])


def test_dotted_keys_are_checked_as_the_object_vllm_merges():
    assert [r.id for r in override_checks(_override("ngram", "speculative-config.method"), SETTINGS)] == ["SD606"]


def test_the_schema_findings_carry_the_fixed_file_as_proposed_value():
    ds = decisions(workspace("a", annotation="true", config="cfg"),
                   configmap("cfg", "# mine\nvllm:\n  max-model-len: 4096\n  speculative-config: '{\"method\":\"deepseek_mtp\",\"num_speculative_tokens\":1}'\n"))
    out = override_checks(ds, SETTINGS)
    assert [(r.id, r.severity.value) for r in out] == [("SD615", "info")]
    assert out[0].proposed_value == "# mine\nvllm:\n  max-model-len: 4096\n  speculative-config: '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'\n"


def test_no_proposed_value_for_another_spelling_or_where_the_fix_is_not_mechanical():
    out = override_checks(_override("'{\"method\":\"deepseek_mtp\",\"num_speculative_tokens\":1}'", "speculative_config"), SETTINGS)
    assert [r.id for r in out] == ["SD615"] and "proposedValue" not in out[0].to_krm().get("field", {})
    out = override_checks(_override("'{\"method\":\"eagle3\",\"num_speculative_tokens\":3}'"), SETTINGS)
    assert [r.id for r in out] == ["SD610"] and "proposedValue" not in out[0].to_krm().get("field", {})


@pytest.mark.parametrize("version,ids", [("0.15", ["SD614"]), ("0.16", ["SD613"])])
def test_the_vllm_version_setting_decides_what_the_schema_refuses(version, ids):
    settings = settings_from({"vllmVersion": version})
    out = override_checks(_override("'{\"method\":\"ngram\",\"num_speculative_tokens\":3,\"made_up\":1}'"), settings)
    assert [r.id for r in out] == ids


def test_one_source_is_told_about_once():
    ds = decisions(workspace("a", annotation="true", config="cfg"), workspace("b", annotation="true", config="cfg"),
                   configmap("cfg", "vllm:\n  speculative-config: 5\n"))
    assert len(ds) == 2 and len(override_checks(ds, SETTINGS)) == 1


def test_other_spellings_are_the_users_override_with_a_warning():
    out = spelling_warnings(_override("'{}'", "speculative_config"))
    assert [(r.id, r.severity.value, r.message) for r in out] == [(
        "SD404", "warning", "vllm.speculative_config: your override, in a spelling KAITO v0.13+ does not see (it adds "
        "its own --speculative-config too); write it as speculative-config")]
    assert spelling_warnings(_override("'{}'")) == []


def test_roles_with_different_model_based_configs_are_an_error():
    ds = decisions(mri("m", annotations=ON, configs=("p", "d")),
                   configmap("p", "vllm:\n  speculative-config: '{\"method\": \"eagle\", \"model\": \"a\"}'\n"),
                   configmap("d", "vllm:\n  speculative-config: '{\"method\": \"eagle\", \"model\": \"b\"}'\n"))
    out = role_mismatches(ds)
    assert [(r.id, r.severity.value, r.resource.kind, r.field_path) for r in out] == [
        ("SD409", "error", "MultiRoleInference", "spec.roles")]
    assert out[0].message == (
        "the roles get different speculative configs (spec.roles[0].runtimeConfig: {\"method\": \"eagle\", "
        "\"model\": \"a\"}, spec.roles[1].runtimeConfig: {\"method\": \"eagle\", \"model\": \"b\"}), but vLLM "
        "needs eagle alike on both; give both the same")


def test_one_model_based_role_beside_a_draft_free_one_is_an_error():
    ds = decisions(mri("m", annotations=ON, configs=("p", None)),
                   configmap("p", "vllm:\n  speculative-config: '{\"method\": \"ngram\", \"num_speculative_tokens\": 5}'\n"))
    assert [(r.id, r.severity.value) for r in role_mismatches(ds)] == [("SD409", "error")]  # Qwen: tuned mtp


def test_the_same_config_in_other_words_is_the_same():
    ds = decisions(mri("m", annotations=ON, configs=("p", None)),
                   configmap("p", "vllm:\n  speculative-config: '{ \"num_speculative_tokens\": 1, \"method\": \"mtp\" }'\n"))
    assert role_mismatches(ds) == []


def test_roles_that_differ_only_in_draft_free_methods_are_a_warning():
    ds = decisions(mri("m", annotations=ON, model="microsoft/Phi-4", configs=("p", None)),
                   configmap("p", "vllm:\n  speculative-config: '{\"method\": \"ngram\", \"num_speculative_tokens\": 2}'\n"))
    assert [(r.id, r.severity.value) for r in role_mismatches(ds)] == [("SD403", "warning")]
    assert role_mismatches(decisions(mri("m", annotations=ON))) == []  # the same injected config on both


def test_a_role_whose_config_cannot_be_seen_is_left_out_of_the_comparison():
    ds = decisions(mri("m", annotations=ON, configs=("elsewhere", None)))
    assert [type(d).__name__ for d in ds] == ["NotVisible", "Inject"] and role_mismatches(ds) == []


def test_a_role_whose_override_is_no_json_is_left_to_the_schema_check():
    ds = decisions(mri("m", annotations=ON, configs=("p", None)),
                   configmap("p", "vllm:\n  speculative-config: 'not json'\n"))
    assert role_mismatches(ds) == []  # SD601 says what is wrong with it


def test_a_source_with_a_second_yaml_document_is_warned_about_once():
    ds = decisions(workspace("a", annotation="true", config="cfg"), workspace("b", annotation="true", config="cfg"),
                   configmap("cfg", "vllm:\n  max-model-len: 4096\n---\nother: 1\n"))
    out = document_warnings(ds)
    assert [(r.id, r.severity.value, r.message) for r in out] == [(
        "SD406", "warning", "inference_config.yaml holds more than one YAML document: KAITO's webhook reads the first "
        "only, but KAITO's vLLM runtime reads the file with yaml.safe_load, which refuses a second document, so the "
        "pods fail at start; keep one document")]
    assert document_warnings(decisions(workspace("a", annotation="true", config="cfg"), configmap("cfg"))) == []


OLD = settings_from({"kaitoVersion": "v0.12.0"})


def _materialized(idx, settings):
    plan = Plan().then(run(decide, idx, settings))
    return plan.then(run(materialize, idx, settings, plan))


def test_an_older_kaito_is_told_what_a_repointed_inferenceset_means():
    idx = index(inferenceset("s", annotation="true"), workspace("w", annotation="true"))
    out = run(advise, idx, OLD, _materialized(idx, OLD))
    # (and SD428, once a run: the vLLM release assumed for KAITO v0.12.0's image)
    assert [(r.id, r.severity.value, r.resource and r.resource.kind, r.change) for r in out.results] == [
        ("SD405", "info", "InferenceSet", True), ("SD428", "info", None, False)]
    assert out.results[0].message.startswith("KAITO v0.12.0 ignores the annotation: the config written here is what "
                                             "enables speculative decoding")
    # Nothing re-pointed (the decisions only, no materialize step), or a KAITO that knows the annotation: silence.
    assert [r.id for r in run(advise, idx, OLD, Plan().then(run(decide, idx, OLD))).results] == ["SD428"]
    assert [r.id for r in run(advise, idx, SETTINGS, _materialized(idx, SETTINGS)).results] == ["SD428"]


def test_a_child_enabled_while_its_multiroleinference_is_not_is_left_unchanged_with_a_warning():
    idx = index(mri("m"), inferenceset("m-prefill", annotation="true", preset="Qwen/Qwen3.5-9B"))
    plan = Plan().then(run(cascade, idx))
    out = run(advise, idx, SETTINGS, plan)
    assert [(r.id, r.severity.value, r.resource.name) for r in out.results] == [("SD407", "warning", "m-prefill")]
    assert out.results[0].message == (
        "enabled here, but MultiRoleInference \"m\" is not: KAITO's controller sets this InferenceSet's "
        "spec.template.inference.config from the role's runtimeConfig, so a config written here would be replaced; "
        "left unchanged: opt in on the MultiRoleInference")


def test_advise_reports_in_a_fixed_order():
    """override, roles, spellings, unconfigurable, documents, versions: the order results had before the reshape;
    then the vLLM release assumed (SD428, once a run)."""
    idx = index(workspace("a", annotation="true", config="cfg"),
                configmap("cfg", "vllm:\n  speculative_config: 5\n---\nx: 1\n"))
    assert [r.id for r in run(advise, idx, SETTINGS, Plan().then(run(decide, idx))).results] == \
        ["SD401", "SD404", "SD406", "SD428"]


def _pinned(preset: str, value: str = "'{\"method\":\"ngram\",\"num_speculative_tokens\":5}'", settings=SETTINGS):
    ds = decisions(workspace("a", annotation="true", config="cfg", preset=preset),
                   configmap("cfg", f"vllm:\n  speculative-config: {value}\n"))
    return pinned_away(ds, settings)


def test_ngram_pinned_on_a_preset_tuned_for_mtp_is_an_info_naming_the_tuned_config():
    out = _pinned("Qwen/Qwen3.5-4B")
    assert [(r.id, r.severity.value, r.resource.kind) for r in out] == [("SD410", "info", "ConfigMap")]
    assert '{"method":"mtp","num_speculative_tokens":1}' in out[0].message
    proposed = out[0].to_krm()["field"]["proposedValue"]
    assert isinstance(proposed, str) and proposed.startswith("vllm:") and "speculative-config" not in proposed


@pytest.mark.parametrize("preset,value,settings", [
    ("microsoft/Phi-4", None, SETTINGS),                                    # untuned: ngram is what KAITO picks
    ("Qwen/Qwen3.5-4B", "'{\"method\":\"mtp\",\"num_speculative_tokens\":2}'", SETTINGS),  # not ngram
    ("Qwen/Qwen3.5-4B", None, settings_from({"vllmVersion": "0.10"})),     # no mtp before 0.11: ngram is right
])
def test_no_pin_finding_where_ngram_is_no_step_away(preset, value, settings):
    assert (_pinned(preset, value, settings) if value else _pinned(preset, settings=settings)) == []


def test_a_dotted_ngram_pin_counts_too():
    ds = decisions(workspace("a", annotation="true", config="cfg", preset="Qwen/Qwen3.5-4B"),
                   configmap("cfg", "vllm:\n  speculative-config.method: ngram\n  speculative-config.num_speculative_tokens: 5\n"))
    out = pinned_away(ds, SETTINGS)
    assert [r.id for r in out] == ["SD410"] and "proposedValue" not in out[0].to_krm()["field"]


def _deepseek(extra_resource: str = ""):
    return workspace("ds", annotation="true", preset="deepseek-r1-0528").replace(
        "resource:\n  instanceType: Standard_NC24ads_A100_v4\n",
        "resource:\n  instanceType: Standard_NC24ads_A100_v4\n" + extra_resource)


def test_a_multi_node_workload_is_warned_about_once_with_a_one_node_instance_type():
    # The weight is what the vllmVersion vLLM does under pipeline parallelism (vllm_releases, issue #22):
    # from 0.10 it runs with the whole draft on the last stage (warning); 0.9 only with Ray; before, it refuses
    # (SD417, an error).
    out = [r for r in advise_results(_deepseek()) if r.id == "SD412"]
    assert [(r.severity.value, r.field_path, r.proposed_value) for r in out] == [
        ("warning", "resource.instanceType", "Standard_ND96isr_H200_v5")]
    # KAITO runs multi-node with --distributed-executor-backend ray (pkg/model/interface.go:571 at v0.12.0), which
    # 0.9.0's V1 takes (issue #30); 0.8.5 keeps ngram on V1 only with VLLM_USE_V1=1, which KAITO does not set.
    for version, found in (("0.9.2", ("SD412", "warning")), ("0.9.0", ("SD412", "warning")),
                           ("0.8.5", ("SD417", "error"))):
        out = [r for r in advise_results(_deepseek(), settings=settings_from({"vllmVersion": version}))
               if r.id.startswith("SD41")]
        assert [(r.id, r.severity.value) for r in out] == [found]


def test_a_resource_count_of_several_nodes_is_weighed_by_the_vllm_release():
    """An instance type outside KAITO's tables with resource.count 2: SD413, a warning, where the vllmVersion
    vLLM runs speculative decoding under pipeline parallelism; SD418, an error, where it refuses it."""
    ws = workspace("c", annotation="true").replace("instanceType: Standard_NC24ads_A100_v4\n",
                                                   "instanceType: Standard_NX_Future_v9\n  count: 2\n")
    for version, found in (("0.25.1", ("SD413", "warning")), ("0.8.5", ("SD418", "error"))):
        out = [r for r in advise_results(ws, settings=settings_from({"vllmVersion": version})) if r.id.startswith("SD41")]
        assert [(r.id, r.severity.value, r.field_path) for r in out] == [(*found, "resource.count")]
        assert out[0].message.startswith("resource.count 2 may spread one replica over 2 nodes (pipeline parallelism): ")


def test_byo_nodes_or_a_partition_hide_the_gpus():
    assert [r.id for r in advise_results(_deepseek(), settings=settings_from({"featureGates": "disableNodeAutoProvisioning=true"}))
            if r.id.startswith("SD41")] == []
    assert [r.id for r in advise_results(_deepseek("  partition:\n    mode: MIG\n    profile: 1g.10gb\n"))
            if r.id.startswith("SD41")] == []


def advise_results(*docs, settings=SETTINGS):
    idx = index(*docs)
    plan = Plan().then(run(decide, idx, settings))
    return advise(idx, settings, plan).results


# --- SD428: the vLLM release a run assumed for KAITO workloads, once a run --------------------------------

def _said(settings, *docs) -> list[tuple[str, str]]:
    idx = index(*docs)
    plan = Plan().then(run(decide, idx, settings))
    return [(r.id, r.message) for r in run(advise, idx, settings, plan).results]


def test_the_vllm_release_assumed_is_said_once_a_run_with_where_it_was_read():
    two = (workspace("a", annotation="true"), workspace("b", annotation="true"))
    assert _said(settings_from({"kaitoVersion": "v0.10.0"}), *two) == [("SD428", (
        "vllmVersion is not set: the KAITO workloads are judged by vLLM 0.17.1, assumed for KAITO v0.10.0's image "
        "(presets/workspace/dependencies/requirements.txt:4 at v0.10.0); if yours runs another vLLM, set vllmVersion "
        "to it"))]
    # v0.3's image runs no vLLM: the nearest known, and the note says so
    ((_, v03),) = _said(settings_from({"kaitoVersion": "v0.3.0"}), *two)
    assert "judged by vLLM 0.6.3, assumed for KAITO v0.3.0's image (v0.3's image runs no vLLM" in v03
    ((_, default),) = _said(settings_from({}), *two)
    assert default == ("neither vllmVersion nor kaitoVersion is set: the KAITO workloads are judged by vLLM 0.25.1, "
                       "which the newest KAITO's image (v0.13.0) runs; set kaitoVersion or vllmVersion to what your "
                       "cluster runs")
    # The setting names the release: nothing assumed. Nothing judged (a ConfigMap not in the input): silence.
    assert _said(settings_from({"vllmVersion": "0.17.1"}), *two) == []
    assert _said(settings_from({}), workspace("c", annotation="true", config="elsewhere")) == []


def test_the_kaito_releases_vllm_judges_a_users_config_and_names_itself():
    """ngram_gpu came in vLLM 0.18: on KAITO v0.10.0 (vLLM 0.17.1) the server exits at start-up (SD604)."""
    docs = (workspace("a", annotation="true", config="cfg"),
            configmap("cfg", "vllm:\n  speculative-config: '{\"method\":\"ngram_gpu\",\"num_speculative_tokens\":5}'\n"))
    said = _said(settings_from({"kaitoVersion": "v0.10.0"}), *docs)
    assert [i for i, _ in said] == ["SD604", "SD428"] and 'method "ngram_gpu" is not in vLLM 0.17.1' in said[0][1]
    assert [i for i, _ in _said(settings_from({"kaitoVersion": "v0.12.0"}), *docs)] == ["SD428"]


# --- issue #38: what KAITO's runtime gives vLLM beside the speculative config (SD625, SD626) --------------------------
@pytest.mark.parametrize("vllm_map,version,said", [
    # `--async-scheduling ""`: the "" goes to the server parser's model_tag, the flag is set; 0.25.1's
    # vllm/config/vllm.py:971-981 refuses ngram with it
    ('async-scheduling: ""', "0.25.1", [("SD625", "vllm.async-scheduling with ngram speculative decoding")]),
    ('async-scheduling: "false"', "0.25.1", [("SD625", "vllm.async-scheduling with ngram speculative decoding")]),
    ('async-scheduling: ""\n  no-async-scheduling: ""', "0.25.1", []),
    ('async-scheduling: ""', "0.34.0", []),
    # vllm/v1/engine/async_llm.py:157 at 0.25.1: no stat loggers without log_stats
    ('disable-log-stats: "true"', "0.25.1", [("SD626", "vllm.disable-log-stats: vLLM 0.25.1 serves no metrics")]),
    ('gpu-memory-utilization: "0.9"\n  logits_processors: p.P', "0.25.1",
     [("SD625", "vllm.logits_processors with speculative decoding on the V1 model runner")]),
])
def test_the_vllm_map_beside_the_config_is_judged_by_the_release(vllm_map, version, said):
    from krm_fn.stages.advice import combinations
    ds = decisions(workspace("a", annotation="true", config="cfg"), configmap("cfg", f"vllm:\n  {vllm_map}\n"))
    out = combinations(ds, settings_from({"vllmVersion": version}))
    assert len(out) == len(said)
    assert [(r.id, r.message[:len(m)]) for r, (_, m) in zip(out, said, strict=True)] == said
