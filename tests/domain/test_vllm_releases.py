"""Issue #22: what the vLLM a plain workload runs does with the arguments the function writes (vllm_releases),
Kubernetes' $(VAR) expansion of command and args, and the decisions that follow in vllm_command.reconcile.
Expected values are written from the upstream sources named in each table (vLLM's wheels, Kubernetes'
third_party/forked/golang/expansion/expand_test.go), not from the code's output."""
from __future__ import annotations

import pytest

from krm_fn.text.results import Severity
from krm_fn.domain.vllm_command import (Release, dotted_arguments, inspect, k8s_expand, kubernetes_env,
    read_arguments, reconcile, remove)
from krm_fn.domain.vllm_model import by_name, decide_model
from krm_fn.domain.vllm_releases import image_release, pipeline_verdict, takes_no_value

MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'


# --- Kubernetes' expansion: expand_test.go's doExpansionTest table, with TestMapping's context ---------------
CONTEXT = {"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": ""}
EXPANSIONS = [
    ("$(VAR_A)", "A"), ("$(VAR_A)-$(VAR_A)", "A-A"), ("$(VAR_A)-1", "A-1"), ("___$(VAR_B)___", "___B___"),
    ("___$(VAR_C)", "___C"), ("$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"), ("$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"),
    ("$$(VAR_A)_$$(VAR_B)", "$(VAR_A)_$(VAR_B)"), ("f000-$$VAR_A", "f000-$VAR_A"),
    ("foo\\$(VAR_C)bar", "foo\\Cbar"), ("foo\\\\$(VAR_C)bar", "foo\\\\Cbar"),
    ("foo\\\\\\\\$(VAR_A)bar", "foo\\\\\\\\Abar"), ("$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"),
    ("$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"), ("$(VAR_REF)", "$(VAR_A)"),
    ("%%$(VAR_REF)--$(VAR_REF)%%", "%%$(VAR_A)--$(VAR_A)%%"), ("foo$(VAR_EMPTY)bar", "foobar"),
    ("foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"), ("f00__(VAR_A)__", "f00__(VAR_A)__"),
    ("$?_boo_$!", "$?_boo_$!"), ("$VAR_A", "$VAR_A"), ("$(VAR_DNE)", "$(VAR_DNE)"),
    ("$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"), ("$$$$$$(VAR_A)", "$$$(VAR_A)"),
    ("$$$$$$$(GOOD_ODDS)", "$$$$(GOOD_ODDS)"), ("$$$$$$$(VAR_A)", "$$$A"), ("$VAR_A)", "$VAR_A)"),
    ("${VAR_A}", "${VAR_A}"), ("$(VAR_B)_______$(A", "B_______$(A"), ("$(VAR_C)_______$(", "C_______$("),
    ("$(VAR_A)foobarzab$", "Afoobarzab$"), ("foo-\\$(VAR_A", "foo-\\$(VAR_A"), ("--$($($($($--", "--$($($($($--"),
    ("$($($($($--foo$(", "$($($($($--foo$("), ("foo0--$($($($(", "foo0--$($($($("),
    ("$(foo$$var)", "$(foo$$var)"), ("\n", "\n"),
]


@pytest.mark.parametrize("text,expanded", EXPANSIONS)
def test_expansion_is_kubernetes(text, expanded):
    assert k8s_expand(text, CONTEXT) == expanded


def test_env_is_built_in_order_as_the_kubelet_does():
    # expand_test.go TestMapReference: each value expanded with the ones before it
    env = [{"name": "FOO", "value": "bar"}, {"name": "ZOO", "value": "$(FOO)-1"}, {"name": "BLU", "value": "$(ZOO)-2"}]
    assert kubernetes_env(env) == {"FOO": "bar", "ZOO": "bar-1", "BLU": "bar-1-2"}
    # a later valueFrom of the same name is known only at run time: the reference stays as written
    env.append({"name": "FOO", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})
    assert "FOO" not in kubernetes_env(env)


def test_model_from_a_literal_env_value_gets_its_tuned_config():
    env = kubernetes_env([{"name": "MODEL_ID", "value": "Qwen/Qwen3.5-9B"}])
    out = reconcile(["python3", "-m", "vllm.entrypoints.openai.api_server"], ["--model=$(MODEL_ID)"],
                    enabled=True, env=env)
    assert out.args == ["--model=$(MODEL_ID)", "--speculative-config=" + MTP]   # the written text stays
    undefined = reconcile(["vllm", "serve", "$(MODEL_ID)"], None, enabled=True)
    assert undefined.injected == NGRAM and [f.id for f in undefined.findings] == ["SD702"]


def test_a_script_is_read_expanded_and_edited_as_written():
    env = {"MODEL": "Qwen/Qwen3.5-4B"}
    out = reconcile(["sh", "-c", "exec vllm serve $(MODEL) --port 8000 2>&1"], None, enabled=True, env=env)
    assert out.command == ["sh", "-c", f"exec vllm serve $(MODEL) --port 8000 --speculative-config='{MTP}' 2>&1"]


# --- image tags ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("image,release", [
    ("vllm/vllm-openai:v0.10.2", "0.10.2"), ("docker.io/vllm/vllm-openai:v0.8.5.post1", "0.8.5.post1"),
    ("vllm/vllm-openai:v0.10.1.1@sha256:ab", "0.10.1.1"), ("vllm/vllm-openai:latest", None),
    ("vllm/vllm-openai@sha256:ab", None), ("ghcr.io/llm-d/llm-d:v0.2.0", None),
    ("quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2", None), ("localhost:5000/vllm/vllm-openai:v0.9.0", None),
])
def test_only_vllms_own_images_name_a_release(image, release):
    assert image_release(image) == release


@pytest.mark.parametrize("image", ["quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2",
                                   "quay.io/rh-aiservices-bu/vllm-cpu-openai-ubi9:0.3", "lmcache/vllm-openai:latest",
                                   "rocm/vllm-openai-rocm:v0.9"])
def test_openai_server_images_with_args_only(image):
    insp = inspect(None, ["--model", "a/b"], image)
    assert insp.runs_vllm and insp.form == "image" and insp.model == "a/b"


def test_grpc_and_demo_servers_take_engine_arguments():
    for module in ("vllm.entrypoints.grpc_server", "vllm.entrypoints.api_server"):
        insp = inspect(["python3", "-m", module], ["--model", "Qwen/Qwen3-32B"])
        assert insp.runs_vllm and insp.model == "Qwen/Qwen3-32B"


# --- releases: the JSON flag, tuned configs, pipeline parallelism ----------------------------------------------
@pytest.mark.parametrize("version,refused", [("0.5.5", True), ("0.7.1", True), ("0.8.1", True), ("0.8.2", False)])
def test_json_flag_from_0_8_2(version, refused):
    out = reconcile(["vllm", "serve", "a/b"], None, enabled=True, release=Release(version, "image x"))
    assert (out.injected is None) == refused
    assert ("SD712" in [f.id for f in out.findings]) == refused


def test_mtp_before_0_11_falls_back_to_ngram():
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], None, enabled=True, release=Release("0.10.2", "s"))
    assert out.injected == NGRAM and [f.id for f in out.findings] == ["SD701", "SD713"]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], None, enabled=True, release=Release("0.11.0", "s"))
    assert out.injected == MTP


@pytest.mark.parametrize("version,severity,refuses", [
    ((0, 8, 5), Severity.ERROR, True), ((0, 9, 2), Severity.WARNING, False), ((0, 10, 0), Severity.WARNING, False),
    ((0, 33, 0), Severity.WARNING, False)])
def test_pipeline_verdict_by_release(version, severity, refuses):
    verdict = pipeline_verdict(version, "x")
    assert (verdict.severity, verdict.refuses) == (severity, refuses)


# Issue #30, read from each wheel's vllm/engine/arg_utils.py (`_is_v1_supported_oracle`): which engine runs a
# speculative config under pipeline parallelism, by --distributed-executor-backend and VLLM_USE_V1.
@pytest.mark.parametrize("version,backend,use_v1,method,refuses", [
    # 0.8.5: ngram stays on V1 only with VLLM_USE_V1=1 (_warn_or_fallback) and PP only with Ray (:1478-1482)
    ((0, 8, 5), "ray", "1", "ngram", False), ((0, 8, 5), "ray", None, "ngram", True),
    ((0, 8, 5), "mp", "1", "ngram", True), ((0, 8, 5), None, "1", "ngram", True),
    # 0.9.0: `not in ("ray", "mp", "external_launcher")` (:1378-1383): the default falls back to V0
    ((0, 9, 0), None, None, "ngram", True), ((0, 9, 0), "mp", None, "ngram", False),
    ((0, 9, 0), "ray", None, "mtp", False), ((0, 9, 0), "ray", "0", "ngram", True),
    # 0.9.1-0.9.2: the default (None) is in the tuple (:1482-1489 at 0.9.2): V1 with the mp or Ray executor
    ((0, 9, 1), None, None, "ngram", False), ((0, 9, 2), None, None, "ngram", False),
    ((0, 9, 2), "mp", None, "ngram", False), ((0, 9, 2), None, "0", "ngram", True),
    ((0, 10, 0), None, None, "ngram", False),
])
def test_pipeline_verdict_by_engine(version, backend, use_v1, method, refuses):
    verdict = pipeline_verdict(version, "vLLM x", backend, use_v1, method)
    assert verdict.refuses is refuses
    assert verdict.severity is (Severity.ERROR if refuses else Severity.WARNING)
    assert "falls back to V0, which refuses it" not in verdict.text


def test_the_pipeline_verdict_reads_the_backend_and_vllm_use_v1_of_the_container():
    cmd = ["vllm", "serve", "Qwen/Qwen3-8B", "-pp", "2"]
    no_backend = reconcile(cmd, None, enabled=True, release=Release("0.9.0", "image x"))
    assert no_backend.injected is None and [(f.id, f.severity) for f in no_backend.findings] == [
        ("SD734", Severity.ERROR)]
    mp = reconcile(cmd + ["--distributed-executor-backend=mp"], None, enabled=True, release=Release("0.9.0", "image x"))
    assert mp.injected is not None and [f.severity for f in mp.findings if f.id == "SD715"] == [Severity.WARNING]
    on_v1 = reconcile(cmd + ["--distributed-executor-backend", "ray"], None, enabled=True,
                      release=Release("0.8.5", "image x"), env={"VLLM_USE_V1": "1"})
    assert on_v1.injected is not None and [f.severity for f in on_v1.findings if f.id == "SD715"] == [Severity.WARNING]
    v0 = reconcile(cmd, None, enabled=True, release=Release("0.9.2", "image x"), env={"VLLM_USE_V1": "0"})
    assert v0.injected is None and [f.id for f in v0.findings] == ["SD734"]


@pytest.mark.parametrize("extra", [["--pipeline-parallel-size", "2"], ["-pp", "2"], ["--pipeline_parallel_size", "2"],
                                   ["--pipeline-parallel-size=4"]])
def test_every_pipeline_spelling(extra):
    out = reconcile(["vllm", "serve", "a/b", *extra], None, enabled=True, release=Release("0.8.5", "image x"))
    assert out.injected is None and [(f.id, f.severity) for f in out.findings] == [("SD734", Severity.ERROR)]
    one = reconcile(["vllm", "serve", "a/b", "-pp", "1"], None, enabled=True, release=Release("0.8.5", "image x"))
    assert one.injected == NGRAM


# --- pooling ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("extra", [["--task", "embed"], ["--task=embedding"], ["--task", "score"], ["--task", "reward"],
                                   ["--runner", "pooling"], ["--convert", "classify"], ["--convert=embed"]])
def test_pooling_models_are_left_alone(extra):
    out = reconcile(["vllm", "serve", "BAAI/bge-m3", *extra], None, enabled=True)
    assert out.injected is None and [f.id for f in out.findings] == ["SD711"]


def test_generation_tasks_are_not_pooling():
    assert reconcile(["vllm", "serve", "a/b", "--task", "generate"], None, enabled=True).injected == NGRAM


# --- the user's own setting ------------------------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--speculative-conf", "--speculative", "--specu", "--speculative_conf"])
def test_abbreviations_are_the_users_override(flag):
    out = reconcile(["vllm", "serve", "a/b", f"{flag}={NGRAM}"], None, enabled=True)
    assert out.injected is None and [f.id for f in out.findings] == ["SD703"]


def test_spec_shorthands_are_an_override_and_checked():
    out = reconcile(["vllm", "serve", "a/b", "--spec-method", "ngram", "--spec-tokens", "5"], None, enabled=True)
    assert out.injected is None and [f.id for f in out.findings] == ["SD703"]
    bad = reconcile(["vllm", "serve", "a/b", "--spec-method", "Ngram", "--spec-tokens", "5"], None, enabled=True)
    assert [f.id for f in bad.findings] == ["SD703", "SD603"]
    old = reconcile(["vllm", "serve", "a/b", "--spec-tokens=5"], None, enabled=True, release=Release("0.21.0", "x"))
    assert [f.id for f in old.findings] == ["SD703", "SD716"]
    both = reconcile(["vllm", "serve", "a/b", "--spec-method", "ngram", "--speculative-config", NGRAM], None,
                     enabled=True)
    assert [f.id for f in both.findings] == ["SD703", "SD716"] and "mutually exclusive" in both.findings[1].message


def test_the_users_config_is_checked_for_the_release():
    out = reconcile(["vllm", "serve", "a/b", "--speculative-config", MTP], None, enabled=True,
                    release=Release("0.10.2", "image x"))
    assert [f.id for f in out.findings] == ["SD703", "SD604"]


# --- the model ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values,model", [
    (["--port", "8000", "Qwen/Qwen3.5-4B"], "Qwen/Qwen3.5-4B"),
    (["--trust-remote-code", "Qwen/Qwen3.5-4B"], "Qwen/Qwen3.5-4B"),
    (["--no-enable-prefix-caching", "--enforce-eager", "Qwen/Qwen3.5-4B", "--port", "1"], "Qwen/Qwen3.5-4B"),
    (["--tensor-parallel-size=2", "Qwen/Qwen3.5-4B"], "Qwen/Qwen3.5-4B"),
    (["--unknown-flag", "value-or-model"], None),   # an unknown option takes a value: no positional seen
])
def test_model_after_the_options(values, model):
    assert read_arguments(values).model == model


def test_flags_without_a_value():
    assert takes_no_value("--enforce-eager") and takes_no_value("--no-enable-prefix-caching")
    assert takes_no_value("--trust_remote_code") and not takes_no_value("--port")


def test_a_path_without_its_org_folder():
    assert decide_model("/models/Qwen3.5-9B/").key == "qwen/qwen3.5-9b"
    assert by_name("unsloth/Qwen3.5-9B") is None   # an HF id of another org is another model
    assert by_name("/models/no-such-model") is None


# --- dotted arguments (LLMInferenceService) --------------------------------------------------------------------
def test_dotted_arguments_survive_a_shell_reparse():
    assert dotted_arguments(NGRAM) == ["--speculative-config.method=ngram",
                                       "--speculative-config.num_speculative_tokens=5",
                                       "--speculative-config.prompt_lookup_max=4"]
    assert dotted_arguments('{"model":"1"}') is None          # vLLM's json.loads would make it a number
    assert dotted_arguments('{"a":{"b":1}}') is None
    assert dotted_arguments('{"model":"a b"}') is None        # the eval would split it
    args = ["--max-model-len", "8192", *dotted_arguments(MTP)]
    assert remove(None, args, MTP) == (None, ["--max-model-len", "8192"], True)


def test_old_flags_are_the_users_own_on_the_releases_that_take_them():
    command = ["vllm", "serve", "a/b", "--speculative-model", "c/d", "--num-speculative-tokens", "5"]
    old = reconcile(command, None, enabled=True, release=Release("0.6.6", "image x"))
    assert old.injected is None and [f.id for f in old.findings] == ["SD703"]
    new = reconcile(command, None, enabled=True, release=Release("0.8.3", "image x"))
    assert [(f.id, f.severity) for f in new.findings] == [("SD704", Severity.ERROR)]


# --- issue #30: a vLLM newer than the tables -----------------------------------------------------------------------
def test_an_image_newer_than_the_tables_is_warned_and_judged_by_the_newest():
    """vllm/vllm-openai:v0.40.0: the config is injected, one SD622 names both releases, the user's unknown
    method is a warning (a newer vLLM may have it), and no message says what 0.40 does."""
    release = Release("0.40.0", "image vllm/vllm-openai:v0.40.0")
    out = reconcile(["vllm", "serve", "Qwen/Qwen3-8B"], None, enabled=True, release=release)
    assert out.injected is not None
    assert [(f.id, f.severity) for f in out.findings] == [("SD622", Severity.WARNING), ("SD701", Severity.INFO)]
    assert out.findings[0].message.startswith("vLLM 0.40 (image vllm/vllm-openai:v0.40.0) is newer than vLLM 0.34,")
    own = reconcile(["vllm", "serve", "a/b", "--speculative-config", '{"method":"brand_new","num_speculative_tokens":3}'],
                    None, enabled=True, release=release)
    assert [(f.id, f.severity) for f in own.findings] == [
        ("SD703", Severity.INFO), ("SD623", Severity.WARNING), ("SD622", Severity.WARNING)]
    pp = reconcile(["vllm", "serve", "Qwen/Qwen3-8B", "--pipeline-parallel-size", "2"], None, enabled=True,
                   release=release)
    sd715 = next(f for f in pp.findings if f.id == "SD715")
    assert "vLLM 0.34 (the newest release modelled; image vllm/vllm-openai:v0.40.0 names vLLM 0.40)" in sd715.message
    assert release.said == "vLLM 0.34 (the newest release modelled; image vllm/vllm-openai:v0.40.0 names vLLM 0.40)"


def test_the_newest_release_modelled_is_no_newer_release():
    out = reconcile(["vllm", "serve", "Qwen/Qwen3-8B"], None, enabled=True,
                    release=Release("0.34.0", "image vllm/vllm-openai:v0.34.0"))
    assert [f.id for f in out.findings] == ["SD701"]
