"""The index (krm_fn/model/index.py): which items are KAITO workloads and with what annotation value, which are the
ConfigMaps workloads can use (and under which names), who is whose child, and which item mentions a name.
Every expectation is written from SPEC.md and KAITO's controllers, on inputs built here."""
from __future__ import annotations

import pytest

from build import krm_items, meta
from krm_fn.model.index import ABSENT, build_index, role_types

ON = "kaito.sh/enable-speculative-decoding"
LOCAL = "config.kubernetes.io/local-config"
KAITO = "kaito.sh/v1beta1"
MRI_API = "kaito.sh/v1alpha1"


def ws(name: str, namespace: str = "", annotations: dict | None = None, labels: dict | None = None, **rest) -> dict:
    return {"apiVersion": KAITO, "kind": "Workspace", "metadata": meta(name, namespace, annotations, labels),
            "inference": {"preset": {"name": "phi-4"}}, **rest}


def iset(name: str, namespace: str = "", template_annotations: dict | None = None,
         annotations: dict | None = None) -> dict:
    template: dict = {"inference": {"preset": {"name": "phi-4"}}}
    if template_annotations is not None:
        template["metadata"] = {"annotations": template_annotations}
    return {"apiVersion": KAITO, "kind": "InferenceSet", "metadata": meta(name, namespace, annotations),
            "spec": {"template": template}}


def mri(name: str, roles: list, namespace: str = "", annotations: dict | None = None,
        api: str = MRI_API) -> dict:
    return {"apiVersion": api, "kind": "MultiRoleInference", "metadata": meta(name, namespace, annotations),
            "spec": {"model": {"name": "phi-4"}, "roles": roles}}


def cm(name: str, namespace: str = "", annotations: dict | None = None, api: str = "v1") -> dict:
    return {"apiVersion": api, "kind": "ConfigMap", "metadata": meta(name, namespace, annotations), "data": {}}


def deployment(name: str, config: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name),
            "spec": {"template": {"spec": {"volumes": [{"name": "config-volume", "configMap": {"name": config}}]}}}}


# --- workloads: (items, skip) -> (kind, namespace, name, annotation value) in input order -------------

WORKLOADS = {
    "workspace-enabled": ([ws("a", "ml", {ON: "true"})], (), [("Workspace", "ml", "a", "true")]),
    "workspace-without-annotation": ([ws("a")], (), [("Workspace", "", "a", ABSENT)]),
    "other-annotations-only": ([ws("a", annotations={"team": "ml"})], (), [("Workspace", "", "a", ABSENT)]),
    # The value as written: KAITO's webhook, not the index, refuses a YAML boolean.
    "annotation-a-boolean": ([ws("a", annotations={ON: True})], (), [("Workspace", "", "a", True)]),
    "annotation-false": ([ws("a", annotations={ON: "false"})], (), [("Workspace", "", "a", "false")]),
    # An InferenceSet's opt-in is its template's (what it stamps on its Workspaces); its own is not read.
    "inferenceset-template": ([iset("s", template_annotations={ON: "true"})], (),
                              [("InferenceSet", "", "s", "true")]),
    "inferenceset-own-metadata": ([iset("s", annotations={ON: "true"})], (), [("InferenceSet", "", "s", ABSENT)]),
    "multiroleinference": ([mri("m", [], annotations={ON: "true"})], (),
                           [("MultiRoleInference", "", "m", "true")]),
    # KAITO serves MultiRoleInference in v1alpha1 only; Workspace and InferenceSet in v1alpha1 and v1beta1.
    "multiroleinference-v1beta1": ([mri("m", [], api=KAITO)], (), []),
    "workspace-v1alpha1": ([dict(ws("a"), apiVersion="kaito.sh/v1alpha1")], (), [("Workspace", "", "a", ABSENT)]),
    "another-group": ([dict(ws("a"), apiVersion="kaito.io/v1beta1")], (), []),
    "local-config": ([ws("a", annotations={ON: "true", LOCAL: "true"})], (), []),
    "local-config-false": ([ws("a", annotations={ON: "true", LOCAL: "false"})], (),
                           [("Workspace", "", "a", "true")]),
    "skipped-index": ([ws("a"), ws("b"), ws("c")], (1,), [("Workspace", "", "a", ABSENT),
                                                         ("Workspace", "", "c", ABSENT)]),
    "scalar-item": (["just text", ws("a")], (), [("Workspace", "", "a", ABSENT)]),
    "input-order": ([iset("s"), cm("c"), ws("a"), mri("m", [])], (),
                    [("InferenceSet", "", "s", ABSENT), ("Workspace", "", "a", ABSENT),
                     ("MultiRoleInference", "", "m", ABSENT)]),
}


@pytest.mark.parametrize("docs, skip, want", WORKLOADS.values(), ids=WORKLOADS.keys())
def test_workloads(docs, skip, want) -> None:
    index = build_index(krm_items(*docs), skip=skip)
    assert [(w.spec.kind, w.namespace, w.name, w.value) for w in index.workloads] == want
    assert index.unreadable == []


def test_a_kaito_item_without_a_data_model_is_unreadable_not_a_workload() -> None:
    items = krm_items("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: a}\n? [x]\n: y", ws("b"))
    index = build_index(items)
    assert [w.name for w in index.workloads] == ["b"]
    ((item, message),) = index.unreadable
    assert item.name == "a" and message.startswith("(a key that is a mapping or a list): ")
    assert "found unhashable key" in message


def test_workload_identity_and_opt_in() -> None:
    (w,) = build_index(krm_items(ws("a", "ml", {ON: "true"}, {"app": "x"}))).workloads
    assert (w.name, w.namespace, w.enabled, w.labels(), w.rewritten, w.effective is w.data) == \
        ("a", "ml", True, {"app": "x"}, None, True)
    (off,) = build_index(krm_items(ws("b", annotations={ON: "True"}))).workloads
    assert off.enabled is False  # only the exact string "true" opts in


# --- ConfigMaps: which table each one lands in, keyed (namespace, name) -> the item's index --------------

CONFIGMAPS = {
    "v1": ([cm("c")], {("", "c"): 0}, {}, {}),
    "namespaced": ([cm("c", "ml")], {("ml", "c"): 0}, {}, {}),
    "first-of-two-wins": ([cm("c"), cm("c")], {("", "c"): 0}, {}, {}),
    "derived-ones-too": ([cm("c", annotations={"kaito-specdec.dev/derived": "true"})], {("", "c"): 0}, {}, {}),
    # kustomize's namePrefix renamed it; references still say the old names (its own name is no old one).
    "previous-names": ([cm("p-c", annotations={"internal.config.kubernetes.io/previousNames": "c,p-c,,old"})],
                       {("", "p-c"): 0}, {("", "c"): 0, ("", "old"): 0}, {}),
    # The core group under another version: the same object to a cluster, though no workload can use it.
    "core-group-v2": ([cm("c", api="v2")], {}, {}, {("", "c"): 0}),
    "another-group": ([cm("c", api="example.com/v1")], {}, {}, {}),
    "local-config": ([cm("c", annotations={LOCAL: "true"})], {}, {}, {}),
    "workloads-are-no-configmaps": ([ws("c")], {}, {}, {}),
}


@pytest.mark.parametrize("docs, configmaps, previous, misversioned", CONFIGMAPS.values(), ids=CONFIGMAPS.keys())
def test_configmaps(docs, configmaps, previous, misversioned) -> None:
    index = build_index(krm_items(*docs))
    assert {k: item.index for k, item in index.configmaps.items()} == configmaps
    assert {k: item.index for k, item in index.previous.items()} == previous
    assert {k: item.index for k, item in index.misversioned.items()} == misversioned


# (namespace asked, name asked) -> the index of the ConfigMap found, or None
LOOKUPS = [
    ("ml", "here", 0),        # same namespace
    ("ml", "loose", 1),       # no namespace: lands in the workload's when applied together
    ("", "here", None),       # a workload without a namespace does not see another namespace's ConfigMap
    ("ml", "both", 2),        # the namespaced one before the loose one
    ("other", "both", 3),
    ("ml", "old-name", 4),    # by a name kustomize changed
    ("ml", "missing", None),
]


@pytest.mark.parametrize("namespace, name, want", LOOKUPS)
def test_configmap_lookup(namespace, name, want) -> None:
    index = build_index(krm_items(
        cm("here", "ml"), cm("loose"), cm("both", "ml"), cm("both"),
        cm("x-new-name", "ml", {"internal.config.kubernetes.io/previousNames": "old-name"})))
    found = index.configmap(namespace, name)
    assert (found.index if found else None) == want


# The name a derived ConfigMap records as its source -> the item found (kustomize's configMapGenerator adds
# a suffix of ten characters of its hash alphabet after the function ran).
SOURCES = [
    ("cfg", [cm("cfg")], 0),
    ("cfg", [cm("cfg-2b4d6f8h9k")], 0),
    ("cfg", [cm("cfg-2b4d6f8h9k"), cm("cfg-t9m8k7h6g5")], None),   # two fit: neither is chosen
    ("cfg", [cm("cfg-abcdefghij")], None),                        # a, e, i, j are not in the alphabet
    ("cfg", [cm("cfg-2b4d6f8h9")], None),                         # nine characters
    ("cfg", [cm("other-2b4d6f8h9k")], None),
]


@pytest.mark.parametrize("name, docs, want", SOURCES)
def test_source_by_name_or_generated_name(name, docs, want) -> None:
    found = build_index(krm_items(*docs)).source("", name)
    assert (found.index if found else None) == want


# --- children, as KAITO's controllers find them ----------------------------------------------------------

CREATED_BY = "inferenceset.kaito.sh/created-by"


def test_an_inferencesets_workspaces_are_those_labelled_created_by_it() -> None:
    index = build_index(krm_items(
        iset("s", "ml"),
        ws("s-0", "ml", labels={CREATED_BY: "s"}),
        ws("s-1", "ml", labels={CREATED_BY: "s"}),
        ws("owned-only", "ml", ownerReferences=[{"apiVersion": KAITO, "kind": "InferenceSet", "name": "s"}]),
        ws("elsewhere", "other", labels={CREATED_BY: "s"}),
        ws("another-parent", "ml", labels={CREATED_BY: "t"}),
    ))
    parent = index.workloads[0]
    assert [w.name for w in index.children(parent, "Workspace")] == ["s-0", "s-1"]
    assert index.children(parent, "InferenceSet") == []


def test_a_multiroleinferences_inferencesets_are_named_after_its_role_types() -> None:
    index = build_index(krm_items(
        mri("m", [{"type": "prefill"}, {"type": "decode"}, {"type": "decode"}], "ml"),
        iset("m-decode", "ml"),
        iset("m-prefill", "ml"),
        iset("m-other", "ml"),
        iset("m-prefill", "elsewhere"),
        iset("m-decode", "ml"),   # the same name again: the first is the one the controller updates
    ))
    parent = index.workloads[0]
    assert [(w.name, w.item.index) for w in index.children(parent, "InferenceSet")] == \
        [("m-prefill", 2), ("m-decode", 1)]
    assert index.children(parent, "Workspace") == []


ROLES = [
    ([{"type": "prefill"}, {"type": "decode"}, {"type": "prefill"}], ["prefill", "decode"]),
    ([{"type": ""}, {"type": 3}, {}, "decode", {"type": "decode"}], ["decode"]),
    ("not a list", []),
    (None, []),
]


@pytest.mark.parametrize("roles, want", ROLES)
def test_role_types(roles, want) -> None:
    assert role_types({"spec": {"roles": roles}}) == want


# --- users: for each name, the first item other than derived ConfigMaps naming it as a word, and where --

DERIVED = {"kaito-specdec.dev/derived": "true"}
VOLUME = "spec.template.spec.volumes[0].configMap.name"
MENTIONS = {
    "a-volume": ([deployment("d", "specdec-mtp-0a1b2c3d4e")], "specdec-mtp-0a1b2c3d4e", ("d", VOLUME)),
    "the-first-of-two": ([deployment("d1", "x"), deployment("d2", "x")], "x", ("d1", VOLUME)),
    "part-of-a-longer-name": ([deployment("d", "specdec-mtp-0a1b2c3d4e-v2")], "specdec-mtp-0a1b2c3d4e", None),
    "a-longer-name-is-not-mentioned": ([deployment("d", "cfg")], "cfg-specdec-0a1b2c3d4e", None),
    "dotted-word": ([deployment("d", "a.cfg")], "cfg", None),
    "a-word-of-a-longer-value": ([deployment("d", "/etc/x/cfg")], "cfg", ("d", VOLUME)),
    # A KAITO workload counts by its data as planned (here: as read).
    "a-workload-counts": ([ws("w", inference={"preset": {"name": "phi-4"}, "config": "x"})], "x", ("w", "inference.config")),
    "a-derived-configmap-does-not-count": ([cm("x", annotations=DERIVED), cm("y", annotations=DERIVED)], "x", None),
    "a-configmap-naming-itself": ([cm("x")], "x", ("x", "metadata.name")),
    "a-key": ([{"apiVersion": "v1", "kind": "Secret", "metadata": meta("s"), "stringData": {"x": "1"}}], "x",
              ("s", "stringData.x")),
    "an-annotation-key-in-brackets": ([cm("c", annotations={"a/b": "x"})], "x", ("c", "metadata.annotations[a/b]")),
    # A name that is not one word (none the function derives): found as a whole word all the same.
    "not-one-word": ([deployment("d1", "team/cfgs"), deployment("d2", "team/cfg")], "team/cfg", ("d2", VOLUME)),
    "not-one-word-absent": ([deployment("d", "team/cfg2")], "team/cfg", None),
}


@pytest.mark.parametrize("docs, name, want", MENTIONS.values(), ids=MENTIONS.keys())
def test_users(docs, name, want) -> None:
    found = build_index(krm_items(*docs)).users({name}, lambda item: item.data()).get(name)
    assert ((found[0].name, found[1]) if found else None) == want


def test_users_read_workloads_as_planned() -> None:
    """A disabled workload's reference, gone from its planned data, keeps nothing."""
    idx = build_index(krm_items(ws("w", inference={"preset": {"name": "phi-4"}, "config": "x"})))
    assert idx.users({"x"}, lambda item: {"inference": {"preset": {"name": "phi-4"}}}) == {}

