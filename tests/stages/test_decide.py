"""decide: per config reference of every configurable workload, one outcome type with its own message."""
from __future__ import annotations

import json
import re

import pytest

from krm_fn.stages.cascade import cascade
from krm_fn.model.changes import Plan
from krm_fn.stages.decide import decide
from krm_fn.model.decisions import DOTTED, Broken, Inject, NotVisible, Override

from stages.stagekit import configmap, index, inferenceset, messages, mri, run, workspace

DERIVED = {"kaito-specdec.dev/derived": "true", "kaito-specdec.dev/source-configmap": "cfg"}
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
MTP = '{"method":"mtp","num_speculative_tokens":1}'


def _one(*docs):
    step = run(decide, index(*docs))
    assert len(step.decisions) == 1 and len(step.results) == 1
    return step.decisions[0], step.results[0]


def test_no_reference_injects_a_new_derived_configmap():
    d, r = _one(workspace("w", annotation="true"))
    assert isinstance(d, Inject) and (d.current, d.source_name, d.via_derived) == (None, None, False)
    assert (d.json, d.method) == (NGRAM, "ngram")
    assert re.fullmatch(r"specdec-ngram-[0-9a-f]{10}", d.target)
    assert d.configmap["data"]["inference_config.yaml"] == f"vllm:\n  speculative-config: '{NGRAM}'\n"
    assert (r.id, r.severity.value, r.change, r.field_path, r.proposed_value) == \
        ("SD301", "info", True, "inference.config", d.target)
    assert r.message == f'preset "phi-4" is untuned (universal fallback): ngram in ConfigMap "{d.target}" (new)'


def test_a_referenced_configmap_is_copied_into_the_derived_one():
    d, r = _one(workspace("w", annotation="true", preset="Qwen/Qwen3.5-9B", config="cfg"), configmap("cfg"))
    assert isinstance(d, Inject) and (d.current, d.source_name, d.source.name) == ("cfg", "cfg", "cfg")
    assert d.json == MTP and re.fullmatch(r"cfg-specdec-[0-9a-f]{10}", d.target)
    assert d.configmap["data"]["inference_config.yaml"] == f"vllm:\n  max-model-len: 4096\n  speculative-config: '{MTP}'\n"
    assert r.message.endswith(f'in ConfigMap "{d.target}" (from ConfigMap "cfg")')
    assert 'preset "Qwen/Qwen3.5-9B" is KAITO-tuned' in r.message


@pytest.mark.parametrize("text,value,keys,others", [
    ("vllm:\n  speculative-config: '{\"method\": \"ngram\"}'\n", '{"method": "ngram"}', ("speculative-config",), ()),
    ("vllm:\n  speculative_config: '{}'\n", "{}", ("speculative_config",), ("speculative_config",)),
    ("vllm:\n  speculative-config.method: ngram\n", DOTTED, ("speculative-config.method",),
     ("speculative-config.method",)),
])
def test_the_users_own_speculative_config_in_any_spelling_is_an_override(text, value, keys, others):
    d, r = _one(workspace("w", annotation="true", config="cfg"), configmap("cfg", text))
    assert isinstance(d, Override) and (d.value, d.keys, d.other_spellings) == (value, keys, others)
    shown = ", ".join(f"vllm.{k}" for k in keys)
    assert (r.id, r.severity.value, r.change, r.message) == (
        "SD302", "info", False,
        f'speculative decoding: ConfigMap "cfg" already sets {shown} (a user override); left unchanged')


def test_an_override_reached_through_a_derived_configmap_points_back_at_its_source():
    d, r = _one(workspace("w", annotation="true", config="cfg-specdec-0123456789"),
                configmap("cfg", "vllm:\n  speculative-config: '{}'\n"),
                configmap("cfg-specdec-0123456789", annotations=DERIVED))
    assert isinstance(d, Override) and d.via_derived and d.source_name == "cfg"
    assert (r.id, r.change, r.proposed_value) == ("SD303", True, "cfg")
    assert r.message == ('speculative decoding: ConfigMap "cfg" now sets vllm.speculative-config itself (a user '
                         "override): the reference goes back to it")


def test_a_configmap_not_in_the_input_is_not_visible():
    d, r = _one(workspace("w", annotation="true", config="elsewhere"))
    assert isinstance(d, NotVisible) and not d.via_derived
    assert (r.id, r.severity.value, r.change) == ("SD304", "warning", False)
    assert r.message == ('speculative decoding: ConfigMap "elsewhere" is not in the input, so its '
                         "vllm.speculative-config cannot be seen; left unchanged, KAITO decides in the cluster")


@pytest.mark.parametrize("version,ends", [
    ("v0.13.0", "left unchanged, KAITO decides in the cluster"),
    # issue #30: before v0.13.0 no KAITO reads the annotation, so nothing decides in the cluster
    ("v0.12.0", "left unchanged, KAITO v0.12.0 runs it only if that ConfigMap sets it"),
    ("v0.10.0", "left unchanged, KAITO v0.10.0 runs it only if that ConfigMap sets it"),
    (None, "left unchanged, KAITO v0.13 decides in the cluster; v0.10-v0.12 run it only if that ConfigMap sets it "
           "(set kaitoVersion)"),
])
def test_sd304_says_what_the_kaito_release_does(version, ends):
    from krm_fn.model.config import resolve_settings
    settings = resolve_settings(None, {"KAITO_SPECDEC_KAITO_VERSION": version} if version else {})
    step = run(decide, index(workspace("w", annotation="true", config="elsewhere")), settings)
    assert step.results[0].id == "SD304" and step.results[0].message.endswith(ends)


@pytest.mark.parametrize("derived_in_input,words", [(True, "is in the input, but"), (False, "is not in the input, and")])
def test_a_derived_configmap_whose_source_is_gone_cannot_be_regenerated(derived_in_input, words):
    docs = [workspace("w", annotation="true", config="cfg-specdec-0123456789")]
    if derived_in_input:
        docs.append(configmap("cfg-specdec-0123456789", annotations=DERIVED))
    d, r = _one(*docs)
    assert isinstance(d, NotVisible) and d.via_derived and d.derived_found is derived_in_input
    assert (r.id, r.severity.value) == ("SD305", "warning")
    assert r.message == (f'speculative decoding: the derived ConfigMap "cfg-specdec-0123456789" {words} its source '
                         'ConfigMap "cfg" is not: cannot regenerate it; left unchanged')


@pytest.mark.parametrize("text,detail,field,id", [
    (None, "missing field(s): inference_config.yaml in ConfigMap", "data[inference_config.yaml]", "SD123"),
    ("vllm:\n  max-model-len: 4k\n", 'max-model-len must be an integer: strconv.Atoi: parsing "4k": invalid syntax',
     "data[inference_config.yaml]", "SD127"),
])
def test_a_configmap_kaito_cannot_read_is_an_error_on_the_configmap(text, detail, field, id):
    """The id is that of KAITO's rule that refuses it (checks/inference_configmap)."""
    d, r = _one(workspace("w", annotation="true", config="cfg"), configmap("cfg", text))
    assert isinstance(d, Broken) and d.refusal.message == r.message
    assert (r.id, r.severity.value, r.resource.kind, r.field_path) == (id, "error", "ConfigMap", field)
    assert r.message == f'ConfigMap "cfg" referenced by Workspace "w": {detail}'


def test_the_field_kaito_refuses_is_the_results_field():
    binary = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ns\n"
              "binaryData:\n  inference_config.yaml: dmxsbTo=\n")
    d, r = _one(workspace("w", annotation="true", config="cfg"), binary)
    assert isinstance(d, Broken) and (d.refusal.field, r.field_path) == ("binaryData[inference_config.yaml]",) * 2


@pytest.mark.parametrize("value", [None, "false", "yes"])
def test_a_workload_that_is_not_enabled_gets_no_decision(value):
    step = run(decide, index(workspace("w", annotation=value)))
    assert (step.decisions, step.results) == ((), ())


def test_a_multiroleinference_gets_one_decision_per_role():
    step = run(decide, index(mri("m", annotations={"kaito.sh/enable-speculative-decoding": "true"},
                                 configs=("cfg", None)), configmap("cfg")))
    assert [(type(d).__name__, d.field) for d in step.decisions] == [
        ("Inject", "spec.roles[0].runtimeConfig"), ("Inject", "spec.roles[1].runtimeConfig")]
    assert [d.source_name for d in step.decisions] == ["cfg", None]


def test_a_child_is_decided_as_its_multiroleinference_rewrites_it():
    """The decision reads the plan (the cascade's rewrite), not the child as written."""
    idx = index(mri("m", annotations={"kaito.sh/enable-speculative-decoding": "true"}, configs=("cfg", None)),
                inferenceset("m-prefill", preset="phi-4", config="mine"), configmap("cfg"))
    plan = Plan().then(run(cascade, idx))
    step = run(decide, idx, plan=plan)
    child = [d for d in step.decisions if d.workload.name == "m-prefill"]
    assert [(d.current, d.json) for d in child] == [("cfg", MTP)]  # the role's config and the MRI's model
    # Without the cascade's step the child as written is not even enabled.
    assert not [d for d in run(decide, idx).decisions if d.workload.name == "m-prefill"]


def test_a_child_enabled_while_its_multiroleinference_is_not_is_not_decided():
    idx = index(mri("m"), inferenceset("m-prefill", annotation="true", preset="Qwen/Qwen3.5-9B"))
    plan = Plan().then(run(cascade, idx))
    assert plan.workload(idx.workloads[1]).enabled and run(decide, idx, plan=plan).decisions == ()
    assert len(run(decide, idx).decisions) == 1  # not rewritten by its MultiRoleInference: decided


def test_the_tuned_presets_and_fallback_settings_name_themselves():
    from krm_fn.model.config import settings_from
    settings = settings_from({"tunedPresets": '{"phi-4": {"method": "ngram", "num_speculative_tokens": 2}}',
                              "ngramFallback": '{"method": "ngram", "num_speculative_tokens": 3}'})
    step = run(decide, index(workspace("w", annotation="true"), workspace("v", annotation="true", preset="x/y")),
               settings)
    assert [m.split(":")[0] for _, _, m in messages(step)] == [
        'preset "phi-4" is tuned by the tunedPresets setting', 'preset "x/y" is untuned (the ngramFallback setting)']


def test_a_configmap_that_passes_kaitos_check_but_cannot_be_inspected_is_broken(monkeypatch):
    """Two readers of one text: should they ever disagree, the reference is Broken, not a traceback."""
    from krm_fn.stages import decide as module
    from krm_fn.domain.inference_config import InferenceConfigError

    def refuse(text):
        raise InferenceConfigError("cannot inspect it")
    monkeypatch.setattr(module, "inspect", refuse)
    d, r = _one(workspace("w", annotation="true", config="cfg"), configmap("cfg"))
    assert isinstance(d, Broken) and r.message == 'ConfigMap "cfg" referenced by Workspace "w": inference_config.yaml: cannot inspect it'


def test_an_injection_whose_derived_configmap_cannot_be_built_says_why(monkeypatch):
    from krm_fn.stages import decide as module
    from krm_fn.domain.inference_config import InferenceConfigError

    def refuse(*args):
        raise InferenceConfigError("cannot edit it")
    monkeypatch.setattr(module, "build", refuse)
    d, r = _one(workspace("w", annotation="true", config="cfg"), configmap("cfg"))
    assert isinstance(d, Inject) and (d.configmap, d.target, d.problem) == (None, None, "inference_config.yaml: cannot edit it")
    # As before the reshape: the info names no ConfigMap; materialize reports the error (SD311).
    assert ' in ConfigMap "" (from ConfigMap "cfg")' in r.message and r.proposed_value is None


def test_a_referenced_configmap_yaml_gives_no_data_for_is_broken():
    unreadable = configmap("cfg", None).replace("data: {}", "data: {[a, b]: c}")
    d, r = _one(workspace("w", annotation="true", config="cfg"), unreadable)
    assert isinstance(d, Broken) and d.refusal.message == r.message
    assert r.message.startswith('ConfigMap "cfg" referenced by Workspace "w": the ConfigMap cannot be read: ')
    assert (r.id, r.field_path) == ("SD306", "data[inference_config.yaml]")


@pytest.mark.parametrize("fnconfig,json_text,why", [
    ({"vllmVersion": "0.10"}, '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}',
     "has a tuned config this vLLM refuses (universal fallback)"),
    ({"vllmVersion": "0.10", "ngramFallback": '{"method":"ngram","num_speculative_tokens":3}'},
     '{"method":"ngram","num_speculative_tokens":3}', "has a tuned config this vLLM refuses (the ngramFallback setting)"),
    ({"vllmVersion": "0.11"}, '{"method":"mtp","num_speculative_tokens":1}', "is KAITO-tuned"),
])
def test_a_tuned_config_the_vllm_version_refuses_falls_back(fnconfig, json_text, why):
    from krm_fn.model.config import settings_from
    step = run(decide, index(workspace("w", annotation="true", preset="Qwen/Qwen3.5-4B")), settings_from(fnconfig))
    (d,) = step.decisions
    assert (d.json, d.why) == (json_text, why)
    assert [r.id for r in step.results] == (["SD301", "SD308"] if "0.10" in fnconfig["vllmVersion"] else ["SD301"])



# A tuned config the newest release modelled refuses: mtp with `tensor_parallel_size` (SD621).
REFUSED_TUNED = {"method": "mtp", "num_speculative_tokens": 3, "tensor_parallel_size": 2}


def test_sd308_past_the_newest_release_names_the_newest_modelled_not_the_unknown_one():
    """vllmVersion 0.40 is judged by the newest release modelled: SD308 names that one's verdict and says of
    0.40 only that the setting names it (issue #30: no message says what an unknown release does). The
    settings refuse such a tunedPresets up front (the next test), so the table is set here directly."""
    from krm_fn.domain.vllm_schema import facts, named
    from krm_fn.model.config import settings_from
    newest = named(facts().releases[-1])
    settings = settings_from({"vllmVersion": "0.40"})
    settings = settings._replace(presets=settings.presets.extended({"Qwen/Qwen3.5-4B": REFUSED_TUNED}))
    step = run(decide, index(workspace("w", annotation="true", preset="Qwen/Qwen3.5-4B")), settings)
    (sd308,) = [r for r in step.results if r.id == "SD308"]
    assert sd308.message.startswith(f"vLLM {newest} (the newest modelled; vllmVersion 0.40) refuses the tuned ")
    assert len(sd308.message) <= 320   # tests/test_say_all.py's bound
    assert not re.search(r"vLLM 0\.40 \(vllmVersion\) refuses", sd308.message)


def test_sd308_past_the_newest_release_cannot_come_from_the_settings():
    """Why SD308 does not fire for vllmVersion 0.40 through the function's inputs: KAITO's tuned table passes
    the newest release modelled, and a tunedPresets entry it refuses is refused as a setting (SD021)."""
    from krm_fn.domain.presets import DEFAULT_TABLE, config_json
    from krm_fn.domain.vllm_schema import Severity, check_speculative_config, facts, named
    from krm_fn.model.config import ConfigError, settings_from
    assert not [f for cfg in DEFAULT_TABLE.tuned.values() for f in check_speculative_config(config_json(cfg), "0.40")
                if f.severity is Severity.ERROR]
    with pytest.raises(ConfigError, match=f"vLLM {re.escape(named(facts().releases[-1]))} refuses tensor_parallel_size"):
        settings_from({"vllmVersion": "0.40", "tunedPresets": json.dumps({"Qwen/Qwen3.5-4B": REFUSED_TUNED})})


TEMPLATE_TEXT = "vllm:\n  cpu-offload-gb: 0\n  gpu-memory-utilization: 0.95\n  max-model-len: 16384\n"


@pytest.mark.parametrize("version,based", [("v0.10.0", True), ("v0.9.4", True), ("v0.11.0", False), ("v0.12.0", False)])
def test_kaito_v0_10s_namespace_default_is_the_base_of_a_config_made_for_a_workload_with_none(version, based):
    """v0.10.0's EnsureConfigOrCopyFromDefault (pkg/utils/resources/resources.go:171-180): with no
    inference.config, `existingCM` = the ConfigMap "inference-params-template" in the Workspace's namespace is
    mounted; v0.11.0 mounts none (pkg/workspace/inference/preset_inferences.go:451-459, "When empty, no config
    volume is mounted")."""
    from krm_fn.model.config import resolve_settings
    settings = resolve_settings(None, {"KAITO_SPECDEC_KAITO_VERSION": version})
    docs = (workspace("w", annotation="true", preset="Qwen/Qwen3.5-9B"),
            configmap("inference-params-template", TEMPLATE_TEXT))
    step = run(decide, index(*docs), settings)
    d = step.decisions[0]
    assert isinstance(d, Inject) and (d.current, d.source_name) == (None, None)
    assert re.fullmatch(r"specdec-mtp-[0-9a-f]{10}", d.target)   # no source recorded: disabling removes the field
    text = d.configmap["data"]["inference_config.yaml"]
    if based:
        assert text == TEMPLATE_TEXT + f"  speculative-config: '{MTP}'\n"
        assert step.results[0].message.endswith('(from ConfigMap "inference-params-template")')
    else:
        assert text == f"vllm:\n  speculative-config: '{MTP}'\n"
    other_namespace = run(decide, index(docs[0].replace("namespace: ns", "namespace: other"), docs[1]), settings)
    assert other_namespace.decisions[0].configmap["data"]["inference_config.yaml"] == \
        f"vllm:\n  speculative-config: '{MTP}'\n"
