"""The promises of README "What it promises", checked on every fixture and on a few thousand seeded
mutations of them, in KRM mode and `render`, on both YAML backends (issue 10).

The oracle and the mutations are tests/fuzz.py (`python tests/fuzz.py` is the long pass). Everything here
is deterministic: fixed seeds, fixed counts. Mutation classes that still find a failure another branch is
fixing are listed in HELD_BACK with the issue's failure number; enable them when it lands.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

import fuzz
from backends import BACKENDS

# Mutation classes the seeded CI pass leaves out for now: issue 10's failure number and what it finds.
# tests/fuzz_findings.md has a tiny input for each.
HELD_BACK: dict[str, str] = {}
# Seeds left out of the CI pass for the same reason: (mode, fixture) -> failure.
HELD_BACK_SEEDS: dict[tuple[str, str], str] = {
    # Found when new fixtures shifted the seeded sequence (branch wire11); the same on `int` at 570e447.
    ("render", "findings-disable-warning"): "render loses a kustomization.yaml without kind (tests/fuzz_findings.md)",
    ("render", "kustomization-without-apiversion"): "render loses kind-less kustomization files once swapped (the same)",
    ("render", "fidelity-kpt-passthrough"): "big-int: render loses a Kustomization (tests/fuzz_findings.md)",
    ("krm", "disable-reverts"): "anchor-alias: a second run changes the output (tests/fuzz_findings.md)",
    ("render", "kpt-two-namespaces-one-folder"): "deep: an orchestrator annotation left on (tests/fuzz_findings.md)",
    # Reached once the plain-* fixtures shifted the sequence (branch plainwire); the same on main at c0dec32.
    ("render", "monitoring-one-namespace"): "wrong-type-tree: render leaves an orchestrator annotation whose value is a mapping (internal.config.kubernetes.io/path: {a: b}) on a Workspace",
}
CI_CLASSES = [c for c in fuzz.MUTATIONS if c not in HELD_BACK]
# 4 chunks x 500 inputs, each input in one mode on one backend (alternating), each checked with a second
# run for the fixpoint: about 30 s of CPU on the project's 2-core machine.
CHUNKS, PER_CHUNK = 4, 500
# The whole test process, fuzzing included, stays under this resident size (a bomb expanded in memory,
# or a leak across runs, would not).
MAX_RSS_KIB = 1536 * 1024


def _seeds(mode: str) -> list[fuzz.Seed]:
    return [s for s in fuzz.seeds() if s.mode == mode and (s.mode, s.name) not in HELD_BACK_SEEDS]


def test_held_back_classes_exist() -> None:
    assert set(HELD_BACK) <= set(fuzz.MUTATIONS)
    assert len(CI_CLASSES) >= 12, CI_CLASSES


@pytest.mark.parametrize("mode", ["krm", "render"])
def test_every_fixture_keeps_the_promises(mode: str, backend: str) -> None:
    broken = [f"{s.name}: {'; '.join(v)}" for s in _seeds(mode) if (v := fuzz.violations(mode, s.data, s.env))]
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_mutations_keep_the_promises(chunk: int) -> None:
    found = fuzz.fuzz(PER_CHUNK, seed=1000 + chunk, classes=CI_CLASSES, modes=["krm", "render"],
                      backends=BACKENDS, skip=frozenset(HELD_BACK_SEEDS))
    assert not found, "\n".join(f.line() + "\n  input: " + repr(f.data[:400]) for f in found[:10])
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MAX_RSS_KIB


# Fixtures that between them hold every kind, every reference path and the functionConfig.
WRONG_TYPE_SEEDS = ["quickstart-workspace", "quickstart-inferenceset", "quickstart-multiroleinference",
                    "cascade-multiroleinference", "derived-regenerated", "fnconfig-policy",
                    "kustomize-previous-names"]


@pytest.mark.parametrize("case", WRONG_TYPE_SEEDS)
def test_wrong_type_at_every_read_field(case: str) -> None:
    """Every field the function reads, in every document of the fixture, set to a list, a number and null
    in turn (about 600 inputs in all; KRM mode, the backends alternating): the promises hold for each."""
    import itertools
    from krm_fn import yamlio
    seed = next(s for s in fuzz.seeds() if s.mode == "krm" and s.name == case)
    variants = fuzz.wrong_type_variants(seed.data, ([], 12, None))
    assert len(variants) > 20, len(variants)
    before = yamlio.backend()
    broken = []
    try:
        for (where, data), backend in zip(variants, itertools.cycle(BACKENDS)):
            yamlio.set_backend(backend)
            problems = fuzz.violations("krm", data, seed.env)
            if problems:
                broken.append(f"{where} [{backend}]: {'; '.join(problems)}")
    finally:
        yamlio.set_backend(before)
    assert not broken, "\n".join(broken[:20])


def test_the_oracle_sees_broken_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: a function that lost an item, changed an untargeted one, or wrote one twice."""
    seed = next(s for s in _seeds("krm") if s.name == "derived-used-elsewhere")
    real = fuzz.run

    def tampered(edit):
        def run(mode, data, env=None, limit=fuzz.TIME_LIMIT):
            r = real(mode, data, env, limit)
            return fuzz.Run(r.code, edit(r.out), r.err, r.seconds)
        return run

    cases = {
        "lost": lambda out: out.replace("- apiVersion: apps/v1\n  kind: Deployment", "- apiVersion: apps/v1\n"
                                        "  kind: Deleted"),
        "changed": lambda out: out.replace("busybox:1.36", "busybox:1.37"),
        "duplicate": lambda out: out.replace("items:\n", "items:\n- {apiVersion: apps/v1, kind: Deployment, "
                                             "metadata: {name: config-audit}}\n", 1),
        "output": lambda out: out + "\t- [\n",
        "bytes": lambda out: out.replace("mountPath: /cfg}]", "mountPath: \"/cfg\"}]"),
    }
    for word, edit in cases.items():
        monkeypatch.setattr(fuzz, "run", tampered(edit))
        problems = fuzz.violations("krm", seed.data, seed.env)
        assert any(p.startswith(word) for p in problems), (word, problems)


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (fuzz.MEMORY_LIMIT, fuzz.MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


# Real processes: a fixture, hostile input the function already handles, and mutants, under limits.
_HOSTILE_KRM = [
    ("untouched-alias-bomb", b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
     b"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: bomb}\n  data:\n    a: &a [x, x, x, x, x, x, x, x]\n"
      + "".join(f"    {c}: &{c} [{', '.join(['*' + p] * 8)}]\n" for p, c in zip("abcdefg", "bcdefgh")).encode()),
    ("nesting-200", b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n"
     b"  kind: Service\n  metadata: {name: s}\n  spec: " + b"[" * 200 + b"]" * 200 + b"\n"),
    ("not-utf8", b"\xff\xfe\x00"),
    ("empty", b""),
]


def _subprocess_cases() -> list[tuple[str, str, bytes]]:
    import random
    rng = random.Random(7)
    cases = [("krm", name, data) for name, data in _HOSTILE_KRM]
    pool = [s for s in fuzz.seeds() if (s.mode, s.name) not in HELD_BACK_SEEDS]
    for s in rng.sample(pool, 4):
        data, chosen = fuzz.mutate(rng, s.data, CI_CLASSES)
        cases.append((s.mode, f"{s.name}+{'+'.join(chosen)}", data))
    return cases


@pytest.mark.parametrize("mode,name,data", _subprocess_cases(), ids=lambda x: x if isinstance(x, str) and
                         len(x) < 80 else None)
def test_real_process_under_limits(mode: str, name: str, data: bytes) -> None:
    argv = [sys.executable, "-m", "krm_fn"] + (["render", "-"] if mode == "render" else [])
    p = subprocess.run(argv, input=data, capture_output=True, timeout=120, preexec_fn=_limits,
                       env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode in (0, 1), (p.returncode, err[-500:])
    assert "Traceback" not in err and "internal error" not in err, err[-500:]
    if p.returncode == 1:
        assert "[error] " in err or "[warning] " in err, err
    if p.stdout:
        status, docs = fuzz.load_all(p.stdout.decode("utf-8"))
        assert status != fuzz.SYNTAX
        if mode == "krm" and status == "ok":
            assert len([d for d in docs if d is not None]) == 1

