"""Generated multi-document streams for `render`'s fast-path equivalence test (tests/test_render_fastread.py):
the objects of tests/fastpath_cases.py written as documents at column 0, each stream put through a few of
the ways streams differ (document markers `---`/`...`, `--- ` with content on the marker line, comments
before the first document, `%YAML`/`%TAG` directives, empty documents, CRLF, no final line break, JSON
documents, a `kind: List`, a BOM, anchors across documents) and of the item mutations that have fooled
line scanners before. Many make invalid YAML or invalid objects on purpose: the two paths must still agree.
"""
from __future__ import annotations

import random

from fastpath_cases import DOCS, _mutations

SEPARATORS = ["---\n", "---\n", "---\n", "--- # next\n", "...\n---\n", "---\n# Source: chart/templates/x.yaml\n",
              "\n---\n\n", "---   \n"]
LIST = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: l\n"
        "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: m\n")


def _stream_mutations(rng: random.Random) -> list:
    def directive(t: str) -> str:
        head = rng.choice(["%YAML 1.1\n", "%YAML 1.2\n", "%TAG !e! tag:example.com,2000:\n", "%FOO bar\n"])
        return head + (t if t.startswith("---") else "---\n" + t)

    def marker_content(t: str) -> str:
        return t.replace("---\n", "--- " + rng.choice(["{a: 1}\n", "|\n  x\n", "!!map\n", "apiVersion: v1\n",
                                                       "&a\n", "[1, 2]\n", "'x'\n", "kind: Secret\n"]), 1)

    def empty_documents(t: str) -> str:
        return t.replace("---\n", rng.choice(["---\n---\n", "---\n# only a comment\n---\n", "--- ~\n---\n",
                                              "---\nnull\n---\n", "---\n...\n---\n", "---\n  \n---\n"]), 1) \
            + rng.choice(["", "---\n", "---\n# end\n", "...\n"])

    def comments_first(t: str) -> str:
        return rng.choice(["# header\n# kaito\n", "  # indented\n\n", "---\n", "# c\n---\n"]) + t

    def crlf(t: str) -> str:
        return t.replace("\n", rng.choice(["\r\n", "\r"]))

    def no_final_break(t: str) -> str:
        return t.rstrip("\n")

    def json_document(t: str) -> str:
        doc = rng.choice(['{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}\n',
                          '{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": {"name": "j"}\n}\n',
                          '["a", "b"]\n'])
        return t + "---\n" + doc if rng.random() < 0.5 else doc + "---\n" + t

    def list_document(t: str) -> str:
        return t + "---\n" + LIST.replace("kind: List", rng.choice(["kind: List", "kind: ResourceList",
                                                                    "kind: SecretList"]))

    def dots(t: str) -> str:
        return t.replace("---\n", rng.choice(["...\n", "...\n# after the end\n", "... # c\n---\n"]), 1)

    def bom(t: str) -> str:
        return "\ufeff" + t

    def odd_markers(t: str) -> str:
        return t.replace("---\n", rng.choice(["----\n", "---x\n", "---\t\n", " ---\n", "--- #c\n", "...x\n"]), 1)

    def anchors_across(t: str) -> str:
        return t.replace("replicas: 2", "replicas: &r 2", 1).replace("targetPort: http", "targetPort: *r", 1)

    def scalar_document(t: str) -> str:
        return t + "---\n" + rng.choice(["just a string\n", "- a\n- b\n", "42\n", "|\n  text\n", "!!str x\n"])

    return [directive, marker_content, empty_documents, comments_first, crlf, no_final_break, json_document,
            list_document, dots, bom, odd_markers, anchors_across, scalar_document]


def stream(seed: int) -> tuple[str, bool]:
    """(a `---` stream, whether it is left unmutated: a plain stream the fast path should take)."""
    rng = random.Random(seed)
    docs = [rng.choice(DOCS)(seed * 10 + k) for k in range(rng.randrange(1, 7))]
    text = rng.choice(["", "", "---\n", "# a header\n---\n"]) + docs[0]
    for doc in docs[1:]:
        text += rng.choice(SEPARATORS) + doc
    plain = rng.random() < 0.25
    if not plain:
        stream_mutations = _stream_mutations(rng)
        item_mutations = [m for m in _mutations(rng) if m.__name__ not in ("crlf", "json_item", "non_mapping",
                                                                            "envelope", "tail_keys")]
        for mutate in rng.sample(stream_mutations, rng.randrange(1, 3)) + \
                rng.sample(item_mutations, rng.randrange(0, 3)):
            text = mutate(text)
    return text, plain


def split(text: str, rng: random.Random) -> list[str]:
    """The stream cut into files at some of its `---` lines (what `render DIR` reads)."""
    parts = text.split("\n---\n")
    files, current = [], parts[0]
    for part in parts[1:]:
        if rng.random() < 0.5:
            files.append(current + "\n")
            current = part
        else:
            current += "\n---\n" + part
    return files + [current]
