"""An item's identity: its apiVersion, kind, metadata.name and metadata.namespace (each a string, or "" where it
is none), whether metadata.generateName is a string, and the first of the four fields that is a scalar but no
string (`namespace: 1000`), which kubectl refuses.

One record (`Identity`), decided by one function (`identity`) from the fields' scalars as go-yaml reads them.
Its three sources feed it those scalars: the reader's walk of an item's events (reader.py), a composed node
(`of_node`: an item made from a node) and an item's data (`of_data`: when an alias or a merge key gives its
identity, which only the data has resolved).
"""

from typing import Any, NamedTuple

import yaml

from .go_scalars import BINARY_TAG, BOOL_TAG, FLOAT_TAG, INT_TAG, NULL_TAG, STR_TAG, reads_as
from .tree import child

# The identity's fields, in the order the first odd one is looked for.
FIELDS = ("apiVersion", "kind", "metadata.name", "metadata.namespace")
GENERATE_NAME = "metadata.generateName"


class Identity(NamedTuple):
    """Who an item is (empty for an item that is no mapping)."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""
    generate_name: bool = False  # metadata.generateName is a string: the cluster names the object
    # (field, text, what YAML reads it as) of the first of FIELDS that is a scalar but no string: kubectl
    # refuses the object
    odd: tuple[str, str, str] | None = None


def identity(scalars: dict[str, tuple[str, str]]) -> Identity:
    """The identity from its fields' scalars: field (one of FIELDS or GENERATE_NAME) -> (its tag as go-yaml
    reads it, its text). A field that is missing, or a mapping or a list, has no scalar."""
    texts = ["", "", "", ""]
    odd = None
    for i, name in enumerate(FIELDS):
        found = scalars.get(name)
        if found is None:
            continue
        tag, text = found
        if tag == STR_TAG:
            texts[i] = text
        elif odd is None and tag != NULL_TAG:
            odd = (name, text, reads_as(tag))
    generate_name = GENERATE_NAME in scalars and scalars[GENERATE_NAME][0] == STR_TAG
    return Identity(texts[0], texts[1], texts[2], texts[3], generate_name, odd)


def of_node(node: yaml.Node) -> Identity:
    """The identity of an item composed as a node (empty for one that is no mapping)."""
    meta = child(node, "metadata")
    found = (("apiVersion", child(node, "apiVersion")), ("kind", child(node, "kind")),
             ("metadata.name", child(meta, "name")), ("metadata.namespace", child(meta, "namespace")),
             (GENERATE_NAME, child(meta, "generateName")))
    return identity({name: (value.tag, value.value) for name, value in found if isinstance(value, yaml.ScalarNode)})


# The tag of a value of the data: the scalar it was read from (its text as written is lost: `1e3` is 1000.0).
_DATA_TAGS: dict[type, str] = {str: STR_TAG, type(None): NULL_TAG, bool: BOOL_TAG, int: INT_TAG, float: FLOAT_TAG,
                               bytes: BINARY_TAG}


def of_data(data: dict[str, Any]) -> Identity:
    """The identity of an item's data (a mapping)."""
    meta = data.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    found = (("apiVersion", data.get("apiVersion")), ("kind", data.get("kind")), ("metadata.name", meta.get("name")),
             ("metadata.namespace", meta.get("namespace")), (GENERATE_NAME, meta.get("generateName")))
    scalars: dict[str, tuple[str, str]] = {}
    for name, value in found:
        tag = _DATA_TAGS.get(type(value))  # None: a mapping or a list
        if tag is not None:
            scalars[name] = (tag, str(value).lower() if tag == BOOL_TAG else str(value))
    return identity(scalars)
