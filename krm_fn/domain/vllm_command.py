"""A container's `command` and `args` -> does it run vLLM, with which model, and the speculative config
written into (or taken out of) its arguments: the invocations it recognises, where the argument goes and what
is left unchanged are in docs/plain-vllm.md. Prefixes that do not change what runs are looked through
(`VAR=value`, `exec`, `env`, `nohup`, `tini`, `dumb-init`, `--`). Removal takes out exactly the text injected,
so enable -> disable gives back the original lists and script byte for byte. Pure: lists in, new lists out,
findings as data.
"""

import json
import os
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from . import shellwords
from ..text.results import Finding, finding
from . import vllm_releases as releases
from .presets import DEFAULT_TABLE, PresetTable, Resolution, fallback
from .vllm_combos import Server, judge, said
from .vllm_model import decide_model, unknowable
from .vllm_schema import (DEFAULT_VLLM_VERSION, beyond, check_speculative_config, dotted_config, facts, named,
    newer_release, parse_version, refusal, shown)


FLAG = "--speculative-config"
# Every spelling vLLM reads as the speculative config (docs/plain-vllm.md: a unique prefix too, argparse's
# allow_abbrev). FlexibleArgumentParser turns `_` into `-` in a name up to its first `.`
# (vllm/utils/argparse_utils.py:231-246 at 0.12.0: `pattern = re.compile(r"(?<=--)[^\.]*")`).
_OVERRIDE_NAMES = ("--speculative-config", "-sc")
_OVERRIDE_PREFIXES = ("--speculative-config.",)
_ABBREVIATION_FROM = "--specu"
_PIPELINE = "--pipeline-parallel-size"
# Settings files read at start-up: vLLM's `--config` YAML (its keys are inserted before the command line's, so
# an injected flag would silently beat a `speculative-config` there) and KAITO's inference_api.py file.
_CONFIG_FILE_FLAGS = ("--config", "--kaito-config-file")
# The speculative flags vLLM 0.8.3 removed ("unrecognized arguments"); the list is vLLM 0.8.2's
# arg_utils.py speculative group.
REMOVED_FLAGS = frozenset(
    spelling
    for flag in ("speculative-model", "speculative-model-quantization", "num-speculative-tokens",
                 "speculative-disable-mqa-scorer", "speculative-draft-tensor-parallel-size",
                 "speculative-max-model-len", "speculative-disable-by-batch-size", "ngram-prompt-lookup-max",
                 "ngram-prompt-lookup-min", "spec-decoding-acceptance-method",
                 "typical-acceptance-sampler-posterior-threshold", "typical-acceptance-sampler-posterior-alpha",
                 "disable-logprobs-during-spec-decoding")
    for spelling in ("--" + flag, "--" + flag.replace("-", "_"))
) | {"-spec-draft-tp"}

_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh"})
_WRAPPERS = frozenset({"env", "tini", "tini-static", "dumb-init"})   # may take options and VAR=value
_PREFIXES = frozenset({"exec", "nohup", "time", "command", "--", "!", "{", "then", "do", "else", "if",
                       "elif", "while", "until"})
_PYTHON = re.compile(r"python([0-9]+(\.[0-9]+)?)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Modules that start a server on vLLM's engine arguments (`--model`, no positional): the OpenAI server, the
# gRPC server (vllm/entrypoints/grpc_server.py:159 at 0.19.0: `AsyncEngineArgs.add_cli_args(parser)`) and
# the demo server.
_MODULES = {"vllm.entrypoints.openai.api_server": "api_server", "vllm.entrypoints.grpc_server": "grpc_server",
            "vllm.entrypoints.api_server": "api_server"}
# Images whose ENTRYPOINT is vLLM's OpenAI server, so `args` alone are its arguments: vLLM's `vllm-openai`
# (also as a mirror, `lmcache/vllm-openai`, or `vllm-openai-rocm`) and the builds named after it,
# `vllm-openai-ubi9` and `vllm-cpu-openai-ubi9` (rh-aiservices-bu/llm-on-openshift: `ENTRYPOINT ["python3",
# "-m", "vllm.entrypoints.openai.api_server"]`).
_IMAGE = re.compile(r"(^|/)[^/:@]*vllm(-[a-z0-9.]+)*-openai(-[a-z0-9.]+)*([:@]|$)")


class Where(NamedTuple):
    """An element of the container's `command` or `args`."""
    list: str      # "command" | "args"
    position: int

    @property
    def field(self) -> str:
        return f"{self.list}[{self.position}]"


class Inspection(NamedTuple):
    """What a container runs and, for a vLLM server, what its arguments say (read_arguments): the model as vLLM
    reads it and every speculative spelling."""
    runs_vllm: bool
    form: str = ""              # "serve" | "api_server" | "kaito" | "image"
    script: Where | None = None  # the `sh -c` script holding the invocation, for shell forms
    model: str | None = None
    model_index: int | None = None  # index of the model's element among the arguments
    model_at: str = ""          # field of the model (`command[2]`; the script's for shell forms)
    unknown_model: str | None = None  # why the model cannot be known at render time
    overrides: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()  # the files named by --config / --kaito-config-file
    expansions: tuple[str, ...] = ()  # arguments (not an option's value) that expand only at run time
    override_value: str | None = None  # the JSON of the last `--speculative-config[=]X` (vLLM keeps it)
    # The elements (indexes into command + args) of the one whole-JSON spelling, when there is exactly one and
    # nothing in it expands at run time; for a script, the text (start, end) that takes it out.
    override_at: tuple[int, ...] = ()
    override_span: tuple[int, int] | None = None
    dotted: tuple[tuple[str, str], ...] = ()  # `--speculative-config.<key>` (name, value text), in order
    shorthands: tuple[tuple[str, str], ...] = ()  # `--spec-method X` …: (flag, value text)
    pipeline: int | None = None  # --pipeline-parallel-size / -pp, when more than 1
    pipeline_flag: str = ""
    pooling: str = ""           # `--task embed`: the arguments that make it a pooling server
    backend: str | None = None  # --distributed-executor-backend, as given (vLLM 0.8-0.9 decide the engine by it)
    problem: Finding | None = None  # set when the command must not be edited (SD705, SD706, SD707)
    target: str = ""            # field the injection goes to: `args`, `command`, or the script's
    insert_at: int = -1         # shell forms: the offset in the script the argument is inserted at
    model_option: bool = False  # `vllm serve` given the word `--model` (vLLM before 0.11.1 exits on it)
    server: Server = Server()   # the settings vllm_combos judges beside the speculative config

    @property
    def editable(self) -> bool:
        return self.runs_vllm and self.problem is None


class Reconciled(NamedTuple):
    """A container after the decision: its new `command`/`args` (the same objects when unchanged), the JSON
    the function's own argument now carries (None: none), and what to report."""
    command: Any
    args: Any
    injected: str | None
    inspection: Inspection
    findings: tuple[Finding, ...] = ()


def _normalised(name: str) -> str:
    """An option's name as vLLM's parser reads it: `_` -> `-` up to the first `.` (`--speculative_config.x_y`
    -> `--speculative-config.x_y`)."""
    if not name.startswith("--"):
        return name
    head, dot, tail = name[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + tail


def _is_override(name: str) -> bool:
    """The whole-JSON spellings: `--speculative-config`, `-sc`, and a unique prefix (`--speculative-conf`)."""
    return name in _OVERRIDE_NAMES or (name.startswith(_ABBREVIATION_FROM) and _OVERRIDE_NAMES[0].startswith(name))


def _shorthand(name: str) -> str | None:
    """`--spec-method` / `--spec-model` / `--spec-tokens` (or a unique prefix of one: `--spec-t`)."""
    if not name.startswith("--spec-") or len(name) <= len("--spec-"):
        return None
    found = [flag for flag in releases.SPEC_SHORTHANDS if flag.startswith(name)]
    return found[0] if len(found) == 1 else None


def _positional(values: list[str]) -> int | None:
    """The index of the first positional argument (the model of `vllm serve`), which argparse takes wherever
    it stands among the options: the first word that is no option and no option's value. An option takes a
    value unless it is written `--x=v` or is one of vLLM's flags without one (vllm_releases)."""
    i = 0
    while i < len(values):
        value = values[i]
        if value == "--":
            return i + 1 if i + 1 < len(values) else None
        if value.startswith("-") and value != "-":
            name = value.partition("=")[0]
            i += 1 if "=" in value or releases.takes_no_value(name) else 2
            continue
        return i
    return None


class _Option(NamedTuple):
    """An argument read as an option (every argument is: a model or a value simply matches no name)."""
    at: int             # its index among the arguments
    name: str           # as written, before any `=`
    norm: str           # as vLLM's parser reads the name (_normalised)
    inline: bool        # written `--x=value`
    value: str | None   # after `=`, else the next argument (None: the last argument)


def _options(values: list[str]) -> list[_Option]:
    out = []
    for i, value in enumerate(values):
        name, eq, rest = value.partition("=")
        following = rest if eq else values[i + 1] if i + 1 < len(values) else None
        out.append(_Option(i, name, _normalised(name), bool(eq), following))
    return out


def read_arguments(values: list[str], positional: bool = True,
                   model_flags: tuple[str, ...] = ("--model",)) -> Inspection:
    """The model and the speculative spellings among a vLLM server's arguments. `positional`: the model
    may be a positional argument (`vllm serve MODEL`, before or after the options), which wins over
    `--model` as in vLLM's serve command."""
    options = _options(values)
    model, index = _model(options, model_flags)
    at = _positional(values) if positional else None
    if at is not None:
        model, index = values[at], at
    return Inspection(True, model=model, model_index=index, **_speculative(options), **_settings(options),
                      server=_server(options))


def _model(options: list[_Option], model_flags: tuple[str, ...]) -> tuple[str | None, int | None]:
    """The model a model option names (the last one), and the index of its element."""
    model = index = None
    for o in options:
        if o.name in model_flags and o.value is not None:
            model, index = o.value, o.at if o.inline else o.at + 1
    return model, index


def _speculative(options: list[_Option]) -> dict[str, Any]:
    """Inspection's fields for the speculative spellings: every name (`overrides`), the flags vLLM 0.8.3
    removed, the last whole-JSON value and, when there is one such spelling, its elements; the dotted
    `--speculative-config.<key>` and the `--spec-*` shorthands with their values."""
    overrides: list[str] = []
    removed: list[str] = []
    dotted: list[tuple[str, str]] = []
    shorthands: list[tuple[str, str]] = []
    whole: list[tuple[int, ...]] = []
    given = None
    for o in options:
        if _is_override(o.norm):
            overrides.append(o.name)
            given = o.value if o.value is not None else given
            whole.append((o.at,) if o.inline else (o.at, o.at + 1) if o.value is not None else ())
        elif o.norm.startswith(_OVERRIDE_PREFIXES):
            overrides.append(o.name)
            if o.value is not None:
                dotted.append((o.norm, o.value))
        flag = _shorthand(o.norm)
        if flag is not None:
            overrides.append(o.name)
            if o.value is not None:
                shorthands.append((flag, o.value))
        if o.name in REMOVED_FLAGS:
            removed.append(o.name)
    return dict(overrides=tuple(dict.fromkeys(overrides)), removed=tuple(dict.fromkeys(removed)),
                override_value=given, override_at=whole[0] if len(whole) == 1 else (), dotted=tuple(dotted),
                shorthands=tuple(shorthands))


def _settings(options: list[_Option]) -> dict[str, Any]:
    """Inspection's fields for the other settings that decide what is written: the config files read, the
    pipeline stages (when more than 1), the executor backend and what makes it a pooling server."""
    files: list[str] = []
    pipeline = backend = None
    pipeline_flag = pooling = ""
    for o in options:
        if o.norm in _CONFIG_FILE_FLAGS:
            files.append(o.value or "")
        if o.value is None:
            continue
        stages = _stages(o.value) if o.norm in (_PIPELINE, "-pp") else None
        if stages is not None and stages > 1:
            pipeline, pipeline_flag = stages, f"{o.name} {o.value}"
        if o.norm == "--distributed-executor-backend":
            backend = o.value.strip()
        if not pooling and _pooling(o.norm, o.value):
            pooling = f"{o.name} {o.value}"
    return dict(config_files=tuple(files), pipeline=pipeline, pipeline_flag=pipeline_flag, pooling=pooling,
                backend=backend)


# Flags without a value vllm_combos judges, their `--no-` forms (BooleanOptionalAction) turning them off again.
_SERVER_FLAGS = {"--async-scheduling": "async_scheduling", "--kv-sharing-fast-prefill": "kv_sharing_fast_prefill",
                 "--enable-lora": "lora", "--disable-log-stats": "disable_log_stats"}
_SERVER_VALUES = {"--logits-processors": "logits_processors", "--watermark-config": "watermark"}
_SERVER_NUMBERS = {"--max-num-seqs": "max_num_seqs", "--max-num-batched-tokens": "max_num_batched_tokens"}


def _server(options: list[_Option]) -> Server:
    """The settings beside the speculative config that vllm_combos judges, the last of each as argparse keeps it
    (the flag as written, with its value where it takes one)."""
    found: dict[str, Any] = {}
    for o in options:
        if o.norm in _SERVER_FLAGS and not o.inline:
            found[_SERVER_FLAGS[o.norm]] = o.name
        elif o.norm.startswith("--no-") and "--" + o.norm[5:] in _SERVER_FLAGS:
            found.pop(_SERVER_FLAGS["--" + o.norm[5:]], None)
        elif o.value is None:
            continue
        elif o.norm in _SERVER_VALUES:
            found[_SERVER_VALUES[o.norm]] = o.name
        elif o.norm in _SERVER_NUMBERS:
            found[_SERVER_NUMBERS[o.norm]] = _stages(o.value)
        elif o.norm == "--max-model-len":
            length = _stages(o.value)
            found["max_model_len"] = None if length is None else (length, f"{o.name} {o.value}")
        elif o.norm in ("--data-parallel-size", "-dp"):
            size = _stages(o.value)
            found["data_parallel"] = None if size is None else (size, f"{o.name} {o.value}")
    return Server(**found)


def _stages(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _pooling(norm: str, value: str) -> bool:
    """Whether the option makes the server a pooling (or encoder) one: `--task embed`, `--runner pooling` …"""
    return ((norm == "--task" and value in releases.POOLING_TASKS | releases.KSERVE_ENCODER_TASKS)
            or (norm == "--runner" and value in releases.POOLING_RUNNERS)
            or (norm == "--convert" and value in releases.POOLING_CONVERTS))


# --- Kubernetes' $(VAR) expansion of command and args -------------------------------------------------------
# Mirrored from kubernetes' expand.go byte for byte (docs/plain-vllm.md, "Kubernetes' expansion first"): `$(`
# without `)` and a `$` before anything else stay as written too.
def k8s_expand(text: str, mapping: dict[str, str]) -> str:
    """`Expand(input, MappingFuncFor(mapping))` of expand.go: the names not in `mapping` stay `$(NAME)`."""
    if "$" not in text:
        return text
    out: list[str] = []
    checkpoint = 0
    cursor = 0
    while cursor < len(text):
        if text[cursor] == "$" and cursor + 1 < len(text):
            out.append(text[checkpoint:cursor])
            read, is_var, advance = _read_variable_name(text[cursor + 1:])
            out.append((mapping[read] if read in mapping else f"$({read})") if is_var else read)
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    return "".join(out) + text[checkpoint:]


def _read_variable_name(text: str) -> tuple[str, bool, int]:
    # tryReadVariableName: the first rune decides (Python indexes by code point, as utf8.DecodeRuneInString).
    first = text[0]
    if first == "$":
        return "$", False, 1                # escaped operator
    if first == "(":
        close = text.find(")", 1)
        if close != -1:
            return text[1:close], True, close + 1
        return "$(", False, 1               # incomplete reference
    return "$" + first, False, 1


def kubernetes_env(env: Any) -> dict[str, str]:
    """The variables a container's `env` defines with a literal `value`, as the kubelet's
    makeEnvironmentVariables builds them (docs/plain-vllm.md); a later `valueFrom` of the same name takes it
    away. `envFrom` can define only names not given here."""
    out: dict[str, str] = {}
    for var in env if isinstance(env, list) else []:
        if not isinstance(var, dict) or not isinstance(var.get("name"), str):
            continue
        value = var.get("value")
        if var.get("valueFrom") is not None:
            out.pop(var["name"], None)
        elif isinstance(value, str) or value is None:
            out[var["name"]] = k8s_expand(value or "", out)
    return out


def _skip_prefixes(values: list[str], i: int = 0) -> int:
    while i < len(values):
        value = values[i]
        base = os.path.basename(value)
        if _ASSIGNMENT.match(value) or value in _PREFIXES or base in ("exec", "nohup"):
            i += 1
        elif base in _WRAPPERS:
            i += 1
            while i < len(values) and (values[i].startswith("-") or _ASSIGNMENT.match(values[i])):
                i += 1
        else:
            break
    return i


def head(values: list[str]) -> tuple[str, int] | None:
    """(form, index of the first vLLM argument) when `values` start a vLLM server, else None."""
    i = _skip_prefixes(values)
    if i >= len(values):
        return None
    base = os.path.basename(values[i])
    if base == "vllm":
        return ("serve", i + 2) if values[i + 1:i + 2] == ["serve"] else None
    if _PYTHON.fullmatch(base):
        j = i + 1
        while j < len(values) and values[j].startswith("-") and values[j] != "-m":
            j += 2 if values[j] in ("-W", "-X") else 1
        if values[j:j + 1] == ["-m"] and j + 1 < len(values) and values[j + 1] in _MODULES:
            return _MODULES[values[j + 1]], j + 2
        script = values[j] if j < len(values) else ""
        # KAITO's vLLM entry point (its transformers namesake, …/tfs/inference_api.py, is not vLLM)
        if script.endswith("inference_api.py") and os.path.basename(os.path.dirname(script)) == "vllm":
            return "kaito", j + 1
    return None


def _shell_script(values: list[str]) -> int | None:
    """The index of the script when `values` run `sh|bash … -c SCRIPT`, else None."""
    i = _skip_prefixes(values)
    if i >= len(values) or os.path.basename(values[i]) not in _SHELLS:
        return None
    i += 1
    has_c = False
    while i < len(values) and values[i][:1] in ("-", "+") and values[i] != "--":
        option = values[i]
        if option in ("-o", "+o"):
            i += 2
            continue
        has_c = has_c or (option.startswith("-") and "c" in option[1:])
        i += 1
    return i if has_c and i < len(values) else None


def _argv(command: Any, args: Any) -> list[tuple[Where, Any]]:
    out = [(Where("command", i), v) for i, v in enumerate(command if isinstance(command, list) else [])]
    return out + [(Where("args", i), v) for i, v in enumerate(args if isinstance(args, list) else [])]


def inspect(command: Any, args: Any, image: str | None = None, env: dict[str, str] | None = None) -> Inspection:
    """What the container runs, its command and args expanded as the kubelet does with `env`
    (kubernetes_env). Never raises: a shape it cannot follow is an Inspection with a problem."""
    if not all(v is None or isinstance(v, list) for v in (command, args)):
        return Inspection(False)   # not a container Kubernetes would accept; shape checks report it
    argv = _argv(command, args)
    values = [k8s_expand(v, env or {}) if isinstance(v, str) else str(v) for _, v in argv]
    target = "args" if isinstance(args, list) else "command"
    script_at = _shell_script(values)
    if script_at is not None:
        written = argv[script_at][1]
        return _inspect_script(argv[script_at][0], written if isinstance(written, str) else values[script_at],
                               values[script_at])
    found = head(values)
    form, start = found if found else (None, 0)
    if form is None and command is None and isinstance(args, list) and image and _IMAGE.search(image):
        form, start = "image", len(values) - len(args)
    if form is None:
        return Inspection(False)
    not_text = next((w for w, v in argv if not isinstance(v, str)), None)
    if not_text is not None:
        return Inspection(True, form, problem=finding("SD707", not_text.field, element=not_text.field))
    read = read_arguments(values[start:], positional=form in ("serve", "image"))
    model_at = argv[start + read.model_index][0].field if read.model_index is not None else ""
    # an element Kubernetes expands is not text the function wrote (remove_respelled)
    override_at = tuple(start + i for i in read.override_at)
    if any(argv[i][1] != values[i] for i in override_at):
        override_at = ()
    return _finish(read, form, values[start:], False, model_at=model_at, target=target, override_at=override_at,
                   model_option=form == "serve" and "--model" in values[start:])


def _finish(read: Inspection, form: str, texts: list[str], shell: bool, **fields: Any) -> Inspection:
    """A command line's server: its arguments as `read` says, what in them expands at run time, and `fields`
    (`model_option`: the server is `vllm serve` and one of its words, quotes removed, is `--model`)."""
    why = "no model argument" if read.model is None else unknowable(read.model)
    return read._replace(form=form, unknown_model=why, expansions=_expansions(texts, read.model_index, shell),
                         **fields)


_SINGLE_QUOTED = re.compile(r"'[^']*'")


def _expansions(texts: list[str], model_index: int | None, shell: bool) -> tuple[str, ...]:
    """The arguments that expand only at run time and may therefore carry flags of their own (`$EXTRA_ARGS`,
    `"$@"`; in an exec list Kubernetes' `$(VAR)`), leaving out the model and the value of a preceding option
    (`--port $(PORT)`): a `--speculative-config` arriving through them would be beaten by the injected one."""
    found = []
    for i, text in enumerate(texts):
        if i == model_index:
            continue
        live = _SINGLE_QUOTED.sub("", text) if shell else text
        if not ("$" in live or "`" in live) or (text.startswith("-") and "=" in text):
            continue   # nothing expands, or it expands inside one option's `=value`
        before = texts[i - 1] if i > 0 else ""
        if before.startswith("-") and "=" not in before:
            continue   # most likely that option's value
        found.append(text)
    return tuple(found)


def _servers(script: str) -> list[tuple[Any, tuple[str, int]]]:
    # only a command with "vllm" in a word can start the server: the others are not unquoted at all
    found = [(c, head([w.value for w in c.words])) for c in shellwords.commands(script)
             if any("vllm" in w.text for w in c.words)]
    return [(c, h) for c, h in found if h is not None]


def _inspect_script(at: Where, script: str, expanded: str | None = None) -> Inspection:
    """`script` as written (the argument is inserted into it) and as the kubelet expands it (what the shell
    runs: the model and the options are read from it)."""
    try:
        servers = _servers(script)
        read_from = _servers(expanded) if expanded is not None and expanded != script else servers
    except shellwords.Unreadable as exc:
        if "vllm" not in script:
            return Inspection(False)
        return Inspection(True, script=at, target=at.field,
                          problem=finding("SD706", at.field, script=at.field, reason=exc))
    if not servers:
        return Inspection(False)
    if len(servers) > 1:
        return Inspection(True, servers[0][1][0], script=at, target=at.field,
                          problem=finding("SD705", at.field, script=at.field, count=len(servers)))
    cmd, (form, start) = servers[0]
    rcmd, (rform, rstart) = read_from[0] if len(read_from) == 1 else servers[0]
    words = [w.value for w in rcmd.words[rstart:]]
    read = read_arguments(words, positional=rform == "serve")
    span = None
    if read.override_at and start == rstart and len(cmd.words) == len(rcmd.words):
        span = _cut(script, cmd.words[start - 1:], rcmd.words[start - 1:], read.override_at)
    return _finish(read, form, [w.text for w in rcmd.words[rstart:]], True, script=at, model_at=at.field,
                   target=at.field, insert_at=cmd.words[-1].end, override_at=(), override_span=span,
                   model_option=rform == "serve" and "--model" in words)


# Spaces and tabs only: a cut across lines (a line continuation) is no edit the writer makes in place.
_BLANKS = re.compile(r"[ \t]+")


def _cut(script: str, written: Any, read: Any, override_at: tuple[int, ...]) -> tuple[int, int] | None:
    """The text of `script` that takes out the words `override_at` (indexes after the first of `written`,
    the word before the server's arguments): only when those words expand to nothing else (no `$`, no
    backquote, the same as Kubernetes leaves them) and only spaces stand between them and the word before
    (cut with them) or, on a line of its own after a line continuation, the word after (cut up to it), so the
    command left is the same command without them."""
    first, last = override_at[0] + 1, override_at[-1] + 1
    if any(written[j].text != read[j].text or "$" in written[j].text or "`" in written[j].text
           for j in range(first, last + 1)):
        return None
    if not all(_BLANKS.fullmatch(script[written[j - 1].end:written[j].start]) for j in range(first + 1, last + 1)):
        return None
    if _BLANKS.fullmatch(script[written[first - 1].end:written[first].start]):
        return written[first - 1].end, written[last].end
    if last + 1 < len(written) and _BLANKS.fullmatch(script[written[last].end:written[last + 1].start]):
        return written[first].start, written[last + 1].start
    return None


def shell_argument(config_json: str) -> str:
    """The text inserted into a script: the JSON single-quoted, so the shell passes it through untouched."""
    if "'" in config_json:
        raise ValueError("a speculative config holding a single quote cannot be single-quoted in a script")
    return f" {FLAG}='{config_json}'"


# Text a shell re-parse leaves as it is: KServe's LLMInferenceService template runs `eval "exec vllm serve …
# $@"`, so each argument is parsed again by bash (quotes removed, `{a,b}` brace-expanded).
_EVAL_SAFE = re.compile(r"[A-Za-z0-9_.:/+@%-]+")


def dotted_arguments(config_json: str) -> list[str] | None:
    """The config as vLLM's dotted arguments, `--speculative-config.<key>=<value>`, each a plain word that
    survives a shell re-parse; vLLM merges them into the same object (FlexibleArgumentParser: each value
    through json.loads, else the text). None when a value would not come back as it is (a nested object, a
    string json.loads would read as a number, text a shell would change)."""
    try:
        config = json.loads(config_json)
    except ValueError:
        return None
    if not isinstance(config, dict) or not config:
        return None
    out = []
    for key, value in config.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (int, float)):
            text = json.dumps(value)
        elif isinstance(value, str):
            text = value
            try:
                if json.loads(text) != text:
                    return None
            except ValueError:
                pass
        else:
            return None
        if not isinstance(key, str) or not _EVAL_SAFE.fullmatch(key) or not _EVAL_SAFE.fullmatch(text):
            return None
        out.append(f"{FLAG}.{key}={text}")
    return out


def exec_argument(config_json: str) -> str:
    return f"{FLAG}={config_json}"


def inject(command: Any, args: Any, config_json: str, inspection: Inspection) -> tuple[Any, Any]:
    """New `command`/`args` with the speculative config added (the inputs are not modified).
    `inspection` is `inspect(command, args, image)` and must be editable."""
    if not inspection.editable:
        raise ValueError("inject needs an editable vLLM invocation")
    if inspection.form == "kserve-template":
        return command, [*(args or []), *(dotted_arguments(config_json) or [])]
    if inspection.script is None:
        if inspection.target == "args":
            return command, [*(args or []), exec_argument(config_json)]
        return [*command, exec_argument(config_json)], args
    at = inspection.script
    script = (command if at.list == "command" else args)[at.position]
    end = inspection.insert_at
    edited = script[:end] + shell_argument(config_json) + script[end:]
    return _replace(command, args, at, edited)


def _replace(command: Any, args: Any, at: Where, value: str) -> tuple[Any, Any]:
    if at.list == "command":
        return [*command[:at.position], value, *command[at.position + 1:]], args
    return command, [*args[:at.position], value, *args[at.position + 1:]]


def remove(command: Any, args: Any, config_json: str) -> tuple[Any, Any, bool]:
    """`command`/`args` without the argument `inject` wrote for `config_json` (its last occurrence), and
    whether it was there. The text removed is exactly the text inserted."""
    exec_form, shell_form = exec_argument(config_json), shell_argument_or_none(config_json)
    dotted = dotted_arguments(config_json)
    if dotted and isinstance(args, list) and command is None:
        for i in reversed(range(len(args) - len(dotted) + 1)):
            if args[i:i + len(dotted)] == dotted:
                return command, [*args[:i], *args[i + len(dotted):]], True
    argv = _argv(command, args)
    for at, value in reversed(argv):
        if value == exec_form:
            lst = command if at.list == "command" else args
            rest = [*lst[:at.position], *lst[at.position + 1:]]
            return (rest, args, True) if at.list == "command" else (command, rest, True)
        if shell_form and isinstance(value, str) and shell_form in value:
            cut = value.rindex(shell_form)
            return (*_replace(command, args, at, value[:cut] + value[cut + len(shell_form):]), True)
    return command, args, False


def same_config(text: str, other: str) -> bool:
    """Whether two JSON texts are one value to vLLM (which json.loads the flag): spacing and key order aside;
    1 and 1.0, or true and 1, stay different."""
    try:
        return json.dumps(json.loads(text), sort_keys=True) == json.dumps(json.loads(other), sort_keys=True)
    except (ValueError, RecursionError):
        return False


def remove_respelled(command: Any, args: Any, config_json: str, inspection: Inspection) -> tuple[Any, Any] | None:
    """`command`/`args` without the container's speculative config when it is `config_json` written another
    way (the function's own argument edited by hand: other spacing, `--speculative-config X` as two
    elements, `-sc`); None when it is another config, or cannot be taken out as safely as `remove` takes out
    its own text (not the only spelling, expanded at run time, in a script not cut out within its line)."""
    if (not inspection.editable or inspection.override_value is None or inspection.dotted
            or inspection.shorthands or not same_config(inspection.override_value, config_json)):
        return None
    if inspection.script is not None:
        if inspection.override_span is None:
            return None
        at, (start, end) = inspection.script, inspection.override_span
        script = (command if at.list == "command" else args)[at.position]
        return _replace(command, args, at, script[:start] + script[end:])
    if not inspection.override_at:
        return None
    argv = _argv(command, args)
    drop = {argv[i][0] for i in inspection.override_at}
    kept = {name: [v for i, v in enumerate(lst) if Where(name, i) not in drop] if isinstance(lst, list) else lst
            for name, lst in (("command", command), ("args", args))}
    return kept["command"], kept["args"]


def shell_argument_or_none(config_json: str) -> str | None:
    try:
        return shell_argument(config_json)
    except ValueError:
        return None


# What reconcile says of a container that no release decides (SD709: a settings file; SD711: a pooling model).
_NOT_BY_RELEASE = frozenset({"SD709", "SD711"})


class Release(NamedTuple):
    """The vLLM a container runs, and where that was read (for the messages): `version` as written
    (`0.10.2`), `source` ("image vllm/vllm-openai:v0.10.2", "the vllmVersion setting", …). `unpinned`: where
    nothing names it (the default, assumed), what says so on every container judged by it (SD735)."""
    version: str = DEFAULT_VLLM_VERSION
    source: str = "the default vllmVersion, the vLLM of KAITO's image"
    unpinned: Finding | None = None

    @property
    def number(self) -> tuple[int, int, int]:
        return parse_version(self.version)

    @property
    def shown(self) -> str:
        return shown(self.number)

    @property
    def said(self) -> str:
        """The release as messages name it: for one newer than every release modelled, the newest (SD622)."""
        known = beyond(self.number)
        if known is not None:
            return f"vLLM {named(known)} (the newest release modelled; {self.source} names vLLM {self.shown})"
        return f"vLLM {self.shown} ({self.source})"


DEFAULT_RELEASE = Release()  # the vllmVersion default's


def reconcile(command: Any, args: Any, *, enabled: bool, recorded: str | None = None,
              table: PresetTable = DEFAULT_TABLE, image: str | None = None,
              inspector: Callable[[Any, Any], Inspection] | None = None, env: dict[str, str] | None = None,
              release: Release = DEFAULT_RELEASE, pipeline: tuple[int, str] | None = None,
              mounted: tuple[str, str | None] | None = None) -> Reconciled:
    """One container, decided: with `enabled`, the speculative config for its model is injected (unless the
    user set one, the command cannot be edited, or the vLLM it runs would refuse it); without, the
    function's own argument is removed. `recorded` is the JSON the pod template's INJECTED_ANNOTATION says
    the function injected earlier. `inspector` replaces `inspect` for argument lists that are not a command
    line (KServe's `model.args`). `env`: the container's literal variables (kubernetes_env); `release`: the
    vLLM it runs; `pipeline`: pipeline stages the workload sets outside the arguments (KServe's
    `workerSpec.pipelineParallelSize`), with the field saying so. `mounted`: (a path, the model the platform
    downloads there): an LLMInferenceService's /mnt/models is its spec.model.uri."""
    def look(command: Any, args: Any) -> Inspection:
        return inspector(command, args) if inspector else inspect(command, args, image, env)

    c = _unrecorded(command, args, recorded, enabled, look)
    insp = c.inspection
    if c.changed_by_hand:
        return c.unchanged(finding("SD733", insp.target, config=recorded, flags=", ".join(insp.overrides)))
    if not insp.runs_vllm or not enabled:
        return c.bare()
    out = _left_as_is(c, release, env)
    if out is None:
        out = _configured(c._replace(inspection=_mounted_model(insp, mounted)), table, release, env, pipeline)
    # A verdict assumed the release: the config chosen for it, the user's judged by it, or a finding of it (not a
    # command that cannot be read, a settings file or a pooling model alone, where nothing depends on it).
    judged = (insp.problem is None and (out.injected is not None or bool(insp.overrides)
                                        or any(f.id not in _NOT_BY_RELEASE for f in out.findings)))
    if release.unpinned is None or not judged:
        return out
    return out._replace(findings=(release.unpinned, *out.findings))


class _Container(NamedTuple):
    """A container being reconciled: its `command`/`args` as written and without the function's own
    argument (`base_command`/`base_args`), what it runs then, and what the record says of it."""
    command: Any
    args: Any
    base_command: Any
    base_args: Any
    inspection: Inspection
    recorded: str | None = None
    ours: bool = False       # the function's own argument was there (as written or respelled): taken out
    described: bool = False  # a config the record describes stays in the arguments: the record stays with it
    changed_by_hand: bool = False  # disabled, but the record's config was changed by hand: both stay (SD733)

    @property
    def kept(self) -> str | None:
        """The record, where it still says what the arguments hold."""
        return self.recorded if self.ours or self.described else None

    def unchanged(self, *findings: Finding) -> Reconciled:
        """The command as written, the record kept where it describes what is there."""
        return Reconciled(self.command, self.args, self.kept, self.inspection, findings)

    def bare(self, *findings: Finding) -> Reconciled:
        """The command without the function's argument, and nothing added."""
        return Reconciled(self.base_command, self.base_args, None, self.inspection, findings)


def _unrecorded(command: Any, args: Any, recorded: str | None, enabled: bool,
                look: Callable[[Any, Any], Inspection]) -> _Container:
    """What the record and the user's own config mean: the function's argument taken out (as written, every
    copy, or respelled), or, where the record's config is there in a spelling that cannot be taken out, left
    with its record (`described`, or `changed_by_hand` when disabled)."""
    if not recorded:
        return _Container(command, args, command, args, look(command, args))
    base_command, base_args, ours = _remove_every_copy(command, args, recorded)
    insp = look(base_command, base_args)
    c = _Container(command, args, base_command, base_args, insp, recorded, ours)
    if not insp.runs_vllm or (ours and not insp.overrides):
        return c
    respelled = remove_respelled(base_command, base_args, recorded, insp)
    if respelled is not None:
        return c._replace(base_command=respelled[0], base_args=respelled[1], inspection=look(*respelled), ours=True)
    if ours:
        return c   # beside the function's own, taken out: a config of the user's, theirs to keep
    if not enabled and insp.overrides:
        # Dropping the record here would leave the pods speculating with the config read as the user's
        # own from then on (SD703), never taken out again: both stay, and the user is told.
        return c._replace(changed_by_hand=True)
    return c._replace(described=insp.override_value is not None and same_config(insp.override_value, recorded))


def _remove_every_copy(command: Any, args: Any, recorded: str) -> tuple[Any, Any, bool]:
    """`remove` until the recorded text is gone: the same text pasted again is the function's too (one copy
    left would keep it speculating)."""
    ours = False
    while True:
        without_command, without_args, found = remove(command, args, recorded)
        if not found:
            return command, args, ours
        command, args, ours = without_command, without_args, True


def _left_as_is(c: _Container, release: Release, env: dict[str, str] | None = None) -> Reconciled | None:
    """The refusals that leave the command as it is: a command that cannot be edited, the user's own config
    (or the flags vLLM 0.8.3 removed), a settings file, a pooling model, a release without the flag. None:
    a config is chosen."""
    insp = c.inspection
    if insp.problem is not None:
        return c.unchanged(insp.problem)
    if insp.removed and release.number < releases.OLD_FLAGS_REMOVED_IN:
        # vLLM 0.5 to 0.8.2 take these flags: the user's own speculative setting, in that release's spelling
        return c.bare(finding("SD703.old-flags", insp.target, flags=", ".join(insp.removed), release=release.said))
    if insp.removed:
        return c.unchanged(finding("SD704", insp.target, flags=", ".join(insp.removed)))
    if insp.overrides:
        return Reconciled(c.base_command, c.base_args, c.recorded if c.described else None, insp,
                          (finding("SD703.override", insp.target, flags=", ".join(insp.overrides)),
                           *_override_checks(insp, release), *_launch_refusals(insp, release), *_newer(insp, release),
                           *combinations(insp, release, env, _user_config(insp))))
    if insp.config_files:
        return c.unchanged(finding("SD709", insp.target, files=", ".join(insp.config_files)),
                           *_launch_refusals(insp, release))
    if insp.pooling:
        return c.bare(finding("SD711", insp.target, arguments=insp.pooling), *_launch_refusals(insp, release))
    if release.number < releases.JSON_FLAG_SINCE:
        return c.bare(finding("SD712.nothing-added", insp.target, release=release.said))
    return None


def _mounted_model(insp: Inspection, mounted: tuple[str, str | None] | None) -> Inspection:
    """The model read as the one the platform downloads where the arguments name its mount path."""
    if mounted is None or insp.model is None or insp.model.rstrip("/") != mounted[0]:
        return insp
    return insp._replace(model=mounted[1], unknown_model="no spec.model.uri" if mounted[1] is None
                         else unknowable(mounted[1]))


def _configured(c: _Container, table: PresetTable, release: Release, env: dict[str, str] | None,
                pipeline: tuple[int, str] | None) -> Reconciled:
    """The config chosen for the container's model and written, unless the release refuses it (SD714) or
    refuses speculative decoding under the pipeline parallelism the workload sets (SD734)."""
    insp = c.inspection
    resolution, chosen, refused = _chosen(insp, table, release)
    if refused:
        return c.bare(finding("SD714", insp.target, config=resolution.json, release=release.said, reason=refused))
    stages = (insp.pipeline, insp.pipeline_flag) if insp.pipeline else pipeline
    findings = [*_launch_refusals(insp, release), *_newer(insp, release), *chosen]
    if stages is not None:
        # vllm_releases.pipeline_verdict holds the facts and their sources; the catalogue words each weight.
        verdict = releases.pipeline_verdict(release.number, release.said, insp.backend,
                                            (env or {}).get("VLLM_USE_V1"), resolution.method)
        if verdict.refuses:
            return c.bare(finding("SD734", insp.target, stages=stages[1], verdict=verdict.text, fix=verdict.fix))
        findings.append(finding("SD715", insp.target, stages=stages[1], verdict=verdict.text))
    combos = combinations(insp, release, env, json.loads(resolution.json))
    if any(f.id == "SD625" for f in combos):
        return c.bare(*combos)   # the release exits with the config chosen beside these settings: nothing added
    findings += combos
    if insp.expansions:
        findings.append(finding("SD710", insp.target, expansions=" ".join(insp.expansions)))
    return _written(c, resolution.json, findings)


def _chosen(insp: Inspection, table: PresetTable, release: Release) -> tuple[Resolution, list[Finding], str]:
    """The config for the container's model (SD701; SD702 for a model not known at render time), its
    fallback where the release refuses the tuned one (SD713), and why the release refuses the config chosen
    ("" : it takes it)."""
    if insp.unknown_model is None and insp.model is not None:
        decision = decide_model(insp.model, table)
        resolution = decision.resolution
        kind = "tuned" if resolution.tuned else "not tuned, universal fallback"
        found = [finding("SD701", insp.target, model=insp.model, key=decision.key, kind=kind, config=resolution.json)]
    else:
        resolution = fallback(table)
        found = [finding("SD702", insp.model_at or insp.target, reason=insp.unknown_model, config=resolution.json)]
    refused = refusal(resolution.json, release.version)
    if refused and resolution.tuned:
        # The fallback runs where the tuned config is refused, as decide.py's SD308 for KAITO (SD713).
        tuned = resolution.json
        resolution = fallback(table, resolution.preset, resolution.canonical)
        found.append(finding("SD713", insp.target, release=release.said, tuned=tuned, config=resolution.json))
        refused = refusal(resolution.json, release.version)
    return resolution, found, refused


def _written(c: _Container, config: str, findings: list[Finding]) -> Reconciled:
    """The container with `config` in its arguments: as it is when the function's own argument already says
    it; unchanged where the config cannot be written in the form the command needs (SD708)."""
    insp = c.inspection
    if c.ours and c.recorded == config:
        return c.unchanged(*findings)
    if insp.form == "kserve-template" and dotted_arguments(config) is None:
        return c.unchanged(finding("SD708.not-dotted", insp.target, config=config))
    if insp.script is not None and shell_argument_or_none(config) is None:
        return c.unchanged(finding("SD708.single-quote", insp.target, config=config, script=insp.target))
    new_command, new_args = inject(c.base_command, c.base_args, config, insp)
    return Reconciled(new_command, new_args, config, insp, tuple(findings))


def _newer(insp: Inspection, release: Release) -> list[Finding]:
    """SD622 (vllm_schema.newer_release) at the container, for a release newer than every one modelled."""
    newer = newer_release(release.version, release.source)
    return [] if newer is None else [newer._replace(field=insp.target)]


def _launch_refusals(insp: Inspection, release: Release) -> list[Finding]:
    """What makes the release exit at start-up whatever the speculative config: said on every path of
    reconcile that leaves the command to run (an override, a config file, a pooling model, an injection)."""
    out: list[Finding] = []
    if insp.form == "grpc_server" and release.number < releases.GRPC_SERVER_SINCE:
        out.append(finding("SD719", insp.target, release=release.said))
    if insp.model_option and release.number < releases.SERVE_MODEL_OPTION_SINCE:
        out.append(finding("SD718", insp.model_at or insp.target, release=release.said))
    return out


def combinations(insp: Inspection, release: Release, env: dict[str, str] | None, config: Any) -> list[Finding]:
    """vllm_combos' verdicts on the container's settings beside the speculative `config` (a JSON object;
    anything else is vllm_schema's to report): SD625 where the release exits at start-up, SD626 where it
    starts with speculation's effect or metrics gone."""
    if not isinstance(config, dict):
        return []
    env = env or {}
    server = insp.server._replace(
        use_v1=f"VLLM_USE_V1={env['VLLM_USE_V1']}" if "VLLM_USE_V1" in env else None,
        use_v2_runner=f"VLLM_USE_V2_MODEL_RUNNER={env['VLLM_USE_V2_MODEL_RUNNER']}"
        if "VLLM_USE_V2_MODEL_RUNNER" in env else None)
    mtp_alias = config.get("method") in facts().mtp_aliases
    return [said(v, insp.target, release.said) for v in judge(release.number, config, server, mtp_alias)]


def _override_checks(insp: Inspection, release: Release) -> list[Finding]:
    """The user's own config, checked as a KAITO override is (advice.override_checks): what the command line
    itself gets wrong for the release, else vllm_schema's findings for the release, at the container."""
    refused = _unknown_flags(insp, release)
    if refused:
        return refused
    config = _user_config(insp)
    if insp.shorthands:
        base = config if isinstance(config, dict) else {}
        clash = [f for f, _ in insp.shorthands if releases.SPEC_SHORTHANDS[f] in base]
        if clash:
            return [finding("SD716.both-set", insp.target, flag=clash[0], key=releases.SPEC_SHORTHANDS[clash[0]])]
        config = {**base, **{releases.SPEC_SHORTHANDS[f]: _shorthand_value(f, text) for f, text in insp.shorthands}}
    if config is None:
        return []
    checked = config if not isinstance(config, str) else insp.override_value
    # vllm_schema's findings, relayed at the container: their words, id and severity are the schema's.
    return [found._replace(field=insp.target)
            for found in check_speculative_config(checked, release.version)]


def _unknown_flags(insp: Inspection, release: Release) -> list[Finding]:
    """The speculative spellings the release does not have, with which it exits at start-up."""
    if release.number < releases.JSON_FLAG_SINCE and (insp.override_value is not None or insp.dotted):
        return [finding("SD712.user-config", insp.target, release=release.said)]
    if "-sc" in insp.overrides and release.number < releases.SHORT_SC_SINCE:
        return [finding("SD717", insp.target, release=release.said)]
    if insp.shorthands and release.number < releases.SPEC_SHORTHANDS_SINCE:
        flags = ", ".join(dict.fromkeys(f for f, _ in insp.shorthands))
        return [finding("SD716.too-old", insp.target, flags=flags, release=release.said)]
    return []


def _user_config(insp: Inspection) -> Any:
    """The config the user's dotted arguments or whole-JSON argument make (None: neither)."""
    if insp.dotted:
        return dotted_config([(name, text) for name, text in insp.dotted])
    if insp.override_value is not None:
        try:
            return json.loads(insp.override_value)
        except ValueError:
            return insp.override_value   # not JSON: vllm_schema words it (SD601)
    return None


def _shorthand_value(flag: str, text: str) -> Any:
    """The value argparse makes of a `--spec-*` flag: --spec-tokens is an int (get_kwargs of
    SpeculativeConfig.num_speculative_tokens), the others text."""
    if flag == "--spec-tokens":
        try:
            return int(text)
        except ValueError:
            return text
    return text
