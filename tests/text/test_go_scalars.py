"""Plain scalars read as go-yaml v2 reads them (kubectl, Argo CD, sigs.k8s.io/yaml): krm_fn/text/go_scalars.py's
`go_resolve`, `scalar_tag` and `go_scalar`, against go-yaml's own tests (v2.4.0 decode_test.go: the "from spec"
cases, bug 1243827, explicit tags) and what kubectl v1.32 read of each of the rest (`kubectl label --local -f
FILE x=y -o json`; tests/e2e/test_e2e_kubectl_reading.py holds the function to kubectl itself).
"""
from __future__ import annotations

import math
from typing import Any

import pytest
import yaml

from krm_fn.text import go_scalars, reader, yamlio

# (plain scalar, what go-yaml v2 decodes it to in an interface{})
GO_YAML_TESTS: list[tuple[str, Any]] = [
    ("hi", "hi"), ("true", True), ("10", 10), ("0b10", 2), ("0xA", 10), ("4294967296", 4294967296), ("0.1", 0.1),
    (".1", 0.1), (".Inf", math.inf), ("-.Inf", -math.inf), ("-10", -10), ("-.1", -0.1),
    ("6.8523e+5", 6.8523e+5), ("685.230_15e+03", 685.23015e+03), ("685_230.15", 685230.15), ("-.inf", -math.inf),
    ("y", True), ("NO", False), ("True", True), ("on", True),
    ("685230", 685230), ("+685_230", 685230), ("02472256", 685230), ("0x_0A_74_AE", 685230),
    ("0b1010_0111_0100_1010_1110", 685230), ("-0b101010", -42),
    ("-0b1000000000000000000000000000000000000000000000000000000000000000", -9223372036854775808),
    ("", None), ("~", None), ("null", None),
    ("-b_c", "-b_c"), ("+b_c", "+b_c"), ("50cent_of_dollar", "50cent_of_dollar"),
    ("2015-01-01", "2015-01-01"),
]
# Each as kubectl read it (floats that are whole come back from its JSON as whole numbers: Go decoded a float64).
KUBECTL: list[tuple[str, Any]] = [
    # numbers PyYAML's YAML 1.1 resolver leaves strings
    ("1e3", 1000.0), ("+1e3", 1000.0), ("1e+3", 1000.0), ("1E3", 1000.0), ("1_000e1", 10000.0), ("1.e3", 1000.0),
    ("0o17", 15), ("0O17", 15), ("0X1F", 31), ("0x1f", 31), ("0B11", 3), ("0b11", 3), ("+0x1F", 31), ("-0x1F", -31),
    ("0x_1F", 31), ("0_x1F", 31), ("0b-1", -1), ("0b+1", 1), ("-0b1", -1), ("1e3_", 1000.0), ("1_", 1), ("+_1", 1),
    ("1__0", 10), ("0b1_0", 2), (".1_0", 0.1), (".5e3", 500.0), ("+.5", 0.5), ("-.5", -0.5), ("1.", 1.0),
    ("0e0", 0.0), ("-1.5E+2", -150.0), ("1.5e-3", 0.0015), ("1e-400", 0.0),
    # a leading 0 is octal where the digits allow, else a float (yamlStyleFloat)
    ("017", 15), ("-017", -15), ("0777", 511), ("00", 0), ("0", 0), ("-0", 0), ("+0", 0), ("08", 8.0), ("09", 9.0),
    ("0888", 888.0),
    # past int64: uint64, then a float; a prefixed literal past uint64 stays a string, as does a float's overflow
    ("9223372036854775807", 9223372036854775807), ("-9223372036854775808", -9223372036854775808),
    ("9223372036854775808", 9223372036854775808), ("18446744073709551615", 18446744073709551615),
    ("18446744073709551616", 18446744073709551616.0), ("-9223372036854775809", -9223372036854775809.0),
    ("+9223372036854775808", 9223372036854775808.0), ("0xFFFFFFFFFFFFFFFF", 18446744073709551615),
    ("0x10000000000000000", "0x10000000000000000"), ("1e400", "1e400"), ("9" * 400, "9" * 400),
    # strings to go-yaml, something else to PyYAML
    ("1:20", "1:20"), ("12:30:00", "12:30:00"), ("=", "="), ("<<", "<<"),
    # strings to both
    ("0x", "0x"), ("0o", "0o"), ("0b", "0b"), ("0o-7", "0o-7"), (".", "."), ("_1", "_1"), ("1,000", "1,000"),
    ("1e", "1e"), ("e3", "e3"), ("+", "+"), (".e3", ".e3"), ("0x1p3", "0x1p3"), ("1i", "1i"), (".Nan", ".Nan"),
    ("+.nan", "+.nan"), ("tRue", "tRue"), ("\u0661", "\u0661"), ("2024-1-1", "2024-1-1"),
    ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"),
    # words
    ("Y", True), ("n", False), ("N", False), ("yes", True), ("off", False), ("TRUE", True), ("Null", None),
    ("NULL", None), (".nan", math.nan), ("+.INF", math.inf),
]


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize(("text", "want"), GO_YAML_TESTS + KUBECTL, ids=repr)
def test_a_plain_scalar_reads_as_go_yaml_reads_it(text: str, want: Any) -> None:
    tag, value = go_scalars.go_resolve(text)
    if tag == go_scalars.TIMESTAMP_TAG:
        assert value == text == want  # decoded into an interface{}: the text
        return
    assert _same(value, want), (text, tag, value)
    # read in a document: composed (compose_events), and loaded by libyaml's own composer (`load`'s fast path)
    doc = f"v: {text}\n"
    assert _same(yamlio.construct(yamlio.compose(doc))["v"], want)
    assert _same(yamlio.load(doc)["v"], want)
    # what go-yaml reads as anything but this string, the output quotes (ambiguous: a superset)
    if not _same(want, text):
        assert go_scalars.ambiguous(text), text


@pytest.mark.parametrize(("text", "want"), [
    ("!!int '0o17'", 15), ('!!int "0x1F"', 31), ("!!int 017", 15), ("!!float '1.1'", 1.1), ("!!float 0", 0.0),
    ("!!float -1", -1.0), ("!!float 1e3", 1000.0), ("!!null ''", None), ("!!bool y", True), ("!!bool 'off'", False),
    ("!!str 1e3", "1e3"), ("! 1e3", "1e3"), ("!foo 1e3", "1e3"), ("!foo true", "true"), ("!!set x", "x"),
    ("!!merge x", "x"), ("! <<", "<<"), ("'<<'", "<<"),
], ids=repr)
def test_a_tagged_scalar_reads_as_go_yaml_reads_it(text: str, want: Any) -> None:
    """An explicit tag: resolved as a plain scalar must resolve to it (an int where a float is asked for
    becomes one); a tag go-yaml does not know leaves the text a string, as `!` does."""
    assert _same(yamlio.construct(yamlio.compose(f"v: {text}\n"))["v"], want)


@pytest.mark.parametrize("text", ["!!int 1e3", "!!int 08", "!!int ''", "!!bool 6", "!!float 18446744073709551615",
                                  "!!null x", "!!int " + "9" * 400, "!!timestamp 'true'"], ids=repr)
def test_a_tagged_scalar_go_yaml_refuses_is_refused(text: str) -> None:
    with pytest.raises(yaml.YAMLError, match="cannot decode"):
        yamlio.construct(yamlio.compose(f"v: {text}\n"))


@pytest.mark.parametrize(("key", "merged"), [
    ("<<", True), ("! <<", True), ("!!merge <<", True), ('!!merge "<<"', True), ("&a <<", True),
])
def test_a_merge_key_is_the_one_both_go_yaml_versions_merge(key: str, merged: bool) -> None:
    data = yamlio.construct(yamlio.compose(f"a: 1\n{key}: {{k: v}}\n"))
    assert data == ({"a": 1, "k": "v"} if merged else {"a": 1, "<<": {"k": "v"}})


@pytest.mark.parametrize("key", ['"<<"', "'<<'", "!!str <<", "!foo <<"])
def test_a_key_named_merge_kubectl_keeps_and_kustomize_drops_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match="^the key << quoted or tagged \\(line 2\\): kubectl reads a key named <<"):
        yamlio.construct(yamlio.compose(f"a: 1\n{key}: {{k: v}}\n"))


@pytest.mark.parametrize(("key", "words"), [
    ("!!merge x", "the key 'x' tagged `!!merge` (line 2): kubectl reads the key 'x', kustomize merges its value"),
    ('! "<<"', "the key `<<` tagged `!` and quoted (line 2): kubectl merges its value, kustomize drops the key"),
    ("! '<<'", "the key `<<` tagged `!` and quoted (line 2)"),
])
def test_a_key_kubectl_and_kustomize_merge_apart_is_refused(key: str, words: str) -> None:
    with pytest.raises(ValueError, match="^" + words.replace("(", r"\(").replace(")", r"\)")):
        yamlio.construct(yamlio.compose(f"a: 1\n{key}: {{k: v}}\n"))


def test_the_walker_reads_identity_and_annotations_as_go_yaml_does() -> None:
    """What the event walk reads of an item before composing it: its scalars as go_scalars.scalar_tag reads them."""
    text = ("apiVersion: v1\nkind: !foo ConfigMap\nmetadata:\n  name: 1e3\n  namespace: =\n  annotations:\n"
            "    a: 1:20\n    b: 0o17\n    c: <<\n    d: !foo true\n    !foo e: y\n")
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert (item.kind, item.name, item.namespace) == ("ConfigMap", "", "=")
    assert item.ann == {"a": "1:20", "c": "<<", "d": "true"}
    assert item.ann_keys == ["a", "b", "c", "d", "e"]


def test_a_document_of_one_null_is_nothing_and_one_of_a_string_is_an_item() -> None:
    (item,) = reader.read_stream([("m.yaml", b"---\n~\n---\n=\n---\nNULL\n")]).items
    assert item.region.strip() == "="
