"""The input as a whole (krm_fn/stages/shape.py): items a cluster or kubectl would refuse (`shape_errors`) and the
same object twice (`duplicates`). Each row: small items built here -> the exact findings, as
(severity, object, field, message)."""
from __future__ import annotations

import pytest

from build import files_items, krm_items, meta
from krm_fn.stages.shape import (duplicates, fractions, merge_disputes, no_string_values, odd_keys, shape_errors,
                                 typed_metadata, unsendable)
from krm_fn.model.index import build_index
from krm_fn.text import reader
from stages.stagekit import index as stage_index, items as stage_items
import object_meta_cases

SVC = {"apiVersion": "v1", "kind": "Service", "metadata": meta("s")}
NOBODY = "(an object without apiVersion, kind or name)"  # how a result names an object with none of them


def findings(results) -> list[tuple]:
    return [(r.severity.value, r.resource.display() if r.resource else None, r.field_path, r.message)
            for r in results]


# items[0] of a ResourceList built by tests/build.py starts at line 4, column 3.
SHAPE_ERRORS = {
    "a-good-object": ([SVC], []),
    "not-a-mapping": (["42"], [("error", None, "", "items[0] (line 4, column 3) is not a mapping; every item "
                                                 "must be a Kubernetes object")]),
    "no-apiversion": ([{"kind": "Service", "metadata": meta("s")}],
                      [("error", "/Service/s", "apiVersion", "items[0] (line 4, column 3) has no apiVersion (a "
                                                             "non-empty string)")]),
    "empty-kind": ([dict(SVC, kind="")],
                   [("error", "v1//s", "kind", "items[0] (line 4, column 3) has no kind (a non-empty string)")]),
    "no-name": ([dict(SVC, metadata={"namespace": "ml"})],
                [("error", "v1/Service/ml/", "metadata.name", "items[0] (line 4, column 3) has no metadata.name "
                                                            "(a non-empty string)")]),
    "a-name-that-is-not-a-string": ([dict(SVC, metadata={"name": ["s"]})],
                                    [("error", "v1/Service/", "metadata.name", "items[0] (line 4, column 3) has "
                                                                              "no metadata.name (a non-empty "
                                                                              "string)")]),
    "an-empty-kind-and-no-apiversion": ([{"metadata": {}, "spec": {}, "kind": ""}],
                                     [("error", NOBODY, "", "items[0] (line 4, column 3) is not a Kubernetes "
                                                          "object: it has neither apiVersion nor kind")]),
    "generate-name-needs-no-name": ([dict(SVC, metadata={"generateName": "s-"})], []),
    "local-config-needs-no-name": ([dict(SVC, metadata={"annotations": {
        "config.kubernetes.io/local-config": "true"}})], []),
    "kustomize-group-needs-no-name": ([{"apiVersion": "kustomize.config.k8s.io/v1beta1",
                                       "kind": "Kustomization", "resources": ["a.yaml"]}], []),
    "neither-apiversion-nor-kind": ([{"metadata": meta("x")}],
                                    [("error", "//x", "", "items[0] (line 4, column 3) is not a Kubernetes "
                                                         "object: it has neither apiVersion nor kind")]),
    "a-bare-kustomization-by-shape": ([{"resources": ["a.yaml"], "namePrefix": "a-"}], []),
    "helm-chart": ([{"apiVersion": "v2", "name": "c", "version": "1.0.0"}],
                   [("error", "v2//", "kind", "items[0] (line 4, column 3) is a Helm chart's Chart.yaml, not a "
                                              "Kubernetes object (it has no kind); give kaito-specdec manifests "
                                              "only (render a chart with `helm template` first)")]),
    "ci-workflow": (["on: push\njobs: {build: {runs-on: x}}"],
                    [("error", NOBODY, "kind", "items[0] (line 4, column 3) is a CI workflow, not a Kubernetes "
                                             "object (it has no kind); give kaito-specdec manifests only")]),
    "ci-configuration": ([{"stages": ["build"], "build": {"script": ["make"]}}],
                         [("error", NOBODY, "kind", "items[0] (line 4, column 3) is a CI configuration file, not a "
                                                  "Kubernetes object (it has no kind); give kaito-specdec "
                                                  "manifests only")]),
    "a-key-twice": ("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels: {a: b}\n  labels: {c: d}",
                    [("error", "v1/Service/s", "", "items[0] (line 4, column 3): the key \"labels\" appears twice "
                                                   "(line 8 and line 9); Kubernetes refuses such a document")]),
    "a-key-twice-deep-in-a-list": ("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n"
                                   "  - {port: 80, port: 81}",
                                   [("error", "v1/Service/s", "", "items[0] (line 4, column 3): the key \"port\" "
                                                                  "appears twice (line 9 and line 9); Kubernetes "
                                                                  "refuses such a document")]),
    "an-int-key-and-its-quoted-text": ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  1: a\n  '1': b",
                                       [("error", "v1/ConfigMap/c", "", "items[0] (line 4, column 3): the key \"1\" "
                                                                        "appears twice (line 8 and line 9); Kubernetes "
                                                                        "refuses such a document")]),
    "one-key-in-two-mappings": ("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {name: s}", []),
    "each-bad-item-once": ([SVC, "42", {"kind": "Service", "metadata": meta("t")}],
                           [("error", None, "", "items[1] (line 5, column 3) is not a mapping; every item must "
                                                "be a Kubernetes object"),
                            ("error", "/Service/t", "apiVersion", "items[2] (line 6, column 3) has no apiVersion "
                                                                  "(a non-empty string)")]),
}


@pytest.mark.parametrize("docs, want", SHAPE_ERRORS.values(), ids=SHAPE_ERRORS.keys())
def test_shape_errors(docs, want) -> None:
    items = krm_items(*docs) if isinstance(docs, list) else krm_items(docs)
    assert findings(shape_errors(items)) == want


def test_kustomize_configuration_is_never_checked() -> None:
    items = krm_items("42", {"kind": "Service"}, SVC)
    assert findings(shape_errors(items, config={0, 1})) == []


def test_render_names_the_document_of_its_file_and_kpt_the_item_of_the_list() -> None:
    items = files_items(("a.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\n"
                                   "# second\nkind: Service\nmetadata:\n  name: b\n"))
    assert findings(shape_errors(items)) == [
        ("error", "/Service/b", "apiVersion", "document 2 (line 7, column 1) has no apiVersion (a non-empty string)")]
    # kpt's path annotation names its file, but the line is one of the ResourceList kpt sent
    kpt = krm_items(SVC, {"kind": "Service", "metadata": meta("b", annotations={
        "internal.config.kubernetes.io/path": "b.yaml"})})
    assert findings(shape_errors(kpt)) == [
        ("error", "/Service/b", "apiVersion", "items[1] of the ResourceList (line 5, column 3) has no apiVersion "
                                              "(a non-empty string)")]


# --- duplicates: the same (group, kind, namespace, name) twice -> a warning on the second ------------------

def deploy(api: str = "apps/v1", name: str = "d", namespace: str = "", annotations: dict | None = None) -> dict:
    return {"apiVersion": api, "kind": "Deployment", "metadata": meta(name, namespace, annotations)}


LOST = "(kind, namespace and name): one of them would be lost"
DUPLICATES = {
    "twice": ([deploy(), deploy()], [("warning", "apps/v1/Deployment/d", "", f"the same object as items[0] {LOST}")]),
    "three-times": ([deploy(), deploy(), deploy()],
                    [("warning", "apps/v1/Deployment/d", "", f"the same object as items[0] {LOST}")] * 2),
    # The version is not part of an object's identity; the group is.
    "another-version": ([deploy(), deploy("apps/v1beta1")],
                        [("warning", "apps/v1beta1/Deployment/d", "", f"the same object as items[0] {LOST}")]),
    "core-group": ([SVC, dict(SVC, apiVersion="v2")], [("warning", "v2/Service/s", "", f"the same object as "
                                                                                        f"items[0] {LOST}")]),
    "another-group": ([deploy(), deploy("example.com/v1")], []),
    "another-namespace": ([deploy(), deploy(namespace="ml")], []),
    "another-kind": ([deploy(), dict(deploy(), kind="StatefulSet")], []),
    "another-name": ([deploy(), deploy(name="e")], []),
    # Configuration for kustomize or kpt (each overlay's transformer config, say) may well repeat.
    "function-configs": ([deploy(annotations={"config.kubernetes.io/function": "x"})] * 2, []),
    "builtin-plugin-configs": ([{"apiVersion": "builtin", "kind": "LabelTransformer", "metadata": meta("l")}] * 2,
                               []),
    "local-config": ([deploy(annotations={"config.kubernetes.io/local-config": "true"})] * 2, []),
    "without-a-name": ([dict(deploy(), metadata={})] * 2, []),
    "not-mappings": (["42", "42"], []),
    "named-by-kpts-file": ([deploy(annotations={"internal.config.kubernetes.io/path": "apps/d.yaml"}), deploy()],
                           [("warning", "apps/v1/Deployment/d", "", f"the same object as apps/d.yaml {LOST}")]),
}


@pytest.mark.parametrize("docs, want", DUPLICATES.values(), ids=DUPLICATES.keys())
def test_duplicates(docs, want) -> None:
    assert findings(duplicates(krm_items(*docs))) == want


def test_duplicates_leave_out_kustomize_configuration() -> None:
    assert findings(duplicates(krm_items(deploy(), deploy(), deploy()), config={0, 1})) == []
    assert findings(duplicates(krm_items(deploy(), deploy(), deploy()), config={0})) == [
        ("warning", "apps/v1/Deployment/d", "", f"the same object as items[1] {LOST}")]


def test_a_duplicate_says_which_file_and_line_in_render() -> None:
    items = files_items(("a.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"),
                        ("b.yaml", "# again\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"))
    (result,) = duplicates(items)
    assert (result.message, result.file_path, result.file_line) == (
        f"the same object as a.yaml {LOST}", "b.yaml", 2)


# --- values kubectl cannot send (SD018) and fractions in integer fields (SD017) ---------------------------
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
UNSENDABLE = {
    # kubectl 1.32 `label --local -f`: "json: unsupported value: NaN" / "+Inf"; kustomize 5.5 the same.
    "nan": ("x: .nan", ("x", ".nan reads as NaN, which JSON cannot hold")),
    "nan-in-a-list": ("x: [1, .NaN]", ("x[1]", ".NaN reads as NaN, ")),
    "inf-tagged": ("x: {y: !!float +.inf}", ("x.y", "+.inf reads as infinity, ")),
    "minus-inf": ("x:\n- -.INF", ("x[0]", "-.INF reads as minus infinity, ")),
    # "yaml: cannot decode !!str `nan` as a !!float" (kubectl and kustomize)
    "float-tag-on-nan": ("x: !!float nan", ("x", "!!float nan: go-yaml cannot decode !!str `nan` as a !!float, ")),
    "int-tag-on-a-float": ("x: !!int 2.0", ("x", "!!int 2.0: go-yaml cannot decode !!float `2.0` as a !!int, ")),
    "null-tag-on-text": ("x: !!null a", ("x", "!!null a: go-yaml cannot decode !!str `a` as a !!null, ")),
    "a-nan-key-is-its-text": (".nan: 1", None),  # kubectl writes the key ".nan"
    "through-an-alias": ("a: &n .inf\nb: [*n]", ("a", ".inf reads as infinity, ")),
    "through-a-merge-key": ("a: &m {r: .nan}\nb:\n  <<: *m", ("a.r", ".nan reads as NaN, ")),
    "quoted": ("x: '.nan'\ny: \"-.inf\"", None),
    "float-tag-on-an-int": ("x: !!float 2", None),  # sent as 2
    "not-a-nan-word": ("x: .nanx\ny: nan\nz: .Nan", None),  # strings to go-yaml
    # "yaml: !!binary value contains invalid base64 data" (kubectl 1.32 and kustomize 5.5), anywhere in an object
    "binary-not-base64": ("x:\n  y: [!!binary QQ=]", ("x.y[0]", "!!binary QQ=: go-yaml !!binary value contains "
                                                                  "invalid base64 data, ")),
    "binary-with-a-space": ("x: !!binary QQ QQ", ("x", "!!binary QQ QQ: go-yaml !!binary value ")),
    "binary-long-tag": ("x: !<tag:yaml.org,2002:binary> '*'", ("x", "!!binary *: go-yaml !!binary value ")),
    "binary-base64": ("x: !!binary QUJD\ny: !!binary |\n  QUJD\n  REVG\nz: !!binary QR==", None),
}


@pytest.mark.parametrize("body, want", UNSENDABLE.values(), ids=UNSENDABLE.keys())
def test_unsendable(body, want) -> None:
    got = [(r.field_path, r.message) for r in unsendable(stage_items(CM + body))]
    assert [(f, m[:len(want[1])]) for f, m in got] == ([want] if want else [])
    assert all(r.id == "SD018" and r.severity.value == "error" for r in unsendable(stage_items(CM + body)))


def test_unsendable_never_composes_an_item_that_cannot_hold_one() -> None:
    item = stage_items(CM + "x: 1.5\ny: nan")[0]
    assert unsendable([item]) == [] and item._node is None


# --- label and annotation values that are no string (SD066) ------------------------------------------------
# kubectl 1.32 `label --local -f` and `create --dry-run=client`: "unable to decode …: json: cannot unmarshal number
# into Go struct field ObjectMeta.metadata.annotations of type string"; kustomize 5.5 reads them.
NO_STRING = {
    "number": ("  annotations:\n    a: 2", ("metadata.annotations[a]", "the value 2 reads as a number, ")),
    "int-tag": ("  labels:\n    a: !!int 2", ("metadata.labels[a]", "the value 2 reads as a number, ")),
    "boolean": ("  labels: {a: 'x', b: true}", ("metadata.labels[b]", "the value true reads as a boolean, ")),
    "go-v2-boolean": ("  annotations:\n    x: y", ("metadata.annotations[x]", "the value y reads as a boolean, ")),
    "float": ("  annotations:\n    a: 1.5", ("metadata.annotations[a]", "the value 1.5 reads as a number, ")),
    "list": ("  labels:\n    a: [x]", ("metadata.labels[a]", "the value is a list, ")),
    "mapping": ("  annotations:\n    a: {b: c}", ("metadata.annotations[a]", "the value is a mapping, ")),
    "through-an-alias": ("  labels: {a: &n 2}\n  annotations:\n    b: *n", ("metadata.annotations[b]", "the value 2 ")),
    "strings": ("  labels: {a: '2', b: !!str 3, c: \"true\", d: ! 5, e: 2024-01-01}", None),
    "null": ("  annotations:\n    a: ~\n    b:", None),  # sent as none, taken
    "deeper": ("spec:\n  template:\n    metadata:\n      labels: {a: 2}", None),  # kubectl reads it
}


@pytest.mark.parametrize("body, want", NO_STRING.values(), ids=NO_STRING.keys())
def test_no_string_values(body, want) -> None:
    text = CM + body + "\n"  # (the walk's reading, as a list's item and as a file's document)
    for items in (stage_items(text), reader.read_stream([("m.yaml", text.encode())]).items):
        got = [(r.field_path, r.message) for r in no_string_values(build_index(items))]
        assert [(f, m[:len(want[1])]) for f, m in got] == ([want] if want else []), text
        assert all(r.id == "SD066" and r.severity.value == "error" for r in no_string_values(build_index(items)))


def test_no_string_leaves_a_workloads_opt_in_to_its_checks() -> None:
    ws = "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n  annotations:\n" \
         "    kaito.sh/enable-speculative-decoding: true\n"
    assert no_string_values(stage_index(ws)) == []
    cm = CM + "  annotations:\n    kaito.sh/enable-speculative-decoding: true\n"
    assert [r.id for r in no_string_values(stage_index(cm))] == ["SD066"]


# --- metadata fields of another type than ObjectMeta's (SD067) ---------------------------------------------------
# kubectl 1.32's verdicts (tests/object_meta_cases.py): SD067 names exactly the field kubectl refuses.
@pytest.mark.parametrize("body, want", object_meta_cases.CASES.values(), ids=object_meta_cases.CASES.keys())
def test_typed_metadata(body: str, want: str | None) -> None:
    text = object_meta_cases.CM + "".join(f"  {line}\n" for line in body.split("\n"))
    # (the walk's reading, as a list's item and as a file's document, and of an item composed whole)
    linked = text.replace("  name: a\n", "  name: &x a\n  labels: {x: *x}\n")
    for items in (stage_items(text), reader.read_stream([("m.yaml", text.encode())]).items,
                  stage_items(linked, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: {x: *x}")):
        got = typed_metadata(build_index(items))
        assert [r.field_path for r in got] == ([want] if want else []), text
        assert all(r.id == "SD067" and r.severity.value == "error" for r in got)


TYPED_METADATA = {
    "controller": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, controller: 'true'}]",
                   [("metadata.ownerReferences[0].controller", "`'true'` is a string where kubectl and the API server "
                     "want a boolean (ObjectMeta's OwnerReference.controller): they refuse the object; write true or "
                     "false")]),
    "generation": ("generation: 5.5", [("metadata.generation", "`5.5` is a number with a fraction where kubectl and the "
                                        "API server want an integer (ObjectMeta.generation): they refuse the object; "
                                        "write a whole number")]),
    "past-int64": ("generation: 1e21", [("metadata.generation", "`1e+21` is past int64's range where kubectl and the "
                                         "API server want an integer (ObjectMeta.generation): they refuse the object; "
                                         "write a whole number")]),
    "time": ("creationTimestamp: 2024-02-30T00:00:00Z",
             [("metadata.creationTimestamp", "`'2024-02-30T00:00:00Z'` is no time Go reads (day out of range) where "
               "kubectl and the API server want an RFC 3339 time (ObjectMeta.creationTimestamp): they refuse the "
               "object; write one such as \"2024-01-01T00:00:00Z\"")]),
    "finalizers": ("finalizers: x\nlabels: [a]", [
        ("metadata.finalizers", "`'x'` is a string where kubectl and the API server want a list "
         "(ObjectMeta.finalizers): they refuse the object; write a list, or nothing"),
        ("metadata.labels", "the value is a list where kubectl and the API server want a mapping (ObjectMeta.labels): "
         "they refuse the object; write a mapping of strings, or nothing")]),
    "entry": ("ownerReferences: [x]", [
        ("metadata.ownerReferences[0]", "`'x'` is a string where kubectl and the API server want a mapping "
         "(ObjectMeta.ownerReferences): they refuse the object; write each entry as a mapping of "
         "its fields")]),
    "nan": ("generation: .nan\nfinalizers: [.inf]", []),  # SD018's: kubectl cannot send it at all
    # the identity's own: SD003 says a name or a namespace that is no string, or no name (not said twice)
    "name-number": ("name: 5", []),
    "namespace-number": ("namespace: 5", []),
    "name-mapping": ("name: {a: b}", []),
    "name-mapping-generated": ("name: {a: b}\ngenerateName: a-", [
        ("metadata.name", "the value is a mapping where kubectl and the API server want a string (ObjectMeta.name): "
         "they refuse the object; write a string, quoted")]),
    "name-and-namespace": ("name: 5\nnamespace: [x]", [
        ("metadata.namespace", "the value is a list where kubectl and the API server want a string "
         "(ObjectMeta.namespace): they refuse the object; write a string, quoted")]),
}


@pytest.mark.parametrize("body, want", TYPED_METADATA.values(), ids=TYPED_METADATA.keys())
def test_typed_metadata_says(body: str, want: list[tuple[str, str]]) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + "".join(f"  {line}\n" for line in body.split("\n"))
    text = text if "  name:" in text else text.replace("metadata:\n", "metadata:\n  name: a\n")
    assert [(r.field_path, r.message) for r in typed_metadata(stage_index(text))] == want


def test_typed_metadata_composes_only_the_flagged() -> None:
    sure = "  uid: x\n  resourceVersion: '5'\n  generation: 1\n  creationTimestamp: null\n"
    items = stage_items(object_meta_cases.CM + "  labels: {a: b}\n  annotations: {c: d}\n  namespace: ns\n" + sure,
                        object_meta_cases.CM + "  creationTimestamp: '2024-01-31T00:00:00Z'\n")  # (day 31: checked)
    assert typed_metadata(build_index(items)) == []
    assert items[0]._node is None and items[1]._node is not None


FRACTIONS = {
    "replicas": ("kind: InferenceSet\nmetadata:\n  name: s\nspec:\n  replicas: 2.5", "spec.replicas", "2.5"),
    "count": ("kind: Workspace\nmetadata:\n  name: w\nresource:\n  count: 15e-1", "resource.count", "15e-1"),
    "role": ("kind: MultiRoleInference\nmetadata:\n  name: m\nspec:\n  roles:\n  - type: a\n  - type: b\n"
             "    replicas: !!float 0.5", "spec.roles[1].replicas", "0.5"),
    "whole": ("kind: InferenceSet\nmetadata:\n  name: s\nspec:\n  replicas: 2.0", None, None),
}


@pytest.mark.parametrize("body, field, text", FRACTIONS.values(), ids=FRACTIONS.keys())
def test_fractions(body, field, text) -> None:
    api = "kaito.sh/v1alpha1" if "MultiRole" in body else "kaito.sh/v1beta1"
    got = [(r.id, r.field_path, r.message.split(" is ")[0]) for r in fractions(stage_index(f"apiVersion: {api}\n{body}"))]
    assert got == ([("SD017", field, text)] if field else [])


def test_fractions_in_kserve_pipeline_stages() -> None:
    doc = ("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: k\n  annotations:\n"
           "    kaito.sh/enable-speculative-decoding: \"true\"\nspec:\n  predictor:\n    workerSpec:\n"
           "      pipelineParallelSize: 2.5\n")
    got = [(r.id, r.field_path) for r in fractions(stage_index(doc))]
    assert got == [("SD017", "spec.predictor.workerSpec.pipelineParallelSize")]


# kubectl 1.32 / kustomize 5.5: `1: x` is the key "1" to kubectl, refused by kustomize (map[interface {}]…);
# `yes: x` the key "true" to kubectl, "yes" to kustomize; `~: x` refused by both.
ODD_KEYS = {
    "number": ("data:\n  1: x", [("SD019", "the key 1 reads as a number: kubectl sends the key \"1\", ")]),
    "float-whole": ("data:\n  1e3: x", [("SD019", "the key 1e3 reads as a number: kubectl sends the key \"1000\", ")]),
    "v2-bool-word": ("data: {yes: x}", [("SD019", "the key yes reads as a boolean to kubectl, which sends the key "
                                                   "\"true\", and as the string \"yes\" to kustomize and kpt")]),
    "null": ("data:\n  ~: x", [("SD018", "~ reads as a null key, which JSON cannot hold")]),
    "quoted": ("data:\n  '1': x\n  \"true\": y", []),
    "a-value-not-a-key": ("data:\n  a: 1\n  b: true", []),
}


@pytest.mark.parametrize("body, want", ODD_KEYS.values(), ids=ODD_KEYS.keys())
def test_odd_keys(body, want) -> None:
    got = [(r.id, r.message) for r in odd_keys(stage_items(CM + body))]
    assert len(got) == len(want)
    assert [(i, m[:len(w)]) for (i, m), (_, w) in zip(got, want, strict=True)] == want


MERGES = {
    # kubectl reads kind 2 (and refuses the object), kustomize keeps `other`: whatever the object is
    "a-merge-after-the-key-it-sets": ("apiVersion: v1\nkind: other\n<<: {kind: 0b10}\nmetadata:\n  name: w\n",
                                      "is set again by the merge key `<<` after it"),
    "a-merge-before": ("apiVersion: v1\n<<: {kind: x}\nkind: Service\nmetadata:\n  name: w\n", None),
}


@pytest.mark.parametrize("doc, want", MERGES.values(), ids=MERGES.keys())
def test_merge_disputes(doc, want) -> None:
    got = [(r.id, r.message) for r in merge_disputes(stage_items(doc))]
    assert [(i, want in m) for i, m in got] == ([("SD009", True)] if want else [])
