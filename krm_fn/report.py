"""What every result needs: a value quoted as KAITO quotes it, and the item a result is about."""
from __future__ import annotations

import json

from .index import ref_of
from .reader import Item
from .results import Result, Severity

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}


def goquote(text: str) -> str:
    """`text` as Go's `%q` (strconv.Quote) writes it, the way KAITO's messages quote values.

    Printable characters stay (Python's isprintable() is Go's unicode.IsPrint: letters, marks, numbers,
    punctuation, symbols and the ASCII space); C0 controls and DEL are `\\xNN`, other non-printables
    (U+00A0, U+200B, …) `\\uNNNN` or `\\UNNNNNNNN`.
    """
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate is no rune: Go writes U+FFFD
            out.append("\\ufffd")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def q(value: object) -> str:
    """A value in a message, quoted as KAITO quotes it (Go's `%q`)."""
    return goquote(value) if isinstance(value, str) else json.dumps(value)


def about(severity: Severity, message: str, item: Item, field: str = "", **values) -> Result:
    path, index = item.file()
    return Result(severity, message, ref_of(item), field_path=field, file_path=path, file_index=index,
                  **values)
