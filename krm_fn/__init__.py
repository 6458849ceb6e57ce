"""kaito-specdec: KAITO speculative decoding at render time, as a KRM function.

The modules name typing's names (`Any`, …) only under `TYPE_CHECKING = False` / `if TYPE_CHECKING:`, for a
type checker: their hints are strings (`from __future__ import annotations`), and importing typing would cost
every run about 5 ms of a 45 ms start (tests/test_startup.py keeps it out).
"""

__version__ = "0.1.0"
