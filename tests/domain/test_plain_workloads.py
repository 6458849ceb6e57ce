"""Table tests for krm_fn.domain.plain_workloads (issue #12): each workload kind's template paths and opt-in places,
KServe's Hugging Face runtime, and plan_workload's ops applied with jsonpatch: enable -> re-run (no ops) ->
disable gives back the original object. Objects and expected paths are written from the Kubernetes, LWS and
KServe API shapes, not from the code's output."""
from __future__ import annotations

import copy

import jsonpatch
import pytest

from krm_fn.domain.plain_workloads import (KINDS, containers, kind_of, kserve_backend, kserve_model,
    list_ops, other_version, plan_workload, present_templates, read_opt_in, release_of)
from krm_fn.domain.vllm_schema import DEFAULT_VLLM_VERSION
from krm_fn.text.results import Severity
from krm_fn.domain.constants import INJECTED_ANNOTATION

ANN = "kaito.sh/enable-speculative-decoding"
MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
E_MTP = "--speculative-config=" + MTP


def vllm_container(model: str = "Qwen/Qwen3.5-4B", name: str = "vllm") -> dict:
    return {"name": name, "image": "vllm/vllm-openai:v0.11.0", "command": ["vllm", "serve", model],
            "args": ["--port", "8000"]}


def sidecar() -> dict:
    return {"name": "proxy", "image": "envoyproxy/envoy:v1.31", "args": ["-c", "/etc/envoy.yaml"]}


def pod_template(*cs: dict, annotations: dict | None = None) -> dict:
    meta: dict = {"labels": {"app": "llm"}}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": {"initContainers": [{"name": "dl", "image": "x", "command": [
        "vllm", "serve", "not/me"]}], "containers": list(cs)}}


def workload(kind: str, api: str, spec: dict, annotations: dict | None = None) -> dict:
    meta: dict = {"name": "llm", "namespace": "ai"}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}


ON = {ANN: "true"}

# kind, apiVersion, object with the opt-in on the workload, the vLLM containers' paths, the record paths
TEMPLATED = [
    ("Deployment", "apps/v1", {"replicas": 1, "template": pod_template(vllm_container(), sidecar())},
     [("spec", "template", "spec", "containers", 0)], [("spec", "template", "metadata", "annotations")]),
    ("StatefulSet", "apps/v1", {"serviceName": "llm", "template": pod_template(vllm_container())},
     [("spec", "template", "spec", "containers", 0)], [("spec", "template", "metadata", "annotations")]),
    ("DaemonSet", "apps/v1", {"template": pod_template(sidecar(), vllm_container())},
     [("spec", "template", "spec", "containers", 1)], [("spec", "template", "metadata", "annotations")]),
    ("ReplicaSet", "apps/v1", {"template": pod_template(vllm_container())},
     [("spec", "template", "spec", "containers", 0)], [("spec", "template", "metadata", "annotations")]),
    ("Job", "batch/v1", {"template": pod_template(vllm_container())},
     [("spec", "template", "spec", "containers", 0)], [("spec", "template", "metadata", "annotations")]),
    ("CronJob", "batch/v1", {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": pod_template(
        vllm_container())}}},
     [("spec", "jobTemplate", "spec", "template", "spec", "containers", 0)],
     [("spec", "jobTemplate", "spec", "template", "metadata", "annotations")]),
    ("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1", {"replicas": 1, "leaderWorkerTemplate": {
        "size": 2, "leaderTemplate": pod_template(vllm_container()),
        "workerTemplate": pod_template(vllm_container())}},
     [("spec", "leaderWorkerTemplate", "leaderTemplate", "spec", "containers", 0),
      ("spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers", 0)],
     [("spec", "leaderWorkerTemplate", "leaderTemplate", "metadata", "annotations"),
      ("spec", "leaderWorkerTemplate", "workerTemplate", "metadata", "annotations")]),
]


def _get(data, path):
    for p in path:
        data = data[p]
    return data


def round_trip(obj: dict, spec=None) -> tuple[dict, object]:
    """enable -> re-run -> disable; returns the enabled object and its plan; asserts the fixpoint and that
    disabling restores `obj` exactly (apart from the annotation value that was flipped)."""
    spec = spec or kind_of(obj["apiVersion"], obj["kind"])
    plan = plan_workload(spec, obj)
    enabled = jsonpatch.apply_patch(obj, list(plan.ops))
    assert plan_workload(spec, enabled).ops == ()
    opt = read_opt_in(spec, enabled)
    off = copy.deepcopy(enabled)
    _get(off, opt.path)[ANN] = "false"
    back = jsonpatch.apply_patch(off, list(plan_workload(spec, off).ops))
    _get(back, opt.path)[ANN] = _get(obj, opt.path)[ANN]
    assert back == obj
    gone = copy.deepcopy(enabled)
    del _get(gone, opt.path)[ANN]
    back = jsonpatch.apply_patch(gone, list(plan_workload(spec, gone).ops))
    want = copy.deepcopy(obj)
    del _get(want, opt.path)[ANN]
    record_maps = {t.annotations for t in present_templates(spec, obj)}
    if not _get(want, opt.path) and opt.path in record_maps:
        # the map then held only the function's record: removing the record takes the map (kinds.remove_ops)
        del _get(want, opt.path[:-1])[opt.path[-1]]
    assert back == want
    return enabled, plan


@pytest.mark.parametrize("kind,api,spec_,vllm_paths,record_paths", TEMPLATED, ids=[t[0] for t in TEMPLATED])
def test_templated_kinds(kind, api, spec_, vllm_paths, record_paths):
    obj = workload(kind, api, spec_, annotations=dict(ON))
    spec = kind_of(api, kind)
    assert spec is not None and spec.kind == kind
    found = [path for t in present_templates(spec, obj) for path, _ in containers(t, obj)]
    assert set(vllm_paths) <= set(found)
    enabled, plan = round_trip(obj)
    for path in vllm_paths:
        c = _get(enabled, path)
        assert c["args"] == ["--port", "8000", E_MTP] and c["command"] == ["vllm", "serve", "Qwen/Qwen3.5-4B"]
    for path in record_paths:
        assert _get(enabled, path)[INJECTED_ANNOTATION] == MTP
    # the sidecar and the init container are never touched
    for t in present_templates(spec, enabled):
        for _, c in containers(t, enabled):
            if c["name"] == "proxy":
                assert c["args"] == ["-c", "/etc/envoy.yaml"]
        assert _get(enabled, t.spec)["initContainers"][0]["command"] == ["vllm", "serve", "not/me"]
    ids = [f.id for f in plan.findings]
    assert ids.count("SD701") == len(vllm_paths)
    assert ("SD726" in ids) == (kind == "Job")


def test_pod():
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": dict(ON)},
           "spec": {"containers": [sidecar(), vllm_container("/models/deepseek-ai/DeepSeek-V3.2")]}}
    enabled, plan = round_trip(obj)
    assert enabled["spec"]["containers"][1]["args"][-1] == E_MTP
    assert enabled["metadata"]["annotations"] == {ANN: "true", INJECTED_ANNOTATION: MTP}
    info = next(f for f in plan.findings if f.id == "SD726")
    assert info.severity is Severity.INFO and info.field == "spec"
    assert info.message.startswith("the Pod's pod template changed, and the API server refuses that change")


def test_ops_are_minimal_and_field_paths_point_at_the_container():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(sidecar(), vllm_container())}, dict(ON))
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert list(plan.ops) == [
        {"op": "add", "path": "/spec/template/spec/containers/1/args/2", "value": E_MTP},
        {"op": "add", "path": "/spec/template/metadata/annotations", "value": {INJECTED_ANNOTATION: MTP}},
    ]
    obj["spec"]["template"]["metadata"]["annotations"] = {"team": "ml"}
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert list(plan.ops)[1] == {"op": "add", "value": MTP,
                                 "path": "/spec/template/metadata/annotations/kaito-specdec.dev~1speculative-config"}
    (info,) = plan.findings
    assert (info.id, info.field) == ("SD701", "spec.template.spec.containers[1].args")


# --- where the opt-in is read -----------------------------------------------------------------------------------
def test_opt_in_on_the_pod_template_only():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(vllm_container(), annotations=dict(ON))})
    spec = kind_of("apps/v1", "Deployment")
    opt = read_opt_in(spec, obj)
    assert (opt.value, opt.field) == ("true", "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]")
    enabled, _ = round_trip(obj)
    assert enabled["spec"]["template"]["metadata"]["annotations"] == {ANN: "true", INJECTED_ANNOTATION: MTP}


def test_opt_in_on_one_lws_template_configures_leader_and_workers():
    spec_ = {"leaderWorkerTemplate": {"size": 2, "leaderTemplate": pod_template(vllm_container()),
                                      "workerTemplate": pod_template(vllm_container(), annotations=dict(ON))}}
    obj = workload("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1", spec_)
    enabled, _ = round_trip(obj)
    lwt = enabled["spec"]["leaderWorkerTemplate"]
    assert lwt["leaderTemplate"]["spec"]["containers"][0]["args"][-1] == E_MTP
    assert lwt["workerTemplate"]["spec"]["containers"][0]["args"][-1] == E_MTP


def test_lws_without_leader_template():
    spec_ = {"leaderWorkerTemplate": {"size": 4, "workerTemplate": pod_template(vllm_container())}}
    obj = workload("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1", spec_, dict(ON))
    enabled, _ = round_trip(obj)
    assert "leaderTemplate" not in enabled["spec"]["leaderWorkerTemplate"]


def test_the_same_value_in_two_places_is_fine_two_values_are_an_error():
    same = workload("Deployment", "apps/v1", {"template": pod_template(vllm_container(), annotations=dict(ON))},
                    dict(ON))
    assert read_opt_in(kind_of("apps/v1", "Deployment"), same).value == "true"
    both = workload("Deployment", "apps/v1", {"template": pod_template(vllm_container(),
                                                                       annotations={ANN: "false"})}, dict(ON))
    plan = plan_workload(kind_of("apps/v1", "Deployment"), both)
    assert plan.ops == ()
    (err,) = plan.findings
    assert (err.id, err.severity) == ("SD720", Severity.ERROR)
    assert err.field == "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]"
    assert err.message == ('set to "true" in metadata.annotations but "false" in '
                           "spec.template.metadata.annotations; keep it in one place (the workload's "
                           "metadata.annotations)")


@pytest.mark.parametrize("value", ["True", "yes", True, ""])
def test_invalid_value_changes_nothing_and_names_the_field_for_kaitos_error(value):
    obj = workload("StatefulSet", "apps/v1", {"template": pod_template(vllm_container(),
                                                                        annotations={ANN: value})})
    plan = plan_workload(kind_of("apps/v1", "StatefulSet"), obj)
    assert (plan.ops, plan.findings) == ((), ())
    assert plan.opt_in.value == value
    assert plan.opt_in.field == "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]"


def test_not_annotated_is_not_looked_at():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(vllm_container())})
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert (plan.ops, plan.findings, plan.runs_vllm, plan.opt_in.present) == ((), (), False, False)


def test_no_vllm_container_is_a_warning():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(sidecar())}, dict(ON))
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert plan.ops == ()
    (warning,) = plan.findings
    assert (warning.id, warning.severity, warning.field) == (
        "SD721", Severity.WARNING, "metadata.annotations[kaito.sh/enable-speculative-decoding]")
    assert warning.message.startswith("opted in, but no container of this Deployment runs vLLM ")


def test_containers_with_different_configs_in_one_template_are_left_alone():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(
        vllm_container("Qwen/Qwen3.5-4B", "a"), vllm_container("meta-llama/Llama-3.1-8B", "b"))}, dict(ON))
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert plan.ops == ()
    assert [f.id for f in plan.findings] == ["SD725"]
    assert NGRAM in plan.findings[0].message and MTP in plan.findings[0].message


def test_findings_of_a_container_carry_its_path():
    c = vllm_container()
    c["args"] = ["--port", "8000", "--speculative-model", "x/y"]
    obj = workload("Deployment", "apps/v1", {"template": pod_template(c)}, dict(ON))
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert plan.ops == ()
    (err,) = plan.findings
    assert (err.id, err.severity, err.field) == ("SD704", Severity.ERROR, "spec.template.spec.containers[0].args")


def test_script_containers_round_trip():
    c = {"name": "vllm", "image": "vllm/vllm-openai", "command": ["/bin/sh", "-c"],
         "args": ["pip install x && exec vllm serve /models/Qwen/Qwen3.5-4B --port 8000 2>&1 | tee /log"]}
    obj = workload("Deployment", "apps/v1", {"template": pod_template(c)}, dict(ON))
    enabled, plan = round_trip(obj)
    assert enabled["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "pip install x && exec vllm serve /models/Qwen/Qwen3.5-4B --port 8000 --speculative-config='" + MTP
        + "' 2>&1 | tee /log"]
    assert list(plan.ops)[0] == {"op": "replace", "path": "/spec/template/spec/containers/0/args/0",
                                 "value": enabled["spec"]["template"]["spec"]["containers"][0]["args"][0]}


def test_other_api_versions_warn_when_annotated():
    old = workload("Deployment", "extensions/v1beta1", {"template": pod_template(vllm_container())}, dict(ON))
    assert kind_of("extensions/v1beta1", "Deployment") is None
    warning = other_version("extensions/v1beta1", "Deployment", old)
    assert (warning.id, warning.severity) == ("SD722", Severity.WARNING)
    assert warning.message == ("Deployment extensions/v1beta1 is not handled (only apps/v1); move the manifest to "
                               "apps/v1 for the opt-in to take effect")
    cron = workload("CronJob", "batch/v1beta1", {"jobTemplate": {"spec": {"template": pod_template(
        vllm_container(), annotations=dict(ON))}}})
    assert other_version("batch/v1beta1", "CronJob", cron).field == (
        "spec.jobTemplate.spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]")
    assert other_version("extensions/v1beta1", "Deployment", workload("Deployment", "extensions/v1beta1", {})) is None
    assert other_version("v1", "ConfigMap", old) is None


def test_kinds_table():
    assert {k.kind for k in KINDS} == {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob",
                                       "Pod", "LeaderWorkerSet", "InferenceService", "LLMInferenceService"}
    assert kind_of("kaito.sh/v1beta1", "Workspace") is None and kind_of("apps/v1", "Deployment") is not None
    assert kind_of("apps/v1", None) is None


# --- KServe -------------------------------------------------------------------------------------------------------
def isvc(model: dict, annotations: dict | None = None, predictor_annotations: dict | None = None) -> dict:
    predictor: dict = {"model": model}
    if predictor_annotations is not None:
        predictor["annotations"] = predictor_annotations
    return workload("InferenceService", "serving.kserve.io/v1beta1", {"predictor": predictor}, annotations)


KSERVE_SPEC = kind_of("serving.kserve.io/v1beta1", "InferenceService")


@pytest.mark.parametrize("model,want_model,want_args", [
    ({"modelFormat": {"name": "huggingface"}, "args": ["--model_name=qwen", "--model_id=Qwen/Qwen3.5-4B"]},
     "Qwen/Qwen3.5-4B", ["--model_name=qwen", "--model_id=Qwen/Qwen3.5-4B", E_MTP]),
    ({"modelFormat": {"name": "huggingface"}, "args": ["--model_id", "meta-llama/Llama-3.1-8B"]},
     "meta-llama/Llama-3.1-8B", ["--model_id", "meta-llama/Llama-3.1-8B", "--speculative-config=" + NGRAM]),
    ({"modelFormat": {"name": "huggingface"}, "storageUri": "hf://Qwen/Qwen3.5-4B:5f1c2a"},
     "Qwen/Qwen3.5-4B", [E_MTP]),
    ({"modelFormat": {"name": "huggingface"}, "storageUri": "s3://models/deepseek-ai/DeepSeek-V3.2",
      "args": ["--model_name=ds"]},
     "s3://models/deepseek-ai/DeepSeek-V3.2", ["--model_name=ds", E_MTP]),
    # --model_id wins over the download
    ({"modelFormat": {"name": "huggingface"}, "storageUri": "hf://a/b", "args": ["--model_id=Qwen/Qwen3.5-4B"]},
     "Qwen/Qwen3.5-4B", ["--model_id=Qwen/Qwen3.5-4B", E_MTP]),
])
def test_kserve_huggingface_runtime(model, want_model, want_args):
    obj = isvc(model, dict(ON))
    assert kserve_model(KSERVE_SPEC.kserve, obj) == want_model
    enabled, plan = round_trip(obj)
    assert enabled["spec"]["predictor"]["model"]["args"] == want_args
    assert enabled["spec"]["predictor"]["annotations"] == {INJECTED_ANNOTATION: want_args[-1].split("=", 1)[1]}
    # KServe's runtime supplies the image: the default release is assumed, and said (SD735)
    assert [(f.id, f.field) for f in plan.findings] == [("SD735", "spec.predictor.model"),
                                                        ("SD701", "spec.predictor.model.args")]


def test_kserve_annotation_on_the_predictor():
    obj = isvc({"modelFormat": {"name": "huggingface"}, "storageUri": "hf://Qwen/Qwen3.5-9B"},
               predictor_annotations=dict(ON))
    opt = read_opt_in(KSERVE_SPEC, obj)
    assert opt.field == "spec.predictor.annotations[kaito.sh/enable-speculative-decoding]"
    enabled, _ = round_trip(obj)
    assert enabled["spec"]["predictor"]["annotations"] == {ANN: "true", INJECTED_ANNOTATION: MTP}


def test_kserve_model_not_known():
    obj = isvc({"modelFormat": {"name": "huggingface"}, "storageUri": "pvc://weights/$(MODEL)"}, dict(ON))
    enabled, plan = round_trip(obj)
    assert enabled["spec"]["predictor"]["model"]["args"] == ["--speculative-config=" + NGRAM]
    assert [(f.id, f.field) for f in plan.findings] == [("SD735", "spec.predictor.model"),
                                                        ("SD702", "spec.predictor.model.storageUri")]
    obj = isvc({"modelFormat": {"name": "huggingface"}}, dict(ON))
    (_, info) = plan_workload(KSERVE_SPEC, obj).findings
    assert info.id == "SD702" and "(no --model_id and no storageUri)" in info.message


def test_kserve_user_override_and_removed_flags():
    obj = isvc({"modelFormat": {"name": "huggingface"}, "args": ["--model_id=a/b", "--speculative_config", MTP]},
               dict(ON))
    plan = plan_workload(KSERVE_SPEC, obj)
    assert plan.ops == () and [f.id for f in plan.findings] == ["SD735", "SD703"]
    obj = isvc({"modelFormat": {"name": "huggingface"}, "args": ["--model_id=a/b", "--num-speculative-tokens=3"]},
               dict(ON))
    assert [f.id for f in plan_workload(KSERVE_SPEC, obj).findings] == ["SD735", "SD704"]


def test_kserve_not_vllm():
    obj = isvc({"modelFormat": {"name": "sklearn"}, "storageUri": "gs://m"}, dict(ON))
    plan = plan_workload(KSERVE_SPEC, obj)
    assert plan.ops == ()
    (warning,) = plan.findings
    assert (warning.id, warning.field) == ("SD723", "spec.predictor.model.modelFormat.name")
    assert warning.message.startswith('kaito.sh/enable-speculative-decoding is "true" but the predictor\'s model '
                                      'format is "sklearn", not "huggingface"')
    obj = isvc({"runtime": "kserve-huggingfaceserver", "args": ["--model_id=a/b"]}, dict(ON))
    (warning,) = plan_workload(KSERVE_SPEC, obj).findings
    assert "the predictor's model format is (none), not \"huggingface\"" in warning.message
    obj = isvc({"modelFormat": {"name": "huggingface"}, "args": ["--model_id=a/b", "--backend", "huggingface"]},
               dict(ON))
    assert kserve_backend(KSERVE_SPEC.kserve, obj) == "huggingface"
    plan = plan_workload(KSERVE_SPEC, obj)
    assert plan.ops == () and [f.id for f in plan.findings] == ["SD724"]
    assert "--backend=huggingface does not run vLLM" in plan.findings[0].message
    obj = isvc({"modelFormat": {"name": "huggingface"}, "args": ["--model_id=Qwen/Qwen3.5-4B", "--backend=vllm"]},
               dict(ON))
    round_trip(obj)


def test_kserve_custom_predictor_container():
    obj = workload("InferenceService", "serving.kserve.io/v1beta1",
                   {"predictor": {"containers": [vllm_container()]}}, dict(ON))
    enabled, _ = round_trip(obj)
    assert enabled["spec"]["predictor"]["containers"][0]["args"][-1] == E_MTP


# --- list_ops -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("old,new", [
    (["a"], ["a", "b"]), (["a", "b"], ["a"]), (["a", "x", "b"], ["a", "b"]), (["a", "b"], ["a", "c"]),
    (["a", "x", "b"], ["a", "b", "y"]), ([], ["z"]), (["a"], ["a"]), (None, ["a"]), (["a"], None),
])
def test_list_ops_turn_old_into_new(old, new):
    doc = {"l": old} if old is not None else {}
    ops = list_ops(("l",), old, new)
    got = jsonpatch.apply_patch(doc, ops)
    assert got.get("l") == new
    if old == new:
        assert ops == []


def test_the_planner_reports_its_ids():
    from finding_ids import ids_used
    from krm_fn.domain import plain_workloads
    assert set(ids_used(plain_workloads)) == {f"SD72{i}" for i in range(0, 10)} | {"SD730", "SD731", "SD732", "SD735", "SD736"}


def test_lws_ray_leader_script_and_ray_only_workers():
    # vLLM's own LWS example (docs/deployment/frameworks/lws.md): the leader starts Ray then the API server in
    # one script; the workers only join Ray, so only the leader is configured.
    leader = {"name": "vllm-leader", "image": "docker.io/vllm/vllm-openai:latest", "command": [
        "sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                    "--ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 "
                    "--model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"]}
    worker = {"name": "vllm-worker", "image": "docker.io/vllm/vllm-openai:latest", "command": [
        "sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                    "--ray_address=$(LWS_LEADER_ADDRESS)"]}
    spec_ = {"replicas": 2, "leaderWorkerTemplate": {"size": 2, "restartPolicy": "RecreateGroupOnPodRestart",
                                                     "leaderTemplate": pod_template(leader),
                                                     "workerTemplate": pod_template(worker)}}
    obj = workload("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1", spec_, dict(ON))
    enabled, plan = round_trip(obj)
    lwt = enabled["spec"]["leaderWorkerTemplate"]
    assert lwt["leaderTemplate"]["spec"]["containers"][0]["command"][2] == leader["command"][2] + (
        " --speculative-config='" + NGRAM + "'")
    assert lwt["workerTemplate"] == obj["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    # `latest` names no release: the default vllmVersion (0.25.1) judges --pipeline_parallel_size 2 (#22), and
    # a warning on the leader says so (SD735: the worker runs no vLLM server, nothing of it is judged)
    assert [(f.id, f.severity.value, f.field) for f in plan.findings] == [
        ("SD735", "warning", "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].image"),
        ("SD701", "info", "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].command[2]"),
        ("SD715", "warning", "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].command[2]")]


def test_the_design_note_example_is_what_the_plan_does():
    import pathlib
    import re

    import yaml

    text = (pathlib.Path(__file__).parents[2] / "docs" / "plain-vllm.md").read_text()
    blocks = dict(re.findall(r"<!-- plain-deployment-(\w+):start -->\n```yaml\n(.*?)```", text, re.S))
    before, after = yaml.safe_load(blocks["input"]), yaml.safe_load(blocks["output"])
    plan = plan_workload(kind_of(before["apiVersion"], before["kind"]), before)
    assert jsonpatch.apply_patch(before, list(plan.ops)) == after
    assert plan_workload(kind_of(after["apiVersion"], after["kind"]), after).ops == ()


def test_kserve_switched_to_another_backend_loses_the_injected_argument():
    obj = isvc({"modelFormat": {"name": "huggingface"}, "args": ["--model_id=Qwen/Qwen3.5-4B", "--backend=huggingface",
                                                                 E_MTP]},
               dict(ON), predictor_annotations={INJECTED_ANNOTATION: MTP})
    plan = plan_workload(KSERVE_SPEC, obj)
    after = jsonpatch.apply_patch(obj, list(plan.ops))
    assert after["spec"]["predictor"]["model"]["args"] == ["--model_id=Qwen/Qwen3.5-4B", "--backend=huggingface"]
    assert "annotations" not in after["spec"]["predictor"]
    assert [f.id for f in plan.findings] == ["SD724"] and not plan.runs_vllm


_FRAGMENTS = ["vllm serve a/b", "vllm serve Qwen/Qwen3.5-4B", "--port 8000", "'q u'", '"$(x y)"', "&&", "||", ";",
              "|", "&", "2>&1", "> /log", "# c", "\\\n", "\n", "echo hi", "exec", "A=1", "$EXTRA",
              "--speculative-config '{}'", "--num-speculative-tokens 3", "<<EOF", "'unterminated", "`date`",
              "${X:-1}", "(", ")", "{", "}", "if true; then", "fi", "--config c.yaml", "\r\n"]
_ARGS = ["a/b", "--model", "Qwen/Qwen3.5-4B", "--port", "8000", "$(X)", "--speculative_config", "{}", "-sc"]


@pytest.mark.parametrize("seed", range(3))
def test_random_containers_enable_fixpoint_disable(seed):
    import random

    rnd = random.Random(seed)
    spec = kind_of("apps/v1", "Deployment")
    for _ in range(500):
        if rnd.random() < 0.5:
            c = {"name": "v", "command": ["sh", "-c", " ".join(rnd.choice(_FRAGMENTS) for _ in range(rnd.randint(1, 10)))]}
        else:
            c = {"name": "v", "image": "vllm/vllm-openai", "args": [rnd.choice(_ARGS) for _ in range(rnd.randint(0, 5))]}
            command = rnd.choice([["vllm", "serve"], ["python3", "-m", "vllm.entrypoints.openai.api_server"], None])
            if command:
                c["command"] = command
        obj = workload("Deployment", "apps/v1", {"template": pod_template(c)}, dict(ON))
        on = jsonpatch.apply_patch(obj, list(plan_workload(spec, obj).ops))
        assert plan_workload(spec, on).ops == (), c
        off = copy.deepcopy(on)
        off["metadata"]["annotations"][ANN] = "false"
        back = jsonpatch.apply_patch(off, list(plan_workload(spec, off).ops))
        back["metadata"]["annotations"][ANN] = "true"
        assert back == obj, c


@pytest.mark.parametrize("kind,api", [("Job", "batch/v1"), ("Deployment", "apps/v1")])
def test_a_template_without_metadata_gets_it_and_loses_it_again(kind, api):
    """The record creates the template's `metadata` whole; a disable takes it whole (no `metadata: {}`)."""
    template = {"spec": {"containers": [vllm_container()]}}
    obj = workload(kind, api, {"template": template}, annotations=dict(ON))
    enabled, _ = round_trip(obj)
    assert enabled["spec"]["template"]["metadata"] == {"annotations": {INJECTED_ANNOTATION: MTP}}


def test_a_template_metadata_the_user_wrote_stays_when_the_record_goes():
    template = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [vllm_container()]}}
    obj = workload("Deployment", "apps/v1", {"template": template}, annotations=dict(ON))
    round_trip(obj)


def test_shape_problems_name_each_field_kubernetes_refuses():
    from krm_fn.domain.plain_workloads import shape_problems
    spec = kind_of("apps/v1", "Deployment")
    obj = workload("Deployment", "apps/v1", {"template": {"metadata": {"annotations": ["x"]}, "spec": {
        "containers": [{"name": "a", "args": "--port 8000", "command": ["vllm"]}, "b"]}}}, annotations=dict(ON))
    found = [(f.id, f.severity, f.field) for f in shape_problems(spec, obj)]
    assert found == [("SD728", Severity.ERROR, "spec.template.metadata.annotations"),
                     ("SD728", Severity.ERROR, "spec.template.spec.containers[0].args"),
                     ("SD728", Severity.ERROR, "spec.template.spec.containers[1]")]
    obj["spec"]["template"] = {"spec": {"containers": {"vllm": {}}}}
    assert [f.field for f in shape_problems(spec, obj)] == ["spec.template.spec.containers"]
    obj["spec"]["template"] = []
    assert [f.field for f in shape_problems(spec, obj)] == ["spec.template"]
    assert shape_problems(spec, workload("Deployment", "apps/v1", {"template": pod_template(vllm_container())})) == []


def test_disabling_reports_what_it_takes_out():
    obj = workload("Deployment", "apps/v1", {"template": pod_template(vllm_container())}, annotations=dict(ON))
    spec = kind_of("apps/v1", "Deployment")
    enabled = jsonpatch.apply_patch(obj, list(plan_workload(spec, obj).ops))
    enabled["metadata"]["annotations"][ANN] = "false"
    plan = plan_workload(spec, enabled)
    assert [(f.id, f.severity, f.field) for f in plan.findings] == [
        ("SD727", Severity.INFO, "spec.template.spec.containers[0].args")]
    assert MTP in plan.findings[0].message and '"false"' in plan.findings[0].message


# --- a disable after the function's argument was edited by hand ------------------------------------------------
SPACED = '{"method": "mtp", "num_speculative_tokens": 1}'


def _recorded_deployment(*containers: dict, value: str = "false") -> dict:
    return workload("Deployment", "apps/v1", {"template": pod_template(*containers, annotations={
        INJECTED_ANNOTATION: MTP})}, annotations={ANN: value})


def test_disable_takes_out_our_argument_split_in_two_with_its_record():
    c = vllm_container()
    c["args"] = ["--speculative-config", MTP, "--port", "8000"]
    obj = _recorded_deployment(c)
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    back = jsonpatch.apply_patch(obj, list(plan.ops))
    assert back["spec"]["template"]["spec"]["containers"][0]["args"] == ["--port", "8000"]
    assert INJECTED_ANNOTATION not in back["spec"]["template"]["metadata"].get("annotations", {})
    assert [f.id for f in plan.findings] == ["SD727"] and not plan.speculates


def test_disable_keeps_an_argument_changed_by_hand_and_its_record_with_a_warning():
    c = vllm_container()
    c["args"] = ["--speculative-config", '{"method":"mtp","num_speculative_tokens":2}', "--port", "8000"]
    plan = plan_workload(kind_of("apps/v1", "Deployment"), _recorded_deployment(c))
    assert plan.ops == () and plan.speculates   # the pods still speculate: the summary and PrometheusRule say so
    assert [(f.id, f.severity, f.field) for f in plan.findings] == [
        ("SD733", Severity.WARNING, "spec.template.spec.containers[0].args")]


def test_enabled_a_respelled_argument_of_ours_changes_nothing():
    c = vllm_container()
    c["args"] = ["--port", "8000", "--speculative-config=" + SPACED]
    plan = plan_workload(kind_of("apps/v1", "Deployment"), _recorded_deployment(c, value="true"))
    assert plan.ops == () and plan.speculates and [f.id for f in plan.findings] == ["SD701"]


def test_a_config_of_its_own_beside_the_argument_taken_out_is_the_users():
    """Two containers of one template: the recorded argument is taken out of the first; the second's config
    of another value was never the function's (it said SD703 there), so no warning and the record goes."""
    ours, theirs = vllm_container(name="a"), vllm_container(name="b")
    ours["args"] = ["--port", "8000", E_MTP]
    theirs["args"] = ["--port", "8001", "--speculative-config", NGRAM]
    obj = _recorded_deployment(ours, theirs)
    plan = plan_workload(kind_of("apps/v1", "Deployment"), obj)
    assert [f.id for f in plan.findings] == ["SD727"]
    back = jsonpatch.apply_patch(obj, list(plan.ops))
    assert INJECTED_ANNOTATION not in back["spec"]["template"]["metadata"].get("annotations", {})
    assert back["spec"]["template"]["spec"]["containers"][1]["args"] == theirs["args"]


SPLIT_BY_HAND = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
  annotations:
    kaito.sh/enable-speculative-decoding: "false"
spec:
  template:
    metadata:
      annotations:
        kaito-specdec.dev/speculative-config: '{"method":"mtp","num_speculative_tokens":1}'
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve", "Qwen/Qwen3.5-4B"]
          args:
            - --speculative-config
            - '{"method":"mtp","num_speculative_tokens":1}'
            - --port
            - "8000"
"""


def test_render_disables_an_argument_split_by_hand_and_keeps_one_changed():
    from runner import run
    code, out, err = run(["render", "-v", "-"], SPLIT_BY_HAND)   # -v: infos too (SD727)
    want = SPLIT_BY_HAND.replace("""    metadata:
      annotations:
        kaito-specdec.dev/speculative-config: '{"method":"mtp","num_speculative_tokens":1}'
""", "").replace("""            - --speculative-config
            - '{"method":"mtp","num_speculative_tokens":1}'
""", "")
    assert (code, out) == (0, "---\n" + want) and "[SD727]" in err
    changed = SPLIT_BY_HAND.replace("""            - '{"method":"mtp","num_speculative_tokens":1}'""",
                                    """            - '{"method":"mtp","num_speculative_tokens":2}'""")
    code, out, err = run(["render", "-"], changed)
    assert (code, out) == (0, "---\n" + changed)
    assert "[warning]" in err and "changed by hand" in err and "[SD733]" in err


# --- issue #30: an LLMInferenceService whose spec.speculator (kserve/kserve#5687) configures speculation ---------
def _llmisvc(**spec_extra) -> dict:
    return {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
            "metadata": {"name": "q", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
            "spec": {"model": {"uri": "hf://Qwen/Qwen3-8B"}, "template": {"containers": [{"name": "main"}]},
                     **spec_extra}}


def test_an_llminferenceservice_with_a_speculator_gets_nothing_and_is_told_why() -> None:
    spec = kind_of("serving.kserve.io/v1alpha2", "LLMInferenceService")
    assert spec is not None
    plain = plan_workload(spec, _llmisvc())
    assert plain.ops and [f.id for f in plain.findings] == ["SD735", "SD701"]
    obj = _llmisvc(speculator={"config": {"method": "ngram", "num_speculative_tokens": 4}})
    planned = plan_workload(spec, obj)
    assert planned.ops == ()
    assert [(f.id, f.severity, f.field) for f in planned.findings] == [("SD732", Severity.INFO, "spec.speculator")]
    # rendered before spec.speculator was written: the function's own arguments are taken out again
    rendered = jsonpatch.apply_patch(_llmisvc(), list(plain.ops))
    rendered["spec"]["speculator"] = {"config": {"method": "eagle3", "num_speculative_tokens": 3}}
    later = plan_workload(spec, rendered)
    assert [f.id for f in later.findings] == ["SD732"]
    back = jsonpatch.apply_patch(rendered, list(later.ops))
    assert "speculative-config" not in str(back) and INJECTED_ANNOTATION not in str(back)
    assert back["spec"]["speculator"] == rendered["spec"]["speculator"]


# --- an image whose tag names no vLLM release (SD735) ----------------------------------------------------------------
MEDUSA = ('--speculative-config={"method":"medusa","model":"FasterDecoding/medusa-vicuna-7b-v1.3",'
          '"num_speculative_tokens":3}')


@pytest.mark.parametrize("image", ["vllm/vllm-openai:latest", "vllm/vllm-openai:nightly", "vllm/vllm-openai",
                                   "vllm/vllm-openai@sha256:" + "0" * 64, "registry.example.com/llm/vllm-server:2.4"])
def test_an_image_that_names_no_release_is_judged_by_the_default_and_says_so(image: str) -> None:
    release = release_of(image)
    assert release.version == DEFAULT_VLLM_VERSION and release.unpinned is not None
    assert (release.unpinned.id, release.unpinned.severity, release.unpinned.field) == ("SD735", Severity.WARNING,
                                                                                     "image")
    assert release.unpinned.message.startswith(f"image {image} names no vLLM release, so the verdicts here assume "
                                               f"vLLM {DEFAULT_VLLM_VERSION}")
    assert "a versioned vllm/vllm-openai tag, or vllmVersion" in release.unpinned.message
    # Pinned: by the setting, or by a versioned official tag.
    assert release_of(image, "0.33.0").unpinned is None
    assert release_of("vllm/vllm-openai:v0.10.2") == release_of("vllm/vllm-openai:v0.10.2")._replace(unpinned=None)
    assert release_of(None, where="the main container").unpinned.message.startswith(
        "the main container names no image, so the verdicts here assume")


def test_a_medusa_config_on_latest_is_never_passed_in_silence() -> None:
    """vLLM 0.33 removed medusa, which the default 0.25.1 still has: on `latest` the user's config passes as
    0.25.1 judges it, with the warning that the release was assumed; pinned to 0.33 it is refused (SD604)."""
    def planned(image: str, setting: str | None = None) -> list[str]:
        c = {"name": "vllm", "image": image, "command": ["vllm", "serve", "lmsys/vicuna-7b-v1.3"], "args": [MEDUSA]}
        obj = workload("Deployment", "apps/v1", {"template": pod_template(c)}, dict(ON))
        return [f.id for f in plan_workload(kind_of("apps/v1", "Deployment"), obj, vllm_version=setting).findings]
    assert planned("vllm/vllm-openai:latest") == ["SD735", "SD703"]
    assert planned("vllm/vllm-openai:v0.33.0") == ["SD703", "SD604"]
    assert planned("vllm/vllm-openai:latest", "0.33.0") == ["SD703", "SD604"]


def test_a_container_that_nothing_is_judged_on_gets_no_warning() -> None:
    """A pooling model (SD711) or a settings file (SD709) alone: no verdict depends on the release."""
    c = {"name": "vllm", "image": "vllm/vllm-openai:latest", "command": ["vllm", "serve", "BAAI/bge-m3", "--task",
                                                                         "embed"]}
    obj = workload("Deployment", "apps/v1", {"template": pod_template(c)}, dict(ON))
    assert [f.id for f in plan_workload(kind_of("apps/v1", "Deployment"), obj).findings] == ["SD711"]


# --- issue #38: the record's fields exist in the target's schema (SD736) ----------------------------------------------
@pytest.mark.parametrize("api_version,said", [("serving.kserve.io/v1alpha1", ["spec.annotations", "spec.prefill.annotations"]),
                                              ("serving.kserve.io/v1alpha2", [])])
def test_a_record_in_a_field_kserve_0_16s_v1alpha1_crd_lacks_is_a_warning(api_version: str, said: list[str]) -> None:
    """KServe v0.16.0's config/crd/full/llmisvc/serving.kserve.io_llminferenceservices.yaml: v1alpha1's spec is
    baseRefs, model, parallelism, prefill {parallelism, replicas, template, worker}, replicas, router, template,
    worker (no annotations); v0.17.0's has spec.annotations and spec.prefill.annotations in both versions."""
    spec = kind_of(api_version, "LLMInferenceService")
    assert spec is not None
    own = {"containers": [{"name": "main", "image": "vllm/vllm-openai:v0.25.1",
                           "command": ["vllm", "serve", "/mnt/models", "--port", "8000"]}]}
    obj = {"apiVersion": api_version, "kind": "LLMInferenceService",
           "metadata": {"name": "q", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
           "spec": {"model": {"uri": "hf://Qwen/Qwen3-8B"}, "template": own, "prefill": {"template": own}}}
    planned = plan_workload(spec, obj)
    assert [f.field for f in planned.findings if f.id == "SD736"] == said
    assert all(f.severity is Severity.WARNING for f in planned.findings if f.id == "SD736")
    # disabled again: the records go, and nothing is said
    rendered = jsonpatch.apply_patch(obj, list(planned.ops))
    rendered["metadata"]["annotations"]["kaito.sh/enable-speculative-decoding"] = "false"
    assert [f.id for f in plan_workload(spec, rendered).findings if f.id == "SD736"] == []
