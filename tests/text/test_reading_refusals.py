"""What kubectl, kustomize and kpt refuse, or read apart from libyaml, the function refuses or warns about:
`---` lines kubectl's document splitter takes apart otherwise, an escaped slash go-yaml has no escape for,
a second merge key, and a file that ends inside a block scalar (tests/e2e/test_e2e_kubectl_reading.py holds
the same against the real kubectl and kustomize)."""
from __future__ import annotations

import pytest

from krm_fn.text import reader
from runner import run

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"


@pytest.mark.parametrize("text", [
    "--- &root\n" + CM.format("a"),
    "--- !!map\n" + CM.format("a"),
    CM.format("a") + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
    CM.format("a") + "--- |\n  text\n",
], ids=["anchor", "tag", "flow", "block"])
def test_text_after_the_separator_is_refused(text: str) -> None:
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert "text after `---` on its line: kubectl refuses the file" in r.err and "[SD001]" in r.err, r.err


@pytest.mark.parametrize("text, line", [
    (CM.format("a") + "---b: c\n", 5),                      # a key to libyaml, a separator to kubectl
    (CM.format("a") + 'data:\n  k: "x\n---y"\n', 7),          # inside a quoted string
    (CM.format("a") + "data: {k: v,\n---x: y}\n", 6),         # inside a flow mapping
], ids=["key", "quoted", "flow"])
def test_a_line_starting_with_three_dashes_is_read_as_kubectl_splits(text: str, line: int) -> None:
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: text after `---` on its line" in r.err, r.err


def test_a_byte_order_mark_before_the_separator_is_refused() -> None:
    r = run(["render", "-"], CM.format("a") + "\ufeff---\n" + CM.format("b"))
    assert (r.code, r.out) == (1, ""), r.err
    assert "<stdin>:5: [error] input is not valid YAML: a byte-order mark before `---`" in r.err, r.err


@pytest.mark.parametrize("text", [
    "--- # the first\n" + CM.format("a") + "---   \n" + CM.format("b"),
    CM.format("a") + "---\t\n" + CM.format("b"),
    CM.format("a") + "---\n\ufeff" + CM.format("b"),  # a mark at the start of the document is read
    ("---\n" + CM.format("a") + "---\n" + CM.format("b")).replace("\n", "\r\n"),
], ids=["comment", "tab", "bom after", "crlf"])
def test_a_separator_with_a_comment_or_crlf_is_read(text: str) -> None:
    r = run(["render", "-"], text)
    assert r.code == 0, r.err
    assert [d["metadata"]["name"] for d in r.docs] == ["a", "b"]


@pytest.mark.parametrize("brk", ["\r", "\x85", "\u2028", "\u2029"], ids=["cr", "nel", "ls", "ps"])
def test_a_separator_after_an_odd_line_break_is_refused(brk: str) -> None:
    """kubectl, kustomize and kpt split at `---` lines after a line feed only: the second object is part of
    the first document to them (and lost), or the file is refused."""
    r = run(["render", "-"], CM.format("a").rstrip("\n") + brk + "---\n" + CM.format("b"))
    assert (r.code, r.out) == (1, ""), r.err
    assert "a `---` next to a bare CR, NEL, LS or PS line break" in r.err and "(line 5, column 1)" in r.err


@pytest.mark.parametrize("value, refused", [
    (r'"http:\/\/example.com"', True),
    (r'"a\\/b"', False),          # an escaped backslash, then a slash
    (r'"a\\\/b"', True),
    (r"'a\/b'", False),           # no escapes in single quotes
    (r"a\/b", False),             # nor in a plain scalar
])
def test_an_escaped_slash_is_refused(value: str, refused: bool) -> None:
    r = run(["render", "-"], CM.format("a") + f"data:\n  url: {value}\n")
    if refused:
        assert (r.code, r.out) == (1, ""), r.err
        assert "in a double-quoted string: go-yaml (kubectl, kustomize, kpt) has no such escape" in r.err
        assert "(line 6, column 8)" in r.err, r.err
    else:
        assert r.code == 0, r.err


def test_a_second_merge_key_is_a_key_given_twice() -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
            "    <<: {x: \"1\"}\n    <<: {x: \"2\"}\n")
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert "the key << appears twice (line 6 and line 7); kustomize and kpt refuse such a document, and kubectl " \
           "reads it otherwise: keep one << (it takes a list of mappings to merge) [SD004]" in r.err, r.err


@pytest.mark.parametrize("key", ['"<<"', "'<<'", "!!str <<", "!foo <<"])
def test_a_key_kubectl_reads_as_a_key_named_merge_and_kustomize_drops_is_refused(key: str) -> None:
    # A Workspace: an object the function reads (an untouched ConfigMap passes through as it came).
    text = ("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: ws\nx: &b {p: \"1\"}\nresource:\n"
            "  " + key + ": *b\n  instanceType: Standard_NC24ads_A100_v4\ninference:\n  preset:\n    name: phi-4\n")
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert "the key << quoted or tagged (line 7): kubectl reads a key named <<, kustomize and kpt drop it; write a " \
           "plain << to merge, or name the key otherwise [SD009]" in r.err, r.err


@pytest.mark.parametrize("tail, warned", [
    ("  x: |\n    hello", True),
    ("  x: >\n    hello", True),
    ("  x: |2\n    hello", True),
    ("  x: |+\n    hello\n\n  ", True),   # kubectl counts the unterminated blank line as one more
    ("  x: |\n    hello\n  ", False),     # clip: one final line break for every reader
    ("  x: |-\n    hello", False),
    ("  x: |\n    hello\n", False),
    ("  x: hello", False),
])
def test_a_file_ending_inside_a_block_scalar_is_warned_about(tmp_path, tail: str, warned: bool) -> None:
    (tmp_path / "a.yaml").write_text(CM.format("a") + "data:\n" + tail)
    r = run(["render", str(tmp_path / "a.yaml")])
    assert r.code == 0, r.err
    said = f"{tmp_path / 'a.yaml'}:6: [warning] v1/ConfigMap/a data.x: the file ends in this block scalar without " \
           "a line break: kubectl reads its value with one more final line break than kustomize, kpt and the " \
           "output do; end the file with a line break [SD012]"
    assert (said in r.err) == warned, r.err


def test_an_anchor_given_again_names_the_later_node() -> None:
    """YAML 1.2 and go-yaml (kubectl, kustomize, kpt) let an anchor be given again: an alias names the latest
    node of that name. PyYAML's composer refused the file."""
    text = CM.format("a") + "data:\n  a: &v one\n  b: *v\n  c: &v two\n  d: *v\n"
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (0, "---\n" + text), r.err  # read, and written as it came
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.data()["data"] == {"a": "one", "b": "one", "c": "two", "d": "two"}
    krm = run([], "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "
              + (CM.format("a") + "data:\n  a: &v one\n  b: *v\n  c: &v two\n  d: *v\n").replace("\n", "\n  "))
    assert krm.code == 0, krm.err


def test_an_escaped_single_quote_is_refused_in_words_that_say_why() -> None:
    """go-yaml reads `\\'` as `'`; libyaml, which the function reads with, refuses it: the message says so."""
    r = run(["render", "-"], CM.format("a") + "data:\n  k: \"it\\'s\"\n")
    assert (r.code, r.out) == (1, ""), r.err
    assert "an escaped quote \\' in a double-quoted string, which kubectl, kustomize and kpt read as ' but " \
           "libyaml (which kaito-specdec reads with) refuses; write ' without the backslash (line 6, column 9)" \
           in r.err, r.err
