"""What every result needs: a name quoted as KAITO quotes it, and the item a result is about."""
from __future__ import annotations

import json

from .index import ref_of
from .reader import Item
from .results import Result, Severity


def q(value: object) -> str:
    """A name in a message, quoted as KAITO quotes it."""
    return json.dumps(value, ensure_ascii=False)



def about(severity: Severity, message: str, item: Item, field: str = "", **values) -> Result:
    path, index = item.file()
    return Result(severity, message, ref_of(item), field_path=field, file_path=path, file_index=index,
                  **values)

