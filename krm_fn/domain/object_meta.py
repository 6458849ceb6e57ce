"""ObjectMeta's Go types, as kubectl and the API server decode an object's `metadata`: a field of another JSON
type than its Go type (`generation: "5"`, an ownerReference's `controller: 'true'`, `finalizers: x`) makes them
refuse the whole object (`json: cannot unmarshal string into Go struct field OwnerReference.metadata.
ownerReferences.controller of type bool`), which kustomize and kpt read and write on (SD067).

The table mirrors k8s.io/apimachinery v0.32.0 pkg/apis/meta/v1/types.go: ObjectMeta (types.go:111-276),
OwnerReference (types.go:295-320) and ManagedFieldsEntry (types.go:1355-1392); a Time is time.go:100-119
(`Time.UnmarshalJSON`: null, else a JSON string `time.Parse(time.RFC3339, …)` reads), a FieldsV1 takes any JSON
(helpers.go:296-304). Keys are matched as kubectl matches them, case-sensitively (sigs.k8s.io/json):
`Generation` is an unknown field, and unknown fields pass. Null passes for every field (encoding/json leaves
the field as it is). Values are read as kubectl reads the YAML (the item's data: go-yaml v2's scalars).
"""

import math
from typing import Any, NamedTuple

from .kinds import integer

# The scalar types, by what kubectl's JSON wants.
STRING = "string"      # string, types.UID, ManagedFieldsOperationType
INTEGER = "integer"    # int64, *int64
BOOLEAN = "boolean"    # *bool
TIME = "time"          # Time, *Time
ANY = "any"            # *FieldsV1
STRING_MAP = "map"     # map[string]string: its values are SD066's


class Struct:
    """A Go struct: its name and its fields' JSON names -> type. (Plain classes, not NamedTuples: a record's
    field annotated with a forward reference is compiled at import, tests/test_startup.py.)"""

    __slots__ = ("name", "fields")

    def __init__(self, name: str, fields: "dict[str, Type]") -> None:
        self.name = name
        self.fields = fields


class ListOf:
    """A Go slice of `of`."""

    __slots__ = ("of",)

    def __init__(self, of: "Type") -> None:
        self.of = of


Type = str | Struct | ListOf

# types.go:295-320 (v0.32.0)
OWNER_REFERENCE = Struct("OwnerReference", {
    "apiVersion": STRING,          # types.go:297 APIVersion string `json:"apiVersion"`
    "kind": STRING,                # types.go:300 Kind string `json:"kind"`
    "name": STRING,                # types.go:303 Name string `json:"name"`
    "uid": STRING,                 # types.go:306 UID types.UID `json:"uid"`
    "controller": BOOLEAN,         # types.go:309 Controller *bool `json:"controller,omitempty"`
    "blockOwnerDeletion": BOOLEAN,  # types.go:319 BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty"`
})

# types.go:1355-1392 (v0.32.0)
MANAGED_FIELDS_ENTRY = Struct("ManagedFieldsEntry", {
    "manager": STRING,             # types.go:1357 Manager string
    "operation": STRING,           # types.go:1360 Operation ManagedFieldsOperationType (a string)
    "apiVersion": STRING,          # types.go:1365 APIVersion string
    "time": TIME,                  # types.go:1372 Time *Time
    "fieldsType": STRING,          # types.go:1379 FieldsType string
    "fieldsV1": ANY,               # types.go:1382 FieldsV1 *FieldsV1 (helpers.go:296: any JSON, kept raw)
    "subresource": STRING,         # types.go:1391 Subresource string
})

# types.go:111-276 (v0.32.0)
OBJECT_META = Struct("ObjectMeta", {
    "name": STRING,                         # types.go:119
    "generateName": STRING,                 # types.go:134
    "namespace": STRING,                    # types.go:145
    "selfLink": STRING,                     # types.go:149
    "uid": STRING,                          # types.go:159 UID types.UID
    "resourceVersion": STRING,              # types.go:172
    "generation": INTEGER,                  # types.go:177 Generation int64
    "creationTimestamp": TIME,              # types.go:188 CreationTimestamp Time
    "deletionTimestamp": TIME,              # types.go:209 DeletionTimestamp *Time
    "deletionGracePeriodSeconds": INTEGER,  # types.go:216 *int64
    "labels": STRING_MAP,                   # types.go:223 map[string]string
    "annotations": STRING_MAP,              # types.go:230 map[string]string
    "ownerReferences": ListOf(OWNER_REFERENCE),    # types.go:241 []OwnerReference
    "finalizers": ListOf(STRING),                  # types.go:259 []string
    "managedFields": ListOf(MANAGED_FIELDS_ENTRY),  # types.go:275 []ManagedFieldsEntry
})

_INT64 = (-(1 << 63), (1 << 63) - 1)
# What each type is called in a message, and how to write one (a Struct: a mapping; a ListOf: a list).
WANTS = {STRING: ("a string", "write a string, quoted"), INTEGER: ("an integer", "write a whole number"),
         BOOLEAN: ("a boolean", "write true or false"),
         TIME: ("an RFC 3339 time", "write one such as \"2024-01-01T00:00:00Z\""),
         STRING_MAP: ("a mapping", "write a mapping of strings, or nothing"),
         "struct": ("a mapping", "write each entry as a mapping of its fields"),
         "list": ("a list", "write a list, or nothing")}


def wants(kind: Type) -> tuple[str, str]:
    """What kubectl wants of a field of this type, in words, and how to write one."""
    return WANTS["struct" if isinstance(kind, Struct) else "list" if isinstance(kind, ListOf) else kind]


class Wrong(NamedTuple):
    """A field of another type than its Go type: where (`metadata.ownerReferences[0].controller`), the value
    as read, what kubectl wants (a WANTS key, or a Struct's name or `a list` for a struct or a slice), the Go
    field (`OwnerReference.controller`), and why a string is no time (Go's words, time_fault), if that is it."""

    path: str
    value: Any
    want: Type
    go: str
    why: str = ""


def wrong(meta: dict[Any, Any]) -> list[Wrong]:
    """Every field of `meta` (an object's metadata, as kubectl reads it) whose value kubectl's JSON decoding of
    ObjectMeta refuses, in the order written."""
    out: list[Wrong] = []
    _struct(meta, OBJECT_META, "metadata", out)
    return out


def _struct(value: dict[Any, Any], struct: Struct, path: str, out: list[Wrong]) -> None:
    for key, v in value.items():
        kind = struct.fields.get(key) if isinstance(key, str) else None
        if kind is not None:
            _field(v, kind, f"{path}.{key}", f"{struct.name}.{key}", out)


def _field(value: Any, kind: Type, path: str, go: str, out: list[Wrong]) -> None:
    if value is None or kind == ANY:
        return  # encoding/json leaves a field null sets (a pointer, a slice or a map: nil)
    if isinstance(value, float) and not math.isfinite(value):
        return  # kubectl cannot send NaN or an infinity at all: SD018's (stages/shape.py, unsendable)
    if isinstance(kind, Struct):
        if isinstance(value, dict):
            _struct(value, kind, path, out)
        else:
            out.append(Wrong(path, value, kind, go))
    elif isinstance(kind, ListOf):
        if not isinstance(value, list):
            out.append(Wrong(path, value, kind, go))
            return
        for i, entry in enumerate(value):
            _field(entry, kind.of, f"{path}[{i}]", go, out)
    elif kind == TIME:
        text = _string(value)
        why = "" if text is None else time_fault(text)
        if why is not None:
            out.append(Wrong(path, value, kind, go, why))
    elif not _is(value, kind):
        out.append(Wrong(path, value, kind, go))


def _is(value: Any, kind: str) -> bool:
    if kind == STRING:
        return _string(value) is not None
    if kind == BOOLEAN:
        return isinstance(value, bool)
    if kind == INTEGER:
        # A whole float is the integer kubectl sends (`2.0` as 2, kinds.integer); int64's range, else encoding/json
        # says "cannot unmarshal number 9223372036854775808 into Go struct field … of type int64".
        n = integer(value)
        return n is not None and _INT64[0] <= n <= _INT64[1]
    return isinstance(value, dict)  # STRING_MAP


def _string(value: Any) -> str | None:
    """The JSON string kubectl sends for `value`, or None: a str, or !!binary's bytes (go-yaml v2 decodes them
    into a string, which encoding/json writes with � for bytes that are no UTF-8)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return None


# --- time.Parse(time.RFC3339, s), Go 1.23 src/time/format.go ------------------------------------------------
# Go's `Parse` tries the fast path `parseRFC3339` first and falls back on the general parser with the layout
# "2006-01-02T15:04:05Z07:00", which takes all the fast path takes and more: an hour of one digit, `,` before the
# fraction, an offset of +24:00 or +00:60 (format.go, `parse`: stdHour is getnum(value, false); the fraction
# check is commaOrPeriod; the offset's range test is `hr > 24`, `mm > 60`). Measured with kubectl 1.32
# (tests/object_meta_cases.py). The words are Go's ParseError's.

_LAYOUT = "2006-01-02T15:04:05Z07:00"
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class _Bad(Exception):
    """A ParseError: (what is left of the value, the layout's element) or a range's message."""


def rfc3339(text: str) -> str | None:
    """None when Go's `time.Parse(time.RFC3339, text)` reads `text`, else Go's error (ParseError.Error)."""
    try:
        _parse(text)
    except _Bad as exc:
        if len(exc.args) == 1:
            return f"parsing time {_quote(text)}{exc.args[0]}"
        value, elem = exc.args
        return f"parsing time {_quote(text)} as {_quote(_LAYOUT)}: cannot parse {_quote(value)} as {_quote(elem)}"
    return None


def time_fault(text: str) -> str | None:
    """Go's error for a string that is no RFC 3339 time, after its `parsing time "…" [as "…"]: ` (`day out of
    range`, `cannot parse "t00:00:00Z" as "T"`), or None."""
    try:
        _parse(text)
    except _Bad as exc:
        if len(exc.args) == 1:
            return str(exc.args[0])[2:]
        value, elem = exc.args
        return f"cannot parse {_quote(value)} as {_quote(elem)}"
    return None


def _num(value: str, fixed: bool, elem: str) -> tuple[int, str]:
    """Go's getnum: one digit, or two (`fixed`: two)."""
    if not value[:1].isascii() or not value[:1].isdigit():
        raise _Bad(value, elem)
    if not value[1:2].isascii() or not value[1:2].isdigit():
        if fixed:
            raise _Bad(value, elem)
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def _literal(value: str, prefix: str) -> str:
    if not value.startswith(prefix):
        raise _Bad(value, prefix)
    return value[len(prefix):]


def _range(what: str) -> _Bad:
    return _Bad(f": {what} out of range")


def _digit(value: str, i: int) -> bool:
    return len(value) > i and "0" <= value[i] <= "9"


def _parse(value: str) -> None:
    if len(value) < 4 or not _digit(value, 0) or not all(_digit(value, i) for i in range(4)):
        raise _Bad(value, "2006")
    year, value = int(value[:4]), value[4:]
    value = _literal(value, "-")
    month, value = _num(value, True, "01")
    if not 1 <= month <= 12:
        raise _range("month")
    value = _literal(value, "-")
    day, value = _num(value, True, "02")  # its range is checked last, with the month and the year
    value = _literal(value, "T")
    hour, value = _num(value, False, "15")
    if hour >= 24:
        raise _range("hour")
    value = _literal(value, ":")
    minute, value = _num(value, True, "04")
    if minute >= 60:
        raise _range("minute")
    value = _literal(value, ":")
    second, value = _num(value, True, "05")
    if second >= 60:
        raise _range("second")
    if len(value) >= 2 and value[0] in ".," and _digit(value, 1):
        n = 2
        while _digit(value, n):
            n += 1
        value = value[n:]
    value = _zone(value)
    if value:
        raise _Bad(f": extra text: {_quote(value)}")
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day < 1 or day > _DAYS[month - 1] + (1 if month == 2 and leap else 0):
        raise _range("day")


def _zone(value: str) -> str:
    """Z, or ±hh:mm (stdISO8601ColonTZ): what follows it."""
    if value[:1] == "Z":
        return value[1:]
    if len(value) < 6 or value[3] != ":":
        raise _Bad(value, "Z07:00")
    hours, minutes = value[1:3], value[4:6]
    if all(_digit(hours, i) and _digit(minutes, i) for i in (0, 1)):
        # the range test before the sign's; a later one wins (format.go: rangeErrString is set, then checked)
        if int(minutes) > 60:
            raise _range("time zone offset minute")
        if int(hours) > 24:
            raise _range("time zone offset hour")
    if value[0] not in "+-" or not all(_digit(hours, i) and _digit(minutes, i) for i in (0, 1)):
        raise _Bad(value, "Z07:00")
    return value[6:]


def _quote(s: str) -> str:
    """Go's time.quote: in double quotes, `"` and `\\` escaped, a byte that is no printable ASCII as \\xNN."""
    out = []
    for c in s:
        if c < " " or ord(c) >= 0x80:
            out.append("".join(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass")))
        else:
            out.append("\\" + c if c in "\"\\" else c)
    return '"' + "".join(out) + '"'
