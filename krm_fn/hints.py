"""The names type hints use, without importing `typing` when the function runs.

`typing` costs about 4 ms of a one-Workspace start (docs/performance.md), and every module here writes
`from __future__ import annotations`, so its hints are strings nobody evaluates at run time: `Any` only
has to exist for type checkers, which read the `TYPE_CHECKING` branch (mypy and pyright know the name).
The abstract collection types come from `collections.abc`, already loaded by every interpreter start,
and are the same classes `typing` re-exports (subscriptable at run time, for aliases like plan.Stage).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
else:
    Any = object  # in hints only: never evaluated (see above)

__all__ = ["TYPE_CHECKING", "Any", "Callable", "Collection", "Iterable", "Iterator", "Mapping", "Sequence"]
