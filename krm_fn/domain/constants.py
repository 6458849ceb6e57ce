"""Every annotation key, label, apiVersion, kind and data key the function uses, in one place."""

# The opt-in annotation KAITO v0.13.0 reads (and its webhooks validate).
ENABLE_ANNOTATION = "kaito.sh/enable-speculative-decoding"
# KAITO's runtime selector; only the exact value "transformers" leaves vLLM.
RUNTIME_ANNOTATION = "kaito.sh/runtime"
RUNTIME_TRANSFORMERS = "transformers"
RUNTIME_VLLM = "vllm"

# The label KAITO's InferenceSet controller puts on the Workspaces it creates.
INFERENCESET_CREATED_BY = "inferenceset.kaito.sh/created-by"

# Our own annotations on derived ConfigMaps, so the function recognises its output when fed back in.
DERIVED_ANNOTATION = "kaito-specdec.dev/derived"
# The mark of a Grafana dashboard ConfigMap this function derived (the grafanaDashboards setting): not a derived
# inference ConfigMap, which no workload references.
DASHBOARD_ANNOTATION = "kaito-specdec.dev/grafana-dashboard"
# On any object: finding ids not to report for that object alone (`disable`, per object), e.g. "SD412,SD420".
DISABLE_ANNOTATION = "kaito-specdec.dev/disable"
SOURCE_ANNOTATION = "kaito-specdec.dev/source-configmap"
# `<kind>/<name>` of the InferenceSet or MultiRoleInference whose existing Workspaces still mount a derived
# ConfigMap nothing else references (krm_fn/model/rollout.py).
KEPT_ANNOTATION = "kaito-specdec.dev/kept-for"
# Where a plain workload's pod template records the JSON the function injected into its vLLM containers: a
# container argument equal to it is the function's own, anything else the user's (docs/plain-vllm.md).
INJECTED_ANNOTATION = "kaito-specdec.dev/speculative-config"

# The opt-in PrometheusRule (monitoring.py builds it; the index and the placement know it by these), and the
# prometheusRules setting's alert threshold (the settings' default).
PROMETHEUS_RULE_API_VERSION = "monitoring.coreos.com/v1"
PROMETHEUS_RULE_KIND = "PrometheusRule"
DEFAULT_MIN_ACCEPTANCE_RATE = 0.3
# A KServe InferenceService's deployment mode (Standard/RawDeployment, Knative/Serverless), which decides how
# its predictor's pods are named (monitoring.py).
KSERVE_DEPLOYMENT_MODE_ANNOTATION = "serving.kserve.io/deploymentMode"

# Environment variables that carry settings (Argo CD prefixes an Application's plugin env with ARGOCD_ENV_).
ENV_PREFIX = "KAITO_SPECDEC_"
ARGOCD_ENV_PREFIX = "ARGOCD_ENV_"
