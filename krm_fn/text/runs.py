"""Where two sequences (strings or lists) differ: the editor and the plain-workload planner both change one
run of a value and keep the rest, so both find that run the same way."""

from collections.abc import Sequence
from typing import Any


def common_ends(old: Sequence[Any], new: Sequence[Any]) -> tuple[int, int]:
    """(head, tail): how many leading and trailing elements `old` and `new` share, never overlapping."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail
