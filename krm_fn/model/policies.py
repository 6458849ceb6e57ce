"""A SpeculativeDecodingPolicy among the input manifests: which one is the run's configuration (docs/settings.md,
"A policy among the inputs"). Never silently dropped:

- `render`, no --config and no piped functionConfig: the one policy among the inputs is the configuration
  (SD526, an info on it); a second is refused naming both (SD525.two: exit 2, the run could not judge).
- `render` with --config (or a piped ResourceList's functionConfig): a policy among the inputs with the same
  settings is that configuration (`render --config p.yaml .` where p.yaml is in `.`); one that differs is
  refused (SD525.config, SD525.piped), naming its file and --config.
- KRM mode: the functionConfig is the configuration (the KRM functions specification: "the `functionConfig`
  field … will contain the invocation-specific configuration passed to the function by the orchestrator"); a
  policy among the items that differs from it is a warning (SD049): kpt passes a package's policy file as an item
  too, and `kpt fn eval` with no --fn-config runs without it.

As kube-linter's and conftest's own config files, only this function's own kind is found: a ConfigMap among the
inputs is a manifest, whatever it holds.
"""

from typing import Any

from ..text import krm
from ..text.items import Item, ItemError
from ..text.results import Result, finding
from .config import ConfigError, raw_from_function_config
from .report import about, where

__all__ = ["krm_notes", "render_config"]


def among(items: list[Item]) -> list[Item]:
    """The SpeculativeDecodingPolicy objects among the items, in input order."""
    return [item for item in items if item.is_mapping and item.kind == krm.POLICY_KIND]


def _settings(fc: Any) -> dict[str, Any] | None:
    """The settings mapping a functionConfig holds (None where it cannot be read: never the same as another)."""
    try:
        return raw_from_function_config(fc)
    except ConfigError:
        return None


def _data(item: Item) -> Any:
    try:
        return item.data()
    except ItemError:
        return None


def _place(item: Item) -> str:
    """`file:line` of the item (its file alone where no line is known)."""
    at = where(item)
    return f"{at['file_path']}:{at['file_line']}" if at["file_line"] is not None else str(at["file_path"])


def _same(policy: Item, fc: Any) -> bool:
    mine = _settings(_data(policy))
    return mine is not None and mine == _settings(fc)


def render_config(fc: Any, piped: bool, items: list[Item]) -> tuple[Any, list[Result], list[Result]]:
    """`render`'s configuration: (the functionConfig to read the settings from, the infos about it, the errors
    that stop the run). `fc`: --config's, or the piped ResourceList's functionConfig (`piped`), or None."""
    policies = among(items)
    if fc is not None:
        found = finding("SD525.piped") if piped else finding("SD525.config")
        return fc, [], [about(found, p) for p in policies if not _same(p, fc)]
    if not policies:
        return None, [], []
    first, *more = policies
    if more:
        return None, [], [about(finding("SD525.two", first=_place(first)), p) for p in more]
    return _data(first), [about(finding("SD526"), first)], []


def krm_notes(fc: Any, items: list[Item]) -> list[Result]:
    """KRM mode: a warning on each policy among the items whose settings are not the functionConfig's."""
    return [about(finding("SD049"), p) for p in among(items) if fc is None or not _same(p, fc)]
