"""SD1xx: KAITO's admission rules (krm_fn/checks/)."""

from ._spec import ERROR, Spec

SPECS = (
    # krm_fn.checks.annotation_value
    Spec("SD101", ERROR, 'the opt-in annotation is a string other than "true" or "false"',
         'annotation kaito.sh/enable-speculative-decoding has invalid value {value!q}; expected "true" or "false"',
         can_disable=False),
    # krm_fn.checks.annotation_value
    Spec("SD102", ERROR, "the opt-in annotation is unquoted: YAML reads it as no string",
         'annotation kaito.sh/enable-speculative-decoding has invalid value {written} (unquoted, YAML reads it as {reads_as}; write "true" or "false" in quotes)',
         can_disable=False),
    # krm_fn.checks.preset_required
    Spec("SD103", ERROR, "speculative decoding on a Workspace or InferenceSet without a preset inference",
         "kaito.sh/enable-speculative-decoding requires a preset inference; remove the annotation or set …",
         can_disable=False),
    # krm_fn.checks.preset_required
    Spec("SD104", ERROR, "speculative decoding on a MultiRoleInference without spec.model.name",
         "kaito.sh/enable-speculative-decoding requires spec.model.name",
         can_disable=False),
    # krm_fn.checks.vllm_runtime
    Spec("SD105", ERROR, "speculative decoding on a workload whose runtime annotation says transformers",
         'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset …)'),
    # krm_fn.checks.vllm_runtime
    Spec("SD106", ERROR, "speculative decoding while the featureGates setting turns KAITO's vLLM runtime off",
         'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset …): KAITO runs with the feature gate vLLM=false (featureGates setting)'),
    # krm_fn.checks.string_fields
    Spec("SD107", ERROR, "a preset name or config reference is a mapping or a list, not a string",
         "… is …; the API server refuses anything but a string here",
         can_disable=False),
    # krm_fn.checks.string_fields
    Spec("SD108", ERROR, "a preset name or config reference is unquoted: YAML reads it as no string",
         {"TODO0": "… has invalid value … (unquoted, YAML reads it as …; the API server refuses anything but a string here: write it in quotes)",
          "TODO1": "… … is unquoted: kubectl reads the text, kustomize and kpt a timestamp they write back in another form; write it in quotes"},
         can_disable=False),
    # krm_fn.checks.inference_or_tuning
    Spec("SD110", ERROR, "a Workspace with both inference and tuning",
         "Either Inference or Tuning must be specified, but not both"),
    # krm_fn.checks.preset_and_template
    Spec("SD111", ERROR, "an inference with both a preset and a template",
         "Preset and Template cannot be set at the same time"),
    # krm_fn.checks.preset_supported
    Spec("SD112", ERROR, "a preset name KAITO does not know",
         "Unsupported inference preset name …"),
    # krm_fn.checks.preset_supported
    Spec("SD113", ERROR, "a preset KAITO's model catalog marks deprecated",
         "Model … is deprecated and no longer supported"),
    # krm_fn.checks.roles
    Spec("SD114", ERROR, "a MultiRoleInference without spec.model.name",
         "missing field(s): spec.model.name"),
    # krm_fn.checks.roles
    Spec("SD115", ERROR, "a MultiRoleInference without exactly two roles",
         "exactly 2 roles required (one prefill, one decode), got …"),
    # krm_fn.checks.roles
    Spec("SD116", ERROR, "a MultiRoleInference with two roles of one type",
         "duplicate … role"),
    # krm_fn.checks.roles
    Spec("SD117", ERROR, "a MultiRoleInference role of a type other than prefill or decode",
         "unsupported role type …, must be prefill or decode"),
    # krm_fn.checks.roles
    Spec("SD118", ERROR, "a MultiRoleInference without a prefill or without a decode role",
         "missing field(s): spec.roles (missing … role)"),
    # krm_fn.checks.inference_configmap
    Spec("SD120", ERROR, "a referenced ConfigMap whose data is not a mapping",
         "the ConfigMap's data is not a mapping",
         can_disable=False),
    # krm_fn.checks.inference_configmap
    Spec("SD121", ERROR, "a referenced ConfigMap with inference_config.yaml under both data and binaryData",
         "inference_config.yaml is under both data and binaryData, which the API server refuses; keep it under data only",
         can_disable=False),
    # krm_fn.checks.inference_configmap
    Spec("SD122", ERROR, "a referenced ConfigMap with inference_config.yaml under binaryData only",
         "missing field(s): inference_config.yaml in ConfigMap (it is under binaryData, and KAITO reads only data: move it to data)",
         can_disable=False),
    # krm_fn.checks.inference_configmap
    Spec("SD123", ERROR, "a referenced ConfigMap without inference_config.yaml",
         "missing field(s): inference_config.yaml in ConfigMap",
         can_disable=False),
    # krm_fn.checks.inference_configmap
    Spec("SD124", ERROR, "a referenced ConfigMap whose inference_config.yaml is not a string",
         "inference_config.yaml is not a string (quote it or write it as a block: `|`)",
         can_disable=False),
    # krm_fn.checks.inference_configmap
    Spec("SD125", ERROR, "a referenced ConfigMap whose inference_config.yaml is not YAML",
         "Failed to parse inference_config.yaml: …",
         can_disable=False,
         why=("KAITO's webhook admits an `inference_config.yaml` that its inference server, which reads the file with\n"
              "Python's `yaml.safe_load`, cannot read (tabs as separators, most often): the pod fails at start. Write spaces.")),
    # krm_fn.checks.inference_configmap
    Spec("SD126", ERROR, "a referenced ConfigMap whose vllm section KAITO cannot read as strings",
         "Failed to parse inference_config.yaml: yaml: unmarshal errors: …",
         can_disable=False,
         why=("KAITO unmarshals the `vllm:` mapping into a map of strings: every value under `vllm` is one string. A mapping\n"
              "or a list there (`speculative-config: {method: ngram}`) is refused; write it as one quoted JSON string.")),
    # krm_fn.checks.inference_configmap
    Spec("SD127", ERROR, "a referenced ConfigMap whose vllm.max-model-len is not an integer",
         "max-model-len must be an integer: …",
         can_disable=False),
    # krm_fn.checks.name_label
    Spec("SD128", ERROR, "a Workspace, InferenceSet or MultiRoleInference name that is not a DNS-1123 label",
         "TODO"),
    # krm_fn.checks.label_selector
    Spec("SD129", ERROR, "a MultiRoleInference without spec.labelSelector",
         "missing field(s): spec.labelSelector"),
    # krm_fn.checks.label_selector
    Spec("SD130", ERROR, "a MultiRoleInference whose labelSelector has no matchLabels or matchExpressions entry",
         "labelSelector must have at least one matchLabels or matchExpressions entry"),
    # krm_fn.checks.inference_or_tuning
    Spec("SD131", ERROR, "a Workspace with neither inference nor tuning",
         "Either Inference or Tuning must be specified, not neither"),
    # krm_fn.checks.preset_and_template
    Spec("SD132", ERROR, "an inference with neither a preset nor a template",
         "missing field(s): ….Preset or Template must be specified"),
    # krm_fn.checks.replicas
    Spec("SD133", ERROR, "an InferenceSet with negative replicas",
         "invalid value: …: must be non-negative"),
    # krm_fn.checks.replicas
    Spec("SD134", ERROR, "a MultiRoleInference role with replicas below 1",
         "invalid value: …: must be at least 1"),
    # krm_fn.checks.workspace_annotations
    Spec("SD135", ERROR, "a kaito.sh/node-image-family annotation other than azurelinux or ubuntu",
         "unsupported node image family …, supported values are azurelinux, ubuntu"),
    # krm_fn.checks.workspace_annotations
    Spec("SD136", ERROR, "a kaito.sh/performance-mode annotation other than balanced, interactivity or throughput",
         "… is not a valid performance mode; choose one of: balanced, interactivity, throughput"),
    # krm_fn.checks.workspace_annotations
    Spec("SD137", ERROR, 'a kaito.sh/use-local-weights annotation other than "true" or "false"',
         '… must be "true" or "false"'),
    # krm_fn.checks.adapters
    Spec("SD138", ERROR, "an inference with more than 10 adapters",
         "Number of Adapters exceeds the maximum limit, maximum of 10 allowed"),
    # krm_fn.checks.adapters
    Spec("SD139", ERROR, "an inference with two adapters of one source name",
         "Duplicate adapter source name found: …"),
    # krm_fn.checks.label_selector
    Spec("SD140", ERROR, "a Workspace labelSelector expression KAITO cannot read as a plain label map",
         {"TODO0": "operator … without a single value cannot be converted into the old label selector format",
          "TODO1": "operator … cannot be converted into the old label selector format",
          "TODO2": "… is not a valid selector operator"}),
    # krm_fn.checks.label_selector
    Spec("SD141", ERROR, "a Workspace labelSelector whose matchLabels are all labels KAITO reserves",
         "matchLabels must contain at least one non-reserved label"),
    # krm_fn.checks.maintenance_window
    Spec("SD142", ERROR, "an InferenceSet maintenance window without a schedule",
         "missing field(s): spec.autoUpgrade.maintenanceWindow.schedule"),
    # krm_fn.checks.maintenance_window
    Spec("SD143", ERROR, "an InferenceSet maintenance window whose schedule is no standard cron expression",
         "invalid value: …: invalid cron expression: …"),
    # krm_fn.checks.maintenance_window
    Spec("SD144", ERROR, "an InferenceSet maintenance window whose duration is not positive",
         "invalid value: …: must be a positive duration"),
    # krm_fn.checks.name_label
    Spec("SD145", ERROR, "a MultiRoleInference whose child InferenceSet name <mri>-<role> is longer than 63 characters",
         "KAITO names this role's InferenceSet …, … characters, and its InferenceSet webhook refuses a name of more than 63 (IsDNS1123Label), so the role never runs; shorten metadata.name to at most … characters"),
    # krm_fn.checks.served
    Spec("SD146", ERROR, "a kind or apiVersion the kaitoVersion KAITO does not serve (no CRD for it)",
         "KAITO … serves no … … (v1beta1 InferenceSets and MultiRoleInferences come in v0.11.0): the API server refuses it; use kaito.sh/v1alpha1 InferenceSets, or set kaitoVersion to your cluster's",
         why=("A KAITO release installs CustomResourceDefinitions for the kinds and versions it serves; the API server refuses\n"
              'any other ("no matches for kind … in version …"). KAITO v0.10.0 serves InferenceSet in `kaito.sh/v1alpha1`\n'
              "only and no MultiRoleInference: `kaito.sh/v1beta1` InferenceSets and MultiRoleInferences come in v0.11.0.")),
    # krm_fn.checks.replicas
    Spec("SD147", ERROR, "an InferenceSet with replicas below 1 (KAITO v0.10)",
         "invalid value: …: must be at least 1"),
)
