"""Go's standard library where Python's differs (strings, time durations), for the checks that mirror
KAITO's Go code."""

import re


# unicode.IsSpace (strings.TrimSpace, strings.Fields): Python's str.strip and str.split also take U+001C to
# U+001F, which Go does not.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"
_SPACES = f"[{re.escape(GO_SPACE)}]+"


def go_lower(text: str) -> str:
    """strings.ToLower, which maps rune by rune (simple case mappings): U+0130 (İ) becomes "i", where
    Python's full mapping makes two characters of it."""
    return "".join("i" if c == "\u0130" else c.lower() for c in text)


def go_trim_space(text: str) -> str:
    return text.strip(GO_SPACE)


def go_fields(text: str) -> list[str]:
    """strings.Fields: the runs between Go's white space."""
    return [f for f in re.split(_SPACES, text) if f]


class DurationError(ValueError):
    pass


_UNITS = {"ns": 1, "us": 1000, "\u00b5s": 1000, "\u03bcs": 1000, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}


def go_parse_duration(text: str) -> int:
    """time.ParseDuration (Go 1.2x, src/time/format.go) in nanoseconds; DurationError with Go's message.
    `[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`: the components one after another, summed."""
    s, neg = text, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise _invalid(text)
    d = 0
    while s:
        v, s = _component(s, text)
        d += v
        if d > 1 << 63:
            raise _invalid(text)
    if neg:
        return -d
    if d > (1 << 63) - 1:
        raise _invalid(text)
    return d


def _invalid(text: str) -> DurationError:
    return DurationError(f"time: invalid duration {_quote(text)}")


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def _component(s: str, text: str) -> tuple[int, str]:
    """One `[0-9]*(\\.[0-9]*)?unit` at the start of `s`, in nanoseconds, and the rest of `s` (`text`: the
    whole duration, which the errors name)."""
    if not (s[0] == "." or _digit(s[0])):
        raise _invalid(text)
    v, rest = _leading_int(s, text)
    pre, s = len(rest) != len(s), rest
    f, scale, post = 0, 1.0, False
    if s and s[0] == ".":
        f, scale, rest = _leading_fraction(s[1:])
        post, s = len(rest) != len(s) - 1, rest
    if not pre and not post:
        raise _invalid(text)
    unit, s = _unit(s, text)
    if v > (1 << 63) // unit:
        raise _invalid(text)
    v *= unit
    if f > 0:
        v += int(float(f) * (float(unit) / scale))
        if v > 1 << 63:
            raise _invalid(text)
    return v, s


def _leading_int(s: str, text: str) -> tuple[int, str]:
    """leadingInt: the digits at the start of `s` as a number (an error past 1<<63), and the rest."""
    i = v = 0
    while i < len(s) and _digit(s[i]):
        if v > (1 << 63) // 10:
            raise _invalid(text)
        v = v * 10 + ord(s[i]) - 48
        if v > 1 << 63:
            raise _invalid(text)
        i += 1
    return v, s[i:]


def _leading_fraction(s: str) -> tuple[int, float, str]:
    """leadingFraction: the digits at the start of `s` as a number, as many as fit (past that it stops gaining
    precision and skips the rest), their scale (10 per digit taken), and the rest."""
    i, f, scale, overflow = 0, 0, 1.0, False
    while i < len(s) and _digit(s[i]):
        if not overflow:
            y = f * 10 + ord(s[i]) - 48
            overflow = f > ((1 << 63) - 1) // 10 or y > 1 << 63
            if not overflow:
                f, scale = y, scale * 10
        i += 1
    return f, scale, s[i:]


def _unit(s: str, text: str) -> tuple[int, str]:
    """The unit at the start of `s` (the run up to the next digit or dot) in nanoseconds, and the rest."""
    i = 0
    while i < len(s) and not (s[i] == "." or _digit(s[i])):
        i += 1
    if i == 0:
        raise DurationError(f"time: missing unit in duration {_quote(text)}")
    unit = _UNITS.get(s[:i])
    if unit is None:
        raise DurationError(f"time: unknown unit {_quote(s[:i])} in duration {_quote(text)}")
    return unit, s[i:]


def go_duration_string(d: int) -> str:
    """time.Duration.String: "1h30m0s", "1.5s", "500ms", "0s", "-2m0s"."""
    if d == 0:
        return "0s"
    u = abs(d)
    if u < 10**9:
        prec, unit = (0, "ns") if u < 1000 else (3, "\u00b5s") if u < 10**6 else (6, "ms")
        frac, u = _frac(u, prec)
        out = f"{u}{frac}{unit}"
    else:
        frac, u = _frac(u, 9)
        out = f"{u % 60}{frac}s"
        u //= 60
        if u > 0:
            out = f"{u % 60}m{out}"
            u //= 60
            if u > 0:
                out = f"{u}h{out}"
    return "-" + out if d < 0 else out


def _frac(v: int, prec: int) -> tuple[str, int]:
    """fmtFrac: the fraction of v / 10**prec without trailing zeros (nothing when it is 0), and the rest."""
    digits, printing = "", False
    for _ in range(prec):
        digit = v % 10
        printing = printing or digit != 0
        if printing:
            digits = str(digit) + digits
        v //= 10
    return ("." + digits if printing else ""), v


def _quote(text: str) -> str:
    """The time package's own `quote` (src/time/format.go), not strconv.Quote: a rune below U+0020 or past
    U+007F is written as its UTF-8 bytes, `\\x09`, `\\xc3\\xa9`; `"` and `\\` get a backslash; the rest
    (DEL too) is written as it is."""
    out = ['"']
    for c in text:
        if c < " " or c >= "\x80":
            out += (f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + c if c in '"\\' else c)
    out.append('"')
    return "".join(out)
