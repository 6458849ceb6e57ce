"""SD6xx: what the vLLM release refuses or ignores in a speculative config."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    # krm_fn.domain.vllm_schema
    Spec("SD601", ERROR, "speculative-config is not valid JSON",
         'speculative-config is not valid JSON (…); vLLM exits at start-up: write one JSON object with double-quoted keys and strings, e.g. \'{{"method":"ngram","num_speculative_tokens":5}}\' (single quotes around it in YAML)'),
    # krm_fn.domain.vllm_schema
    Spec("SD602", ERROR, "speculative-config is not a JSON object",
         'speculative-config is …, not a JSON object; vLLM exits at start-up: write an object such as \'{{"method":"ngram","num_speculative_tokens":5}}\''),
    # krm_fn.domain.vllm_schema
    Spec("SD603", ERROR, "unknown speculative method (case-sensitive)",
         "method … is not a speculative method vLLM … knows (names are case-sensitive), so the server exits at start-up; use one of: …"),
    # krm_fn.domain.vllm_schema
    Spec("SD604", ERROR, "speculative method not available in the chosen vLLM version",
         "method … is not in vLLM … (…), so the server exits at start-up; use one of: …, or set vllmVersion to the vLLM your image runs"),
    # krm_fn.domain.vllm_schema
    Spec("SD605", ERROR, "neither method nor model given",
         'speculative-config has neither "method" nor "model"; vLLM takes it for a draft model without one and exits at start-up: add "method" (for example "ngram" or "mtp")'),
    # krm_fn.domain.vllm_schema
    Spec("SD606", ERROR, "num_speculative_tokens missing",
         'speculative-config has no "num_speculative_tokens"; vLLM needs it for every method but suffix and exits at start-up: add it (KAITO uses 1 for mtp, 5 for ngram)'),
    # krm_fn.domain.vllm_schema
    Spec("SD607", ERROR, "num_speculative_tokens not a positive integer",
         "num_speculative_tokens is …; vLLM needs an integer greater than 0 and exits at start-up: write a JSON integer such as 5 (no quotes)"),
    # krm_fn.domain.vllm_schema
    Spec("SD608", ERROR, "prompt_lookup_min/max not an integer of at least 1",
         "… is …; vLLM needs an integer of at least 1 and exits at start-up: write a JSON integer such as 2 (no quotes), or leave it out"),
    # krm_fn.domain.vllm_schema
    Spec("SD609", ERROR, "prompt_lookup_min greater than prompt_lookup_max",
         "prompt_lookup_min (…) is greater than prompt_lookup_max (…); vLLM exits at start-up: make prompt_lookup_min at most prompt_lookup_max"),
    # krm_fn.domain.vllm_schema
    Spec("SD610", ERROR, "method needs a draft model",
         'method … needs a draft "model" (a Hugging Face id or path) and vLLM exits at start-up without one: add "model", or use "ngram", which needs none'),
    # krm_fn.domain.vllm_schema
    Spec("SD611", ERROR, "key removed from the chosen vLLM version (refused at start-up)",
         "… was removed in vLLM … and vLLM … refuses unknown keys, so the server exits at start-up: remove …"),
    # krm_fn.domain.vllm_schema
    Spec("SD612", WARNING, "key the chosen vLLM version ignores (removed, or read by nothing)",
         "… …: vLLM … ignores it; remove …"),
    # krm_fn.domain.vllm_schema
    Spec("SD613", ERROR, "unknown key (refused at start-up)",
         "… is not a speculative-config key of vLLM …, which refuses unknown keys, so the server exits at start-up: …"),
    # krm_fn.domain.vllm_schema
    Spec("SD614", WARNING, "unknown key (ignored)",
         "… is not a speculative-config key of vLLM …, which ignores it: …"),
    # krm_fn.domain.vllm_schema
    Spec("SD615", INFO, "model-specific MTP method name: use mtp",
         'method … is a model-specific MTP name that vLLM … rewrites to "mtp" with a deprecation warning: write "method":"mtp" (the target model\'s MTP layers are found either way)'),
    # krm_fn.domain.vllm_schema
    Spec("SD616", INFO, "suffix decoding needs arctic-inference in the image",
         'method "suffix" needs the arctic-inference package in the inference image (vLLM exits at start-up without it: "Arctic Inference is required for suffix decoding"): check the image has it, or use "ngram"'),
    # krm_fn.domain.vllm_schema
    Spec("SD617", WARNING, "empty speculative-config: vLLM starts without speculative decoding",
         'speculative-config is …, which vLLM … reads as no speculative config: the server starts without speculative decoding; write an object such as \'{{"method":"ngram","num_speculative_tokens":5}}\', or remove the key'),
    # krm_fn.domain.vllm_schema
    Spec("SD618", ERROR, "draft-model speculation (or a model without a method) the chosen vLLM version cannot run",
         'speculative-config …, and vLLM … cannot run that (…), so the server exits at start-up: give the "method" the draft model is for (for example "eagle3"), or use "ngram"'),
    # krm_fn.domain.vllm_schema
    Spec("SD619", ERROR, "value the chosen vLLM version refuses for its key",
         "… is …; vLLM … needs … and exits at start-up: …"),
    # krm_fn.domain.vllm_schema
    Spec("SD620", ERROR, "quantization method the chosen vLLM version does not know",
         "quantization … is not a quantization method vLLM … knows, so the server exits at start-up: use one of …, or leave it out (the draft then follows the target)"),
    # krm_fn.domain.vllm_schema
    Spec("SD621", ERROR, "tensor_parallel_size in the speculative-config (refused at start-up)",
         'vLLM … refuses tensor_parallel_size in the speculative-config ("\'tensor_parallel_size\' is not a valid argument") and exits at start-up: rename it to draft_tensor_parallel_size'),
    # krm_fn.domain.vllm_schema
    Spec("SD622", WARNING, "a vLLM release newer than the newest this function models: judged by that one's facts",
         "vLLM … (…) is newer than vLLM …, the newest release this function models: speculative configs are judged by vLLM …'s facts, and a method or key vLLM … does not know is a warning, not an error; check them against vLLM …'s release notes, or use a kaito-specdec that models it"),
    # krm_fn.domain.vllm_schema
    Spec("SD623", WARNING, "method the newest vLLM modelled does not know, for a newer vLLM (which may know it)",
         "method … is not one vLLM … knows …; vLLM … is the newest release modelled, older than the vLLM … named: check that vLLM … has it, or use one of: …"),
    # krm_fn.domain.vllm_schema
    Spec("SD624", WARNING, "key the newest vLLM modelled does not take, for a newer vLLM (which may take it)",
         "… is not a speculative-config key of vLLM …, which refuses unknown keys; vLLM … is the newest release this function models, older than the vLLM … named: check that vLLM … takes it, or …"),
)
