"""SD4xx: advice: findings that change nothing."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    # krm_fn.stages.advice
    Spec("SD401", ERROR, "the user's speculative-config is not a string (a boolean, a number) or only blanks: vLLM refuses it",
         'vllm.… is …: KAITO passes it to vLLM as --speculative-config, which vLLM refuses at start-up (it takes a JSON object); write speculative-config: \'{{"method": …}}\' or remove the key'),
    # krm_fn.stages.advice
    Spec("SD403", WARNING, "the roles of a MultiRoleInference get different draft-free (ngram) speculative configs",
         "the roles get different speculative configs (…); give both the same unless that is meant",
         why=("The roles get different draft-free (ngram) configs: vLLM runs them (ngram may even run on decode alone), but\n"
              "the roles then say different things about what drafts. Give both the same config unless that is meant.")),
    # krm_fn.stages.advice
    Spec("SD404", WARNING, "speculative_config or speculative-config.<field>: an override KAITO v0.13 does not recognise",
         "…: your override, in a spelling KAITO v0.13+ does not see (it adds its own --speculative-config too); write it as speculative-config",
         why=("vLLM reads `speculative_config` (and the other spellings of the option) as `--speculative-config`, so it is\n"
              "the user's override and nothing is added; KAITO v0.13 and later do not recognise the spelling and inject their\n"
              "own `--speculative-config` as well (the user's comes last and wins). Write it as `speculative-config`.")),
    # krm_fn.stages.advice
    Spec("SD405", INFO, "a KAITO version before v0.13.0: only the written config enables speculative decoding",
         "KAITO … ignores the annotation: the config written here is what enables speculative decoding (an InferenceSet's existing Workspaces need recreating)",
         why=("KAITO releases before v0.13.0 ignore `kaito.sh/enable-speculative-decoding`: the config this function writes is\n"
              "the only thing that enables speculative decoding there. Before v0.13.0 an InferenceSet does not push a changed\n"
              "`spec.template.inference.config` to the Workspaces it already has: only new Workspaces get it; recreate the\n"
              "existing ones to roll it out.")),
    # krm_fn.stages.advice
    Spec("SD406", WARNING, "inference_config.yaml holds more than one YAML document: KAITO's vLLM runtime refuses it",
         "inference_config.yaml holds more than one YAML document: KAITO's webhook reads the first only, but KAITO's vLLM runtime reads the file with yaml.safe_load, which refuses a second document, so the pods fail at start; keep one document"),
    # krm_fn.stages.advice
    Spec("SD407", WARNING, "enabled on an InferenceSet whose MultiRoleInference is not enabled: left unchanged",
         "enabled here, but MultiRoleInference … is not: KAITO's controller sets this InferenceSet's spec.template.inference.config from the role's runtimeConfig, so a config written here would be replaced; left unchanged: enable kaito.sh/enable-speculative-decoding on the MultiRoleInference"),
    # krm_fn.stages.misplaced
    Spec("SD408", WARNING, "the annotation on an InferenceSet's own metadata, where KAITO does not read it",
         "annotation kaito.sh/enable-speculative-decoding is on the InferenceSet's own metadata, where KAITO does not read it: speculative decoding is not enabled by it; move it to spec.template.metadata.annotations"),
    # krm_fn.stages.advice
    Spec("SD409", ERROR, "the roles of a MultiRoleInference get different speculative configs where one drafts with a model",
         "the roles get different speculative configs (…), but vLLM needs … alike on both; give both the same",
         why=("The roles of a MultiRoleInference get different speculative configs with a model-based method (eagle, mtp …):\n"
              "vLLM needs a model-based method configured identically on the prefill and the decode side.")),
    # krm_fn.stages.advice
    Spec("SD410", INFO, "a user override pins ngram on a preset whose tuned config is model-based (mtp)",
         "ConfigMap … pins speculative-config to … for … …, whose preset … is tuned for …; if … is meant, nothing to do; for the tuned config remove vllm.speculative-config from the ConfigMap and this function writes it"),
    # krm_fn.stages.advice
    Spec("SD411", WARNING, "speculative-config beside dotted speculative-config.<field> keys: vLLM drops the JSON value",
         "vllm.… and dotted vllm.speculative-config.<field> keys together: vLLM silently drops the JSON of vllm.…; keep one form, speculative-config with the whole JSON",
         why=("`vllm.speculative-config` and dotted `vllm.speculative-config.<field>` keys together: vLLM merges the dotted\n"
              "keys into one `--speculative-config` and puts it last, so the JSON value is dropped without a word.")),
    # krm_fn.model.multinode; severities seen: ['error', 'warning'] (SPLIT -> SD417)
    Spec("SD412", ERROR, "speculative decoding on a workload KAITO's node estimator spreads over several nodes (pipeline parallelism)",
         "KAITO spreads … over … nodes of … (pipeline parallelism): …; use an instance type that holds it on one node…",
         why=("KAITO's node estimator spreads one replica over several nodes when the instance type's GPUs cannot hold the\n"
              "model (kaito_sizing mirrors KAITO's SKU tables and model catalog); vLLM then runs it with pipeline parallelism\n"
              "across the nodes. What vLLM does with speculative decoding there, by release (vllm_releases.pipeline_verdict):\n"
              "before 0.9 it refuses at start-up (an error); 0.9 runs it only with the Ray executor\n"
              "(`--distributed-executor-backend ray`); from 0.10 it runs it, with the drafter on the last pipeline stage only\n"
              '(vLLM\'s gpu_model_runner: "currently we put the entire draft model on the last PP rank"). For a model-based\n'
              "method (mtp, eagle) the whole draft model needs memory on that stage; ngram has no draft model, but drafts on\n"
              "the last stage while the others wait. The message proposes the instance type of the same cloud with the least\n"
              "GPU memory that holds the model on one node.")),
    # krm_fn.model.multinode; severities seen: ['error', 'warning'] (SPLIT -> SD418)
    Spec("SD413", ERROR, "speculative decoding on a Workspace whose resource.count asks for several nodes",
         "resource.count … may spread one replica over … nodes (pipeline parallelism): …; keep it on one node",
         why=("As SD412, where the function cannot see the GPUs (an instance type outside KAITO's tables, or BYO nodes) and\n"
              "`resource.count` (deprecated; KAITO's estimator starts from it) asks for more than one node.")),
    # krm_fn.stages.misplaced
    Spec("SD414", WARNING, "the opt-in key as a label, where KAITO does not read it",
         "kaito.sh/enable-speculative-decoding is a label at …; KAITO reads it only as an annotation, so speculative decoding is not enabled by it: move it to …"),
    # krm_fn.stages.misplaced
    Spec("SD415", WARNING, "the opt-in key at a place in the object where KAITO does not read it",
         "kaito.sh/enable-speculative-decoding is at …, where KAITO does not read it, so speculative decoding is not enabled by it: move it to …"),
    # krm_fn.stages.misplaced
    Spec("SD416", WARNING, "an annotation or label key that is almost the opt-in key (case, spelling)",
         "key … is not KAITO's opt-in key, which is compared exactly: speculative decoding is not enabled by it; did you mean kaito.sh/enable-speculative-decoding (at …)?"),
    # krm_fn.stages.rollout_notes; severities seen: ['info', 'warning'] (SPLIT -> SD426)
    Spec("SD420", WARNING, "KAITO v0.11-v0.12: a Workspace enabled without a config of its own: a running one mounts it but never reads it",
         'on KAITO … its running pods ignore ConfigMap …: run kubectl delete statefulset … (and to turn it off later, set the annotation to "false", do not remove it)',
         why=("On KAITO v0.11-v0.12 a Workspace created without `inference.config` has no `--kaito-config-file` on its vLLM\n"
              "command, and KAITO never updates the command of an existing StatefulSet: the running pods mount the derived\n"
              "ConfigMap but do not read it until the StatefulSet is recreated (`kubectl delete statefulset NAME`; KAITO\n"
              "recreates it with the current command). To turn speculative decoding off later, set the annotation to\n"
              '`"false"`: removing it drops the reference, and a running pod then crash-loops (SD421). With `kaitoVersion`\n'
              "not set this is an info unless the input shows an earlier render ([rollout.md](rollout.md)).")),
    # krm_fn.model.rollout
    Spec("SD421", INFO, "KAITO v0.11-v0.12: a disabled Workspace keeps a config reference (a derived ConfigMap without speculative-config)",
         'disabled; on KAITO … running pods still read a config file, so the reference now names … (no speculative-config); keep the annotation "false" while it runs, or run kubectl delete statefulset … before removing both',
         why=("Disabled on KAITO v0.11-v0.12: a running Workspace's vLLM command keeps `--kaito-config-file` (KAITO does not\n"
              "update the command), and KAITO drops the config volume with the reference, so the pods would crash-loop. The\n"
              "reference therefore points at a ConfigMap without speculative-config (`specdec-off-…`). Keep the annotation\n"
              '`"false"` while the Workspace runs, or recreate it before removing both.')),
    # krm_fn.model.rollout
    Spec("SD422", INFO, "a derived ConfigMap kept: the Workspaces an InferenceSet already has still mount it",
         "derived ConfigMap kept: the Workspaces … … already has were created with it and KAITO does not change their config; once they are recreated (…), delete this ConfigMap from the package"),
    # krm_fn.stages.rollout_notes
    Spec("SD423", WARNING, "a MultiRoleInference without annotations: KAITO leaves its InferenceSets' annotations as they were",
         'MultiRoleInference … has no annotations left, so KAITO copies none and … keep the old opt-in; set it to "false" instead of removing it',
         why=("KAITO copies a MultiRoleInference's annotations to its InferenceSets only when it has some\n"
              "(`if len(mri.Annotations) > 0`): with none left, the InferenceSets keep the opt-in as it was.")),
    # krm_fn.stages.rollout_notes; severities seen: ['info', 'warning'] (SPLIT -> SD427)
    Spec("SD424", WARNING, "an InferenceSet or MultiRoleInference re-pointed or off: the Workspaces it already has keep their config",
         "its existing Workspaces keep their old config (KAITO updates only new ones); to change them, run …",
         why=("KAITO gives a changed `spec.template.inference` only to the Workspaces an InferenceSet creates from then on:\n"
              "the existing ones keep the config they were created with (the v0.13 code syncs only the annotation: where\n"
              "their config sets no speculative-config, KAITO injects its built-in one, not the `tunedPresets` or\n"
              "`ngramFallback` setting's). The command deletes them by KAITO's label; KAITO recreates them from the template.")),
    # krm_fn.stages.rollout_notes
    Spec("SD425", WARNING, "a MultiRoleInference whose model changed: KAITO refuses the update (model name is immutable)",
         "MultiRoleInference … changes its model from … to …, which KAITO refuses (model name is immutable): delete and re-create it (kubectl delete multiroleinference …, then apply)",
         why=("KAITO's webhook refuses a MultiRoleInference update that changes the model: `if m.Spec.Model.Name !=\n"
              'old.Spec.Model.Name { ... "model name is immutable, was %q, now %q" }`\n'
              "(`api/v1alpha1/multiroleinference_validation.go:75-80` at v0.12.0). The function sees the old model in the\n"
              "InferenceSet the input holds for it; if the MultiRoleInference was created with that model, the apply fails,\n"
              "and recreating its Workspaces (SD424) would bring the old model back. Delete and re-create it instead (Argo\n"
              "CD: `Replace=true`; Flux: `force`).")),
)
