"""The decisions, as values: per enabled workload and config reference, what KAITO would do with it (one of
the outcomes below, each a type with only its own fields). The `decide` stage makes them; later stages read
them from the plan. Here too: how a reference leads back to the user's ConfigMap through the function's own
derived ones (`source_of`), which every stage that re-points a reference asks.
"""

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..domain import constants as C
from ..domain import kinds
from ..domain.derived import FROM_NOTHING, FROM_SOURCE
from ..domain.inference_config import DATA_KEY
from ..domain.kinds import Path
from ..text.items import Item
from ..text.results import Finding
from .index import Index, PlainWorkload, Workload, is_derived

DOTTED = object()          # an override by dotted keys only (speculative-config.method: …): no one value


@dataclass(frozen=True, slots=True)
class Reference:
    """One config reference of an enabled workload: what it names now and the user's ConfigMap behind it.

    The outcomes are its subclasses (`isinstance(d, NotVisible)` takes Unrenamed too), each adding its own
    fields as keywords; a value, compared by its fields, never changed once made."""

    workload: Workload
    path: Path                # the config reference field
    current: str | None       # what the reference says now
    source_name: str | None   # the user's ConfigMap behind it (through a derived one, if any)
    source: Item | None
    via_derived: bool         # the reference names one of our derived ConfigMaps

    @property
    def field(self) -> str:
        return kinds.dotted(self.path)

    def inference_config(self) -> str | None:
        """The source ConfigMap's inference_config.yaml, when it has one that is a string."""
        data = self.source.data().get("data") if self.source is not None else None
        text = data.get(DATA_KEY) if isinstance(data, dict) else None
        return text if isinstance(text, str) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Inject(Reference):
    """Write a derived ConfigMap carrying the speculative config and point the reference at it."""

    json: str
    method: str
    why: str                    # in words: where the config came from
    configmap: dict[str, Any] | None  # the derived ConfigMap (None when it cannot be built: `problem` says why)
    problem: str = ""
    refused: str = ""           # the tuned config the judged vLLM refuses (the fallback replaced it): vllmVersion's,
    # else the kaitoVersion image's
    refused_why: str = ""       # what that vLLM refuses about it (vllm_schema's title of the finding)
    vllm_version: str = ""

    @property
    def target(self) -> str | None:
        return self.configmap["metadata"]["name"] if self.configmap is not None else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Override(Reference):
    """The user's ConfigMap sets the flag itself (any spelling vLLM reads): nothing is added. Through one of
    our derived ConfigMaps, the reference goes back to that source."""

    value: Any                           # the user's value (DOTTED when only dotted keys set it)
    keys: tuple[str, ...]                # every key under vllm that sets the flag
    other_spellings: tuple[str, ...] = ()  # speculative_config, speculative-config.<field> …


@dataclass(frozen=True, slots=True, kw_only=True)
class NotVisible(Reference):
    """The referenced ConfigMap is not in the list: whether it overrides cannot be seen; nothing changes."""

    derived_found: bool = False  # via_derived, and that derived ConfigMap is in the input


@dataclass(frozen=True, slots=True, kw_only=True)
class Unrenamed(NotVisible):
    """The reference misses, but the input has its ConfigMap under kustomize's generated name
    (`<name>-<hash>`): kustomize renamed the ConfigMap and left this reference alone, because nothing told
    it that the KAITO field names a ConfigMap. In the cluster the workload points at nothing."""

    generated: str = ""  # the name kustomize gave the ConfigMap


@dataclass(frozen=True, slots=True, kw_only=True)
class Broken(Reference):
    """KAITO could not read the referenced ConfigMap: an error on the ConfigMap, in KAITO's words."""

    # On the ConfigMap: SD120-SD127 in KAITO's words (checks/inference_configmap), SD306 in the reader's.
    refusal: Finding


Decision = Inject | Override | NotVisible | Broken  # NotVisible includes Unrenamed


class Speculates(NamedTuple):
    """A plain vLLM workload that runs speculative decoding once the plan is written: its vLLM containers get
    (or keep) the function's config, or keep the user's own. Not a Decision (it names no config reference):
    the plain_vllm stage makes it, after the stages that read Decisions; the PrometheusRule stage watches it."""

    workload: PlainWorkload


# What a plan's `decisions` hold: decide's Decisions, then plain_vllm's Speculates.
Planned = Decision | Speculates


def configurable(w: Workload) -> bool:
    """An enabled workload whose config reference KAITO keeps: not a MultiRoleInference's child when the
    MultiRoleInference itself is not enabled (its controller sets the child's config from the role's)."""
    return w.enabled and (w.rewritten_by is None or w.rewritten_by.enabled)


def source_of(index: Index, namespace: str, ref: str | None) -> tuple[str | None, Item | None, bool]:
    """(source name as recorded, source item, whether `ref` names one of our derived ConfigMaps).

    A derived ConfigMap recorded as another one's source (a hand edit: the function never derives from its
    own output) is followed back to the user's ConfigMap, or to none: reverting to it would leave a
    reference that the next run reverts again."""
    src_name, src, via = _recorded_source(index, namespace, ref)
    seen = {ref}
    while via and src_name is not None:
        if src_name in seen:
            return None, None, via  # records that go round in a circle name no source
        seen.add(src_name)
        further = _recorded_source(index, namespace, src.name if src is not None else src_name)
        if not further[2]:
            break  # a ConfigMap of the user's (or a name not ours): the source
        src_name, src = further[0], further[1]
    return src_name, src, via


def _recorded_source(index: Index, namespace: str, ref: str | None) -> tuple[str | None, Item | None, bool]:
    if ref is None:
        return None, None, False
    item = index.configmap(namespace, ref)
    if item is not None and is_derived(item):
        src = item.annotation(C.SOURCE_ANNOTATION)
        return src, (index.source(namespace, src) if src else None), True
    if item is None:
        # Our name pattern, but the object is gone (deleted, or retired by a subpackage's own pipeline):
        # still ours, to regenerate or to revert.
        m = re.fullmatch(FROM_SOURCE, ref)
        if m:
            return m.group("source"), index.source(namespace, m.group("source")), True
        if re.fullmatch(FROM_NOTHING, ref):
            return None, None, True
    # Under kustomize the reference may still use a previous name; keep it as written (kustomize fixes
    # references after the function runs), so disabling restores exactly what the user wrote.
    return ref, item, False


def restored_name(index: Index, namespace: str, source_name: str | None, source: Item | None) -> str | None:
    """The reference to put back: the source as recorded, or its name now if only kustomize's generated
    name (`<name>-<hash>`) is in the input."""
    if source is not None and source_name and index.configmap(namespace, source_name) is None:
        return source.name
    return source_name
