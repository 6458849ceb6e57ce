"""The function reads a manifest as kubectl reads it, or refuses it (issue 28's reading classes), held against
the real kubectl: `kubectl label --local -f FILE x=y -o json` reads a file as `kubectl apply` and Argo CD do
(sigs.k8s.io/yaml, go-yaml v2 underneath) and needs no cluster. kustomize and kpt (go-yaml v3) are the other
readers; where the two disagree (a merge key after the key it sets) the function must refuse.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import clean_env, kubectl_reads, require_tool, run
from krm_fn.text import reader
from runner import run as run_function

OPT_IN = "kaito.sh/enable-speculative-decoding"
SET_TAGGED = """apiVersion: apps/v1
kind: Deployment
metadata: !!set
  name: web
  annotations: !!set
    kaito.sh/enable-speculative-decoding: "true"
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
"""
MERGE_AFTER = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kaito.sh/enable-speculative-decoding: "false"
    <<: {kaito.sh/enable-speculative-decoding: "true"}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
"""
LATER_BOM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
DIRECTIVE = "%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"


@pytest.fixture(scope="module")
def kubectl() -> str:
    return require_tool("kubectl", "kubectl reads YAML the way `kubectl apply` and Argo CD do (sigs.k8s.io/yaml)")


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.yaml"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_set_tag_on_a_mapping_is_read_as_kubectl_reads_it(kubectl: str, tmp_path: Path) -> None:
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, SET_TAGGED), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"
    (item,) = reader.read_stream([("m.yaml", SET_TAGGED.encode())]).items
    assert item.annotation(OPT_IN) == "true"
    assert item.data()["metadata"]["annotations"] == seen["metadata"]["annotations"]
    # The command reads the opt-in too: no container runs vLLM, which it says of an opted-in workload only.
    r = run_function(["render", "-"], SET_TAGGED)
    assert r.code == 0 and "opted in, but no container of this Deployment runs vLLM" in r.err, r.err


def test_a_merge_kubectl_and_kustomize_read_apart_is_refused(kubectl: str, tmp_path: Path) -> None:
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, MERGE_AFTER), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"  # the later merge wins
    (item,) = reader.read_stream([("m.yaml", MERGE_AFTER.encode())]).items
    with pytest.raises(Exception, match="set again by the merge key"):
        item.data()  # go-yaml v3 (kustomize, kpt) keeps "false": no reading is chosen silently
    r = run_function(["render", "-"], MERGE_AFTER)
    assert r.code == 1 and r.out == "" and "[SD009]" in r.err, r.err
    assert "is set again by the merge key `<<` after it (line 7)" in r.err


def test_a_byte_order_mark_before_a_later_document_is_read_on(kubectl: str, tmp_path: Path) -> None:
    seen = kubectl_reads(kubectl, _file(tmp_path, LATER_BOM), refused=True)
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]
    r = run_function(["render", "-"], LATER_BOM)
    assert r.code == 0, r.err
    assert [d["metadata"]["name"] for d in r.docs] == ["a", "b"]


def test_a_directive_is_refused_by_both(kubectl: str, tmp_path: Path) -> None:
    assert kubectl_reads(kubectl, _file(tmp_path, DIRECTIVE), refused=True) is None
    r = run_function(["render", "-"], DIRECTIVE)
    assert r.code == 1 and "directive" in r.err


def test_a_file_ending_in_a_bare_cr_does_not_hide_the_next_document(kubectl: str, tmp_path: Path) -> None:
    """kubectl splits documents at `---` lines after a line feed: render must write one after a file whose
    last line ends in a bare CR, or kubectl reads the next file's object as part of it and loses it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\r")
    (src / "b.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")
    r = run_function(["render", str(src)])
    assert r.code == 0, r.err
    seen = kubectl_reads(kubectl, _file(tmp_path, r.out))
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]


def _kustomize_reads(kubectl: str, tmp_path: Path, text: str) -> tuple[int, str]:
    """`kubectl kustomize` (kustomize v5, go-yaml v3) of a folder whose one resource is `text`."""
    folder = tmp_path / "kz"
    folder.mkdir(exist_ok=True)
    (folder / "m.yaml").write_bytes(text.encode("utf-8"))
    (folder / "kustomization.yaml").write_text("resources: [m.yaml]\n")
    proc = run([kubectl, "kustomize", str(folder)], tmp_path, clean_env())
    return proc.returncode, proc.stdout + proc.stderr


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"


def test_text_after_the_separator_is_refused_as_kubectl_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "--- &root\n" + CM.format("b")
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "text after `---` on its line" in r.err, r.err


def test_a_separator_after_a_bare_cr_is_refused_where_kubectl_loses_the_document(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a").rstrip("\n") + "\r---\n" + CM.format("b")
    seen = kubectl_reads(kubectl, _file(tmp_path, text), refused=True)
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a"]  # b is lost to kubectl
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "a `---` next to a bare CR" in r.err, r.err


def test_an_escaped_slash_is_refused_as_go_yaml_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + 'data:\n  url: "http:\\/\\/example.com"\n'
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "unknown escape character" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "has no such escape" in r.err, r.err


def test_a_second_merge_key_is_refused_where_kubectl_and_kustomize_read_apart(kubectl: str, tmp_path: Path) -> None:
    text = (CM.format("a") + "  annotations:\n    <<: {" + OPT_IN + ': "false"}\n    <<: {' + OPT_IN
            + ': "true"}\n')
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"  # kubectl merges both
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "duplicate merge key" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "the merge key << appears twice" in r.err, r.err


def test_a_file_ending_inside_a_block_scalar_is_read_apart_and_warned_about(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  x: |\n    hello"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"]["x"] == "hello\n"  # kubectl's reader ends the last line with "\n"
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "  x: hello\n" in said, said
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.yaml").write_text(text)
    r = run_function(["render", str(src / "a.yaml")])
    assert r.code == 0 and "[SD012]" in r.err, r.err
    (out,) = kubectl_reads(kubectl, _file(tmp_path, r.out)) or [None]
    assert out is not None and out["data"]["x"] == "hello"  # the output reads as kustomize and kpt read it


def test_an_anchor_given_again_is_read_as_kubectl_reads_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  a: &v one\n  b: *v\n  c: &v two\n  d: *v\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.data()["data"] == seen["data"] == {"a": "one", "b": "one", "c": "two", "d": "two"}


def test_an_escaped_single_quote_kubectl_reads_is_refused_in_plain_words(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  k: \"it\\'s\"\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"]["k"] == "it's"
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "which kubectl, kustomize and kpt read as '" in r.err, r.err
