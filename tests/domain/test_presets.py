from __future__ import annotations

import json

import pytest

from krm_fn.domain import presets
from krm_fn.domain.presets import (DEFAULT_TABLE, PresetTable, Resolution, canonical, config_json, describe,
    parse_config_json, resolve)

# Written from SPEC 4 and KAITO's documentation, not from the code.
MTP_JSON = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM_JSON = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'

DOC_TUNED = [
    "deepseek-r1-0528",
    "deepseek-v3-0324",
    "deepseek-ai/DeepSeek-V3.2",
    "zai-org/GLM-5.2-FP8",
    "nvidia/DeepSeek-V4-Flash-NVFP4",
    "XiaomiMiMo/MiMo-7B-Base",
    "Qwen/Qwen3.5-2B",
    "Qwen/Qwen3.5-4B",
    "Qwen/Qwen3.5-9B",
    "Qwen/Qwen3.5-122B-A10B-GPTQ-Int4",
    "Qwen/Qwen3.5-122B-A10B",
    "Qwen/Qwen3.5-397B-A17B-GPTQ-Int4",
    "Qwen/Qwen3.6-35B-A3B-FP8",
    "Qwen/Qwen3.6-35B-A3B",
    "Qwen/Qwen3.6-27B",
]

SPEC_ALIASES = {
    "phi-4": "microsoft/phi-4",
    "phi-4-mini-instruct": "microsoft/phi-4-mini-instruct",
    "llama-3.1-8b-instruct": "meta-llama/llama-3.1-8b-instruct",
    "llama-3.3-70b-instruct": "meta-llama/llama-3.3-70b-instruct",
    "deepseek-r1-distill-llama-8b": "deepseek-ai/deepseek-r1-distill-llama-8b",
    "deepseek-r1-distill-qwen-14b": "deepseek-ai/deepseek-r1-distill-qwen-14b",
    "deepseek-r1-0528": "deepseek-ai/deepseek-r1-0528",
    "deepseek-v3-0324": "deepseek-ai/deepseek-v3-0324",
    "phi-3-mini-4k-instruct": "microsoft/phi-3-mini-4k-instruct",
    "phi-3-mini-128k-instruct": "microsoft/phi-3-mini-128k-instruct",
    "phi-3-medium-4k-instruct": "microsoft/phi-3-medium-4k-instruct",
    "phi-3-medium-128k-instruct": "microsoft/phi-3-medium-128k-instruct",
    "phi-3.5-mini-instruct": "microsoft/phi-3.5-mini-instruct",
    "qwen2.5-coder-7b-instruct": "qwen/qwen2.5-coder-7b-instruct",
    "qwen2.5-coder-32b-instruct": "qwen/qwen2.5-coder-32b-instruct",
    "gpt-oss-20b": "openai/gpt-oss-20b",
    "gpt-oss-120b": "openai/gpt-oss-120b",
    "gemma-3-4b-instruct": "google/gemma-3-4b-it",
    "gemma-3-27b-instruct": "google/gemma-3-27b-it",
    "mistral-7b": "mistralai/mistral-7b-v0.3",
    "mistral-7b-instruct": "mistralai/mistral-7b-instruct-v0.3",
    "ministral-3-3b-instruct": "mistralai/ministral-3-3b-instruct-2512",
    "ministral-3-8b-instruct": "mistralai/ministral-3-8b-instruct-2512",
    "ministral-3-14b-instruct": "mistralai/ministral-3-14b-instruct-2512",
    "mistral-large-3-675b-instruct": "mistralai/mistral-large-3-675b-instruct-2512",
}


def test_constants():
    assert config_json(presets.MTP) == MTP_JSON
    assert config_json(presets.NGRAM_FALLBACK) == NGRAM_JSON
    assert list(presets.TUNED_DISPLAY) == DOC_TUNED
    assert presets.aliases() == SPEC_ALIASES
    assert set(presets.TUNED) == {canonical(name) for name in DOC_TUNED}
    assert all(key == key.lower() and "/" in key for key in presets.TUNED)


@pytest.mark.parametrize("name", DOC_TUNED)
@pytest.mark.parametrize("spell", [str, str.lower, str.upper], ids=["doc", "lower", "upper"])
def test_every_tuned_preset_is_mtp(name, spell):
    got = resolve(spell(name))
    assert (got.method, got.json, got.tuned) == ("mtp", MTP_JSON, True)


@pytest.mark.parametrize(
    "preset, canon, method",
    [
        ("deepseek-r1-0528", "deepseek-ai/deepseek-r1-0528", "mtp"),
        ("DeepSeek-V3-0324", "deepseek-ai/deepseek-v3-0324", "mtp"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/deepseek-r1-0528", "mtp"),
        ("phi-4-mini-instruct", "microsoft/phi-4-mini-instruct", "ngram"),
        ("microsoft/Phi-4-mini-instruct", "microsoft/phi-4-mini-instruct", "ngram"),
        ("llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct", "ngram"),
        ("gemma-3-27b-instruct", "google/gemma-3-27b-it", "ngram"),
        ("some-org/Some-Model", "some-org/some-model", "ngram"),
        ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/deepseek-v4-flash", "ngram"),
        ("Qwen/Qwen3.8-27B", "qwen/qwen3.8-27b", "ngram"),
        ("google/gemma-4-31b-it", "google/gemma-4-31b-it", "ngram"),
        # KAITO does not strip whitespace, so a padded tuned name is not tuned.
        (" Qwen/Qwen3.6-27B", " qwen/qwen3.6-27b", "ngram"),
        ("", "", "ngram"),
    ],
)
def test_resolve(preset, canon, method):
    want_json = MTP_JSON if method == "mtp" else NGRAM_JSON
    assert resolve(preset) == Resolution(preset, canon, method, want_json, method == "mtp")


@pytest.mark.parametrize("short, hf_id", sorted(SPEC_ALIASES.items()))
def test_aliases(short, hf_id):
    assert canonical(short) == hf_id
    assert canonical(short.upper()) == hf_id


@pytest.mark.parametrize(
    "value, want",
    [
        ('{"method":"ngram","num_speculative_tokens":8,"prompt_lookup_max":6}',
         {"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 6}),
        (' { "num_speculative_tokens": 3, "method": "eagle3", "model": "org/draft" } ',
         {"method": "eagle3", "num_speculative_tokens": 3, "model": "org/draft"}),
        ({"method": "mtp", "num_speculative_tokens": 2}, {"method": "mtp", "num_speculative_tokens": 2}),
    ],
)
def test_parse_config_json_accepts(value, want):
    assert parse_config_json(value, "ngramFallback") == want


S = 'tunedPresets["org/x"]'


@pytest.mark.parametrize(
    "value, message",
    [
        ('{"method":"mtp","num_speculative_tokens":0}',
         f"{S}: num_speculative_tokens must be a positive integer, got 0"),
        ('{"method":"mtp","num_speculative_tokens":-1}',
         f"{S}: num_speculative_tokens must be a positive integer, got -1"),
        ('{"method":"mtp","num_speculative_tokens":true}',
         f"{S}: num_speculative_tokens must be a positive integer, got true"),
        ('{"method":"mtp","num_speculative_tokens":"5"}',
         f'{S}: num_speculative_tokens must be a positive integer, got "5"'),
        ('{"method":"mtp","num_speculative_tokens":1.0}',
         f"{S}: num_speculative_tokens must be a positive integer, got 1.0"),
        ('{"method":"mtp"}', f"{S}: num_speculative_tokens must be a positive integer, got null"),
        ({"method": "mtp", "num_speculative_tokens": True},
         f"{S}: num_speculative_tokens must be a positive integer, got true"),
        ('{"num_speculative_tokens":1}', f"{S}: method must be a non-empty string, got null"),
        ('{"method":"","num_speculative_tokens":1}', f'{S}: method must be a non-empty string, got ""'),
        ('{"method":7,"num_speculative_tokens":1}', f"{S}: method must be a non-empty string, got 7"),
        ('["mtp", 1]', f'{S}: must be a JSON object, got ["mtp", 1]'),
        ('"mtp"', f'{S}: must be a JSON object, got "mtp"'),
        (5, f"{S}: must be a JSON object string, got int"),
    ],
)
def test_parse_config_json_rejects(value, message):
    with pytest.raises(ValueError) as err:
        parse_config_json(value, S)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "value",
    [
        "",
        "{method: mtp}",
        "{'method': 'mtp', 'num_speculative_tokens': 1}",
        '{"method":"mtp","num_speculative_tokens":1,"x":NaN}',
        {"method": "mtp", "num_speculative_tokens": 1, "x": float("nan")},
        {"method": "mtp", "num_speculative_tokens": 1, "x": {1, 2}},
    ],
)
def test_parse_config_json_rejects_non_json(value):
    with pytest.raises(ValueError, match=r"^ngramFallback: must be"):
        parse_config_json(value, "ngramFallback")


def test_parse_config_json_copies_mappings():
    nested = {"method": "mtp", "num_speculative_tokens": 1, "revision": ["main"]}
    got = parse_config_json(nested, "s")
    got["revision"].append("x")
    assert nested["revision"] == ["main"]


@pytest.mark.parametrize(
    "value, message",
    [
        ({"method": "bogus", "num_speculative_tokens": 5}, 'method "bogus" is not a speculative method vLLM 0.25.1 knows (names are case-sensitive)'),
        ({"method": "Ngram", "num_speculative_tokens": 5}, 'method "Ngram" is not a speculative method vLLM 0.25.1 knows (names are case-sensitive)'),
        ({"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 0},
         "prompt_lookup_max is 0; vLLM needs an integer of at least 1"),
        ({"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 2, "prompt_lookup_min": 3},
         "prompt_lookup_min (3) is greater than prompt_lookup_max (2); vLLM exits at start-up"),
        ({"method": "mtp", "num_speculative_tokens": 1, "prompt_lookup_max": 2}, "prompt_lookup_max applies to ngram only"),
        ({"method": "eagle", "num_speculative_tokens": 3}, 'method "eagle" needs a draft "model" (a Hugging Face id or path) and vLLM exits'),
        ({"method": "draft_model", "num_speculative_tokens": 3, "model": ""}, 'method "draft_model" needs a draft "model"'),
        ({"method": "ngram", "num_speculative_tokens": 3, "disable_logprobs": False},
         "disable_logprobs was removed in vLLM 0.11.1 and vLLM 0.25.1 refuses unknown keys"),
        ({"method": "mtp", "num_speculative_tokens": 1, "speculative_token_tree": "x"},
         "speculative_token_tree was removed in vLLM 0.21 and vLLM 0.25.1 refuses unknown keys"),
        ({"method": "mtp", "num_speculative_tokens": 1, "extra": 1},
         '"extra" is not a speculative-config key of vLLM 0.25.1, which refuses unknown keys'),
    ],
)
def test_parse_config_json_rejects_what_vllm_refuses(value, message):
    with pytest.raises(ValueError) as err:
        parse_config_json(value, S)
    assert str(err.value).startswith(f"{S}: {message}")


@pytest.mark.parametrize("value", [
    {"method": "suffix", "num_speculative_tokens": 24},
    {"method": "ngram_gpu", "num_speculative_tokens": 4, "prompt_lookup_min": 2},
    {"method": "eagle3", "num_speculative_tokens": 3, "model": "org/draft", "draft_tensor_parallel_size": 1},
    {"method": "deepseek_mtp", "num_speculative_tokens": 1},
])
def test_parse_config_json_accepts_what_vllm_accepts(value):
    assert parse_config_json(value, S) == value


@pytest.mark.parametrize("value, version, message", [
    ({"method": "mtp", "num_speculative_tokens": 1, "extra": 1}, "0.15", None),   # ignored before 0.16
    ({"method": "mtp", "num_speculative_tokens": 1, "extra": 1}, "0.16", '"extra" is not a speculative-config key of vLLM 0.16, which refuses'),
    ({"method": "mtp", "num_speculative_tokens": 1}, "0.10", 'method "mtp" is not in vLLM 0.10 (added in vLLM 0.11)'),
    ({"method": "ngram_gpu", "num_speculative_tokens": 4}, "0.17.1", 'method "ngram_gpu" is not in vLLM 0.17.1 (added in vLLM 0.18)'),
    ({"method": "ngram_gpu", "num_speculative_tokens": 4}, "0.18", None),
])
def test_parse_config_json_judges_by_the_vllm_version(value, version, message):
    """The settings' own configs are checked against the vllmVersion setting's schema (errors only)."""
    if message is None:
        assert parse_config_json(value, S, version) == value
    else:
        with pytest.raises(ValueError) as err:
            parse_config_json(value, S, version)
        assert str(err.value).startswith(f"{S}: {message}")


def test_extended_table():
    custom = {"method": "eagle3", "model": "org/draft", "num_speculative_tokens": 3}
    table = DEFAULT_TABLE.extended(
        {"Org/New-Model": custom, "deepseek-r1-0528": {"method": "mtp", "num_speculative_tokens": 2}},
        {"method": "suffix", "num_speculative_tokens": 24},
    )
    assert resolve("org/new-model", table).json == '{"method":"eagle3","model":"org/draft","num_speculative_tokens":3}'
    # The override was canonicalised through the alias table, so the HF id sees it too.
    assert resolve("deepseek-ai/DeepSeek-R1-0528", table).json == '{"method":"mtp","num_speculative_tokens":2}'
    assert resolve("Qwen/Qwen3.6-27B", table).json == MTP_JSON
    assert resolve("unknown/model", table) == Resolution(
        "unknown/model", "unknown/model", "suffix", '{"method":"suffix","num_speculative_tokens":24}', False
    )
    # The default table is untouched, and no fallback keeps the old one.
    assert resolve("org/new-model").json == NGRAM_JSON
    assert resolve("x/y", DEFAULT_TABLE.extended({}, None)).json == NGRAM_JSON
    assert DEFAULT_TABLE == PresetTable()


def test_describe_text():
    text = describe()
    assert text.endswith("\n")
    for name in DOC_TUNED:
        assert any(line.split() == [name, MTP_JSON] for line in text.splitlines()), name
    for short, hf_id in SPEC_ALIASES.items():
        assert any(line.split() == [short, hf_id] for line in text.splitlines()), short
    assert NGRAM_JSON in text


def test_describe_json():
    doc = json.loads(describe(as_json=True))
    assert doc == {
        "tuned": {name: {"method": "mtp", "num_speculative_tokens": 1} for name in DOC_TUNED},
        "aliases": SPEC_ALIASES,
        "fallback": {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4},
    }
    text = describe(as_json=True)
    assert text.endswith("}\n") and text.startswith('{\n  "aliases": {\n')


def test_describe_extended_table():
    table = DEFAULT_TABLE.extended({"Org/New": {"method": "mtp", "num_speculative_tokens": 2}}, None)
    doc = json.loads(describe(table, as_json=True))
    assert doc["tuned"]["org/new"] == {"method": "mtp", "num_speculative_tokens": 2}
    assert len(doc["tuned"]) == len(DOC_TUNED) + 1
    assert "org/new" in describe(table)
