"""Every string the function writes reads back as that same string under go-yaml v2 (kubectl, Argo CD, every
sigs.k8s.io/yaml user), go-yaml v3 (kpt, kustomize), YAML 1.1 (PyYAML) and YAML 1.2's core schema (issue 19,
class 1): the emitter, the text editor and whole runs, over generated look-alike strings (tests/goyaml.py)
and not only a hand-written list. tests/goyaml.py's go-yaml v2 rules are checked against the real kubectl in
tests/e2e/test_e2e_kubectl_strings.py, which also sends the function's own output through kubectl.

Also: a scalar tagged `!` (YAML's non-specific tag) is a string to go-yaml and so to the API server; the
the reader reads it so.
"""
from __future__ import annotations

import json

import pytest
import yaml

import goyaml
from build import add, rep
from krm_fn.text import go_scalars, reader, textedit, yamlio
from runner import run

# Seeded: the same strings on every run (goyaml.HAND_WRITTEN first, the among them). The emitter
# takes them all; the text editor and whole runs, slower, the first SOME.
LOOKALIKES = goyaml.lookalikes(19, 1000)
SOME = LOOKALIKES[:400]


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _batches(values: list[str], size: int = 50) -> list[list[str]]:
    return [values[i:i + size] for i in range(0, len(values), size)]


def _edited(text: str, ops: list[dict]) -> tuple[str, bool]:
    """The document with the ops applied as the function applies them (text edits verified by a re-parse,
    else the document emitted whole), and whether the text's `# kept` comment stayed (text edits made it)."""
    out = textedit.edit_document(text, ops)
    return out, "# kept" in out


def test_the_look_alikes_include_what_each_reader_misreads():
    """The generator reaches every reader's edge: strings only go-yaml v2 misreads, only v3, only YAML 1.2
    or only PyYAML (each reader's rules count), and the issue's own."""
    def misread(resolve) -> set[str]:
        return {s for s in LOOKALIKES if type(resolve(s)) is not str}

    v2, v3, core = (misread(resolve) for _, resolve in goyaml.READERS)
    resolver = yaml.resolver.Resolver()
    pyyaml = misread(lambda s: s if resolver.resolve(yaml.ScalarNode, s, (True, False)) == go_scalars.STR_TAG else 0)
    assert v2 - v3 - core - pyyaml == {"y", "Y", "n", "N"}  # go-yaml v2's alone (YAML 1.1 has them, PyYAML not)
    for only in (v3 - v2, core - v2 - v3, pyyaml - v2 - v3 - core):  # `0o-7` and dates; 1e400; 0x + 17 digits
        assert len(only) >= 5, only
    assert {"y", "N", "0X1F", "0O17", "0B101", "+0o17", "-0O17", "1_e3", "1e1_0", "0_8", "+1_e3", "1.5_e3"} \
        <= {s for s in LOOKALIKES if type(goyaml.resolve_plain(s)) is not str}
    assert "1:20" in LOOKALIKES and type(yaml.safe_load("1:20")) is int  # YAML 1.1's sexagesimal
    assert goyaml.misread("a: y\n", [{"a": "y"}]) == ["go-yaml v2: [0].a: 'y' came back as bool True"]


def test_the_emitter_quotes_every_look_alike():
    """yamlio.dump (new items, derived ConfigMaps, items re-emitted whole): values, keys, list elements."""
    data = {"data": {f"v{i}": s for i, s in enumerate(LOOKALIKES)}, "keys": {s: "x" for s in LOOKALIKES},
            "list": LOOKALIKES}
    text = yamlio.dump(data)
    assert goyaml.misread(text, [data]) == []
    for s in LOOKALIKES:
        written = yamlio.scalar_text(s)
        assert goyaml.misread(f"k: {written}\n", [{"k": s}]) == [], written


@pytest.mark.parametrize("layout", ["block", "flow", "json"])
def test_the_text_editor_quotes_every_look_alike(layout):
    """New keys and values written into existing text, and plain values replaced in place."""
    kept = 0
    batches = _batches([s for s in SOME if s != "-"])  # (jsonpatch takes `-` for the end of a list)
    for values in batches:
        old = {f"k{i}": f"plain{i}" for i in range(len(values))}
        source = {"block": "data:  # kept\n" + "".join(f"  {k}: {v}\n" for k, v in old.items()),
                  "flow": "data: {" + ", ".join(f"{k}: {v}" for k, v in old.items()) + "}  # kept\n",
                  "json": "data: " + json.dumps(old) + "  # kept\n"}[layout]
        ops = [rep(f"/data/k{i}", s) for i, s in enumerate(values)]
        ops += [add(f"/data/{_pointer(s)}", s) for s in values]
        ops += [add("/data/nested", {f"n{i}": s for i, s in enumerate(values)}), add("/data/list", values)]
        edited, text_edits = _edited(source, ops)
        kept += text_edits
        want = {**{f"k{i}": s for i, s in enumerate(values)}, **{s: s for s in values},
                "nested": {f"n{i}": s for i, s in enumerate(values)}, "list": values}
        assert goyaml.misread(edited, [{"data": want}]) == []
    assert kept >= len(batches) - 2, "the text editor wrote (almost) every batch"


@pytest.mark.parametrize("layout", ["block", "flow"])
def test_plain_list_elements_replaced_in_place_are_quoted(layout):
    """A plain element of `args` replaced (its changed stretch edited in place) or appended."""
    kept = 0
    batches = _batches(SOME, 10)
    for values in batches:
        n = len(values)
        if layout == "block":
            text = "args:  # kept\n" + "".join(f"- a{i}\n" for i in range(2 * n))
        else:
            text = "args: [" + ", ".join(f"a{i}" for i in range(2 * n)) + "]  # kept\n"
        ops = [rep(f"/args/{i}", f"a{i}{s}") for i, s in enumerate(values)]  # a tail added in place
        ops += [rep(f"/args/{n + i}", s) for i, s in enumerate(values)]  # the element rewritten
        ops += [add("/args/-", s) for s in values]
        edited, text_edits = _edited(text, ops)
        kept += text_edits
        want = [f"a{i}{s}" for i, s in enumerate(values)] + values + values
        assert goyaml.misread(edited, [{"args": want}]) == []
    assert kept >= len(batches) // 2, "the text editor wrote most batches"


# --- whole runs -----------------------------------------------------------------------------------------

# Label values and annotation values: any string (the function copies them as they are).
# (Not the key `<<`, quoted or not: kubectl reads a key named <<, kustomize and kpt drop it, and the function
# refuses it: tests/text/test_reading_refusals.py.)
SOURCE_DATA = {**{f"v{i}": s for i, s in enumerate(SOME)}, **{f"{s}": "key" for s in SOME if s and s != "<<"},
               "inference_config.yaml": "vllm: {}\n"}
SOURCE_LABELS = {f"l{i}": s for i, s in enumerate(SOME[:200])} | {s: "k" for s in SOME[:200] if s and s != "<<"}
SOURCE_ANNOTATIONS = {f"a{i}": s for i, s in enumerate(SOME[:200])}
WORKSPACE = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
             "metadata": {"name": "w", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
             "resource": {"instanceType": "Standard_NC24ads_A100_v4", "labelSelector": {"matchLabels": {"a": "b"}}},
             "inference": {"preset": {"name": "phi-4"}, "config": "cm"}}
SOURCE = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "cm", "labels": SOURCE_LABELS, "annotations": SOURCE_ANNOTATIONS}, "data": SOURCE_DATA}


def _derived(docs: list) -> dict:
    (cm,) = [d for d in docs if d and d.get("kind") == "ConfigMap" and d["metadata"]["name"] != "cm"]
    return cm


def _as_derived_reads(out: str, docs: list) -> list:
    """What the derived ConfigMap must read back as, by any reader: the source's strings (its own
    inference_config.yaml and annotations are the function's)."""
    cm = _derived(docs)
    want = {"metadata": {"labels": SOURCE_LABELS, "annotations": SOURCE_ANNOTATIONS},
            "data": {k: v for k, v in SOURCE_DATA.items() if k != "inference_config.yaml"}}
    return [want if doc is cm else {} for doc in docs]  # the input's own text is copied as it is


def test_a_derived_configmap_copies_the_sources_strings_as_strings():
    """The issue's case: the derived ConfigMap copies the source's data, labels and annotations; kubectl
    read `feature: y` as true and `port: 0X50` as 80. (The input is JSON, its strings quoted: PyYAML would
    write `y` plain, which kubectl, and so the function, reads as true.)"""
    stream = "---\n".join(json.dumps(doc) + "\n" for doc in (SOURCE, WORKSPACE))
    code, out, err = run(["render", "-"], stream)
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    assert _derived(docs)["data"]["v0"] == "y"
    assert goyaml.misread(out, _as_derived_reads(out, docs)) == []


def test_a_json_resource_list_comes_out_with_its_strings():
    """A flow (JSON) ResourceList is written out as block YAML, every item through the emitter: an item
    nobody asked to change too."""
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "labels": SOURCE_LABELS},
             "data": SOURCE_DATA}
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [SOURCE, WORKSPACE, other]}
    code, out, err = run([], json.dumps(rl))
    assert code == 0, err
    (doc,) = yaml.safe_load_all(out)
    names = [item["metadata"]["name"] for item in doc["items"]]
    assert names[:2] == ["cm", "w"] and names[-1] == "other" and len(names) == 4, names
    assert doc["items"][0] == SOURCE and doc["items"][-1] == other
    derived = {"metadata": {"labels": SOURCE_LABELS, "annotations": SOURCE_ANNOTATIONS},
               "data": {k: v for k, v in SOURCE_DATA.items() if k != "inference_config.yaml"}}
    assert goyaml.misread(out, [{"items": [SOURCE, {}, derived, other]}]) == []


def test_an_item_sharing_an_anchor_with_an_edited_one_keeps_its_strings():
    """An item tied to the edited Workspace by an anchor is written out whole, with the Workspace."""
    labels = {f"l{i}": s for i, s in enumerate(SOME)}
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
            "- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: w\n"
            "    annotations: {kaito.sh/enable-speculative-decoding: \"true\"}\n"
            "    labels: &shared\n" + "".join(f"      l{i}: {json.dumps(s)}\n" for i, s in enumerate(SOME)) +
            "  resource: {instanceType: Standard_NC24ads_A100_v4, labelSelector: {matchLabels: {a: b}}}\n"
            "  inference: {preset: {name: phi-4}}\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: other\n    labels: *shared\n"
            "  data:\n" + "".join(f"    {json.dumps(s)}: {json.dumps(s)}\n" for s in SOME if s and s != "<<"))
    code, out, err = run([], text)
    assert code == 0, err
    (doc,) = yaml.safe_load_all(out)
    assert [item["metadata"]["name"] for item in doc["items"]][::2] == ["w", "other"]  # the derived one between
    assert doc["items"][2]["metadata"]["labels"] == labels and "&" not in out
    want = {"items": [{"metadata": {"labels": labels}}, {},
                      {"metadata": {"labels": labels}, "data": {s: s for s in SOME if s and s != "<<"}}]}
    assert goyaml.misread(out, [want]) == []


# --- `!`: the non-specific tag --------------------------------------------------------------------------

BANG = ("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n"
        "  annotations: {kaito.sh/enable-speculative-decoding: ! true}\n"
        "resource: {instanceType: Standard_NC24ads_A100_v4, labelSelector: {matchLabels: {a: b}}}\n"
        "inference: {preset: {name: phi-4}}\n")


@pytest.mark.parametrize("text, want", [
    ("a: ! true\n", {"a": "true"}), ("a: ! 12\n", {"a": "12"}), ("a: ! \"true\"\n", {"a": "true"}),
    ("a: [! y, !  0x1F, x]\n", {"a": ["y", "0x1F", "x"]}), ("! 1: z\n", {"1": "z"}), ("a: !\n", {"a": ""}),
    ("a: !<!> on\n", {"a": "on"}), ("a: !!str 1\n", {"a": "1"}), ("a: true # wow !\n", {"a": True}),
    ("a: \"! true\"\n", {"a": "! true"}), ("a: x! y\n", {"a": "x! y"}),
])
def test_a_non_specific_tag_makes_a_string(text, want):
    assert yamlio.load(text) == want
    assert yamlio.construct(yamlio.compose(text)) == want
    assert goyaml.read_all(text) == [want]  # go-yaml v2's reading (kubectl's too: tests/e2e)


def test_the_opt_in_annotation_tagged_bang_is_the_string_true():
    """`! true` is "true" to go-yaml and the API server: the Workspace opts in (it was SD102, a boolean)."""
    code, out, err = run(["render", "-"], BANG)
    assert code == 0, err
    assert "specdec-ngram-" in out and "SD102" not in err
    code, out, err = run([], "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
                         + "".join(("- " if i == 0 else "  ") + ln for i, ln in enumerate(BANG.splitlines(True))))
    assert code == 0, err
    assert "specdec-ngram-" in out


def test_the_reader_reads_bang_as_a_string_in_every_item():
    """Each item is composed from its own lines on first use: `!` reads as a string there too."""
    items = "".join(f"- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s{i}\n"
                    f"    labels: {{a: ! {i}, b: ! true}}\n" for i in range(3))
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    for item in reader.read_resource_list(text.encode()).items:
        assert item.data()["metadata"]["labels"] == {"a": str(item.index), "b": "true"}
