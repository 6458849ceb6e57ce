"""Where the output lands: warnings decided from the plan's final changes, the last step of the plan (they
look at what is written, which is nothing when errors stop the plan). kpt writes each new item to the file
its path annotation names and deletes the files of the items a run retires, so in KRM mode a kustomization
beside them must list the new files and stop listing the dropped ones; `render` builds no kustomization.
"""

from collections.abc import Callable

from ..domain import constants as C
from ..domain.localconfig import is_kustomization, kustomization_folder, listed_files, unlisted_files
from ..model.index import Index, is_derived, is_derived_rule
from ..model.report import where
from ..text import krm
from ..text.edits import Changes
from ..text.items import Item
from ..text.results import Result, finding


Placement = Callable[[Index, Changes], list[Result]]


def kpt_files(index: Index, changes: Changes) -> list[Result]:
    """KRM mode: the files kpt writes and deletes, against the kustomizations beside them."""
    items = index.items
    written, dropped = _files(items, changes, krm.CONFIGMAP_KIND, is_derived)
    rules_written, rules_dropped = _files(items, changes, C.PROMETHEUS_RULE_KIND, is_derived_rule)
    return (unlisted_warnings(items, written) + dropped_listed_warnings(items, dropped)
            + rule_unlisted_warnings(items, rules_written) + rule_dropped_listed_warnings(items, rules_dropped))


def render_stream(index: Index, changes: Changes) -> list[Result]:
    """`render`: kustomizations in the input are not built."""
    return kustomization_warnings(index.items)


def _files(items: list[Item], changes: Changes, kind: str,
           ours: Callable[[Item], bool]) -> tuple[list[str], list[str]]:
    """The files of the function's objects of `kind` kpt will write (new ones, and those an earlier run wrote),
    and those of the ones this run drops (kpt deletes them)."""
    paths = [((data.get("metadata") or {}).get("annotations") or {}).get(krm.PATH_ANNOTATION, "")
             for _, data in changes.added if isinstance(data, dict) and data.get("kind") == kind]
    found = [item for item in items if ours(item)]
    return (paths + [item.file()[0] for item in found if item.index not in changes.removed],
            [item.file()[0] for item in found if item.index in changes.removed])


def unlisted_warnings(items: list[Item], paths: list[str]) -> list[Result]:
    """kpt on a kustomize folder: a derived ConfigMap's file (`paths`: new, or written by an earlier run)
    that the folder's kustomization does not list is left out of `kustomize build`; its workload points at
    nothing."""
    return [finding("SD050", kustomization=kustomization.file()[0], name=name).result(**where(kustomization))
            for kustomization, name in unlisted_files(items, paths)]


def dropped_listed_warnings(items: list[Item], paths: list[str]) -> list[Result]:
    """kpt on a kustomize folder: a derived ConfigMap this run drops (`paths`: their files) is deleted by
    kpt, but a kustomization that lists it (as SD050 asked) would then fail to build."""
    return [finding("SD051", kustomization=kustomization.file()[0], name=name).result(**where(kustomization))
            for kustomization, name in listed_files(items, paths)]


def kustomization_warnings(items: list[Item]) -> list[Result]:
    """`render DIR` of a kustomization renders its files as they are, unbuilt: say so, and what to run."""
    return [finding("SD501", folder=kustomization_folder(item)).result(**where(item))
            for item in items if is_kustomization(item) and not item.kind == "Component"]


def rule_unlisted_warnings(items: list[Item], paths: list[str]) -> list[Result]:
    """kpt on a kustomize folder: a rule's file the folder's kustomization does not list is left out of
    `kustomize build` (nothing breaks, but nothing is watched)."""
    return [finding("SD808", kustomization=kustomization.file()[0], name=name).result(**where(kustomization))
            for kustomization, name in unlisted_files(items, paths)]


def rule_dropped_listed_warnings(items: list[Item], paths: list[str]) -> list[Result]:
    """kpt on a kustomize folder: a derived rule this run drops or replaces is deleted by kpt, but a
    kustomization that lists its file (as SD808 asked) would then fail to build."""
    return [finding("SD809", kustomization=kustomization.file()[0], name=name).result(**where(kustomization))
            for kustomization, name in listed_files(items, paths)]
