"""KAITO's releases as facts, beside vLLM's (domain/vllm_releases.py): which releases the function knows, which
it models from KAITO's source, and the release each behaviour it mirrors came in.

A `kaitoVersion` is parsed once into a `KaitoRelease` (model/config.py); everything else compares releases, never
text. Each "came in" release was read off KAITO's history (`git tag --contains` of the commit that brought the
rule or the field); the rule's own source line is quoted where the behaviour is mirrored (checks/, model/, stages/).
"""

import re
from typing import NamedTuple

# ASCII digits only (`\d` would take ٣ and ²), at most 9 a part: int() refuses 4 300 digits and up.
_RELEASE = re.compile(r"v?([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?(?:[-+][0-9A-Za-z.+-]*)?")


class KaitoRelease(NamedTuple):
    """A KAITO release: compares as numbers, prints as `v0.12.0` (how KAITO tags and messages name it)."""

    major: int
    minor: int
    patch: int = 0

    def __str__(self) -> str:
        return f"v{self.major}.{self.minor}.{self.patch}"

    @property
    def minor_release(self) -> str:
        """`v0.12`: the minor release, as ranges of releases are said."""
        return f"v{self.major}.{self.minor}"


def parse(text: str) -> KaitoRelease:
    """`v0.12.0`, `0.12`, `v0.12.1-rc.1` -> the release (a pre-release or build suffix is its release's);
    ValueError for anything else."""
    m = _RELEASE.fullmatch(text)
    if not m:
        raise ValueError(text)
    return KaitoRelease(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


# The minor releases this function has facts of, every patch release of them (docs/settings.md): outside them a
# kaitoVersion is an error (SD021).
FIRST_KNOWN = KaitoRelease(0, 3)
LAST_KNOWN = KaitoRelease(0, 13)
# Admission, rollout and life cycle are read off KAITO's source from here on; an older release is judged as
# this one where rules differ, with a warning (SD048).
MODELLED_FROM = KaitoRelease(0, 10)
# With no kaitoVersion set, the rules of the newest release apply (and the rollout is kept safe on every one).
DEFAULT = KaitoRelease(0, 13)


def known(release: KaitoRelease) -> bool:
    return FIRST_KNOWN[:2] <= release[:2] <= LAST_KNOWN[:2]


# --- the release each mirrored behaviour came in -------------------------------------------------------------

# Before v0.8.0 KAITO ran a single-node Workspace as a Deployment; from v0.8.0 on as a StatefulSet (the pod names
# the PrometheusRule selects).
WORKSPACE_STATEFULSET = KaitoRelease(0, 8)
# The kaito.sh/node-image-family annotation and its webhook check.
NODE_IMAGE_FAMILY = KaitoRelease(0, 9)
# The kaito.sh/performance-mode annotation and its webhook check.
PERFORMANCE_MODE = KaitoRelease(0, 10)
# v0.11.0's `IsValidPreset` also looks up `strings.ToLower(preset)` in LegacyBuiltinToCatalog
# (pkg/utils/plugin/plugin.go:115-117); v0.10.0's compares the name as written (plugin.go:79-91).
CASE_BLIND_PRESETS = KaitoRelease(0, 11)
# v0.11.0 made InferenceSet replicas `*int32` checked `< 0` (api/v1alpha1/inferenceset_validation.go:56-57),
# which admits 0; v0.10.0 refused anything below 1 (:54-56).
ZERO_REPLICAS = KaitoRelease(0, 11)
# spec.autoUpgrade (and its maintenanceWindow): before v0.11.0 the API server drops the field.
AUTO_UPGRADE = KaitoRelease(0, 11)
# The CRDs serve InferenceSet kaito.sh/v1beta1 and MultiRoleInference.
SERVES_V1BETA1_AND_MULTIROLE = KaitoRelease(0, 11)
# v1beta1 labelSelector: matchLabels must hold a label that is not reserved.
RESERVED_LABELS = KaitoRelease(0, 11)
# `ValidateInferenceSetWorkspace` (pkg/utils/inferenceset): before it, an InferenceSet's webhook checked its
# name, replicas and maintenance window only, not the Workspace it projects.
INFERENCESET_PROJECTS_WORKSPACE = KaitoRelease(0, 12)
# The kaito.sh/use-local-weights annotation and its webhook check.
USE_LOCAL_WEIGHTS = KaitoRelease(0, 12)
# From v0.11.0 to v0.12.x the vLLM command of an existing StatefulSet never changes, and it reads a config file
# only when the Workspace had a config at creation (model/rollout.py).
FIXED_COMMAND = (KaitoRelease(0, 11), KaitoRelease(0, 13))
# Before v0.11.0 a Workspace with no inference.config mounts the ConfigMap `inference-params-template` of its own
# namespace when there is one (else a copy of the release namespace's): EnsureConfigOrCopyFromDefault,
# pkg/utils/resources/resources.go:171-180 at v0.10.0 (:171-174 at v0.9.4), called for every Workspace by
# pkg/workspace/inference/preset_inferences.go:376-383 at v0.10.0. From v0.11.0 a Workspace with no config mounts
# none (preset_inferences.go:451-459 at v0.11.0, :529-536 at v0.12.0: "When empty, no config volume is mounted").
NAMESPACE_DEFAULT_CONFIG_UNTIL = KaitoRelease(0, 11)
NAMESPACE_DEFAULT_CONFIG = "inference-params-template"   # v1beta1.DefaultInferenceConfigTemplate
# KAITO reads kaito.sh/enable-speculative-decoding itself (and pushes a changed spec.template.inference to an
# InferenceSet's existing Workspaces); older releases ignore the annotation.
READS_THE_ANNOTATION = KaitoRelease(0, 13)


# --- the vLLM each release's image runs ------------------------------------------------------------------------

_PINS = "presets/workspace/dependencies/requirements.txt"


class ImageVllm(NamedTuple):
    """The vLLM KAITO's inference image runs from release `since` on (until the next row's): `vllm` as the pin
    writes it, `source` the upstream line it is read from. `note`: for a release whose own source does not pin
    one (v0.3, v0.13), why this row's vLLM stands for it, said where the assumption is (SD428)."""

    since: KaitoRelease
    vllm: str
    source: str
    note: str = ""

    @property
    def said(self) -> str:
        """Where the pin is read, as SD428 says it: the file and line at the tag, after the note if any."""
        return f"{self.note}: {self.source}" if self.note else self.source


# Each row read off kaito-project/kaito at its tag (`git show <tag>:presets/workspace/dependencies/requirements.txt`,
# whose `vllm==` line the image's Dockerfile, docker/presets/models/tfs/Dockerfile, installs); a row holds until
# the next, every tag between read alike (v0.4.1-v0.4.4 pin 0.6.3, v0.5.1-v0.6.2 0.9.0, v0.7.1-v0.7.2 0.10.1.1,
# v0.8.1 0.12.0, v0.9.1-v0.9.4 0.14.1; the release-0.10, -0.11 and -0.12 branches pin their release's).
IMAGE_VLLM = (
    # v0.3.2's image installs presets/inference/text-generation/requirements.txt: transformers, no vLLM (KAITO
    # brought its vLLM runtime in v0.4.0). Nearest known: v0.4.0's.
    ImageVllm(KaitoRelease(0, 3), "0.6.3", f"{_PINS}:4 at v0.4.0",
              "v0.3's image runs no vLLM (transformers only), so the first that does, v0.4.0's"),
    ImageVllm(KaitoRelease(0, 4), "0.6.3", f"{_PINS}:4 at v0.4.0"),
    ImageVllm(KaitoRelease(0, 4, 5), "0.8.2", f"{_PINS}:4 at v0.4.5"),
    ImageVllm(KaitoRelease(0, 4, 6), "0.8.5", f"{_PINS}:4 at v0.4.6"),
    ImageVllm(KaitoRelease(0, 5), "0.9.0", f"{_PINS}:4 at v0.5.0"),
    ImageVllm(KaitoRelease(0, 7), "0.10.1.1", f"{_PINS}:4 at v0.7.0"),
    ImageVllm(KaitoRelease(0, 8), "0.12.0", f"{_PINS}:4 at v0.8.0"),
    ImageVllm(KaitoRelease(0, 9), "0.14.1", f"{_PINS}:4 at v0.9.0"),
    ImageVllm(KaitoRelease(0, 10), "0.17.1", f"{_PINS}:4 at v0.10.0"),
    ImageVllm(KaitoRelease(0, 11), "0.22.1", f"{_PINS}:4 at v0.11.0"),
    ImageVllm(KaitoRelease(0, 12), "0.25.1", f"{_PINS}:4 at v0.12.0"),
    # v0.13.0 is not tagged: main after v0.12.0 (056b828, 2026-08-21) still pins 0.25.1.
    ImageVllm(KaitoRelease(0, 13), "0.25.1", f"{_PINS}:4 on main at 056b828",
              "not released yet, so main's pin after v0.12.0"),
)


def image_vllm(release: KaitoRelease) -> ImageVllm:
    """The vLLM the image of `release` (one `known`) runs: the last row at or before it."""
    return [row for row in IMAGE_VLLM if row.since <= release][-1]
