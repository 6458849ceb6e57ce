"""vllm_schema: every finding PASS/FAIL, with exact messages, per vLLM version; and the function's verdict held
against tests/vllm_verdicts.json, what each vLLM release itself does with each value (tools/vllm_verdicts.py)."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from krm_fn.domain import vllm_schema
from krm_fn.text.results import Severity
from krm_fn.domain.vllm_schema import (DEFAULT_VLLM_VERSION, check_speculative_config, dotted_config,
    parse_version)

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
EXAMPLE = '\'{"method":"ngram","num_speculative_tokens":5}\''
M012 = "ngram, draft_model, suffix, eagle, eagle3, medusa, mlp_speculator, mtp"
M025 = M012 + ", ngram_gpu, dflash, custom_class, dspark, extract_hidden_states"
M033 = "ngram, draft_model, suffix, eagle, eagle3, mtp, ngram_gpu, dflash, custom_class, dspark, extract_hidden_states"
M034 = "ngram, draft_model, suffix, eagle, eagle3, mtp, ngram_gpu, dflash, dspark, extract_hidden_states"
NEWEST = "0.34"  # the newest release the tables hold, as messages name it
# 0.10.2: no suffix and no mtp yet; three model-specific MTP names (vllm/config/__init__.py `SpeculativeMethod`)
M010 = "ngram, draft_model, eagle, eagle3, medusa, mlp_speculator, deepseek_mtp, ernie_mtp, qwen3_next_mtp"
# 0.10.0 and 0.10.1 (read: vllm/config.py:2594-2595 at 0.10.0): deepseek_mtp only
M0100 = "ngram, draft_model, eagle, eagle3, medusa, mlp_speculator, deepseek_mtp"
# What 0.18.1 itself lists (tests/vllm_verdicts.json, `QUANTIZATION_METHODS` of that release).
QUANT_0181 = next(f["quantization"] for f in json.loads((Path(__file__).parents[1] / "vllm_verdicts.json").read_text(
    encoding="utf-8"))["facts"] if f["release"] == "0.18.1")


def found(value, version: str = DEFAULT_VLLM_VERSION) -> list[tuple]:
    return [(f.id, f.severity, f.message, f.field, f.proposed) for f in check_speculative_config(value, version)]


PASS = [
    (NGRAM, "0.25.1"),
    ('{"method":"mtp","num_speculative_tokens":1}', "0.25.1"),          # KAITO's tuned config
    ('{"method":"mtp","num_speculative_tokens":1}', "0.11"),
    ('{"method":"eagle3","model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}', "0.25.1"),
    ('{"method":"draft_model","model":"x/y","num_speculative_tokens":4,"draft_tensor_parallel_size":1}', "0.25.1"),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":2,"prompt_lookup_max":2}', "0.25.1"),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":3}', "0.25.1"),   # max copies min
    ('{"model":"x/eagle-head","num_speculative_tokens":3}', "0.25.1"),   # vLLM infers the method from the model
    ('{"method":"medusa","model":"x/m","num_speculative_tokens":2}', "0.32"),
    ('{"method":"dspark","num_speculative_tokens":7}', "0.25"),          # defaults to the target model
    ('{"method":"ngram_gpu","num_speculative_tokens":5}', "0.18"),
    ('{"method":"ngram","num_speculative_tokens":5,"attention_backend":"auto"}', "0.25.1"),  # snapshot field
    # what vLLM coerces (pydantic's lax mode) from 0.11.1, or ignores
    ('{"method":"ngram","num_speculative_tokens":"5"}', "0.25.1"),
    ('{"method":"ngram","num_speculative_tokens":5.0,"prompt_lookup_max":"4"}', "0.11.1"),
    ('{"method":"ngram","num_speculative_tokens":true,"prompt_lookup_max":null}', "0.25.1"),
    ('{"method":"mtp","num_speculative_tokens":1,"prompt_lookup_min":5,"prompt_lookup_max":2}', "0.25.1"),
    ('{"method":null,"model":"ngram","num_speculative_tokens":5}', "0.25.1"),
    ('{"method":"ngram","num-speculative-tokens":5}', "0.26"),               # dashed keys read from 0.26
    ('{"method":"ngram","num_speculative_tokens":5,"kv_cache_dtype":"auto"}', "0.33"),  # a field from 0.30
    ('{"method":"extract_hidden_states","num_speculative_tokens":1}', "0.17.1"),
    ('{"method":"deepseek_mtp","num_speculative_tokens":1}', "0.10"),   # before mtp existed: the right name
    ({"method": "ngram", "num_speculative_tokens": 5}, "0.25.1"),       # an already-parsed value
]


@pytest.mark.parametrize("value,version", PASS)
def test_pass(value, version: str) -> None:
    assert found(value, version) == []


FAIL = [
    # SD601 / SD602: what vLLM cannot read at all (VLLM.md "On the command line": strict JSON object).
    ("{'method':'ngram','num_speculative_tokens':5}", "0.25.1", [(
        "SD601", E, "speculative-config is not valid JSON (Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)); vLLM exits at start-up: write one JSON object with double-quoted keys and strings, "
        f"e.g. {EXAMPLE} (single quotes around it in YAML)", "", None)]),
    ("ngram", "0.25.1", [(
        "SD601", E, "speculative-config is not valid JSON (Expecting value: line 1 column 1 (char 0)); vLLM exits at "
        f"start-up: write one JSON object with double-quoted keys and strings, e.g. {EXAMPLE} (single quotes "
        "around it in YAML)", "", None)]),
    ('["ngram"]', "0.25.1", [("SD602", E, "speculative-config is a list, not a JSON object; vLLM exits at start-up: "
                              f"write an object such as {EXAMPLE}", "", None)]),
    ('"{}"', "0.25.1", [("SD602", E, "speculative-config is a string, not a JSON object; vLLM exits at start-up: "
                         f"write an object such as {EXAMPLE}", "", None)]),
    ("5", "0.25.1", [("SD602", E, "speculative-config is a number, not a JSON object; vLLM exits at start-up: "
                      f"write an object such as {EXAMPLE}", "", None)]),
    *[(value, "0.25.1", [("SD617", W, f"speculative-config is {shown}, which vLLM 0.25.1 reads as no speculative "
                                "config: the server starts without speculative decoding; write an object such as "
                                f"{EXAMPLE}, or remove the key", "", None)])
      for value, shown in (("null", '"null"'), ("", '""'), ("None", '"None"'), (None, "null"))],
    # SD603: unknown (case-sensitive); a case-only slip gets the right spelling proposed.
    ('{"method":"Ngram","num_speculative_tokens":5}', "0.25.1", [(
        "SD603", E, 'method "Ngram" is not a speculative method vLLM 0.25.1 knows (names are case-sensitive), so the '
        f"server exits at start-up; use one of: {M025}", "method", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"lookahead","num_speculative_tokens":5}', "0.12", [(
        "SD603", E, 'method "lookahead" is not a speculative method vLLM 0.12 knows (names are case-sensitive), so '
        f"the server exits at start-up; use one of: {M012}", "method", None)]),
    ('{"method":5,"num_speculative_tokens":5}', "0.10", [(
        "SD603", E, "method 5 is not a speculative method vLLM 0.10 knows (names are case-sensitive), so the server "
        f"exits at start-up; use one of: {M0100}", "method", None)]),
    # SD604: the list changes by version.
    ('{"method":"mtp","num_speculative_tokens":1}', "0.10.2", [(
        "SD604", E, 'method "mtp" is not in vLLM 0.10.2 (added in vLLM 0.11), so the server exits at start-up; use '
        f"one of: {M010}, or set vllmVersion to the vLLM your image runs", "method", None)]),
    ('{"method":"medusa","model":"x/m","num_speculative_tokens":2}', "0.33.0", [(
        "SD604", E, 'method "medusa" is not in vLLM 0.33 (removed in vLLM 0.33), so the server exits at start-up; '
        f"use one of: {M033}, or set vllmVersion to the vLLM your image runs", "method", None)]),
    ('{"method":"dspark","num_speculative_tokens":7}', "0.22.1", [(
        "SD604", E, 'method "dspark" is not in vLLM 0.22.1 (added in vLLM 0.25), so the server exits at start-up; '
        f"use one of: {M012}, ngram_gpu, dflash, custom_class, extract_hidden_states, or set vllmVersion to the "
        "vLLM your image runs", "method", None)]),
    # SD605
    ('{"num_speculative_tokens":5}', "0.25.1", [(
        "SD605", E, 'speculative-config has neither "method" nor "model"; vLLM takes it for a draft model without '
        'one and exits at start-up: add "method" (for example "ngram" or "mtp")', "", None)]),
    # SD606 / SD607
    ('{"method":"ngram"}', "0.25.1", [(
        "SD606", E, 'speculative-config has no "num_speculative_tokens"; vLLM needs it for every method but suffix '
        "and exits at start-up: add it (KAITO uses 1 for mtp, 5 for ngram)", "num_speculative_tokens", None)]),
    ('{"method":"ngram","num_speculative_tokens":0}', "0.25.1", [(
        "SD607", E, "num_speculative_tokens is 0; vLLM needs an integer greater than 0 and exits at start-up: write a "
        "JSON integer such as 5 (no quotes)", "num_speculative_tokens", None)]),
    ('{"method":"ngram","num_speculative_tokens":"5"}', "0.11.0", [(   # coerced only from 0.11.1
        "SD607", E, 'num_speculative_tokens is "5"; vLLM needs an integer greater than 0 and exits at start-up: '
        "write a JSON integer such as 5 (no quotes)", "num_speculative_tokens", None)]),
    ('{"method":"ngram","num_speculative_tokens":5.5}', "0.25.1", [(
        "SD607", E, "num_speculative_tokens is 5.5; vLLM needs an integer greater than 0 and exits at start-up: "
        "write a JSON integer such as 5 (no quotes)", "num_speculative_tokens", None)]),
    # SD608 / SD609
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":0}', "0.25.1", [(
        "SD608", E, "prompt_lookup_min is 0; vLLM needs an integer of at least 1 and exits at start-up: write a "
        "JSON integer such as 2 (no quotes), or leave it out", "prompt_lookup_min", None)]),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":2.5}', "0.25.1", [(
        "SD608", E, "prompt_lookup_max is 2.5; vLLM needs an integer of at least 1 and exits at start-up: write a "
        "JSON integer such as 2 (no quotes), or leave it out", "prompt_lookup_max", None)]),
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_min":5,"prompt_lookup_max":4}', "0.25.1", [(
        "SD609", E, "prompt_lookup_min (5) is greater than prompt_lookup_max (4); vLLM exits at start-up: make "
        "prompt_lookup_min at most prompt_lookup_max", "prompt_lookup_min", None)]),
    # SD610, for every method that needs a draft model
    *[(f'{{"method":"{m}","num_speculative_tokens":3}}', "0.25.1", [(
        "SD610", E, f'method "{m}" needs a draft "model" (a Hugging Face id or path) and vLLM exits at start-up '
        'without one: add "model", or use "ngram", which needs none', "model", None)])
      for m in ("eagle", "eagle3", "draft_model", "medusa", "mlp_speculator", "dflash", "custom_class")],
    ('{"method":"eagle","model":"","num_speculative_tokens":3}', "0.25.1", [(
        "SD610", E, 'method "eagle" needs a draft "model" (a Hugging Face id or path) and vLLM exits at start-up '
        'without one: add "model", or use "ngram", which needs none', "model", None)]),
    # SD611 / SD612: removed keys, by version
    ('{"method":"ngram","num_speculative_tokens":5,"disable_by_batch_size":4}', "0.17", [(
        "SD611", E, "disable_by_batch_size was removed in vLLM 0.17 and vLLM 0.17 refuses unknown keys, so the "
        "server exits at start-up: remove disable_by_batch_size", "disable_by_batch_size",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"disable_by_batch_size":4}', "0.16.0", [(
        "SD612", W, "disable_by_batch_size is read by nothing in vLLM's code (vLLM 0.17 removed it): vLLM 0.16 "
        "ignores it; remove disable_by_batch_size", "disable_by_batch_size",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"disable_logprobs":false,"method":"ngram","num_speculative_tokens":5}', "0.16", [(
        "SD611", E, "disable_logprobs was removed in vLLM 0.11.1 and vLLM 0.16 refuses unknown keys, so the server "
        "exits at start-up: remove disable_logprobs", "disable_logprobs",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"disable_logprobs":false}', "0.15.1", [(
        "SD612", W, "disable_logprobs was removed in vLLM 0.11.1: vLLM 0.15.1 ignores it; remove disable_logprobs",
        "disable_logprobs", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"eagle","model":"m","num_speculative_tokens":3,"speculative_token_tree":"[(0,)]"}', "0.22", [(
        "SD611", E, "speculative_token_tree was removed in vLLM 0.21 and vLLM 0.22 refuses unknown keys, so the "
        "server exits at start-up: remove speculative_token_tree", "speculative_token_tree",
        '{"method":"eagle","model":"m","num_speculative_tokens":3}')]),
    # SD613 / SD614: unknown keys (from 0.16 refused; 0.12 to 0.15 ignored), with a close match proposed
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_maxx":4}', "0.25.1", [(
        "SD613", E, '"prompt_lookup_maxx" is not a speculative-config key of vLLM 0.25.1, which refuses unknown keys, '
        'so the server exits at start-up: rename it to "prompt_lookup_max"', "prompt_lookup_maxx",
        '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"kv_cache_dtype":"auto"}', "0.25.1", [(
        "SD613", E, '"kv_cache_dtype" is not a speculative-config key of vLLM 0.25.1 (vLLM 0.26 added it), which '
        "refuses unknown keys, so the server exits at start-up: remove it", "kv_cache_dtype",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num-speculative-tokens":5}', "0.25.1", [(   # read as num_speculative_tokens from 0.26
        "SD606", E, 'speculative-config has no "num_speculative_tokens"; vLLM needs it for every method but suffix '
        "and exits at start-up: add it (KAITO uses 1 for mtp, 5 for ngram)", "num_speculative_tokens", None), (
        "SD613", E, '"num-speculative-tokens" is not a speculative-config key of vLLM 0.25.1, which refuses unknown '
        'keys, so the server exits at start-up: rename it to "num_speculative_tokens"', "num-speculative-tokens",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"acceptance_method":"x"}', "0.15", [(
        "SD614", W, '"acceptance_method" is not a speculative-config key of vLLM 0.15, which ignores it: remove it',
        "acceptance_method", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"made_up":1}', "0.11", [(
        "SD614", W, '"made_up" is not a speculative-config key of vLLM 0.11, which ignores it: remove it',
        "made_up", '{"method":"ngram","num_speculative_tokens":5}')]),
    # SD618: draft models, refused up to 0.14 and without a method up to 0.16
    ('{"method":"draft_model","model":"x/y","num_speculative_tokens":4}', "0.14.1", [(
        "SD618", E, 'speculative-config asks for a draft model, and vLLM 0.14.1 cannot run that ("Speculative '
        'decoding with draft model is not supported yet"), so the server exits at start-up: give the "method" the '
        'draft model is for (for example "eagle3"), or use "ngram"', "model", None)]),
    ('{"model":"x/y","num_speculative_tokens":4}', "0.16.0", [(
        "SD618", E, 'speculative-config has a "model" and no "method", which vLLM reads as a draft model, and vLLM '
        "0.16 cannot run that (\"Unsupported speculative method: 'None'\"), so the server exits at start-up: give "
        'the "method" the draft model is for (for example "eagle3"), or use "ngram"', "model", None)]),
    # SD619: values the release's validation refuses
    ('{"method":"ngram","num_speculative_tokens":5,"draft_tensor_parallel_size":0}', "0.25.1", [(
        "SD619", E, "draft_tensor_parallel_size is 0; vLLM 0.25.1 needs an integer of at least 1 and exits at "
        "start-up: write 1, or leave it out", "draft_tensor_parallel_size", None)]),
    ('{"method":"ngram","num_speculative_tokens":5,"disable_padded_drafter_batch":"maybe"}', "0.25.1", [(
        "SD619", E, 'disable_padded_drafter_batch is "maybe"; vLLM 0.25.1 needs true or false and exits at start-up: '
        "write true or false (no quotes)", "disable_padded_drafter_batch", None)]),
    ('{"method":"ngram","num_speculative_tokens":5,"disable_by_batch_size":1}', "0.16", [(
        "SD619", E, "disable_by_batch_size is 1; vLLM 0.16 needs an integer of at least 2 and exits at start-up: "
        "remove it: it has no effect since vLLM 0.10", "disable_by_batch_size", None), (
        "SD612", W, "disable_by_batch_size is read by nothing in vLLM's code (vLLM 0.17 removed it): vLLM 0.16 "
        "ignores it; remove disable_by_batch_size", "disable_by_batch_size",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    # SD620: quantization names checked up to 0.18
    ('{"method":"ngram","num_speculative_tokens":5,"quantization":"bogus"}', "0.18.1", [(
        "SD620", E, 'quantization "bogus" is not a quantization method vLLM 0.18.1 knows, so the server exits at '
        f"start-up: use one of {', '.join(QUANT_0181)}, or leave it out (the draft then follows the target)",
        "quantization", None)]),
    # SD621: tensor_parallel_size refused from 0.16 (0.15 only warns)
    ('{"method":"ngram","num_speculative_tokens":5,"tensor_parallel_size":2}', "0.16", [(
        "SD621", E, "vLLM 0.16 refuses tensor_parallel_size in the speculative-config (\"'tensor_parallel_size' is "
        "not a valid argument\") and exits at start-up: rename it to draft_tensor_parallel_size",
        "tensor_parallel_size", '{"method":"ngram","num_speculative_tokens":5,"draft_tensor_parallel_size":2}')]),
    # SD615 / SD616: advice
    ('{"method":"deepseek_mtp","num_speculative_tokens":1}', "0.25.1", [(
        "SD615", INFO, 'method "deepseek_mtp" is a model-specific MTP name that vLLM 0.25.1 rewrites to "mtp" with a '
        "deprecation warning: write \"method\":\"mtp\" (the target model's MTP layers are found either way)",
        "method", '{"method":"mtp","num_speculative_tokens":1}')]),
    ('{"method":"qwen3_5_mtp","num_speculative_tokens":1}', "0.16", [(
        "SD604", E, 'method "qwen3_5_mtp" is not in vLLM 0.16 (added in vLLM 0.17), so the server exits at start-up; '
        f"use one of: {M012}, or set vllmVersion to the vLLM your image runs", "method", None)]),
    ('{"method":"kimi_k3_mtp","num_speculative_tokens":1}', "0.25.1", [(
        "SD604", E, 'method "kimi_k3_mtp" is not in vLLM 0.25.1 (added in vLLM 0.27), so the server exits at start-up; '
        f"use one of: {M025}, or set vllmVersion to the vLLM your image runs", "method", None)]),
    ('{"method":"suffix"}', "0.11.0", [(
        "SD604", E, 'method "suffix" is not in vLLM 0.11 (added in vLLM 0.11.1), so the server exits at start-up; '
        "use one of: ngram, draft_model, eagle, eagle3, medusa, mlp_speculator, mtp, or set vllmVersion to the vLLM "
        "your image runs", "method", None)]),
    ('{"method":"suffix","num_speculative_tokens":0}', "0.25.1", [(
        "SD607", E, "num_speculative_tokens is 0; vLLM needs an integer greater than 0 and exits at start-up: write a "
        "JSON integer such as 5 (no quotes)", "num_speculative_tokens", None), (
        "SD616", INFO, 'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at '
        'start-up without it: "Arctic Inference is required for suffix decoding"): check the image has it, or use '
        '"ngram"', "method", None)]),
    # SD619 for suffix_decoding_max_tree_depth (every release with suffix checks it, after arctic up to 0.33)
    ('{"method":"suffix","num_speculative_tokens":8,"suffix_decoding_max_tree_depth":0}', "0.34.0", [(
        "SD619", E, "suffix_decoding_max_tree_depth is 0; vLLM 0.34 needs an integer of at least 1 and exits at "
        "start-up: write the tree depth (24 by default), or leave it out", "suffix_decoding_max_tree_depth", None)]),
    # SD623 / SD624: a release newer than the tables; what the newest one does not know is a warning
    ('{"method":"Ngram","num_speculative_tokens":5}', "0.40", [(
        "SD623", W, f'method "Ngram" is not one vLLM {NEWEST} knows (names are case-sensitive); '
        f"vLLM {NEWEST} is the newest release modelled, older than the vLLM 0.40 named: check that "
        f"vLLM 0.40 has it, or use one of: {M034}", "method", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"custom_class","model":"a.B","num_speculative_tokens":5}', "0.40", [(
        "SD623", W, f'method "custom_class" is not one vLLM {NEWEST} knows (removed in vLLM '
        f"{NEWEST}); vLLM {NEWEST} is the newest release modelled, older than the vLLM 0.40 named: "
        f"check that vLLM 0.40 has it, or use one of: {M034}", "method", None)]),
    ('{"method":"ngram","num_speculative_tokens":5,"fancy_new_key":1}', "0.35.1", [(
        "SD624", W, f'"fancy_new_key" is not a speculative-config key of vLLM {NEWEST}, which refuses unknown keys; '
        f"vLLM {NEWEST} is the newest release this function models, older than the vLLM 0.35.1 named: check that "
        "vLLM 0.35.1 takes it, or remove fancy_new_key", "fancy_new_key", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"suffix"}', "0.25.1", [(
        "SD616", INFO, 'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at '
        'start-up without it: "Arctic Inference is required for suffix decoding"): check the image has it, or use '
        '"ngram"', "method", None)]),
]


@pytest.mark.parametrize("value,version,expected", FAIL, ids=lambda x: x if isinstance(x, str) else "")
def test_fail(value, version: str, expected: list[tuple]) -> None:
    assert found(value, version) == expected


def test_findings_add_up() -> None:
    """Independent mistakes are all reported, in a fixed order (method, tokens, lookup, keys, advice)."""
    value = '{"method":"eagle","prompt_lookup_min":0,"made_up":1}'
    assert [f[0] for f in found(value)] == ["SD610", "SD606", "SD608", "SD613"]


def test_every_id_is_declared_tested_and_emitted_once() -> None:
    from finding_ids import ids_used
    from krm_fn.findings import vllm_config
    # SD625 and SD626 are vllm_combos' (the config beside the server's other settings: tests/domain/test_vllm_combos.py)
    declared = {s.id for s in vllm_config.SPECS} - {"SD625", "SD626"}
    emitted = ids_used(vllm_schema)
    # An id with several messages names each variant at its own call (`finding("SD612.unused", …)`).
    source = Path(vllm_schema.__file__).read_text(encoding="utf-8")
    calls = re.findall(r'\bfinding\(\s*"(SD[0-9]{3}(?:\.[A-Za-z0-9_-]+)?)"', source)
    assert len(calls) == len(emitted) and sorted(calls) == sorted(set(calls)), "one id (or variant), one call site"
    assert set(emitted) == declared
    tested = {f[0] for _, _, expected in FAIL for f in expected}
    assert tested | {"SD622"} == declared  # SD622: newer_release, below


@pytest.mark.parametrize("text,version", [
    ("0.25.1", (0, 25, 1)), ("v0.11", (0, 11, 0)), ("0.10.1.1", (0, 10, 1)), ("0.11.0rc2", (0, 11, 0)),
    ("0.9.2.post1+cu128", (0, 9, 2)), (" 1.0 ", (1, 0, 0)), ("0.16.0.dev3", (0, 16, 0)),
])
def test_parse_version(text: str, version: tuple) -> None:
    assert parse_version(text) == version


@pytest.mark.parametrize("text", ["", "latest", "0", "0.x", "0.25.1-cuda", None, 0.25])
def test_parse_version_refuses(text) -> None:
    with pytest.raises(ValueError, match="vllmVersion must be a vLLM release such as 0.25.1"):
        parse_version(text)


def test_versions_compare_numerically() -> None:
    assert parse_version("0.9") < parse_version("0.10") < parse_version("0.11.2") < parse_version("0.16")


def test_default_is_what_kaito_ships() -> None:
    # Where it came from is in the module; here only that it is a release the tables know.
    assert parse_version(DEFAULT_VLLM_VERSION) == (0, 25, 1)


def test_a_parsed_value_with_a_date_still_gets_a_proposal() -> None:
    import datetime
    value = {"method": "deepseek_mtp", "num_speculative_tokens": 1, "revision": datetime.date(2026, 1, 1)}
    assert [f.proposed for f in check_speculative_config(value)] == [
        '{"method":"mtp","num_speculative_tokens":1,"revision":"2026-01-01"}']


def test_versions_beyond_the_facts_are_judged_by_the_newest_known_rules() -> None:
    """Issue #30: a release newer than the tables is judged by the newest one's verdicts, named as that one's;
    what that one does not know is a warning (SD623, SD624), its other refusals stay errors."""
    assert vllm_schema.facts().releases[-1] == (0, 34, 0)
    assert [(f[0], f[1]) for f in found('{"method":"medusa","model":"m","num_speculative_tokens":2}', "0.40")] == [
        ("SD623", W)]
    assert [(f[0], f[1]) for f in found('{"method":"ngram","num_speculative_tokens":0}', "0.40")] == [("SD607", E)]
    removed = found('{"method":"ngram","num_speculative_tokens":5,"disable_padded_drafter_batch":true}', "0.40")
    assert [(f[0], f[1]) for f in removed] == [("SD624", W)]
    # at the newest release itself nothing changes: it refuses what it does not know
    assert [(f[0], f[1]) for f in found('{"method":"custom_class","model":"a.B","num_speculative_tokens":5}',
                                        "0.34.0")] == [("SD604", E)]
    # no message says what the newer release does: each names 0.34, and 0.40 only as the release named
    for value in ('{"method":"Ngram","num_speculative_tokens":5}', '{"method":"suffix"}',
                  '{"method":"ngram","num_speculative_tokens":5,"use_heterogeneous_vocab":true}', "None"):
        for f in found(value, "0.40"):
            assert "vLLM 0.40 " not in f[2].replace("vLLM 0.40 named", "").replace("vLLM 0.40 has", "") \
                .replace("vLLM 0.40 takes", ""), f[2]


@pytest.mark.parametrize("value,version,ids", [
    # Issue #30, read from the wheels: before 0.10.1 `--speculative-config` is `type=json.loads` (arg_utils.py:746
    # at 0.10.0): "" and "None" exit ("invalid loads value"); 0.10.1's optional_type reads them as no config.
    ("", "0.10.0", [("SD601", E)]), ("None", "0.9.2", [("SD601", E)]), ("", "0.8.5", [("SD601", E)]),
    ("", "0.10.1", [("SD617", W)]), ("None", "0.10.1", [("SD617", W)]), ("null", "0.10.0", [("SD617", W)]),
    # SpeculativeMethod at 0.10.0 and 0.10.1 has deepseek_mtp only; ernie_mtp and qwen3_next_mtp come in 0.10.2
    ('{"method":"ernie_mtp","num_speculative_tokens":1}', "0.10.1", [("SD604", E)]),
    ('{"method":"qwen3_next_mtp","num_speculative_tokens":1}', "0.10.0", [("SD604", E)]),
    ('{"method":"ernie_mtp","num_speculative_tokens":1}', "0.10.2", []),
    ('{"method":"deepseek_mtp","num_speculative_tokens":1}', "0.10.1", []),
])
def test_releases_before_the_oldest_run_as_read_from_their_source(value, version, ids) -> None:
    assert [(f[0], f[1]) for f in found(value, version)] == ids


@pytest.mark.parametrize("version,ids", [("0.11.0", []), ("0.10.2", []), ("0.11.1", [("SD608", E)]),
                                         ("0.25.1", [("SD608", E)])])
def test_prompt_lookup_is_checked_for_mtp_only_from_0_11_1(version, ids) -> None:
    """Issue #30: up to 0.11.0 the lookup values are checked in the ngram branch only (speculative.py:247-269 at
    0.11.0); from 0.11.1 a `Field(ge=1)` checks them for every method."""
    method = "deepseek_mtp" if version == "0.10.2" else "mtp"
    value = f'{{"method":"{method}","num_speculative_tokens":1,"prompt_lookup_max":0}}'
    assert [(f[0], f[1]) for f in found(value, version) if f[0] != "SD615"] == ids


@pytest.mark.parametrize("value,version,ids", [
    # Issue #30: RejectionSampleMethod read from each release's source (tools/vllm_verdicts.py read_facts):
    # Literal["strict", "probabilistic"] at 0.18.1, "synthetic" from 0.19, "standard" (and no "strict") from 0.21
    ("standard", "0.18.0", [("SD619", E)]), ("standard", "0.19.1", [("SD619", E)]), ("standard", "0.20.2", [("SD619", E)]),
    ("standard", "0.21.0", []), ("standard", "0.25.1", []), ("strict", "0.19.1", []), ("strict", "0.25.1", [("SD619", E)]),
    ("fly", "0.33.0", []), ("fly", "0.32.0", [("SD619", E)]),
])
def test_rejection_sample_method_values_by_release(value, version, ids) -> None:
    cfg = f'{{"method":"ngram","num_speculative_tokens":5,"rejection_sample_method":"{value}"}}'
    assert [(f[0], f[1]) for f in found(cfg, version)] == ids


def test_rejection_sample_method_names_what_the_release_takes() -> None:
    assert found('{"method":"ngram","num_speculative_tokens":5,"rejection_sample_method":"standard"}', "0.19.1")[0][2] == (
        'rejection_sample_method is "standard"; vLLM 0.19.1 needs one of probabilistic, strict, synthetic and exits at '
        "start-up: write one of them, or leave it out")


def test_an_alias_added_in_0_10_2_is_named_with_its_patch() -> None:
    assert "(added in vLLM 0.10.2)" in found('{"method":"ernie_mtp","num_speculative_tokens":1}', "0.10.1")[0][2]


def test_a_field_a_config_cannot_set_is_an_unknown_key() -> None:
    """0.34.0's `custom_method: str | None = field(default=None, init=False)` (speculative.py:479): pydantic refuses
    it as an unexpected keyword argument (tools/vllm_verdicts.py now records init fields only)."""
    assert [(f[0], f[1]) for f in found('{"method":"ngram","num_speculative_tokens":5,"custom_method":"x"}', "0.34.0")] \
        == [("SD613", E)]


def test_a_newer_release_is_named_beside_the_newest_modelled() -> None:
    finding = vllm_schema.newer_release("0.40", "the vllmVersion setting")
    assert finding is not None and (finding.id, finding.severity) == ("SD622", W)
    assert finding.message == (
        f"vLLM 0.40 (the vllmVersion setting) is newer than vLLM {NEWEST}, the newest release this function "
        f"models: speculative configs are judged by vLLM {NEWEST}'s facts, and a method or key vLLM {NEWEST} does "
        "not know is a warning, not an error; check them against vLLM 0.40's release notes, or use a "
        "kaito-specdec that models it")
    assert vllm_schema.newer_release("0.34.0", "x") is None
    assert vllm_schema.newer_release("0.34.0.post1", "x") is None
    assert vllm_schema.newer_release("0.25.1", "x") is None


# --- dotted speculative-config.<field> keys, as KAITO's runtime and vLLM's FlexibleArgumentParser merge them


@pytest.mark.parametrize("entries,expected", [
    ([("speculative-config.method", "ngram"), ("speculative-config.num_speculative_tokens", 5)],
     {"method": "ngram", "num_speculative_tokens": 5}),
    # a quoted "5" reaches vLLM as the text 5: json.loads makes it a number
    ([("speculative-config.num_speculative_tokens", "5")], {"num_speculative_tokens": 5}),
    # str(True) is "True", which is no JSON: the text stays (pydantic, not this module, judges booleans)
    ([("speculative-config.enforce_eager", True)], {"enforce_eager": "True"}),
    ([("speculative-config.method", None)], {"method": "None"}),
    # human_readable_int: 4k is 4000, 1K is 1024
    ([("speculative-config.max_model_len", "4k")], {"max_model_len": 4000}),
    ([("speculative-config.max_model_len", "1K")], {"max_model_len": 1024}),
    # `+` makes a list of the comma-separated text; nested keys nest; the underscore spelling is the same flag
    ([("speculative_config.a+", "x,y"), ("speculative-config.b.c", 1)], {"a": ["x", "y"], "b": {"c": 1}}),
    # repeated: the last wins
    ([("speculative-config.method", "ngram"), ("speculative-config.method", "suffix")], {"method": "suffix"}),
])
def test_dotted_keys_merge_as_vllm_merges_them(entries, expected):
    assert dotted_config(entries) == expected


def test_a_dotted_config_is_checked_like_a_json_one():
    ids = [f.id for f in check_speculative_config(dotted_config([("speculative-config.method", "eagle3"),
                                                                 ("speculative-config.num_speculative_tokens", 3)]))]
    assert ids == ["SD610"]


def test_a_dotted_value_that_aliases_blow_up_is_not_spelled_out():
    bomb: list = ["x"]
    for _ in range(40):
        bomb = [bomb, bomb]  # 2**40 leaves when printed, as YAML aliases make them
    cfg = dotted_config([("speculative-config.method", bomb)])
    assert cfg == {"method": "<a list of more than 10000 elements>"}
    assert [f.id for f in check_speculative_config(cfg)] == ["SD603", "SD606"]


# --- held against vLLM itself: tests/vllm_verdicts.json, generated by tools/vllm_verdicts.py -------------

TABLE_PATH = Path(__file__).parents[1] / "vllm_verdicts.json"
TABLE = json.loads(TABLE_PATH.read_text(encoding="utf-8"))


def _tool():
    spec = importlib.util.spec_from_file_location("vllm_verdicts", Path(__file__).parents[2] / "tools" / "vllm_verdicts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _verdict(findings) -> str:
    if any(f.severity is Severity.ERROR for f in findings):
        return "refuses"
    return "off" if any(f.id == "SD617" for f in findings) else "starts"


def _expected(row: dict) -> str:
    # Without arctic-inference (none in the venv that ran it) suffix decoding refuses; the function cannot
    # see the image's packages and says so (SD616, info), so such a row counts as a start.
    if row["verdict"] == "refuses" and "Arctic Inference is required" in row.get("error", ""):
        return "starts"
    return row["verdict"]


# One test per release, every row of it checked (a test per row: 2,700 tests, most of their time pytest's).
RELEASES = sorted({row["release"] for row in TABLE["rows"]}, key=parse_version)


@pytest.mark.parametrize("release", RELEASES)
def test_agrees_with_vllm_row_for_row(release: str) -> None:
    rows = [row for row in TABLE["rows"] if row["release"] == release]
    assert rows
    wrong = []
    for row in rows:
        findings = check_speculative_config(row["value"], row["release"])
        if _verdict(findings) != _expected(row):
            wrong.append(f'{row["value"]}: vLLM {_expected(row)}, the function {_verdict(findings)} '
                         f'({row.get("error")}; {[f.message for f in findings]})')
    assert not wrong, f"{len(wrong)} of {len(rows)} rows of {release}:\n" + "\n".join(wrong[:20])


def test_the_table_covers_every_minor_release() -> None:
    releases = [f["release"] for f in TABLE["facts"]]
    assert releases == sorted(releases, key=parse_version)
    minors = {parse_version(r)[:2] for r in releases}
    newest = parse_version(releases[-1])
    assert minors == {(0, m) for m in range(10, newest[1] + 1)}
    assert {"0.10.2", DEFAULT_VLLM_VERSION} <= set(releases)
    assert all(row["release"] in releases and row["how"] in ("run", "read") for row in TABLE["rows"])


def test_the_generated_facts_are_the_tables() -> None:
    """krm_fn/domain/data/vllm_schema.json is what tools/vllm_verdicts.py writes from the table, and
    vllm_schema reads it: the releases run, and each family's spans."""
    tool = _tool()
    data = tool.schema_data(TABLE)
    assert tool.write_data(Path(vllm_schema.DATA), data, check=True) == 0, \
        "run: python tools/vllm_verdicts.py --data tests/vllm_verdicts.json"
    facts = vllm_schema.facts()
    assert facts.releases == tuple(parse_version(f["release"]) for f in TABLE["facts"])
    for key, spans in (("fields", facts.fields), ("methods", facts.methods), ("mtp_aliases", facts.mtp),
                       ("quantization", facts.quantization), ("flags", facts.flags)):
        assert {name: [[shown_run(a), shown_run(b)] for a, b in runs] for name, runs in spans.items()} == data[key]
    assert facts.mtp_aliases == tuple(sorted(set(data["mtp_aliases"]) - {"mtp"}))


def shown_run(release: tuple | None) -> str | None:
    return None if release is None else ".".join(map(str, release))


def test_a_method_that_is_no_string_is_an_error_naming_the_key() -> None:
    for value in ('{"method":{"name":"ngram"},"num_speculative_tokens":5}', '{"method":["ngram"],"num_speculative_tokens":5}'):
        (f,) = check_speculative_config(value)
        assert (f.id, f.field) == ("SD603", "method")
