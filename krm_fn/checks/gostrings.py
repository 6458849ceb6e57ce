"""Go's strings functions where Python's differ, for the checks that mirror KAITO's Go code."""
from __future__ import annotations

import re

# unicode.IsSpace (strings.TrimSpace, strings.Fields): Python's str.strip and str.split also take U+001C to
# U+001F, which Go does not.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"
_SPACES = re.compile(f"[{re.escape(GO_SPACE)}]+")


def go_lower(text: str) -> str:
    """strings.ToLower, which maps rune by rune (simple case mappings): U+0130 (İ) becomes "i", where
    Python's full mapping makes two characters of it."""
    return "".join("i" if c == "\u0130" else c.lower() for c in text)


def go_trim_space(text: str) -> str:
    return text.strip(GO_SPACE)


def go_fields(text: str) -> list[str]:
    """strings.Fields: the runs between Go's white space."""
    return [f for f in _SPACES.split(text) if f]
