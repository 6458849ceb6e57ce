"""Regenerate tests/vllm_verdicts.json: what each vLLM release does with a `--speculative-config` value.

The table holds one row per (release, value): `starts` (the server gets a speculative config), `off` (it starts
without speculative decoding: the value reads as no config at all), or `refuses` with vLLM's error text. The
suite (tests/domain/test_vllm_schema.py) holds `krm_fn.domain.vllm_schema.check_speculative_config` against it
row for row, with no vLLM installed.

How a row is made, for release X (all on CPU, no GPU, no network, no weights):

  1. The wheel, without its dependencies, and only its Python files:
       pip download --no-deps vllm==X -d /tmp/vllm/dl
       unzip -q /tmp/vllm/dl/vllm-X-*.whl 'vllm/*.py' -d /tmp/vllm/src/X && rm /tmp/vllm/dl/vllm-X-*.whl
     (the compiled `vllm/_C*.so` and the `.dist-info` are left out: nothing below loads them.)
  2. One venv for every release (this table: torch 2.13.0+cpu, transformers 5.24.0, pydantic 2.14.4; 0.34.0 and
     the cases added with it on 0.33.0: transformers 5.25.0, the rest of 0.33.0's rows the same on both), with a
     CPU torch and the light requirements the engine-argument code imports (none of the GPU-only ones):
       python3 -m venv /tmp/vllm/venv-new && . /tmp/vllm/venv-new/bin/activate
       pip install <a CPU build of torch>        # here: a local torch-2.13.0+cpu wheel
       pip install 'transformers>=5.5.3' pydantic regex cachetools psutil numpy requests tqdm blake3 \
           py-cpuinfo tokenizers safetensors msgspec cloudpickle pyzmq typing_extensions filelock pyyaml \
           einops sentencepiece protobuf pillow cbor2 pybase64 ijson setproctitle python-json-logger \
           watchfiles partial-json-parser jsonschema diskcache prometheus_client openai 'fastapi[standard]<0.137' \
           aiohttp tiktoken lark gguf mistral_common openai-harmony xgrammar llguidance loguru
       pip install --no-deps compressed-tensors
     (transformers 5 serves 0.10.2 as well: the config code reads only `PretrainedConfig` from it.) A module
     still missing is named in the run's log ("No module named ..."); `runall.sh` below installs it and runs
     the release again.
  3. This file, in that venv, with the release's source first on sys.path:
       python tools/vllm_verdicts.py --run X --src /tmp/vllm/src/X --models /tmp/vllm/models --out rows-X.json
     then `python tools/vllm_verdicts.py --merge rows-*.json > tests/vllm_verdicts.json` and
       python tools/vllm_verdicts.py --data tests/vllm_verdicts.json
     which writes the facts krm_fn/domain/vllm_schema.py reads, krm_fn/domain/data/vllm_schema.json (`--check`:
     write nothing, exit 1 if the file is not what the table gives; tests/domain/test_vllm_schema.py checks it too).
     `python tools/vllm_verdicts.py --fetch` does step 1 for every release in RELEASES, one at a time; the
     loop used for this table (install a missing module, run again) was, per release R:
       python tools/vllm_verdicts.py --fetch R && for i in 1 2 3 4 5 6 7 8; do
         python tools/vllm_verdicts.py --run R --src /tmp/vllm/src/R --out rows-venv-new-R.json \
           > log-R.txt 2>&1 && break
         pip install "$(grep -o "No module named '[^']*'" log-R.txt | tail -1 | cut -d"'" -f2 | cut -d. -f1 | tr _ -)"
       done
     and a row refused with "failed to be inspected" means a module the model registry imports is missing: look
     in the log, install it, run the release again (no row of this table is such a row).

What `--run` does per value is what KAITO's runtime (presets/workspace/inference/vllm/inference_api.py) does
at start-up, up to the speculative config: vLLM's own `FlexibleArgumentParser` with
`AsyncEngineArgs.add_cli_args` parses `--model <target> --speculative-config <value>` (the value as KAITO
passes it: the text of the `vllm.speculative-config` key), then `AsyncEngineArgs.from_cli_args`,
`create_model_config()`, and `create_speculative_config(...)` with the arguments that release's
`create_engine_config` passes. (The OpenAI server's `make_arg_parser` adds the frontend's flags to the same
parser; `--speculative-config` is the engine's own, so it is left out with its import chain.) An exception
or an argparse exit is `refuses`, with the last line of its message.

What is changed from a real server, and why it cannot change a verdict on the speculative-config:
  - vLLM's platform is forced to its CPU platform (importlib.metadata says the release is `X+cpu`, which is
    how vLLM's builtin `cpu_platform_plugin` recognises a CPU build). The speculative config's checks do not
    depend on the platform, except where noted in a row's `note`.
  - vLLM's model registry inspects a model class in a subprocess (`_run_in_subprocess`, so that CUDA is not
    initialised in the server's process); here the same function runs in-process.
  - The CPU platform's `import_kernels` (loading `vllm._C`, and in 0.17 probing AVX-512 through a torch
    call that torch 2.13 lacks) is a no-op: no kernel runs when configs are built.
  - Targets and drafts are tiny local `config.json` folders (no weights), made by `--models`: a Llama
    target for every value, and a DeepSeek-V3 target with one MTP layer for the MTP methods (`target`
    column). Draft models are named by relative paths (`org/llama-draft`, `org/eagle3-draft`) that resolve
    to those folders, with HF_HUB_OFFLINE=1.
  - arctic-inference is not installed, so `suffix` refuses with "Arctic Inference is required" where the
    release has suffix decoding; the function reports that as SD616 (info), since the image may have it.

A fact read, not run: `rejection_sample_methods` (the `RejectionSampleMethod` Literal of each release's
vllm/config/speculative.py), which `--run` takes from the imported module as well; `python tools/vllm_verdicts.py
--reread tests/vllm_verdicts.json > new.json` reads it again from every release's source under --root/src/
(`--fetch` first; releases without the `rejection_sample_method` field need none).

A row marked `"how": "read"` would be one not run, its verdict read from the release's source; every row of
this table is `"how": "run"` (all 27 releases evaluated). What krm_fn/domain/vllm_schema.py keeps that is read, not
run, is said there (`UNUSED_KEYS`).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import dataclasses
import importlib.metadata
import inspect
import io
import json
import os
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Every minor release from 0.10 to the newest on PyPI (`pip index versions vllm`), its last patch, and the
# patches where the speculative config changed inside a minor (0.11.0 -> 0.11.1 -> 0.11.2).
RELEASES = ["0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0", "0.14.1", "0.15.1", "0.16.0", "0.17.1",
            "0.18.1", "0.19.1", "0.20.2", "0.21.0", "0.22.1", "0.23.0", "0.24.0", "0.25.1", "0.26.0", "0.27.1",
            "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0"]

MTP_ALIASES = ["deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp",
               "pangu_ultra_moe_mtp", "dots3_note_mtp", "mimo_v2_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp",
               "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp", "qwen4_exp_mtp", "qwen3_5_mtp",
               "bailing_hybrid_v3_mtp", "minimax_m3_mtp", "bailing_hybrid_mtp", "kimi_k3_mtp", "step3p5_mtp",
               "hy_v3_mtp", "hy_v4_mtp", "gemma4_mtp", "inkling_mtp", "glm5_next_mtp", "step5_mtp",
               "nemotron3_5_transcribe_mtp"]


def ngram(keys: str) -> str:
    """The ngram value most cases start from (5 tokens), with `keys`, JSON members, added after its own."""
    return '{"method":"ngram","num_speculative_tokens":5,' + keys + "}"


# (value as written in inference_config.yaml's `vllm.speculative-config`, target)
CASES: list[tuple[str, str]] = [
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":2,"prompt_lookup_max":4}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":3}', "llama"),
    ('{"method":"Ngram","num_speculative_tokens":5}', "llama"),
    ('{"method":"ngram"}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":0}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":-1}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":"5"}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":5.0}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":5.5}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":true}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":"five"}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":null}', "llama"),
    (ngram('"prompt_lookup_max":"4"'), "llama"),
    (ngram('"prompt_lookup_max":4.0'), "llama"),
    (ngram('"prompt_lookup_max":null'), "llama"),
    (ngram('"prompt_lookup_min":null,"prompt_lookup_max":null'), "llama"),
    (ngram('"prompt_lookup_max":0'), "llama"),
    (ngram('"prompt_lookup_min":0,"prompt_lookup_max":3'), "llama"),
    (ngram('"prompt_lookup_max":"x"'), "llama"),
    (ngram('"prompt_lookup_min":5,"prompt_lookup_max":2'), "llama"),
    ('{"method":"mtp","num_speculative_tokens":1,"prompt_lookup_min":5,"prompt_lookup_max":2}', "dsv3"),
    ('{"method":"mtp","num_speculative_tokens":1}', "dsv3"),
    ('{"method":"mtp","num_speculative_tokens":"1"}', "dsv3"),
    ('{"method":"mtp"}', "dsv3"),
    ('{"method":"eagle3","num_speculative_tokens":3}', "llama"),
    ('{"method":"eagle3","model":"org/eagle3-draft","num_speculative_tokens":3}', "llama"),
    ('{"method":"eagle","num_speculative_tokens":3}', "llama"),
    ('{"method":"draft_model","model":"org/llama-draft","num_speculative_tokens":4}', "llama"),
    ('{"method":"draft_model","num_speculative_tokens":4}', "llama"),
    ('{"model":"org/llama-draft","num_speculative_tokens":4}', "llama"),
    ('{"model":"ngram","num_speculative_tokens":5}', "llama"),
    ('{"method":null,"model":"ngram","num_speculative_tokens":5}', "llama"),
    ('{"num_speculative_tokens":5}', "llama"),
    ('{"method":"medusa","num_speculative_tokens":2}', "llama"),
    ('{"method":"mlp_speculator","num_speculative_tokens":2}', "llama"),
    ('{"method":"suffix"}', "llama"),
    ('{"method":"suffix","num_speculative_tokens":8}', "llama"),
    ('{"method":"ngram_gpu","num_speculative_tokens":5}', "llama"),
    ('{"method":"dflash","num_speculative_tokens":5}', "llama"),
    ('{"method":"custom_class","num_speculative_tokens":5}', "llama"),
    ('{"method":"dspark","num_speculative_tokens":5}', "dsv3"),
    ('{"method":"extract_hidden_states","num_speculative_tokens":1}', "llama"),
    ('{"method":{"name":"ngram"},"num_speculative_tokens":5}', "llama"),
    ('{"method":["ngram"],"num_speculative_tokens":5}', "llama"),
    ('{"method":5,"num_speculative_tokens":5}', "llama"),
    (ngram('"made_up_key":1'), "llama"),
    (ngram('"disable_by_batch_size":4'), "llama"),
    (ngram('"disable_by_batch_size":1'), "llama"),
    (ngram('"disable_logprobs":true'), "llama"),
    (ngram('"speculative_token_tree":"[(0,)]"'), "llama"),
    (ngram('"tensor_parallel_size":1'), "llama"),
    (ngram('"draft_tensor_parallel_size":1'), "llama"),
    (ngram('"draft_tensor_parallel_size":0'), "llama"),
    (ngram('"max_model_len":0'), "llama"),
    (ngram('"max_model_len":1024'), "llama"),
    (ngram('"disable_padded_drafter_batch":"maybe"'), "llama"),
    (ngram('"disable_padded_drafter_batch":true'), "llama"),
    (ngram('"quantization":"bogus"'), "llama"),
    (ngram('"enforce_eager":true'), "llama"),
    (ngram('"revision":"main"'), "llama"),
    (ngram('"kv_cache_dtype":"auto"'), "llama"),
    (ngram('"enable_adaptive_verification":true'), "llama"),
    (ngram('"disable_eagle_block_drop":true'), "llama"),
    (ngram('"attention_backend":"auto"'), "llama"),
    (ngram('"moe_backend":"auto"'), "llama"),
    # keys and values 0.34.0 changed (run on 0.33.0 and 0.34.0 only; issue #30)
    ('{"method":"draft_model","model":"org/llama-draft","num_speculative_tokens":4,"use_heterogeneous_vocab":true}',
     "llama"),
    ('{"method":"suffix","num_speculative_tokens":8,"suffix_decoding_max_tree_depth":0}', "llama"),
    ('{"method":"suffix","num_speculative_tokens":8,"suffix_decoding_corpus_tokens":0}', "llama"),
    (ngram('"draft_decode_context_parallel_size":1'), "llama"),
    ('{"method":"ngram","num-speculative-tokens":5}', "llama"),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt-lookup-max":4}', "llama"),
    ("", "llama"),
    ("None", "llama"),
    ("null", "llama"),
    ("{}", "llama"),
    ("[1]", "llama"),
    ('"ngram"', "llama"),
    ("5", "llama"),
    ("{'method':'ngram','num_speculative_tokens':5}", "llama"),
    ("ngram", "llama"),
] + [(f'{{"method":"{a}","num_speculative_tokens":1}}', "dsv3") for a in MTP_ALIASES]


# Behaviours krm_fn/domain/vllm_schema.py reads off one row each: flag -> (value, the verdict that sets the flag).
FLAGS = {
    "lax_numbers": ('{"method":"ngram","num_speculative_tokens":"5"}', "starts"),
    "tokens_any_number": ('{"method":"ngram","num_speculative_tokens":5.5}', "starts"),
    "lax_lookup": (ngram('"prompt_lookup_max":"4"'), "starts"),
    "lookup_null": (ngram('"prompt_lookup_max":null'), "starts"),
    "lookup_order_ngram_only": (
        '{"method":"mtp","num_speculative_tokens":1,"prompt_lookup_min":5,"prompt_lookup_max":2}', "starts"),
    "method_null_infers": ('{"method":null,"model":"ngram","num_speculative_tokens":5}', "starts"),
    "draft_model_runs": ('{"method":"draft_model","model":"org/llama-draft","num_speculative_tokens":4}', "starts"),
    "draft_model_inferred": ('{"model":"org/llama-draft","num_speculative_tokens":4}', "starts"),
    "dashed_keys": ('{"method":"ngram","num-speculative-tokens":5}', "starts"),
    "refuses_unknown_keys": (ngram('"made_up_key":1'), "refuses"),
    "tensor_parallel_size_refused": (ngram('"tensor_parallel_size":1'), "refuses"),
    "draft_tp_at_least_1": (ngram('"draft_tensor_parallel_size":0'), "refuses"),
    "max_model_len_at_least_1": (ngram('"max_model_len":0'), "refuses"),
    "bools_checked": (ngram('"disable_padded_drafter_batch":"maybe"'), "refuses"),
    "quantization_checked": (ngram('"quantization":"bogus"'), "refuses"),
    "adaptive_verification_dspark_only": (ngram('"enable_adaptive_verification":true'), "refuses"),
    "disable_by_batch_size_at_least_2": (ngram('"disable_by_batch_size":1'), "refuses"),
    # Up to 0.33 suffix decoding needs arctic-inference (not in the venv: the row refuses); 0.34 has its own.
    "suffix_needs_arctic": ('{"method":"suffix"}', "refuses"),
}


# --- models --------------------------------------------------------------------------------------------
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 1024,
         "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16",
         "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False}
DSV3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 64,
        "intermediate_size": 128, "moe_intermediate_size": 32, "num_hidden_layers": 2,
        "num_nextn_predict_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 4, "n_shared_experts": 1,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1,
        "kv_lora_rank": 16, "q_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 8,
        "vocab_size": 1024, "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16",
        "bos_token_id": 1, "eos_token_id": 2, "topk_method": "noaux_tc", "scoring_func": "sigmoid",
        "routed_scaling_factor": 1.0, "norm_topk_prob": True}
EAGLE3 = dict(LLAMA, architectures=["LlamaForCausalLMEagle3"], num_hidden_layers=1, draft_vocab_size=1024)
MODELS = {"target-llama": LLAMA, "target-dsv3": DSV3, "org/llama-draft": dict(LLAMA, num_hidden_layers=1),
          "org/eagle3-draft": EAGLE3}


def make_models(root: Path) -> None:
    for name, cfg in MODELS.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "config.json").write_text(json.dumps(cfg, indent=1))


# --- one release, inside its venv -----------------------------------------------------------------------
def _force_cpu(release: str) -> None:
    real = importlib.metadata.version

    def version(distribution_name: str) -> str:
        return f"{release}+cpu" if distribution_name == "vllm" else real(distribution_name)
    importlib.metadata.version = version


def short(error: str) -> str:
    """vLLM's error without pydantic's echo of the whole input and its help link."""
    lines = [ln.strip() for ln in error.splitlines() if ln.strip() and not ln.strip().startswith("For further")]
    # `<function loads at 0x7f...>`: an address differs from run to run; the table keeps what does not
    return re.sub(r" at 0x[0-9a-f]+>", ">", " | ".join(ln.split(" [type=")[0] for ln in lines))


def _last_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def run_release(release: str, src: str, models: str) -> list[dict[str, object]]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    sys.path.insert(0, src)
    _force_cpu(release)
    # vLLM inspects model classes in a subprocess: it gets the same source and the same CPU platform.
    site = Path(models) / "_site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(
        "import importlib.metadata as md\n_real = md.version\n"
        f"md.version = lambda name: {release + '+cpu'!r} if name == 'vllm' else _real(name)\n")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(site), src])
    make_models(Path(models))
    os.chdir(models)  # draft models are relative paths: org/llama-draft
    # vLLM is imported here, not at the top: only --run needs it, from the release's source put on sys.path above.
    from vllm.engine.arg_utils import AsyncEngineArgs
    # vLLM inspects a model class in a subprocess so that CUDA is not initialised in the server's process;
    # on CPU the same function runs in this one (the same answer, without a process per value).
    # vLLM's CPU platform loads its compiled kernels when a model module imports `vllm._custom_ops`; the
    # wheel's compiled files are not extracted, and some releases probe the CPU through torch calls that a
    # newer torch renamed. No kernel runs here: the load is skipped.
    try:
        from vllm.platforms.cpu import CpuPlatform
        CpuPlatform.import_kernels = classmethod(lambda cls: None)
    except (ImportError, AttributeError):
        pass
    from vllm.model_executor.models import registry
    if hasattr(registry, "_run_in_subprocess"):
        registry._run_in_subprocess = lambda fn: fn()
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    rows: list[dict[str, object]] = []
    targets: dict[str, Any] = {}  # target -> vLLM's ModelConfig
    for value, target in CASES:
        parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
        err = io.StringIO()
        verdict, message = "starts", ""
        result: dict[str, object] | None = None
        try:
            with contextlib.redirect_stderr(err):
                args = parser.parse_args(["--model", f"target-{target}", "--speculative-config", value])
            engine_args = AsyncEngineArgs.from_cli_args(args)
            engine_args.skip_tokenizer_init = True
            # One target config per target, copied for each value: inspecting a model class costs a
            # subprocess, and the speculative config only reads the target's.
            if target not in targets:
                targets[target] = engine_args.create_model_config()
            try:
                model_config = copy.deepcopy(targets[target])
            except Exception:  # noqa: BLE001 - not copyable: make it anew
                model_config = engine_args.create_model_config()
            params = inspect.signature(engine_args.create_speculative_config).parameters
            kwargs: dict[str, object] = {}
            if "target_parallel_config" in params:
                from vllm.config import ParallelConfig
                kwargs["target_parallel_config"] = ParallelConfig(tensor_parallel_size=1)
            if "enable_chunked_prefill" in params:
                kwargs["enable_chunked_prefill"] = True
            if "disable_log_stats" in params:
                kwargs["disable_log_stats"] = True
            spec = engine_args.create_speculative_config(target_model_config=model_config, **kwargs)
            if spec is None:
                verdict = "off"
            else:
                result = {"method": getattr(spec, "method", None),
                          "num_speculative_tokens": getattr(spec, "num_speculative_tokens", None)}
        except SystemExit:
            lines = [ln for ln in err.getvalue().strip().splitlines() if ln.strip()]
            verdict, message = "refuses", "argparse: " + (lines[-1] if lines else "exit")
        except BaseException as exc:  # noqa: BLE001 - every failure is a verdict
            verdict, message = "refuses", _last_line(exc)
        row: dict[str, object] = {"release": release, "value": value, "target": target, "verdict": verdict,
                                  "how": "run"}
        if message:
            row["error"] = message[:600]
        if result:
            row["spec"] = result
        rows.append(row)
    return rows


def release_facts(release: str) -> dict[str, Any]:
    """The release's SpeculativeConfig as data: its fields, its method names, its MTP aliases."""
    try:
        import vllm.config.speculative as mod
    except ImportError:
        import vllm.config as mod
    cls = mod.SpeculativeConfig

    def flat(t: object) -> list[str]:
        """The strings of a type: the values of a Literal, of the Literals of a Union, ..."""
        if isinstance(t, str):
            return [t]
        out: list[str] = []
        for a in typing.get_args(t):
            out += flat(a)
        return out

    def literal(name: str) -> list[str] | None:
        t = getattr(mod, name, None)
        return sorted(set(flat(t))) if t is not None else None

    # Only what a config may set: a field with init=False (0.34.0's `custom_method: str | None = field(default=None,
    # init=False)`, speculative.py:479) is refused as an unexpected keyword argument.
    fields = [f.name for f in dataclasses.fields(cls) if f.init]
    method_type = cls.__dataclass_fields__["method"].type
    if isinstance(method_type, str):
        method_type = eval(method_type, vars(mod))  # noqa: S307 - the release's own annotation
    try:
        from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS
        quant = sorted(QUANTIZATION_METHODS)
    except Exception:  # noqa: BLE001 - not importable without compiled ops in this release
        quant = None
    pyd = getattr(cls, "__pydantic_config__", None)
    return {"release": release, "fields": fields, "methods": sorted(set(flat(method_type))),
            "mtp_aliases": literal("MTPModelTypes"), "quantization": quant, "pydantic": pyd is not None,
            "extra": (pyd or {}).get("extra") if isinstance(pyd, dict) else None,
            "rejection_sample_methods": literal("RejectionSampleMethod")}


def read_facts(src: Path) -> dict[str, Any]:
    """The facts read from a release's source without running it (the same names release_facts takes from the
    imported module): `RejectionSampleMethod = Literal[...]` of vllm/config/speculative.py (None: no such type)."""
    for name in ("vllm/config/speculative.py", "vllm/config/__init__.py", "vllm/config.py"):
        path = src / name
        if not path.exists():
            continue
        for node in ast.parse(path.read_text()).body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "RejectionSampleMethod"
                                                     for t in node.targets)):
                values = [c.value for c in ast.walk(node.value)
                          if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                return {"rejection_sample_methods": sorted(set(values))}
    return {"rejection_sample_methods": None}


# --- the driver -----------------------------------------------------------------------------------------
def fetch(release: str, root: Path) -> Path:
    src = root / "src" / release
    if (src / "vllm" / "config").exists() or (src / "vllm" / "config.py").exists():
        return src
    dl = root / "dl"
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"vllm=={release}", "-d", str(dl)],
                   check=True)
    wheel = next(dl.glob(f"vllm-{release}-*.whl"))
    src.mkdir(parents=True, exist_ok=True)  # unzip -d makes one level only: /tmp/vllm/src/X needs src/ first
    subprocess.run(["unzip", "-q", "-o", str(wheel), "vllm/*.py", "-d", str(src)], check=True)
    wheel.unlink()
    return src


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run")
    ap.add_argument("--src")
    ap.add_argument("--models", default="/tmp/vllm/models")
    ap.add_argument("--out", default="/dev/stdout")
    ap.add_argument("--merge", nargs="*")
    ap.add_argument("--fetch", nargs="*")
    ap.add_argument("--root", default="/tmp/vllm")
    ap.add_argument("--reread", help="print this table with the facts read_facts reads from --root/src/R, for every "
                                     "release R it holds (the releases' sources: --fetch)")
    ap.add_argument("--data", help="write krm_fn/domain/data/vllm_schema.json from this table")
    ap.add_argument("--write", default=str(SCHEMA_DATA), help="with --data: the file to write")
    ap.add_argument("--check", action="store_true",
                    help="with --data: write nothing, exit 1 if the file is not what the table gives")
    a = ap.parse_args(argv)
    if a.run:
        write_run(a.run, a.src, a.models, a.out)
        return 0
    if a.fetch is not None:
        for release in a.fetch or RELEASES:
            print(fetch(release, Path(a.root)))
        return 0
    if a.reread:
        reread(Path(a.reread), Path(a.root))
        return 0
    if a.merge:
        merge(a.merge)
        return 0
    if a.data:
        return write_data(Path(a.write), schema_data(json.loads(Path(a.data).read_text())), check=a.check)
    ap.print_help()
    return 2


def write_run(release: str, src: str, models: str, out: str) -> None:
    """--run: the release's rows to `out`, its facts beside them (`out`.facts)."""
    rows = run_release(release, src, models)
    try:
        facts = release_facts(release)
    except Exception as exc:  # noqa: BLE001 - the rows stand without the facts
        facts = {"release": release, "error": _last_line(exc)}
    if out != "/dev/stdout":
        Path(out + ".facts").write_text(json.dumps(facts) + "\n")
    Path(out).write_text(json.dumps(rows, indent=0) + "\n")  # vLLM logs to stdout


def reread(table_path: Path, root: Path) -> None:
    """--reread: the table printed with the facts read_facts reads from each release's source."""
    table = json.loads(table_path.read_text())
    facts = []
    for f in table["facts"]:
        src = root / "src" / f["release"]
        if "rejection_sample_method" not in f.get("fields", []):
            facts.append(dict(f, rejection_sample_methods=None))   # no such field: nothing to read
            continue
        if not src.exists():
            raise SystemExit(f"no source of {f['release']} under {src}: run --fetch {f['release']} first")
        facts.append(dict(f, **read_facts(src)))
    print_table(table["about"], facts, table["rows"])


def merge(paths: list[str]) -> None:
    """--merge: the table of the rows (and facts) that --run wrote, printed."""
    rows: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    for path in paths:
        rows += json.loads(Path(path).read_text())
        if Path(path + ".facts").exists():
            facts.append(json.loads(Path(path + ".facts").read_text()))
    cases = {value for value, _ in CASES}
    rows = [r for r in rows if r["value"] in cases]  # a case since dropped from CASES
    for r in rows:
        if "error" in r:
            r["error"] = short(r["error"])
    order = {r: i for i, r in enumerate(RELEASES)}
    rows.sort(key=lambda r: order.get(r["release"], 999))
    facts.sort(key=lambda r: order.get(r["release"], 999))
    print_table("verdicts of vLLM releases on --speculative-config values; regenerate with "
                "tools/vllm_verdicts.py (its header says how)", facts, rows)


def print_table(about: str, facts: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """The table as --merge writes it: one fact or row a line, so a regenerated table diffs row by row."""
    def dump(obj: object) -> str:
        return json.dumps(obj, ensure_ascii=False)
    print("{" + f'"about": {dump(about)},')
    print('"facts": [\n' + ",\n".join(dump(f) for f in facts) + "],")
    print('"rows": [\n' + ",\n".join(dump(r) for r in rows) + "]}")


def spans(facts: list[dict[str, Any]], key: str) -> dict[str, list[tuple[str, str | None]]]:
    """name -> [(first release with it, first later release without it or None), ...] over the releases run."""
    out: dict[str, list[tuple[str, str | None]]] = {}
    names = sorted({n for f in facts for n in (f.get(key) or [])})
    for name in names:
        runs: list[tuple[str, str | None]] = []
        start: str | None = None
        for f in facts:
            has = name in (f.get(key) or [])
            if has and start is None:
                start = f["release"]
            elif not has and start is not None:
                runs.append((start, f["release"]))
                start = None
        if start is not None:
            runs.append((start, None))
        out[name] = runs
    return out


def flag_facts(table: dict[str, Any]) -> list[dict[str, Any]]:
    """Per release, the FLAGS that its rows set, in the shape of `facts`."""
    out = []
    for f in table["facts"]:
        rows = {r["value"]: r["verdict"] for r in table["rows"] if r["release"] == f["release"]}
        out.append({"release": f["release"],
                    "flags": [name for name, (value, verdict) in FLAGS.items() if rows.get(value) == verdict]})
    return out


# --- the package's data files ----------------------------------------------------------------------------
DATA = ROOT / "krm_fn" / "domain" / "data"
SCHEMA_DATA = DATA / "vllm_schema.json"


def schema_data(table: dict[str, Any]) -> dict[str, Any]:
    """krm_fn/domain/data/vllm_schema.json: the releases run, and per name the spans of releases that have it
    (`[first release run with it, first later release run without it or null]`), for each family of facts."""
    facts = [dict(f, **g) for f, g in zip(table["facts"], flag_facts(table), strict=True)]
    out: dict[str, Any] = {"about": "vLLM's speculative config per release (fields, methods, MTP aliases, quantization "
                          "names, behaviours) as spans of the releases run; generated by tools/vllm_verdicts.py "
                          "--data tests/vllm_verdicts.json, do not edit",
                 "releases": [f["release"] for f in facts]}
    for key in ("fields", "methods", "mtp_aliases", "quantization", "flags", "rejection_sample_methods"):
        out[key] = {name: [list(run) for run in runs] for name, runs in spans(facts, key).items()}
    return out


def data_text(data: dict[str, Any], sort: bool = True) -> str:
    """A data file's text: keys sorted (or, `sort=False`, in the order given), one list element or mapping
    entry a line (each entry's value on its line), so that a new release diffs line by line."""
    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)
    parts = []
    for key in sorted(data) if sort else data:
        value = data[key]
        if isinstance(value, dict) and value:
            inner = ",\n".join(f"  {dump(k)}: {dump(value[k])}" for k in (sorted(value) if sort else value))
            parts.append(f" {dump(key)}: {{\n{inner}\n }}")
        elif isinstance(value, list) and value:
            inner = ",\n".join(f"  {dump(v)}" for v in value)
            parts.append(f" {dump(key)}: [\n{inner}\n ]")
        else:
            parts.append(f" {dump(key)}: {dump(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_data(path: Path, data: dict[str, Any], check: bool = False, sort: bool = True) -> int:
    """Write a data file (0), or with `check` say whether it is already what `data` gives (0) or not (1)."""
    text = data_text(data, sort)
    if check:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return 0
        print(f"{path} is not what the table gives: run {sys.argv[0]} without --check", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
