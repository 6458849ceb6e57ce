"""A container's `command` and `args` -> does it run vLLM, with which model, and the speculative config
written into (or taken out of) its arguments (SPEC 8, issue #12).

Recognised invocations, as an exec list or inside a `sh|bash -c` script:
  `vllm serve MODEL …`                                    (the model positional, or `--model X`/`--model=X`)
  `python[3] -m vllm.entrypoints.openai.api_server --model MODEL …`
  `python[3] …/vllm/inference_api.py --model MODEL …`     (KAITO's vLLM entry point; its tfs namesake is
                                                           not vLLM)
  no `command` in an image named `…vllm-openai` (vLLM's own image: its ENTRYPOINT is the server), `args`
  being the server's arguments.
Prefixes that do not change what runs are looked through: `VAR=value`, `exec`, `env`, `nohup`, `tini`,
`dumb-init`, `--`.

Injection (VLLM.md): an exec list gets one element `--speculative-config=<json>` appended to `args`, or to
`command` when there are no `args`; a script gets ` --speculative-config='<json>'` right after the last word
of the vLLM command (before any `&&`, `;`, `|`, `&`, redirection or comment after it). The JSON is compact
(presets.config_json). Removal takes out exactly that text again, so enable -> disable gives back the
original lists and script byte for byte. Everything here is pure: lists in, new lists out, findings as data.

Left unchanged, with a finding: any existing speculative spelling (the user's override), the flags vLLM 0.8.3
removed, a settings file vLLM or KAITO reads at start-up (it may hold the config), a script that starts vLLM
twice or that the scan cannot follow. Arguments that expand only at run time (`$EXTRA_ARGS`) are named.
"""
from __future__ import annotations

import os
import re
from .record import dataclass, field, replace
from collections.abc import Callable
from typing import Any

from . import shellwords
from .constants import INJECTED_ANNOTATION  # noqa: F401  (re-exported: the record's key, next to the argument it records)
from .presets import DEFAULT_TABLE, PresetTable
from .results import Finding, Severity
from .vllm_model import decide_model, fallback, unknowable

FINDINGS = {
    "SD701": "vLLM container: speculative config decided by its model",
    "SD702": "vLLM model not known at render time: universal fallback",
    "SD703": "vLLM container already sets a speculative config: user override, unchanged",
    "SD704": "removed pre-0.8.3 speculative flags: vLLM refuses to start",
    "SD705": "script starts vLLM more than once: unchanged",
    "SD706": "shell script the function cannot read safely: unchanged",
    "SD707": "vLLM command or argument that is not a string: unchanged",
    "SD708": "speculative config with a single quote cannot go into a script: unchanged",
    "SD709": "vLLM reads a config file the function cannot see: unchanged",
    "SD710": "vLLM arguments that expand at run time: the injected argument comes after them",
}

FLAG = "--speculative-config"
# Every spelling vLLM reads as the speculative config (VLLM.md): `=` or separate value, `_` spelling,
# dotted keys merged into one object, and the short `-sc`.
_OVERRIDE_NAMES = ("--speculative-config", "--speculative_config", "-sc")
_OVERRIDE_PREFIXES = ("--speculative-config.", "--speculative_config.")
# Settings files read at start-up: vLLM's `--config` YAML (its keys are inserted before the command line's, so
# an injected flag would silently beat a `speculative-config` there) and KAITO's inference_api.py file.
_CONFIG_FILE_FLAGS = ("--config", "--kaito-config-file")
# The speculative flags vLLM 0.8.3 removed ("unrecognized arguments"); the list is vLLM 0.8.2's
# arg_utils.py speculative group (VLLM.md names the first, the token count and the ngram lookups).
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
_API_SERVER = "vllm.entrypoints.openai.api_server"
_IMAGE = re.compile(r"(^|/)[^/:@]*vllm-openai([:@]|$)")


@dataclass(frozen=True)
class Where:
    """An element of the container's `command` or `args`."""
    list: str      # "command" | "args"
    index: int

    @property
    def field(self) -> str:
        return f"{self.list}[{self.index}]"


@dataclass(frozen=True)
class Arguments:
    """What the vLLM arguments say: the model (as vLLM reads it) and every speculative spelling."""
    model: str | None = None
    model_index: int | None = None            # index of the model's element among the arguments
    overrides: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()        # the files named by --config / --kaito-config-file
    override_value: str | None = None         # the JSON of the last `--speculative-config[=]X` (vLLM keeps it)


@dataclass(frozen=True)
class Inspection:
    runs_vllm: bool
    form: str = ""                   # "serve" | "api_server" | "kaito" | "image"
    script: Where | None = None      # the `sh -c` script holding the invocation, for shell forms
    model: str | None = None
    model_at: str = ""               # field of the model (`command[2]`; the script's for shell forms)
    unknown_model: str | None = None # why the model cannot be known at render time
    overrides: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()
    expansions: tuple[str, ...] = () # arguments (not an option's value) that expand only at run time
    override_value: str | None = None  # the user's JSON, for the render-time checks of vLLM's schema (#11)
    problem: Finding | None = None   # set when the command must not be edited (SD705, SD706, SD707)
    target: str = ""                 # field the injection goes to: `args`, `command`, or the script's
    insert_at: int = -1              # shell forms: the offset in the script the argument is inserted at

    @property
    def editable(self) -> bool:
        return self.runs_vllm and self.problem is None


@dataclass(frozen=True)
class Reconciled:
    """A container after the decision: its new `command`/`args` (the same objects when unchanged), the JSON
    the function's own argument now carries (None: none), and what to report."""
    command: Any
    args: Any
    injected: str | None
    inspection: Inspection
    findings: tuple[Finding, ...] = field(default=())


def read_arguments(values: list[str], positional: bool = True,
                   model_flags: tuple[str, ...] = ("--model",)) -> Arguments:
    """The model and the speculative spellings among a vLLM invocation's arguments. `positional`: the model
    may be the first argument (`vllm serve MODEL`), which wins over `--model` as in vLLM's serve command."""
    model = index = None
    overrides: list[str] = []
    removed: list[str] = []
    files: list[str] = []
    given = None
    for i, value in enumerate(values):
        name, eq, rest = value.partition("=")
        if name in _CONFIG_FILE_FLAGS:
            files.append(rest if eq else values[i + 1] if i + 1 < len(values) else "")
        if name in model_flags:
            if eq:
                model, index = rest, i
            elif i + 1 < len(values):
                model, index = values[i + 1], i + 1
        if name in _OVERRIDE_NAMES or name.startswith(_OVERRIDE_PREFIXES):
            overrides.append(name)
            if name in _OVERRIDE_NAMES:
                given = rest if eq else values[i + 1] if i + 1 < len(values) else given
        if name in REMOVED_FLAGS:
            removed.append(name)
    if positional and values and not values[0].startswith("-"):
        model, index = values[0], 0
    return Arguments(model, index, tuple(dict.fromkeys(overrides)), tuple(dict.fromkeys(removed)),
                     tuple(files), given)


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
        if values[j:j + 2] == ["-m", _API_SERVER]:
            return "api_server", j + 2
        script = values[j] if j < len(values) else ""
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


def _problem(message: str, field: str, id: str) -> Finding:
    """A reason to leave the command unchanged: a warning."""
    return Finding(message, field, id=id, severity=Severity.WARNING)


def inspect(command: Any, args: Any, image: str | None = None) -> Inspection:
    """What the container runs. Never raises: a shape it cannot follow is an Inspection with a problem."""
    if not all(v is None or isinstance(v, list) for v in (command, args)):
        return Inspection(False)   # not a container Kubernetes would accept; shape checks report it
    argv = _argv(command, args)
    values = [v if isinstance(v, str) else str(v) for _, v in argv]
    target = "args" if isinstance(args, list) else "command"
    script_at = _shell_script(values)
    if script_at is not None:
        return _inspect_script(argv[script_at][0], values[script_at])
    found = head(values)
    form, start = found if found else (None, 0)
    if form is None and command is None and isinstance(args, list) and image and _IMAGE.search(image):
        form, start = "image", len(values) - len(args)
    if form is None:
        return Inspection(False)
    not_text = next((w for w, v in argv if not isinstance(v, str)), None)
    if not_text is not None:
        return Inspection(True, form, problem=_problem(f"{not_text.field} is not a string; quote it so the vLLM arguments can be read and extended",
            not_text.field, id="SD707"))
    read = read_arguments(values[start:], positional=form in ("serve", "image"))
    model_at = argv[start + read.model_index][0].field if read.model_index is not None else ""
    return _finish(Inspection(True, form, model_at=model_at, target=target), read, values[start:], shell=False)


def _finish(insp: Inspection, read: Arguments, texts: list[str], shell: bool) -> Inspection:
    why = "no model argument" if read.model is None else unknowable(read.model)
    return replace(insp, model=read.model, unknown_model=why, overrides=read.overrides, removed=read.removed,
                   config_files=read.config_files, expansions=_expansions(texts, read.model_index, shell),
                   override_value=read.override_value)


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


def _inspect_script(at: Where, script: str) -> Inspection:
    try:
        # only a command with "vllm" in a word can start the server: the others are not unquoted at all
        found = [(c, head([w.value for w in c.words])) for c in shellwords.commands(script)
                 if any("vllm" in w.text for w in c.words)]
    except shellwords.Unreadable as exc:
        if "vllm" not in script:
            return Inspection(False)
        return Inspection(True, script=at, target=at.field, problem=_problem(f"cannot read the shell script in {at.field} safely ({exc}); add the argument --speculative-config='<json>' to its vLLM command yourself, or start vLLM without a script",
            at.field, id="SD706"))
    servers = [(c, h) for c, h in found if h is not None]
    if not servers:
        return Inspection(False)
    if len(servers) > 1:
        return Inspection(True, servers[0][1][0], script=at, target=at.field, problem=_problem(f"the shell script in {at.field} starts vLLM {len(servers)} times and the function cannot tell which one to configure; give each server its own container, or add --speculative-config='<json>' to the right one yourself",
            at.field, id="SD705"))
    cmd, (form, start) = servers[0]
    read = read_arguments([w.value for w in cmd.words[start:]], positional=form == "serve")
    return _finish(Inspection(True, form, script=at, model_at=at.field, target=at.field,
                              insert_at=cmd.words[-1].end), read, [w.text for w in cmd.words[start:]], shell=True)


def shell_argument(config_json: str) -> str:
    """The text inserted into a script: the JSON single-quoted, so the shell passes it through untouched."""
    if "'" in config_json:
        raise ValueError("a speculative config holding a single quote cannot be single-quoted in a script")
    return f" {FLAG}='{config_json}'"


def exec_argument(config_json: str) -> str:
    return f"{FLAG}={config_json}"


def inject(command: Any, args: Any, config_json: str, inspection: Inspection) -> tuple[Any, Any]:
    """New `command`/`args` with the speculative config added (the inputs are not modified).
    `inspection` is `inspect(command, args, image)` and must be editable."""
    if not inspection.editable:
        raise ValueError("inject needs an editable vLLM invocation")
    if inspection.script is None:
        if inspection.target == "args":
            return command, [*(args or []), exec_argument(config_json)]
        return [*command, exec_argument(config_json)], args
    at = inspection.script
    script = (command if at.list == "command" else args)[at.index]
    end = inspection.insert_at
    edited = script[:end] + shell_argument(config_json) + script[end:]
    return _replace(command, args, at, edited)


def _replace(command: Any, args: Any, at: Where, value: str) -> tuple[Any, Any]:
    if at.list == "command":
        return [*command[:at.index], value, *command[at.index + 1:]], args
    return command, [*args[:at.index], value, *args[at.index + 1:]]


def remove(command: Any, args: Any, config_json: str) -> tuple[Any, Any, bool]:
    """`command`/`args` without the argument `inject` wrote for `config_json` (its last occurrence), and
    whether it was there. The text removed is exactly the text inserted."""
    exec_form, shell_form = exec_argument(config_json), shell_argument_or_none(config_json)
    argv = _argv(command, args)
    for at, value in reversed(argv):
        if value == exec_form:
            lst = command if at.list == "command" else args
            rest = [*lst[:at.index], *lst[at.index + 1:]]
            return (rest, args, True) if at.list == "command" else (command, rest, True)
        if shell_form and isinstance(value, str) and shell_form in value:
            cut = value.rindex(shell_form)
            return (*_replace(command, args, at, value[:cut] + value[cut + len(shell_form):]), True)
    return command, args, False


def shell_argument_or_none(config_json: str) -> str | None:
    try:
        return shell_argument(config_json)
    except ValueError:
        return None


def reconcile(command: Any, args: Any, *, enabled: bool, recorded: str | None = None,
              table: PresetTable = DEFAULT_TABLE, image: str | None = None,
              inspector: Callable[[Any, Any], Inspection] | None = None) -> Reconciled:
    """One container, decided: with `enabled`, the speculative config for its model is injected (unless the
    user set one, or the command cannot be edited); without, the function's own argument is removed.
    `recorded` is the JSON the pod template's INJECTED_ANNOTATION says the function injected earlier.
    `inspector` replaces `inspect` for argument lists that are not a command line (KServe's `model.args`)."""
    base_command, base_args, ours = (remove(command, args, recorded) if recorded
                                     else (command, args, False))
    insp = inspector(base_command, base_args) if inspector else inspect(base_command, base_args, image)
    if not insp.runs_vllm or not enabled:
        return Reconciled(base_command, base_args, None, insp)
    kept = recorded if ours else None
    if insp.problem is not None:
        return Reconciled(command, args, kept, insp, (insp.problem,))
    if insp.removed:
        flags = ", ".join(insp.removed)
        return Reconciled(command, args, kept, insp, (Finding(f"{flags}: removed in vLLM 0.8.3, the server refuses to start with them; replace them with one --speculative-config='<json>' (or delete them and let kaito-specdec choose the config)",
            insp.target, id="SD704", severity=Severity.ERROR),))
    if insp.overrides:
        spelled = ", ".join(insp.overrides)
        return Reconciled(base_command, base_args, None, insp, (Finding(f"the vLLM command already sets {spelled}: user override, left unchanged; remove it to let kaito-specdec choose the config",
            insp.target, id="SD703", severity=Severity.INFO),))
    if insp.config_files:
        shown = ", ".join(insp.config_files)
        return Reconciled(command, args, kept, insp, (_problem(f"the vLLM command reads settings from {shown}, which the function cannot see and which may set speculative-config (a flag added on the command line would silently win over it); add --speculative-config='<json>' yourself, or move the settings onto the command line",
            insp.target, id="SD709"),))
    findings: list[Finding] = []
    if insp.unknown_model is None and insp.model is not None:
        decision = decide_model(insp.model, table)
        resolution = decision.resolution
        kind = "tuned" if resolution.tuned else "not tuned, universal fallback"
        findings.append(Finding(f"model {insp.model} read as {decision.key} ({kind}): --speculative-config={resolution.json}; set the annotation to \"false\" to turn it off",
            insp.target, id="SD701", severity=Severity.INFO))
    else:
        resolution = fallback(table)
        findings.append(Finding(f"the model is not known at render time ({insp.unknown_model}): the universal fallback --speculative-config={resolution.json} is used; write the model as a Hugging Face id or a path ending in org/name to get its tuned config",
            insp.model_at or insp.target, id="SD702", severity=Severity.INFO))
    if insp.expansions:
        shown = " ".join(insp.expansions)
        findings.append(Finding(f"{shown} in the vLLM command expands only at run time; if it sets --speculative-config, the argument added here comes after it and wins: set the annotation to \"false\" to keep your own",
            insp.target, id="SD710", severity=Severity.INFO))
    if ours and recorded == resolution.json:
        return Reconciled(command, args, recorded, insp, tuple(findings))
    if insp.script is not None and shell_argument_or_none(resolution.json) is None:
        return Reconciled(command, args, kept, insp, (_problem(f"the speculative config {resolution.json} holds a single quote and cannot be single-quoted in the script in {insp.target}; choose a config without one (functionConfig tunedPresets/ngramFallback)",
            insp.target, id="SD708"),))
    new_command, new_args = inject(base_command, base_args, resolution.json, insp)
    return Reconciled(new_command, new_args, resolution.json, insp, tuple(findings))
