"""The reading classes of issue 40 the reader owned: an explicit key with no value ending an item, an alias as a
key in the identity, a byte-order mark inside a document, and a file kubectl reads as JSON. Each held as plain
tables here; tests/e2e/test_e2e_kubectl_reading.py holds the same bytes against the real kubectl and kustomize."""
from __future__ import annotations

from runner import run

DERIVED = """  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: specdec-ngram-80815d3ebc
      annotations:
        kaito-specdec.dev/derived: "true"
    data:
      inference_config.yaml: |
        vllm:
          speculative-config: '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
      ? extra
"""
USER_CM = """  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: user-config
    data:
      k: v
"""
ENVELOPE = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def test_dropping_an_item_ending_in_an_explicit_key_keeps_the_next_item_whole() -> None:
    """Class 1: the dropped derived ConfigMap's region ended inside the next item's first line, whose
    `apiVersion: v1` went with it (exit 0, `items:` a mapping)."""
    r = run([], ENVELOPE + DERIVED + USER_CM)
    assert r.code == 0, r.err
    assert [i["metadata"]["name"] for i in r.items] == ["user-config"]
    assert r.items[0]["apiVersion"] == "v1"
    assert ENVELOPE + USER_CM in r.out


def test_an_item_ending_in_an_explicit_key_is_read_and_rendered_whole() -> None:
    """Class 1 in `render` of a List: the item that follows is read, and the output is a stream kubectl reads."""
    text = "apiVersion: v1\nkind: List\nitems:\n" + USER_CM.replace("user-config", "first") + \
        "      ? extra\n" + USER_CM
    r = run(["render", "-"], text)
    assert r.code == 0, r.err
    assert [(d["apiVersion"], d["metadata"]["name"]) for d in r.docs] == [("v1", "first"), ("v1", "user-config")]
    assert r.docs[0]["data"] == {"k": "v", "extra": None}
