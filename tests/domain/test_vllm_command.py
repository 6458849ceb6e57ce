"""Table tests for krm_fn.domain.vllm_command (issue #12): every invocation form the issue lists, every override
spelling, the removed flags, scripts, and enable -> re-run -> disable. Expected lists and scripts are written
out by hand from VLLM.md and the issue, not taken from the code's output."""
from __future__ import annotations

import pytest

from krm_fn.domain import shellwords
from krm_fn.domain.presets import DEFAULT_TABLE, NGRAM_FALLBACK, config_json
from krm_fn.text.results import Severity
from krm_fn.domain.vllm_command import (REMOVED_FLAGS, inject, inspect, read_arguments, reconcile, remove,
    shell_argument)

MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
E_MTP = "--speculative-config=" + MTP
E_NGRAM = "--speculative-config=" + NGRAM
S_MTP = " --speculative-config='" + MTP + "'"
S_NGRAM = " --speculative-config='" + NGRAM + "'"


# --- recognition: (command, args, image) -> (form, model, where the injection goes) -------------------------
RECOGNISED = [
    # vllm serve, model positional / --model= / --model X
    ("serve positional", ["vllm", "serve", "Qwen/Qwen3.5-4B"], ["--port", "8000"], None,
     "serve", "Qwen/Qwen3.5-4B", "command[2]", "args"),
    ("serve --model=", ["vllm", "serve"], ["--model=Qwen/Qwen3.5-4B"], None,
     "serve", "Qwen/Qwen3.5-4B", "args[0]", "args"),
    ("serve --model X", ["vllm", "serve", "--model", "Qwen/Qwen3.5-4B"], None, None,
     "serve", "Qwen/Qwen3.5-4B", "command[3]", "command"),
    ("serve positional wins", ["vllm", "serve", "a/b", "--model", "c/d"], None, None,
     "serve", "a/b", "command[2]", "command"),
    # production-stack: the whole invocation in `command`, no args, vllm by absolute path
    ("production-stack", ["/opt/venv/bin/vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0",
                          "--port", "8000"], None, None,
     "serve", "meta-llama/Llama-3.1-8B-Instruct", "command[2]", "command"),
    ("api_server", ["python3", "-m", "vllm.entrypoints.openai.api_server"], ["--model", "/models/Qwen/Qwen3.5-4B"],
     None, "api_server", "/models/Qwen/Qwen3.5-4B", "args[1]", "args"),
    ("api_server python -u", ["python", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model=m/n"], None,
     None, "api_server", "m/n", "command[4]", "command"),
    ("api_server python3.12 in args", None, ["/usr/bin/python3.12", "-m", "vllm.entrypoints.openai.api_server",
                                            "--model", "x/y"], None,
     "api_server", "x/y", "args[4]", "args"),
    ("kaito inference_api.py", ["python3", "/workspace/vllm/inference_api.py"], ["--model=Qwen/Qwen3.5-9B"], None,
     "kaito", "Qwen/Qwen3.5-9B", "args[0]", "args"),
    ("env prefix", ["env", "VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", "a/b"], None, None,
     "serve", "a/b", "command[4]", "command"),
    ("tini wrapper", ["tini", "--", "vllm", "serve", "a/b"], [], None, "serve", "a/b", "command[4]", "args"),
    ("vllm-openai image, args only", None, ["--model", "Qwen/Qwen3.6-27B", "--port", "8000"],
     "vllm/vllm-openai:v0.11.0", "image", "Qwen/Qwen3.6-27B", "args[1]", "args"),
    ("vllm-openai image, positional", None, ["Qwen/Qwen3.6-27B"], "docker.io/lmcache/vllm-openai@sha256:ab",
     "image", "Qwen/Qwen3.6-27B", "args[0]", "args"),
    # sh -c: the script is in command or in args
    ("sh -c simple", ["sh", "-c", "vllm serve a/b --port 8000"], None, None,
     "serve", "a/b", "command[2]", "command[2]"),
    ("bash -c in args", ["/bin/bash", "-c"], ["exec python3 -m vllm.entrypoints.openai.api_server --model 'a/b'"],
     None, "api_server", "a/b", "args[0]", "args[0]"),
    ("bash -lc, -o pipefail", ["bash", "-o", "pipefail", "-lc", "set -e; vllm serve \"a/b\" | tee x"], None, None,
     "serve", "a/b", "command[4]", "command[4]"),
]


@pytest.mark.parametrize("name,command,args,image,form,model,model_at,target", RECOGNISED,
                         ids=[r[0] for r in RECOGNISED])
def test_recognised(name, command, args, image, form, model, model_at, target):
    insp = inspect(command, args, image)
    assert insp.runs_vllm and insp.editable
    assert (insp.form, insp.model, insp.model_at, insp.target) == (form, model, model_at, target)
    assert insp.overrides == () and insp.removed == () and insp.unknown_model is None


NOT_VLLM = [
    ("sidecar", ["nginx", "-g", "daemon off;"], None, None),
    ("no command, other image", None, ["--model", "a/b"], "nginx:1.27"),
    ("no command and no args, vllm image", None, None, "vllm/vllm-openai:latest"),
    ("vllm but not serve", ["vllm", "bench", "serve"], None, None),
    ("kaito transformers runtime", ["/bin/sh", "-c", "accelerate launch /workspace/tfs/inference_api.py"], None,
     None),
    ("python script that is not KAITO's", ["python3", "/app/inference_api.py", "--model", "a/b"], None, None),
    ("sh script file", ["sh", "/start-vllm.sh"], None, None),
    ("script without vllm", ["sh", "-c", "echo vllm-serve; sleep 10"], None, None),
    ("env var named like vllm", ["sh", "-c", "VLLM=1 exec /bin/server"], None, None),
    ("command is a string", "vllm serve a/b", None, None),
]


@pytest.mark.parametrize("name,command,args,image", NOT_VLLM, ids=[r[0] for r in NOT_VLLM])
def test_not_vllm(name, command, args, image):
    assert not inspect(command, args, image).runs_vllm
    out = reconcile(command, args, enabled=True, image=image)
    assert (out.command, out.args, out.injected, out.findings) == (command, args, None, ())


# --- overrides and removed flags ------------------------------------------------------------------------------
OVERRIDES = [
    (["--speculative-config", MTP], "--speculative-config"),
    (["--speculative-config=" + NGRAM], "--speculative-config"),
    (["--speculative_config", MTP], "--speculative_config"),
    (["--speculative_config=" + MTP], "--speculative_config"),
    (["--speculative-config.method", "ngram", "--speculative-config.num_speculative_tokens", "5"],
     "--speculative-config.method, --speculative-config.num_speculative_tokens"),
    (["--speculative_config.method=ngram", "--speculative_config.num_speculative_tokens=5"],
     "--speculative_config.method, --speculative_config.num_speculative_tokens"),
    (["-sc", MTP], "-sc"),
    (["-sc=" + MTP], "-sc"),
]


@pytest.mark.parametrize("extra,spelled", OVERRIDES, ids=[o[1] for o in OVERRIDES])
def test_every_override_spelling_is_left_alone(extra, spelled):
    command, args = ["vllm", "serve", "Qwen/Qwen3.5-4B"], ["--port", "8000", *extra]
    out = reconcile(command, args, enabled=True)
    assert (out.command, out.args, out.injected) == (command, args, None)
    (finding,) = out.findings
    assert (finding.id, finding.severity, finding.field) == ("SD703", Severity.INFO, "args")
    assert finding.message == (f"the vLLM command already sets {spelled}: user override, left unchanged; "
                               "remove it to let kaito-specdec choose the config")


def test_override_inside_a_script():
    script = "vllm serve a/b --speculative-config '" + MTP + "' --port 1"
    out = reconcile(["sh", "-c", script], None, enabled=True)
    assert out.command == ["sh", "-c", script] and out.findings[0].id == "SD703"
    assert out.findings[0].field == "command[2]"


@pytest.mark.parametrize("flags,shown", [
    (["--speculative-model", "a/draft"], "--speculative-model"),
    (["--num-speculative-tokens=5"], "--num-speculative-tokens"),
    (["--ngram-prompt-lookup-max", "4", "--ngram_prompt_lookup_min", "1"],
     "--ngram-prompt-lookup-max, --ngram_prompt_lookup_min"),
    # beside a valid config the old flags still stop vLLM: the error wins over the override
    (["--speculative-config=" + MTP, "--speculative_model=a/draft"], "--speculative_model"),
])
def test_removed_flags_are_an_error(flags, shown):
    command = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "a/b", *flags]
    out = reconcile(command, None, enabled=True)
    assert (out.command, out.args, out.injected) == (command, None, None)
    (finding,) = out.findings
    assert (finding.id, finding.severity, finding.field) == ("SD704", Severity.ERROR, "command")
    assert finding.message.startswith(f"{shown}: removed in vLLM 0.8.3, the server refuses to start with them; ")
    assert "--speculative-config='<json>'" in finding.message


def test_removed_flags_cover_vllm_082_and_the_underscore_spellings():
    for flag in ("--speculative-model", "--num-speculative-tokens", "--ngram-prompt-lookup-max",
                 "--ngram-prompt-lookup-min", "--speculative-disable-by-batch-size", "-spec-draft-tp",
                 "--num_speculative_tokens"):
        assert flag in REMOVED_FLAGS
    assert "--speculative-config" not in REMOVED_FLAGS


def test_read_arguments_model_forms():
    assert read_arguments(["--model", "x"]).model == "x"
    assert read_arguments(["--model=x", "--model", "y"]).model == "y"           # argparse: the last wins
    assert read_arguments(["p/q", "--model", "y"]).model == "p/q"              # serve's positional wins
    assert read_arguments(["p/q"], positional=False).model is None
    assert read_arguments(["--model"]).model is None
    assert read_arguments(["--model_id=a/b"], positional=False, model_flags=("--model_id",)).model == "a/b"
    assert read_arguments(["--port", "80"]).model is None


# --- model not known -> fallback with an info result --------------------------------------------------------
UNKNOWN = [
    (["vllm", "serve", "$(MODEL_ID)"], "an environment variable", "command[2]"),
    (["vllm", "serve", "--model=${MODEL}"], "an environment variable", "command[2]"),
    (["vllm", "serve", "{{ .Values.model }}"], "a template placeholder", "command[2]"),
    (["vllm", "serve", "--port", "8000"], "no model argument", "command"),
    (["sh", "-c", 'vllm serve "$MODEL_PATH" --port 8000'], "an environment variable", "command[2]"),
]


@pytest.mark.parametrize("command,why,field", UNKNOWN, ids=[u[1] + " " + u[0][-1] for u in UNKNOWN])
def test_model_not_known_gets_the_fallback(command, why, field):
    out = reconcile(command, None, enabled=True)
    assert out.injected == NGRAM
    (finding,) = out.findings
    assert (finding.id, finding.severity, finding.field) == ("SD702", Severity.INFO, field)
    assert finding.message == (f"the model is not known at render time ({why}): the universal fallback "
                               f"--speculative-config={NGRAM} is used; write the model as a Hugging Face id "
                               "or a path ending in org/name to get its tuned config")


def test_decision_info_names_model_key_and_config():
    out = reconcile(["vllm", "serve", "/models/Qwen/Qwen3.5-4B"], ["--port", "8000"], enabled=True)
    (finding,) = out.findings
    assert (finding.id, finding.field) == ("SD701", "args")
    assert finding.message == ("model /models/Qwen/Qwen3.5-4B read as qwen/qwen3.5-4b (tuned): "
                               f"--speculative-config={MTP}")
    out = reconcile(["vllm", "serve", "meta-llama/Llama-3.1-8B"], None, enabled=True)
    assert "(not tuned, universal fallback)" in out.findings[0].message and out.injected == NGRAM


def test_the_table_of_the_function_config_applies():
    table = DEFAULT_TABLE.extended({"my-org/my-model": {"method": "ngram", "num_speculative_tokens": 3,
                                                        "prompt_lookup_max": 2}})
    out = reconcile(["vllm", "serve", "/mnt/my-org/my-model"], None, enabled=True, table=table)
    assert out.injected == '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":2}'


# --- injection: exec lists ------------------------------------------------------------------------------------
EXEC = [
    ("args appended", ["vllm", "serve", "Qwen/Qwen3.5-4B"], ["--port", "8000"],
     ["vllm", "serve", "Qwen/Qwen3.5-4B"], ["--port", "8000", E_MTP]),
    ("empty args list is kept and used", ["vllm", "serve", "Qwen/Qwen3.5-4B"], [],
     ["vllm", "serve", "Qwen/Qwen3.5-4B"], [E_MTP]),
    ("command only (production-stack)", ["/opt/venv/bin/vllm", "serve", "a/b", "--port", "8000"], None,
     ["/opt/venv/bin/vllm", "serve", "a/b", "--port", "8000", E_NGRAM], None),
    ("args only", None, ["vllm", "serve", "a/b"], None, ["vllm", "serve", "a/b", E_NGRAM]),
]


@pytest.mark.parametrize("name,command,args,want_command,want_args", EXEC, ids=[e[0] for e in EXEC])
def test_exec_inject_rerun_remove(name, command, args, want_command, want_args):
    before = (list(command) if command is not None else None, list(args) if args is not None else None)
    out = reconcile(command, args, enabled=True)
    assert (out.command, out.args) == (want_command, want_args)
    assert (command, args) == before                                  # inputs are not modified
    again = reconcile(out.command, out.args, enabled=True, recorded=out.injected)
    assert again.command is out.command and again.args is out.args    # a fixpoint: nothing new is built
    assert again.injected == out.injected
    off = reconcile(out.command, out.args, enabled=False, recorded=out.injected)
    assert (off.command, off.args, off.injected, off.findings) == (command, args, None, ())


# --- injection: shell scripts ---------------------------------------------------------------------------------
SCRIPTS = [
    ("simple", "vllm serve Qwen/Qwen3.5-4B --port 8000",
     "vllm serve Qwen/Qwen3.5-4B --port 8000" + S_MTP),
    ("before &&", "vllm serve Qwen/Qwen3.5-4B && echo done",
     "vllm serve Qwen/Qwen3.5-4B" + S_MTP + " && echo done"),
    ("after &&, before a pipe and a redirection",
     "pip install -q x && exec vllm serve   'Qwen/Qwen3.5-4B'  2>&1 | tee /tmp/log",
     "pip install -q x && exec vllm serve   'Qwen/Qwen3.5-4B'" + S_MTP + "  2>&1 | tee /tmp/log"),
    ("before ;", "vllm serve a/b;echo x", "vllm serve a/b" + S_NGRAM + ";echo x"),
    ("before &", "vllm serve a/b & wait", "vllm serve a/b" + S_NGRAM + " & wait"),
    ("before > redirection", "vllm serve a/b >/tmp/log", "vllm serve a/b" + S_NGRAM + " >/tmp/log"),
    ("before a comment", "vllm serve a/b # the server", "vllm serve a/b" + S_NGRAM + " # the server"),
    ("line continuations and a final newline",
     "set -e\nexec vllm serve a/b \\\n  --port 8000 \\\n  --max-model-len 4096\n",
     "set -e\nexec vllm serve a/b \\\n  --port 8000 \\\n  --max-model-len 4096" + S_NGRAM + "\n"),
    ("double quotes and a substitution kept byte for byte",
     'export HF_HOME=/data; python3 -m vllm.entrypoints.openai.api_server --model "a/b" --served-model-name "$(hostname)"',
     'export HF_HOME=/data; python3 -m vllm.entrypoints.openai.api_server --model "a/b" --served-model-name "$(hostname)"'
     + S_NGRAM),
    ("inside if/then", "if [ -d /m ]; then\n  vllm serve /m/Qwen/Qwen3.5-4B\nfi",
     "if [ -d /m ]; then\n  vllm serve /m/Qwen/Qwen3.5-4B" + S_MTP + "\nfi"),
]


@pytest.mark.parametrize("name,script,want", SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_script_inject_rerun_remove(name, script, want):
    command = ["/bin/sh", "-c", script]
    out = reconcile(command, None, enabled=True)
    assert out.command == ["/bin/sh", "-c", want] and out.args is None
    again = reconcile(out.command, None, enabled=True, recorded=out.injected)
    assert again.command is out.command
    off = reconcile(out.command, None, enabled=False, recorded=out.injected)
    assert off.command == command and off.command[2] == script


def test_script_in_args_is_edited_in_args():
    out = reconcile(["bash", "-c"], ["vllm serve a/b", "ignored-$0"], enabled=True)
    assert out.command == ["bash", "-c"] and out.args == ["vllm serve a/b" + S_NGRAM, "ignored-$0"]
    assert out.findings[0].field == "args[0]"


def test_two_invocations_are_left_alone_with_a_warning():
    script = "vllm serve a/b --port 8000 & vllm serve c/d --port 8001; wait"
    out = reconcile(["sh", "-c", script], None, enabled=True)
    assert out.command == ["sh", "-c", script] and out.injected is None
    (finding,) = out.findings
    assert (finding.id, finding.severity, finding.field) == ("SD705", Severity.WARNING, "command[2]")
    assert finding.message == ("the shell script in command[2] starts vLLM 2 times and the function cannot tell "
                               "which one to configure; give each server its own container, or add "
                               "--speculative-config='<json>' to the right one yourself")


@pytest.mark.parametrize("script,why", [
    ("cat <<EOF > /c.yaml\nmodel: a/b\nEOF\nvllm serve --config /c.yaml", "a here-document"),
    ("vllm serve 'a/b", "an unterminated single quote"),
    ('vllm serve "$(cat /m', "an unterminated $( or ${ substitution"),
    ('vllm serve "a/b', "an unterminated double quote"),
    ("vllm serve a/b --chat-template <(cat /t.jinja)", "a process substitution"),
])
def test_unreadable_script_with_vllm_is_left_alone(script, why):
    out = reconcile(["sh", "-c", script], None, enabled=True)
    assert out.command == ["sh", "-c", script]
    (finding,) = out.findings
    assert (finding.id, finding.severity) == ("SD706", Severity.WARNING)
    assert finding.message == (f"cannot read the shell script in command[2] safely ({why}); add the argument "
                               "--speculative-config='<json>' to its vLLM command yourself, or start vLLM "
                               "without a script")


def test_non_string_argument_is_left_alone():
    command = ["vllm", "serve", "a/b"]
    out = reconcile(command, ["--port", 8000], enabled=True)
    assert out.args == ["--port", 8000] and out.findings[0].id == "SD707"
    assert out.findings[0].field == "args[1]"


def test_a_config_with_a_single_quote_is_not_put_into_a_script():
    table = DEFAULT_TABLE.extended({}, fallback={"method": "draft_model", "model": "it's/draft",
                                                 "num_speculative_tokens": 2})
    out = reconcile(["sh", "-c", "vllm serve a/b"], None, enabled=True, table=table)
    assert out.command == ["sh", "-c", "vllm serve a/b"] and out.findings[-1].id == "SD708"
    with pytest.raises(ValueError):
        shell_argument('{"model":"it\'s"}')
    # the same config is fine in an exec list: no shell reads it
    assert reconcile(["vllm", "serve", "a/b"], None, enabled=True, table=table).injected is not None


def test_built_in_configs_can_be_single_quoted():
    for cfg in [*DEFAULT_TABLE.tuned.values(), NGRAM_FALLBACK]:
        assert "'" not in config_json(cfg)


# --- idempotence and reversal beyond the simple round trip ----------------------------------------------------
def test_changed_decision_replaces_only_our_argument():
    # injected as ngram earlier; the model is now a tuned one: the old argument goes, the new one comes
    command = ["vllm", "serve", "Qwen/Qwen3.5-4B"]
    out = reconcile(command, ["--port", "1", E_NGRAM], enabled=True, recorded=NGRAM)
    assert out.args == ["--port", "1", E_MTP] and out.injected == MTP


def test_user_argument_equal_to_ours_is_not_removed_without_a_record():
    args = ["--port", "1", E_MTP]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=False)
    assert out.args is args
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=True)
    assert out.args is args and out.findings[0].id == "SD703"


def test_user_override_added_after_ours_drops_ours():
    args = ["--port", "1", E_MTP, "--speculative-config", NGRAM]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=True, recorded=MTP)
    assert out.args == ["--port", "1", "--speculative-config", NGRAM] and out.injected is None


def test_args_appended_after_ours_are_kept_in_place_on_rerun():
    args = ["--port", "1", E_MTP, "--max-model-len", "4096"]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=True, recorded=MTP)
    assert out.args is args
    off = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=False, recorded=MTP)
    assert off.args == ["--port", "1", "--max-model-len", "4096"]


# The argument the function wrote, edited by hand to the same JSON in another spelling: still its own.
SPACED = '{"method": "mtp", "num_speculative_tokens": 1}'
RESPELLED = [
    ("spacing", ["--port", "1", "--speculative-config=" + SPACED]),
    ("two elements", ["--speculative-config", MTP, "--port", "1"]),
    ("keys reordered, -sc", ["--port", "1", "-sc", '{"num_speculative_tokens":1,"method":"mtp"}']),
    ("underscores, abbreviated", ["--speculative_conf=" + SPACED, "--port", "1"]),
]


@pytest.mark.parametrize("name,args", RESPELLED, ids=[r[0] for r in RESPELLED])
def test_a_respelled_argument_of_ours_is_taken_out_and_kept_on_a_rerun(name, args):
    command = ["vllm", "serve", "Qwen/Qwen3.5-4B"]
    off = reconcile(command, args, enabled=False, recorded=MTP)
    assert (off.command, off.args, off.injected, off.findings) == (command, ["--port", "1"], None, ())
    on = reconcile(command, args, enabled=True, recorded=MTP)
    assert on.args is args and on.injected == MTP           # no SD703, no second copy, the record stays
    assert [f.id for f in on.findings] == ["SD701"]


@pytest.mark.parametrize("extra", [E_MTP, "--speculative-config=" + SPACED], ids=["pasted twice", "and respelled"])
def test_a_second_copy_of_our_argument_goes_with_the_first(extra):
    """The argument the function wrote, given again (as it is, or respelled): disabling takes out every copy,
    or the pods would keep speculating while the run says no workload does."""
    command = ["vllm", "serve", "Qwen/Qwen3.5-4B"]
    args = ["--port", "1", E_MTP, extra]
    off = reconcile(command, args, enabled=False, recorded=MTP)
    assert (off.args, off.injected) == (["--port", "1"], None)
    on = reconcile(command, args, enabled=True, recorded=MTP)
    assert on.args is args and on.injected == MTP  # enabled, the same config twice runs as once: unchanged


def test_a_config_of_the_users_beside_ours_is_theirs_when_ours_goes():
    args = ["--port", "1", E_MTP, "--speculative-config", NGRAM]
    off = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=False, recorded=MTP)
    assert off.args == ["--port", "1", "--speculative-config", NGRAM] and off.findings == ()


def test_a_respelled_argument_of_ours_is_replaced_when_the_config_changes():
    args = ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}',
            "--port", "1"]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=True, recorded=NGRAM)
    assert out.args == ["--port", "1", E_MTP] and out.injected == MTP


@pytest.mark.parametrize("script,want", [
    ("vllm serve a/b -sc   \"{\\\"method\\\": \\\"mtp\\\", \\\"num_speculative_tokens\\\": 1}\" --port 8000 2>&1 | tee /log",
     "vllm serve a/b --port 8000 2>&1 | tee /log"),
    ("exec vllm serve a/b \\\n  --speculative-config '" + SPACED + "' --port 8000\n",
     "exec vllm serve a/b \\\n  --port 8000\n"),
])
def test_a_respelled_argument_of_ours_is_cut_out_of_a_script(script, want):
    off = reconcile(["sh", "-c", script], None, enabled=False, recorded=MTP)
    assert off.command == ["sh", "-c", want] and off.findings == ()


CHANGED = [
    ("another value", ["vllm", "serve", "a/b"], ["--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']),
    ("1.0 is not 1", ["vllm", "serve", "a/b"], ['--speculative-config={"method":"mtp","num_speculative_tokens":1.0}']),
    ("dotted", ["vllm", "serve", "a/b"], ["--speculative-config.method=mtp",
                                          "--speculative-config.num_speculative_tokens=1"]),
    ("twice", ["vllm", "serve", "a/b"], ["--speculative-config", SPACED, "-sc", SPACED]),
    ("expanded by Kubernetes", ["vllm", "serve", "a/b"], ["--speculative-config=$(SC)"]),
    ("across a line continuation", ["sh", "-c", "vllm serve a/b \\\n  --speculative-config '" + SPACED + "'"], None),
    ("a shell variable", ["sh", "-c", "SC='" + MTP + "'; vllm serve a/b --speculative-config \"$SC\""], None),
]


@pytest.mark.parametrize("name,command,args", CHANGED, ids=[c[0] for c in CHANGED])
def test_an_argument_changed_by_hand_is_left_with_a_warning(name, command, args):
    out = reconcile(command, args, enabled=False, recorded=MTP, env={"SC": MTP})
    assert out.command is command and out.args is args and out.injected is None
    (finding,) = out.findings
    assert (finding.id, finding.severity) == ("SD733", Severity.WARNING)
    assert finding.message.startswith("the --speculative-config=" + MTP + " kaito-specdec added was changed by hand")
    assert finding.message.endswith("yourself, and the kaito-specdec.dev/speculative-config annotation")


def test_enabled_a_config_equal_to_the_record_that_cannot_be_taken_out_keeps_the_record():
    """Its user is told SD703 as before, and the record stays, so a later disable warns (SD733) rather than
    taking the config for the user's own."""
    args = ["--speculative-config", SPACED, "-sc", SPACED]
    out = reconcile(["vllm", "serve", "Qwen/Qwen3.5-4B"], args, enabled=True, recorded=MTP)
    assert out.args is args and out.injected == MTP and out.findings[0].id == "SD703"


def test_a_record_without_any_argument_left_is_dropped_quietly():
    out = reconcile(["vllm", "serve", "a/b"], ["--port", "1"], enabled=False, recorded=MTP)
    assert out.args == ["--port", "1"] and out.findings == ()


def test_remove_reports_whether_it_found_the_argument():
    assert remove(["vllm", "serve", "a/b"], None, MTP) == (["vllm", "serve", "a/b"], None, False)
    assert remove(["sh", "-c", "vllm serve a/b" + S_MTP + " | tee x"], None, MTP) == (
        ["sh", "-c", "vllm serve a/b | tee x"], None, True)


def test_inject_refuses_an_uneditable_inspection():
    command = ["sh", "-c", "vllm serve a & vllm serve b"]
    with pytest.raises(ValueError):
        inject(command, None, MTP, inspect(command, None))


# --- the shell scan itself -------------------------------------------------------------------------------------
def test_shellwords_positions_and_values():
    script = "A=1 exec vllm serve 'a b'\"c\" 2>&1 | tee log && echo \"$(date +%s)\" # done"
    cmds = shellwords.commands(script)
    assert [[w.value for w in c.words] for c in cmds] == [
        ["A=1", "exec", "vllm", "serve", "a bc"], ["tee", "log"], ["echo", "$(date +%s)"]]
    word = cmds[0].words[-1]
    assert script[word.start:word.end] == "'a b'\"c\""


def test_the_command_reports_its_ids():
    from finding_ids import ids_used
    from krm_fn.domain import vllm_command
    assert set(ids_used(vllm_command)) == {f"SD70{i}" for i in range(1, 10)} | {f"SD71{i}" for i in range(0, 10)} | {"SD733", "SD734"}


# --- hostile scripts -------------------------------------------------------------------------------------------
def test_deeply_nested_substitutions_are_unreadable_not_a_crash():
    script = "vllm serve a/b --served-model-name " + "$(" * 5000 + "x" + ")" * 5000
    out = reconcile(["sh", "-c", script], None, enabled=True)
    assert out.command[2] is script and out.findings[0].id == "SD706"
    assert "(substitutions nested too deeply)" in out.findings[0].message


def test_crlf_script_keeps_its_line_breaks():
    script = "set -e\r\nvllm serve a/b --port 8000\r\n"
    out = reconcile(["sh", "-c", script], None, enabled=True)
    assert out.command[2] == "set -e\r\nvllm serve a/b --port 8000" + S_NGRAM + "\r\n"
    assert reconcile(out.command, None, enabled=False, recorded=NGRAM).command[2] == script


def test_a_model_split_by_a_line_continuation_is_read_whole():
    out = reconcile(["sh", "-c", "vllm serve Qwen/\\\nQwen3.5-4B"], None, enabled=True)
    assert out.injected == MTP and out.command[2] == "vllm serve Qwen/\\\nQwen3.5-4B" + S_MTP


def test_a_long_script():
    script = "echo start\n" + "echo 'x y' \"$(date)\" >> /tmp/log\n" * 2000 + "exec vllm serve a/b\n"
    out = reconcile(["bash", "-c", script], None, enabled=True)
    assert out.command[2].endswith("exec vllm serve a/b" + S_NGRAM + "\n")


@pytest.mark.parametrize("command,shown", [
    (["vllm", "serve", "a/b", "--config", "/etc/vllm/config.yaml"], "/etc/vllm/config.yaml"),
    (["vllm", "serve", "--config=/c.yaml"], "/c.yaml"),
    (["python3", "/workspace/vllm/inference_api.py", "--kaito-config-file=/mnt/config/inference_config.yaml"],
     "/mnt/config/inference_config.yaml"),
])
def test_a_config_file_the_function_cannot_see_is_left_alone(command, shown):
    out = reconcile(command, None, enabled=True)
    assert out.command is command and out.injected is None
    (finding,) = out.findings
    assert (finding.id, finding.severity, finding.field) == ("SD709", Severity.WARNING, "command")
    assert finding.message == (f"the vLLM command reads settings from {shown}, which the function cannot see and "
                               "which may set speculative-config (a flag added on the command line would silently "
                               "win over it); add --speculative-config='<json>' yourself, or move the settings "
                               "onto the command line")


def test_config_format_is_not_a_config_file():
    assert reconcile(["vllm", "serve", "a/b", "--config-format", "hf"], None, enabled=True).injected == NGRAM


@pytest.mark.parametrize("command,args,shown", [
    (["sh", "-c", "vllm serve a/b --port 8000 $EXTRA_ARGS"], None, "$EXTRA_ARGS"),
    (["bash", "-c", 'exec vllm serve a/b "$@"', "--"], None, '"$@"'),
    (["vllm", "serve", "a/b"], ["--port", "8000", "$(VLLM_EXTRA)"], "$(VLLM_EXTRA)"),
])
def test_arguments_expanding_at_run_time_are_named(command, args, shown):
    out = reconcile(command, args, enabled=True)
    assert out.injected == NGRAM
    assert [f.id for f in out.findings] == ["SD701", "SD710"]
    assert out.findings[1].message == (
        f"{shown} in the vLLM command expands only at run time; if it sets --speculative-config, the argument "
        "added here comes after it and wins: set the annotation to \"false\" to keep your own")


@pytest.mark.parametrize("command", [
    ["vllm", "serve", "$(MODEL)", "--port", "$(PORT)"],                        # the model, an option's value
    ["sh", "-c", "vllm serve a/b --served-model-name \"$(hostname)\" --tag '$literal' --x=$Y"],
])
def test_option_values_and_single_quotes_are_not_named(command):
    assert "SD710" not in [f.id for f in reconcile(command, None, enabled=True).findings]


# --- a real shell agrees: the edited script passes vLLM exactly one more argument, the config ------------------
REAL_SHELL_SCRIPTS = [
    "vllm serve Qwen/Qwen3.5-4B --port 8000",
    "set -e; exec vllm serve 'Qwen/Qwen3.5-4B' --max-model-len 4096 2>&1 | cat",
    "true && vllm serve \"a/b\" --x 'y z' > /dev/null; echo after",
    "A=1 vllm serve a/b \\\n  --port 8000 \\\n  --tp 2 # started\necho done",
    "if true; then vllm serve a/b --q \"$(echo 1 2)\"; fi",
    "vllm serve a/b --port 8000 & wait",
    "python3 -m vllm.entrypoints.openai.api_server --model a/b --host=0.0.0.0 || exit 1",
    "{ vllm serve a/b; } 2>/dev/null",
]


@pytest.mark.parametrize("shell", ["dash", "bash"])
@pytest.mark.parametrize("script", REAL_SHELL_SCRIPTS)
def test_a_real_shell_passes_exactly_one_more_argument(tmp_path, shell, script):
    import os
    import shutil
    import subprocess

    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    log = tmp_path / "argv"
    for name in ("vllm", "python3"):   # stand-ins that record the argv they get, one argument a line
        stub = tmp_path / name
        stub.write_text(f"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> {log}\n")
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}

    def argv(text: str) -> list[str]:
        log.write_text("")
        subprocess.run([shell, "-c", text], env=env, capture_output=True, timeout=30, check=False)
        return log.read_text().splitlines()

    out = reconcile([shell, "-c", script], None, enabled=True)
    assert out.injected is not None, out.findings
    before, after = argv(script), argv(out.command[2])
    assert before and after == before + ["--speculative-config=" + out.injected]


def test_the_users_json_is_kept_for_the_schema_checks():
    assert read_arguments(["--speculative-config", MTP]).override_value == MTP
    assert read_arguments(["-sc=" + NGRAM, "--speculative_config", MTP]).override_value == MTP   # the last wins
    assert read_arguments(["--speculative-config.method", "ngram"]).override_value is None
    script = "vllm serve a/b --speculative-config '" + NGRAM + "'"
    assert inspect(["sh", "-c", script], None).override_value == NGRAM


@pytest.mark.parametrize("command, version, warned", [
    (["vllm", "serve", "--model", "Qwen/Qwen3-8B"], "0.10.2", True),
    (["vllm", "serve", "--port", "8000", "--model", "Qwen/Qwen3-8B"], "0.11.0", True),
    (["sh", "-c", "exec vllm serve --model Qwen/Qwen3-8B --port 8000"], "0.11.0", True),
    (["vllm", "serve", "--model", "Qwen/Qwen3-8B"], "0.11.1", False),          # the check is gone
    (["vllm", "serve", "--model=Qwen/Qwen3-8B"], "0.10.2", False),            # only the word itself is refused
    (["vllm", "serve", "Qwen/Qwen3-8B"], "0.10.2", False),
    (["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B"], "0.10.2", False),
    (["sh", "-c", 'exec vllm serve "--model" Qwen/Qwen3-8B'], "0.11.0", True),     # the shell removes the quotes
    (["sh", "-c", "exec vllm serve '--model' Qwen/Qwen3-8B"], "0.11.0", True),
])
def test_vllm_serve_model_option_is_a_warning_on_releases_that_exit_on_it(command, version, warned):
    from krm_fn.domain.vllm_command import Release
    out = reconcile(command, None, enabled=True, release=Release(version, "the vllmVersion setting"))
    assert ("SD718" in [f.id for f in out.findings]) is warned
    assert out.injected is not None   # the config is added either way: it runs once the model is positional
    if warned:
        found = next(f for f in out.findings if f.id == "SD718")
        assert found.severity is Severity.WARNING and "vllm serve MODEL" in found.message


@pytest.mark.parametrize("version, warned", [("0.13.0", True), ("0.11.0", True), ("0.14.1", False), ("0.33.0", False)])
def test_the_grpc_server_on_a_release_without_it_is_a_warning(version, warned):
    from krm_fn.domain.vllm_command import Release
    command = ["python3", "-m", "vllm.entrypoints.grpc_server", "--model", "Qwen/Qwen3-8B"]
    out = reconcile(command, None, enabled=True, release=Release(version, "the vllmVersion setting"))
    assert ("SD719" in [f.id for f in out.findings]) is warned
    assert out.injected is not None


@pytest.mark.parametrize("command, version, words", [
    # the user's own config (SD703), a config file (SD709), a pooling model (SD711): the server still exits
    (["vllm", "serve", "--model", "Qwen/Qwen3-8B", '--speculative-config={"method":"ngram","num_speculative_tokens":3}'],
     "0.11.0", {"SD703", "SD718"}),
    (["vllm", "serve", "--model", "Qwen/Qwen3-8B", "--config", "/etc/vllm.yaml"], "0.11.0", {"SD709", "SD718"}),
    (["vllm", "serve", "--model", "BAAI/bge-m3", "--task", "embed"], "0.11.0", {"SD711", "SD718"}),
    (["python3", "-m", "vllm.entrypoints.grpc_server", "--model", "Qwen/Qwen3-8B",
      '--speculative-config={"method":"ngram","num_speculative_tokens":3}'], "0.13.0", {"SD703", "SD719"}),
])
def test_a_release_that_exits_is_said_on_every_path(command, version, words):
    from krm_fn.domain.vllm_command import Release
    out = reconcile(command, None, enabled=True, release=Release(version, "the vllmVersion setting"))
    assert words <= {f.id for f in out.findings}, [f.id for f in out.findings]
