"""YAML read the way kubectl, Argo CD and every sigs.k8s.io/yaml user read it: go-yaml v2's rules, written
out here independently of krm_fn (which must agree with them), and generated strings that look like
something else than a string to one YAML reader or another.

`read_all(text)` gives each document as Python data with go-yaml v2's types: a plain scalar untagged is
resolved by resolve.go (v2.4.0, the version sigs.k8s.io/yaml forks as goyaml.v2), a quoted or block scalar
or one tagged `!` or `!!str` is a string. tests/e2e/test_e2e_kubectl_strings.py checks these rules against
the real kubectl (`kubectl label --local -f FILE -o json` reads a file with sigs.k8s.io/yaml and needs no
cluster), so the quick tests can use them without kubectl.

`lookalikes(rng, n)` draws strings near the edges of those rules: Go integer literals with 0x/0o/0b in
either case, signs and underscores, floats with underscores, YAML 1.1's words and sexagesimals, dates.
"""
from __future__ import annotations

import collections
import math
import random
import re
from typing import Any

import yaml

# resolve.go's resolveMap (v2.4.0).
_MAP: dict[str, Any] = {}
for _value, _words in ((True, "y Y yes Yes YES true True TRUE on On ON"),
                       (False, "n N no No NO false False FALSE off Off OFF"),
                       (None, "~ null Null NULL"),
                       (math.nan, ".nan .NaN .NAN"),
                       (math.inf, ".inf .Inf .INF +.inf +.Inf +.INF"),
                       (-math.inf, "-.inf -.Inf -.INF")):
    for _w in _words.split():
        _MAP[_w] = _value
_MAP[""] = None


class Merge:
    """`<<` as a plain key: go-yaml merges there (as a value it is the string "<<")."""


_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def parse_uint(s: str, base: int) -> int | None:
    """Go's strconv.ParseUint(s, base, 64) (s without underscores); None for an error."""
    if base == 0:
        base = 10
        if s[:1] == "0":
            if len(s) >= 3 and s[1] in "bB":
                base, s = 2, s[2:]
            elif len(s) >= 3 and s[1] in "oO":
                base, s = 8, s[2:]
            elif len(s) >= 3 and s[1] in "xX":
                base, s = 16, s[2:]
            else:
                base, s = 8, s[1:]
                if not s:
                    return 0  # "0"
    if not s or any(c not in _DIGITS[base] for c in s):
        return None
    n = int(s, base)
    return n if n < 1 << 64 else None


def parse_int(s: str, base: int) -> int | None:
    """Go's strconv.ParseInt(s, base, 64)."""
    neg = s[:1] == "-"
    if s[:1] in "+-":
        s = s[1:]
    n = parse_uint(s, base) if s else None
    if n is None:
        return None
    n = -n if neg else n
    return n if -(1 << 63) <= n < 1 << 63 else None


def _underscore_ok(s: str) -> bool:
    """Go's strconv underscoreOK: underscores only between digits (or after a base prefix)."""
    saw, i = "^", 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    while i < len(s):
        c = s[i]
        if c.isdigit() and c.isascii() or hexa and c.lower() in "abcdef":
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
        i += 1
    return saw != "_"


_GO_DECIMAL_FLOAT = re.compile(r"[-+]?([0-9_]*\.?[0-9_]*)([eE][-+]?[0-9][0-9_]*)?")


def parse_float(s: str) -> float | None:
    """Go's strconv.ParseFloat(s, 64) for the decimal forms that reach it here (a leading `.`, or what
    yamlStyleFloat matched); an overflow is an error (ErrRange), so None."""
    m = _GO_DECIMAL_FLOAT.fullmatch(s)
    if m is None or not any(c.isdigit() for c in m.group(1)) or ("_" in s and not _underscore_ok(s)):
        return None
    value = float(s.replace("_", ""))
    return None if math.isinf(value) else value


def resolve_plain(s: str) -> Any:
    """What go-yaml v2 decodes an untagged plain scalar to, into an interface{} (resolve.go `resolve`)."""
    if s in _MAP:
        return _MAP[s]
    hint = s[:1]
    if hint == ".":
        value = parse_float(s)
        return s if value is None else value
    if hint and hint in "+-0123456789":
        # (A timestamp comes first there, but decodes into an interface{} as its own text: a string.)
        plain = s.replace("_", "")
        for parsed in (parse_int(plain, 0), parse_uint(plain, 0)):
            if parsed is not None:
                return parsed
        if _YAML_STYLE_FLOAT.fullmatch(plain):
            value = parse_float(plain)
            if value is not None:
                return value
        if plain.startswith("0b"):
            for parsed in (parse_int(plain[2:], 2), parse_uint(plain[2:], 2)):
                if parsed is not None:
                    return parsed
        elif plain.startswith("-0b"):
            parsed = parse_int("-" + plain[3:], 2)
            if parsed is not None:
                return parsed
    return s


_V3_ONLY_V2 = frozenset("y Y yes Yes YES on On ON n N no No NO off Off OFF".split())


class Timestamp(str):
    """A plain scalar go-yaml v3 decodes into an interface{} as a time.Time (no string)."""


_TIMESTAMP = re.compile(r"[0-9]{4}-([0-9]{1,2})-([0-9]{1,2})"
                        r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))"
                        r"|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?))?")


def _timestamp(s: str) -> bool:
    """resolve.go parseTimestamp: Go's time.Parse with "2006-1-2T15:4:5.999999999Z07:00" (or `t`),
    "2006-1-2 15:4:5.999999999" or "2006-1-2" (the fields' ranges not checked: a little wider than Go)."""
    return _TIMESTAMP.fullmatch(s) is not None


def resolve_plain_v3(s: str) -> Any:
    """go-yaml v3 (v3.0.1: kpt and kustomize's kyaml): v2's rules without y/yes/on/n/no/off, with a `0o`
    prefix taking a sign after it (`0o-7`), and timestamps decoded as time.Time."""
    if s in _V3_ONLY_V2:
        return s
    if s[:1] and s[:1] in "+-0123456789":
        if _timestamp(s):
            return Timestamp(s)
        plain = s.replace("_", "")
        value = resolve_plain(s)
        if type(value) is str and plain.startswith("0o"):
            for parsed in (parse_int(plain[2:], 8), parse_uint(plain[2:], 8)):
                if parsed is not None:
                    return parsed
        elif type(value) is str and plain.startswith("-0o"):
            parsed = parse_int("-" + plain[3:], 8)
            if parsed is not None:
                return parsed
        return value
    return resolve_plain(s)


_CORE = re.compile(r"(?P<null>null|Null|NULL|~|)|(?P<bool>true|True|TRUE|false|False|FALSE)"
                   r"|(?P<int>[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)"
                   r"|(?P<float>[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))")


class Core(str):
    """A plain scalar YAML 1.2's core schema resolves to null, bool, int or float (its kind in `.kind`)."""

    kind = ""


def resolve_yaml12(s: str) -> Any:
    """YAML 1.2.2 section 10.3.2 (the core schema): the tag a plain scalar resolves to, or the string."""
    m = _CORE.fullmatch(s)
    if m is None:
        return s
    out = Core(s)
    out.kind = m.lastgroup or ""
    return out


_STR_TAGS = ("!", "tag:yaml.org,2002:str", "!!str")


def _scalar(event: yaml.ScalarEvent, resolve: Any) -> Any:
    if event.tag is None:
        # Quoted and block scalars are never resolved (decode.go: `n.tag == "" && !n.implicit`).
        return resolve(event.value) if event.style in (None, "") else event.value
    if event.tag in _STR_TAGS or not event.tag.startswith("tag:yaml.org,2002:"):
        # `!` or a local tag (`!foo`) is no tag resolve() knows (`if !resolvableTag(tag) { return tag, in }`):
        # the text stays a string
        return event.value
    raise ValueError(f"tag {event.tag} is not read here")


def read_all(text: str, resolve: Any = resolve_plain) -> list[Any]:
    """Every document of `text` as go-yaml v2 decodes it into interface{} (keys keep their types: a test
    asks for str). Built from PyYAML's parser events only, so PyYAML's resolver plays no part. `resolve`:
    another reader's rules for plain scalars (resolve_plain_v3, resolve_yaml12)."""
    docs: list[Any] = []
    stack: list[Any] = []  # open collections: [list] or [dict, pending key, has key]
    anchors: dict[str, Any] = {}

    def put(value: Any) -> None:
        if not stack:
            docs.append(value)
            return
        top = stack[-1]
        if isinstance(top[0], list):
            top[0].append(value)
        elif not top[2]:
            top[1], top[2] = value, True
        else:
            key = top[1]
            top[0][key if not isinstance(key, (dict, list)) else repr(key)] = value
            top[1], top[2] = None, False

    for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(event, yaml.ScalarEvent):
            value = _scalar(event, resolve)
            if value == "<<" and event.tag is None and event.style in (None, "") and stack \
                    and isinstance(stack[-1][0], dict) and not stack[-1][2]:
                value = Merge()
            if event.anchor:
                anchors[event.anchor] = value
            put(value)
        elif isinstance(event, yaml.AliasEvent):
            put(anchors[event.anchor])
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            container: Any = [] if isinstance(event, yaml.SequenceStartEvent) else {}
            if event.anchor:
                anchors[event.anchor] = container
            stack.append([container, None, False])
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            put(stack.pop()[0])
        elif isinstance(event, yaml.DocumentStartEvent):
            anchors = {}
    return docs


def strings_kept(data: Any, want: Any, path: str = "") -> list[str]:
    """Where `data` (as a reader read it) differs from `want`: each string of `want`, key or value, must come
    back as that string (not a bool, number, null, timestamp or another string). Only what `want` holds is
    compared ({} asks nothing)."""
    if isinstance(want, dict):
        if not isinstance(data, dict):
            return [f"{path}: {data!r} is no mapping"]
        keys = {k for k in data if type(k) is str}
        odd = [k for k in data if type(k) is not str]
        bad = [f"{path}: key {k!r} did not come back as that string (keys read as no string: {odd[:5]!r})"
               for k in want if k not in keys]
        return bad + [b for k, v in want.items() if k in keys for b in strings_kept(data[k], v, f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(data, list) or len(data) != len(want):
            return [f"{path}: {data!r} is not a list of {len(want)}"]
        return [b for i, (d, w) in enumerate(zip(data, want, strict=True)) for b in strings_kept(d, w, f"{path}[{i}]")]
    if type(want) is str and (type(data) is not str or data != want):
        return [f"{path}: {want!r} came back as {type(data).__name__} {data!r}"]
    return []


# The readers every string written must survive: (name, how it resolves a plain scalar).
READERS = (("go-yaml v2", resolve_plain), ("go-yaml v3", resolve_plain_v3), ("YAML 1.2 core", resolve_yaml12))


def misread(text: str, want: list[Any]) -> list[str]:
    """Where the documents of `text` do not read back as `want` (their strings), by each reader: the three
    above and PyYAML (YAML 1.1 as PyYAML has it; y/n and the rest of 1.1's words are go-yaml v2's too)."""
    bad = []
    for name, resolve in READERS:
        got = read_all(text, resolve)
        bad += [f"{name}: {b}" for b in strings_kept(got, want)]
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    bad += [f"PyYAML: {b}" for b in strings_kept(list(yaml.load_all(text, Loader=loader)), want)]
    return bad


# --- look-alike strings -----------------------------------------------------------------------------

WORDS = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nil", "none", "~", "inf", "nan",
         "infinity", ".inf", ".nan", "-.inf", "+.inf", "<<", "="]
HAND_WRITTEN = [
    "y", "Y", "n", "N", "0X1F", "0O17", "0B101", "+0o17", "-0O17", "1_e3", "1e1_0", "0_8", "+1_e3", "1.5_e3",
    "0x1F", "0o17", "0b101", "-0b101", "0b-1", "0b+1", "0o-7", "08", "010", "0_0", "1_000", "_1", "1_", "+_1",
    ".5", "._5", ".5_0", ".5e1_0", "5.", "1e400", "-1e400", "1e-400", "99999999999999999999", "18446744073709551615",
    "18446744073709551616", "-9223372036854775809", "0xFFFFFFFFFFFFFFFF", "0x1_0000_0000_0000_0000", "1:20",
    "190:20:30", "1:20.5", "2001-12-14", "2001-1-2", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10",
    "+", "-", ".", "0x", "0b", "0o", "0x_1F", "0_x1F", "1__0", "+.5", "-.5", "1.e5", "1e+5", "1E-5", "=", "<<",
    "~", "", "+.inf", "-.Inf", ".NaN", "Infinity", "+Inf", "NaN", "nan", "0.", "-0", "+0", "00", "0e0", "0x0p1",
]


def _case(rng: random.Random, word: str) -> str:
    pick = rng.random()
    if pick < 0.3:
        return word.upper()
    if pick < 0.6:
        return word.capitalize()
    if pick < 0.8:
        return word
    return "".join(c.upper() if rng.random() < 0.5 else c for c in word)


def _digits(rng: random.Random, alphabet: str) -> str:
    out = "".join(rng.choice(alphabet) for _ in range(rng.choice((1, 1, 2, 3, 5, 20))))
    while rng.random() < 0.4:  # underscores anywhere, doubled, leading or trailing
        at = rng.randrange(len(out) + 1)
        out = out[:at] + "_" * rng.choice((1, 1, 2)) + out[at:]
    return out


def _number(rng: random.Random) -> str:
    sign = rng.choice(("", "", "+", "-"))
    prefix, alphabet = rng.choice((("", "0123456789"), ("0", "01234567"), ("0", "0123456789"),
                                   ("0x", "0123456789abcdefABCDEF"), ("0X", "0123456789aF"), ("0o", "01234567"),
                                   ("0O", "01234567"), ("0b", "01"), ("0B", "01"), ("0b-", "01"), ("0o+", "0127")))
    text = sign + prefix + _digits(rng, alphabet)
    if rng.random() < 0.35:
        text += "." + (_digits(rng, "0123456789") if rng.random() < 0.8 else "")
    if rng.random() < 0.3:
        text += rng.choice("eE") + rng.choice(("", "+", "-", "_")) + _digits(rng, "0123456789")
    if rng.random() < 0.1:
        text = rng.choice((".", "_", "+.", "-_")) + text.lstrip("+-")
    if rng.random() < 0.1:
        text += ":" + _digits(rng, "012345") + rng.choice(("", ":30", ".5"))
    return text


def lookalike(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.25:
        return _case(rng, rng.choice(WORDS))
    if pick < 0.8:
        return _number(rng)
    if pick < 0.9:
        y, m, d = rng.randrange(1000, 9999), rng.randrange(1, 13), rng.randrange(1, 29)
        date = f"{y}-{m}-{d}" if rng.random() < 0.5 else f"{y}-{m:02}-{d:02}"
        return date + rng.choice(("", "T1:2:3Z", "t10:20:30.5+01:00", " 1:02:03", "T10:20"))
    return "".join(rng.choice("0123456789_.eE+-xXoObB:aAfFyYnN~") for _ in range(rng.randrange(1, 7)))


def lookalikes(seed: int, n: int) -> list[str]:
    """HAND_WRITTEN and `n` drawn strings, each once, in a fixed order for a seed."""
    rng = random.Random(seed)
    out = dict.fromkeys(HAND_WRITTEN)
    while len(out) < len(HAND_WRITTEN) + n:
        out[lookalike(rng)] = None
    return list(out)


_PYYAML = yaml.resolver.Resolver()


def plain_misreadings(text: str) -> collections.Counter:
    """The untagged plain scalars of `text` (keys too) that PyYAML reads as strings and some other reader
    (READERS) does not, counted by their text; an empty count for text the parser refuses."""
    found: collections.Counter = collections.Counter()
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(event, yaml.ScalarEvent) and event.tag is None and event.style in (None, "") \
                    and _PYYAML.resolve(yaml.ScalarNode, event.value, (True, False)) == "tag:yaml.org,2002:str" \
                    and any(type(v := resolve(event.value)) is not str or v != event.value for _, resolve in READERS):
                found[event.value] += 1
    except yaml.YAMLError:
        return collections.Counter()
    return found
