"""SD8xx: the opt-in PrometheusRule."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    # krm_fn.stages.prometheus_rules
    Spec("SD801", INFO, "a PrometheusRule added for a namespace's enabled workloads (the prometheusRules setting)",
         "PrometheusRule … added for …: alerts on no drafts for … or acceptance below … for …",
         why=("The PrometheusRule records the acceptance rate and mean acceptance length of the workloads it watches, and\n"
              "alerts when one decodes but drafts nothing, or an acceptance rate stays below `minAcceptanceRate`\n"
              "([monitoring.md](monitoring.md)).")),
    # krm_fn.stages.prometheus_rules
    Spec("SD802", INFO, "a PrometheusRule replaced: the namespace's enabled workloads or the threshold changed",
         "derived PrometheusRule replaced by …: the namespace's enabled workloads or the threshold changed"),
    # krm_fn.stages.prometheus_rules
    Spec("SD803", INFO, "a PrometheusRule dropped: nothing in its namespace has speculative decoding enabled any more",
         "derived PrometheusRule dropped: nothing in its namespace has speculative decoding enabled any more"),
    # krm_fn.stages.prometheus_rules
    Spec("SD804", INFO, "a PrometheusRule dropped: the prometheusRules setting is off",
         "derived PrometheusRule dropped: the prometheusRules setting is off"),
    # krm_fn.stages.prometheus_rules
    Spec("SD805", WARNING, "a PrometheusRule edited by hand: regenerated",
         "derived PrometheusRule … differs from what the enabled workloads and settings give (edited by hand?): regenerated; set minAcceptanceRate, or write your own PrometheusRule, instead"),
    # krm_fn.stages.prometheus_rules
    Spec("SD806", ERROR, "a PrometheusRule of the derived rule's name that this function did not derive",
         "PrometheusRule … exists and is not one this function derived; rename it",
         can_disable=False),
    # krm_fn.stages.prometheus_rules
    Spec("SD807", ERROR, "a derived PrometheusRule in the input cannot be read",
         "derived PrometheusRule … cannot be read: …; delete it to regenerate it",
         can_disable=False),
    # krm_fn.stages.placement
    Spec("SD808", WARNING, "a kustomization does not list the PrometheusRule kpt writes beside it",
         "… does not list …, the PrometheusRule kaito-specdec derived for the workloads there (prometheusRules setting): `kustomize build` would leave it out and nothing would watch their acceptance rate; add it to resources"),
    # krm_fn.stages.placement
    Spec("SD809", WARNING, "a kustomization lists the file of a derived PrometheusRule this run drops",
         "… lists …, the file of a PrometheusRule kaito-specdec derived and this run drops: kpt deletes the file and `kustomize build` would fail on the missing resource; remove it from resources"),
    # krm_fn.stages.prometheus_rules
    Spec("SD810", WARNING, "workloads without a namespace: their PrometheusRule selects pods of their names in every namespace",
         "…: no metadata.namespace, so PrometheusRule … matches pods of these names in every namespace; set metadata.namespace, or run kaito-specdec after it is set",
         why=("Without `metadata.namespace` the rule selects pods by name alone: wherever the namespace is set later\n"
              "(kustomize's namespace, Flux's targetNamespace, `kubectl apply -n`) it also counts pods of these names in every\n"
              "other namespace its Prometheus scrapes. Set the namespace on the workloads, run kaito-specdec after it is set\n"
              "(as a transformer of the kustomization that sets it), or set `enforcedNamespaceLabel: namespace` on the\n"
              "Prometheus.")),
    # krm_fn.stages.prometheus_rules
    Spec("SD811", INFO, "a plain vLLM workload with speculative decoding whose pods the PrometheusRule cannot all select by name",
         {"TODO0": "… …: the PrometheusRule counts its pods in KServe's Standard mode only (…); set serving.kserve.io/deploymentMode: RawDeployment, or a shorter name",
          "TODO1": "LLMInferenceService …: the PrometheusRule counts only …; a worker or prefill set in spec.baseRefs makes other pods: write spec.worker and spec.prefill here",
          "TODO2": "… …: no PrometheusRule watches it (…); give it a shorter name, or watch the pod label serving.kserve.io/inferenceservice yourself"},
         why=("KServe's Knative (Standard) mode names pods after an md5 of the revision's name for names longer than 36\n"
              "characters; set `serving.kserve.io/deploymentMode: RawDeployment` (Standard from KServe v0.16 on), a shorter\n"
              "name, or watch the pod label `serving.kserve.io/inferenceservice` with a rule of your own. An\n"
              "LLMInferenceService's `spec.baseRefs` may set a worker or prefill, which make other workloads\n"
              "(`<name>-kserve-mn`, `<name>-kserve-prefill`).")),
)
