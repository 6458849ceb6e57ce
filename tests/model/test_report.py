"""Values in messages are quoted as Go's %q quotes them (KAITO's messages use %q)."""
from __future__ import annotations

import pytest

from krm_fn.text.quoting import goquote, q


@pytest.mark.parametrize("text, want", [
    ("phi-4", '"phi-4"'),
    ("a\x01b", '"a\\x01b"'),
    ("\x7f", '"\\x7f"'),
    ("nb\u00a0sp", '"nb\\u00a0sp"'),
    ("zero\u200bwidth", '"zero\\u200bwidth"'),
    ('say "hi" \\ now', '"say \\"hi\\" \\\\ now"'),
    ("tab\tnl\n", '"tab\\tnl\\n"'),
    ("\x85", '"\\u0085"'),  # a C1 control: \u, as Go writes it
    ("é 😀", '"é 😀"'),  # printable stays
    ("\U000e0001", '"\\U000e0001"'),
])
def test_goquote(text, want):
    assert goquote(text) == want


def test_q_of_non_strings():
    assert q(None) == "null" and q(5) == "5"


@pytest.mark.parametrize("text, want", [
    ("kaito.sh/v1beta1/Workspace/ns/ws", "kaito.sh/v1beta1/Workspace/ns/ws"),
    ("ws\n[error] FORGED", "ws\\n[error] FORGED"),
    ("a\rb\tc\x1b[31m\x00\x7f", "a\\rb\\tc\\x1b[31m\\x00\\x7f"),
    ("nel\x85 ls\u2028 ps\u2029", "nel\\u0085 ls\\u2028 ps\\u2029"),
    ("rtl\u202eoverride", "rtl\\u202eoverride"),
    ('say "hi" \\ now é 😀', 'say "hi" \\ now é 😀'),  # quotes, backslashes and printable text stay
    ("caf\udce9.yaml", "caf\\xe9.yaml"),  # a file name's byte that is not UTF-8 (surrogateescape)
    ("lone\ud800", "lone\\ud800"),
])
def test_visible(text, want):
    """A stderr line is one line a terminal shows as it is: a name or path cannot forge another (issue 19)."""
    from krm_fn.text.quoting import visible
    assert visible(text) == want
    assert visible(text).isprintable()


def test_a_result_line_is_one_line_whatever_the_names_hold():
    from krm_fn.text.results import ResourceRef, Result, Severity
    r = Result(Severity.ERROR, "bad\nvalue", ResourceRef("v1", "ConfigMap", "n\n[error] FORGED", "ns\r"),
               field_path="data[a\nb]", file_path="dir\n[error] x.yaml", file_line=3, id="SD101")
    assert r.line() == ("dir\\n[error] x.yaml:3: [error] v1/ConfigMap/ns\\r/n\\n[error] FORGED data[a\\nb]: "
                        "bad\\nvalue [SD101]")
    assert r.to_krm()["resourceRef"]["name"] == "n\n[error] FORGED"  # the ResourceList keeps the data as it is
