"""What a vLLM release does with the command line a plain workload runs: from which release the
JSON `--speculative-config` flag and the `--spec-*` shorthands exist, what it does with speculative decoding
under pipeline parallelism, which arguments make it serve a pooling model, which of its options take no
value, and which image tags name a vLLM release.

Pure data and small pure functions; every fact names the vLLM source line it mirrors (`file:line at X`: the
release's wheel, `pip download --no-deps vllm==X`), here or in docs/plain-vllm.md's table of what a release
judges. The speculative-config schema by release (methods, keys) is vllm_schema's.
"""

from typing import NamedTuple
import re

from ..text.results import Severity
from .vllm_options import options

Version = tuple[int, int, int]

# An older server exits with "unrecognized arguments" on it (docs/plain-vllm.md, SD712).
JSON_FLAG_SINCE: Version = (0, 8, 2)
# vllm/engine/arg_utils.py at 0.8.3 has no '--speculative-model' any more (0.8.2 deprecates it: "will be
# deprecated in the next release", arg_utils.py:1225-1231).
OLD_FLAGS_REMOVED_IN: Version = (0, 8, 3)
# --spec-method, --spec-model, --spec-tokens (docs/plain-vllm.md, SD716).
SPEC_SHORTHANDS_SINCE: Version = (0, 22, 0)
# vllm/engine/arg_utils.py:1304 at 0.19.1: `vllm_group.add_argument("--speculative-config", "-sc", ...)`; 0.18.1
# has only "--speculative-config" (every release's own parser, tests/vllm_argv.json's facts: -sc from 0.19.1 on,
# 0.19.0 not read). An older server exits with "unrecognized arguments: -sc".
SHORT_SC_SINCE: Version = (0, 19, 0)
# vllm/utils/__init__.py:1856-1864 at 0.11.0 (FlexibleArgumentParser.parse_args): `if args and args[0] ==
# "serve": model_in_cli_args = any(arg == '--model' for arg in args)` -> ValueError("With `vllm serve`, you
# should provide the model as a positional argument ..."); the same at 0.10.2 (utils/__init__.py:1806-1814);
# gone from 0.11.1's vllm/utils/argparse_utils.py (tests/vllm_argv.json: `vllm serve --model X` parses there).
# Only the word itself: `--model=X` passes that test.
SERVE_MODEL_OPTION_SINCE: Version = (0, 11, 1)
# vllm/entrypoints/grpc_server.py is in 0.14.1's wheel and not in 0.13.0's (0.14.0 not read); from 0.30 it
# imports its main from vllm/entrypoints/launchers/grpc_server.py (tests/vllm_argv.json, the grpc-server rows).
GRPC_SERVER_SINCE: Version = (0, 14, 0)
SPEC_SHORTHANDS = {"--spec-method": "method", "--spec-model": "model", "--spec-tokens": "num_speculative_tokens"}


class PipelineVerdict(NamedTuple):
    """What a release does with speculative decoding under pipeline parallelism (more than one stage)."""
    severity: Severity
    refuses: bool      # the server exits at start-up: nothing is injected
    text: str          # one sentence, the release named in it (as `said`)
    fix: str = ""      # for a refusal: what makes it start (besides one stage, or no speculation)


# V0's vllm/spec_decode/spec_decode_worker.py:63-65 at 0.8.5, where any engine falls back to V0.
_V0_REFUSES = "which refuses pipeline parallelism at start-up"
# vLLM's envs.VLLM_USE_V1 is `bool(int(os.getenv("VLLM_USE_V1", "1")))`; envs.is_set tells whether it is given.
_V1_ON, _V1_OFF = "on", "off"


def _use_v1(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    if not text.lstrip("+-").isdigit():
        return None   # vLLM's int() would fail: not a setting this reads
    return _V1_ON if int(text) else _V1_OFF


def pipeline_verdict(version: Version, said: str, backend: str | None = None, use_v1: str | None = None,
                     method: str | None = None) -> PipelineVerdict:
    """`said` ("vLLM 0.9.2 (image …)", = `version`) running `method` (an mtp or ngram draft) with
    --pipeline-parallel-size > 1, `backend` its --distributed-executor-backend and `use_v1` its VLLM_USE_V1
    (as given; None: not set). Which engine runs decides (`EngineArgs._is_v1_supported_oracle`): V0 refuses
    (an error, SD734), V1 drafts on the last stage only (a warning, SD715, so the combination is a decision).
    docs/plain-vllm.md gives each release's verdict and the lines it is read from; besides those: 0.8.5
    keeps ngram on V1 only with `envs.is_set("VLLM_USE_V1") and envs.VLLM_USE_V1` (arg_utils.py:1662); vLLM PR
    #18915 let the default through in 0.9.1; VLLM_USE_V1=0 before 0.10 is V0 (`try_v1 = envs.VLLM_USE_V1 or
    not envs.is_set("VLLM_USE_V1")`, arg_utils.py:991 at 0.9.0); the last-stage drafter is also
    gpu_model_runner.py:169-171 at 0.8.5 and :176-178 at 0.9.2; Model Runner V2 refuses eagle3 and dflash
    under pipeline parallelism (model_runner.py:196-202 at 0.24.0), no config this function writes.
    """
    v1 = _use_v1(use_v1)
    if version < (0, 10, 0) and v1 == _V1_OFF:
        return PipelineVerdict(Severity.ERROR, True, f"{said} runs on its V0 engine with VLLM_USE_V1=0, {_V0_REFUSES}",
                               "remove VLLM_USE_V1=0")
    if version < (0, 8, 5):
        return PipelineVerdict(Severity.ERROR, True,
                               f"{said} runs speculative decoding on its V0 engine, {_V0_REFUSES}", "use vLLM 0.10+")
    if version < (0, 9, 0):
        if not (v1 == _V1_ON and backend == "ray" and method in ("ngram", "eagle", "eagle3")):
            return PipelineVerdict(
                Severity.ERROR, True,
                f"{said} runs it on V0 here (V1 only for ngram with VLLM_USE_V1=1 and Ray), {_V0_REFUSES}",
                "use vLLM 0.10+")
    elif version < (0, 9, 1):
        if backend not in ("ray", "mp", "external_launcher"):
            return PipelineVerdict(
                Severity.ERROR, True,
                f"{said} falls back to its V0 engine without --distributed-executor-backend, {_V0_REFUSES}",
                "add --distributed-executor-backend mp (or ray), use vLLM 0.9.1+")
    # vLLM: "not ideal if there are many layers in the draft model" (docs/findings.md, SD412); ngram has no
    # draft model: it only drafts there, while the other stages wait.
    if method == "ngram" or method is None:
        return PipelineVerdict(Severity.WARNING, False,
                               f"{said} drafts {method or 'tokens'} on the last stage only, the other stages wait")
    return PipelineVerdict(Severity.WARNING, False,
                           f"{said} puts the whole {method} draft on the last stage, which needs memory there")


# Pooling models generate no tokens, so there is nothing to draft. `--task` (TaskOption, vllm/config.py:72
# at 0.8.5 and still vllm/config/model.py:78 at 0.12.0): embedding, embed, classify, score, reward;
# `--runner pooling` (RunnerOption, vllm/config.py:100 at 0.10.0); `--convert` (ConvertOption,
# vllm/config/__init__.py:97 at 0.10.1: embed, classify, reward; 0.14.1 adds mm_encoder_only, an encoder
# alone; 0.18.1 has embed and classify).
POOLING_TASKS = frozenset({"embedding", "embed", "classify", "score", "reward"})
POOLING_RUNNERS = frozenset({"pooling"})
POOLING_CONVERTS = frozenset({"embed", "classify", "reward", "mm_encoder_only"})
# KServe's Hugging Face runtime without the vLLM backend: `--task` is its own MLTask
# (python/huggingfaceserver/huggingfaceserver/task.py); these run an encoder model, not vLLM's generator.
KSERVE_ENCODER_TASKS = frozenset({"sequence_classification", "token_classification", "fill_mask",
                                  "text_embedding"})

# Options of `vllm serve` that take no value, so the word after them is the next argument (the model, when
# it is written after the options): vllm_options' `no_value`, read from the parser of every release 0.10.2-0.34.0;
# here only what that table cannot hold: `--version`, and a flag of the releases before 0.10.2
# (`--enable-reasoning`, 0.8-0.9's frontend), whose servers the function still writes for.
OLDER_NO_VALUE = frozenset({"--version", "--enable-reasoning"})


def takes_no_value(option: str) -> bool:
    """Whether `option` (dashes, no `=value`) is a vLLM flag without a value, the next word not its value:
    a flag of vllm_options (every release's parser) or OLDER_NO_VALUE, a short option with its value attached
    (`-O3`), or an abbreviation argparse resolves to flags only (`--trust-remote`)."""
    name = "--" + option[2:].replace("_", "-") if option.startswith("--") else option
    if name in OLDER_NO_VALUE:
        return True
    table = options()
    if name in table.no_value or name in table.value:
        return name in table.no_value
    if not name.startswith("--"):
        # argparse's single-dash form: `-O3` is `-O 3` (the longest short option it starts with)
        return any(name.startswith(short) and len(name) > len(short)
                   for short in table.value if not short.startswith("--"))
    found = {o for o in table.no_value | table.value if o.startswith(name)}
    return bool(found) and found <= table.no_value


# vLLM's own images, whose tags are the release they ship (`vllm/vllm-openai:v0.10.1.1`,
# `docker.io/vllm/vllm-openai:v0.8.5.post1`); an image of another project (`ghcr.io/llm-d/llm-d:v0.2.0`,
# `quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.3`) is versioned its own way.
_OFFICIAL = r"(?:(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)/)?vllm/vllm-[a-z0-9-]+"
_RELEASE_TAG = r"v?(\d+\.\d+(?:\.\d+)*(?:\.post\d+)?)"


def image_release(image: str | None) -> str | None:
    """The vLLM release an official vLLM image's tag names (`0.10.2`), or None (no tag, `latest`, a digest
    alone, another project's image)."""
    if not isinstance(image, str):
        return None
    name = image.split("@", 1)[0]
    repo, sep, tag = name.rpartition(":")
    if not sep or "/" in tag or not re.fullmatch(_OFFICIAL, repo):
        return None
    m = re.fullmatch(_RELEASE_TAG, tag)
    return m.group(1) if m else None
