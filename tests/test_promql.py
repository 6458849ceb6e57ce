"""The PromQL grammar check (tests/promql.py) accepts PromQL and rejects what Prometheus' parser rejects."""
from __future__ import annotations

import pytest

from promql import MATRIX, SCALAR, STRING, VECTOR, PromQLError, check_rule, parse

ACCEPTED = [
    ("1", SCALAR),
    ("-1.5e3", SCALAR),
    ("0x1f", SCALAR),
    ("Inf", SCALAR),
    ('"text"', STRING),
    ("up", VECTOR),
    ("vllm:spec_decode_num_drafts_total", VECTOR),
    ('vllm:spec_decode_num_drafts_total{namespace="a",pod=~"ws-[0-9]+"}', VECTOR),
    ('up{job!="x",instance!~"a|b",}', VECTOR),               # a trailing comma is allowed
    ('{__name__="up"}', VECTOR),
    ("up[5m]", MATRIX),
    ("up[1h30m]", MATRIX),
    ("up offset 1h", VECTOR),
    ("rate(up[5m])", VECTOR),
    ("sum(rate(up[5m]))", VECTOR),
    ("sum by (namespace) (rate(up[5m]))", VECTOR),
    ("sum(rate(up[5m])) by (namespace, pod)", VECTOR),
    ("sum without (pod) (up)", VECTOR),
    ("topk(3, up)", VECTOR),
    ('count_values("v", up)', VECTOR),
    ("histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))", VECTOR),
    ("round(up)", VECTOR),
    ("round(up, 0.5)", VECTOR),
    ("time()", SCALAR),
    ("scalar(up)", SCALAR),
    ("1 + 2 * 3 ^ 2 ^ 2", SCALAR),
    ("1 == bool 2", SCALAR),
    ("a / b", VECTOR),
    ("1 + a / b", VECTOR),
    ("a > 0.3", VECTOR),
    ("a == bool b", VECTOR),
    ("a and b or c unless d", VECTOR),
    ("a / on (namespace) b", VECTOR),
    ("a * ignoring (pod) group_left (team) b", VECTOR),
    ("-a", VECTOR),
    ("(a)", VECTOR),
    ('label_replace(up, "dst", "$1", "src", "(.*)")', VECTOR),
    ("absent(up) # a comment", VECTOR),
    ("a atan2 b", VECTOR),
]


@pytest.mark.parametrize("text,kind", ACCEPTED)
def test_accepts(text: str, kind: str) -> None:
    assert parse(text) == kind


REJECTED = [
    ("", "no expression"),
    ("rate(up)", "expected type matrix in call to function 'rate', got vector"),
    ("sum(up[5m])", "expected type instant vector in aggregation expression of sum, got matrix"),
    ("up[5m] + 1", "binary expression must contain only scalar and instant vector types, found matrix around '+'"),
    ("rate(up[5m]", "expected , or ), found 'end of input'"),
    ("sum(rate(up[5m])))", "unexpected ')' after the expression"),
    ("up{job=\"x\"", "expected , or }, found 'end of input'"),
    ("up{job=x}", "expected string, found 'x'"),
    ("up{job==\"x\"}", "unexpected '==' in label matching, expected one of = != =~ !~"),
    ('up{a:b="x"}', "invalid label name 'a:b'"),
    ('up{a=~"("}', "invalid regular expression '(': missing ), unterminated subpattern at position 0"),
    ("{}", "vector selector must contain at least one non-empty matcher"),
    ('{a=~".*"}', "vector selector must contain at least one non-empty matcher"),
    ("up[5]", "expected duration, found '5'"),
    ("up[0s]", "duration '0s' must be greater than 0"),
    ("up[5m1h]", "bad duration '5m1h': units must be given once each, largest first"),
    ("up[5m:1m]", "expected ], found ':1m'"),
    ("(up)[5m]", "ranges only allowed for vector selectors (subqueries are not supported here)"),
    ("nope(up)", "unknown function with name 'nope'"),
    ("rate(up[5m], 1)", "expected 1 argument(s) in call to 'rate', got 2"),
    ("clamp(up, 1)", "expected 3 argument(s) in call to 'clamp', got 2"),
    ("topk(up)", "expected type scalar in aggregation parameter of topk, got vector"),
    ("sum by (a b) (up)", "expected , or ), found 'b'"),
    ("sum by (a) (up) by (b)", "sum has two grouping clauses"),
    ("1 > 2", "comparisons between scalars must use BOOL modifier"),
    ("1 and 2", "set operator 'and' not allowed in binary scalar expression"),
    ("a + bool b", "bool modifier on non-comparison operator '+'"),
    ("a and on (x) group_left b", "no grouping allowed for 'and'"),
    ("1 + on (x) a", "vector matching only allowed between instant vectors"),
    ("a +", "unexpected 'end of input'"),
    ("a = 1", "unexpected '=' after the expression"),
    ("a b", "unexpected 'b' after the expression"),
    ("5m", "unexpected duration '5m'"),
    ("up @ 100", "unexpected character '@' at 3"),
    ("-\"s\"", "unary expression only allowed on expressions of type scalar or instant vector, got string"),
    ("by", "unexpected keyword 'by'"),
]


@pytest.mark.parametrize("text,message", REJECTED)
def test_rejects(text: str, message: str) -> None:
    with pytest.raises(PromQLError) as exc:
        parse(text)
    assert str(exc.value) == message


@pytest.mark.parametrize("text", ["up[5m]", '"s"'])
def test_a_rule_evaluates_to_a_scalar_or_an_instant_vector(text: str) -> None:
    with pytest.raises(PromQLError, match="a rule's expression must be a scalar or an instant vector"):
        check_rule(text)
