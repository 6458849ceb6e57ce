"""The differential fuzzer (tests/differential.py) in CI's deep pass: a few thousand inputs mutated from the
fixtures and tests/corpus/, each read by kubectl, by kustomize and by the function; any disagreement on an
object's identity, its opt-in or a field a check reads that the function neither refused nor warned about
fails, with its input. The seed is printed; it is differential.DEFAULT_SEED unless KAITO_SPECDEC_DIFF_SEED names
another (CI's run is the same every time: a red run is a change's, not the draw's); KAITO_SPECDEC_DIFF_N sets
its size (10,000 by default: about a minute here).

None is tolerated: each one it found was fixed (issue #40), with its own test."""
from __future__ import annotations

import os

import pytest

import differential
from e2e_support import require_tool


@pytest.mark.deep
def test_kubectl_kustomize_and_the_function_read_alike() -> None:
    kubectl = require_tool("kubectl", "kubectl and its kustomize are the readers the function is held to")
    seed = int(os.environ.get(differential.SEED_ENV) or differential.DEFAULT_SEED)
    n = int(os.environ.get(differential.N_ENV) or differential.DEFAULT_N)
    print(f"differential fuzz: seed {seed} ({differential.SEED_ENV}={seed} repeats it), {n} inputs")
    report = differential.run_cases(differential.inputs(seed, n), seed, kubectl)
    for failure in report.failures:
        print(failure.show(seed))
    print(f"{report.agreed} read alike, {report.refused_by_function} refused or warned about, "
          f"{len(report.failures)} failures")
    assert report.agreed + report.refused_by_function + len(report.failures) == n
    assert report.agreed > n // 10, "too few inputs read alike: the mutants say nothing"
    assert not report.failures, "\n".join(f.show(seed) for f in report.failures[:20])


def test_the_inputs_are_seeded() -> None:
    """The same seed gives the same inputs (a failure printed can be run again); another seed others."""
    a, b = differential.inputs(5, 40), differential.inputs(5, 40)
    assert [c.data for c in a] == [c.data for c in b]
    assert [c.data for c in a] != [c.data for c in differential.inputs(6, 40)]
    assert {m for c in differential.inputs(5, 400) for m in c.mutations} == set(differential.MUTATORS)
