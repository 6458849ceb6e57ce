"""served: the kind and apiVersion must be one the kaitoVersion KAITO serves.

KAITO rule mirrored: the CustomResourceDefinitions each release installs (config/crd/bases/). The API server
answers a kind no installed CRD serves with `no matches for kind "K" in version "G/V"` (kubectl, Argo CD and
Flux print it so) and creates nothing:

- v0.10.0 installs kaito.sh_inferencesets.yaml with one version, `name: v1alpha1` (`served: true`,
  kaito.sh_inferencesets.yaml:32, 350), and no MultiRoleInference CRD (config/crd/bases/ holds
  inferencesets, ragengines and workspaces);
- v0.11.0 adds `name: v1beta1` to the InferenceSet CRD (kaito.sh_inferencesets.yaml:432, 814) and
  kaito.sh_multiroleinferences.yaml (`kaito.sh/v1alpha1`); v0.12.0 the same.

So with `kaitoVersion` before v0.11.0 a `kaito.sh/v1beta1` InferenceSet and any MultiRoleInference are
refused at apply time; with v0.11.0 and later (and by default) nothing here is.

PASS:  kaitoVersion v0.11.0: a kaito.sh/v1beta1 InferenceSet, a MultiRoleInference
FAIL:  kaitoVersion v0.10.0: a kaito.sh/v1beta1 InferenceSet; a kaito.sh/v1alpha1 MultiRoleInference
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .releases import older

ID = "served"
KINDS = ("InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if not older(settings, kaito_releases.SERVES_V1BETA1_AND_MULTIROLE):
        return []
    api_version = w.item.api_version
    if w.spec is kinds.MULTIROLEINFERENCE or api_version != "kaito.sh/v1alpha1":
        assert settings is not None
        return [finding("SD146", "apiVersion", kaito_version=settings.kaito_version, kind=w.spec.kind,
                        api_version=api_version)]
    return []
