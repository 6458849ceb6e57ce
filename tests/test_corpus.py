"""KAITO's own example manifests (shared/corpus), written by people who never saw this tool.

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

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "kaito-examples"
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
        pytest.skip(f"the shared corpus is not beside this checkout ({CORPUS})")
    assert len(FILES) > 40


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


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_decision_when_enabled(path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    enabled = [d for d in docs if _enable(d)]
    if not enabled:
        return  # nothing KAITO to enable here: covered by the pass-through test
    stream = "---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs)
    code, out, err = run([], wrap(stream))
    expect_error = any(_preset(d) is None for d in enabled)
    if expect_error:
        assert code == 1 and "requires a preset inference" in err
        return
    assert code == 0, err
    items = yaml.safe_load(out)["items"]
    configmaps = {i["metadata"]["name"]: i for i in items if i["kind"] == "ConfigMap"}
    for doc in (i for i in items if i["kind"] in ("Workspace", "InferenceSet", "MultiRoleInference")):
        want = MTP if _preset(doc).lower() in TUNED_IN_CORPUS else NGRAM
        for ref in _refs(doc):
            cm = configmaps[ref]
            config = yaml.safe_load(cm["data"]["inference_config.yaml"])
            assert config["vllm"]["speculative-config"] == want, (doc["metadata"]["name"], ref)
            assert json.loads(want)  # the text is JSON
