"""A small PromQL grammar and type check, so tests can prove an expression is well-formed without Prometheus.

Covers what rules use: numbers, strings, vector selectors (metric names with colons, label matchers
`= != =~ !~` with a regex that must compile), range selectors and `offset` with Prometheus durations
(`1h30m`, units in falling order, not zero), function calls with their argument types, aggregations with
`by`/`without` before or after the arguments, binary operators with PromQL's precedence and
associativity (`^` right-associative), `bool` on comparisons, `on`/`ignoring` with `group_left`/
`group_right`, and unary signs. It rejects what Prometheus' parser rejects in those forms: unbalanced
brackets, unknown functions, an instant vector where a range is needed (`rate(x)`) and the reverse,
set operators on scalars, comparisons of two scalars without `bool`, label names with colons, empty
selectors. Subqueries and the `@` modifier are not supported (rejected).

`parse(text)` returns the expression's type ("scalar", "vector", "matrix" or "string") or raises
PromQLError; `check_rule(text)` also requires what a rule may evaluate to (a scalar or an instant vector).
"""
from __future__ import annotations

import re

SCALAR, VECTOR, MATRIX, STRING = "scalar", "vector", "matrix", "string"


class PromQLError(ValueError):
    pass


_TOKEN = re.compile(r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<duration>[0-9]+(?:ms|s|m|h|d|w|y)(?:[0-9]+(?:ms|s|m|h|d|w|y))*(?![A-Za-z0-9_]))
  | (?P<number>0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|==|!=|>=|<=|[-+*/%^<>=(){}\[\],])
""", re.X)

# name -> (argument types, how many of the last may be left out), result type
FUNCTIONS: dict[str, tuple[tuple[str, ...], int, str]] = {
    **{f: ((MATRIX,), 0, VECTOR) for f in (
        "rate", "irate", "increase", "delta", "idelta", "deriv", "changes", "resets", "avg_over_time",
        "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time",
        "stddev_over_time", "stdvar_over_time", "present_over_time", "absent_over_time", "mad_over_time")},
    "quantile_over_time": ((SCALAR, MATRIX), 0, VECTOR),
    "predict_linear": ((MATRIX, SCALAR), 0, VECTOR),
    "holt_winters": ((MATRIX, SCALAR, SCALAR), 0, VECTOR),
    "double_exponential_smoothing": ((MATRIX, SCALAR, SCALAR), 0, VECTOR),
    **{f: ((VECTOR,), 0, VECTOR) for f in (
        "abs", "ceil", "floor", "exp", "ln", "log2", "log10", "sqrt", "sgn", "absent", "sort", "sort_desc",
        "timestamp", "histogram_count", "histogram_sum", "histogram_avg", "deg", "rad")},
    "round": ((VECTOR, SCALAR), 1, VECTOR),
    "clamp": ((VECTOR, SCALAR, SCALAR), 0, VECTOR),
    "clamp_min": ((VECTOR, SCALAR), 0, VECTOR),
    "clamp_max": ((VECTOR, SCALAR), 0, VECTOR),
    "histogram_quantile": ((SCALAR, VECTOR), 0, VECTOR),
    "label_replace": ((VECTOR, STRING, STRING, STRING, STRING), 0, VECTOR),
    "vector": ((SCALAR,), 0, VECTOR),
    "scalar": ((VECTOR,), 0, SCALAR),
    "time": ((), 0, SCALAR),
    "pi": ((), 0, SCALAR),
    **{f: ((VECTOR,), 1, VECTOR) for f in (
        "day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute", "month", "year")},
}
AGGREGATIONS = {"sum": None, "avg": None, "min": None, "max": None, "count": None, "stddev": None,
                "stdvar": None, "group": None, "topk": SCALAR, "bottomk": SCALAR, "quantile": SCALAR,
                "count_values": STRING, "limitk": SCALAR, "limit_ratio": SCALAR}
# Lowest to highest; `^` is right-associative.
PRECEDENCE = [("or",), ("and", "unless"), ("==", "!=", "<=", "<", ">=", ">"), ("+", "-"),
              ("*", "/", "%", "atan2"), ("^",)]
COMPARISONS = {"==", "!=", "<=", "<", ">=", ">"}
SET_OPS = {"and", "or", "unless"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "atan2",
            *SET_OPS}
LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNITS = ["y", "w", "d", "h", "m", "s", "ms"]


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise PromQLError(f"unexpected character {text[pos]!r} at {pos}")
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
        pos = m.end()
    out.append(("eof", ""))
    return out


def _duration(text: str) -> None:
    parts = re.findall(r"([0-9]+)(ms|s|m|h|d|w|y)", text)
    order = [_UNITS.index(unit) for _, unit in parts]
    if order != sorted(set(order)):
        raise PromQLError(f"bad duration {text!r}: units must be given once each, largest first")
    if all(int(n) == 0 for n, _ in parts):
        raise PromQLError(f"duration {text!r} must be greater than 0")


def _unquote(token: str) -> str:
    if token[0] == "`":
        return token[1:-1]
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        return self.toks[min(self.i + offset, len(self.toks) - 1)]

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        k, v = self.peek()
        if (value is not None and v != value) or (kind is not None and k != kind):
            raise PromQLError(f"expected {value or kind}, found {v or 'end of input'!r}")
        self.i += 1
        return v

    def separator(self, close: str) -> None:
        """Between list elements: a comma, unless the list closes here."""
        if self.peek()[1] != close:
            if self.peek()[1] != ",":
                raise PromQLError(f"expected , or {close}, found {self.peek()[1] or 'end of input'!r}")
            self.take()

    def accept(self, value: str) -> bool:
        if self.peek()[1] == value and self.peek()[0] in ("op", "ident"):
            self.i += 1
            return True
        return False

    # expr := binary expression by precedence climbing
    def expr(self, level: int = 0) -> str:
        if level == len(PRECEDENCE):
            return self.unary()
        left = self.expr(level + 1)
        while self.peek()[0] in ("op", "ident") and self.peek()[1] in PRECEDENCE[level]:
            op = self.take()
            is_bool = self.accept("bool")
            if is_bool and op not in COMPARISONS:
                raise PromQLError(f"bool modifier on non-comparison operator {op!r}")
            matching = self.vector_matching(op)
            # `^` is right-associative: its right side starts at the same level.
            right = self.expr(level if op == "^" else level + 1)
            left = self.binary_type(op, left, right, is_bool, matching)
        return left

    def vector_matching(self, op: str) -> bool:
        if self.peek()[1] not in ("on", "ignoring"):
            return False
        self.take()
        self.labels()
        if self.peek()[1] in ("group_left", "group_right"):
            if op in SET_OPS:
                raise PromQLError(f"no grouping allowed for {op!r}")
            self.take()
            if self.peek()[1] == "(":
                self.labels()
        return True

    @staticmethod
    def binary_type(op: str, left: str, right: str, is_bool: bool, matching: bool) -> str:
        for side in (left, right):
            if side in (MATRIX, STRING):
                raise PromQLError(f"binary expression must contain only scalar and instant vector types, "
                                  f"found {side} around {op!r}")
        if op in SET_OPS and (left, right) != (VECTOR, VECTOR):
            raise PromQLError(f"set operator {op!r} not allowed in binary scalar expression")
        if matching and (left, right) != (VECTOR, VECTOR):
            raise PromQLError("vector matching only allowed between instant vectors")
        if op in COMPARISONS and (left, right) == (SCALAR, SCALAR) and not is_bool:
            raise PromQLError("comparisons between scalars must use BOOL modifier")
        return VECTOR if VECTOR in (left, right) else SCALAR

    def unary(self) -> str:
        if self.peek() in (("op", "-"), ("op", "+")):
            self.take()
            t = self.unary()
            if t not in (SCALAR, VECTOR):
                raise PromQLError(f"unary expression only allowed on expressions of type scalar or instant "
                                  f"vector, got {t}")
            return t
        return self.postfix(self.primary())

    def postfix(self, t: str) -> str:
        if self.peek()[1] == "offset":
            self.take()
            self.take(kind="duration")
        if self.peek()[1] == "@":
            raise PromQLError("the @ modifier is not supported here")
        return t

    def primary(self) -> str:
        kind, value = self.peek()
        if kind == "number" or (kind == "ident" and value.lower() in ("inf", "nan")):
            self.take()
            return SCALAR
        if kind == "duration":
            raise PromQLError(f"unexpected duration {value!r}")
        if kind == "string":
            self.take()
            return STRING
        if value == "(":
            self.take()
            t = self.expr()
            self.take(")")
            return self.range_suffix(t, paren=True)
        if value == "{":
            return self.range_suffix(self.selector(None), paren=False)
        if kind == "ident":
            if value in AGGREGATIONS:
                return self.aggregation()
            if self.peek(1)[1] == "(":
                return self.call()
            if value in KEYWORDS:
                raise PromQLError(f"unexpected keyword {value!r}")
            self.take()
            return self.range_suffix(self.selector(value), paren=False)
        raise PromQLError(f"unexpected {value or 'end of input'!r}")

    def range_suffix(self, t: str, paren: bool) -> str:
        if self.peek()[1] != "[":
            return t
        self.take("[")
        if paren or t != VECTOR:
            raise PromQLError("ranges only allowed for vector selectors (subqueries are not supported here)")
        _duration(self.take(kind="duration"))
        self.take("]")  # `[5m:1m]`, a subquery, stops here: `:1m` is read as a name
        return MATRIX

    def selector(self, name: str | None) -> str:
        matchers: list[tuple[str, str, str]] = []
        if self.peek()[1] == "{":
            self.take("{")
            while self.peek()[1] != "}":
                label = self.take(kind="ident")
                if not LABEL.fullmatch(label):
                    raise PromQLError(f"invalid label name {label!r}")
                op = self.take(kind="op")
                if op not in ("=", "!=", "=~", "!~"):
                    raise PromQLError(f"unexpected {op!r} in label matching, expected one of = != =~ !~")
                value = _unquote(self.take(kind="string"))
                if op in ("=~", "!~"):
                    try:
                        re.compile(value)
                    except re.error as exc:
                        raise PromQLError(f"invalid regular expression {value!r}: {exc}") from None
                matchers.append((label, op, value))
                self.separator("}")
            self.take("}")
        def non_empty(op: str, value: str) -> bool:
            return (op == "=" and value != "") or (op == "=~" and re.fullmatch(value, "") is None)
        if name is None and not any(non_empty(op, value) for _, op, value in matchers):
            raise PromQLError("vector selector must contain at least one non-empty matcher")
        if name is not None and name in KEYWORDS:
            raise PromQLError(f"unexpected keyword {name!r}")
        return VECTOR

    def labels(self) -> list[str]:
        self.take("(")
        names = []
        while self.peek()[1] != ")":
            label = self.take(kind="ident")
            if not LABEL.fullmatch(label):
                raise PromQLError(f"invalid label name {label!r} in grouping")
            names.append(label)
            self.separator(")")
        self.take(")")
        return names

    def aggregation(self) -> str:
        name = self.take()
        grouped = False
        if self.peek()[1] in ("by", "without"):
            self.take()
            self.labels()
            grouped = True
        self.take("(")
        param = AGGREGATIONS[name]
        if param is not None:
            t = self.expr()
            if t != param:
                raise PromQLError(f"expected type {param} in aggregation parameter of {name}, got {t}")
            self.take(",")
        t = self.expr()
        if t != VECTOR:
            raise PromQLError(f"expected type instant vector in aggregation expression of {name}, got {t}")
        self.take(")")
        if self.peek()[1] in ("by", "without"):
            if grouped:
                raise PromQLError(f"{name} has two grouping clauses")
            self.take()
            self.labels()
        return VECTOR

    def call(self) -> str:
        name = self.take()
        if name not in FUNCTIONS:
            raise PromQLError(f"unknown function with name {name!r}")
        types, optional, result = FUNCTIONS[name]
        self.take("(")
        args = []
        while self.peek()[1] != ")":
            args.append(self.expr())
            self.separator(")")
        self.take(")")
        if not len(types) - optional <= len(args) <= len(types):
            raise PromQLError(f"expected {len(types)} argument(s) in call to {name!r}, got {len(args)}")
        for want, got in zip(types, args):
            if want != got:
                raise PromQLError(f"expected type {want} in call to function {name!r}, got {got}")
        return result


def parse(text: str) -> str:
    """The type of a PromQL expression; PromQLError when it is not one."""
    if not isinstance(text, str) or not text.strip():
        raise PromQLError("no expression")
    p = _Parser(text)
    t = p.expr()
    if p.peek()[0] != "eof":
        raise PromQLError(f"unexpected {p.peek()[1]!r} after the expression")
    return t


def check_rule(text: str) -> str:
    """A rule's `expr`: well-formed and evaluating to a scalar or an instant vector."""
    t = parse(text)
    if t not in (SCALAR, VECTOR):
        raise PromQLError(f"a rule's expression must be a scalar or an instant vector, got {t}")
    return t
