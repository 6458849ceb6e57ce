"""SD3xx: decisions and derived ConfigMaps."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    # why: where the config came from, in words (stages.decide._why: "is KAITO-tuned", "is untuned (…)", …).
    Spec("SD301", INFO, "speculative-config injected: a derived ConfigMap, and the reference pointed at it",
         {"new": "preset {preset!q} {why}: {method} in ConfigMap {configmap!q} (new)",
          "from-source": "preset {preset!q} {why}: {method} in ConfigMap {configmap!q} (from ConfigMap {source!q})"},
         why=("The decision for a configurable workload: the preset is KAITO-tuned (its tuned config), tuned by the\n"
              '`tunedPresets` setting, or untuned (the universal fallback `{"method":"ngram","num_speculative_tokens":5,\n'
              '"prompt_lookup_max":4}`, or the `ngramFallback` setting). The message names the method; the whole config is\n'
              'in the derived ConfigMap the result\'s `proposedValue` names (`kaito-specdec presets` prints the table). "new":\n'
              'the workload referenced no ConfigMap; "from ConfigMap X": the derived one is a copy of X with the config added.')),
    Spec("SD302", INFO, "the referenced ConfigMap already sets speculative-config (a user override): left unchanged",
         "speculative decoding: ConfigMap {configmap!q} already sets {keys} (a user override); left unchanged"),
    Spec("SD303", INFO, "the source of a derived ConfigMap now sets speculative-config itself: the reference goes back to it",
         "speculative decoding: ConfigMap {configmap!q} now sets {keys} itself (a user override): the reference goes back to it"),
    Spec("SD304", WARNING, "the referenced ConfigMap is not in the input: KAITO decides in the cluster",
         {"decided-in-cluster": "speculative decoding: ConfigMap {configmap!q} is not in the input, so its vllm.speculative-config cannot be seen; left unchanged, KAITO decides in the cluster",
          "version-unknown": "speculative decoding: ConfigMap {configmap!q} is not in the input, so its vllm.speculative-config cannot be seen; left unchanged, KAITO v0.13 decides in the cluster; v0.10-v0.12 run it only if that ConfigMap sets it (set kaitoVersion)",
          "annotation-not-read": "speculative decoding: ConfigMap {configmap!q} is not in the input, so its vllm.speculative-config cannot be seen; left unchanged, KAITO {kaito_version} runs it only if that ConfigMap sets it"},
         why=("The ConfigMap a workload references is not in the input, so whether it sets `vllm.speculative-config` itself\n"
              "cannot be seen at render time. KAITO v0.13 reads `kaito.sh/enable-speculative-decoding` and decides in the\n"
              "cluster. No released KAITO before it (v0.10-v0.12, read from their source) reads the annotation: there\n"
              "speculative decoding runs only if that ConfigMap sets `vllm.speculative-config` itself. Set `kaitoVersion`\n"
              "to the release your cluster runs to be told which.")),
    Spec("SD305", WARNING, "a derived ConfigMap whose source ConfigMap is not in the input: cannot be regenerated",
         {"derived-in-input": "speculative decoding: the derived ConfigMap {derived!q} is in the input, but its source ConfigMap {source!q} is not: cannot regenerate it; left unchanged",
          "neither-in-input": "speculative decoding: the derived ConfigMap {derived!q} is not in the input, and its source ConfigMap {source!q} is not: cannot regenerate it; left unchanged"}),
    # The error: the reader's own words (text.items.ItemError; domain.inference_config.InferenceConfigError,
    # which names inference_config.yaml itself).
    Spec("SD306", ERROR, "the referenced ConfigMap is one KAITO cannot read",
         {"unreadable": "ConfigMap {configmap!q} referenced by {kind} {workload!q}: the ConfigMap cannot be read: {error}",
          "uninspectable": "ConfigMap {configmap!q} referenced by {kind} {workload!q}: {error}"},
         can_disable=False),
    Spec("SD307", ERROR, "the reference names a ConfigMap the input has only with kustomize's hash suffix: a missing nameReference configuration",
         "ConfigMap {source!q} is missing but {generated!q} is here: kustomize added a hash suffix and left this reference as written; add a nameReference for {kind} path {path} (examples/kustomize/base/kaito-namereference.yaml)",
         why=("kustomize's `configMapGenerator` appends a hash of the content to a generated ConfigMap's name and rewrites\n"
              "the references it knows; it does not know that a KAITO field names a ConfigMap, so the reference is left as\n"
              "written and names a ConfigMap that does not exist in the cluster. List a nameReference file under\n"
              "`configurations:` in the kustomization (kind ConfigMap; fieldSpecs: group kaito.sh, the kind, the path the\n"
              "message names), as `examples/kustomize/base/kaito-namereference.yaml` does, or set\n"
              "`generatorOptions.disableNameSuffixHash`.")),
    Spec("SD308", INFO, "a tuned config the vLLM release refuses: the fallback is written instead",
         {"vllm-version": "vLLM {vllm_version} (vllmVersion) refuses the tuned {refused} of preset {preset!q}, so the fallback {json} is written; set vllmVersion if the image runs a newer vLLM",
          "kaito-image": "vLLM {vllm_version} (assumed for KAITO {kaito}'s image, vllmVersion not set) refuses the tuned {refused} of preset {preset!q}, so the fallback {json} is written; set vllmVersion if the image runs a newer vLLM",
          "beyond-newest": "vLLM {newest} (the newest modelled; vllmVersion {vllm_version}) refuses the tuned {refused} of preset {preset!q}, so the fallback {json} is written; set vllmVersion if the image runs a newer vLLM"},
         why=("The preset is tuned, but the `vllmVersion` vLLM refuses the tuned config at start-up (a method\n"
              "that release does not have): the fallback is written instead. With `vllmVersion` unset, the vLLM\n"
              "is the one KAITO's image runs at the `kaitoVersion` release (SD428; before v0.8.0 it has no\n"
              "`mtp`). If the image runs a newer vLLM, set `vllmVersion` to it and the tuned config is written.\n"
              "A `vllmVersion` newer than the newest release modelled is judged by that release's facts, and the\n"
              "message names that release's verdict, not the newer one's (which is not known here).")),
    # The problem: why the derived ConfigMap cannot be built, in domain.inference_config's words.
    Spec("SD311", ERROR, "the derived ConfigMap cannot be built from the referenced ConfigMap",
         "ConfigMap {configmap!q}: {problem}",
         can_disable=False),
    Spec("SD312", ERROR, "a ConfigMap of a derived ConfigMap's name with another apiVersion than v1",
         "ConfigMap {configmap!q} is in the input with apiVersion {api_version!q}, not v1: a derived ConfigMap of that name would be the same object; set apiVersion v1, or delete it to regenerate it",
         can_disable=False),
    Spec("SD313", ERROR, "a ConfigMap of a derived ConfigMap's name that this function did not derive",
         "ConfigMap {configmap!q} exists and is not one this function derived; rename it",
         can_disable=False),
    Spec("SD314", ERROR, "a derived ConfigMap in the input cannot be read",
         "derived ConfigMap {configmap!q} cannot be read: {error}; delete it to regenerate it",
         can_disable=False),
    Spec("SD315", WARNING, "a derived ConfigMap edited by hand: regenerated from its source",
         "derived ConfigMap {configmap!q} differs from what its source gives (edited by hand?): regenerated; edit its source ConfigMap instead"),
    Spec("SD316", ERROR, "a derived ConfigMap whose data would be over the 1 MiB the API server accepts",
         "the derived ConfigMap {configmap!q} would hold {size} bytes of data (its source's and the speculative config), over the {limit} the API server accepts: it would refuse the object; make the source ConfigMap smaller",
         why=("The API server refuses a ConfigMap whose `data` and `binaryData` values add up to more than 1 MiB\n"
              "(`ValidateConfigMap` in kubernetes' pkg/apis/core/validation/validation.go: `totalSize += len(value)` for each,\n"
              "`totalSize > core.MaxSecretSize` is `field.TooLong`; binaryData counted decoded). A derived ConfigMap is its\n"
              "source's data with the speculative config added, so a source close to the limit gives a copy over it. Nothing\n"
              "is written: the workload would point at an object no cluster accepts."),
         can_disable=False),
    Spec("SD321", WARNING, "disabled, but neither the derived ConfigMap nor its source is in the input: the reference stays",
         "speculative decoding is disabled, but the derived ConfigMap {derived!q} and its source {source!q} are not in the input: set the reference by hand"),
    Spec("SD322", INFO, "disabled: the reference goes back to the source ConfigMap",
         "speculative decoding is disabled: reference restored to ConfigMap {configmap!q}"),
    Spec("SD323", INFO, "disabled: the reference to a derived ConfigMap made from none is removed",
         "speculative decoding is disabled: derived ConfigMap reference removed"),
    Spec("SD331", INFO, "an unreferenced derived ConfigMap kept, as another object mentions it",
         {"at-field": "derived ConfigMap kept: {kind} {name!q} mentions it at {place}",
          "at-top-level": "derived ConfigMap kept: {kind} {name!q} mentions it at its top level"}),
    Spec("SD332", INFO, "a derived ConfigMap no workload references any more: dropped",
         "derived ConfigMap no workload references any more: dropped"),
)
