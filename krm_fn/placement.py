"""Where the output lands: warnings decided from the plan's final changes, the last step of the plan.

kpt writes each new item to the file its path annotation names and deletes the files of the items a run
retires, so in KRM mode a kustomization beside them must list the new files and stop listing the dropped
ones (SD050, SD051; the derived PrometheusRule's, SD808, SD809). `render` writes one stream and leaves
kustomize's configuration out, so a kustomization in its input is rendered as it is, not built (SD501).
Both look at what is written, so they run on the final changes, which are none when errors stop the plan.
"""
from __future__ import annotations

from collections.abc import Callable

from . import constants as C
from . import prometheus_rules
from .changes import Changes
from .index import Index, is_derived
from .localconfig import dropped_listed_warnings, kustomization_warnings, unlisted_warnings
from .reader import Item
from .results import Result

Placement = Callable[[Index, Changes], list[Result]]


def kpt_files(index: Index, changes: Changes) -> list[Result]:
    """KRM mode: the files kpt writes and deletes, against the kustomizations beside them."""
    items = index.items
    return (unlisted_warnings(items, derived_files(items, changes))
            + dropped_listed_warnings(items, dropped_files(items, changes))
            + prometheus_rules.unlisted_warnings(items, changes)
            + prometheus_rules.dropped_listed_warnings(items, changes))


def render_stream(index: Index, changes: Changes) -> list[Result]:
    """`render`: kustomizations in the input are not built."""
    return kustomization_warnings(index.items)


def derived_files(items: list[Item], changes: Changes) -> list[str]:
    """The files of the derived ConfigMaps kpt will write: new ones, and those an earlier run wrote."""
    paths = [((data.get("metadata") or {}).get("annotations") or {}).get(C.PATH_ANNOTATION, "")
             for _, data in changes.added if isinstance(data, dict) and data.get("kind") == C.CONFIGMAP_KIND]
    return paths + [item.file()[0] for item in items if is_derived(item) and item.index not in changes.removed]


def dropped_files(items: list[Item], changes: Changes) -> list[str]:
    """The files of the derived ConfigMaps this run drops (kpt deletes them)."""
    return [item.file()[0] for item in items if is_derived(item) and item.index in changes.removed]
