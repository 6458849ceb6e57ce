"""Findings about decisions that change nothing: user overrides vLLM or KAITO would refuse, roles that
disagree, spellings KAITO does not see, what an older KAITO does with the output."""

import json
from collections.abc import Sequence
from typing import Any

import yaml

from ..domain import kaito_releases, kinds
from ..text import yamlio
from ..text.items import Item
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.decisions import DOTTED, Decision, Inject, Override, configurable
from ..model.index import Index
from ..domain.inference_config import (DATA_KEY, VLLM_KEY, InferenceConfigError, has_later_documents, kaito_values,
    with_speculative_config, without_speculative_config)
from ..domain.vllm_combos import Server, judge, said
from ..domain.presets import resolve
from ..domain.vllm_schema import (NGRAM_METHODS, check_speculative_config, dotted_config, facts, newer_release,
                                  parse_version, refusal, shown)
from ..model.multinode import multinode_warnings
from ..model.report import about
from ..text.results import Finding, Result, finding

CONFIG_FIELD = f"data[{DATA_KEY}]"  # the ConfigMap's key that holds inference_config.yaml


def advise(index: Index, settings: Settings, plan: Plan) -> Step:
    """The findings about what was decided (and, for older KAITO versions, re-pointed), in this order."""
    ds = plan.decided
    return step(override_checks(ds, settings) + role_mismatches(ds) + pinned_away(ds, settings) + spelling_warnings(ds)
                + unconfigurable(index, plan) + document_warnings(ds) + version_notes(ds, settings, plan)
                + multinode_warnings(index, ds, settings, _method) + newer_vllm(ds, settings)
                + combinations(ds, settings) + assumed_vllm(ds, settings))


def assumed_vllm(ds: Sequence[Decision], settings: Settings) -> list[Result]:
    """SD428 once a run, when vllmVersion is unset and a KAITO workload's config was judged by a vLLM release: the
    release assumed, the one the kaitoVersion release's image runs (kaito_releases.IMAGE_VLLM), and why."""
    if settings.vllm_version_set or not any(isinstance(d, (Inject, Override)) for d in ds):
        return []   # nothing judged by a vLLM release (a ConfigMap not in the input, one KAITO refuses)
    said: dict[str, Any] = {"vllm": shown(parse_version(settings.vllm_version)), "kaito": settings.kaito_version,
                            "why": kaito_releases.image_vllm(settings.kaito_version).said}
    found = (finding("SD428.default", "vllmVersion", **said) if settings.kaito_version_unknown
             else finding("SD428.kaito-version", "vllmVersion", **said))
    return [found.result()]


def newer_vllm(ds: Sequence[Decision], settings: Settings) -> list[Result]:
    """SD622 once a run, when the vllmVersion setting names a vLLM newer than every release modelled and a KAITO
    workload is decided by it (a plain workload's container says it for itself)."""
    if not ds or not settings.vllm_version_set:
        return []
    found = newer_release(settings.vllm_version, "the vllmVersion setting")
    return [] if found is None else [found._replace(field="vllmVersion").result()]


# KAITO's runtime passes each `vllm:` entry as `--KEY VALUE` (presets/workspace/inference/vllm/inference_api.py:
# 143-145 at v0.12.0, :110-111 at v0.10.0) to the OpenAI server's parser (api_server.make_arg_parser, :72). For
# a flag without a value the VALUE after it is a stray word, which that parser's optional positional `model_tag`
# takes (vllm/entrypoints/openai/cli_args.py:346-351 at 0.25.1; every release read has it) and the server does not
# read: the flag is set, whatever the entry's value ("false" too); its `no-` form unsets it.
_MAP_FLAGS = {"async-scheduling": "async_scheduling", "kv-sharing-fast-prefill": "kv_sharing_fast_prefill",
              "disable-log-stats": "disable_log_stats", "enable-lora": "lora"}
_MAP_VALUES = {"logits-processors": "logits_processors", "watermark-config": "watermark"}
_MAP_NUMBERS = {"max-num-seqs": "max_num_seqs", "max-num-batched-tokens": "max_num_batched_tokens"}
_MAP_PAIRS = {"data-parallel-size": "data_parallel", "max-model-len": "max_model_len"}


def _server(d: Inject | Override) -> Server:
    """What KAITO's runtime gives vLLM beside the speculative config: the `vllm:` map's settings, and LoRA where
    the workload has `inference.adapters` (KAITO adds `--enable-lora` then: pkg/model/interface.go:448-450 at
    v0.12.0, `if !p.VLLM.DisallowLoRA && rc.AdaptersEnabled`, AdaptersEnabled `len(...Inference.Adapters) > 0`,
    pkg/workspace/inference/preset_inferences.go:611)."""
    text = d.inference_config()
    try:
        values = kaito_values(text)[0] if text is not None else {}
    except InferenceConfigError:
        values = {}
    found: dict[str, Any] = {}
    for key, value in values.items():
        name = key.replace("_", "-")
        if name in _MAP_FLAGS:
            found[_MAP_FLAGS[name]] = f"vllm.{key}"
        elif name.startswith("no-") and name[3:] in _MAP_FLAGS:
            found.pop(_MAP_FLAGS[name[3:]], None)
        elif name in _MAP_VALUES:
            found[_MAP_VALUES[name]] = f"vllm.{key}"
        elif name in _MAP_NUMBERS or name in _MAP_PAIRS:
            number = int(value) if value.strip().lstrip("+-").isdigit() else None   # "auto": not judged
            if name in _MAP_PAIRS:
                found[_MAP_PAIRS[name]] = None if number is None else (number, f"vllm.{key}: {value}")
            else:
                found[_MAP_NUMBERS[name]] = number
    path = d.workload.spec.inference
    inference = kinds.get(d.workload.effective, path) if path is not None else None
    adapters = inference.get("adapters") if isinstance(inference, dict) else None
    if isinstance(adapters, list) and adapters and path is not None:
        found["lora"] = f"{kinds.dotted(path)}.adapters (KAITO runs vLLM with --enable-lora)"
    return Server(**found)


def combinations(ds: Sequence[Decision], settings: Settings) -> list[Result]:
    """vllm_combos' verdicts on what KAITO's runtime gives vLLM beside the speculative config (SD625, SD626), on
    the ConfigMap that holds the `vllm:` map, once per ConfigMap and combination."""
    out, seen = [], set()
    for d in ds:
        if not isinstance(d, (Inject, Override)) or d.source is None:
            continue
        config = _config(d) if isinstance(d, Inject) or d.value is not DOTTED else _user_config(d)
        if not isinstance(config, dict):
            continue
        mtp_alias = config.get("method") in facts().mtp_aliases
        for verdict in judge(parse_version(settings.vllm_version), config, _server(d), mtp_alias):
            if (d.source.index, verdict.combo) not in seen:
                seen.add((d.source.index, verdict.combo))
                out.append(about(said(verdict, CONFIG_FIELD), d.source))
    return out


def _what(value: object) -> str:
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str) and not value.strip():
        return "an empty string"
    return f"a {type(value).__name__}"


def override_checks(ds: Sequence[Decision], settings: Settings) -> list[Result]:
    """A user's own speculative-config must be a JSON object in a string that the chosen vLLM accepts, or
    the pods never start (or, for warnings and infos, start without what the user meant). KAITO admits any
    scalar (its map[string]string takes it as text), so the error says what vLLM does (SD401); a string is
    judged by vllm_schema for `vllmVersion`, one finding per mistake, reported as checks.validate does."""
    out, seen = [], set()
    for d in ds:
        if not isinstance(d, Override) or d.source is None or d.source.index in seen:
            continue
        seen.add(d.source.index)
        dotted = _dotted_entries(d)
        if dotted:
            # What runs is the object vLLM merges from the dotted keys; a JSON value beside them is dropped.
            plain = [k for k in d.keys if "." not in k]
            if plain:
                out.append(about(finding("SD411", CONFIG_FIELD, key=plain[0]), d.source))
            for found in check_speculative_config(dotted_config(dotted), settings.vllm_version):
                out.append(_on_config(found, d.source))
            continue
        if d.value is DOTTED:
            continue
        value = d.value
        key = d.keys[0] if d.keys else "speculative-config"
        # null (KAITO passes str(None), "None") and "" are no config at all to vLLM: vllm_schema says the
        # server starts without speculative decoding (SD617). A boolean, a number or blanks vLLM refuses.
        if value is not None and value != "" and (not isinstance(value, str) or not value.strip()):
            out.append(about(finding("SD401", CONFIG_FIELD, key=key, what=_what(value)), d.source))
            continue
        for found in check_speculative_config(value, settings.vllm_version):
            proposal = _proposal(d, key, found)
            out.append(_on_config(found, d.source, **({} if proposal is None else {"proposed_value": proposal})))
    return out


def _on_config(found: Finding, source: Item, **values: Any) -> Result:
    """A finding of vllm_schema about the speculative config on the ConfigMap that holds it (the JSON key it
    is about is in its message)."""
    return about(found._replace(field=CONFIG_FIELD), source, **values)


def _dotted_entries(d: Override) -> list[tuple[str, Any]]:
    """The dotted `speculative-config.<field>` keys of the override with their YAML values, in file order."""
    keys = {k for k in d.keys if "." in k}
    text = d.inference_config()
    if not keys or text is None:
        return []
    try:
        doc = yamlio.load_first(text.removeprefix("\ufeff"))
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return []  # decide read it already; KAITO's errors about it are the checks' to report
    vllm = doc.get(VLLM_KEY) if isinstance(doc, dict) else None
    return [(k, v) for k, v in vllm.items() if k in keys] if isinstance(vllm, dict) else []


def _user_config(d: Override) -> Any:
    """The speculative config the user's override hands vLLM, as a value (None when it is no JSON)."""
    dotted = _dotted_entries(d)
    if dotted:
        return dotted_config(dotted)
    if not isinstance(d.value, str):
        return None
    try:
        return json.loads(d.value)
    except ValueError:
        return None


def _method(d: Override) -> Any:
    cfg = _user_config(d)
    return cfg.get("method") if isinstance(cfg, dict) else None


def pinned_away(ds: Sequence[Decision], settings: Settings) -> list[Result]:
    """A user override that pins ngram on a preset whose tuned config is model-based (KAITO tunes them for
    mtp): legitimate, but worth knowing, since the tuned config usually drafts better. Said once per
    ConfigMap and preset; not when the vllmVersion vLLM refuses the tuned config (then ngram is right)."""
    out, seen = [], set()
    for d in ds:
        if not isinstance(d, Override) or d.source is None:
            continue
        cfg = _user_config(d)
        preset = kinds.preset_name(d.workload.spec, d.workload.effective)
        # A method that is no string (an object, a list) is unhashable here; vllm_schema reports it (SD603).
        if not isinstance(cfg, dict) or not isinstance(cfg.get("method"), str) or cfg["method"] not in NGRAM_METHODS \
                or not preset:
            continue
        res = resolve(preset, settings.presets)
        if not res.tuned or res.method in DRAFT_FREE or (d.source.index, res.canonical) in seen:
            continue
        if refusal(res.json, settings.vllm_version):
            continue
        seen.add((d.source.index, res.canonical))
        text = d.inference_config()
        extra = {}
        if d.keys == ("speculative-config",) and text is not None:
            try:
                extra = {"proposed_value": without_speculative_config(text)}
            except (InferenceConfigError, ValueError):
                pass
        found = finding("SD410", CONFIG_FIELD, configmap=d.source.name, method=cfg["method"],
                        kind=d.workload.spec.kind, name=d.workload.name, preset=preset, tuned=res.json)
        out.append(about(found, d.source, **extra))
    return out


def _proposal(d: Override, key: str, found: Finding) -> str | None:
    """The whole inference_config.yaml with the corrected value, where the fix is mechanical: the field is
    the ConfigMap's data key, so its proposed value is that key's text. Only for the spelling KAITO reads
    (another spelling is SD404's to fix first)."""
    text = d.inference_config()
    if found.proposed is None or key != "speculative-config" or text is None:
        return None
    try:
        return with_speculative_config(text, found.proposed)
    except (InferenceConfigError, ValueError):
        return None


def role_mismatches(ds: Sequence[Decision]) -> list[Result]:
    """Roles of a MultiRoleInference with different configs: an error where one drafts with a model (SD409), a
    warning where both are draft-free (SD403). Configs are compared as JSON values (key order and spacing do
    not count); a config that is no JSON object is left out (SD601/SD602 report it)."""
    by_workload: dict[int, list[Decision]] = {}
    for d in ds:
        if d.workload.spec.kind == "MultiRoleInference":
            by_workload.setdefault(d.workload.item.index, []).append(d)
    out = []
    for group in by_workload.values():
        parsed = [(d, c) for d in group if (c := _config(d)) is not None]
        if len({json.dumps(c, sort_keys=True) for _, c in parsed}) < 2:
            continue
        roles = ", ".join(f"{kinds.dotted(d.path)}: {_effective(d)}" for d, _ in parsed)
        model_based = sorted({str(c.get("method", c.get("model", ""))) for _, c in parsed} - DRAFT_FREE)
        found = (finding("SD409", "spec.roles", roles=roles, methods=", ".join(model_based)) if model_based
                 else finding("SD403", "spec.roles", roles=roles))
        out.append(about(found, group[0].workload.item))
    return out


# Methods that draft without a model ("ngram may run on decode alone"; suffix and ngram_gpu are
# draft-free the same way).
DRAFT_FREE = frozenset({"ngram", "ngram_gpu", "suffix"})


def _effective(d: Decision) -> str | None:
    if isinstance(d, Inject):
        return d.json
    if isinstance(d, Override) and isinstance(d.value, str):
        return d.value
    return None


def _config(d: Decision) -> dict[str, Any] | None:
    """The config a role ends up with, as a JSON object, or None (not seen, or no JSON object)."""
    text = _effective(d)
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def spelling_warnings(ds: Sequence[Decision]) -> list[Result]:
    """SD404: an override in a spelling of the flag KAITO >= v0.13 does not see, once per ConfigMap."""
    out, seen = [], set()
    for d in ds:
        if not isinstance(d, Override) or not d.other_spellings or d.source is None or d.source.index in seen:
            continue
        seen.add(d.source.index)
        keys = ", ".join(f"vllm.{k}" for k in d.other_spellings)
        out.append(about(finding("SD404", CONFIG_FIELD, keys=keys), d.source))
    return out


def version_notes(ds: Sequence[Decision], settings: Settings, plan: Plan) -> list[Result]:
    """SD405 on every InferenceSet and MultiRoleInference whose reference the function changes, before KAITO
    v0.13.0."""
    if settings.knows_annotation:
        return []
    out, seen = [], set()
    for d in ds:
        w = d.workload
        # A MultiRoleInference reaches its Workspaces through its InferenceSets: the same holds.
        if w.spec.kind not in ("InferenceSet", "MultiRoleInference") or w.item.index in seen:
            continue
        if kinds.get(plan.data_of(w.item), d.path) == kinds.get(w.item.data(), d.path):
            continue  # not re-pointed
        seen.add(w.item.index)
        out.append(about(finding("SD405", kinds.dotted(d.path), kaito_version=settings.kaito_version), w.item,
                         change=True))
    return out


def document_warnings(ds: Sequence[Decision]) -> list[Result]:
    """KAITO's webhook reads only the first YAML document of inference_config.yaml, but its vLLM runtime
    (presets/workspace/inference/vllm/inference_api.py, v0.12.0: `yaml.safe_load(file)`) refuses a file of
    several: the pods crash at start. Said once per source ConfigMap the function reads."""
    out, seen = [], set()
    for d in ds:
        if d.source is None or d.source.index in seen or not isinstance(d, (Inject, Override)):
            continue
        seen.add(d.source.index)
        if has_later_documents(d.inference_config()):
            out.append(about(finding("SD406", CONFIG_FIELD), d.source))
    return out


def unconfigurable(index: Index, plan: Plan) -> list[Result]:
    return [about(finding("SD407", w.spec.annotation_field, name=w.rewritten_by.name), w.item)
            for w in map(plan.workload, index.workloads)
            if w.rewritten_by is not None and w.enabled and not configurable(w)]
