"""Whether a rule a check mirrors is one the cluster's KAITO has: a rule brought in a later release than the
`kaitoVersion` setting is not checked, since that cluster's webhook admits what the rule refuses (a finding
KAITO would not make is a broken pipeline). The releases are domain/kaito_releases.py's.

A check whose whole rule came in one release says so in its `SINCE`, which `checks.validate` applies; a check
with parts of several releases asks `older` for each part.
"""

from ..domain.kaito_releases import KaitoRelease
from ..model.config import Settings


def older(settings: Settings | None, release: KaitoRelease) -> bool:
    """The settings' kaitoVersion is older than `release` (no settings: the newest rules apply)."""
    return settings is not None and settings.kaito_version < release
