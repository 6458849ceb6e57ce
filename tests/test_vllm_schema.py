"""vllm_schema: every finding PASS/FAIL, with exact messages, per vLLM version (VLLM.md "Schema")."""
from __future__ import annotations

import inspect
import re

import pytest

from krm_fn import vllm_schema
from krm_fn.results import Severity
from krm_fn.vllm_schema import DEFAULT_VLLM_VERSION, FINDINGS, check_speculative_config, dotted_config, parse_version

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
EXAMPLE = '\'{"method":"ngram","num_speculative_tokens":5}\''
M012 = "ngram, draft_model, suffix, eagle, eagle3, medusa, mlp_speculator, mtp"
M025 = M012 + ", ngram_gpu, dflash, custom_class, dspark, extract_hidden_states"
M033 = "ngram, draft_model, suffix, eagle, eagle3, mtp, ngram_gpu, dflash, custom_class, dspark, extract_hidden_states"
M010 = ("ngram, draft_model, suffix, eagle, eagle3, medusa, mlp_speculator, deepseek_mtp, mimo_mtp, glm4_moe_mtp, "
        "ernie_mtp, qwen3_next_mtp, longcat_flash_mtp, pangu_ultra_moe_mtp")


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
    ('{"method":"ngram","num_speculative_tokens":5,"disable_by_batch_size":4}', "0.9"),      # still a field then
    ('{"method":"ngram","num_speculative_tokens":5,"made_up":1}', "0.11"),  # key set not known before 0.12
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
    ("null", "0.25.1", [("SD602", E, "speculative-config is null, not a JSON object; vLLM exits at start-up: "
                         f"write an object such as {EXAMPLE}", "", None)]),
    # SD603: unknown (case-sensitive); a case-only slip gets the right spelling proposed.
    ('{"method":"Ngram","num_speculative_tokens":5}', "0.25.1", [(
        "SD603", E, 'method "Ngram" is not a speculative method vLLM 0.25.1 knows (names are case-sensitive), so the '
        f"server exits at start-up; use one of: {M025}", "method", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"lookahead","num_speculative_tokens":5}', "0.12", [(
        "SD603", E, 'method "lookahead" is not a speculative method vLLM 0.12 knows (names are case-sensitive), so '
        f"the server exits at start-up; use one of: {M012}", "method", None)]),
    ('{"method":5,"num_speculative_tokens":5}', "0.10", [(
        "SD603", E, "method 5 is not a speculative method vLLM 0.10 knows (names are case-sensitive), so the server "
        f"exits at start-up; use one of: {M010}", "method", None)]),
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
    ('{"method":"ngram","num_speculative_tokens":"5"}', "0.25.1", [(
        "SD607", E, 'num_speculative_tokens is "5"; vLLM needs an integer greater than 0 and exits at start-up: '
        "write a JSON integer such as 5 (no quotes)", "num_speculative_tokens", None)]),
    ('{"method":"ngram","num_speculative_tokens":true}', "0.25.1", [(
        "SD607", E, "num_speculative_tokens is true; vLLM needs an integer greater than 0 and exits at start-up: "
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
        "SD612", W, "disable_by_batch_size has no effect in vLLM 0.16 (removed in 0.17; refused from 0.17): remove "
        "disable_by_batch_size", "disable_by_batch_size", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"disable_logprobs":false,"method":"ngram","num_speculative_tokens":5}', "0.16", [(
        "SD611", E, "disable_logprobs was removed in vLLM 0.11.2 and vLLM 0.16 refuses unknown keys, so the server "
        "exits at start-up: remove disable_logprobs", "disable_logprobs",
        '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"disable_logprobs":false}', "0.15.1", [(
        "SD612", W, "disable_logprobs has no effect in vLLM 0.15.1 (removed in 0.11.2; refused from 0.16): remove "
        "disable_logprobs", "disable_logprobs", '{"method":"ngram","num_speculative_tokens":5}')]),
    ('{"method":"eagle","model":"m","num_speculative_tokens":3,"speculative_token_tree":"[(0,)]"}', "0.22", [(
        "SD611", E, "speculative_token_tree was removed in vLLM 0.22 and vLLM 0.22 refuses unknown keys, so the "
        "server exits at start-up: remove speculative_token_tree", "speculative_token_tree",
        '{"method":"eagle","model":"m","num_speculative_tokens":3}')]),
    # SD613 / SD614: unknown keys (from 0.16 refused; 0.12 to 0.15 ignored), with a close match proposed
    ('{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_maxx":4}', "0.25.1", [(
        "SD613", E, '"prompt_lookup_maxx" is not a speculative-config key and vLLM 0.25.1 refuses unknown keys (from '
        '0.16), so the server exits at start-up: rename it to "prompt_lookup_max"', "prompt_lookup_maxx",
        '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"tensor_parallel_size":2}', "0.16", [(
        "SD613", E, '"tensor_parallel_size" is not a speculative-config key and vLLM 0.16 refuses unknown keys (from '
        '0.16), so the server exits at start-up: rename it to "draft_tensor_parallel_size"', "tensor_parallel_size",
        '{"method":"ngram","num_speculative_tokens":5,"draft_tensor_parallel_size":2}')]),
    ('{"method":"ngram","num_speculative_tokens":5,"acceptance_method":"x"}', "0.15", [(
        "SD614", W, '"acceptance_method" is not a speculative-config key; vLLM 0.15 ignores it (vLLM 0.16 and later '
        "refuse it): remove it", "acceptance_method", '{"method":"ngram","num_speculative_tokens":5}')]),
    # SD615 / SD616: advice
    ('{"method":"deepseek_mtp","num_speculative_tokens":1}', "0.25.1", [(
        "SD615", I, 'method "deepseek_mtp" is a model-specific MTP name that vLLM 0.25.1 rewrites to "mtp" with a '
        "deprecation warning: write \"method\":\"mtp\" (the target model's MTP layers are found either way)",
        "method", '{"method":"mtp","num_speculative_tokens":1}')]),
    ('{"method":"qwen3_5_mtp","num_speculative_tokens":1}', "0.11", [(
        "SD615", I, 'method "qwen3_5_mtp" is a model-specific MTP name that vLLM 0.11 rewrites to "mtp" with a '
        "deprecation warning: write \"method\":\"mtp\" (the target model's MTP layers are found either way)",
        "method", '{"method":"mtp","num_speculative_tokens":1}')]),
    ('{"method":"suffix","num_speculative_tokens":0}', "0.25.1", [(
        "SD607", E, "num_speculative_tokens is 0; vLLM needs an integer greater than 0 and exits at start-up: write a "
        "JSON integer such as 5 (no quotes)", "num_speculative_tokens", None), (
        "SD616", I, 'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at '
        'start-up without it: "Arctic Inference is required for suffix decoding"): check the image has it, or use '
        '"ngram"', "method", None)]),
    ('{"method":"suffix"}', "0.25.1", [(
        "SD616", I, 'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at '
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
    source = inspect.getsource(vllm_schema)
    emitted = re.findall(r'\bid="(SD6\d\d)"', source)
    assert sorted(emitted) == sorted(set(emitted)), "one id, one message literal"
    assert set(emitted) == set(FINDINGS)
    tested = {f[0] for _, _, expected in FAIL for f in expected}
    assert tested == set(FINDINGS)


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
    assert vllm_schema.KNOWN_UP_TO == (0, 33, 0)
    assert found('{"method":"medusa","model":"m","num_speculative_tokens":2}', "0.40")[0][0] == "SD604"


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
