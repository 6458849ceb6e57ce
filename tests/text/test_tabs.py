"""Tabs in items are read as their real readers read them (issue 19 class 7).

The items' readers are go-yaml: v3 in kpt and kustomize, v2 (sigs.k8s.io/yaml) in kubectl and Argo CD. Both
are ports of libyaml and take a tab for a blank where libyaml does, and the function reads with libyaml. The verdicts below were taken from
`kubectl label --local -o json -f FILE z=1` (kubectl v1.32: go-yaml v2) and `kpt fn source DIR`
(kpt 1.0.0-beta.56: go-yaml v3), which agreed on every one of them; the kubectl test re-checks them live.

inference_config.yaml is not an item: KAITO's inference server reads it with yaml.safe_load, which refuses
these tabs (tests/domain/test_inference_config.py).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from krm_fn.text import yamlio

HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
# (name, text, what go-yaml reads: the ConfigMap's metadata.name and data, or None for an error)
CASES = [
    ("after key:", HEAD + "  name:\tx\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("after key: with nothing after it", HEAD.replace("metadata:\n", "metadata:\t\n") + "  name: x\ndata:\n  a: b\n",
     ("x", {"a": "b"})),
    ("after a value", HEAD + "  name: x\t\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("after a space", HEAD + "  name: \tx\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("before a comment", HEAD + "  name: x\t# c\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("after a quoted value", HEAD + "  name: 'x'\t\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("inside a plain scalar", HEAD + "  name: x\ndata:\n  a: b\tc\n", ("x", {"a": "b\tc"})),
    ("in a flow mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name:\tx}\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("after a block scalar's |", HEAD + "  name: x\ndata:\n  a: |\t\n    b\n", ("x", {"a": "b\n"})),
    ("after a tag", HEAD + "  name: !!str\tx\ndata:\n  a: b\n", ("x", {"a": "b"})),
    ("as indentation", HEAD + "\tname: x\ndata:\n  a: b\n", None),
    ("after spaces of indentation", HEAD + "  name: x\ndata:\n  \ta: b\n", None),
    ("after a dash", HEAD + "  name: x\n  finalizers:\n  -\ta\ndata:\n  a: b\n", None),
    ("after a complex key's :", HEAD + "  name: x\ndata:\n  ? a\n  :\tb\n", None),
    ("a line of a tab after a plain value", HEAD + "  name: x\n\t\ndata:\n  a: b\n", None),
    ("continuing a plain scalar", HEAD + "  name: x\ndata:\n  a: b\n\tc\n", None),
    ("in a block scalar's indentation", HEAD + "  name: x\ndata:\n  a: |\n    \tb\n", None),
]


def _read(text: str) -> tuple[str, dict] | None:
    try:
        doc = yamlio.load(text)
    except yaml.YAMLError:
        return None
    return doc["metadata"]["name"], doc["data"]


@pytest.mark.parametrize("name, text, want", CASES, ids=[c[0] for c in CASES])
def test_a_tab_is_read_as_go_yaml_reads_it(name, text, want):
    assert _read(text) == want


@pytest.mark.parametrize("name, text, want", CASES, ids=[c[0] for c in CASES])
def test_the_verdicts_are_kubectls(name, text, want, tmp_path: Path):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (the go-yaml v2 oracle)")
    f = tmp_path / "f.yaml"
    f.write_text(text)
    run = subprocess.run([kubectl, "label", "--local", "-o", "json", "-f", str(f), "z=1"],
                         capture_output=True, text=True, timeout=60)
    if want is None:
        assert run.returncode != 0 and "yaml:" in run.stderr
    else:
        assert run.returncode == 0, run.stderr
        doc = json.loads(run.stdout)
        assert (doc["metadata"]["name"], doc["data"]) == want
