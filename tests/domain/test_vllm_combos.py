"""vllm_combos: speculative decoding beside another setting of vLLM's server, per release, as a plain workload's
arguments and environment give it (vllm_command.combinations). Each row quotes the release's source line the
data file names (tools/vllm_combos.py reads it from the wheel: `pip download --no-deps vllm==X`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from krm_fn.domain import vllm_combos
from krm_fn.domain.vllm_command import Release, combinations, inspect

ROOT = Path(__file__).resolve().parents[2]
SRC = Path("/tmp/vllm/src")
NGRAM = {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}
MTP = {"method": "mtp", "num_speculative_tokens": 1}
EAGLE3 = {"method": "eagle3", "model": "org/eagle3-draft", "num_speculative_tokens": 3}


def said(args: list[str], release: str, config: dict, env: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(id.variant, message) of each verdict on `vllm serve MODEL ARGS` in the release's image."""
    insp = inspect(["vllm", "serve"], ["org/model", *args], None, env)
    found = combinations(insp, Release(release, f"image vllm/vllm-openai:v{release}"), env, config)
    return [(f"{f.id}", f.message) for f in found]


REFUSED = [
    # vllm/engine/arg_utils.py:1296-1300 at 0.10.2: `if self.speculative_config is not None: raise ValueError(
    # "Currently, speculative decoding is not supported with async scheduling.")` (any method)
    ("async-any-method-0.10", ["--async-scheduling"], None, "0.10.2", EAGLE3, "vllm/engine/arg_utils.py:1299 at 0.10.2"),
    # vllm/config/vllm.py:971-981 at 0.25.1: method not in EagleModelTypes/NgramGPUTypes/draft_model/dspark ->
    # "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark kind of ..."
    ("async-ngram-0.25", ["--async-scheduling"], None, "0.25.1", NGRAM, "vllm/config/vllm.py:978 at 0.25.1"),
    # the same list at vllm/config/vllm.py:1554-1566 at 0.31.0 (ngram_gpu and dflash added, not ngram)
    ("async-ngram-0.31", ["--async-scheduling"], None, "0.31.0", NGRAM, "vllm/config/vllm.py:1562 at 0.31.0"),
    # vllm/config/vllm.py:1653-1662 at 0.33.0: `if not self.use_v2_model_runner: ... v1_async_sched_incompat`
    ("async-v1-runner-0.33", ["--async-scheduling"], {"VLLM_USE_V2_MODEL_RUNNER": "0"}, "0.33.0", NGRAM,
     "vllm/config/vllm.py:1660 at 0.33.0"),
    # vllm/platforms/cuda.py:124-127 at 0.10.2: `if not envs.VLLM_USE_V1: raise NotImplementedError(
    # "Speculative decoding is not supported on vLLM V0.")`
    ("v0-engine-0.10", [], {"VLLM_USE_V1": "0"}, "0.10.2", NGRAM, "vllm/platforms/cuda.py:127 at 0.10.2"),
    ("v0-engine-0.11", [], {"VLLM_USE_V1": "0"}, "0.11.0", MTP, "vllm/platforms/cuda.py:116 at 0.11.0"),
    # vllm/v1/worker/gpu/spec_decode/__init__.py:18 at 0.14.1: `raise NotImplementedError(
    # f"{speculative_config.method} is not supported yet.")` (only use_eagle() has a branch)
    ("v2-runner-ngram-0.14", [], {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "0.14.1", NGRAM,
     "vllm/v1/worker/gpu/spec_decode/__init__.py:18 at 0.14.1"),
    ("v2-runner-ngram-0.31", [], {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "0.31.0", NGRAM,
     "vllm/v1/worker/gpu/spec_decode/__init__.py:70 at 0.31.0"),
    # vllm/config/vllm.py:1335-1344 at 0.25.1: `if self.speculative_config is not None and
    # self.speculative_config.use_eagle(): raise ValueError("Fast prefill optimization for KV sharing is not
    # compatible with EAGLE ...")`; use_eagle(): method in ("eagle", "eagle3", "mtp", "dflash", ...)
    ("kv-sharing-mtp-0.25", ["--kv-sharing-fast-prefill"], None, "0.25.1", MTP, "vllm/config/vllm.py:1340 at 0.25.1"),
    ("kv-sharing-deepseek-mtp-0.10", ["--kv-sharing-fast-prefill"], None, "0.10.2",
     {"method": "deepseek_mtp", "num_speculative_tokens": 1}, "vllm/config/__init__.py:3425 at 0.10.2"),
    ("kv-sharing-eagle3-0.34", ["--kv-sharing-fast-prefill"], None, "0.34.0", EAGLE3,
     "vllm/config/vllm.py:1935 at 0.34.0"),
    # vllm/v1/sample/logits_processor/__init__.py:200-203 at 0.25.1: `if vllm_config.speculative_config: if
    # custom_logitsprocs: raise ValueError(STR_SPEC_DEC_REJECTS_LOGITSPROCS)`, on the V1 runner, which custom
    # logits processors choose (V2 lists them unsupported, vllm/config/vllm.py:2110-2115)
    ("logits-0.25", ["--logits-processors", "pkg.P"], None, "0.25.1", NGRAM,
     "vllm/v1/sample/logits_processor/__init__.py:203 at 0.25.1"),
    ("logits-0.11.1", ["--logits-processors", "pkg.P"], None, "0.11.1", MTP,
     "vllm/v1/sample/logits_processor/__init__.py:203 at 0.11.1"),
    ("logits-ngram-0.31", ["--logits-processors", "pkg.P"], None, "0.31.0", NGRAM,
     "vllm/v1/sample/logits_processor/__init__.py:210 at 0.31.0"),
    # vllm/engine/arg_utils.py:2198-2210 at 0.25.1: lora_config and max_num_batched_tokens < max_num_seqs *
    # (num_speculative_tokens + 1) -> "Consider increasing max_num_batched_tokens or decreasing ..."
    ("lora-0.25", ["--enable-lora", "--max-num-seqs", "256", "--max-num-batched-tokens", "1024"], None, "0.25.1",
     NGRAM, "vllm/engine/arg_utils.py:2207 at 0.25.1"),
    # vllm/config/vllm.py:1154-1158 at 0.30.0: `if speculative_config.draft_sample_method != "probabilistic": raise
    # ValueError("Speculative decoding with watermarking requires draft_sample_method='probabilistic'.")`; the
    # field's default is "greedy" (vllm/config/speculative.py:588)
    ("watermark-0.30", ["--watermark-config", '{"type":"gumbel"}'], None, "0.30.0", NGRAM,
     "vllm/config/vllm.py:1154 at 0.30.0"),
    # vllm/config/speculative.py:1026-1030 at 0.25.1 (_maybe_override_draft_max_model_len, called for the methods
    # of __post_init__'s last `else`, not ngram/ngram_gpu/suffix/custom_class/extract_hidden_states):
    # ValueError(f"{speculative_max_model_len=} cannot be larger than {target_max_model_len=}")
    ("draft-max-model-len-0.25", ["--max-model-len", "4096"], None, "0.25.1", {**EAGLE3, "max_model_len": 8192},
     "vllm/config/speculative.py:1028 at 0.25.1"),
    ("draft-max-model-len-0.10", ["--max-model-len=4096"], None, "0.10.2", {**EAGLE3, "max_model_len": 8192},
     "vllm/config/__init__.py:2285 at 0.10.2"),
]


@pytest.mark.parametrize("name,args,env,release,config,upstream", REFUSED, ids=[r[0] for r in REFUSED])
def test_the_release_refuses_the_pair_at_start_up(name: str, args: list[str], env: dict[str, str] | None,
                                                  release: str, config: dict, upstream: str) -> None:
    found = said(args, release, config, env)
    assert [i for i, _ in found] == ["SD625"], found
    assert f"({upstream})" in found[0][1]


SILENT = [
    # vllm/v1/engine/async_llm.py:157 at 0.25.1: `if self.log_stats:` makes the StatLoggerManager (Prometheus
    # among them); log_stats=not engine_args.disable_log_stats (:250)
    ("disable-log-stats", ["--disable-log-stats"], "0.25.1", NGRAM, "vllm/v1/engine/async_llm.py:157 at 0.25.1"),
    # vllm/config/vllm.py:991-1008 at 0.30.0, _maybe_disable_dynamic_sd_for_data_parallel: "Disabling
    # num_speculative_tokens_per_batch_size and falling back to static num_speculative_tokens"
    ("data-parallel", ["--data-parallel-size", "2"], "0.30.0",
     {**NGRAM, "num_speculative_tokens_per_batch_size": [[1, 8, 5], [9, 64, 2]]}, "vllm/config/vllm.py:1008 at 0.30.0"),
    ("data-parallel-short", ["-dp", "4"], "0.26.0",
     {**NGRAM, "num_speculative_tokens_per_batch_size": [[1, 8, 5]]}, "vllm/config/vllm.py:855 at 0.26.0"),
]


@pytest.mark.parametrize("name,args,release,config,upstream", SILENT, ids=[r[0] for r in SILENT])
def test_the_release_starts_with_speculation_or_its_metrics_gone(name: str, args: list[str], release: str,
                                                                 config: dict, upstream: str) -> None:
    found = said(args, release, config)
    assert [i for i, _ in found] == ["SD626"], found
    assert f"({upstream})" in found[0][1]


ACCEPTED = [
    # eagle3 is in 0.25.1's list (EagleModelTypes); 0.34.0 has no method check under explicit async scheduling
    ("async-eagle3-0.25", ["--async-scheduling"], None, "0.25.1", EAGLE3),
    ("async-ngram-0.34", ["--async-scheduling"], None, "0.34.0", NGRAM),
    ("async-off-again", ["--async-scheduling", "--no-async-scheduling"], None, "0.25.1", NGRAM),
    # 0.33.0 runs ngram on Model Runner V2 by default (not in _get_v2_model_runner_unsupported_features)
    ("async-ngram-0.33-default", ["--async-scheduling"], None, "0.33.0", NGRAM),
    # 0.32.0's init_speculator has `elif speculative_config.use_ngram()` (spec_decode/__init__.py:79)
    ("v2-runner-ngram-0.32", [], {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "0.32.0", NGRAM),
    ("v2-runner-eagle3-0.25", [], {"VLLM_USE_V2_MODEL_RUNNER": "1"}, "0.25.1", EAGLE3),
    ("v1-env-1", [], {"VLLM_USE_V1": "1"}, "0.10.2", NGRAM),
    # before the oldest release read nothing is judged (0.9's V0 engine had a drafter of its own)
    ("v1-off-0.9", [], {"VLLM_USE_V1": "0"}, "0.9.2", NGRAM),
    ("kv-sharing-ngram", ["--kv-sharing-fast-prefill"], None, "0.25.1", NGRAM),
    # from 0.31.0 Model Runner V2 takes custom logits processors and is the default for mtp (ngram is still in
    # its unsupported list there, so ngram runs on V1, which refuses them: a row of REFUSED)
    ("logits-0.31-mtp", ["--logits-processors", "pkg.P"], None, "0.31.0", MTP),
    ("lora-enough", ["--enable-lora", "--max-num-seqs", "256", "--max-num-batched-tokens", "1536"], None, "0.25.1",
     NGRAM),
    ("lora-default-limits", ["--enable-lora"], None, "0.25.1", NGRAM),
    ("lora-0.11.0", ["--enable-lora", "--max-num-seqs", "256", "--max-num-batched-tokens", "256"], None, "0.11.0",
     NGRAM),
    ("watermark-probabilistic", ["--watermark-config", "{}"], None, "0.30.0",
     {**NGRAM, "draft_sample_method": "probabilistic"}),
    ("draft-max-model-len-ngram", ["--max-model-len", "4096"], None, "0.25.1", {**NGRAM, "max_model_len": 8192}),
    ("draft-max-model-len-below", ["--max-model-len", "8192"], None, "0.25.1", {**EAGLE3, "max_model_len": 4096}),
    ("data-parallel-no-schedule", ["--data-parallel-size", "2"], None, "0.30.0", NGRAM),
]


@pytest.mark.parametrize("name,args,env,release,config", ACCEPTED, ids=[r[0] for r in ACCEPTED])
def test_what_the_release_takes_is_not_said(name: str, args: list[str], env: dict[str, str] | None, release: str,
                                            config: dict) -> None:
    assert said(args, release, config, env) == []


def test_a_release_between_two_read_is_judged_by_the_one_vllm_schema_judges_it_by() -> None:
    # 0.25.0 (not read) by 0.25.1's facts, 0.35.0 (newer than every release read) by 0.34.0's
    assert said(["--async-scheduling"], "0.25.0", NGRAM)[0][0] == "SD625"
    assert said(["--async-scheduling"], "0.35.0", NGRAM) == []


def test_every_row_names_a_file_and_line_and_its_methods() -> None:
    data = json.loads((ROOT / "krm_fn/domain/data/vllm_combos.json").read_text())
    assert set(data["combos"]) == set(vllm_combos.REFUSALS + vllm_combos.SILENT)
    for combo, rows in data["combos"].items():
        assert rows, f"{combo}: no release has it"
        for release, row in rows.items():
            assert release in data["releases"]
            path, _, line = row["at"].rpartition(":")
            assert path.startswith("vllm/") and path.endswith(".py") and line.isdigit(), (combo, release, row)
            assert row["methods"] == "*" or (isinstance(row["methods"], list) and row["methods"]), (combo, release)


@pytest.mark.skipif(not (SRC / "0.34.0" / "vllm").exists(),
                    reason="the releases' sources are not under /tmp/vllm/src (python tools/vllm_verdicts.py --fetch)")
def test_the_data_file_is_what_the_releases_source_gives() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import vllm_combos as tool
    from vllm_verdicts import RELEASES
    assert tool.render(tool.table(SRC.parent, list(RELEASES))) == (ROOT / "krm_fn/domain/data/vllm_combos.json").read_text()


def _tool():
    sys.path.insert(0, str(ROOT / "tools"))
    import vllm_combos as tool
    return tool


def test_the_probes_read_the_refusal_and_its_methods_off_the_source(tmp_path: Path) -> None:
    """tools/vllm_combos.py on a release's files as the wheel has them (here: the lines that matter, as 0.25.1
    writes them): the raise's line, and the methods the release's own Literal types and predicate name."""
    tool = _tool()
    config = tmp_path / "vllm" / "config"
    config.mkdir(parents=True)
    (config / "speculative.py").write_text(
        'MTPModelTypes = Literal["deepseek_mtp", "mtp"]\n'
        'EagleModelTypes = Literal["eagle", "eagle3", MTPModelTypes]\n'
        'NgramGPUTypes = Literal["ngram_gpu"]\n'
        "class SpeculativeConfig:\n"
        "    def use_eagle(self) -> bool:\n"
        '        return self.method in ("eagle", "eagle3", "mtp")\n')
    (config / "vllm.py").write_text(
        "        if self.scheduler_config.async_scheduling:\n"
        "            # Async scheduling explicitly enabled, hard fail any incompatibilities.\n"
        "            if self.speculative_config is not None:\n"
        "                if (\n"
        "                    self.speculative_config.method not in get_args(EagleModelTypes)\n"
        "                    and self.speculative_config.method not in get_args(NgramGPUTypes)\n"
        '                    and self.speculative_config.method != "draft_model"\n'
        "                ):\n"
        "                    raise ValueError(\n"
        '                        "Currently, async scheduling is only supported "\n'
        "        if self.cache_config.kv_sharing_fast_prefill:\n"
        "            if (\n"
        "                self.speculative_config is not None\n"
        "                and self.speculative_config.use_eagle()\n"
        "            ):\n"
        "                raise ValueError(\n"
        '                    "Fast prefill optimization for KV sharing is not "\n'
        '                    "compatible with EAGLE as EAGLE requires correct logits "\n')
    methods = ["deepseek_mtp", "draft_model", "eagle", "eagle3", "mtp", "ngram", "ngram_gpu", "suffix"]
    src = tool.Source(tmp_path, "0.25.1", methods, {"deepseek_mtp"})
    assert tool.async_allow_list(src) == {"at": "vllm/config/vllm.py:9", "methods": ["ngram", "suffix"]}
    assert tool.kv_sharing_fast_prefill(src) == {"at": "vllm/config/vllm.py:16",
                                                 "methods": ["deepseek_mtp", "eagle", "eagle3", "mtp"]}
    assert tool.async_any_method(src) is None and tool.data_parallel_schedule(src) is None


def test_sd625_and_sd626_are_this_modules_alone() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from finding_ids import ids_used
    from krm_fn.domain import vllm_command, vllm_schema
    assert set(ids_used(vllm_combos)) == {"SD625", "SD626"}
    assert not {"SD625", "SD626"} & (set(ids_used(vllm_schema)) | set(ids_used(vllm_command)))
