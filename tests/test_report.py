"""Values in messages are quoted as Go's %q quotes them (KAITO's messages use %q)."""
from __future__ import annotations

import pytest

from krm_fn.report import goquote, q


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
