"""Derived ConfigMap names: deterministic, content-hashed, valid DNS subdomains of at most 253 characters."""
from __future__ import annotations

import re

import pytest

from krm_fn.domain.derived import build, derived_name

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
JSON = '{"method":"mtp","num_speculative_tokens":1}'


@pytest.mark.parametrize("source", [None, "cfg", "a" * 253, ("x" * 62 + ".") * 4, "a-" * 126 + "b",
                                    "cfg-5fk2m9t8hb"])
def test_names_are_dns_subdomains(source: str | None) -> None:
    cm = build({"data": {}} if source else None, source, "ns", JSON, "mtp")
    name = cm["metadata"]["name"]
    assert len(name) <= 253
    assert DNS_SUBDOMAIN.match(name), name
    assert re.search(r"-[0-9a-f]{10}$", name)
    assert build({"data": {}} if source else None, source, "ns", JSON, "mtp") == cm  # deterministic


def test_name_changes_with_content_and_keeps_the_source_readable() -> None:
    a = build({"data": {"inference_config.yaml": "vllm: {}\n"}}, "cfg", "", JSON, "mtp")
    b = build({"data": {"inference_config.yaml": "vllm: {max-model-len: 1}\n"}}, "cfg", "", JSON, "mtp")
    assert a["metadata"]["name"].startswith("cfg-specdec-")
    assert a["metadata"]["name"] != b["metadata"]["name"]


def test_method_names_are_made_dns_safe() -> None:
    assert derived_name(None, "deepseek_mtp", {}).startswith("specdec-deepseek-mtp-")


def test_copy_keeps_user_metadata_and_drops_orchestrator_annotations() -> None:
    source = {"metadata": {"name": "cfg", "labels": {"team": "a"},
                           "annotations": {"owner": "me", "config.kubernetes.io/path": "x.yaml",
                                           "internal.config.kubernetes.io/id": "3",
                                           "config.k8s.io/id": "3", "kustomize.config.k8s.io/id": "x"}},
              "data": {"other": "kept", "inference_config.yaml": "vllm:\n  swap-space: 4\n"},
              "binaryData": {"b": "AAE="}}
    cm = build(source, "cfg", "ns", JSON, "mtp")
    assert cm["metadata"]["labels"] == {"team": "a"}
    assert cm["metadata"]["namespace"] == "ns"
    assert cm["metadata"]["annotations"] == {"owner": "me", "kaito-specdec.dev/derived": "true",
                                             "kaito-specdec.dev/source-configmap": "cfg"}
    assert cm["data"]["other"] == "kept"
    assert cm["binaryData"] == {"b": "AAE="}
    assert cm["data"]["inference_config.yaml"] == f"vllm:\n  swap-space: 4\n  speculative-config: '{JSON}'\n"
    assert source["data"]["inference_config.yaml"] == "vllm:\n  swap-space: 4\n"  # never modified


@pytest.mark.parametrize("method", ["draft..model_", "Eagle3.x", "a.-b", "-.-"])
def test_odd_method_names_still_give_dns_subdomains(method: str) -> None:
    name = derived_name(None, method, {"x": 1})
    assert DNS_SUBDOMAIN.match(name), name


def test_source_names_with_ragged_labels_are_mended() -> None:
    name = derived_name("a.-b-.c..d", "mtp", {})
    assert DNS_SUBDOMAIN.match(name) and name.startswith("a.b.c.d-specdec-")


def test_hash_survives_keys_that_are_not_strings() -> None:
    cm = build({"metadata": {"labels": {"app": "x", 1: "y"}}, "data": {}}, "cfg", "", JSON, "mtp")
    assert DNS_SUBDOMAIN.match(cm["metadata"]["name"])
