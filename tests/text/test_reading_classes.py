"""The reading classes of issue 40 the reader owned: an explicit key with no value ending an item, an alias as a
key in the identity, a byte-order mark inside a document, and a file kubectl reads as JSON. Each held as plain
tables here; tests/e2e/test_e2e_kubectl_reading.py holds the same bytes against the real kubectl and kustomize."""
from __future__ import annotations

import pytest

import golden
import yaml

from krm_fn.text import items, reader, refusals, tree, yamlio
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


WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  labels: {&ns namespace: x}
  name: ws
  *ns : prod
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
resource:
  instanceType: "Standard_NC24ads_A100_v4"
inference:
  preset:
    name: "deepseek-r1-0528"
"""
# (id, document, (apiVersion, kind, name, namespace)): an alias as a key names the key its anchor names, as
# kubectl, kustomize and kpt read it
ALIAS_KEYS = [
    ("namespace", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {&ns namespace: x}\n  name: a\n  *ns : prod\n",
     ("v1", "ConfigMap", "a", "prod")),
    ("kind", "x: &k kind\napiVersion: v1\n*k : ConfigMap\nmetadata:\n  name: a\n", ("v1", "ConfigMap", "a", "")),
    ("name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {&n name: x}\n  *n : a\n", ("v1", "ConfigMap", "a", "")),
    ("annotation", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {&o kaito.sh/enable-speculative-decoding: x}\n"
     "  annotations:\n    *o : 'true'\n", ("v1", "ConfigMap", "a", "")),
]


@pytest.mark.parametrize("text, want", [c[1:] for c in ALIAS_KEYS], ids=[c[0] for c in ALIAS_KEYS])
def test_an_alias_as_a_key_in_the_identity_names_its_anchor_s_key(text: str, want: tuple[str, ...]) -> None:
    """Class 2, in both readings: a document of its own (render) and an entry of a ResourceList's items."""
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    entry = "".join(("- " if i == 0 else "  ") + ln + "\n" for i, ln in enumerate(text.splitlines()))
    (listed,) = reader.read_resource_list((ENVELOPE + entry).encode()).items
    for it in (item, listed):
        assert (it.api_version, it.kind, it.name, it.namespace) == want
    if "annotations" in text:
        assert item.annotation("kaito.sh/enable-speculative-decoding") == "true"


def test_a_derived_config_map_goes_to_the_namespace_an_alias_key_names() -> None:
    """Class 2: kubectl and kustomize read namespace `prod`; the derived ConfigMap was written with none."""
    r = run(["render", "-"], WORKSPACE)
    assert r.code == 0, r.err
    assert [(d["kind"], d["metadata"].get("namespace")) for d in r.docs] == [("ConfigMap", "prod"),
                                                                           ("Workspace", "prod")]


def test_an_alias_key_that_gives_a_key_again_is_a_key_given_twice() -> None:
    """`name: &n name` then `*n : real`: kustomize refuses the file ("mapping key "name" already defined"),
    kubectl reads the later one: a key given twice (SD004), on the alias's line."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n name\n  *n : real\n"
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.duplicate == ("name", 4, 5)
    r = run(["render", "-"], text)
    assert r.code == 1 and "[SD004]" in r.err, r.err
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  &k k: x\n  j: y\n  *k : z\n"
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.duplicate == ("k", 6, 8)  # in a mapping the walk does not read too


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"
# A byte-order mark that starts a line inside a document (not right after a `---` line, where kubectl's
# splitter and kyaml's begin a document and go-yaml skips it): kubectl, kustomize and kpt read it as a character
# of what follows, or drop what follows `...`; libyaml skips it, and the function cut a new document there.
INNER_BOMS = [
    ("after-dots", CM.format("a") + "...\n\ufeff" + CM.format("b"), 6),
    ("before-a-key", CM.format("a") + "\ufeffdata:\n  k: v\n", 5),
    ("files-joined", CM.format("a") + "\ufeff" + CM.format("b"), 5),
    ("blank-line-after-separator", CM.format("a") + "---\n\n\ufeff" + CM.format("b"), 7),
    ("comment-after-separator", CM.format("a") + "---\n# b\n\ufeff" + CM.format("b"), 7),
    ("before-a-comment", CM.format("a") + "\ufeff# c\ndata: {}\n", 5),
]


@pytest.mark.parametrize("text, line", [c[1:] for c in INNER_BOMS], ids=[c[0] for c in INNER_BOMS])
def test_a_byte_order_mark_inside_a_document_is_refused(text: str, line: int) -> None:
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: a byte-order mark at the start of a line inside a " \
        "document" in r.err, r.err


def test_a_byte_order_mark_inside_a_resource_list_is_refused() -> None:
    r = run([], ENVELOPE + "- " + CM.format("a").replace("\n", "\n  ") + "\n\ufefffunctionConfig: {}\n")
    assert r.code == 1 and "(line 9, column 1)" in r.err, r.err
    assert "input is not valid YAML: a byte-order mark at the start of a line inside a document" in r.err, r.err


def test_a_byte_order_mark_inside_a_quoted_string_is_text() -> None:
    """kubectl, kustomize, kpt and libyaml read it as a character of the string (the function cut the string in
    two and refused the file)."""
    r = run(["render", "-"], CM.format("a") + 'data:\n  k: "x\n\ufeffy"\n')
    assert r.code == 0, r.err
    assert [d["data"] for d in r.docs] == [{"k": "x \ufeffy"}]


JSON_CM = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}'
# (id, file text, where kubectl's JSON decoder stops (line, column), None where it reads the file): a file whose
# first character but spaces is `{` is JSON to kubectl (k8s.io/apimachinery/pkg/util/yaml, GuessJSONStream);
# kustomize and kpt read it as YAML
KUBECTL_JSON = [
    ("flow-yaml", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", (1, 2)),
    ("comment", JSON_CM + " # c\n", (1, 70)),
    ("trailing-comma", JSON_CM.replace('"a"}', '"a",}') + "\n", (1, 68)),  # kubectl: "json: offset 68"
    ("yaml-after", JSON_CM + "\n---\n" + CM.format("b"), (2, 1)),
    ("nan", JSON_CM.replace('}}', '}, "x": NaN}') + "\n", (1, 75)),
    ("spaces-first", "\n \t\r\n{a: 1}", (3, 2)),
    ("json", JSON_CM + "\n", None),
    ("json-stream", JSON_CM + JSON_CM + "\n \t" + JSON_CM, None),
    ("comment-first", "# c\n{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", None),
    ("dashes-first", "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", None),
    ("past-the-peek", " " * 4096 + "{a: 1}\n", None),  # kubectl looks at the first 4096 bytes
    ("yaml", CM.format("a"), None),
]


@pytest.mark.parametrize("text, fault", [c[1:] for c in KUBECTL_JSON], ids=[c[0] for c in KUBECTL_JSON])
def test_a_file_kubectl_reads_as_json(text: str, fault: tuple[int, int] | None) -> None:
    assert refusals.kubectl_json_fault(text) == fault


def test_a_file_kubectl_refuses_as_json_and_kustomize_reads_is_warned_about(tmp_path) -> None:
    """Class 6: `render --mode validate` passed it in silence; the output (after `---`) is YAML to kubectl too."""
    path = tmp_path / "m.yaml"
    path.write_text("{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n")
    for mode in ("validate", "materialize"):
        r = run(["render", "--mode", mode, str(path)])
        assert r.code == 0, r.err
        assert f"{path}:1: [warning] v1/ConfigMap/a: kubectl reads this file as JSON (it starts with `{{`) and " \
            "refuses it (no JSON at line 1, column 2); kustomize and kpt read it as YAML, as kaito-specdec does: " \
            "write JSON, or put `---` first [SD013]" in r.err, r.err
    path.write_text(JSON_CM + "\n")
    r = run(["render", str(path)])
    assert r.code == 0 and "SD013" not in r.err, r.err


# --- ask 2: a region that reaches into the next item is not trusted -------------------------------------------

@pytest.fixture()
def regions_overreach(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader as it was before class 1 was fixed: an explicit key's missing value ends the region at the
    next token, inside the next item's line."""
    monkeypatch.setattr(tree, "unwritten", lambda *args: False)


def test_a_region_that_reaches_into_the_next_item_is_composed_with_its_document(regions_overreach: None) -> None:
    rl = reader.read_resource_list((ENVELOPE + DERIVED + USER_CM).encode())
    first, second = rl.items
    assert first.end > second.start  # the overreach the reader now checks
    assert first.shared and not second.shared and rl.shared == frozenset({0})
    assert first.data()["data"]["extra"] is None and second.data()["apiVersion"] == "v1"
    text = "apiVersion: v1\nkind: List\nitems:\n" + DERIVED + USER_CM
    first, second = reader.read_stream([("m.yaml", text.encode())]).items
    assert first.shared and first.data()["data"]["extra"] is None


def test_a_region_that_reaches_into_the_next_item_is_never_cut(regions_overreach: None) -> None:
    """Dropping the item whose region overreaches writes the list out whole: the next item keeps its line."""
    r = run([], ENVELOPE + DERIVED + USER_CM)
    assert r.code == 0, r.err
    assert [(i["apiVersion"], i["metadata"]["name"]) for i in r.items] == [("v1", "user-config")]
    text = "apiVersion: v1\nkind: List\nitems:\n" + USER_CM.replace("user-config", "first") + "      ? extra\n" + USER_CM
    r = run(["render", "-"], text)
    assert r.code == 0, r.err
    assert [(d["apiVersion"], d["metadata"]["name"]) for d in r.docs] == [("v1", "first"), ("v1", "user-config")]


def test_every_fixture_item_s_region_ends_before_the_next_begins() -> None:
    """The check holds no item of a fixture (their regions were right): none is shared but by an alias."""
    for case in sorted(golden.ROOT.iterdir()):
        if not (case / "input.yaml").exists() and not (case / "items.yaml").exists():
            continue
        text = golden.case_input(case.name)
        try:
            rl = reader.read_resource_list(text.encode())
        except Exception:  # noqa: BLE001 - a fixture of input the function refuses
            continue
        for item, after in zip(rl.items, rl.items[1:], strict=False):
            assert item.end <= after.start, (case.name, item)
        if "*" not in text:
            assert not rl.shared, case.name


# --- ask 4: items tied to each other are composed in their group, not with the whole list --------------------

TIED = """  - apiVersion: v1
    kind: ConfigMap
    metadata: &m
      name: a  # c
      labels: {team: &t one}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: b}
  -   apiVersion: v1
      kind: ConfigMap
      metadata:
        name: c
        labels: {team: *t}
      data:
        k: |
          x
  - apiVersion: v1
    kind: ConfigMap
    metadata: *m
    data:
      ? z
"""


def _marks(node) -> list[tuple]:
    return [(type(n).__name__, getattr(n, "value", None) if isinstance(n, yaml.ScalarNode) else None,
             n.start_mark.index, n.start_mark.line, n.start_mark.column) for n in tree.nodes(node)]


@pytest.mark.parametrize("head", [ENVELOPE, "apiVersion: v1\nkind: List\nitems:\n"], ids=["krm", "list"])
def test_items_tied_to_each_other_are_composed_in_their_group(head: str) -> None:
    text = head + TIED
    if head == ENVELOPE:
        items = reader.read_resource_list(text.encode()).items
    else:
        items = reader.read_stream([("m.yaml", text.encode())]).items
    a, b, c, d = items
    assert [i.shared for i in items] == [True, False, True, True] and a.tied is c.tied is d.tied is not None
    whole = tree.child(yamlio.compose(text), "items").value
    for item, node in zip(items, whole, strict=True):
        assert _marks(item.node) == _marks(node)  # the same nodes, where the whole document has them
    assert tree.child(d.node, "metadata") is tree.child(a.node, "metadata")  # one node, as the alias names it
    assert c.data()["metadata"]["labels"] == {"team": "one"} and d.data()["metadata"]["name"] == "a"
    assert (d.name, c.data()["data"]) == ("a", {"k": "x\n"})


def test_items_without_annotations_share_one_empty_record_that_stays_empty() -> None:
    """(ask 4: 120 bytes an item of 100 000) The reader gives an item with annotations its own dict and list."""
    text = ENVELOPE + "- kind: A\n- kind: B\n  metadata:\n    annotations: {a: x, b: 1}\n- kind: C\n  metadata: {annotations: {}}\n"
    a, b, c = reader.read_resource_list(text.encode()).items
    assert a.ann is items._NO_ANNOTATIONS and a.ann_keys is items._NO_KEYS
    assert (b.ann, b.ann_keys, c.ann, c.ann_keys) == ({"a": "x"}, ["a", "b"], {}, [])
    assert c.ann is not items._NO_ANNOTATIONS and items._NO_ANNOTATIONS == {} and items._NO_KEYS == []
