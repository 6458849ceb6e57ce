"""The KRM function protocol's names: the ResourceList and List envelopes, the annotations kpt and
kustomize keep on items (never changed or dropped), the kinds every orchestrator shares."""

# Orchestrator annotations: never changed or dropped.
INTERNAL_PREFIX = "internal.config.kubernetes.io/"
PATH_ANNOTATION = "internal.config.kubernetes.io/path"
INDEX_ANNOTATION = "internal.config.kubernetes.io/index"
LEGACY_PATH_ANNOTATION = "config.kubernetes.io/path"
LEGACY_INDEX_ANNOTATION = "config.kubernetes.io/index"
ID_ANNOTATIONS = ("config.k8s.io/id", "kustomize.config.k8s.io/id")
# kustomize's record of the names a resource had before namePrefix/nameSuffix (comma-separated).
PREVIOUS_NAMES_ANNOTATION = "internal.config.kubernetes.io/previousNames"
LOCAL_CONFIG_ANNOTATION = "config.kubernetes.io/local-config"
# kustomize's `buildMetadata: [originAnnotations]`: the file (and repo) a built resource came from, or the
# kustomization whose generator made it. Kept in render's output, as kustomize writes it.
ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
# `buildMetadata: [transformerAnnotations]`: the transformers that changed a built resource (kustomize
# api/internal/utils/annotations.go:26 at kustomize/v5.5.0).
TRANSFORMER_ANNOTATION = "alpha.config.kubernetes.io/transformations"
# Stripped by `render`: what only an orchestrator should see.
RENDER_STRIPPED = (
    INTERNAL_PREFIX,
    LEGACY_PATH_ANNOTATION,
    LEGACY_INDEX_ANNOTATION,
    *ID_ANNOTATIONS,
)

RESOURCE_LIST_KIND = "ResourceList"
RESOURCE_LIST_API_PREFIX = "config.kubernetes.io/"
LIST_KIND = "List"
KUSTOMIZE_GROUP = "kustomize.config.k8s.io"  # Kustomization, Component: local config without a name
CONFIGMAP_KIND = "ConfigMap"
CONFIGMAP_API_VERSION = "v1"
POLICY_KIND = "SpeculativeDecodingPolicy"
