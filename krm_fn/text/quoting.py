"""Go's `%q`, the way KAITO's messages quote values; no imports from the package (anything may use it)."""

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


def visible(text: str) -> str:
    """`text` for a terminal or a log, on one line: what is not printable escaped as `goquote` does (a name,
    a path or a message cannot end the line and start a forged one, move the cursor or reorder what
    follows), quotes and backslashes kept. A lone surrogate from a byte that is not UTF-8 (a file name's,
    decoded with surrogateescape) is that byte, `\\xNN`; any other, `\\udNNN`."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if ch.isprintable():
            out.append(ch)
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)
