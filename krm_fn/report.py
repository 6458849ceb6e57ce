"""What every result needs: a value quoted as KAITO quotes it, and the item a result is about."""
from __future__ import annotations

import json

from .index import ref_of
from .quoting import goquote
from .reader import Item
from .results import Result, Severity

__all__ = ["about", "goquote", "q"]


def q(value: object) -> str:
    """A value in a message, quoted as KAITO quotes it (Go's `%q`)."""
    return goquote(value) if isinstance(value, str) else json.dumps(value)


def about(severity: Severity, message: str, item: Item, field: str = "", **values) -> Result:
    path, index = item.file()
    return Result(severity, message, ref_of(item), field_path=field, file_path=path, file_index=index,
                  **values)
