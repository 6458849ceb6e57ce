"""Every finding's message is ONE greppable literal (issue 7): `grep` for a phrase seen on stderr or in a
fixture finds its one home. These phrases come from messages raised outside the finding calls that
tests/test_findings.py parses (InputError, the embedded document's unmarshal errors, the alias checks), which
a review found split across string literals.
"""
from __future__ import annotations

import itertools
import tokenize
from pathlib import Path

import pytest

KRM_FN = Path(__file__).resolve().parent.parent / "krm_fn"

# (a phrase exactly as it is printed, the stderr line it comes from, its id)
SEEN = [
    # printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nitems: []\n' | kaito-specdec
    ("which one is meant is not clear, and kpt and Kubernetes refuse such a document",
     "[error] ResourceList: the key 'items' appears twice in the ResourceList (line 3 and line 4): which one is "
     "meant is not clear, and kpt and Kubernetes refuse such a document [SD001]", "SD001"),
    # printf 'a: 1\n---\nb: 2\n' | kaito-specdec
    ("expected one ResourceList (use `kaito-specdec render` for a plain stream)",
     "[error] ResourceList: input holds 2 YAML documents; expected one ResourceList (use `kaito-specdec render` "
     "for a plain stream) (line 3, column 1) [SD001]", "SD001"),
    # printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n' | kaito-specdec
    ("expected ResourceList or List (use `kaito-specdec render -` for plain manifests)",
     "[error] ResourceList: input is not a ResourceList: kind is 'Pod'; expected ResourceList or List (use "
     "`kaito-specdec render -` for plain manifests) (line 1, column 1) [SD001]", "SD001"),
    # a referenced ConfigMap whose inference_config.yaml is `vllm: [a]` (fixtures: SD126)
    ("into map[string]string (vllm)", "... yaml: unmarshal errors: line 1: cannot unmarshal !!seq into "
     "map[string]string (vllm) ... [SD126]", "SD126"),
    ("into string (a key under vllm)", "... cannot unmarshal !!map into string (a key under vllm) [SD126]", "SD126"),
    # yamlio.py:217 (an alias cycle in an item, SD009, or in an embedded inference_config.yaml, SD125)
    ("it would expand without end (a cycle)", "... an alias inside it names a node that contains that alias: it "
     "would expand without end (a cycle) [SD125]", "SD125"),
    # writer.py:181 (the line as that code builds it)
    ("so it can only be written out whole, and it cannot be read",
     "[error] ResourceList: items[0] shares anchors with other items of its list, so it can only be written out "
     "whole, and it cannot be read: ... [SD001]", "SD001"),
]


def _sources() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in sorted(KRM_FN.rglob("*.py"))}


@pytest.mark.parametrize("phrase,line,id", SEEN, ids=[s[2] + ":" + s[0][:30] for s in SEEN])
def test_a_message_seen_on_stderr_is_found_by_grep(phrase: str, line: str, id: str) -> None:
    assert phrase in line  # the phrase is what the user sees
    homes = [p.name for p, text in _sources().items() if phrase in text]
    assert homes, f"grep -rF {phrase!r} krm_fn/ finds nothing: the {id} message is split across string literals"


def _split_literals(path: Path) -> list[int]:
    """Lines where a string literal is followed by another (implicit concatenation): a split message."""
    with path.open(encoding="utf-8") as f:
        toks = [t for t in tokenize.generate_tokens(f.readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    return [a.start[0] for a, b in itertools.pairwise(toks) if a.type == tokenize.STRING and b.type == tokenize.STRING]


# The modules whose literals become findings' messages (cli.py's argparse help, monitoring.py's alert texts and
# the regular expressions in vllm_schema.py / yamlio.py:325 are not findings and are left out).
MESSAGE_MODULES = ["text/reader.py", "text/writer.py", "domain/inference_config.py"]


@pytest.mark.parametrize("name", MESSAGE_MODULES)
def test_no_finding_message_is_split_across_literals(name: str) -> None:
    assert _split_literals(KRM_FN / name) == []
