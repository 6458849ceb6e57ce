"""SD7xx: plain vLLM workloads and KServe services."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    Spec("SD701", INFO, "vLLM container: speculative config decided by its model",
         "model {model} read as {key} ({kind}): --speculative-config={config}"),
    Spec("SD702", INFO, "vLLM model not known at render time: universal fallback",
         "the model is not known at render time ({reason}): the universal fallback --speculative-config={config} is used; write the model as a Hugging Face id or a path ending in org/name to get its tuned config"),
    Spec("SD703", INFO, "vLLM container already sets a speculative config: user override, unchanged",
         {"override": "the vLLM command already sets {flags}: user override, left unchanged; remove it to let kaito-specdec choose the config",
          "old-flags": "the vLLM command already sets {flags} ({release}'s flags): user override, left unchanged; vLLM 0.8.3+ refuses them, use --speculative-config='<json>' there"}),
    Spec("SD704", ERROR, "removed pre-0.8.3 speculative flags: vLLM refuses to start",
         "{flags}: removed in vLLM 0.8.3, the server refuses to start with them; replace them with one --speculative-config='<json>' (or delete them and let kaito-specdec choose the config)"),
    Spec("SD705", WARNING, "script starts vLLM more than once: unchanged",
         "the shell script in {script} starts vLLM {count} times and the function cannot tell which one to configure; give each server its own container, or add --speculative-config='<json>' to the right one yourself"),
    # reason: shellwords.Unreadable's words (`substitutions nested too deeply`, …)
    Spec("SD706", WARNING, "shell script the function cannot read safely: unchanged",
         "cannot read the shell script in {script} safely ({reason}); add the argument --speculative-config='<json>' to its vLLM command yourself, or start vLLM without a script"),
    Spec("SD707", WARNING, "vLLM command or argument that is not a string: unchanged",
         "{element} is not a string; quote it so the vLLM arguments can be read and extended"),
    Spec("SD708", WARNING, "speculative config with a single quote cannot go into a script: unchanged",
         {"not-dotted": "the speculative config {config} cannot be written as plain dotted arguments (--speculative-config.<key>=<value>), the only form that passes unchanged through the eval of KServe's LLMInferenceService template; choose a config of plain values (functionConfig tunedPresets/ngramFallback), or give the main container its own vllm serve command",
          "single-quote": "the speculative config {config} holds a single quote and cannot be single-quoted in the script in {script}; choose a config without one (functionConfig tunedPresets/ngramFallback)"}),
    Spec("SD709", WARNING, "vLLM reads a config file the function cannot see: unchanged",
         "the vLLM command reads settings from {files}, which the function cannot see and which may set speculative-config (a flag added on the command line would silently win over it); add --speculative-config='<json>' yourself, or move the settings onto the command line"),
    Spec("SD710", INFO, "vLLM arguments that expand at run time: the injected argument comes after them",
         '{expansions} in the vLLM command expands only at run time; if it sets --speculative-config, the argument added here comes after it and wins: set the annotation to "false" to keep your own'),
    Spec("SD711", INFO, "vLLM serves a pooling or encoder model: no speculative decoding, unchanged",
         "{arguments}: this server runs a pooling or encoder model (embeddings, classification or scores), which generates no tokens, so there is nothing to draft and no --speculative-config is added; remove the annotation from this workload"),
    Spec("SD712", ERROR, "vLLM release without the JSON --speculative-config flag: the server would refuse it",
         {"user-config": "{release} has no --speculative-config flag (vLLM 0.8.2 added it) and exits at start-up: upgrade the image to vLLM 0.8.2 or later, or use that release's flags",
          "nothing-added": "{release} has no --speculative-config flag (vLLM 0.8.2 added it), so nothing is added: upgrade the image to vLLM 0.8.2 or later (0.11+ for mtp), or remove the annotation"},
         why=("`--speculative-config` came in vLLM 0.8.2 (0.5 to 0.8.1 take `--speculative-model` and\n"
              '`--num-speculative-tokens`); an older vLLM exits with "unrecognized arguments" when given it.')),
    Spec("SD713", INFO, "tuned config the workload's vLLM refuses: the fallback is written instead",
         "{release} refuses the tuned {tuned}, so the fallback --speculative-config={config} is written; set vllmVersion if the image runs a newer vLLM",
         why=("As SD308, for a plain vLLM workload: the release the image tag names refuses the tuned config.")),
    # reason: vllm_schema.refusal's words
    Spec("SD714", ERROR, "speculative config the workload's vLLM refuses: unchanged",
         "--speculative-config={config} is refused by {release} ({reason}), so nothing is added: choose a config that release accepts (functionConfig tunedPresets/ngramFallback), or upgrade the image"),
    # verdict: vllm_releases.pipeline_verdict's sentence, the release named in it
    Spec("SD715", WARNING,
         "speculative decoding under pipeline parallelism, which the workload's vLLM runs: measure it",
         '{stages}: {verdict}: measure it against one stage, or set the annotation to "false"',
         why=("As SD412, for a plain workload's `--pipeline-parallel-size` above 1.")),
    Spec("SD716", ERROR, "--spec-method/--spec-model/--spec-tokens the workload's vLLM refuses",
         {"too-old": '{flags}: {release} does not have it (--spec-method, --spec-model and --spec-tokens came in vLLM 0.22) and exits with "unrecognized arguments": write --speculative-config=\'<json>\' instead, or set vllmVersion to the release the image runs',
          "both-set": '{flag} and --speculative-config both set {key}: vLLM exits at start-up ("{flag} and --speculative-config[\'{key}\'] are mutually exclusive"); keep one of them'}),
    Spec("SD717", ERROR, "-sc, the short --speculative-config, which the workload's vLLM does not have",
         '-sc: {release} does not have it (the short -sc for --speculative-config came in vLLM 0.19) and exits with "unrecognized arguments: -sc": write --speculative-config=\'<json>\' instead, or set vllmVersion to the release the image runs'),
    Spec("SD718", WARNING, "vllm serve --model, which vLLM before 0.11.1 refuses at start-up",
         "vllm serve --model: {release} exits at start-up on --model after vllm serve: write the model right after serve (vllm serve MODEL), or --model=MODEL",
         why=('vLLM before 0.11.1 exits at start-up on `--model` after `vllm serve` ("With `vllm serve`, you should provide the\n'
              'model as a positional argument or in a config file instead of via the `--model` option").')),
    Spec("SD719", WARNING, "python -m vllm.entrypoints.grpc_server on a vLLM without that module",
         'python -m vllm.entrypoints.grpc_server: {release} has no such module (it is in vLLM 0.14.1 and later, not in 0.13.0), so the container exits at start-up whatever is added here ("No module named vllm.entrypoints.grpc_server"): use an image of vLLM 0.14 or later, or the OpenAI server (vllm serve MODEL)'),
    Spec("SD720", ERROR, "opt-in annotation set in two places with different values",
         "set to {value} in {place} but {other_value} in {other_place}; keep it in one place (the workload's metadata.annotations)"),
    Spec("SD721", WARNING, "annotated workload without a vLLM container",
         "opted in, but no container of this {kind} runs vLLM in a way kaito-specdec knows (`kaito-specdec explain SD721` says which); remove the annotation, or start vLLM with vllm serve",
         why=("The workloads whose vLLM the function recognises: `vllm serve`, `python -m vllm.entrypoints.openai.api_server`,\n"
              "KAITO's `vllm/inference_api.py`, or the vllm-openai image without a command ([plain-vllm.md](plain-vllm.md)).")),
    Spec("SD722", WARNING, "workload kind at an apiVersion the function does not handle",
         "{kind} {api_version} is not handled (only {handled}); move the manifest to {move_to} for the opt-in to take effect"),
    Spec("SD723", WARNING, "annotated KServe InferenceService not on the Hugging Face runtime",
         'kaito.sh/enable-speculative-decoding is "true" but the predictor\'s model format is {format}, not "huggingface": only KServe\'s Hugging Face runtime runs vLLM; remove the annotation or serve the model with modelFormat.name: huggingface'),
    Spec("SD724", WARNING, "annotated KServe InferenceService whose --backend is not vLLM",
         'kaito.sh/enable-speculative-decoding is "true" but --backend={backend} does not run vLLM; remove the annotation or use --backend=vllm (or auto)'),
    Spec("SD725", WARNING, "vLLM containers of one pod template need different configs: unchanged",
         "the vLLM containers of {template} need different configs ({configs}), so none is changed: give them separate pod templates, or set --speculative-config yourself",
         why=("The function records one speculative config per pod template; containers that serve models needing different\n"
              "configs get none.")),
    Spec("SD726", INFO, "Pod or Job template changed: the API server refuses the update of an existing object",
         "the {kind}'s pod template changed, and the API server refuses that change to an existing {kind}: delete and re-create it to roll out the new arguments (Argo CD: Replace=true; Flux: force)"),
    Spec("SD727", INFO, 'opt-in "false" or removed: the speculative config the function added is taken out again',
         "kaito.sh/enable-speculative-decoding is {opt_in}: the --speculative-config={config} kaito-specdec added is removed again"),
    Spec("SD728", ERROR, "annotated workload whose pod template is not the shape Kubernetes reads",
         "{path} is {found}, not {wanted}: the API server refuses this {kind}, and kaito-specdec cannot read or edit its pod template; fix the manifest",
         can_disable=False),
    # hint: what to do instead, by kind (plain_workloads._UNHANDLED_HINTS)
    Spec("SD729", WARNING, "opt-in annotation on a kind the function does not handle: unchanged",
         "{kind} {api_version} carries the opt-in, but kaito-specdec does not handle it and changes nothing: {hint}",
         why=("A kind the function does not handle carries the opt-in. ServingRuntime and ClusterServingRuntime: annotate the\n"
              "InferenceServices that use the runtime (their predictor's model args get the argument). StormService: add\n"
              "`--speculative-config='<json>'` to the vLLM command of its role templates. RayService: set\n"
              "`speculative_config` in the engine_kwargs of its Ray Serve LLM config.")),
    # The `…` after method= is the message's own: the user writes the method there.
    Spec("SD730", WARNING, "LLMInferenceService container running KServe's template vLLM: unchanged",
         "with {api_version} (maybe KServe 0.16) container args replace the template's, so nothing is changed: on KServe 0.17+ write apiVersion serving.kserve.io/v1alpha2, or add --speculative-config.method=… args yourself",
         why=("KServe 0.16's well-known LLMInferenceServiceConfig template has args of its own that a container's args\n"
              "replace, so the function changes nothing at an older apiVersion. On KServe 0.17 or later write the newer\n"
              "apiVersion; or add the config as dotted arguments (the template re-parses each one), e.g.\n"
              "`--speculative-config.method=ngram`, `--speculative-config.num_speculative_tokens=5`,\n"
              "`--speculative-config.prompt_lookup_max=4` (mtp for a tuned model).")),
    Spec("SD731", WARNING, "KServe canary predictor whose pods do not run the config chosen for their model",
         {"other-model": "{canary} serves {model} with the predictor's --speculative-config={config} (chosen for {predictor_model}); give it its own model.args with --speculative-config={chosen}",
          "own-args": "{canary} sets its own model.args, so its pods run without --speculative-config={config}: add it to {args}, or leave args out to inherit the predictor's"},
         why=("KServe merges a canary over `spec.predictor`; a canary's own `model.args` replace the predictor's, and a\n"
              "canary serving another model inherits a config chosen for the predictor's model.")),
    Spec("SD732", INFO, "LLMInferenceService with spec.speculator: KServe configures speculative decoding, nothing added",
         "spec.speculator is set: KServe passes its config to vLLM, so kaito-specdec adds nothing (and takes out what it added before); remove spec.speculator to let kaito-specdec choose",
         why=("KServe's pull request kserve/kserve#5687 adds `spec.speculator` to LLMInferenceService: its controller passes\n"
              "`spec.speculator.config` to vLLM as `--speculative-config` for the decode workloads. A config the function\n"
              "added beside it would come later on the command line and replace the user's, so the function adds nothing\n"
              "there (and takes out what it added before): the speculator's config is what runs.")),
    Spec("SD733", WARNING, 'opt-in "false" or removed, but the config the function added was changed by hand: left in place',
         "the --speculative-config={config} kaito-specdec added was changed by hand, so it is not taken out and speculative decoding stays on: remove {flags} yourself, and the kaito-specdec.dev/speculative-config annotation",
         why=('Setting the opt-in to "false" (or removing it) takes out exactly the text the function added. When that text\n'
              "is not there as written, but the container's speculative config is the recorded JSON in another spelling\n"
              "(other spacing or key order, `--speculative-config X` as two elements, `-sc X`), it is still taken out\n"
              "(SD727), provided it is the only whole-JSON spelling, nothing in it expands at run time and, in a script, only\n"
              "spaces stand between its words and the word before or after it (a cut across a line continuation is not made:\n"
              "an argument on a line of its own between two continuations stays). Anything\n"
              "else (another value, dotted `--speculative-config.<key>` or `--spec-*` flags, a form that cannot be cut out\n"
              "cleanly) is left in place with the record: dropping the record would make every later run read the argument\n"
              "as the user's own (SD703), and the pods would keep speculating with nothing left to say so.")),
    # verdict: vllm_releases.pipeline_verdict's sentence; fix: what makes that release start
    Spec("SD734", ERROR,
         "speculative decoding under pipeline parallelism, and the workload's vLLM refuses it at start-up",
         "{stages}: {verdict}, so nothing is added: run one pipeline stage, {fix}, or remove the annotation",
         why=("As [SD715](#sd715), where the release runs speculative decoding on its V0 engine, which\n"
              "refuses pipeline parallelism at start-up: nothing is added.")),
    # where: what supplies the image when the manifest names none (plain_workloads.release_of's callers)
    Spec("SD735", WARNING, "vLLM image whose tag names no release: every verdict assumes the default vLLM release",
         {"image": "image {image} names no vLLM release, so the verdicts here assume vLLM {version}, the default (KAITO's newest image's); if it runs another, pin it: a versioned vllm/vllm-openai tag, or vllmVersion",
          "no-image": "{where} names no image, so the verdicts here assume vLLM {version}, the default (KAITO's newest image's); if its image runs another vLLM, set vllmVersion to it"},
         why=("What vLLM refuses at start-up (a method it does not have, a key it refuses, a flag it lacks)\n"
              "depends on its release. A plain workload's release is the `vllmVersion` setting, else the one its\n"
              "image's tag names (`vllm/vllm-openai:v0.10.2`, `docker.io/vllm/vllm-openai:v0.8.5.post1`);\n"
              "`latest`, `nightly`, an image without a tag or by digest alone, and another project's image\n"
              "(`lmcache/vllm-openai:v0.3.1`, a private build) name none the function can read, and neither does\n"
              "a KServe service whose runtime supplies the image. The verdicts then assume the default release,\n"
              "the vLLM of KAITO's newest image, which may not be the one that runs: `latest` can be newer (vLLM\n"
              "0.33 removed `medusa`, which the default still has), a private build older. Pin the release: an\n"
              "image tag that names it, or `vllmVersion` (which every workload of the run then follows).")),
    Spec("SD736", WARNING, "LLMInferenceService v1alpha1: the record goes in a field KServe 0.16's CRD does not have",
         "{annotations} is not in KServe 0.16's LLMInferenceService v1alpha1 schema (0.17 added it): 0.16 refuses the object under strict field validation or drops the record; on KServe 0.17+ use apiVersion serving.kserve.io/v1alpha2, on 0.16 remove the annotation",
         why=("The function records the JSON it injected where the pods' annotations are, `spec.annotations` and\n"
              "`spec.prefill.annotations`, as for every plain workload. KServe 0.16.0's CRD (config/crd/full/llmisvc/\n"
              "serving.kserve.io_llminferenceservices.yaml at v0.16.0) has neither in its only version, v1alpha1;\n"
              "0.17.0 added them to v1alpha1 and v1alpha2. A v1alpha1 manifest may run on either release, so the\n"
              "record is written, with this warning; v1alpha2 exists only from 0.17 and gets none.")),
)
