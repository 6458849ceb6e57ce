"""docs/guarantees.md tells the truth: every promise of "What it promises" names a test that exists, and each
claim of "Fidelity: exactly what stays" is checked here on a real run."""
from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from runner import run

ROOT = Path(__file__).resolve().parent.parent
GUARANTEES = (ROOT / "docs" / "guarantees.md").read_text(encoding="utf-8")


# --- "Fidelity: exactly what stays": each claim, checked ----------------------------------------------------

RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
UNTOUCHED = """\
- apiVersion: v1 # why: kept
  kind: ConfigMap
  metadata:
    name: flags
    annotations:
      internal.config.kubernetes.io/path: 'flags.yaml'
  data: {"on": 'yes', octal: 010, version: 1.10}
  # a comment inside the item
"""
ENABLED_WS = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: ws
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  resource: {instanceType: Standard_NC24ads_A100_v4}
  inference:
    preset:
      name: deepseek-r1-0528
"""


def _krm(text: str) -> tuple[int, str]:
    code, out, _ = run([], text)
    return code, out


def _render_stdin(data: bytes) -> str:
    code, out, err = run(["render", "-"], data)
    assert code == 0, err
    return out


def test_fidelity_claim_krm_nothing_to_change_is_byte_for_byte() -> None:
    text = "# head comment\n" + RL_HEAD + UNTOUCHED + "# tail comment\n"
    assert _krm(text) == (0, text)
    assert "nothing to change, nothing to report" in GUARANTEES


def test_fidelity_claim_krm_untouched_items_keep_their_bytes() -> None:
    text = RL_HEAD + UNTOUCHED + ENABLED_WS
    code, out = _krm(text)
    assert code == 0 and out.startswith(RL_HEAD + UNTOUCHED)
    assert "\nresults:\n" in out and out.index("\nresults:\n") > out.index("specdec-")
    assert "every item the function\n  does not change keeps its bytes" in GUARANTEES


def test_fidelity_claim_krm_json_comes_out_as_block_yaml() -> None:
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b", "labels": {"z": "1", "a": "2"}}}]
    text = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})
    code, out = _krm(text)
    assert code == 0 and not out.lstrip().startswith("{") and "\n  kind: Namespace\n" in out
    assert yaml.safe_load(out)["items"] == items
    assert list(yaml.safe_load(out)["items"][0]["metadata"]["labels"]) == ["z", "a"]  # key order kept
    assert "**a JSON (flow-style) ResourceList** comes out as block YAML, always" in GUARANTEES


def test_fidelity_claim_render_keeps_the_objects_text_without_orchestrator_annotations() -> None:
    doc = ("# head: kept\napiVersion: v1 # why: kept\nkind: ConfigMap\nmetadata:\n  name: flags\n  annotations:\n"
           "    team: ml\n    internal.config.kubernetes.io/path: 'flags.yaml'\n    config.kubernetes.io/index: '0'\n"
           "    kustomize.config.k8s.io/id: |\n      kind: ConfigMap\n"
           "data: {\"on\": 'yes', octal: 010, version: 1.10}\n# tail: kept\n")
    assert _render_stdin(doc.encode()) == "---\n" + doc.replace(
        "    internal.config.kubernetes.io/path: 'flags.yaml'\n    config.kubernetes.io/index: '0'\n"
        "    kustomize.config.k8s.io/id: |\n      kind: ConfigMap\n", "")
    assert "with only the orchestrator annotations removed" in GUARANTEES
    # The text kept is the document's, comments before the first key and after the last value included.
    assert "the comments before its first key and after its last value" in GUARANTEES


def test_fidelity_claim_render_json_stays_json_and_crlf_stays_crlf() -> None:
    doc = '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}\n'
    assert _render_stdin(doc.encode()) == "---\n" + doc
    crlf = "apiVersion: v1\r\nkind: Namespace\r\nmetadata:\r\n  name: a # c\r\n"
    assert _render_stdin(crlf.encode()) == "---\r\n" + crlf
    assert "a document written as JSON stays\n  JSON" in GUARANTEES and "written with CRLF throughout" in GUARANTEES


def test_every_promise_names_a_real_test() -> None:
    """docs/guarantees.md "What it promises": every line names a test, and every test named exists."""
    root, readme = ROOT, GUARANTEES
    section = readme.split("## What it promises\n", 1)[1].split("\n## ", 1)[0]
    promises = re.findall(r"(?ms)^- (.*?)(?=^- |^\n)", section)
    assert len(promises) >= 10
    for promise in promises:
        named = re.findall(r"`((?:tests|fixtures)/[\w/.-]+)(?:::(\w+))?`", promise)
        assert named, f"names no test: {promise[:80]}"
        for path, name in named:
            assert (root / path).exists(), path
            assert not name or f"def {name}(" in (root / path).read_text(encoding="utf-8"), \
                f"{path}::{name} does not exist"
    groups = re.findall(r"\(((?:`[a-z-]+`(?:,\s*)?)+)\)", section)
    words = {w for g in groups for w in re.findall(r"`([a-z-]+)`", g)}
    assert {"exit", "traceback", "internal-error", "lost", "fixpoint", "time", "size"} <= words, words
    oracle = (root / "tests" / "fuzz.py").read_text(encoding="utf-8")
    for word in words:
        assert f'"{word}: ' in oracle or f"f\"{word}: " in oracle, f"the oracle never reports {word!r}"


def test_fidelity_claim_render_keeps_comments_around_documents_and_block_scalars_at_the_end() -> None:
    doc = ("# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
           "    config.kubernetes.io/index: '0'\ndata:\n  x: y\n# tail\n")
    last = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  note: |\n    no final newline"
    out = _render_stdin(("---\n" + doc + "---\n" + last).encode())
    assert out == "---\n" + doc.replace("  annotations:\n    config.kubernetes.io/index: '0'\n", "") + \
        "---\n" + last.replace("|", "|-") + "\n"
    assert "the comments before its first key and after its last value included" in GUARANTEES


def test_hostile_input_claims_match_the_limits() -> None:
    from krm_fn.text import refusals
    assert refusals.MAX_DEPTH == 250 and "nesting deeper than 250 levels" in GUARANTEES
    assert refusals.MAX_ALIAS_EXPANSION == 100_000 and "more than 100 000\nnodes" in GUARANTEES


def test_promised_exit_statuses_are_the_real_ones() -> None:
    """A usage error exits 2 (argparse's and every CLI's convention): the promise must say so."""
    promise = next(line for line in GUARANTEES.splitlines() if line.startswith("- Exit status"))
    assert "2 on a command-line usage error" in promise and "130 on Ctrl-C" in promise
    for argv in (["--bogus"], ["render"]):
        code, _, err = run(argv)
        assert code == 2 and "Traceback" not in err, (argv, err)


def test_fidelity_claim_render_clip_block_scalar_at_the_end_of_a_file() -> None:
    """The one byte render changes in an untouched document: a `|` block scalar ending a file that has no
    final newline has no line break in its value; the stream goes on after it, so it is written `|-`."""
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: |\n    line\n    last"
    out = _render_stdin(doc.encode())
    assert out == "---\n" + doc.replace("k: |", "k: |-") + "\n"
    assert yaml.safe_load(out) == yaml.safe_load(doc)
    assert "a file without a final newline that ends in a `|` or `|+` block scalar" in GUARANTEES


def test_fidelity_claim_krm_clip_block_scalar_at_the_end_of_the_input() -> None:
    last = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data:\n    k: |\n      line\n      last"
    text = RL_HEAD + UNTOUCHED + UNTOUCHED + last  # the same object twice: a warning, so results follow
    code, out = _krm(text)
    assert code == 0 and out.startswith(RL_HEAD + UNTOUCHED + UNTOUCHED + last.replace("k: |", "k: |-") + "\n")
    assert "ends in a `|` block scalar, that indicator becomes `|-` so its value stays" in GUARANTEES
