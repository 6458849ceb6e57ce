"""Text fidelity of the KRM path (SPEC 6): what the function does not change comes out as the same bytes.

The inputs look like what kpt and kustomize send: comments everywhere, quoted and bare scalars that YAML 1.1
reads differently, block scalars, flow collections, and the orchestrators' internal annotations.
"""
from __future__ import annotations

import difflib
import json
import re

import pytest
import yaml

from runner import run as _run

# These tests are about what is read and how bytes come back, with "false" as the workload left alone:
# kaitoVersion v0.13.0, where a disabled Workspace keeps no config reference and no release notes are
# added (not set, the rollout output safe on every release does both: tests/test_lifecycle.py).
PINNED = {"KAITO_SPECDEC_KAITO_VERSION": "v0.13.0"}


def run(argv, stdin=b"", env=None, **kw):
    return _run(argv, stdin, {**PINNED, **(env or {})}, **kw)

MTP_JSON = '{"method":"mtp","num_speculative_tokens":1}'

# The parts of a kpt/kustomize ResourceList; "{I}" is the indentation of the items sequence's dashes.
HEAD = """\
# A ResourceList as kpt sends it (top-level comment)
apiVersion: config.kubernetes.io/v1
kind: ResourceList
# comment before items
items:
"""

KPTFILE = """\
# the Kptfile is item 0
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/annotations-migration-resource-id: '0'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
  pipeline:
    mutators:
    - exec: kaito-specdec # bare name, found through PATH
"""

KUSTOMIZATION = """\
- apiVersion: kustomize.config.k8s.io/v1beta1
  kind: Kustomization
  metadata:
    name: kustomization
    annotations:
      config.kubernetes.io/local-config: "true"
      kustomize.config.k8s.io/id: |
        group: kustomize.config.k8s.io
        kind: Kustomization
        name: kustomization
        version: v1beta1
      internal.config.kubernetes.io/previousNames: 'kustomization'
  resources: [deployment.yaml, "workspace.yaml"]
  commonLabels: {app: demo}
"""

SCALARS = """\
# between items: a CRD-ish object with every kind of scalar
- apiVersion: example.com/v1
  kind: Widget
  metadata:
    name: scalars   # comment inside an item
    namespace: default
    annotations:
      config.kubernetes.io/index: '2'
      config.kubernetes.io/path: 'widgets/scalars.yaml'
      internal.config.kubernetes.io/index: '2'
      internal.config.kubernetes.io/path: 'widgets/scalars.yaml'
      internal.config.kubernetes.io/id: '3'
      config.k8s.io/id: '3'
  spec:
    doubleQuoted: "true"
    singleQuoted: 'x'
    bare: hello world
    onSwitch: on
    octal: 010
    version: 1.10
    empty: ""
    nothing: ~
    date: 2024-01-01
    literal: |
      line one
        indented line

      after a blank line
    folded: >-
      folded text
      continues here
    keep: |+
      kept

    flowMap: {a: 1, b: "two", c: [x, y]}
    flowSeq: [1, "2", three]
    nested:
      # comment in a nested mapping
      - name: first
        value: 'single'
      -   name: odd-indent
          value: "double"
"""

LOCAL_CONFIG = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: setters
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/path: 'setters.yaml'
      internal.config.kubernetes.io/path: 'setters.yaml'
  data:
    replicas: "3"
    enabled: 'true'
"""

WORKSPACE_OFF = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: no-annotation
    namespace: ml
    annotations:
      config.kubernetes.io/path: 'apps/plain.yaml'
      internal.config.kubernetes.io/path: 'apps/plain.yaml'
  resource:
    instanceType: Standard_NC24ads_A100_v4
    labelSelector:
      matchLabels: {apps: phi-4}
  inference:
    preset:
      name: phi-4  # no speculative decoding here
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: disabled
    annotations:
      kaito.sh/enable-speculative-decoding: "false"
  inference:
    preset: {name: deepseek-r1-0528}
"""

DEPLOYMENT = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    labels: {app: "web", tier: 'front'}
  spec:
    replicas: 2
    template:
      spec:
        containers:
        - name: web
          image: nginx:1.27
          args: ["--port", '8080', --verbose]
          env:
          - {name: FLAG, value: "on"}
          - name: GREETING
            value: "héllo wörld ✓ 🚀"
"""

WORKSPACE_ON = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: deepseek
    namespace: ml
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'apps/deepseek.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'apps/deepseek.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/annotations-migration-resource-id: '5'
      internal.config.kubernetes.io/id: '6'
      config.k8s.io/id: '6'
      kustomize.config.k8s.io/id: |
        group: kaito.sh
        kind: Workspace
        name: deepseek
        namespace: ml
        version: v1beta1
  resource:
    instanceType: Standard_ND96isr_H200_v5 # one node (KAITO's node estimator)
    count: 1
  # the model
  inference:
    preset:
      name: deepseek-r1-0528
"""

TAIL = """\
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data: {}
# trailing comment at the end of the stream
"""

UNCHANGED = [KPTFILE, KUSTOMIZATION, SCALARS, LOCAL_CONFIG, WORKSPACE_OFF, DEPLOYMENT]


def indent(block: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + ln if ln.strip() else ln for ln in block.splitlines(True))


def resource_list(parts: list[str], items_indent: int = 0) -> str:
    return HEAD + "".join(indent(p, items_indent) for p in parts) + TAIL


# --- nothing changes: byte-identical --------------------------------------------------------------

@pytest.mark.parametrize("items_indent", [0, 2], ids=["dash-at-column-0", "indented-items"])
def test_passthrough_is_byte_identical(items_indent):
    text = resource_list(UNCHANGED, items_indent)
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    assert out == text


@pytest.mark.parametrize("text", [
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n",
    "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: x}} # c\n",
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Namespace\n"
    "  metadata:\n    name: no-final-newline",
    "---\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- # comment after the dash\n"
    "  apiVersion: v1\n  kind: Namespace\n  metadata: {name: x}\n...\n",
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: Namespace, "
    "metadata: {name: x}}\n---\n# an empty document after the list\n",
], ids=["empty-flow-items", "null-items", "v1-List", "no-final-newline", "document-markers", "trailing-empty-doc"])
def test_small_passthroughs(text):
    assert run([], text) == (0, text, "")


def test_crlf_passthrough_is_byte_identical():
    text = resource_list(UNCHANGED).replace("\n", "\r\n")
    code, out, _ = run([], text)
    assert code == 0 and out == text


# --- one item changes: everything else is byte-identical ---------------------------------------------

def inserted_blocks(before: str, after: str) -> list[tuple[int, list[str]]]:
    """(line number in `before`, inserted lines) for each change; fails on anything but pure insertions."""
    a, b = before.splitlines(True), after.splitlines(True)
    blocks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        assert tag == "insert", f"{tag} of input lines {i1}-{i2}: {a[i1:i2]!r} -> {b[j1:j2]!r}"
        blocks.append((i1, b[j1:j2]))
    return blocks


def line_after(text: str, marker: str) -> int:
    """The 0-based line number just after the (unique) line that ends with `marker`."""
    lines = text.splitlines(True)
    found = [i for i, ln in enumerate(lines) if ln.rstrip("\r\n").endswith(marker)]
    assert len(found) == 1, marker
    return found[0] + 1


def check_one_changed_workspace(text: str, out: str, dash_col: int, nl: str = "\n") -> str:
    """The Workspace gains one line, `config: <derived>` under `inference:`; the new ConfigMap entry follows
    the Workspace; `results:` follows the last key of the ResourceList. Nothing else differs.
    Returns the derived ConfigMap's name."""
    key_col = dash_col + 2
    blocks = inserted_blocks(text, out)
    assert len(blocks) == 2, blocks
    (at1, lines), (at2, results) = blocks
    # 1. one line under inference:, after the preset, then the new item as an entry of the same sequence
    assert at1 == line_after(text, "name: deepseek-r1-0528")
    m = re.fullmatch(" " * (key_col + 2) + r"config: (specdec-mtp-[a-z0-9]+)" + nl, lines[0])
    assert m, lines[0]
    assert lines[1] == " " * dash_col + "- apiVersion: v1" + nl
    assert all(ln.startswith(" " * (dash_col + 2)) for ln in lines[2:])
    # 2. results, at column 0, after functionConfig and before the trailing comment
    assert at2 == line_after(text, "data: {}")
    assert results[0] == "results:" + nl
    return m.group(1)


def check_output_data(text: str, out: str, name: str) -> None:
    before, after = yaml.safe_load(text), yaml.safe_load(out)
    ws_at = next(i for i, it in enumerate(before["items"]) if it["metadata"]["name"] == "deepseek")
    ws = before["items"][ws_at]
    ws["inference"]["config"] = name
    new = after["items"][ws_at + 1]
    assert after["items"][:ws_at + 1] == before["items"][:ws_at + 1]
    assert after["items"][ws_at + 2:] == before["items"][ws_at + 1:]
    assert after["functionConfig"] == before["functionConfig"]
    # the new item: a ConfigMap in the workload's namespace, next to it in the package, without ids
    assert (new["apiVersion"], new["kind"], new["metadata"]["name"], new["metadata"]["namespace"]) == \
           ("v1", "ConfigMap", name, "ml")
    ann = new["metadata"]["annotations"]
    assert ann["internal.config.kubernetes.io/path"] == f"apps/{name}.yaml"
    assert ann["config.kubernetes.io/path"] == f"apps/{name}.yaml"
    assert not [k for k in ann if k.endswith("/id") or "migration-resource-id" in k]
    assert yaml.safe_load(new["data"]["inference_config.yaml"]) == {"vllm": {"speculative-config": MTP_JSON}}
    # one info result about the Workspace, besides the vLLM release assumed (SD428: vllmVersion is not set)
    [res] = [r for r in after["results"] if r["tags"]["id"] != "SD428"]
    assert res["severity"] == "info"
    assert res["resourceRef"] == {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
                                  "name": "deepseek", "namespace": "ml"}
    assert res["field"] == {"path": "inference.config", "proposedValue": name}
    assert res["file"] == {"path": "apps/deepseek.yaml", "index": 0}
    assert "KAITO-tuned: mtp in ConfigMap" in res["message"]


@pytest.mark.parametrize("items_indent", [0, 2], ids=["dash-at-column-0", "indented-items"])
@pytest.mark.parametrize("position", ["middle", "last"])
def test_one_changed_item_others_byte_identical(items_indent, position):
    parts = UNCHANGED[:3] + [WORKSPACE_ON] + UNCHANGED[3:] if position == "middle" else UNCHANGED + [WORKSPACE_ON]
    text = resource_list(parts, items_indent)
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    name = check_one_changed_workspace(text, out, items_indent)
    check_output_data(text, out, name)
    # the Workspace itself: only the config line is new
    assert indent(WORKSPACE_ON, items_indent) + " " * (items_indent + 4) + f"config: {name}\n" in out


def test_comment_between_dash_and_item():
    ws = WORKSPACE_ON.replace("- apiVersion: kaito.sh/v1beta1\n", "- # the workload\n  apiVersion: kaito.sh/v1beta1\n")
    other = KPTFILE.replace("- apiVersion: kpt.dev/v1\n", "-   # odd\n  apiVersion: kpt.dev/v1\n")
    text = resource_list([other, ws, DEPLOYMENT])
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    name = check_one_changed_workspace(text, out, 0)
    check_output_data(text, out, name)


def test_non_ascii_before_a_changed_item():
    accents = DEPLOYMENT.replace("name: web\n", "name: web # café, naïve, 日本語, 🚀🚀\n", 1)
    text = resource_list([SCALARS.replace("hello world", "héllo 🌍 wörld"), accents, WORKSPACE_ON])
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    name = check_one_changed_workspace(text, out, 0)
    check_output_data(text, out, name)
    assert "🌍" in out and "\\U0001F" not in out


def test_crlf_changed_item_keeps_crlf():
    text = resource_list([KPTFILE, WORKSPACE_ON]).replace("\n", "\r\n")
    code, out, _ = run([], text)
    assert code == 0
    check_output_data(text, out, re.search(r"config: (specdec-mtp-[a-z0-9]+)", out).group(1))
    assert out.count("\n") == out.count("\r\n")


def test_crlf_changed_item_means_the_right_thing():
    text = resource_list([KPTFILE, WORKSPACE_ON]).replace("\n", "\r\n")
    code, out, _ = run([], text)
    assert code == 0
    check_output_data(text, out, re.search(r"config: (specdec-mtp-[a-z0-9]+)", out).group(1))


def test_json_input_comes_out_as_block_yaml():
    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}},
        {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
         "metadata": {"name": "ws", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
         "inference": {"preset": {"name": "deepseek-r1-0528"}}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags"},
         "data": {"a": "true", "b": "on", "c": "010", "d": "1.10", "e": "multi\nline\n"}},
    ]}
    code, out, err = run([], json.dumps(doc))
    assert (code, err) == (0, "")
    after = yaml.safe_load(out)
    name = after["items"][1]["inference"]["config"]
    assert re.fullmatch(r"specdec-mtp-[a-z0-9]+", name)
    assert after["items"][0] == doc["items"][0] and after["items"][3] == doc["items"][2]
    assert after["items"][2]["metadata"]["name"] == name
    assert [r["tags"]["id"] for r in after["results"]] == ["SD428", "SD301"]
    # block style: no flow collections, ambiguous strings quoted, the multi-line string a literal block (the
    # results' messages end in their ids, `[SD301]`: words, not a flow sequence)
    assert not re.search(r"[{\[]", re.sub(r" \[SD\d{3}\]", "", out.replace(MTP_JSON, "")))
    assert '    a: "true"\n    b: "on"\n    c: "010"\n    d: "1.10"\n    e: |\n      multi\n      line\n' in out
    assert out.startswith("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n")


def test_json_input_unchanged_comes_out_as_block_yaml():
    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
           "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}}]}
    code, out, err = run([], json.dumps(doc))
    assert (code, err) == (0, "")
    assert out == ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
                   "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n")


def test_flow_item_in_block_list_is_edited_in_flow_syntax():
    ws = ('- {apiVersion: kaito.sh/v1beta1, kind: Workspace, metadata: {name: ws, annotations: '
          '{kaito.sh/enable-speculative-decoding: "true"}}, inference: {preset: {name: deepseek-r1-0528}}}\n')
    text = resource_list([KPTFILE, ws, DEPLOYMENT])
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    # the items around it are untouched; the flow item gets one more entry, in flow syntax
    assert out.startswith(HEAD + KPTFILE + ws[:-len("}}}\n")] + "}, config: specdec-mtp-")
    assert DEPLOYMENT + TAIL.split("#")[0] in out


# --- anchors and aliases: an alias is composed as the node it names, positioned at the anchor ----------

ALIASED = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: aliases
    labels: &labels {app: demo}
  data:
    a: &word hello
    b: *word
  extra:
    labels: *labels
"""

WORKSPACE_ALIAS_LAST = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: ws-alias
    labels: &sel
      apps: ds
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  inference:
    preset:
      name: deepseek-r1-0528
  resource:
    labelSelector:
      matchLabels: *sel
"""

WORKSPACE_MERGE = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: ws-merge
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  resource: &res
    count: 1
  inference:
    <<: {preset: {name: deepseek-r1-0528}}
  extra:
    <<: *res
"""


WORKSPACE_ALIAS_ENTRY = """\
- apiVersion: kaito.sh/v1beta1
  kind: Workspace
  metadata:
    name: ws-entry
    labels: &lab
      app: x
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  inference:
    preset:
      name: deepseek-r1-0528
  extra:
  - first
  -   # the same labels again
    *lab
"""


@pytest.mark.parametrize("ws, last_line, preset_line", [
    (WORKSPACE_ALIAS_LAST, "matchLabels: *sel", "name: deepseek-r1-0528"),
    (WORKSPACE_ALIAS_ENTRY, "    *lab", "name: deepseek-r1-0528"),
    (WORKSPACE_MERGE, "<<: *res", "<<: {preset: {name: deepseek-r1-0528}}"),
], ids=["alias-last", "alias-entry-last", "merge-keys"])
def test_aliases_do_not_move_item_boundaries(ws, last_line, preset_line):
    text = resource_list([ALIASED, ws, DEPLOYMENT])
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    before, after = yaml.safe_load(text), yaml.safe_load(out)
    name = after["items"][1]["inference"]["config"]
    assert DERIVED_NAME.fullmatch(name)
    before["items"][1]["inference"]["config"] = name
    assert [i["metadata"]["name"] for i in after["items"]] == ["aliases", before["items"][1]["metadata"]["name"],
                                                               name, "web"]
    assert after["items"][:2] == before["items"][:2] and after["items"][3] == before["items"][2]
    assert [r["tags"]["id"] for r in after["results"]] == ["SD428", "SD301"]
    # the untouched items are the same text; the Workspace only gained its config line
    assert out.startswith(HEAD + ALIASED)
    assert DEPLOYMENT + TAIL.split("#")[0] in out
    (at1, cfg), (at2, new_item), (at3, results) = inserted_blocks(text, out)
    assert (at1, cfg) == (line_after(text, preset_line), [f"    config: {name}\n"])
    assert (at2, new_item[0]) == (line_after(text, last_line), "- apiVersion: v1\n")
    assert (at3, results[0]) == (line_after(text, "data: {}"), "results:\n")


DERIVED_NAME = re.compile(r"specdec-mtp-[a-z0-9]+|[a-z0-9.-]+-specdec-[a-z0-9]+")


def test_derived_copy_keeps_emoji_and_literal_block():
    """The derived ConfigMap copies the user's inference_config.yaml: still a literal block, emoji as is
    (libyaml's emitter alone would write the whole text as one double-quoted line of escapes)."""
    source = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: inference
    namespace: ml
  data:
    inference_config.yaml: |
      # 🚀 fast settings, café
      vllm:
        max-model-len: 8192
"""
    ws = WORKSPACE_ON.replace("      name: deepseek-r1-0528\n", "      name: deepseek-r1-0528\n    config: inference\n")
    text = resource_list([source, ws])
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    assert out.startswith(HEAD + source)
    derived = yaml.safe_load(out)["items"][2]
    assert derived["data"]["inference_config.yaml"].startswith("# 🚀 fast settings, café\nvllm:\n")
    assert "    inference_config.yaml: |\n      # 🚀 fast settings, café\n      vllm:\n" in out
    assert "\\U0001F680" not in out


def test_results_replace_existing_results():
    text = resource_list([WORKSPACE_ON]).replace(TAIL, TAIL.split("#")[0]) + \
        "results:\n- message: stale\n  severity: error\n"
    code, out, _ = run([], text)
    assert code == 0
    assert "stale" not in out and [r["tags"]["id"] for r in yaml.safe_load(out)["results"]] == ["SD428", "SD301"]


# A ResourceList head with its `items:` key, and an enabled phi-4 Workspace as one `- ` entry of it.
RL_ITEMS = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
WS_PHI4 = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
           "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference:\n    preset:\n      name: phi-4\n")


def test_keep_chomped_source_gives_valid_yaml() -> None:
    cm = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
          "    inference_config.yaml: |+\n      vllm:\n        max-model-len: 4096\n\n")
    code, out, err = run([], RL_ITEMS + cm + WS_PHI4 + "    config: cfg\n")
    assert code == 0, err
    doc = yaml.safe_load(out)  # parses: no `...` spliced into the middle
    derived = [i for i in doc["items"] if i["metadata"]["name"].startswith("cfg-specdec-")][0]
    assert derived["data"]["inference_config.yaml"].endswith("4096\n  speculative-config: "
                                                               "'{\"method\":\"ngram\",\"num_speculative_tokens\":5,"
                                                               "\"prompt_lookup_max\":4}'\n\n")  # kept: `|+`


def test_trailing_spaces_in_the_source_keep_the_copy_a_literal_block() -> None:
    cm = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
          "    inference_config.yaml: |\n      # trailing space \n      vllm:\n        swap-space: 4  # tab\tinside\n")
    code, out, err = run([], RL_ITEMS + cm + WS_PHI4 + "    config: cfg\n")
    # (A tab between `4` and its comment is SD125 now: KAITO's inference server reads the file with
    # yaml.safe_load, which refuses it; tests/domain/test_inference_config.py.)
    assert code == 0, err
    derived_text = out[out.index("name: cfg-specdec-"):]
    assert "    inference_config.yaml: |\n      # trailing space \n" in derived_text
    derived = [i for i in yaml.safe_load(out)["items"] if i["metadata"]["name"].startswith("cfg-specdec-")][0]
    assert derived["data"]["inference_config.yaml"].startswith("# trailing space \nvllm:\n  swap-space: 4  # tab\tinside\n")


def test_stale_results_are_replaced_even_by_none() -> None:
    text = RL_ITEMS + "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\nresults:\n- message: stale\n  severity: error\n"
    code, out, _ = run([], text)
    assert code == 0 and "stale" not in out and yaml.safe_load(out)["items"][0]["metadata"]["name"] == "s"


def test_input_without_a_final_newline_gets_no_blank_lines() -> None:
    code, out, err = run([], RL_ITEMS + WS_PHI4.rstrip("\n"))
    assert code == 0, err
    assert "\n\n" not in out
    assert "      name: phi-4\n    config: specdec-ngram-" in out


@pytest.mark.parametrize("api", ["config.kubernetes.io/v1alpha1", "config.kubernetes.io/v1beta1", "v1"])
def test_every_resource_list_version_and_a_v1_list_are_read(api: str) -> None:
    text = RL_ITEMS.replace("config.kubernetes.io/v1", api) + WS_PHI4
    if api == "v1":
        text = text.replace("kind: ResourceList", "kind: List")
    code, out, err = run([], text)
    assert code == 0, err
    # the envelope as written, the Workspace re-pointed, the derived ConfigMap after it
    assert out.startswith(text + "    config: specdec-ngram-")
    assert [i["kind"] for i in yaml.safe_load(out)["items"]] == ["Workspace", "ConfigMap"]


def test_a_v1_list_comes_back_a_v1_list_with_its_results() -> None:
    """KRM mode writes the envelope it read: a `v1 List` in, a `v1 List` out, with `results` when there
    are any. kyaml's framework does the same (kio.ByteReadWriter keeps the input's WrappingKind and
    WrappingAPIVersion, and ByteWriter adds the results to whatever kind it wraps in), and kustomize and
    kpt read either kind back. A List comes from `kubectl get -o yaml`, not from an orchestrator: turned
    into a ResourceList, the `kubectl apply -f -` after the function would refuse the whole document,
    while kubectl takes a List's items and nothing else of it."""
    text = RL_ITEMS.replace("config.kubernetes.io/v1", "v1").replace("ResourceList", "List") + WS_PHI4
    code, out, err = run([], text)
    assert code == 0, err
    doc = yaml.safe_load(out)
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    assert [i["kind"] for i in doc["items"]] == ["Workspace", "ConfigMap"]
    assert [r["tags"]["id"] for r in doc["results"]] == ["SD428", "SD301"]


@pytest.mark.parametrize("items_indent", [0, 2])
@pytest.mark.parametrize("last", [False, True], ids=["followed-by-an-item", "last-item"])
def test_trailing_comments_stay_with_their_item(items_indent, last):
    """Indented comments after an item's last line belong to it: the new item goes after them (put before
    them, they would become part of the new ConfigMap's `inference_config.yaml: |` block)."""
    ws = WORKSPACE_ON + "      # TODO: try the 70b model\n        # deeper still\n\n"
    text = resource_list([KPTFILE, ws] + ([] if last else [DEPLOYMENT]), items_indent)
    if last:
        text = text.replace(TAIL, "")
    code, out, err = run([], text)
    assert (code, err) == (0, "")
    blocks = inserted_blocks(text, out)
    (at1, cfg), (at2, new_item) = blocks[:2]
    assert at1 == line_after(text, "name: deepseek-r1-0528") and len(cfg) == 1
    assert at2 == line_after(text, "# deeper still")
    assert new_item[0] == " " * items_indent + "- apiVersion: v1\n"
    derived = yaml.safe_load(out)["items"][2]
    assert yaml.safe_load(derived["data"]["inference_config.yaml"]) == {"vllm": {"speculative-config": MTP_JSON}}
    assert "TODO" not in derived["data"]["inference_config.yaml"]
    if last:  # the results follow the new item directly
        assert len(blocks) == 2 and new_item.index("results:\n") > 1
    else:
        assert len(blocks) == 3 and blocks[2][1][0] == "results:\n"
