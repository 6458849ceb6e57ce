"""The readings issue 40's differential fuzzer still tolerated by name, each now refused or warned about as the
readers disagree: two byte-order marks in a row, an alias inside the node it names (a cycle), an alias key whose
anchor's text go-yaml v3 reads as no string, a value tagged `!`, and a List's last entry held to the List's next
key. tests/e2e/test_e2e_kubectl_reading.py holds the same bytes against the real kubectl and kustomize."""
from __future__ import annotations

import pytest

from krm_fn.text import items, reader, tree
from runner import run

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"
BOM = "\ufeff"

# --- two byte-order marks in a row ----------------------------------------------------------------------------

DOUBLED = [
    ("at-the-start", BOM + BOM + CM.format("a"), 1),
    ("after-separator", CM.format("a") + "---\n" + BOM + BOM + CM.format("b"), 6),
    ("after-separator-with-comment", CM.format("a") + "--- # b\n" + BOM + BOM + CM.format("b"), 6),
]


@pytest.mark.parametrize("text, line", [c[1:] for c in DOUBLED], ids=[c[0] for c in DOUBLED])
def test_two_byte_order_marks_in_a_row_are_refused(text: str, line: int) -> None:
    """kubectl reads past two at the file's start (its file reader takes one off, go-yaml the next) and
    kustomize refuses the object ("missing kind"); after `---` both refuse. The function read both silently."""
    r = run(["render", "-"], text.encode("utf-8"))
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: two byte-order marks in a row" in r.err, r.err


@pytest.mark.parametrize("text", [BOM + CM.format("a"), CM.format("a") + "---\n" + BOM + CM.format("b")],
                         ids=["at-the-start", "after-separator"])
def test_one_byte_order_mark_where_a_document_begins_is_read(text: str) -> None:
    r = run(["render", "-"], text.encode("utf-8"))
    assert r.code == 0 and "byte-order" not in r.err, r.err


# --- an alias inside the node it names ------------------------------------------------------------------------

CYCLE = """apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: g
spec: &s
  replicas: 1
  template:
    spec:
      containers:
      - name: x
        copy: *s
"""


def test_an_alias_inside_the_node_it_names_is_refused_in_any_object() -> None:
    """kubectl and kustomize refuse the file; the function said so only of an object a stage reads."""
    (item,) = reader.read_stream([("m.yaml", CYCLE.encode())]).items
    assert item.cycle
    r = run(["render", "--mode", "validate", "-"], CYCLE)
    assert r.code == 1, r.err
    assert "<stdin>:1: [error] apps/v1/StatefulSet/g: cannot be read as a Kubernetes object: " \
        "spec.template.spec.containers[0].copy: an alias inside it names a node that contains that alias" in r.err, r.err
    assert r.err.count("[SD009]") == 1, r.err


@pytest.mark.parametrize("text", [
    CM.format("a") + "data: &d {k: v}\nextra: *d\n",                      # after the node ends: a copy
    CM.format("a") + "data: &d {k: &d v, j: *d}\n",                       # the later anchor, a scalar, wins
    CM.format("a") + "data: {k: &d [1]}\nextra: {j: *d}\n",
], ids=["after-it-ends", "anchor-given-again", "sibling"])
def test_an_alias_outside_the_node_it_names_is_no_cycle(text: str) -> None:
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert not item.cycle


def test_a_cycle_in_a_resource_list_item_is_found() -> None:
    envelope = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    rl = reader.read_resource_list((envelope + "- " + CYCLE.replace("\n", "\n  ").rstrip() + "\n").encode())
    assert [i.cycle for i in rl.items] == [True]


# --- an alias as a key, its anchor's text no string to go-yaml v3 -----------------------------------------------

def _alias_key(value: str, where: str = "annotations") -> str:
    if where == "data":  # (a plain `true` is no annotation's or label's value: SD066)
        return CM.format("a") + f"data:\n  k: &b {value}\n  *b : v\n"
    return CM.format("a") + f"  {where}:\n    k: &b {value}\n    *b : v\n"


@pytest.mark.parametrize("value, reads, where", [('"true"', "a boolean", "annotations"), ("'5'", "a number", "annotations"),
                                                 ("true", "a boolean", "data"), ('"~"', "null", "annotations"),
                                                 ("1.5", "a number", "data"), ("2024-01-01", "a timestamp", "data"),
                                                 ('"2024-01-01"', "a timestamp", "annotations")])
def test_an_alias_key_whose_anchor_reads_as_no_string_is_warned_about(value: str, reads: str, where: str) -> None:
    """kubectl sends the key "true"; kustomize refuses the object (`json: unsupported type:
    map[interface {}]interface {}`) where kyaml rewrites the mapping (annotations, in every build)."""
    (item,) = reader.read_stream([("m.yaml", _alias_key(value, where).encode())]).items
    assert item.alias_key is not None and item.alias_key[0] == "b" and item.alias_key[2] == 6
    r = run(["render", "--mode", "validate", "-"], _alias_key(value, where))
    assert r.code == 0, r.err
    assert "<stdin>:7: [warning] v1/ConfigMap/a: the key *b is its anchor's text" in r.err, r.err
    assert f"read it again as {reads} where they rewrite the mapping" in r.err and "[SD019]" in r.err, r.err


@pytest.mark.parametrize("value, where", [("abc", "data"), ("'abc'", "annotations"), ('"yes"', "data"),
                                          ('"2024-01-01"', "data"), ("'5'", "labels"), ('"true"', "data")])
def test_an_alias_key_every_reader_reads_alike_is_read(value: str, where: str) -> None:
    """A quoted anchor's text is read again only where kyaml rewrites the mapping (annotations): in `data` or
    `labels` of a plain build kustomize and kpt read the key "5" as kubectl does."""
    (item,) = reader.read_stream([("m.yaml", _alias_key(value, where).encode())]).items
    assert item.alias_key is None
    r = run(["render", "--mode", "validate", "-"], _alias_key(value, where))
    assert r.code == 0 and "SD019" not in r.err, r.err


def test_an_alias_key_in_a_mapping_the_walk_does_not_read_is_found_too() -> None:
    text = CM.format("a") + "data:\n  k: &b 5\n  *b : v\n"
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.alias_key == ("b", "5", 6, "alias", "a number")


def test_an_alias_key_of_a_plain_y_is_read_apart() -> None:
    """kubectl reads `{k: true, "true": v}`, kustomize `{k: "y", "y": v}` (the review of this change)."""
    r = run(["render", "--mode", "validate", "-"], _alias_key("y", "data"))
    assert "<stdin>:7: [warning] v1/ConfigMap/a: the key y reads as a boolean to kubectl, which sends the key " \
        '"true", and as the string "y" to kustomize and kpt; quote it [SD019]' in r.err, r.err


def test_an_alias_key_hides_no_other_key_finding() -> None:
    """A null key kubectl and kustomize refuse (SD018) is said beside the alias key's warning."""
    text = CM.format("a") + '  annotations:\n    k: &t "true"\n    *t : v\ndata:\n  ~: x\n'
    r = run(["render", "--mode", "validate", "-"], text)
    assert r.code == 1 and "[SD019]" in r.err and "[SD018]" in r.err, r.err


def test_an_alias_key_and_a_cycle_in_a_resource_list_whose_items_are_an_alias_are_found() -> None:
    envelope = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nstash: &l\n- apiVersion: v1\n"
                "  kind: ConfigMap\n  metadata:\n    name: a\n  data: &d {x: *d}\nitems: *l\n")
    r = run([], envelope)
    assert r.code == 1 and "data.x: an alias inside it names a node that contains that alias" in r.err, r.err


# --- a value tagged `!` ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, reads", [("! 5", "a number"), ("! true", "a boolean"), ("!  ~", "null"),
                                          ("! 1e3", "a number"), ("! yes", "a boolean"), ("&a ! 5", "a number"),
                                          ("! &a 5", "a number"), ("!\n      5", "a number"), ("!<!> 5", "a number")])
def test_a_value_tagged_non_specific_that_kyaml_writes_back_as_no_string_is_warned_about(value: str,
                                                                                         reads: str) -> None:
    """kubectl reads `! 5` as "5"; kustomize and kpt write `5` (a number to kubectl after them)."""
    text = CM.format("a") + f"  labels:\n    v: {value}\n"
    r = run(["render", "--mode", "validate", "-"], text)
    assert r.code == 0, r.err
    shown = value.rsplit(None, 1)[1]
    assert f"<stdin>:6: [warning] v1/ConfigMap/a metadata.labels.v: `! {shown}` is the string" in r.err, r.err
    assert f"which kubectl then reads as {reads}: quote it instead [SD068]" in r.err, r.err


def test_an_empty_value_tagged_non_specific_is_warned_about_once_per_object() -> None:
    """`v: !` is "" to kubectl and null once kyaml has written it back; each object's first such value is said
    (a thousand in one object would find each field from its root again)."""
    text = CM.format("a") + "data:\n  v: !\n  w: ! 5\n"
    r = run(["render", "--mode", "validate", "-"], text)
    assert "<stdin>:6: [warning] v1/ConfigMap/a data.v: `! ` is the string \"\" to kubectl" in r.err, r.err
    assert r.err.count("[SD068]") == 1, r.err


def test_a_key_tagged_non_specific_that_reads_as_no_string_is_warned_about() -> None:
    """kubectl sends the key "5"; kustomize refuses the object."""
    r = run(["render", "--mode", "validate", "-"], CM.format("a") + "data:\n  ! 5 : v\n")
    assert r.code == 0 and "the key ! 5 reads as a key tagged !" in r.err and "[SD019]" in r.err, r.err


@pytest.mark.parametrize("value", ["! x", '! "5"', "!!str 5", "'! 5'", "|\n      ! 5", "a! 5", "!foo 5"])
def test_a_value_tagged_otherwise_or_a_string_anyway_is_not(value: str) -> None:
    text = CM.format("a") + f"data:\n  v: {value}\n"
    r = run(["render", "--mode", "validate", "-"], text)
    assert "SD068" not in r.err, r.err


# --- a List's last entry is held to the List's next key -----------------------------------------------------------

# A List whose root mapping is indented (as a document may be): its next key after `items` is no line start.
LAST = """  apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: last
    data:
      ? extra
  metadata:
    name: the-list
"""


def test_a_list_s_last_entry_that_reaches_into_the_list_s_next_key_is_composed_with_its_document(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With an explicit key's empty value marked at the next token (the reader before class 1's fix), the last
    entry's region reached the List's `metadata:` line: the region is not trusted."""
    monkeypatch.setattr(tree, "unwritten", lambda *args: False)
    (item,) = reader.read_stream([("m.yaml", LAST.encode())]).items
    assert item.end > LAST.index("metadata:\n    name: the-list")  # the overreach
    assert item.shared and item.data()["data"] == {"extra": None}


def test_a_list_s_last_entry_ends_before_the_list_s_next_key() -> None:
    (item,) = reader.read_stream([("m.yaml", LAST.encode())]).items
    assert item.end <= LAST.index("metadata:\n    name: the-list") and not item.shared
    assert isinstance(item, items.Item)


# --- a byte-order mark after a `---` that ends no document ---------------------------------------------------------

@pytest.mark.parametrize("text, line", [
    ("---\n" + BOM + CM.format("a"), 2),                                  # the file's first line
    ("--- # c\n" + BOM + CM.format("a"), 2),
    (CM.format("z") + "---\n---\n" + BOM + CM.format("a"), 7),            # a second `---` in a row
], ids=["file-starts-with-separator", "with-a-comment", "second-separator-in-a-row"])
def test_a_byte_order_mark_after_a_separator_that_ends_no_document_is_refused(text: str, line: int) -> None:
    """kubectl's splitter (YAMLReader.Read) returns its buffer at a `---` line only when the buffer holds
    something; else the `---` line is written into the next document's bytes, and go-yaml reads the mark after
    it as a character: kubectl and kustomize read the key `\\ufeffapiVersion` (the fuzzer, seed 12 input 384)."""
    r = run(["render", "-"], text.encode("utf-8"))
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: a byte-order mark at the start of a line inside a " \
        "document" in r.err, r.err


@pytest.mark.parametrize("text", [
    "# c\n---\n" + BOM + CM.format("a"),                                  # a comment line fills the buffer
    CM.format("z") + "---\n---\n---\n" + BOM + CM.format("a"),            # the third returns the second
    CM.format("z") + "---\n\n---\n" + BOM + CM.format("a"),               # so does a blank line
], ids=["comment-first", "third-separator", "blank-line-between"])
def test_a_byte_order_mark_after_a_separator_that_ends_a_document_is_read(text: str) -> None:
    r = run(["render", "-"], text.encode("utf-8"))
    assert r.code == 0 and "byte-order" not in r.err, r.err
    assert [d["metadata"]["name"] for d in r.docs][-1] == "a"


def test_a_parse_error_after_a_byte_order_mark_is_placed_in_the_file() -> None:
    """The document after `---` and a mark is read as a piece of its own: libyaml's error was placed by its
    line in the piece (line 6 here), not in the file (the review of this change)."""
    text = CM.format("a") + "---\n" + BOM + CM.format("b") + "  bad: [\n"
    r = run(["render", "-"], text.encode("utf-8"))
    assert r.code == 1 and "<stdin>:11: [error] input is not valid YAML: while parsing a flow node: did not find " \
        "expected node content (line 11, column 1)" in r.err, r.err


# --- a document that is only `...` ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, line", [
    (CM.format("a") + "---\n...\n---\n" + CM.format("b"), 6),
    (CM.format("a") + "---\n# c\n\n...  # end\n", 8),
], ids=["between-documents", "after-comments"])
def test_a_document_that_is_only_a_document_end_is_refused(text: str, line: int) -> None:
    """go-yaml finds no node in the bytes kubectl's splitter cut after `---` ("did not find expected node
    content"): kubectl and kustomize refuse the file; libyaml read an empty document (the review)."""
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: a document that is only `...` after `---`" in r.err, r.err


@pytest.mark.parametrize("text", [CM.format("a") + "...\n", CM.format("a") + "...\n---\n" + CM.format("b"),
                                  CM.format("a") + "---\n---\n...\n---\n" + CM.format("b")],
                         ids=["ending-a-document", "then-separator", "after-a-second-separator"])
def test_a_document_end_after_a_document_is_read(text: str) -> None:
    r = run(["render", "--mode", "validate", "-"], text)
    assert "only `...`" not in r.err and "not valid YAML" not in r.err, r.err


# --- a keep block scalar ending its document before a comment -------------------------------------------------------

KEEP = CM.format("a") + "data:\n  k: |+\n    x\n"


@pytest.mark.parametrize("tail, said", [
    ("\n# c\n", True), ("\n# c\n---\n" + CM.format("b"), True), ("\n\n# c\n", True), ("\n  # c\n", True),
    ("# c\n", False), ("\n", False), ("\n    # c\n", False), ("  # c\n", False),
], ids=["blank-then-comment", "before-another-document", "two-blank-lines", "indented-comment", "comment-at-once",
        "no-comment", "comment-inside-the-block", "comment-at-once-indented"])
def test_a_keep_block_scalar_ending_its_document_before_a_comment_is_warned_about(tail: str, said: bool) -> None:
    """kubectl reads "x\\n\\n", `kustomize build` writes back "x\\n\\n\\n" (the fuzzer, seed 2 input 455 of 10,000:
    tests/e2e/test_e2e_kubectl_reading.py holds it against both)."""
    r = run(["render", "--mode", "validate", "-"], KEEP + tail)
    assert r.code == 0, r.err
    assert ("<stdin>:6: [warning] v1/ConfigMap/a data.k: this keep block scalar (`|+`) ends its document" in r.err) \
        is said, r.err


def test_a_cascade_child_s_own_opt_in_that_is_no_string_is_refused_as_kubectl_refuses_it() -> None:
    """The child's checks read its parent's value cascaded over its own; its own (`!!float 2`) is still what
    kubectl refuses (the fuzzer, seed 32 input 1350 of 10,000)."""
    text = ("apiVersion: kaito.sh/v1beta1\nkind: InferenceSet\nmetadata:\n  name: s\nspec:\n  template:\n"
            "    metadata:\n      annotations:\n        kaito.sh/enable-speculative-decoding: \"false\"\n"
            "    inference:\n      preset:\n        name: phi-4\n---\napiVersion: kaito.sh/v1beta1\nkind: Workspace\n"
            "metadata:\n  name: s-0\n  labels:\n    inferenceset.kaito.sh/created-by: s\n  annotations:\n"
            "    kaito.sh/enable-speculative-decoding: !!float 2\nresource: {instanceType: x}\ninference:\n"
            "  preset:\n    name: phi-4\n")
    r = run(["render", "--mode", "validate", "-"], text)
    assert r.code == 1 and "<stdin>:21: [error] kaito.sh/v1beta1/Workspace/s-0 metadata.annotations[" \
        "kaito.sh/enable-speculative-decoding]: the value 2 reads as a number" in r.err, r.err
    assert r.err.count("[SD066]") == 1 and "SD102" not in r.err, r.err


@pytest.mark.parametrize("text, line", [(CM.format("a") + "---#c\n" + CM.format("b"), 5), ("---# c\n" + CM.format("a"), 1)],
                         ids=["between-documents", "first-line"])
def test_a_separator_with_a_comment_and_no_space_is_refused_in_plain_words(text: str, line: int) -> None:
    """kubectl's and kyaml's splitters take `---#c` for a separator; libyaml a plain scalar, and its parse error
    named no cause (the review)."""
    r = run(["render", "-"], text)
    assert (r.code, r.out) == (1, ""), r.err
    assert f"<stdin>:{line}: [error] input is not valid YAML: `---#` with no space before the comment" in r.err, r.err
