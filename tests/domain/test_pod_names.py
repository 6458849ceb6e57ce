"""pod_names: patterns of pod names as Kubernetes makes them, their RE2 text, their cut, and whether two meet."""
from __future__ import annotations

import re

import pytest

from krm_fn.domain.pod_names import (DIGITS, HASH, RANDOM, chars, concat, controller_pods, cut, generated,
    indexed_job_pods, literal, meet, ordinal, regex, replicaset_of, union)

R5 = f"[{RANDOM}]{{5}}"


@pytest.mark.parametrize("names, text", [
    (literal("a.b"), r"a\.b"),
    (concat(literal("s-"), ordinal()), "s-[0-9]+"),
    (generated(literal("llama-")), f"llama-{R5}"),
    (controller_pods(replicaset_of(literal("d"))), f"d-[{HASH}]{{1,10}}-{R5}"),
    # Common ends written once; an alternative that is empty makes the group optional.
    (union(concat(literal("m-prefill-"), ordinal()), concat(literal("m-decode-"), ordinal())), "m-(prefill|decode)-[0-9]+"),
    (union(concat(literal("l-"), ordinal()), concat(literal("l-"), ordinal(), literal("-"), ordinal())), "l-[0-9]+(-[0-9]+)?"),
    (chars(DIGITS, 8, 8), "[0-9]{8}"),
    (chars(DIGITS, 2, None), "[0-9]{2,}"),
])
def test_regex(names, text: str) -> None:
    assert regex(names) == text
    re.compile(text)


def test_generate_name_cuts_the_base_to_58_characters() -> None:
    long = "x" * 70
    assert regex(generated(literal(long))) == "x" * 58 + R5
    # The cut falls inside the hash of a Deployment's ReplicaSet: the shorter hashes keep their dash.
    pattern = regex(controller_pods(replicaset_of(literal("d" * 54))))
    assert pattern == "d" * 54 + f"-([{HASH}]{{1,2}}-|[{HASH}]{{3}}){R5}"
    for name, ok in (("d" * 54 + "-4-bcdfg", True), ("d" * 54 + "-45-bcdfg", True), ("d" * 54 + "-456bcdfg", True),
                     ("d" * 54 + "-456-bcdfg", False), ("d" * 54 + "-4567bcdfg", False)):
        assert bool(re.fullmatch(pattern, name)) is ok, name


def test_an_indexed_job_keeps_its_index() -> None:
    pattern = regex(indexed_job_pods(literal("j" * 60)))
    assert re.fullmatch(pattern, "j" * 55 + "-1-bcdfg")
    assert re.fullmatch(pattern, "j" * 46 + "-1234567890-bcdfg")
    assert not re.fullmatch(pattern, "j" * 56 + "-1-bcdfg")


def test_cut_counts_unbounded_runs() -> None:
    assert regex(cut(concat(literal("ab"), ordinal()), 4)) == "ab[0-9]{1,2}"
    assert regex(cut(literal("abcdef"), 3)) == "abc"


@pytest.mark.parametrize("a, b, met", [
    (generated(literal("llama-")), literal("llama-guard"), False),       # vowels are not GenerateName's
    (generated(literal("llama-")), literal("llama-bcdfg"), True),
    (concat(literal("s-"), ordinal()), concat(literal("s-"), ordinal(), literal("-"), ordinal()), False),
    (concat(literal("s-"), ordinal()), literal("s-"), False),             # an ordinal has a digit at least
    (concat(literal("a-"), chars(HASH, 1, 10), literal("-"), chars(RANDOM, 5, 5)), literal("a-bcd-x2x4z"), True),
    (chars(HASH, 1, 10), chars(DIGITS, 1, None), True),                  # 4-9 are both
    (chars(HASH, 1, 10), literal("0"), False),
    (chars(DIGITS, 1, None), chars(DIGITS, 12, 12), True),
    (chars(DIGITS, 0, 3), literal(""), True),
])
def test_meet(a, b, met: bool) -> None:
    assert meet(a, b) is met
    assert meet(b, a) is met
