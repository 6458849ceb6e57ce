"""What the writer applies, as a value: JSON Patch ops per item, new items after the item they serve, items
retired. The plan (krm_fn/model/changes.py) ends in one of these; the writer needs nothing else of it."""

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .patch import Op

Ops = tuple[Op, ...]  # JSON Patch operations, applied in order
_NONE: Mapping[int, Ops] = MappingProxyType({})


class Added(NamedTuple):
    """A new item, written after the item it serves (`after`, an item index)."""

    after: int
    data: Any


class Changes(NamedTuple):
    """What the writer applies: JSON Patch per item, new items, retired items."""

    patches: Mapping[int, Ops] = _NONE
    added: tuple[Added, ...] = ()
    removed: frozenset[int] = frozenset()

    def added_after(self) -> dict[int, list[Any]]:
        """New items grouped by the index of the item they follow."""
        out: dict[int, list[Any]] = {}
        for served, data in self.added:
            out.setdefault(served, []).append(data)
        return out

    @property
    def empty(self) -> bool:
        return not (self.patches or self.added or self.removed)

    def removing(self, indexes: Iterable[int]) -> "Changes":
        """The same changes with these items left out of the output too."""
        gone = self.removed | frozenset(indexes)
        return Changes(MappingProxyType({i: ops for i, ops in self.patches.items() if i not in gone}),
                       self.added, gone)
