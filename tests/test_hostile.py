"""Hostile input (issue 10): bounded time and memory, an error result naming the object, never a crash.

Every case runs a real process, in KRM mode and in `render -`, as the issue reproduced them (forked from
tests/hostile.py's server; the last test checks it runs as the command does).
"""
from __future__ import annotations

from runner import without_summary  # noqa: E402

import os
import subprocess
import sys

import pytest
import yaml

from hostile import RL, WS, Run, bomb, clean_error, run
from krm_fn.text import refusals, yamlio

MODES = [(), ("render", "-")]
CM = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n")
WS_CFG = WS + "    config: cfg\n"


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
class TestAliasBombs:
    def test_in_a_changed_workspace_is_an_error_naming_it(self, mode):
        r = run(RL + WS + "  bomb:\n" + bomb("    "), *mode)
        clean_error(r, "Workspace/ws", "alias", f"more than {refusals.MAX_ALIAS_EXPANSION}")

    def test_in_the_referenced_configmap_is_an_error_naming_it(self, mode):
        r = run(RL + CM + "  binaryData:\n" + bomb("    ") + "  data:\n    inference_config.yaml: |\n"
                "      vllm: {}\n" + WS_CFG, *mode)
        clean_error(r, "ConfigMap/cfg", "alias")

    def test_inside_the_embedded_inference_config_is_copied_not_expanded(self, mode):
        embedded = "".join("      " + ln + "\n" for ln in ("vllm: {}\nb:\n" + bomb("  ")).splitlines())
        r = run(RL + CM + "  data:\n    inference_config.yaml: |\n" + embedded + WS_CFG, *mode)
        assert r.code == 0, r.err
        assert len(r.out) < 10_000 and b"*a7, *a7" in r.out  # the user's text, aliases and all

    def test_untouched_passes_byte_identical(self, mode):
        svc = "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n  spec:\n" + bomb("    ")
        text = RL + WS.replace('"true"', '"false"') + svc
        r = run(text, *mode)
        assert r.code == 0, r.err
        if not mode:
            assert r.text == text
        else:
            assert r.text.endswith("\n---\n" + svc[2:].replace("\n  ", "\n"))


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("nest", ["flow", "block", "compact"])
def test_deep_nesting_is_refused_naming_the_line(mode, nest):
    """Past the limit, past libyaml's own (1,000 levels) and past Python's recursion limit: flow 2,000 levels
    deep (30,000, as the issue had it, costs seconds: the deep pass runs it), compact 30,000, block 1,000."""
    _deep_nesting_is_refused(mode, nest, flow=2000)


@pytest.mark.deep
@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
def test_deep_flow_nesting_30000_deep_is_refused_naming_the_line(mode):
    _deep_nesting_is_refused(mode, "flow", flow=30000)


def _deep_nesting_is_refused(mode, nest, flow):
    deep = {"flow": "  x: " + "[" * flow + "]" * flow + "\n",
            "block": "  x:\n" + "".join("  " * (i + 2) + f"k{i}:\n" for i in range(1000)) + "  " * 1002 + "v: 1\n",
            "compact": "  x:\n  " + "- " * 30000 + "v\n"}[nest]
    r = run(RL + WS + deep, *mode)
    clean_error(r, "nest", "line ")
    assert r.out == b"" and len(r.err.splitlines()) == 1
    assert r.code != -11  # the segfault of libyaml's recursive composer (exit 139 from a shell)


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("where", ["workspace", "configmap", "embedded"])
def test_nesting_a_little_under_the_limit_is_processed(mode, where):
    """Everything that walks an item afterwards (constructing, copying, hashing, patching, emitting,
    comparing) copes with what the guard lets through."""
    depth = refusals.MAX_DEPTH - 6
    deep = "[" * depth + "]" * depth
    if where == "workspace":
        text = RL + WS + "  x: " + deep + "\n"
    else:
        embedded = "      vllm: {}\n" + (f"      x: {deep}\n" if where == "embedded" else "")
        text = RL + CM + ("  binaryData:\n    x: " + deep + "\n" if where == "configmap" else "") + \
            "  data:\n    inference_config.yaml: |\n" + embedded + WS_CFG
    r = run(text, *mode)
    assert r.code == 0, r.err
    assert "speculative" in r.text


def test_first_node_past_the_limit_is_named():
    text = "a:\n  b: " + "[" * (refusals.MAX_DEPTH + 5) + "]" * (refusals.MAX_DEPTH + 5) + "\n"
    with pytest.raises(refusals.NestingTooDeep) as exc:
        yamlio.compose(text)
    # `a:` mapping (1), its `b:` value sequences from column 6: the 401st node opens at column 404.
    assert "line 2, column" in str(exc.value) and str(refusals.MAX_DEPTH) in str(exc.value)


def test_expanded_size_is_linear_in_the_distinct_nodes():
    node = yaml.compose(bomb("", levels=30), Loader=yaml.SafeLoader)
    distinct, expanded = refusals.expanded_size(node)
    assert distinct < 300 and expanded > 9 ** 29
    with pytest.raises(refusals.ExpansionTooLarge):
        yamlio.construct(node)


# --- line breaks: a bare CR (old Mac), NEL, LS and PS are line breaks to every YAML reader ------------------

WS_PATH = WS.replace("name: phi-4\n", "name: phi-4\n").replace(
    '"true"\n', '"true"\n      config.kubernetes.io/path: a/ws.yaml\n')
SVC_PATH = ("- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    annotations:\n"
            "      config.kubernetes.io/path: a/svc.yaml\n  spec: {ports: [{port: 80}]}\n")


@pytest.mark.parametrize("brk", ["\r", "\x85", "\u2028", "mixed"], ids=["cr", "nel", "ls", "cr-in-one-item"])
def test_odd_line_breaks_in_krm_mode(brk):
    if brk == "mixed":
        text = RL + WS_PATH.replace("\n", "\r") + SVC_PATH
    else:
        text = (RL + WS_PATH + SVC_PATH).replace("\n", brk)
    r = run(text)
    assert r.code == 0, r.err
    out = yaml.safe_load(r.text)  # valid YAML, one ResourceList
    assert [i["kind"] for i in out["items"]] == ["Workspace", "ConfigMap", "Service"]
    assert out["items"][0]["inference"]["config"].startswith("specdec-")
    svc = SVC_PATH if brk == "mixed" else SVC_PATH.replace("\n", brk)
    assert svc in r.text  # the untouched item byte for byte
    again = run(r.text.split("results:")[0])
    assert again.code == 0 and again.text.split("results:")[0] == r.text.split("results:")[0]  # a fixpoint


@pytest.mark.parametrize("brk", ["\r", "\x85", "\u2028"], ids=["cr", "nel", "ls"])
@pytest.mark.parametrize("wrapped", [True, False], ids=["resourcelist", "stream"])
def test_odd_line_breaks_in_render(brk, wrapped):
    if wrapped:
        text = RL + WS_PATH + SVC_PATH
    else:
        text = "".join("---\n" + d[2:].replace("\n  ", "\n") for d in (WS_PATH, SVC_PATH))
    r = run(text.replace("\n", brk), "render", "-")
    if not wrapped:
        # kubectl, kustomize and kpt split documents only at `---` lines after a line feed: for them this
        # stream is one line (kubectl: "invalid Yaml document separator"), so it is refused, not split.
        assert (r.code, r.text) == (1, ""), r.err
        assert "a `---` next to a bare CR, NEL, LS or PS line break" in r.err and "[SD001]" in r.err, r.err
        return
    assert r.code == 0, r.err
    docs = list(yaml.safe_load_all(r.text))
    assert [d["kind"] for d in docs] == ["ConfigMap", "Workspace", "Service"]  # the derived one first
    assert "config.kubernetes.io" not in r.text  # orchestrator annotations stripped, none left behind
    assert docs[2] == {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                       "spec": {"ports": [{"port": 80}]}}


# --- flow items: one-line JSON ResourceLists and Lists (`kubectl get … -o json`) ----------------------------

JWS = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
       "metadata": {"name": "ws", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
       "inference": {"preset": {"name": "phi-4"}}}
JSVC = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}}


def _json(kind: str, items: list, indent: int | None = None) -> str:
    import json
    api = "v1" if kind == "List" else "config.kubernetes.io/v1"
    return json.dumps({"apiVersion": api, "kind": kind, "items": items}, indent=indent) + "\n"


@pytest.mark.parametrize("kind", ["List", "ResourceList"])
@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "pretty"])
def test_render_of_a_json_list(kind, indent):
    r = run(_json(kind, [JWS, JSVC], indent), "render", "-")
    assert r.code == 0, r.err
    docs = list(yaml.safe_load_all(r.text))
    assert [d["kind"] for d in docs] == ["ConfigMap", "Workspace", "Service"]  # the derived one first
    assert docs[1]["inference"]["config"] == docs[0]["metadata"]["name"]
    assert docs[2] == JSVC
    again = run(r.text, "render", "-")
    assert again.code == 0 and again.text == r.text  # a fixpoint


def test_json_resource_list_in_krm_mode_is_a_fixpoint_and_retires_by_its_own_items():
    import json
    first = run(_json("ResourceList", [JWS, JSVC]))
    assert first.code == 0, first.err
    items = yaml.safe_load(first.text)["items"]
    assert [i["kind"] for i in items] == ["Workspace", "ConfigMap", "Service"]
    second = run(_json("ResourceList", items))  # the output, as one-line JSON again
    assert second.code == 0, second.err
    assert yaml.safe_load(second.text)["items"] == items
    disabled = json.loads(json.dumps(items))
    disabled[0]["metadata"]["annotations"]["kaito.sh/enable-speculative-decoding"] = "false"
    third = run(_json("ResourceList", [disabled[2], disabled[0], disabled[1]]))
    assert third.code == 0, third.err
    # The derived ConfigMap is retired: the Service before it on the same line does not mention it.
    assert [i["kind"] for i in yaml.safe_load(third.text)["items"]] == ["Service", "Workspace"]


# --- a block scalar at the very end of an input without a final line break ------------------------------------

HEADERS = ["|", "|+ # keep", "|2", ">"]


def _last_cm(header: str, nl: str = "\n", blank_tail: str = "") -> str:
    body = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: last\n    annotations:\n" \
           f"      team: ml\n  data:\n    note: {header}\n      first line\n      last line{blank_tail}"
    return body.replace("\n", nl)


def _value(header: str) -> str:
    text = "note: " + header + "\n  first line\n  last line"
    return yaml.safe_load(text)["note"]


@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_block_scalar_at_the_end_keeps_its_value_in_krm_mode(header, nl):
    text = (RL + WS).replace("\n", nl) + _last_cm(header, nl)
    r = run(text)
    assert r.code == 0, r.err
    items = yaml.safe_load(r.text)["items"]
    assert items[-1]["data"]["note"] == _value(header) == yaml.safe_load(text)["items"][-1]["data"]["note"]
    assert "results:" in r.text  # something was written after it


@pytest.mark.parametrize("header", HEADERS)
def test_block_scalar_at_the_end_of_a_changed_item_keeps_its_value(header):
    text = RL + WS + "  notes: " + header + "\n    first line\n    last line"
    r = run(text)
    assert r.code == 0, r.err
    assert yaml.safe_load(r.text)["items"][0]["notes"] == _value(header)


@pytest.mark.parametrize("header", HEADERS)
def test_internal_annotation_at_the_end_keeps_its_value(header):
    # kustomize writes its id annotation as a block scalar; it must come back exactly as it went in.
    text = RL + WS + "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    annotations:\n" \
        f"      kustomize.config.k8s.io/id: {header}\n        kind: ConfigMap\n        name: x"
    r = run(text)
    assert r.code == 0, r.err
    got = yaml.safe_load(r.text)["items"][-1]["metadata"]["annotations"]["kustomize.config.k8s.io/id"]
    assert got == yaml.safe_load(text)["items"][-1]["metadata"]["annotations"]["kustomize.config.k8s.io/id"]


def test_keep_chomped_scalar_ending_in_blanks_keeps_its_value():
    text = RL + WS + _last_cm("|+", blank_tail="\n\n  ")
    r = run(text)
    assert r.code == 0, r.err
    assert yaml.safe_load(r.text)["items"][-1]["data"]["note"] == "first line\nlast line\n\n"


@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("changed", [False, True], ids=["untouched", "changed"])
def test_block_scalar_at_the_end_of_a_file_in_render(header, changed, tmp_path):
    first = tmp_path / "a.yaml"
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n" \
          "    config.kubernetes.io/path: a.yaml\ndata:\n  note: " + header + "\n    first line\n    last line"
    if changed:
        doc = WS[2:].replace("\n  ", "\n") + "notes: " + header + "\n  first line\n  last line"
    first.write_text(doc, encoding="utf-8")
    second = tmp_path / "b.yaml"
    second.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n", encoding="utf-8")
    r = run(b"", "render", str(first), str(second))
    assert r.code == 0, r.err
    docs = list(yaml.safe_load_all(r.text))
    if changed:
        docs = [d for d in docs if d.get("kind") != "ConfigMap"]  # the derived one comes first
    got = docs[0]["notes"] if changed else docs[0]["data"]["note"]
    assert got == _value(header)
    assert docs[-1]["kind"] == "Namespace"


# --- render keeps the comments around each document, and strips orchestrator annotations by cutting lines ----

NS_DOC = "# The namespace every model runs in.\n\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n" \
         "# (owned by the platform team)\n"
WS_DOC = "# head of the workspace\n" + WS[2:].replace("\n  ", "\n") + "# tail of the workspace\n  # indented too\n"


def test_render_keeps_head_and_tail_comments():
    r = run("---\n" + NS_DOC + "---\n" + WS_DOC + "...\n", "render", "-")
    assert r.code == 0, r.err
    docs = r.text.split("---\n")[1:]
    assert docs[0] == NS_DOC  # untouched: byte for byte, comments before the first key and after the last
    assert docs[1].startswith("apiVersion: v1\nkind: ConfigMap\n")  # the derived one before its Workspace
    assert docs[2].startswith("# head of the workspace\napiVersion: kaito.sh/v1beta1\n")
    assert docs[2].endswith("      name: phi-4\n  config: specdec-ngram-80815d3ebc\n"
                            "# tail of the workspace\n  # indented too\n".replace("      ", "    "))


def test_render_of_untouched_documents_round_trips():
    stream = "---\n" + NS_DOC + "---\n" + NS_DOC.replace("name: ml", "name: other")
    r = run(stream, "render", "-")
    assert (r.code, r.text) == (0, stream)


def test_render_cuts_orchestrator_annotations_exactly():
    text = RL + ("- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    annotations:\n"
                 "      team: ml # who to call\n      config.kubernetes.io/path: 'a/svc.yaml'\n"
                 "      internal.config.kubernetes.io/index: |-\n        0\n      note: keep\n  spec: {}\n"
                 "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: ml\n    annotations:\n"
                 "      config.kubernetes.io/index: '0'\n      internal.config.kubernetes.io/path: ns.yaml\n"
                 "    labels: {a: b}\n")
    r = run(text, "render", "-")
    assert (r.code, without_summary(r.err)) == (0, "")
    assert r.text == ("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  annotations:\n"
                      "    team: ml # who to call\n    note: keep\nspec: {}\n"
                      "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n  labels: {a: b}\n")


# --- what escaped as "internal error" ---------------------------------------------------------------------

JSON_WS = ('{"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "metadata": {"name": "ws", "annotations": '
           '{"kaito.sh/enable-speculative-decoding": "true"}}, "inference": {"preset": {"name": "phi-4"}}}')
# YAML no reader gives data for (go-yaml refuses each too; a custom tag such as `!foo bar` is no longer one:
# go-yaml reads its text as a string, and so does the function).
ODD_VALUES = {"bad-bool": "!!bool 6", "huge-int": "!!int " + "9" * 5000, "complex-key": "{? [a, b] : c}"}
# A tag go-yaml cannot decode stops kubectl and kustomize whichever object holds it ("cannot decode !!int `6` as
# a !!bool"): the function refuses it in any item (SD018), read or not.
REFUSED_ANYWHERE = {"bad-bool", "huge-int"}


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("odd", list(ODD_VALUES))
def test_odd_yaml_in_an_untouched_item_of_a_flow_list_passes(mode, odd):
    svc = '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"x": ' + ODD_VALUES[odd] + '}}'
    r = run("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [" + JSON_WS + ", " + svc + "]\n", *mode)
    if odd in REFUSED_ANYWHERE:  # kubectl and kustomize refuse the file: so does the function, naming the field
        assert r.code == 1 and "Service/svc spec.x: " in r.err and "[SD018]" in r.err, r.err
        return
    assert r.code == 0, r.err
    assert svc in r.text  # kept as written: nothing here asks for its data
    assert "specdec-" in r.text


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("odd", list(ODD_VALUES))
@pytest.mark.parametrize("flow", [True, False], ids=["flow", "block"])
def test_odd_yaml_in_a_workspace_is_an_error_naming_it_and_the_field(mode, odd, flow):
    if flow:
        text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: ["
                + JSON_WS.replace('"phi-4"}', '"phi-4", "x": ' + ODD_VALUES[odd] + "}") + "]\n")
    else:
        text = RL + WS + "      x: " + ODD_VALUES[odd] + "\n"
    r = run(text, *mode)
    clean_error(r, "Workspace/ws", "inference.preset.x")


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
def test_odd_yaml_in_a_flow_function_config_is_an_error_result(mode):
    text = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [" + JSON_WS + "]\n"
            "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {mode: !!int x}}\n")
    r = run(text, *mode)
    clean_error(r, "functionConfig", "cannot decode !!str `x` as a !!int")
    if not mode:  # the input back, every item unchanged, with the error result
        out = yaml.safe_load(r.text.replace("!!int", ""))
        assert out["items"][0]["inference"] == {"preset": {"name": "phi-4"}} and out["results"]


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
def test_mixed_type_keys_in_the_policy_spec_are_an_error_naming_the_setting(mode):
    text = RL + WS + ("functionConfig:\n  apiVersion: kaito-specdec.dev/v1alpha1\n  kind: SpeculativeDecodingPolicy\n"
                      "  metadata: {name: p}\n  spec:\n    1: x\n    foo: y\n")
    r = run(text, *mode)
    clean_error(r, "invalid functionConfig", "unknown setting 1")


def test_a_hundred_taken_file_names_still_leave_one_for_a_new_configmap():
    ws = WS.replace('"true"\n', '"true"\n      config.kubernetes.io/path: a/ws.yaml\n')
    first = run(RL + ws)
    assert first.code == 0, first.err
    path = yaml.safe_load(first.text)["items"][1]["metadata"]["annotations"]["config.kubernetes.io/path"]
    stem = path[: -len(".yaml")]
    taken = [path] + [f"{stem}-{n}.yaml" for n in range(2, 120)]
    others = "".join(f"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n{i}\n    annotations:\n"
                     f"      config.kubernetes.io/path: {p}\n" for i, p in enumerate(taken))
    r = run(RL + ws + others)
    assert r.code == 0, r.err
    derived = [i for i in yaml.safe_load(r.text)["items"] if i["kind"] == "ConfigMap"]
    assert derived[0]["metadata"]["annotations"]["config.kubernetes.io/path"] == f"{stem}-120.yaml"


# --- duplicate keys in the envelope ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("where", ["items", "kind", "functionConfig-setting"])
def test_duplicate_keys_in_the_resource_list_are_an_error(mode, where):
    text = {"items": RL + WS + "items: []\n",
            "kind": RL.replace("kind: ResourceList\n", "kind: ResourceList\nkind: ResourceList\n") + WS,
            "functionConfig-setting": RL + WS + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n"
                                                "  metadata: {name: f}\n  data:\n    mode: validate\n"
                                                "    mode: materialize\n"}[where]
    r = run(text, *mode)
    key = where.split("-")[-1].replace("setting", "mode")
    clean_error(r, f"the key '{key}' appears twice")
    assert r.out == b""


def test_duplicate_items_in_a_list_rendered_are_an_error():
    text = "apiVersion: v1\nkind: List\nitems:\n" + WS + "items: []\n"
    clean_error(run(text, "render", "-"), "the key 'items' appears twice in the List", "document 1")


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
def test_alias_bomb_in_an_item_sharing_anchors_is_an_error_naming_it(mode):
    # Items tied by anchors are written out whole (no dangling alias): this one cannot be.
    text = (RL + WS.replace("name: ws\n", "name: ws\n    labels: &l {a: b}\n")
            + "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n  spec:\n" + bomb("    "))
    if mode:
        text = text.replace(RL, "apiVersion: v1\nkind: List\nitems:\n")
    r = run(text, *mode)
    clean_error(r, "Service 's' shares anchors", "alias")
    assert r.out == b""


@pytest.mark.parametrize("mode", MODES, ids=["krm", "render"])
@pytest.mark.parametrize("cycle", ["&r [*r]", "&r {a: *r}"])
def test_an_alias_cycle_is_an_error_naming_the_object_and_field(mode, cycle):
    # PyYAML composes `&r [*r]` as a list containing itself: every walk of it would recurse without end.
    r = run(RL + WS + f"  x: {cycle}\n", *mode)
    clean_error(r, "Workspace/ws", "x[0]" if "[" in cycle else "x.a", "cycle")


def test_an_alias_cycle_in_an_untouched_item_is_an_error_and_the_items_pass_as_they_came():
    """kubectl ("anchor 'r' value contains itself") and kustomize refuse the file whatever the object is (issue
    40): an error on the Service no stage reads, and its bytes untouched."""
    text = RL + WS.replace('"true"', '"false"') + "- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n  x: &r [*r]\n"
    r = run(text)
    clean_error(r, "Service/s", "x[0]", "cycle", "[SD009]")
    assert r.text.startswith(text)


@pytest.mark.parametrize("args, data", [((), RL + WS), (("render", "-"), RL + WS), ((), b"\xff"), (("--bogus",), ""),
                                        ((), RL + WS + "  x: " + "[" * 300 + "\n")],
                         ids=["krm", "render", "not-utf8", "usage", "nesting"])
def test_the_fork_server_runs_as_the_command_does(args, data):
    """tests/hostile.py's run, forked from a server, gives what `python -m krm_fn` gives: exit status, stdout
    and stderr, byte for byte."""
    data = data.encode("utf-8") if isinstance(data, str) else data
    env = {**os.environ, "KAITO_SPECDEC_KAITO_VERSION": "v0.13.0"}  # as tests/hostile.py's server runs it
    real = subprocess.run([sys.executable, "-m", "krm_fn", *args], input=data, capture_output=True, timeout=60,
                          env=env)
    assert run(data, *args) == Run(real.returncode, real.stdout, real.stderr.decode("utf-8", "replace"))


# Found by the differential fuzzer (tests/differential.py): a file without a final line break whose last value is
# an alias of a list it is in looped for ever in render (the search for a block scalar ending the file).
CYCLE_AT_THE_END = ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: edge\nspec:\n  template:\n    spec:\n"
                    "      containers: &c\n        - name: vllm\n          metadata: *c")


def test_a_cycle_ending_a_file_without_a_final_line_break_ends_the_run():
    from krm_fn.text.textedit import last_scalar
    from krm_fn.text.yamlio import compose_events, events
    (root,) = compose_events(events(CYCLE_AT_THE_END), 0, 0)
    assert last_scalar(root) is None
    r = run(CYCLE_AT_THE_END, "render", "-")
    # an object no stage reads, but kubectl and kustomize refuse the file (issue 40): the run ends, with the error
    assert r.code == 1 and "containers[0].metadata: an alias inside it" in r.err and "[SD009]" in r.err, r.err
    r = run(CYCLE_AT_THE_END.replace("name: edge\n", 'name: edge\n  annotations: {kaito.sh/enable-speculative-decoding: "true"}\n'),
            "render", "-")
    assert r.code == 1 and "a cycle" in r.err and "[SD009]" in r.err, r.err
