"""Regenerate tests/vllm_argv.json: the argv kaito-specdec gives a plain vLLM workload, parsed by each vLLM
release's own command-line parser.

For each plain workload below (CASES: the launch forms seen in public manifests, one Deployment per release)
and for each container the plain-* golden fixtures inject into (fixtures/plain-*/expected.yaml), a row holds:

  argv     the container's vLLM argv after the function's run: `command` + `args`, expanded as the kubelet
           does (`$(VAR)` from the container's literal `env`; krm_fn.domain.vllm_command.kubernetes_env/k8s_expand),
           and for a `sh -c` script the words of its vLLM command, split by the standard library's `shlex`
           (POSIX mode, `;&|<>()` and newlines as operators, line continuations joined) -- not by the
           function's own krm_fn/domain/shellwords.py, so the scan that placed the argument is not also the judge;
           only the words after the server's head (`vllm serve`, `python3 -m vllm.entrypoints.openai.
           api_server`, the vllm-openai image's ENTRYPOINT), redirections dropped;
  before   the same for the container as it was given (the user's own command);
  meant    what the function says it wrote: the JSON of the pod template's `kaito-specdec.dev/speculative-
           config` record (None where SD733 says the argument beside it was changed by hand), and the model
           its SD701 finding names (None when it said SD702: not known);
  parsed   what the release's parser made of `argv` (and `parsed_before` of `before`): `speculative_config`
           (with the 0.22+ `--spec-method`/`--spec-model`/`--spec-tokens` merged into it as
           EngineArgs.create_speculative_config does, arg_utils.py:1668-1680 at 0.22.1), `model`, or `error`.

Which parser, per form (all releases 0.10.2 .. 0.34.0 build them the same way):
  serve        the `vllm serve` subcommand as vllm/entrypoints/cli/main.py builds it: a FlexibleArgumentParser
               with subparsers, `ServeSubcommand().subparser_init(subparsers)` (which is
               `make_arg_parser(subparsers.add_parser("serve", ...))`), `parse_args(["serve", *argv])` (its
               FlexibleArgumentParser.parse_args moves `--model X` to the positional place), then
               `ServeSubcommand.validate` and `cmd`'s rule `if args.model_tag is not None: args.model =
               args.model_tag`.
  image        the vllm/vllm-openai image with `args` only: both parsers (`parsed`: serve, `parsed_api_server`:
               api_server), since its ENTRYPOINT is `vllm serve` in today's docker/Dockerfile and `python3 -m
               vllm.entrypoints.openai.api_server` in older ones (which release changed it is not read here);
               the model is compared under `vllm serve` only (the api_server ignores a positional model).
  api_server   `make_arg_parser(FlexibleArgumentParser(...))` and `validate_parsed_serve_args`, as
               `python -m vllm.entrypoints.openai.api_server`'s `__main__` does (from 0.30 it is
               vllm/entrypoints/launchers/api_server/entry.py:main, make_arg_parser then in
               vllm.entrypoints.launchers.cli_args, from 0.33 vllm.entrypoints.common.cli_args); the model is
               `args.model` (the positional `model_tag` is not read there); the `vllm-openai-ubi9` images
               (ENTRYPOINT `python3 -m vllm.entrypoints.openai.api_server`) are this form.
  kserve_hf    an InferenceService's `spec.predictor.model` of modelFormat huggingface: KServe's Hugging Face
               runtime, `python -m huggingfaceserver --model_name=NAME --model_dir=/mnt/models` and then
               `model.args` (the ServingRuntime kserve-huggingfaceserver). Its parser, as
               python/huggingfaceserver/huggingfaceserver/__main__.py builds it with the vLLM backend on:
               `FlexibleArgumentParser(parents=[kserve.model_server.parser])`, its own `--model_dir`,
               `--model_id`, `--max_model_len`, `--trust_remote_code`, `--backend`, …, then vLLM's
               `make_arg_parser(parser)` (huggingfaceserver/vllm/utils.py maybe_add_vllm_cli_parser), read
               with `parser.parse_known_args()` -- which skips FlexibleArgumentParser.parse_args, so neither
               `--speculative_config` nor dotted `--speculative-config.key=value` reaches vLLM there, and an
               unknown argument is dropped, not refused. kserve.model_server.parser is mirrored by its
               `--model_name` only (what it holds else is not vLLM's); `args.model = args.model_id or
               args.model_dir`, as load_model() sets it.
  llmisvc      an LLMInferenceService (serving.kserve.io/v1alpha2, KServe 0.17 and later) `main` container
               without a command: the `vllm serve` of KServe's well-known template
               (config/llmisvcconfig/config-llm-template.yaml: `eval "exec vllm serve /mnt/models
               --served-model-name NAME publishers/NS/models/NAME --port 8000 … ${VLLM_ADDITIONAL_ARGS} $@"`),
               the container's `args` as `$@`: the words re-split by the eval (shlex over the args joined by
               spaces), parsed by the serve parser above. The model is /mnt/models (spec.model.uri,
               downloaded there), not compared.
  grpc_server  `python3 -m vllm.entrypoints.grpc_server` (from 0.14; vllm/entrypoints/launchers/grpc_server.py
               from 0.30, the old module importing its main): as its main() builds it, a FlexibleArgumentParser
               with `--host`, `--port` (and `--disable-log-stats-server` up to 0.29), then
               `AsyncEngineArgs.add_cli_args(parser)` and `parse_args`; mirrored, not imported (its module
               needs grpcio). A release without the module is the error "No module named ...".
  kaito        KAITO's presets/workspace/inference/vllm/inference_api.py (KAITOArgumentParser at v0.12.0): its
               `--kaito-*` options read by an argparse.ArgumentParser's parse_known_args, the rest by
               `make_arg_parser(FlexibleArgumentParser(...)).parse_args`, whose default model is
               /workspace/vllm/weights (not compared: KAITO downloads the model there). A `--kaito-config-file`
               would add the file's vLLM options; no row here names one.
Then `AsyncEngineArgs.from_cli_args(args)`: its `speculative_config` (argparse's json.loads of the flag, the
dotted `--speculative-config.key=value` merged in) and `model`.

How to run it (no GPU, no network, no weights; parsing needs no model config):
  1. The release sources and the venv of tools/vllm_verdicts.py (its header: /tmp/vllm/src/X, the wheel's
     Python files; /tmp/vllm/venv-new), plus the modules the OpenAI server's import chain needs that the
     engine-argument code does not, installed beside it, not into it:
       . /tmp/vllm/venv-new/bin/activate
       pip install --no-deps --target /tmp/vllm/argv-site prometheus-fastapi-instrumentator \
           model-hosting-container-standards orjson jmespath
     (a module still missing is named in the run's log, "No module named ...": add it to that line.)
  2. The rows, in this worktree's venv (it runs the function, `python -m krm_fn`, once over all CASES):
       python tools/vllm_argv.py --rows --out /tmp/vllm/argv-rows.json
  3. Each release, in the vLLM venv, its source first on sys.path:
       PYTHONPATH=/tmp/vllm/argv-site python tools/vllm_argv.py --run X --src /tmp/vllm/src/X \
           --rows-file /tmp/vllm/argv-rows.json --out /tmp/vllm/argv-X.json
  4. python tools/vllm_argv.py --rows-file /tmp/vllm/argv-rows.json --merge /tmp/vllm/argv-0*.json \
         > tests/vllm_argv.json
     and the options every release's parser has (the `facts`), for the function's reading of an argv:
       python tools/vllm_argv.py --data tests/vllm_argv.json     (writes krm_fn/domain/data/vllm_options.json;
                                                               `--check`: exit 1 if it is not what the table gives)
As in vllm_verdicts.py, vLLM's platform is forced to its CPU platform and CpuPlatform.import_kernels is a
no-op; neither is read by the argument parser.

tests/domain/test_vllm_argv.py runs the function on the same inputs (one process) and holds every row against the
table, with no vLLM installed.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from vllm_verdicts import DATA, RELEASES, write_data  # noqa: E402

RECORD = "kaito-specdec.dev/speculative-config"
ENABLE = "kaito.sh/enable-speculative-decoding"
DEFAULT = "0.25.1"   # krm_fn.domain.vllm_schema.DEFAULT_VLLM_VERSION: what an image not naming a release runs
SPEC_SINCE = (0, 22, 0)

# (name, container without name/image, image or None (the release's vllm/vllm-openai tag), first release)
# A case with its own image runs only at DEFAULT (the function cannot read a release off its tag).
CASES: list[tuple[str, dict[str, Any], str | None, str | None]] = [
    ("serve-positional", {"command": ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000",
                                      "--tensor-parallel-size", "2"]}, None, None),
    ("serve-args-tuned", {"command": ["vllm", "serve"],
                          "args": ["deepseek-ai/DeepSeek-V3-0324", "--trust-remote-code", "--max-model-len",
                                   "8192", "-tp", "8"]}, None, None),
    ("serve-model-flag", {"command": ["vllm", "serve"],
                          "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000",
                                   "--gpu-memory-utilization", "0.9"]}, None, None),
    ("serve-model-after-flags", {"command": ["vllm", "serve", "--port", "8000", "--trust-remote-code",
                                             "--enable-prefix-caching", "/models/Qwen3.5-9B/"]}, None, None),
    ("serve-underscores", {"command": ["vllm", "serve", "Qwen/Qwen3.5-4B", "--max_model_len", "4096",
                                       "--tensor_parallel_size=1", "--enforce_eager"]}, None, None),
    ("serve-abbreviated", {"command": ["vllm", "serve", "--trust-remote", "--max-model", "8192",
                                       "Qwen/Qwen3.5-9B"]}, None, None),
    ("serve-short-flag", {"command": ["vllm", "serve", "-tp", "8", "-ep", "deepseek-ai/DeepSeek-V3.2",
                                      "--trust-remote-code"]}, None, "0.14.1"),
    ("api-server", {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                    "args": ["--model", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--port", "8000",
                             "--served-model-name", "tinyllama"]}, None, None),
    ("api-server-env-model", {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                              "args": ["--model=$(MODEL_ID)", "--tensor-parallel-size=1",
                                       "--served-model-name=$$(MODEL_ID)"],
                              "env": [{"name": "MODEL_ID", "value": "google/gemma-3-4b-it"}]}, None, None),
    ("image-args-only", {"args": ["--model", "Qwen/Qwen3.5-2B", "--port", "8000", "--dtype", "bfloat16"]},
     None, None),
    ("image-args-positional", {"args": ["Qwen/Qwen3.6-27B", "--max-model-len", "32768"]}, None, None),
    ("ubi9-args-only", {"args": ["--model", "mistralai/Mistral-7B-Instruct-v0.3", "--download-dir",
                                 "/models-cache", "--dtype", "float16", "--max-model-len", "6144"]},
     "quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2", None),
    ("sh-c-simple", {"command": ["/bin/sh", "-c"],
                     "args": ["vllm serve Qwen/Qwen3-8B --port 8000 --gpu-memory-utilization 0.9"]}, None, None),
    ("sh-c-pipeline", {"command": ["bash", "-c"],
                       "args": ["set -e\nhuggingface-cli download Qwen/Qwen3.5-4B && exec vllm serve "
                                "Qwen/Qwen3.5-4B --port 8000 2>&1 | tee /var/log/vllm.log\n"]}, None, None),
    ("sh-c-continuation", {"command": ["/bin/bash", "-c", "python3 -m vllm.entrypoints.openai.api_server \\\n"
                                       "  --model $(MODEL) \\\n  --port 8000 \\\n  --max-model-len 4096\n"],
                           "env": [{"name": "MODEL", "value": "deepseek-ai/DeepSeek-V3.2"}]}, None, None),
    ("sh-c-comment", {"command": ["sh", "-c", "exec vllm serve Qwen/Qwen3.6-27B --port 8000 # the server\n"]},
     None, None),
    # The user's own config: the function leaves it, and vLLM must read it as a speculative config.
    ("user-config", {"command": ["vllm", "serve", "Qwen/Qwen3-8B",
                                 '--speculative-config={"method":"ngram","num_speculative_tokens":3,'
                                 '"prompt_lookup_max":2}']}, None, None),
    ("user-config-abbreviated", {"command": ["vllm", "serve", "Qwen/Qwen3-8B",
                                             '--speculative-conf={"method":"ngram","num_speculative_tokens":3}']},
     None, None),
    ("user-config-dotted", {"command": ["vllm", "serve", "Qwen/Qwen3-8B", "--speculative-config.method=ngram",
                                        "--speculative-config.num_speculative_tokens=3"]}, None, None),
    ("user-spec-method", {"command": ["vllm", "serve", "Qwen/Qwen3-8B", "--spec-method", "ngram",
                                      "--spec-tokens", "4"]}, None, "0.22.1"),
    ("grpc-server", {"command": ["python3", "-m", "vllm.entrypoints.grpc_server"],
                     "args": ["--model", "Qwen/Qwen3-8B", "--port", "50051", "--max-model-len", "8192"]}, None, None),
    ("kaito-entrypoint", {"command": ["python3", "/workspace/vllm/inference_api.py"],
                          "args": ["--kaito-adapters-dir=/mnt/adapter", "--served-model-name", "qwen",
                                   "--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]}, None, None),
]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:3])


def case_releases(image: str | None, since: str | None) -> list[str]:
    if image is not None:
        return [DEFAULT]
    return [r for r in RELEASES if since is None or _version(r) >= _version(since)]


def item_name(case: str, release: str) -> str:
    return f"{case}-v{release.replace('.', '-')}"


def resource_list() -> dict[str, Any]:
    """One opted-in Deployment per (case, release): the whole input of one function run."""
    items = []
    for name, container, image, since in CASES:
        for release in case_releases(image, since):
            c = {"name": "vllm", "image": image or f"vllm/vllm-openai:v{release}", **copy.deepcopy(container)}
            items.append({"apiVersion": "apps/v1", "kind": "Deployment",
                          "metadata": {"name": item_name(name, release), "annotations": {ENABLE: "true"}},
                          "spec": {"selector": {"matchLabels": {"app": name}},
                                   "template": {"metadata": {"labels": {"app": name}},
                                                "spec": {"containers": [c]}}}})
    return {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}


def run_function(resource_list_doc: dict[str, Any]) -> dict[str, Any]:
    """`python -m krm_fn` over the list (JSON is YAML), its output read back."""
    proc = subprocess.run([sys.executable, "-m", "krm_fn"], input=json.dumps(resource_list_doc),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the function exited {proc.returncode}: {proc.stderr}\n{proc.stdout[-4000:]}")
    out: dict[str, Any] = yaml.safe_load(proc.stdout)
    return out


# --- a container's vLLM argv ------------------------------------------------------------------------------
PARSED_FORMS = ("serve", "api_server", "image", "kserve_hf", "llmisvc", "grpc_server", "kaito")
_SHELLS = {"sh", "bash", "dash", "ash", "zsh", "ksh"}
_MODULES = {"vllm.entrypoints.openai.api_server": "api_server", "vllm.entrypoints.grpc_server": "grpc_server"}
_OPERATORS = {";", "&&", "||", "|", "&", "\n", "(", ")", ";;", "|&"}
_OPERATOR_CHARS = set(";&|()\n")
_REDIRECT = re.compile(r"^\d*(>|>>|<|<<|>&|<&|&>|&>>|>\|)$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_UBI9 = re.compile(r"(^|/)vllm(-cpu)?-openai-ubi9(:|@|$)")
_OFFICIAL = re.compile(r"^(docker\.io/)?vllm/vllm-openai(:|@|$)")


def _expanded(values: list[str], env: Any) -> list[str]:
    # krm_fn is imported where the rows are made (this package's venv), not at the top: --run, in the vLLM venv,
    # has no krm_fn to import.
    from krm_fn.domain.vllm_command import k8s_expand, kubernetes_env
    mapping = kubernetes_env(env)
    return [k8s_expand(v, mapping) for v in values]


def _shell_words(script: str) -> list[list[str]]:
    """The simple commands of a script as shlex splits them. A newline ends a command; shlex's comment reader
    eats the newline after a comment, so each newline is doubled first (a quoted newline inside a value
    doubles too, which json.loads does not see)."""
    lx = shlex.shlex(script.replace("\\\n", "").replace("\n", "\n\n"), posix=True, punctuation_chars=";&|<>()\n")
    lx.whitespace = " \t\r"
    lx.whitespace_split = True
    commands: list[list[str]] = []
    current: list[str] = []
    words = list(lx)
    i = 0
    while i < len(words):
        w = words[i]
        if w in _OPERATORS or (w and set(w) <= _OPERATOR_CHARS):
            commands.append(current)
            current = []
        elif _REDIRECT.match(w) or (w.isdigit() and i + 1 < len(words) and _REDIRECT.match(words[i + 1])):
            i += 1 if w.isdigit() else 0
            i += 1   # the target word
        else:
            current.append(w)
        i += 1
    commands.append(current)
    return [c for c in commands if c]


def _head(words: list[str]) -> tuple[str, int] | None:
    i = 0
    while i < len(words) and (words[i] in ("exec", "env", "nohup", "--") or _ASSIGN.match(words[i])):
        i += 1
    if i >= len(words):
        return None
    base = os.path.basename(words[i])
    if base == "vllm" and words[i + 1:i + 2] == ["serve"]:
        return "serve", i + 2
    if re.fullmatch(r"python[0-9.]*", base) and words[i + 1:i + 2] == ["-m"] and words[i + 2:i + 3]:
        form = _MODULES.get(words[i + 2])
        return (form, i + 3) if form else None
    if base == "python3" or base.startswith("python"):
        if any(w.endswith("vllm/inference_api.py") for w in words[i + 1:i + 2]):
            return "kaito", i + 2
    return None


def vllm_argv(container: dict[str, Any]) -> tuple[str, list[str]] | None:
    """(form, the server's arguments) of a container that starts vLLM, else None."""
    command, args = container.get("command"), container.get("args")
    if not all(v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v)) for v in (command, args)):
        return None
    if "kserve_hf" in container:
        return "kserve_hf", [f"--model_name={container['kserve_hf']}", "--model_dir=/mnt/models", *(args or [])]
    if "llmisvc" in container:
        # the template's eval re-splits every word of "$@" as bash does: shlex over the args joined by spaces
        name = str(container["llmisvc"])
        return "llmisvc", ["/mnt/models", "--served-model-name", name, f"publishers/default/models/{name}",
                           "--port", "8000", *shlex.split(" ".join(_expanded(args or [], container.get("env"))))]
    values = _expanded([*(command or []), *(args or [])], container.get("env"))
    image = _str(container.get("image"))
    if command is None and args is not None:
        if _UBI9.search(image):
            return "api_server", values
        if _OFFICIAL.search(image):
            return "image", values
    if values and os.path.basename(values[0]) in _SHELLS:
        at = next((i for i, v in enumerate(values) if v.startswith("-") and "c" in v[1:]), None)
        if at is None or at + 1 >= len(values):
            return None
        heads = [(c, _head(c)) for c in _shell_words(values[at + 1])]
        found = [(c, h) for c, h in heads if h is not None]
        if len(found) != 1:
            return None
        words, (form, start) = found[0]
        return form, words[start:]
    head = _head(values)
    return (head[0], values[head[1]:]) if head else None


# --- rows -------------------------------------------------------------------------------------------------
_SD701 = re.compile(r"^model (.+?) read as \S+ \(")
Container = tuple[str, dict[str, Any], dict[str, Any]]  # (field of the container, container, template annotations)


def _containers(item: dict[str, Any]) -> list[Container]:
    """(field of the container, container, its template's annotations) for every pod template container."""
    kind = item.get("kind")
    spec = item.get("spec")
    if not isinstance(spec, dict):
        return []
    templates: list[tuple[str, Any]] = []
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        templates = [("spec.template", spec.get("template"))]
    elif kind == "CronJob":
        job = spec.get("jobTemplate")
        job = job.get("spec") if isinstance(job, dict) else None
        templates = [("spec.jobTemplate.spec.template", job.get("template") if isinstance(job, dict) else None)]
    elif kind == "Pod":
        templates = [("", {"metadata": item.get("metadata"), "spec": spec})]
    elif kind == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate")
        lwt = lwt if isinstance(lwt, dict) else {}
        templates = [(f"spec.leaderWorkerTemplate.{k}", lwt.get(k)) for k in ("leaderTemplate", "workerTemplate")]
    elif kind == "InferenceService":
        return _kserve_containers(item, spec)
    elif kind == "LLMInferenceService":
        return _llm_isvc_containers(item, spec)
    out = []
    for at, template in templates:
        if not isinstance(template, dict):
            continue
        metadata, pod = template.get("metadata"), template.get("spec")
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        annotations = annotations if isinstance(annotations, dict) else {}
        listed = pod.get("containers") if isinstance(pod, dict) else None
        listed = listed if isinstance(listed, list) else []
        prefix = f"{at}.spec" if at else "spec"
        for i, c in enumerate(listed):
            if isinstance(c, dict):
                out.append((f"{prefix}.containers[{i}]", c, annotations))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _kserve_containers(item: dict[str, Any], spec: dict[str, Any]) -> list[Container]:
    """An InferenceService's predictor: its Hugging Face `model` (as the runtime's container: a `kserve_hf`
    key holding the InferenceService's name) and its own `containers`."""
    predictor = _dict(spec.get("predictor"))
    annotations = _dict(predictor.get("annotations"))
    out = []
    model = predictor.get("model")
    if isinstance(model, dict) and _dict(model.get("modelFormat")).get("name") == "huggingface":
        out.append(("spec.predictor.model", {"kserve_hf": _dict(item.get("metadata")).get("name"),
                                             "image": "", "args": model.get("args")}, annotations))
    listed = predictor.get("containers")
    for i, c in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(c, dict):
            out.append((f"spec.predictor.containers[{i}]", c, annotations))
    return out


def _llm_isvc_containers(item: dict[str, Any], spec: dict[str, Any]) -> list[Container]:
    """An LLMInferenceService's pod specs (spec.template, spec.worker, spec.prefill.template,
    spec.prefill.worker): a `main` without a command is KServe's template (an `llmisvc` key: the model's
    name, only for serving.kserve.io/v1alpha2, whose template takes the args as `$@`)."""
    prefill = _dict(spec.get("prefill"))
    model_name = _dict(spec.get("model")).get("name") or _dict(item.get("metadata")).get("name")
    template_args = item.get("apiVersion") == "serving.kserve.io/v1alpha2"
    out = []
    for at, pod, pod_annotations in (("spec.template", spec.get("template"), spec.get("annotations")),
                                     ("spec.worker", spec.get("worker"), spec.get("annotations")),
                                     ("spec.prefill.template", prefill.get("template"), prefill.get("annotations")),
                                     ("spec.prefill.worker", prefill.get("worker"), prefill.get("annotations"))):
        listed = _dict(pod).get("containers")
        for i, c in enumerate(listed if isinstance(listed, list) else []):
            if not isinstance(c, dict):
                continue
            if c.get("name") == "main" and c.get("command") is None and template_args:
                c = {**c, "llmisvc": model_name}
            out.append((f"{at}.containers[{i}]", c, _dict(pod_annotations)))
    return out


def _release_of(container: dict[str, Any], setting: str | None) -> str:
    # krm_fn imported here: see _expanded.
    from krm_fn.domain.plain_workloads import release_of
    return release_of(container.get("image"), setting or None).version


def _table_release(version: str) -> str | None:
    """The release of RELEASES that parses for `version`: itself, else the one of its minor (0.19.0 -> 0.19.1;
    no release changes the parser within a minor), the newest for a newer one, else None (before 0.10: not
    installed)."""
    if version in RELEASES:
        return version
    if _version(version) > _version(RELEASES[-1]):
        return RELEASES[-1]   # newer than every release run: judged by the newest (vllm_schema.beyond), parsed by it
    minor = _version(version)[:2]
    return next((r for r in RELEASES if _version(r)[:2] == minor), None)


def rows_of(source: str, before: dict[str, Any], after: dict[str, Any], results: list[dict[str, Any]],
            setting: str | None = None, release: str | None = None) -> list[dict[str, Any]]:
    """One row per container of `after` that starts vLLM (and any that the function changed)."""
    rows = []
    before_items = {(i.get("kind"), (i.get("metadata") or {}).get("name")): i for i in before.get("items", [])}
    for item in after.get("items", []):
        name = (item.get("metadata") or {}).get("name")
        given = before_items.get((item.get("kind"), name))
        if given is None:
            continue
        given_containers = {f: c for f, c, _ in _containers(given)}
        for field, container, template_annotations in _containers(item):
            found = vllm_argv(container)
            original = given_containers.get(field)
            if found is None and container == original:
                continue
            found_before = vllm_argv(original) if original is not None else None
            meant_config = template_annotations.get(RECORD)
            model, ids = None, set()
            for r in results:
                ref = r.get("resourceRef") or {}
                path = (r.get("field") or {}).get("path", "")
                if ref.get("name") != name or ref.get("kind") != item.get("kind") or not path.startswith(field + "."):
                    continue
                ids.add((r.get("tags") or {}).get("id"))
                if (r.get("tags") or {}).get("id") == "SD701":
                    m = _SD701.match(r.get("message", ""))
                    model = m.group(1) if m else None
            version = release or _release_of(container, setting)
            row = {"source": source, "item": f"{item.get('kind')}/{name}", "container": field,
                   "release": _table_release(version), "judged_as": version,
                   "form": found[0] if found else None, "argv": found[1] if found else None,
                   "before": found_before[1] if found_before else None,
                   # SD733: the record stays beside an argument changed by hand, which is not what it says
                   "meant": {"config": json.loads(meant_config) if meant_config and "SD733" not in ids else None,
                             "model": model},
                   "injected": container != original, "ids": sorted(i for i in ids if i)}
            if found is not None and found[0] not in PARSED_FORMS:
                row["skipped"] = f"form {found[0]}: its parser is not run here"
            elif found is None:
                row["skipped"] = "not a command line this tool reads"
            elif row["release"] is None:
                row["skipped"] = f"vLLM {version} is not among the releases installed"
            rows.append(row)
    return rows


def _only(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """The ResourceList's item named `name`, alone."""
    return {"items": [i for i in doc["items"] if i["metadata"]["name"] == name]}


def case_rows() -> list[dict[str, Any]]:
    doc = resource_list()
    out = run_function(doc)
    rows = []
    for name, _, image, since in CASES:
        for release in case_releases(image, since):
            wanted = item_name(name, release)
            rows += rows_of(f"case:{name}", _only(doc, wanted), _only(out, wanted), out.get("results") or [],
                            release=release)
    return rows


def fixture_rows() -> list[dict[str, Any]]:
    """The plain-* golden fixtures: their expected output (which tests/test_golden.py holds to the function's)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from golden import case_input  # imported here: tests/ is on sys.path from the line above (golden needs krm_fn)
    rows = []
    for d in sorted((ROOT / "fixtures").glob("plain-*")):
        if not (d / "expected.yaml").exists() or not (d / "expected.yaml").read_text().strip():
            continue
        before = yaml.safe_load(case_input(d.name))
        after = yaml.safe_load((d / "expected.yaml").read_text())
        fn = (before.get("functionConfig") or {}).get("data") or {}
        setting = fn.get("vllmVersion")
        rows += rows_of(f"fixture:{d.name}", before, after, after.get("results") or [],
                        setting=str(setting) if setting is not None else None)
    return rows


def all_rows() -> list[dict[str, Any]]:
    return case_rows() + fixture_rows()


def key(row: dict[str, Any]) -> tuple[str, str, str, str | None]:
    return row["source"], row["item"], row["container"], row["release"]


# --- one release, in its venv -----------------------------------------------------------------------------
def _prepare(release: str, src: str) -> None:
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    # EngineArgs.__post_init__ looks the model up on the local disk when HF_HUB_OFFLINE is set
    # (get_model_path, arg_utils.py:483-488 at 0.10.2); unset, it leaves the model as parsed.
    os.environ.pop("HF_HUB_OFFLINE", None)
    sys.path.insert(0, src)
    real = importlib.metadata.version

    def version(distribution_name: str) -> str:
        return f"{release}+cpu" if distribution_name == "vllm" else real(distribution_name)
    importlib.metadata.version = version
    # vLLM is imported here and in _parsers, not at the top: only --run needs it, from the release's source.
    try:
        from vllm.platforms.cpu import CpuPlatform
        CpuPlatform.import_kernels = classmethod(lambda cls: None)
    except (ImportError, AttributeError):
        pass


Parser = Callable[[list[str]], argparse.Namespace]  # a form's parser: the server's argv -> what it parsed


def _parsers(src: str) -> tuple[dict[str, Parser], Callable[[], dict[str, list[str]]], Any]:
    """The parser of each form (PARSED_FORMS but `image`), the one that lists the options of `vllm serve`, and
    vLLM's AsyncEngineArgs."""
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    for where in ("vllm.entrypoints.common.cli_args", "vllm.entrypoints.launchers.cli_args",
                  "vllm.entrypoints.openai.cli_args"):
        try:
            module = importlib.import_module(where)
        except ImportError:
            continue
        make_arg_parser, validate_parsed_serve_args = module.make_arg_parser, module.validate_parsed_serve_args
        break
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.engine.arg_utils import AsyncEngineArgs

    def serve(argv: list[str]) -> argparse.Namespace:
        parser = FlexibleArgumentParser(description="vLLM CLI")
        subparsers = parser.add_subparsers(required=False, dest="subparser")
        cmd = ServeSubcommand()
        cmd.subparser_init(subparsers).set_defaults(dispatch_function=cmd.cmd)
        args: argparse.Namespace = parser.parse_args(["serve", *argv])
        cmd.validate(args)
        if getattr(args, "model_tag", None) is not None:
            args.model = args.model_tag
        return args

    def api_server(argv: list[str]) -> argparse.Namespace:
        parser = make_arg_parser(FlexibleArgumentParser(description="vLLM OpenAI-Compatible RESTful API server."))
        args: argparse.Namespace = parser.parse_args(argv)
        validate_parsed_serve_args(args)
        return args

    def kserve_hf(argv: list[str]) -> argparse.Namespace:
        # huggingfaceserver/__main__.py: its parser with the vLLM backend on, read with parse_known_args
        parser = FlexibleArgumentParser()
        parser.add_argument("--model_name", default="model")          # kserve.model_server.parser
        parser.add_argument("--model_dir", required=False, default="/mnt/models")
        parser.add_argument("--model_id", required=False, default=None)
        parser.add_argument("--model_revision", required=False, default=None)
        parser.add_argument("--tokenizer_revision", required=False, default=None)
        parser.add_argument("--max_length", dest="max_model_len", type=int, required=False)
        parser.add_argument("--max_model_len", type=int, required=False)
        parser.add_argument("--disable_lower_case", action="store_true")
        parser.add_argument("--disable_special_tokens", action="store_true")
        parser.add_argument("--trust_remote_code", action="store_true", default=False)
        parser.add_argument("--tensor_input_names", default=None)
        parser.add_argument("--backend", default="auto")
        parser.add_argument("--return_token_type_ids", action="store_true")
        parser.add_argument("--return_probabilities", action="store_true")
        parser.add_argument("--disable_log_requests", action="store_true")
        parser = make_arg_parser(parser)
        args: argparse.Namespace = parser.parse_known_args(argv)[0]
        args.model = args.model_id or args.model_dir
        return args

    def grpc_server(argv: list[str]) -> argparse.Namespace:
        if importlib.util.find_spec("vllm.entrypoints.grpc_server") is None:
            raise ModuleNotFoundError("No module named 'vllm.entrypoints.grpc_server'")
        launcher = Path(src, "vllm", "entrypoints", "launchers", "grpc_server.py")
        old = Path(src, "vllm", "entrypoints", "grpc_server.py")
        main_source = (launcher if launcher.exists() else old).read_text()
        parser = FlexibleArgumentParser(description="vLLM gRPC Server")
        parser.add_argument("--host", type=str, default="0.0.0.0")
        parser.add_argument("--port", type=int, default=50051)
        if '"--disable-log-stats-server"' in main_source:
            parser.add_argument("--disable-log-stats-server", action="store_true")
        parser = AsyncEngineArgs.add_cli_args(parser)
        args: argparse.Namespace = parser.parse_args(argv)
        return args

    def kaito(argv: list[str]) -> argparse.Namespace:
        kaito_parser = argparse.ArgumentParser(description="KAITO wrapper of vLLM serving server")
        kaito_parser.add_argument("--kaito-adapters-dir", type=str, default="/mnt/adapter")
        kaito_parser.add_argument("--kaito-config-file", type=str, default="")
        kaito_parser.add_argument("--kaito-max-probe-steps", type=int)
        kaito_parser.add_argument("--kaito-kv-cache-cpu-memory-utilization", type=float, default=None)
        kaito_parser.add_argument("--kaito-disable-rate-limit", action="store_true", default=False)
        _, runtime_args = kaito_parser.parse_known_args(argv)
        vllm_parser = make_arg_parser(FlexibleArgumentParser(description="vLLM serving server"))
        vllm_parser.set_defaults(model="/workspace/vllm/weights")
        args: argparse.Namespace = vllm_parser.parse_args(runtime_args)
        return args

    def options() -> dict[str, list[str]]:
        """Every option string of the `vllm serve` parser: those that take no value (argparse nargs 0:
        store_true, BooleanOptionalAction and the like) and the others."""
        parser = FlexibleArgumentParser(description="vLLM CLI")
        serve_parser = ServeSubcommand().subparser_init(parser.add_subparsers(required=False, dest="subparser"))
        none: set[str] = set()
        value: set[str] = set()
        for action in serve_parser._actions:
            (none if action.nargs == 0 else value).update(action.option_strings)
        return {"no_value": sorted(none), "value": sorted(value)}

    return ({"serve": serve, "api_server": api_server, "kserve_hf": kserve_hf, "llmisvc": serve,
             "grpc_server": grpc_server, "kaito": kaito}, options, AsyncEngineArgs)


def _parse(parsers: dict[str, Parser], engine_cls: Any, form: str, argv: list[str]) -> dict[str, object]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args = parsers[form](argv)
            engine = engine_cls.from_cli_args(args)
        spec = copy.deepcopy(engine.speculative_config)
        for flag, name, attr in (("--spec-method", "method", "spec_method"), ("--spec-model", "model", "spec_model"),
                                 ("--spec-tokens", "num_speculative_tokens", "spec_tokens")):
            value = getattr(engine, attr, None)
            if value is None:
                continue
            spec = {} if spec is None else spec
            if name in spec:
                return {"error": f"ValueError: {flag} and --speculative-config['{name}'] are mutually exclusive"}
            spec[name] = value
        return {"model": engine.model, "speculative_config": spec}
    except SystemExit:
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        return {"error": "argparse: " + (lines[-1] if lines else "exit")}
    except Exception as exc:  # noqa: BLE001 - every failure is a verdict
        return {"error": f"{type(exc).__name__}: {str(exc).strip()[:400]}"}


def run_release(release: str, src: str, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    _prepare(release, src)
    parsers, options, engine_cls = _parsers(src)
    out = []
    for row in rows:
        if row["release"] != release:
            continue
        row = dict(row)
        if "skipped" not in row:
            # the vllm-openai image's ENTRYPOINT: `vllm serve` in today's docker/Dockerfile, `python3 -m
            # vllm.entrypoints.openai.api_server` in older ones; both are parsed.
            for suffix, form in ((("", "serve"), ("_api_server", "api_server")) if row["form"] == "image"
                                 else (("", row["form"]),)):
                row["parsed" + suffix] = _parse(parsers, engine_cls, form, row["argv"])
                if row["before"] is not None and row["before"] != row["argv"]:
                    row["parsed_before" + suffix] = _parse(parsers, engine_cls, form, row["before"])
        out.append(row)
    return out, {"release": release, **options()}


OPTIONS_DATA = DATA / "vllm_options.json"


def options_data(table: dict[str, Any]) -> dict[str, Any]:
    """krm_fn/domain/data/vllm_options.json: the options of every release's `vllm serve` parser, those that
    take no value in some release and the others."""
    facts = table["facts"]
    no_value = set().union(*(set(f["no_value"]) for f in facts))
    value = set().union(*(set(f["value"]) for f in facts)) - no_value
    return {"about": "the options of `vllm serve` in every release read, by whether they take a value; "
                     "generated by tools/vllm_argv.py --data tests/vllm_argv.json, do not edit",
            "releases": [f["release"] for f in facts], "no_value": sorted(no_value), "value": sorted(value)}


def merge(paths: list[str], rows_file: str | None) -> None:
    """--merge: the table of the rows (and facts) that --run wrote, and of `rows_file`'s rows no release
    parses, printed."""
    rows: list[dict[str, Any]] = [r for path in paths for r in json.loads(Path(path).read_text())]
    facts: list[dict[str, Any]] = [json.loads(Path(path + ".facts").read_text()) for path in paths
                         if Path(path + ".facts").exists()]
    if rows_file:   # the rows no release parses (before 0.10, or a form not parsed), as they are
        rows += [r for r in json.loads(Path(rows_file).read_text()) if r["release"] is None]
    order = {r: i for i, r in enumerate(RELEASES)}
    rows.sort(key=lambda r: (r["source"], r["item"], r["container"], order.get(r["release"], 999)))
    facts.sort(key=lambda f: order.get(f["release"], 999))
    print('{"about": "the argv kaito-specdec gives plain vLLM workloads, parsed by each vLLM release\'s own '
          'parser; regenerate with tools/vllm_argv.py (its header says how)",')
    print('"facts": [\n' + ",\n".join(json.dumps(f) for f in facts) + "],")
    print('"rows": [\n' + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "]}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", action="store_true", help="run the function and write the rows to parse")
    ap.add_argument("--run", help="parse the rows of this release (in its venv)")
    ap.add_argument("--src")
    ap.add_argument("--rows-file")
    ap.add_argument("--out", default="/dev/stdout")
    ap.add_argument("--merge", nargs="*")
    ap.add_argument("--data", help="write krm_fn/domain/data/vllm_options.json from this table")
    ap.add_argument("--write", default=str(OPTIONS_DATA), help="with --data: the file to write")
    ap.add_argument("--check", action="store_true",
                    help="with --data: write nothing, exit 1 if the file is not what the table gives")
    a = ap.parse_args(argv)
    if a.rows:
        Path(a.out).write_text(json.dumps(all_rows()) + "\n")
        return 0
    if a.run:
        rows, facts = run_release(a.run, a.src, json.loads(Path(a.rows_file).read_text()))
        Path(a.out).write_text(json.dumps(rows) + "\n")
        Path(a.out + ".facts").write_text(json.dumps(facts) + "\n")
        return 0
    if a.merge:
        merge(a.merge, a.rows_file)
        return 0
    if a.data:
        return write_data(Path(a.write), options_data(json.loads(Path(a.data).read_text())), check=a.check)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
