"""The KAITO release that brought a mirrored webhook rule: a cluster on an older `kaitoVersion` is not refused
by it, so the check stays quiet there (a finding KAITO would not make is a broken pipeline).

Releases read off KAITO's history (`git tag --contains` of the commit that added the rule's message).
"""

from ..model.config import Settings, version_tuple

# `ValidateInferenceSetWorkspace` (pkg/utils/inferenceset): before it, an InferenceSet's webhook checked its
# name, replicas and maintenance window only, not the Workspace it projects.
INFERENCESET_PROJECTS_WORKSPACE = "v0.12.0"


def older(settings: Settings | None, release: str) -> bool:
    """The settings' kaitoVersion is older than `release` (no settings: the newest rules apply)."""
    return settings is not None and version_tuple(settings.kaito_version) < version_tuple(release)
