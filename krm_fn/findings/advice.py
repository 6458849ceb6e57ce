"""SD4xx: advice: findings that change nothing."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    # The … in `'{"method": …}'` is the message's own: the user fills in the method.
    Spec("SD401", ERROR, "the user's speculative-config is not a string (a boolean, a number) or only blanks: vLLM refuses it",
         'vllm.{key} is {what}: KAITO passes it to vLLM as --speculative-config, which vLLM refuses at start-up (it takes a JSON object); write speculative-config: \'{{"method": …}}\' or remove the key'),
    Spec("SD403", WARNING, "the roles of a MultiRoleInference get different draft-free (ngram) speculative configs",
         "the roles get different speculative configs ({roles}); give both the same unless that is meant",
         why=("The roles get different draft-free (ngram) configs: vLLM runs them (ngram may even run on decode\n"
              "alone), but the roles then say different things about what drafts. Give both the same config unless\n"
              "that is meant.")),
    Spec("SD404", WARNING, "speculative_config or speculative-config.<field>: an override KAITO v0.13 does not recognise",
         "{keys}: your override, in a spelling KAITO v0.13+ does not see (it adds its own --speculative-config too); write it as speculative-config",
         why=("vLLM reads `speculative_config` (and the other spellings of the option) as `--speculative-config`, so\n"
              "it is the user's override and nothing is added; KAITO v0.13 and later do not recognise the spelling\n"
              "and inject their own `--speculative-config` as well (the user's comes last and wins). Write it as\n"
              "`speculative-config`.")),
    Spec("SD405", INFO, "a KAITO version before v0.13.0: only the written config enables speculative decoding",
         "KAITO {kaito_version} ignores the annotation: the config written here is what enables speculative decoding (an InferenceSet's existing Workspaces need recreating)",
         why=("KAITO releases before v0.13.0 ignore `kaito.sh/enable-speculative-decoding`: the config this function\n"
              "writes is the only thing that enables speculative decoding there. Before v0.13.0 an InferenceSet does\n"
              "not push a changed `spec.template.inference.config` to the Workspaces it already has: only new\n"
              "Workspaces get it; recreate the existing ones to roll it out.")),
    Spec("SD406", WARNING, "inference_config.yaml holds more than one YAML document: KAITO's vLLM runtime refuses it",
         "inference_config.yaml holds more than one YAML document: KAITO's webhook reads the first only, but KAITO's vLLM runtime reads the file with yaml.safe_load, which refuses a second document, so the pods fail at start; keep one document"),
    Spec("SD407", WARNING, "enabled on an InferenceSet whose MultiRoleInference is not enabled: left unchanged",
         "enabled here, but MultiRoleInference {name!q} is not: KAITO's controller sets this InferenceSet's spec.template.inference.config from the role's runtimeConfig, so a config written here would be replaced; left unchanged: opt in on the MultiRoleInference"),
    Spec("SD408", WARNING, "the annotation on an InferenceSet's own metadata, where KAITO does not read it",
         "on the InferenceSet's own metadata, where KAITO does not read it: speculative decoding is not enabled by it; move it to spec.template.metadata.annotations"),
    Spec("SD409", ERROR, "the roles of a MultiRoleInference get different speculative configs where one drafts with a model",
         "the roles get different speculative configs ({roles}), but vLLM needs {methods} alike on both; give both the same",
         why=("The roles of a MultiRoleInference get different speculative configs with a model-based method (eagle,\n"
              "mtp …): vLLM needs a model-based method configured identically on the prefill and the decode side.")),
    Spec("SD410", INFO, "a user override pins ngram on a preset whose tuned config is model-based (mtp)",
         "ConfigMap {configmap!q} pins speculative-config to {method} for {kind} {name!q}, whose preset {preset!q} is tuned for {tuned}; if {method} is meant, nothing to do; for the tuned config remove vllm.speculative-config from the ConfigMap and this function writes it"),
    Spec("SD411", WARNING, "speculative-config beside dotted speculative-config.<field> keys: vLLM drops the JSON value",
         "vllm.{key} and dotted vllm.speculative-config.<field> keys together: vLLM silently drops the JSON of vllm.{key}; keep one form, speculative-config with the whole JSON",
         why=("`vllm.speculative-config` and dotted `vllm.speculative-config.<field>` keys together: vLLM merges the\n"
              "dotted keys into one `--speculative-config` and puts it last, so the JSON value is dropped without a\n"
              "word.")),
    # {verdict}: what the vllmVersion vLLM does there (vllm_releases.pipeline_verdict); {such_as}: empty or
    # " (such as <instance type>)".
    Spec("SD412", WARNING, "speculative decoding on a workload KAITO's node estimator spreads over several nodes (pipeline parallelism)",
         "KAITO spreads {model!q} over {nodes} nodes of {instance_type} (pipeline parallelism): {verdict}; use an instance type that holds it on one node{such_as}",
         why=("KAITO's node estimator spreads one replica over several nodes when the instance type's GPUs cannot\n"
              "hold the model (kaito_sizing mirrors KAITO's SKU tables and model catalog); vLLM then runs it with\n"
              "pipeline parallelism across the nodes. What vLLM does with speculative decoding there, by release\n"
              "(vllm_releases.pipeline_verdict): before 0.9 it refuses at start-up (SD417, an error); 0.9 runs it\n"
              "only with the Ray executor (`--distributed-executor-backend ray`); from 0.10 it runs it, with the\n"
              "drafter on the last pipeline stage only (vLLM's gpu_model_runner: \"currently we put the entire draft\n"
              'model on the last PP rank"). For a model-based method (mtp, eagle) the whole draft model needs memory\n'
              "on that stage; ngram has no draft model, but drafts on the last stage while the others wait. The\n"
              "message proposes the instance type of the same cloud with the least GPU memory that holds the model on\n"
              "one node.")),
    Spec("SD413", WARNING, "speculative decoding on a Workspace whose resource.count asks for several nodes",
         "resource.count {count} may spread one replica over {count} nodes (pipeline parallelism): {verdict}; keep it on one node",
         why=("As SD412, where the function cannot see the GPUs (an instance type outside KAITO's tables, or BYO\n"
              "nodes) and `resource.count` (deprecated; KAITO's estimator starts from it) asks for more than one\n"
              "node. Where the vllmVersion vLLM refuses speculative decoding under pipeline parallelism it is SD418,\n"
              "an error.")),
    Spec("SD414", WARNING, "the opt-in key as a label, where KAITO does not read it",
         "a label, which KAITO does not read: speculative decoding is not enabled by it; make it an annotation at {annotations}"),
    Spec("SD415", WARNING, "the opt-in key at a place in the object where KAITO does not read it",
         "KAITO does not read the opt-in here, so speculative decoding is not enabled by it: move it to {annotations}"),
    Spec("SD416", WARNING, "an annotation or label key that is almost the opt-in key (case, spelling), on any workload the function reads",
         "not kaito.sh/enable-speculative-decoding (keys are compared exactly): speculative decoding is not enabled by it; spell it so, at {annotations}"),
    Spec("SD417", ERROR, "speculative decoding on a workload KAITO's node estimator spreads over several nodes, and the vllmVersion vLLM refuses it at start-up",
         "KAITO spreads {model!q} over {nodes} nodes of {instance_type} (pipeline parallelism): {verdict}; use an instance type that holds it on one node{such_as}",
         why=("As SD412, where the vllmVersion vLLM refuses speculative decoding under pipeline parallelism at\n"
              "start-up (before 0.9: KAITO runs a multi-node Workspace with Ray and sets no `VLLM_USE_V1`, so vLLM's\n"
              "V0 engine runs it); SD412's why says what each release does.")),
    Spec("SD418", ERROR, "speculative decoding on a Workspace whose resource.count asks for several nodes, and the vllmVersion vLLM refuses it at start-up",
         "resource.count {count} may spread one replica over {count} nodes (pipeline parallelism): {verdict}; keep it on one node",
         why=("As SD413, where the vllmVersion vLLM refuses speculative decoding under pipeline parallelism at\n"
              "start-up (SD417).")),
    Spec("SD420", WARNING, "KAITO v0.11-v0.12: a Workspace enabled without a config of its own: a running one mounts it but never reads it",
         'on KAITO {releases} its running pods ignore ConfigMap {configmap!q}: run kubectl delete statefulset {name}{ns_flag} (and to turn it off later, set the annotation to "false", do not remove it)',
         why=("On KAITO v0.11-v0.12 a Workspace created without `inference.config` has no `--kaito-config-file` on\n"
              "its vLLM command, and KAITO never updates the command of an existing StatefulSet: the running pods\n"
              "mount the derived ConfigMap but do not read it until the StatefulSet is recreated (`kubectl delete\n"
              "statefulset NAME`; KAITO recreates it with the current command). To turn speculative decoding off\n"
              'later, set the annotation to `"false"`: removing it drops the reference, and a running pod then\n'
              "crash-loops (SD421). With `kaitoVersion` not set and no earlier render in the input it is SD426, an\n"
              "info ([rollout.md](rollout.md)).")),
    Spec("SD421", INFO, "KAITO v0.11-v0.12: a disabled Workspace keeps a config reference (a derived ConfigMap without speculative-config)",
         'disabled; on KAITO {releases} running pods still read a config file, so the reference now names {configmap!q} (no speculative-config); keep the annotation "false" while it runs, or run kubectl delete statefulset {name}{ns_flag} before removing both',
         why=("Disabled on KAITO v0.11-v0.12: a running Workspace's vLLM command keeps `--kaito-config-file` (KAITO\n"
              "does not update the command), and KAITO drops the config volume with the reference, so the pods would\n"
              "crash-loop. The reference therefore points at a ConfigMap without speculative-config\n"
              '(`specdec-off-…`). Keep the annotation `"false"` while the Workspace runs, or recreate it before\n'
              "removing both.")),
    Spec("SD422", INFO, "a derived ConfigMap kept: the Workspaces an InferenceSet already has still mount it",
         "derived ConfigMap kept: the Workspaces {kind} {name!q} already has were created with it and KAITO does not change their config; once they are recreated ({command}), delete this ConfigMap from the package"),
    Spec("SD423", WARNING, "a MultiRoleInference without annotations: KAITO leaves its InferenceSets' annotations as they were",
         'MultiRoleInference {name!q} has no annotations left, so KAITO copies none and {inference_sets} keep the old opt-in; set it to "false" instead of removing it',
         why=("KAITO copies a MultiRoleInference's annotations to its InferenceSets only when it has some (`if\n"
              "len(mri.Annotations) > 0`): with none left, the InferenceSets keep the opt-in as it was.")),
    Spec("SD424", WARNING, "an InferenceSet or MultiRoleInference re-pointed or off: the Workspaces it already has keep their config",
         "its existing Workspaces keep their old config (KAITO updates only new ones); to change them, run {command}",
         why=("KAITO gives a changed `spec.template.inference` only to the Workspaces an InferenceSet creates from\n"
              "then on: the existing ones keep the config they were created with (the v0.13 code syncs only the\n"
              "annotation: where their config sets no speculative-config, KAITO injects its built-in one, not the\n"
              "`tunedPresets` or `ngramFallback` setting's). The command deletes them by KAITO's label; KAITO\n"
              "recreates them from the template. Where the input shows no earlier render it is SD427, an info.")),
    Spec("SD425", WARNING, "a MultiRoleInference whose model changed: KAITO refuses the update (model name is immutable)",
         "MultiRoleInference {name!q} changes its model from {old!q} to {new!q}, which KAITO refuses (model name is immutable): delete and re-create it (kubectl delete multiroleinference {name}{ns_flag}, then apply)",
         why=("KAITO's webhook refuses a MultiRoleInference update that changes the model: `if m.Spec.Model.Name !=\n"
              'old.Spec.Model.Name { ... "model name is immutable, was %q, now %q" }`\n'
              "(`api/v1alpha1/multiroleinference_validation.go:75-80` at v0.12.0). The function sees the old model in\n"
              "the InferenceSet the input holds for it; if the MultiRoleInference was created with that model, the\n"
              "apply fails, and recreating its Workspaces (SD424) would bring the old model back. Delete and\n"
              "re-create it instead (Argo CD: `Replace=true`; Flux: `force`).")),
    Spec("SD426", INFO, "KAITO v0.11-v0.12 may run (kaitoVersion not set): a Workspace enabled without a config of its own, with no earlier render in the input",
         'on KAITO {releases} its running pods ignore ConfigMap {configmap!q}: run kubectl delete statefulset {name}{ns_flag} (and to turn it off later, set the annotation to "false", do not remove it)',
         why=("As SD420, where `kaitoVersion` is not set and nothing in the input shows an earlier render (no\n"
              "reference to a derived ConfigMap, no object this function derived): the cluster may run another\n"
              "release, and from source files the Workspace is most often a new one, whose pods read the config from\n"
              "the start ([rollout.md](rollout.md)).")),
    Spec("SD427", INFO, "an InferenceSet or MultiRoleInference re-pointed or off, with no earlier render in the input (most often a first enable: no Workspaces yet)",
         "its existing Workspaces keep their old config (KAITO updates only new ones); to change them, run {command}",
         why=("As SD424, where nothing in the input shows an earlier render (no reference to a derived ConfigMap, no\n"
              "object this function derived, no child in the input): from source files this is most often a first\n"
              "enable, of an InferenceSet or MultiRoleInference with no Workspaces yet.")),
    # `why`: where kaito_releases.IMAGE_VLLM read the pin (its note first, for a release that pins none itself).
    Spec("SD428", INFO, "vllmVersion not set: the vLLM release the KAITO workloads are judged by, and why",
         {"kaito-version": "vllmVersion is not set: the KAITO workloads are judged by vLLM {vllm}, assumed for KAITO {kaito}'s image ({why}); if yours runs another vLLM, set vllmVersion to it",
          "default": "neither vllmVersion nor kaitoVersion is set: the KAITO workloads are judged by vLLM {vllm}, which the newest KAITO's image ({kaito}) runs; set kaitoVersion or vllmVersion to what your cluster runs"},
         why=("Which speculative configs vLLM refuses, whether it has a method or a key, what it does under\n"
              "pipeline parallelism: every such verdict on a KAITO workload depends on the vLLM release its\n"
              "image runs. With `vllmVersion` unset, that is the vLLM KAITO's own image pins for the\n"
              "`kaitoVersion` release (`presets/workspace/dependencies/requirements.txt` in kaito-project/kaito:\n"
              "v0.10.0 0.17.1, v0.11.0 0.22.1, v0.12.0 0.25.1; [settings.md](settings.md) has every release),\n"
              "and with no `kaitoVersion` either, the newest release's. Said once a run where a KAITO workload\n"
              "is judged (an info: `-v` shows it). A plain vLLM workload goes by its image's tag instead (SD735\n"
              "where the tag names no release).")),
)
