"""SD6xx: what the vLLM release refuses or ignores in a speculative config.

All of them are krm_fn.domain.vllm_schema's but SD625 and SD626 (krm_fn.domain.vllm_combos': the config beside the
server's other settings), relayed onto a ConfigMap (stages/advice.py) or a plain workload's container
(domain/vllm_command.py). The fields: `{release}` is the vLLM release whose facts judge the value
(for a release newer than every one modelled, the newest modelled; `{newer}` is then the one the user named);
`{method}`, `{key_json}` and `{value}` are JSON text, as vLLM's own config shows them; `{history}` says when
vLLM added or removed the name ("added in vLLM 0.20"; where it is an aside, empty or " (vLLM 0.26 added it)");
`{fix}` is what to do with an unknown key ('rename it to "…"' for a known key close to it, else remove it).
"""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    Spec("SD601", ERROR, "speculative-config is not valid JSON",
         'speculative-config is not valid JSON ({error}); vLLM exits at start-up: write one JSON object with double-quoted keys and strings, e.g. \'{{"method":"ngram","num_speculative_tokens":5}}\' (single quotes around it in YAML)'),
    Spec("SD602", ERROR, "speculative-config is not a JSON object",
         'speculative-config is {kind}, not a JSON object; vLLM exits at start-up: write an object such as \'{{"method":"ngram","num_speculative_tokens":5}}\''),
    Spec("SD603", ERROR, "unknown speculative method (case-sensitive)",
         "method {method} is not a speculative method vLLM {release} knows (names are case-sensitive), so the server exits at start-up; use one of: {choices}"),
    Spec("SD604", ERROR, "speculative method not available in the chosen vLLM version",
         "method {method} is not in vLLM {release} ({history}), so the server exits at start-up; use one of: {choices}, or set vllmVersion to the vLLM your image runs"),
    Spec("SD605", ERROR, "neither method nor model given",
         'speculative-config has neither "method" nor "model"; vLLM takes it for a draft model without one and exits at start-up: add "method" (for example "ngram" or "mtp")'),
    Spec("SD606", ERROR, "num_speculative_tokens missing",
         'speculative-config has no "num_speculative_tokens"; vLLM needs it for every method but suffix and exits at start-up: add it (KAITO uses 1 for mtp, 5 for ngram)'),
    Spec("SD607", ERROR, "num_speculative_tokens not a positive integer",
         "num_speculative_tokens is {value}; vLLM needs an integer greater than 0 and exits at start-up: write a JSON integer such as 5 (no quotes)"),
    Spec("SD608", ERROR, "prompt_lookup_min/max not an integer of at least 1",
         "{key} is {value}; vLLM needs an integer of at least 1 and exits at start-up: write a JSON integer such as 2 (no quotes), or leave it out"),
    Spec("SD609", ERROR, "prompt_lookup_min greater than prompt_lookup_max",
         "prompt_lookup_min ({low}) is greater than prompt_lookup_max ({high}); vLLM exits at start-up: make prompt_lookup_min at most prompt_lookup_max"),
    Spec("SD610", ERROR, "method needs a draft model",
         'method {method} needs a draft "model" (a Hugging Face id or path) and vLLM exits at start-up without one: add "model", or use "ngram", which needs none'),
    Spec("SD611", ERROR, "key removed from the chosen vLLM version (refused at start-up)",
         "{key} was removed in vLLM {removed} and vLLM {release} refuses unknown keys, so the server exits at start-up: remove {key}"),
    Spec("SD612", WARNING, "key the chosen vLLM version ignores (removed, or read by nothing)",
         {"unused": "{key} is read by nothing in vLLM's code{history}: vLLM {release} ignores it; remove {key}",
          "removed": "{key} was removed in vLLM {removed}: vLLM {release} ignores it; remove {key}"}),
    Spec("SD613", ERROR, "unknown key (refused at start-up)",
         "{key_json} is not a speculative-config key of vLLM {release}{history}, which refuses unknown keys, so the server exits at start-up: {fix}"),
    Spec("SD614", WARNING, "unknown key (ignored)",
         "{key_json} is not a speculative-config key of vLLM {release}{history}, which ignores it: {fix}"),
    Spec("SD615", INFO, "model-specific MTP method name: use mtp",
         'method {method} is a model-specific MTP name that vLLM {release} rewrites to "mtp" with a deprecation warning: write "method":"mtp" (the target model\'s MTP layers are found either way)'),
    Spec("SD616", INFO, "suffix decoding needs arctic-inference in the image",
         'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at start-up without it: "Arctic Inference is required for suffix decoding"): check the image has it, or use "ngram"'),
    Spec("SD617", WARNING, "empty speculative-config: vLLM starts without speculative decoding",
         'speculative-config is {value}, which vLLM {release} reads as no speculative config: the server starts without speculative decoding; write an object such as \'{{"method":"ngram","num_speculative_tokens":5}}\', or remove the key'),
    # {error}: vLLM's own words at start-up, quoted (they differ by release).
    Spec("SD618", ERROR, "draft-model speculation (or a model without a method) the chosen vLLM version cannot run",
         {"draft-model": 'speculative-config asks for a draft model, and vLLM {release} cannot run that ({error}), so the server exits at start-up: give the "method" the draft model is for (for example "eagle3"), or use "ngram"',
          "model-without-method": 'speculative-config has a "model" and no "method", which vLLM reads as a draft model, and vLLM {release} cannot run that ({error}), so the server exits at start-up: give the "method" the draft model is for (for example "eagle3"), or use "ngram"'}),
    # {needs} and {fix} differ by key: vllm_schema holds them in its table of the values each release checks.
    Spec("SD619", ERROR, "value the chosen vLLM version refuses for its key",
         "{key} is {value}; vLLM {release} needs {needs} and exits at start-up: {fix}"),
    Spec("SD620", ERROR, "quantization method the chosen vLLM version does not know",
         "quantization {value} is not a quantization method vLLM {release} knows, so the server exits at start-up: use one of {choices}, or leave it out (the draft then follows the target)"),
    Spec("SD621", ERROR, "tensor_parallel_size in the speculative-config (refused at start-up)",
         'vLLM {release} refuses tensor_parallel_size in the speculative-config ("\'tensor_parallel_size\' is not a valid argument") and exits at start-up: rename it to draft_tensor_parallel_size'),
    Spec("SD622", WARNING, "a vLLM release newer than the newest this function models: judged by that one's facts",
         "vLLM {version} ({source}) is newer than vLLM {newest}, the newest release this function models: speculative configs are judged by vLLM {newest}'s facts, and a method or key vLLM {newest} does not know is a warning, not an error; check them against vLLM {version}'s release notes, or use a kaito-specdec that models it"),
    Spec("SD623", WARNING, "method the newest vLLM modelled does not know, for a newer vLLM (which may know it)",
         {"unknown": "method {method} is not one vLLM {release} knows (names are case-sensitive); vLLM {release} is the newest release modelled, older than the vLLM {newer} named: check that vLLM {newer} has it, or use one of: {choices}",
          "not-in-release": "method {method} is not one vLLM {release} knows ({history}); vLLM {release} is the newest release modelled, older than the vLLM {newer} named: check that vLLM {newer} has it, or use one of: {choices}"}),
    Spec("SD624", WARNING, "key the newest vLLM modelled does not take, for a newer vLLM (which may take it)",
         "{key_json} is not a speculative-config key of vLLM {release}{history}, which refuses unknown keys; vLLM {release} is the newest release this function models, older than the vLLM {newer} named: check that vLLM {newer} takes it, or {fix}"),
    # vllm_combos' verdicts, on a plain workload's container or the ConfigMap holding KAITO's `vllm:` map;
    # {setting} is the flag, key or variable as written, {upstream} the release's file:line that decides it.
    Spec("SD625", ERROR, "speculative decoding beside a server setting the vLLM release refuses it with at start-up",
         {"async-scheduling": "{setting} with {method} speculative decoding: {release} exits at start-up ({upstream}); remove {setting}, or use a method it schedules asynchronously",
          "async-scheduling-v1-runner": "{setting} with {method} speculative decoding on the V1 model runner: {release} exits at start-up ({upstream}); remove {setting}",
          "v0-engine": "{setting} runs vLLM's V0 engine, which has no speculative decoding: {release} exits at start-up ({upstream}); remove {setting}",
          "v2-model-runner": "{setting} with {method} speculative decoding: {release}'s Model Runner V2 has no {method} drafter and exits at start-up ({upstream}); remove {setting}",
          "kv-sharing-fast-prefill": "{setting} with {method} speculative decoding: {release} exits at start-up, as fast prefill gives the draft wrong logits ({upstream}); remove {setting}",
          "logits-processors": "{setting} with speculative decoding on the V1 model runner: {release} exits at start-up ({upstream}); remove {setting} or the speculative config",
          "lora": "{setting} with {tokens} speculative tokens: {release} needs max-num-batched-tokens ({batched}) at least max-num-seqs ({seqs}) times {tokens}+1 and exits at start-up ({upstream}); raise max-num-batched-tokens to {need}, or lower max-num-seqs or num_speculative_tokens",
          "watermark": "{setting} with {key} {value!q}: {release} needs {key} {needed!q} for watermarking and exits at start-up ({upstream}); add \"{key}\":\"{needed}\" to the speculative config",
          "draft-max-model-len": "max_model_len {draft} in the {method} speculative config is above {setting}: {release} exits at start-up ({upstream}); make it at most {target}, or leave it out"},
         why=("vLLM checks the speculative config against the rest of the server's settings when it builds its\n"
              "engine config, and exits on a pair it cannot run. Each verdict names the release's own source line\n"
              "(its wheel; tools/vllm_combos.py reads every release's); a release between two read is judged by the\n"
              "one vllmVersion is. On a plain workload nothing is added; on KAITO's `vllm:` map the run stops.")),
    Spec("SD626", WARNING, "speculative decoding beside a server setting that silently undoes its effect or its metrics",
         {"disable-log-stats": "{setting}: {release} serves no metrics ({upstream}), so speculative decoding's acceptance cannot be watched and its alerts never fire; remove {setting}",
          "data-parallel-schedule": "{setting}: {release} drops num_speculative_tokens_per_batch_size and drafts {tokens} tokens at every batch size ({upstream}); remove the schedule, or run one data-parallel rank"},
         why=("The server starts, but without what the speculative config asks for: with `--disable-log-stats`\n"
              "vLLM makes no stat loggers, the Prometheus one among them, so `vllm:spec_decode_*` and every\n"
              "metric the function's PrometheusRule reads are gone; with more than one data-parallel rank it logs a\n"
              "warning and drops the per-batch-size schedule.")),
)
