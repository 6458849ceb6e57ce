"""What kubectl reads: a scalar as go-yaml reads it.

kubectl, Argo CD and sigs.k8s.io/yaml read YAML with go-yaml v2, kustomize and kpt with v3; PyYAML (YAML 1.1)
reads some scalars otherwise. This module is the function's copy of go-yaml's rules: the tags, a plain scalar
resolved by v2's resolve.go (`go_resolve`), a scalar event's tag as go-yaml gives it (`scalar_tag`: a tag
go-yaml does not know leaves a string, `<<` merges only as a key), a tagged scalar decoded as v2 decodes it
(`go_scalar`), and which strings some reader would take for something else, so the emitter quotes them
(`ambiguous`). The composer (yamlio.py), the reader's walk (reader.py) and the item's identity (identity.py)
all read scalars through it. Standard library and PyYAML's pure-Python parts only.
"""

import math
import re
from collections.abc import Callable
from typing import Any

import yaml
from yaml.events import ScalarEvent

STR_TAG = "tag:yaml.org,2002:str"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"
MAP_TAG = "tag:yaml.org,2002:map"
SEQ_TAG = "tag:yaml.org,2002:seq"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
BINARY_TAG = "tag:yaml.org,2002:binary"
# A key kubectl and kustomize read apart, one as a merge key and one not (`!!merge x`, `! "<<"`): compose_node
# gives it this tag, merge_conflict refuses the object it is in, and no constructor knows it.
DISPUTED_MERGE_TAG = "tag:kaito-specdec,2025:disputed-merge"
# A key `<<` go-yaml does not merge (quoted, or tagged `!!str` or `!foo`): kubectl reads a key named `<<`,
# kustomize and kpt drop it (kyaml). merge_conflict refuses it too.
DROPPED_MERGE_TAG = "tag:kaito-specdec,2025:dropped-merge"


# --- plain scalars as go-yaml reads them ------------------------------------------------------------------
# kubectl, Argo CD and sigs.k8s.io/yaml decide what an untagged plain scalar is with go-yaml v2's resolve.go
# (v2.4.0, which sigs.k8s.io/yaml forks as goyaml.v2); kustomize and kpt with v3's, the same rules but for the
# words noted below. PyYAML's YAML 1.1 resolver reads otherwise (`1e3` and `0o17` strings, `1:20` an int, `=`
# a "value"), so the function resolves plain scalars itself, as v2 does:
#
#   hint := byte('N'); if in != "" { hint = resolveTable[in[0]] }  // 'S' +-, 'D' 0-9, 'M' yYnNtTfFoO~, '.'
#   if item, ok := resolveMap[in]; ok { return item.tag, item.value }
#   case '.': floatv, err := strconv.ParseFloat(in, 64)
#   case 'D', 'S': parseTimestamp(in) ...
#       plain := strings.Replace(in, "_", "", -1)
#       intv, err := strconv.ParseInt(plain, 0, 64) ... uintv, err := strconv.ParseUint(plain, 0, 64)
#       if yamlStyleFloat.MatchString(plain) { floatv, err := strconv.ParseFloat(plain, 64) ... }
#       if strings.HasPrefix(plain, "0b") { intv, err := strconv.ParseInt(plain[2:], 2, 64) ... }
#   return yaml_STR_TAG, in
#
# resolve.go init(), resolveMapList (v2.4.0). v3 has the same map without y/yes/on and n/no/off; they stay
# bools here, as kubectl reads them (and as checks of the opt-in annotation's value expect).
GO_WORDS: dict[str, tuple[str, Any]] = {}
for _tag, _value, _words in (
        (BOOL_TAG, True, "y Y yes Yes YES true True TRUE on On ON"),
        (BOOL_TAG, False, "n N no No NO false False FALSE off Off OFF"),
        (NULL_TAG, None, "~ null Null NULL"),
        (FLOAT_TAG, math.nan, ".nan .NaN .NAN"),
        (FLOAT_TAG, math.inf, ".inf .Inf .INF +.inf +.Inf +.INF"),
        (FLOAT_TAG, -math.inf, "-.inf -.Inf -.INF"),
        (MERGE_TAG, "<<", "<<")):  # out of the hints' reach: a merge key is the parser's (scalar_tag)
    for _word in _words.split():
        GO_WORDS[_word] = (_tag, _value)
GO_WORDS[""] = (NULL_TAG, None)
# resolveTable: a plain scalar whose first character is none of these is a string.
_GO_HINTS = frozenset("+-0123456789.yYnNtTfFoO~")
_SIGN_OR_DIGIT = frozenset("+-0123456789")
# strconv.ParseInt(plain, 0, 64)'s literals (Go's: 0x 0o 0b in either case, a leading 0 for octal, a sign).
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_BASES = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
# var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# strconv.ParseFloat(in, 64) of a text starting with `.` (underscores only between digits: underscoreOK).
_GO_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
# `if strings.HasPrefix(plain, "0b") { intv, err := strconv.ParseInt(plain[2:], 2, 64)`: a sign after 0b.
# (The `-0b` branch after it reads nothing ParseInt(plain, 0, 64) did not.)
_GO_SIGNED_BINARY = re.compile(r"0b([-+])([01]+)")
# Timestamps keep PyYAML's YAML 1.1 pattern (its resolver.py; go-yaml's parseTimestamp reads some others; either way the
# value is the text, a string, as v2 decodes a timestamp into an interface{}).
_TIMESTAMP = re.compile(r"""[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?""", re.X)
_INT64 = 1 << 63


def _go_int(sign: str, digits: str, base: int) -> int | None:
    """strconv.ParseInt's value, else ParseUint's (no sign), else None (out of range: an error in Go)."""
    if base == 10 and len(digits) > 20:  # past uint64 whatever the digits (and Python's int() limit)
        return None
    value = int(digits, base)
    if sign == "-":
        value = -value
    if -_INT64 <= value < _INT64 or (not sign and value < 1 << 64):
        return value
    return None


def _go_number(plain: str) -> int | float | None:
    """The number go-yaml v2 reads `plain` (a plain scalar without its underscores) as, or None."""
    m = _GO_INT.fullmatch(plain)
    if m is not None:
        sign, literal = m.groups()
        base = _GO_BASES.get(literal[1:2])
        value = _go_int(sign, literal[2:], base) if base else _go_int(sign, literal, 8 if literal[0] == "0" else 10)
        if value is not None:
            return value
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):  # ParseFloat's ErrRange: `1e400` stays a string
            return number
    m = _GO_SIGNED_BINARY.fullmatch(plain)
    if m is not None:
        value = int(m.group(2), 2) * (-1 if m.group(1) == "-" else 1)
        if -_INT64 <= value < _INT64:
            return value
    return None


def go_resolve(text: str) -> tuple[str, Any]:
    """(tag, value) of an untagged plain scalar as go-yaml v2 reads it (resolve.go `resolve("", in)`, above):
    null, bool, int, float, a timestamp (its text), else the string (`<<` too: scalar_tag makes merge keys)."""
    hint = text[:1]
    if hint not in _GO_HINTS:
        return (NULL_TAG, None) if not text else (STR_TAG, text)
    found = GO_WORDS.get(text)
    if found is not None:
        return found
    if hint == ".":
        if _GO_DOT_FLOAT.fullmatch(text):
            number = float(text.replace("_", ""))
            if not math.isinf(number):
                return FLOAT_TAG, number
    elif hint in _SIGN_OR_DIGIT:
        if _TIMESTAMP.fullmatch(text):
            return TIMESTAMP_TAG, text
        value = _go_number(text.replace("_", "") if "_" in text else text)
        if value is not None:
            return (FLOAT_TAG if isinstance(value, float) else INT_TAG), value
    return STR_TAG, text


# What a plain scalar that is no string reads as, in words; and the words v2 reads as booleans and v3 as strings.
PLAIN_READS = {BOOL_TAG: "a boolean", INT_TAG: "a number", FLOAT_TAG: "a number", NULL_TAG: "null",
               TIMESTAMP_TAG: "a timestamp"}
V2_ONLY_WORDS = frozenset("y Y yes Yes YES on On ON n N no No NO off Off OFF".split())


def plain_reads_as(text: str, v3: bool = False) -> str | None:
    """What go-yaml v2 (or `v3`) reads this text as, written plain, when that is no string: "a boolean", "a
    number", "null", and with `v3` "a timestamp" (v3 decodes a date into interface{} as a time.Time, v2 keeps its
    text); None for a string."""
    if v3 and text in V2_ONLY_WORDS:
        return None
    tag = go_resolve(text)[0]
    return None if tag == TIMESTAMP_TAG and not v3 else PLAIN_READS.get(tag)


# The tags go-yaml knows on a scalar (resolvableTag, and !!binary); any other (`!foo`, `!!set`)
# leaves the scalar's text a string: `if !resolvableTag(tag) { return tag, in }`.
_GO_TAGS = frozenset((STR_TAG, NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, TIMESTAMP_TAG, BINARY_TAG))


def scalar_tag(event: ScalarEvent, key: bool = False) -> str:
    """The tag of a scalar event as go-yaml reads it; `key`: the scalar is a mapping's key.

    Untagged plain scalars resolve as go_resolve says; quoted and block ones, and those tagged `!` or a tag
    go-yaml does not know, are strings. `<<` (or anything tagged `!!merge`) is a string but as a key, where
    the parser, not the resolver, makes it a merge key. v2's decode.go: `func isMerge(n *node) bool {
    return n.kind == scalarNode && n.value == "<<" && (n.implicit == true || n.tag == yaml_MERGE_TAG) }`
    (its parser makes a scalar tagged `!` implicit, quoted or not); v3's decode.go: `n.Value == "<<" &&
    (n.Tag == "" || n.Tag == "!" || shortTag(n.Tag) == mergeTag)`, where its parser has tagged a quoted
    `! "<<"` `!!str`. A quoted `! "<<"` is thus a merge key to kubectl only, and a key `!!merge x` one to
    kustomize only (kyaml merges any key tagged `!!merge`; both go-yaml versions read the key `x`):
    those two get DISPUTED_MERGE_TAG. Any other key `<<` (quoted, `!!str`, `!foo`) is a key named `<<` to
    kubectl and dropped by kustomize and kpt: DROPPED_MERGE_TAG."""
    tag, value = event.tag, event.value
    if key and value == "<<":
        if (tag is None and event.implicit[0]) or tag == MERGE_TAG or (tag == "!" and not event.style):
            return MERGE_TAG
        return DISPUTED_MERGE_TAG if tag == "!" else DROPPED_MERGE_TAG
    if tag is None:
        if not event.implicit[0] or value == "<<":  # `<<` as a value is a string
            return STR_TAG
        return go_resolve(value)[0]
    if tag == MERGE_TAG and key:
        return DISPUTED_MERGE_TAG
    return tag if tag in _GO_TAGS else STR_TAG


_READS = {BOOL_TAG: "a boolean", INT_TAG: "a number", FLOAT_TAG: "a number", TIMESTAMP_TAG: "a timestamp",
          BINARY_TAG: "binary data"}


def reads_as(tag: str) -> str:
    """What a scalar of this tag is, in words, for a value that had to be a string."""
    return _READS.get(tag, "no string")


def go_scalar(loader: Any, node: yaml.ScalarNode) -> Any:
    """A `!!bool`, `!!int`, `!!float`, `!!null` or `!!timestamp` scalar (plain ones resolved to them too)
    decoded as go-yaml v2 decodes it (a timestamp into interface{} is its text: "for backward compatibility
    reasons we set it as a string"): its text resolved as a plain scalar's, which must give the tag, but
    that an int is read as a float where the tag says float (resolve.go: `case yaml_FLOAT_TAG: if rtag == yaml_INT_TAG`
    ... `out = float64(v)`, for what fits in an int64); anything else is Go's `failf("cannot decode %s
    `%s` as a %s", ...)`."""
    text = loader.construct_scalar(node)
    tag, value = go_resolve(text)
    if tag == node.tag:
        return value
    if node.tag == FLOAT_TAG and tag == INT_TAG and -_INT64 <= value < _INT64:
        return float(value)
    # No mark: the item's error names the field and its line already (`in "<unicode string>"` would not help).
    raise yaml.constructor.ConstructorError(
        None, None, f"cannot decode !!{tag.rsplit(':', 1)[-1]} `{text}` as a !!{node.tag.rsplit(':', 1)[-1]}")


# --- what the output must not be read as -----------------------------------------------------------------
# Which plain scalars some reader of the output takes for something else than a string. Every string the
# function writes must read back as that string under each of them:
# - go-yaml v2 (kubectl, Argo CD, every sigs.k8s.io/yaml user; sigs.k8s.io/yaml forks v2.4.0), resolve.go:
#     resolveMap (GO_WORDS: y/yes/on, true, n/no/off, false in three spellings, nulls, .nan/.inf, "<<").
#     A first character `+ - 0-9` ('S', 'D'): `plain := strings.Replace(in, "_", "", -1)`, then
#     `strconv.ParseInt(plain, 0, 64)` and `strconv.ParseUint(plain, 0, 64)` (Go literals: 0x 0o 0b in
#     either case, a leading 0 for octal), `yamlStyleFloat` =
#     `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` on plain, and for plain starting "0b"
#     `strconv.ParseInt(plain[2:], 2, 64)` (so `0b-1` too). A first character `.`: `strconv.ParseFloat(in, 64)`.
# - go-yaml v3 (kpt, kustomize's kyaml): the same without y/yes/on/n/no/off, plus "0o" +
#   `strconv.ParseInt(plain[2:], 8, 64)` (`0o-7`), and timestamps (`parseTimestamp`: "2006-1-2",
#   optionally with `T`, `t` or a space and a time) decode to a time.Time.
# - YAML 1.1 as PyYAML reads it (its resolver, asked below: `1:20`, `0b1_0`, `=`, dates, …) and YAML 1.2's
#   core schema (a subset of go-yaml's numbers).
# The test is wider than the readers where that is simpler (any Go literal's digits, whatever the range):
# quoting a string that needed none costs two characters; writing one plain that needed quotes changes it.
_WORDS = frozenset(GO_WORDS)  # v2's resolveMap, v3's within it
_NUMBER_START = frozenset("-+.0123456789")
# Tried on the text without its underscores.
_GO_NUMBER = (
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oObB][0-7]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
    r"|0[bo][-+][0-7]+")
_GO_TIMESTAMP = r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?"
# PyYAML's YAML 1.1 resolver: only for `ambiguous` (output must read back under YAML 1.1 too).
_resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = yaml.resolver.Resolver().resolve


def ambiguous(value: str) -> bool:
    """Would go-yaml v2 or v3, YAML 1.1 or YAML 1.2 read this plain scalar as anything but this string?"""
    if value in _WORDS:
        return True
    if value[:1] in _NUMBER_START and (re.fullmatch(_GO_NUMBER, value.replace("_", "") if "_" in value else value)
                                       or re.fullmatch(_GO_TIMESTAMP, value)):
        return True
    return _resolve(yaml.ScalarNode, value, (True, False)) != STR_TAG
