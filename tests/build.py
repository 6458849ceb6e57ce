"""Small inputs for table tests, built in the test: items read the way the function reads them.

Each item is a Python mapping written as one line of JSON (JSON is YAML), or YAML text taken as written
(for what JSON cannot say: a complex key, a key twice, a scalar item).
"""
from __future__ import annotations

import json
from typing import Any

from krm_fn.text.reader import read_resource_list, read_stream
from krm_fn.text.items import Item

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
# The smallest enabled input, as a whole ResourceList: what start-up tests run.
ONE_WORKSPACE = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: ws
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  resource:
    instanceType: Standard_NC24ads_A100_v4
  inference:
    preset:
      name: phi-4
"""


def _entry(doc: Any) -> str:
    if isinstance(doc, str):  # YAML text: its first line after `- `, the rest indented under it
        lines = doc.strip("\n").splitlines()
        return "- " + lines[0] + "\n" + "".join("  " + ln + "\n" for ln in lines[1:])
    return "- " + json.dumps(doc) + "\n"


def resource_list(*docs: Any) -> str:
    """A ResourceList with these items, in order (items[0] is on line 4)."""
    return RL + "".join(_entry(d) for d in docs)


def krm_items(*docs: Any) -> list[Item]:
    """The items of `resource_list(*docs)`, as KRM mode reads them."""
    return read_resource_list(resource_list(*docs).encode("utf-8")).items


def files_items(*files: tuple[str, str]) -> list[Item]:
    """The documents of (file name, text) pairs, as `render` reads them (each remembers its file)."""
    return read_stream([(name, text.encode("utf-8")) for name, text in files]).items


def meta(name: str, namespace: str = "", annotations: dict | None = None, labels: dict | None = None) -> dict:
    """An object's metadata, with only the fields given."""
    out: dict[str, Any] = {"name": name}
    if namespace:
        out["namespace"] = namespace
    if labels:
        out["labels"] = labels
    if annotations:
        out["annotations"] = annotations
    return out


# JSON Patch operations, as the stages write them.
def add(path, value):
    return {"op": "add", "path": path, "value": value}


def rep(path, value):
    return {"op": "replace", "path": path, "value": value}


def rm(path):
    return {"op": "remove", "path": path}
