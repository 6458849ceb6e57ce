"""KAITO's own example manifests (tests/corpus/kaito-examples: NOTICE names the upstream commit), written by
people who never saw this tool.

Without the annotation every file passes through byte for byte; with it, every workload gets the
decision SPEC.md section 4 prescribes, or the webhook's error where KAITO would refuse it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from golden import wrap
from runner import run

CORPUS = Path(__file__).resolve().parent / "corpus" / "kaito-examples"
FILES = sorted(CORPUS.rglob("*.yaml")) if CORPUS.is_dir() else []
ANNOTATION = "kaito.sh/enable-speculative-decoding"
# The corpus presets that are tuned (through the legacy alias table); every other one gets ngram.
TUNED_IN_CORPUS = {"deepseek-r1-0528", "deepseek-v3-0324"}
MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(CORPUS)) for p in paths]


def test_corpus_is_there() -> None:
    if not CORPUS.is_dir():
        pytest.fail(f"the corpus is missing ({CORPUS}): it is part of the repository")
    assert len(FILES) > 40
    # What the tests below really check, file by file (a file without a KAITO workload is in neither).
    assert len(DECIDED) >= 48 and len(REFUSED) >= 5, (len(DECIDED), len(REFUSED))


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_passes_through_byte_for_byte(path: Path) -> None:
    text = wrap(path.read_text(encoding="utf-8"))
    code, out, err = run([], text)
    assert code == 0, err
    assert out == text


def _enable(doc: dict) -> bool:
    kind = doc.get("kind")
    if kind in ("Workspace", "MultiRoleInference"):
        doc.setdefault("metadata", {}).setdefault("annotations", {})[ANNOTATION] = "true"
        return True
    if kind == "InferenceSet":
        tmpl = doc.setdefault("spec", {}).setdefault("template", {})
        tmpl.setdefault("metadata", {}).setdefault("annotations", {})[ANNOTATION] = "true"
        return True
    return False


def _preset(doc: dict) -> str | None:
    if doc["kind"] == "Workspace":
        inf = doc.get("inference") or {}
        return None if "template" in inf else (inf.get("preset") or {}).get("name")
    if doc["kind"] == "InferenceSet":
        return ((doc["spec"]["template"].get("inference") or {}).get("preset") or {}).get("name")
    return (doc["spec"].get("model") or {}).get("name")


def _refs(doc: dict) -> list[str | None]:
    if doc["kind"] == "Workspace":
        return [(doc.get("inference") or {}).get("config")]
    if doc["kind"] == "InferenceSet":
        return [(doc["spec"]["template"].get("inference") or {}).get("config")]
    return [r.get("runtimeConfig") for r in doc["spec"]["roles"]]


def _enabled(path: Path) -> tuple[list[dict], list[dict]]:
    """The file's documents, each KAITO workload among them annotated; and those workloads."""
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs, [d for d in docs if _enable(d)]


def _stream(docs: list[dict]) -> str:
    return wrap("---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs))


# Files without a KAITO workload (RAG engines, a Deployment, a tuning ConfigMap) have nothing to enable:
# the pass-through test covers them. Of the others, a file with a workload KAITO's webhook would refuse once
# enabled (no preset: a template or a tuning Workspace) expects that error; every other one a decision.
REFUSED = [p for p in FILES if any(_preset(d) is None for d in _enabled(p)[1])]
DECIDED = [p for p in FILES if _enabled(p)[1] and p not in REFUSED]


@pytest.mark.parametrize("path", REFUSED, ids=_ids(REFUSED))
def test_refused_when_enabled(path: Path) -> None:
    code, out, err = run([], _stream(_enabled(path)[0]))
    assert code == 1 and "requires a preset inference" in err


@pytest.mark.parametrize("path", DECIDED, ids=_ids(DECIDED))
def test_decision_when_enabled(path: Path) -> None:
    docs, enabled = _enabled(path)
    r = run([], _stream(docs))
    assert r.code == 0, r.err
    items = r.items
    configmaps = {i["metadata"]["name"]: i for i in items if i["kind"] == "ConfigMap"}
    workloads = [i for i in items if i["kind"] in ("Workspace", "InferenceSet", "MultiRoleInference")]
    assert len(workloads) == len(enabled)
    for doc in workloads:
        want = MTP if _preset(doc).lower() in TUNED_IN_CORPUS else NGRAM
        for ref in _refs(doc):
            cm = configmaps[ref]
            config = yaml.safe_load(cm["data"]["inference_config.yaml"])
            assert config["vllm"]["speculative-config"] == want, (doc["metadata"]["name"], ref)
            assert json.loads(want)  # the text is JSON
