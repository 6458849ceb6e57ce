"""Orchestrator configuration among the items (krm_fn/domain/localconfig.py): which are kustomizations, which files
a kustomization names as its configuration (`kustomize_config`), which are KRM function configs, and which
files kpt writes that a kustomization does not list. Rules from kustomize v5 (konfig's file names,
types.Kustomization's fields)."""
from __future__ import annotations

import json

import pytest

from build import files_items, krm_items, meta
from krm_fn.domain.localconfig import is_function_config, is_kustomization, kustomize_config, unlisted_files

API = "kustomize.config.k8s.io/v1beta1"
PATH = "internal.config.kubernetes.io/path"

# (document, file it came from or None for an item without one) -> a kustomization?
KUSTOMIZATIONS = {
    "kind-and-api": ({"apiVersion": API, "kind": "Kustomization", "resources": ["a.yaml"]}, None, True),
    "component": ({"apiVersion": "kustomize.config.k8s.io/v1alpha1", "kind": "Component"}, None, True),
    "kind-without-api": ({"kind": "Kustomization", "resources": ["a.yaml"]}, None, True),
    "kind-with-another-api": ({"apiVersion": "v1", "kind": "Kustomization"}, None, False),
    "api-with-another-kind": ({"apiVersion": API, "kind": "ConfigMap", "metadata": meta("c")}, None, False),
    # No file name to go by: only fields of a Kustomization, typed as kustomize types them, and at least
    # one that only a kustomization has.
    "shape": ({"resources": ["a.yaml"], "namePrefix": "a-"}, None, True),
    "shape-null-field": ("resources:\nnamePrefix: a-", None, True),
    "shape-common-fields-only": ({"resources": ["a.yaml"], "images": [{"name": "x"}]}, None, False),
    "shape-an-unknown-field": ({"resources": ["a.yaml"], "namePrefix": "a-", "replicaCount": 2}, None, False),
    "shape-helm-values": ({"resources": {"limits": {"cpu": 1}}, "components": {"web": {"enabled": True}}}, None,
                          False),
    "shape-with-a-kind": ({"kind": "Service", "namePrefix": "a-"}, None, False),
    "empty-mapping": ({}, None, False),
    "not-a-mapping": ("42", None, False),
    # With a file name, the name decides (kustomize reads no other file as its config).
    "file-kustomization.yaml": ({"resources": ["a.yaml"]}, "app/kustomization.yaml", True),
    "file-kustomization.yml": ({"resources": ["a.yaml"]}, "kustomization.yml", True),
    "file-Kustomization": ({"resources": ["a.yaml"]}, "Kustomization", True),
    "file-other-name": ({"resources": ["a.yaml"], "namePrefix": "a-"}, "app/base.yaml", False),
    "file-kustomization-an-object": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("k")},
                                     "kustomization.yaml", False),
    "file-kustomization-a-kind-only": ({"kind": "ConfigMap"}, "kustomization.yaml", False),
}


def one_item(doc, file: str | None):
    if file is None:
        return krm_items(doc)[0]
    text = doc if isinstance(doc, str) else json.dumps(doc)  # JSON is YAML
    return files_items((file, text))[0]


@pytest.mark.parametrize("doc, file, want", KUSTOMIZATIONS.values(), ids=KUSTOMIZATIONS.keys())
def test_is_kustomization(doc, file, want) -> None:
    assert is_kustomization(one_item(doc, file)) is want


FUNCTION_CONFIGS = [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("f", annotations={
        "config.kubernetes.io/function": "exec: {path: kaito-specdec}"})}, True),
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("f", annotations={
        "config.k8s.io/function": "container: {image: x}"})}, True),
    ({"apiVersion": "builtin", "kind": "PrefixSuffixTransformer", "metadata": meta("p")}, True),
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("f", annotations={
        "config.kubernetes.io/local-config": "true"})}, False),
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("f")}, False),
]


@pytest.mark.parametrize("doc, want", FUNCTION_CONFIGS)
def test_is_function_config(doc, want) -> None:
    assert is_function_config(krm_items(doc)[0]) is want


# --- kustomize_config: (file, text) in order -> the indexes of kustomize's configuration -----------------

TRANSFORMER = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: specdec\n"
WS = "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: ws\n"
PATCH = "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: ws\n  labels: {a: b}\n"

CONFIG = {
    "transformers-and-patches": ([
        ("app/kustomization.yaml", "resources: [ws.yaml]\ntransformers: [specdec.yaml]\npatches:\n"
                                   "- path: patch.yaml\n- patch: |\n    - op: add\n      path: /x\n"),
        ("app/ws.yaml", WS), ("app/specdec.yaml", TRANSFORMER), ("app/patch.yaml", PATCH),
    ], {0, 2, 3}),
    # Relative to the kustomization's folder, normalised; the same name in another folder is a manifest.
    "relative-paths": ([
        ("overlay/kustomization.yaml", "resources: [../base]\ngenerators:\n- ../shared/gen.yaml\n"),
        ("shared/gen.yaml", TRANSFORMER), ("overlay/gen.yaml", TRANSFORMER), ("base/kustomization.yaml",
                                                                             "resources: [ws.yaml]\n"),
        ("base/ws.yaml", WS),
    ], {0, 1, 3}),
    "every-file-field": ([
        ("kustomization.yaml", "validators: [v.yaml]\npatchesJson6902:\n- path: j.yaml\n"
                               "patchesStrategicMerge: [s.yaml]\nconfigurations: [c.yaml]\ncrds: [crd.yaml]\n"
                               "replacements:\n- path: r.yaml\nopenapi:\n  path: o.yaml\n"),
        ("v.yaml", TRANSFORMER), ("j.yaml", "- {op: add, path: /x, value: 1}\n"), ("s.yaml", PATCH),
        ("c.yaml", "nameReference: []\n"), ("crd.yaml", TRANSFORMER), ("r.yaml", "source: {kind: X}\n"),
        ("o.yaml", "definitions: {}\n"),
    ], {0, 1, 2, 3, 4, 5, 6, 7}),
    # `resources` are manifests; a URL or an inline patch names no file of the tree.
    "resources-urls-and-inline-patches": ([
        ("kustomization.yaml", "resources: [ws.yaml]\ntransformers: ['https://example.com/t.yaml']\n"
                               "patchesStrategicMerge:\n- |\n  apiVersion: v1\n  kind: ConfigMap\n"),
        ("ws.yaml", WS), ("t.yaml", TRANSFORMER),
    ], {0}),
    "no-kustomization": ([("specdec.yaml", TRANSFORMER), ("ws.yaml", WS)], set()),
}


@pytest.mark.parametrize("files, want", CONFIG.values(), ids=CONFIG.keys())
def test_kustomize_config(files, want) -> None:
    assert kustomize_config(files_items(*files)) == want


def test_kustomize_config_by_kpts_path_annotations() -> None:
    """In KRM mode the files are kpt's path annotations."""
    items = krm_items(
        {"apiVersion": API, "kind": "Kustomization", "transformers": ["specdec.yaml"],
         "metadata": meta("k", annotations={PATH: "app/kustomization.yaml"})},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("specdec", annotations={PATH: "app/specdec.yaml"})},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("specdec", annotations={PATH: "specdec.yaml"})},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("specdec")},
    )
    assert kustomize_config(items) == {0, 1}


# --- unlisted_files: files kpt writes into a kustomization's folder that its `resources` leave out -----

def test_unlisted_files() -> None:
    items = files_items(("app/kustomization.yaml", "resources: [ws.yaml, ./listed.yaml]\n"), ("app/ws.yaml", WS),
                        ("other/ws.yaml", WS))
    found = unlisted_files(items, ["app/specdec-mtp-39f658ba0e.yaml", "app/listed.yaml", "other/new.yaml",
                                   "app/specdec-mtp-39f658ba0e.yaml", ""])
    assert [(k.index, name) for k, name in found] == [(0, "specdec-mtp-39f658ba0e.yaml")]
