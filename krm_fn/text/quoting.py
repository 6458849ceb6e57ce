"""Go's `%q`, the way KAITO's messages quote values; no imports from the package (anything may use it)."""

import json

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}


def _escaped(ch: str) -> str:
    """A character as Go's `%q` escapes it: C0 controls and DEL `\\xNN`, others `\\uNNNN` or `\\UNNNNNNNN`."""
    code = ord(ch)
    if ch in _GO_ESCAPES:
        return _GO_ESCAPES[ch]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def goquote(text: str) -> str:
    """`text` as Go's `%q` (strconv.Quote) writes it: printable characters stay (Python's isprintable() is
    Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space)."""
    out = []
    for ch in text:
        if ch.isprintable() and ch not in '"\\':
            out.append(ch)
        elif 0xD800 <= ord(ch) <= 0xDFFF:  # a lone surrogate is no rune: Go writes U+FFFD
            out.append("\\ufffd")
        else:
            out.append(_escaped(ch))
    return '"' + "".join(out) + '"'


def visible(text: str) -> str:
    """`text` for a terminal or a log, on one line: what is not printable escaped as `goquote` does (a name,
    a path or a message cannot end the line and start a forged one, move the cursor or reorder what
    follows), quotes and backslashes kept. A lone surrogate from a byte that is not UTF-8 (a file name's,
    decoded with surrogateescape) is that byte, `\\xNN`; any other, `\\udNNN`."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif 0xDC80 <= ord(ch) <= 0xDCFF:
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        else:
            out.append(_escaped(ch))
    return "".join(out)


def q(value: object) -> str:
    """A value in a message, quoted as KAITO quotes it: Go's `%q` for a string, JSON for anything else."""
    return goquote(value) if isinstance(value, str) else json.dumps(value)
