"""SD8xx: the opt-in PrometheusRule."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS: tuple[Spec, ...] = (
    Spec("SD801", INFO, "a PrometheusRule added for a namespace's enabled workloads (the prometheusRules setting)",
         "PrometheusRule {name!q} added for {workloads}: alerts on no drafts for {not_drafting_for} or acceptance below {threshold} for {alert_for}",
         why=("The PrometheusRule records the acceptance rate and mean acceptance length of the workloads it watches, and\n"
              "alerts when one decodes but drafts nothing, or an acceptance rate stays below `minAcceptanceRate`; also on\n"
              "a drafter that is never accepted, a prefix cache that stops hitting while it drafts, and a drop of\n"
              "acceptance against the workload's own. A rule past 240 KiB is split into parts by the hash of the\n"
              "workloads' names, each added with this result ([monitoring.md](monitoring.md)).")),
    Spec("SD802", INFO, "a PrometheusRule replaced: the namespace's enabled workloads or the threshold changed",
         "derived PrometheusRule replaced by {name!q}: the namespace's enabled workloads or the threshold changed"),
    Spec("SD803", INFO, "a PrometheusRule dropped: nothing in its namespace has speculative decoding enabled any more",
         "derived PrometheusRule dropped: nothing in its namespace has speculative decoding enabled any more"),
    Spec("SD804", INFO, "a PrometheusRule dropped: the prometheusRules setting is off",
         "derived PrometheusRule dropped: the prometheusRules setting is off"),
    Spec("SD805", WARNING, "a PrometheusRule edited by hand: regenerated",
         "derived PrometheusRule {name!q} differs from what the enabled workloads and settings give (edited by hand?): regenerated; set minAcceptanceRate, or write your own PrometheusRule, instead"),
    Spec("SD806", ERROR, "a PrometheusRule of the derived rule's name that this function did not derive",
         "PrometheusRule {name!q} exists and is not one this function derived; rename it",
         can_disable=False),
    Spec("SD807", ERROR, "a derived PrometheusRule in the input cannot be read",
         "derived PrometheusRule {name!q} cannot be read: {reason}; delete it to regenerate it",
         can_disable=False),
    Spec("SD808", WARNING, "a kustomization does not list the PrometheusRule kpt writes beside it",
         "{kustomization} does not list {name}, the PrometheusRule kaito-specdec derived for the workloads there (prometheusRules setting): `kustomize build` would leave it out and nothing would watch their acceptance rate; add it to resources"),
    Spec("SD809", WARNING, "a kustomization lists the file of a derived PrometheusRule this run drops",
         "{kustomization} lists {name}, the file of a PrometheusRule kaito-specdec derived and this run drops: kpt deletes the file and `kustomize build` would fail on the missing resource; remove it from resources"),
    Spec("SD810", WARNING, "workloads without a namespace: their PrometheusRule selects pods of their names in every namespace",
         "{workloads}: no metadata.namespace, so PrometheusRule {name!q} matches pods of these names in every namespace; set metadata.namespace, or run kaito-specdec after it is set",
         why=("Without `metadata.namespace` the rule selects pods by name alone: wherever the namespace is set later\n"
              "(kustomize's namespace, Flux's targetNamespace, `kubectl apply -n`) it also counts pods of these names in every\n"
              "other namespace its Prometheus scrapes. Set the namespace on the workloads, run kaito-specdec after it is set\n"
              "(as a transformer of the kustomization that sets it), or set `enforcedNamespaceLabel: namespace` on the\n"
              "Prometheus.")),
    Spec("SD811", INFO, "a plain vLLM workload with speculative decoding whose pods the PrometheusRule cannot all select by name",
         {"standard-mode-only": "{kind} {name!q}: the PrometheusRule counts its pods in KServe's Standard mode only ({why}); set serving.kserve.io/deploymentMode: RawDeployment, or a shorter name",
          "base-refs": "LLMInferenceService {name!q}: the PrometheusRule counts only {made}; a worker or prefill set in spec.baseRefs makes other pods: write spec.worker and spec.prefill here",
          "unwatched": "{kind} {name!q}: no PrometheusRule watches it ({why}); give it a shorter name, or watch the pod label serving.kserve.io/inferenceservice yourself"},
         why=("KServe's Knative (Standard) mode names pods after an md5 of the revision's name for names longer than 36\n"
              "characters; set `serving.kserve.io/deploymentMode: RawDeployment` (Standard from KServe v0.16 on), a shorter\n"
              "name, or watch the pod label `serving.kserve.io/inferenceservice` with a rule of your own. An\n"
              "LLMInferenceService's `spec.baseRefs` may set a worker or prefill, which make other workloads\n"
              "(`<name>-kserve-mn`, `<name>-kserve-prefill`).")),
)
# The opt-in Grafana dashboard (the grafanaDashboards setting).
SPECS += (
    Spec("SD816", INFO, "a Grafana dashboard ConfigMap added for a namespace's enabled workloads (the grafanaDashboards setting)",
         "Grafana dashboard ConfigMap {name!q} added: {title!q} (uid {uid}), loaded by a Grafana sidecar that watches the label grafana_dashboard=1",
         why=("The dashboard charts the PrometheusRule's records of the namespace's enabled workloads: acceptance rate,\n"
              "mean acceptance length, drafts against decode tokens, prefix-cache hit ratio, requests running\n"
              "([monitoring.md](monitoring.md#dashboard)).")),
    Spec("SD817", INFO, "a Grafana dashboard ConfigMap replaced or dropped",
         {"replaced": "derived Grafana dashboard ConfigMap replaced by {name!q}: its content changed",
          "no-workload": "derived Grafana dashboard ConfigMap dropped: nothing in its namespace has speculative decoding enabled any more",
          "setting-off": "derived Grafana dashboard ConfigMap dropped: the grafanaDashboards setting is off"}),
    Spec("SD818", WARNING, "a Grafana dashboard ConfigMap edited by hand: regenerated",
         "derived Grafana dashboard ConfigMap {name!q} differs from what the function writes (edited by hand?): regenerated; copy it under another name to keep your edits"),
    Spec("SD819", ERROR, "a Grafana dashboard ConfigMap that cannot be kept",
         {"taken": "ConfigMap {name!q} exists and is not the dashboard this function derived; rename it",
          "unreadable": "derived Grafana dashboard ConfigMap {name!q} cannot be read: {reason}; delete it to regenerate it"},
         can_disable=False),
)
