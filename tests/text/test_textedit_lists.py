"""textedit on lists: the ops plain vLLM workloads produce (issue #12) as text edits of an item's source.

`plain_workloads.plan_workload` appends `--speculative-config=<json>` to `args`/`command` (`add` at an
index), takes it out again (`remove` at an index), rewrites a `sh -c` script (`replace` of one string,
often a `|` block), and records the JSON in the pod template's annotations. Expected texts are written by
hand: only the changed element or line changes; comments, indentation, quoting and line breaks stay.
What cannot be edited in place raises Unsupported, and the writer then emits the item whole, meaning the
same (the one verifier decides); those rows show that fallback.
"""
from __future__ import annotations

import json
import random

import jsonpatch
import pytest
import yaml

from krm_fn.text import items
from krm_fn.text import reader, writer, yamlio
from krm_fn.text.edits import Changes
from krm_fn.domain.plain_workloads import kind_of, plan_workload
from krm_fn.text.textedit import Unsupported, apply_ops, apply_text_edits, edit_item, same
from build import RL, add, rep, rm

J = '{"method":"mtp","num_speculative_tokens":1}'
ARG = "--speculative-config=" + J                       # what an exec list gets
SQ = "'" + ARG + "'"                                    # single-quoted in a block list
DQ = '"' + ARG.replace('"', '\\"') + '"'                # among double-quoted neighbours, and in JSON lists
SH = " --speculative-config='" + J + "'"                # what a script gets after the vLLM command
RECORD = "kaito-specdec.dev/speculative-config"


LWS_SCRIPT = "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server"
LWS_LEADER = ('command:\n  - sh\n  - -c\n  - "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); \n'
              '     python3 -m vllm.entrypoints.openai.api_server --port 8080"\nresources: {}\n')


def item_of(text: str) -> items.Item:
    return items.make_item(0, yamlio.compose(text), text)


def edit(text: str, ops: list[dict]) -> str:
    it = item_of(text)
    return apply_text_edits(it.source, it.node, ops, it.start, it.end)


def through_the_writer(items: str, ops: list[dict], nl: str = "\n") -> str:
    """The whole ResourceList (line breaks `nl`) out of the writer, its one item (`items`) patched."""
    rl = reader.read_resource_list((RL + items).replace("\n", nl).encode())
    return writer.write_resource_list(rl, Changes({0: tuple(ops)}), [])


# (id, source, ops, exact expected text)
EDITS = [
    # --- add: append to a block list, in its own indentation and dash spacing, quoting like the neighbours
    ("append-indented-block", 'args:\n  - --port\n  - "8000"\nx: 1\n', [add("/args/2", ARG)],
     'args:\n  - --port\n  - "8000"\n  - ' + SQ + "\nx: 1\n"),
    ("append-block-at-key-column", 'args:\n- --port\n- "8000"\n', [add("/args/-", ARG)],
     'args:\n- --port\n- "8000"\n- ' + SQ + "\n"),
    ("append-among-double-quoted", 'args:\n- "--port"\n- "8000"\n', [add("/args/2", ARG)],
     'args:\n- "--port"\n- "8000"\n- ' + DQ + "\n"),
    ("append-among-single-quoted", "args:\n- '--port'\n- '8000'\n", [add("/args/2", ARG)],
     "args:\n- '--port'\n- '8000'\n- " + SQ + "\n"),
    ("append-plain-stays-plain", "args:\n-   --port\n-   '8000'\n", [add("/args/2", "--enforce-eager")],
     "args:\n-   --port\n-   '8000'\n-   --enforce-eager\n"),
    ("append-ambiguous-is-quoted", "args:\n- --port\n", [add("/args/1", "8000")], 'args:\n- --port\n- "8000"\n'),
    ("insert-first", "args:\n  - a  # a\n  - b\n", [add("/args/0", "c")], "args:\n  - c\n  - a  # a\n  - b\n"),
    ("append-before-the-comment-after-the-list", "args:\n  - a\n  # between\n  - b\n  # after\nx: 1\n",
     [add("/args/2", ARG)], "args:\n  - a\n  # between\n  - b\n  - " + SQ + "\n  # after\nx: 1\n"),
    ("append-after-a-block-scalar", "command:\n- sh\n- -c\n- |\n  vllm serve m\n# c\nx: 1\n",
     [add("/command/3", "x")], "command:\n- sh\n- -c\n- |\n  vllm serve m\n- x\n# c\nx: 1\n"),
    ("append-to-a-nested-list", "l:\n- - a\n  - b\n- - c\n", [add("/l/0/-", "x")],
     "l:\n- - a\n  - b\n  - x\n- - c\n"),
    ("append-in-a-container", "containers:\n- name: vllm\n  args:\n  - --port\n- name: side\n",
     [add("/containers/0/args/1", ARG)], "containers:\n- name: vllm\n  args:\n  - --port\n  - " + SQ
     + "\n- name: side\n"),
    ("two-appends", "args:\n- a\n", [add("/args/1", "b"), add("/args/2", "c")], "args:\n- a\n- b\n- c\n"),
    ("two-equal-elements-at-one-place", "args: [a, b]\n", [add("/args/1", "x"), add("/args/2", "x")],
     "args: [a, x, x, b]\n"),
    ("append-multi-line-string", "args:\n- a\n", [add("/args/1", "x\ny")], 'args:\n- a\n- "x\\ny"\n'),
    ("no-final-newline", 'args:\n  - --port\n  - "8000"', [add("/args/2", ARG)],
     'args:\n  - --port\n  - "8000"\n  - ' + SQ + "\n"),
    ("no-final-newline-after-a-block-scalar", "command:\n- sh\n- -c\n- |\n  vllm serve m",
     [add("/command/-", "x")], "command:\n- sh\n- -c\n- |-\n  vllm serve m\n- x\n"),
    # --- add: flow lists, in flow syntax; a JSON list stays JSON
    ("append-json-list", 'args: ["--port", "8000"]\n', [add("/args/2", ARG)],
     'args: ["--port", "8000", ' + DQ + "]\n"),
    ("append-plain-flow-list", "args: [--port, 8000]  # c\n", [add("/args/2", ARG)],
     "args: [--port, 8000, " + SQ + "]  # c\n"),
    ("append-empty-flow-list", "args: []\n", [add("/args/0", ARG)], "args: [" + SQ + "]\n"),
    ("insert-first-flow", "args: [a, b]\n", [add("/args/0", "c")], "args: [c, a, b]\n"),
    ("append-flow-list-over-lines", 'args: [\n  "--port",\n  "8000"\n]\n', [add("/args/2", ARG)],
     'args: [\n  "--port",\n  "8000", ' + DQ + "\n]\n"),
    ("two-appends-to-an-empty-flow-list", "args: []  # c\n", [add("/args/0", "a"), add("/args/-", "b")],
     "args: [a, b]  # c\n"),
    ("append-empty-json-list", '{"args": [], "x": 1}\n', [add("/args/0", ARG)], '{"args": [' + DQ + '], "x": 1}\n'),
    ("append-flow-trailing-comma", "args: [a, b,]\n", [add("/args/-", "c")], "args: [a, b, c,]\n"),
    # --- remove: the element's lines (block) or the element and its comma (flow); neighbours stay
    ("remove-middle", "args:\n- --port  # p\n- '8000'\n- x\n", [rm("/args/1")], "args:\n- --port  # p\n- x\n"),
    ("remove-last", "args:\n  - a\n  # between\n  - b  # b\n  # after\nx: 1\n", [rm("/args/1")],
     "args:\n  - a\n  # between\n  # after\nx: 1\n"),
    ("remove-first", "args:\n  - a\n  # between\n  - b\n", [rm("/args/0")], "args:\n  # between\n  - b\n"),
    ("remove-only-element", "args:\n- " + SQ + "  # ours\nx: 1\n", [rm("/args/0")], "args: []  # ours\nx: 1\n"),
    ("remove-the-only-block-scalar", "args:\n- |\n  vllm serve m\nx: 1\n", [rm("/args/0")], "args: []\nx: 1\n"),
    ("remove-a-block-scalar-element", "command:\n- sh\n- |\n  x\n- y\n", [rm("/command/1")],
     "command:\n- sh\n- y\n"),
    ("remove-flow-first", "args: [a, b, c]\n", [rm("/args/0")], "args: [b, c]\n"),
    ("remove-flow-middle", "args: [a, b, c]  # c\n", [rm("/args/1")], "args: [a, c]  # c\n"),
    ("remove-flow-last", 'args: ["--port", "8000", ' + DQ + "]\n", [rm("/args/2")], 'args: ["--port", "8000"]\n'),
    ("remove-flow-only", "args: [" + SQ + "]\n", [rm("/args/0")], "args: []\n"),
    ("remove-flow-element-holding-a-hash", "args: [a, 'b # c']\n", [rm("/args/1")], "args: [a]\n"),
    ("append-then-remove-the-first", "args:\n- a  # a\n", [add("/args/1", "b"), rm("/args/0")], "args:\n- b\n"),
    ("remove-then-append", "args:\n- a\n- b\n- c\n", [rm("/args/2"), rm("/args/1"), add("/args/1", "x")],
     "args:\n- a\n- x\n"),
    # --- replace: a script in a block scalar is edited on its line; style, chomping, indentation stay
    ("script-literal", "command:\n- sh\n- -c\n- |\n  pip install x\n  exec vllm serve m --port 8000 2>&1 | tee /log\n",
     [rep("/command/2", "pip install x\nexec vllm serve m --port 8000" + SH + " 2>&1 | tee /log\n")],
     "command:\n- sh\n- -c\n- |\n  pip install x\n  exec vllm serve m --port 8000" + SH + " 2>&1 | tee /log\n"),
    ("script-literal-strip", "args:\n  - |-\n      vllm serve m \\\n        --port 8000\n      echo done\nx: 1\n",
     [rep("/args/0", "vllm serve m \\\n  --port 8000" + SH + "\necho done")],
     "args:\n  - |-\n      vllm serve m \\\n        --port 8000" + SH + "\n      echo done\nx: 1\n"),
    ("script-literal-keep", "command:\n- sh\n- -c\n- |+\n  vllm serve m\n\n", [rep("/command/2", "vllm serve m" + SH + "\n\n")],
     "command:\n- sh\n- -c\n- |+\n  vllm serve m" + SH + "\n\n"),
    ("script-folded", "command:\n- sh\n- -c\n- >-\n  pip install x &&\n  exec vllm serve m --port 8000\n# c\nx: 1\n",
     [rep("/command/2", "pip install x && exec vllm serve m --port 8000" + SH)],
     "command:\n- sh\n- -c\n- >-\n  pip install x &&\n  exec vllm serve m --port 8000" + SH + "\n# c\nx: 1\n"),
    # (folded: the value has `m b`; the argument goes right after `m`, at the end of its line)
    ("script-folded-more-indented", "command:\n- sh\n- -c\n- >\n  a\n\n    more\n  vllm serve m\n  b\n",
     [rep("/command/2", "a\n\n  more\nvllm serve m" + SH + " b\n")],
     "command:\n- sh\n- -c\n- >\n  a\n\n    more\n  vllm serve m" + SH + "\n  b\n"),
    ("script-header-comment-and-tab", "args:\n- | # the server\n  vllm serve m\t--port 1\n",
     [rep("/args/0", "vllm serve m" + SH + "\t--port 1\n")],
     "args:\n- | # the server\n  vllm serve m" + SH + "\t--port 1\n"),
    ("script-argument-removed", "args:\n- |\n  vllm serve m" + SH + " 2>&1 | tee /log\n  echo\n",
     [rep("/args/0", "vllm serve m 2>&1 | tee /log\necho\n")], "args:\n- |\n  vllm serve m 2>&1 | tee /log\n  echo\n"),
    # --- replace: a one-line script keeps its quoting (plain stays plain where YAML allows)
    ("script-plain-block", "command:\n- sh\n- -c\n- vllm serve m  # c\n", [rep("/command/2", "vllm serve m" + SH)],
     "command:\n- sh\n- -c\n- vllm serve m" + SH + "  # c\n"),
    ("script-double-quoted", 'command:\n- sh\n- -c\n- "vllm serve m"\n', [rep("/command/2", "vllm serve m" + SH)],
     'command:\n- sh\n- -c\n- "vllm serve m --speculative-config=\'{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":1}\'"\n'),
    ("script-single-quoted-flow", "command: [sh, -c, 'vllm serve m']\n", [rep("/command/2", "vllm serve m" + SH)],
     "command: [sh, -c, 'vllm serve m" + SH.replace("'", "''") + "']\n"),
    ("script-plain-flow-is-quoted", "command: [sh, -c, vllm serve m]\n", [rep("/command/2", "vllm serve m" + SH)],
     "command: [sh, -c, 'vllm serve m" + SH.replace("'", "''") + "']\n"),
    ("script-plain-over-two-lines", "command:\n- sh\n- -c\n- vllm serve m\n  --port 1\nx: 1\n",
     [rep("/command/2", "vllm serve m --port 1" + SH)],
     "command:\n- sh\n- -c\n- vllm serve m\n  --port 1" + SH + "\nx: 1\n"),
    # (LeaderWorkerSet's own vLLM example writes its script double-quoted over two lines)
    ("script-double-quoted-over-two-lines", LWS_LEADER, [rep("/command/2", LWS_SCRIPT + " --port 8080" + SH)],
     LWS_LEADER.replace('--port 8080"', '--port 8080' + SH.replace('"', '\\"') + '"')),
    ("script-double-quoted-argument-removed", LWS_LEADER.replace('--port 8080"', '--port 8080' + SH.replace('"', '\\"') + '"'),
     [rep("/command/2", LWS_SCRIPT + " --port 8080")], LWS_LEADER),
    ("script-escaped-line-break", 'args: ["echo a; \\\n  vllm serve m"]\n', [rep("/args/0", "echo a; vllm serve m" + SH)],
     'args: ["echo a; \\\n  vllm serve m' + SH.replace('"', '\\"') + '"]\n'),
    ("script-escapes-elsewhere-kept", 'command: [sh, -c, "echo \\t\\u00e9; vllm serve m"]\n',
     [rep("/command/2", "echo \t\u00e9; vllm serve m" + SH)],
     'command: [sh, -c, "echo \\t\\u00e9; vllm serve m' + SH.replace('"', '\\"') + '"]\n'),
    ("script-single-quoted-quotes-kept", "command: [sh, -c, 'echo ''hi''; vllm serve m']\n",
     [rep("/command/2", "echo 'hi'; vllm serve m" + SH)],
     "command: [sh, -c, 'echo ''hi''; vllm serve m" + SH.replace("'", "''") + "']\n"),
    ("plain-that-would-read-as-a-number", "args: [a1, b]\n", [rep("/args/0", "1")], 'args: ["1", b]\n'),
    ("exec-argument-replaced", "args:\n- --port\n- " + SQ + "\n",
     [rep("/args/1", "--speculative-config={}")], "args:\n- --port\n- '--speculative-config={}'\n"),
    # --- KServe's model.args: created for the argument, taken away with it
    ("args-created", "model:\n  modelFormat: {name: huggingface}\n  storageUri: hf://Qwen/Qwen3.5-4B  # c\n",
     [add("/model/args", [ARG])],
     "model:\n  modelFormat: {name: huggingface}\n  storageUri: hf://Qwen/Qwen3.5-4B  # c\n  args:\n    - " + SQ + "\n"),
    ("args-created-flow", "model: {modelFormat: {name: huggingface}}\n", [add("/model/args", [ARG])],
     "model: {modelFormat: {name: huggingface}, args: [" + SQ + "]}\n"),
    ("args-removed", "model:\n  args:\n  - " + SQ + "\n  storageUri: hf://Qwen/Qwen3.5-4B  # c\n",
     [rm("/model/args")], "model:\n  storageUri: hf://Qwen/Qwen3.5-4B  # c\n"),
    # --- the record: the pod template's annotation holding the JSON
    ("record-in-block-annotations", "metadata:\n  annotations:\n    a: b  # c\n", [add("/metadata/annotations/" + RECORD.replace("/", "~1"), J)],
     "metadata:\n  annotations:\n    a: b  # c\n    " + RECORD + ": '" + J + "'\n"),
    ("record-in-flow-annotations", "metadata:\n  annotations: {a: b}  # c\n",
     [add("/metadata/annotations/" + RECORD.replace("/", "~1"), J)],
     "metadata:\n  annotations: {a: b, " + RECORD + ": '" + J + "'}  # c\n"),
    ("record-without-annotations", "metadata:\n  labels: {app: q}\nspec: {}\n",
     [add("/metadata/annotations", {RECORD: J})],
     "metadata:\n  labels: {app: q}\n  annotations:\n    " + RECORD + ": '" + J + "'\nspec: {}\n"),
    ("record-without-metadata", "template:\n  spec:\n    containers: []\n",
     [add("/template/metadata", {"annotations": {RECORD: J}})],
     "template:\n  spec:\n    containers: []\n  metadata:\n    annotations:\n      " + RECORD + ": '" + J + "'\n"),
    ("record-removed", "metadata:\n  annotations:\n    a: b\n    " + RECORD + ": '" + J + "'\n",
     [rm("/metadata/annotations/" + RECORD.replace("/", "~1"))], "metadata:\n  annotations:\n    a: b\n"),
    # An indentation indicator (`|2-`: the first line may be indented further): edited in its line too.
    ("explicit-indentation", "command:\n- |2\n    vllm serve m\n", [rep("/command/0", "  vllm serve m --x\n")],
     "command:\n- |2\n    vllm serve m --x\n"),
    ("explicit-indentation-first-line-further", "command:\n- |2-\n    a\n  vllm serve m\n",
     [rep("/command/0", "  a\nvllm serve m --x")], "command:\n- |2-\n    a\n  vllm serve m --x\n"),
    ("record-map-removed", "metadata:\n  labels: {app: q}\n  annotations:\n    " + RECORD + ": '" + J + "'\n",
     [rm("/metadata/annotations")], "metadata:\n  labels: {app: q}\n"),
]


@pytest.mark.parametrize("source, ops, expected", [c[1:] for c in EDITS], ids=[c[0] for c in EDITS])
def test_list_ops_as_text_edits(source, ops, expected):
    assert edit(source, ops) == expected
    assert edit_item(item_of(source), ops) == expected  # it verifies: no fallback
    assert same(yaml.safe_load(expected), jsonpatch.apply_patch(yaml.safe_load(source), ops))


# Line breaks: the writer writes new lines in the input's breaks (CRLF kept), bare CR too.
@pytest.mark.parametrize("nl", ["\r\n", "\r"])
@pytest.mark.parametrize("items, ops, expected", [
    ('- kind: D\n  args:\n    - --port\n    - "8000"\n', [add("/args/2", ARG)],
     '- kind: D\n  args:\n    - --port\n    - "8000"\n    - ' + SQ + "\n"),
    ("- kind: D\n  args:\n  - |\n    a\n    vllm serve m\n  - x\n", [rep("/args/0", "a\nvllm serve m" + SH + "\n")],
     "- kind: D\n  args:\n  - |\n    a\n    vllm serve m" + SH + "\n  - x\n"),
    ("- kind: D\n  args:\n  - a\n  - b\n", [rm("/args/0")], "- kind: D\n  args:\n  - b\n"),
], ids=["append", "script", "remove"])
def test_line_breaks_are_kept(nl, items, ops, expected):
    assert through_the_writer(items, ops, nl) == (RL + expected).replace("\n", nl)


# Layouts the text edit refuses: the item is emitted whole, meaning the patch result (comments go).
REFUSED = [
    ("alias-element", "a: &x v\nargs:\n- *x\n- b\n", [add("/args/-", "c")], "aliases, anchors or tags"),
    ("anchored-element", "args:\n- &x v\n- b\n", [rm("/args/0")], "aliases, anchors or tags"),
    ("tagged-element", "args:\n- !!str v\n- b\n", [rep("/args/0", "w")], "aliases, anchors or tags"),
    ("path-through-an-alias", "c: &c\n  args: [a]\nl:\n- *c\n", [add("/l/0/args/-", "b")], "alias"),
    ("element-below-its-dash", "args:\n-\n  a\n", [add("/args/-", "c")], "not on its dash's line"),
    ("first-of-a-nested-list", "l:\n- - a\n  - b\n", [rm("/l/0/0")], "does not start its line"),
    ("explicit-indentation-folded-lines", "command:\n- >2\n  a\n  b\n", [rep("/command/0", "a b --x\n")],
     "explicit indentation whose lines do not match"),
    ("script-grows-a-line", "command:\n- |\n  vllm serve m\n", [rep("/command/0", "vllm serve m\n--x\n")],
     "across lines"),
    ("comment-in-flow-list", 'args: [\n  "--port",  # c\n  "8000"\n]\n', [rm("/args/1")], "comment inside"),
    ("empty-element", "args:\n-\n- b\n", [add("/args/-", "c")], "empty element"),
    ("script-rewritten-whole", "args:\n- >-\n  a\n  b\n", [rep("/args/0", "c")], "outside its lines"),
    ("comment-would-join-a-block-scalar", "args:\n  - |\n    vllm serve m\n  - x\n    # about x\n  - z\n",
     [rm("/args/1")], "join the block scalar"),
    ("collection-element", "args:\n- a\n", [add("/args/-", {"k": "v"})], "collection"),
    ("add-before-an-added-element", "args: [a]\n", [add("/args/0", "b"), add("/args/0", "c")],
     "earlier operation added"),
    ("two-replaces-of-one-element", "args: [a b]\n", [rep("/args/0", "a x b"), rep("/args/0", "a b y")],
     "earlier operation added or changed"),
    ("into-a-changed-list", "l:\n- {a: 1}\n- {b: 2}\n", [add("/l/0", "x"), add("/l/1/c", 3)], "earlier operation changed"),
]


@pytest.mark.parametrize("source, ops, why", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_layouts_fall_back_safely(source, ops, why):
    with pytest.raises(Unsupported, match=why):
        edit(source, ops)
    out = edit_item(item_of(source), ops)
    assert same(yaml.safe_load(out), apply_ops(yaml.safe_load(source), ops))  # aliases: a tree, as JSON


# --- the plan's own ops, end to end through the writer: enable, re-run, disable -------------------

DEPLOYMENT = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: qwen  # the server
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  spec:
    template:
      metadata:
        labels: {app: qwen}
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
{container}
          - name: sidecar  # left alone
            image: busybox
"""
CONTAINERS = {
    "exec-block": ('            command: ["vllm", "serve", "Qwen/Qwen3.5-4B"]\n'
                   "            args:\n              - --port\n              - \"8000\"  # the port\n",
                   '              - "8000"  # the port\n', '              - "8000"  # the port\n              - ' + SQ + "\n"),
    "exec-flow": ('            command: ["vllm", "serve", "Qwen/Qwen3.5-4B"]\n'
                  '            args: ["--port", "8000"]  # the port\n',
                  '"8000"]', '"8000", ' + DQ + "]"),
    "command-only": ("            command:\n            - vllm\n            - serve\n            - Qwen/Qwen3.5-4B\n",
                     "            - Qwen/Qwen3.5-4B\n", "            - Qwen/Qwen3.5-4B\n            - " + SQ + "\n"),
    "script-literal": ("            command: [sh, -c]\n            args:\n            - |\n"
                       "              pip install x  # not a comment\n"
                       "              exec vllm serve Qwen/Qwen3.5-4B --port 8000 2>&1 | tee /log\n",
                       "--port 8000 2>&1", "--port 8000" + SH + " 2>&1"),
    "script-folded": ("            command: [sh, -c]\n            args:\n            - >-\n"
                      "              pip install x &&\n              exec vllm serve Qwen/Qwen3.5-4B\n",
                      "Qwen/Qwen3.5-4B\n", "Qwen/Qwen3.5-4B" + SH + "\n"),
    "script-one-line": ('            command: ["/bin/sh", "-c", "vllm serve Qwen/Qwen3.5-4B --port 8000"]\n',
                        '--port 8000"]', '--port 8000 --speculative-config=\'{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":1}\'"]'),
}
RECORD_LINE = "        labels: {app: qwen}\n", "        labels: {app: qwen}\n        annotations:\n          " \
    + RECORD + ": '" + J + "'\n"


def _run_plan(text: str, nl: str) -> str:
    """The item (`- …` lines, breaks `nl`) after the plan's ops went through the writer."""
    head = RL.replace("\n", nl)
    rl = reader.read_resource_list((head + text).encode())
    data = rl.items[0].data()
    plan = plan_workload(kind_of(data["apiVersion"], data["kind"]), data)
    out = writer.write_resource_list(rl, Changes({0: plan.ops} if plan.ops else {}), [])
    assert out.startswith(head)
    return out[len(head):]


@pytest.mark.parametrize("layout", list(CONTAINERS))
@pytest.mark.parametrize("nl", ["\n", "\r\n"])
def test_enable_rerun_disable_byte_for_byte(layout, nl):
    container, before, after = CONTAINERS[layout]
    source = DEPLOYMENT.replace("{container}", container.rstrip("\n"))
    expected = source.replace(before, after, 1).replace(*RECORD_LINE)
    assert expected != source and expected.count("num_speculative_tokens") == 2
    enabled = _run_plan(source.replace("\n", nl), nl)
    assert enabled == expected.replace("\n", nl)
    assert _run_plan(enabled, nl) == enabled                     # a fixpoint: no ops, no change
    off = enabled.replace('speculative-decoding: "true"', 'speculative-decoding: "false"')
    assert _run_plan(off, nl) == source.replace("\n", nl).replace('decoding: "true"', 'decoding: "false"')


def test_the_recorded_json_is_the_injected_json():
    # The rows above spell the JSON once for both places: make sure it is what the plan writes.
    data = yaml.safe_load(DEPLOYMENT.replace("{container}", CONTAINERS["exec-block"][0].rstrip("\n")))[0]
    ops = plan_workload(kind_of("apps/v1", "Deployment"), data).ops
    assert {json.dumps(op["value"]) for op in ops} == {json.dumps(ARG), json.dumps({RECORD: J})}


def test_render_edits_a_document_of_a_multi_document_file():
    """`render`: the Deployment is one document among others (a byte-order mark, a comment before it, CRLF,
    no final line break): its flow lists and flow annotations are edited in flow syntax, the rest stays."""
    dep = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: q\n"
           '  annotations: {kaito.sh/enable-speculative-decoding: "true"}\n'
           "spec:\n  template:\n    metadata: {labels: {app: q}}\n    spec:\n      containers:\n"
           "      - name: vllm  # c\n        args: [vllm, serve, Qwen/Qwen3.5-4B]")
    text = ("\ufeff# head\nkind: ConfigMap\n---\n# the server\n" + dep).replace("\n", "\r\n")
    stream = reader.read_stream([("a.yaml", text.encode())])
    data = stream.items[1].data()
    ops = plan_workload(kind_of("apps/v1", "Deployment"), data).ops
    out = writer.write_stream(stream, Changes({1: tuple(ops)}))
    edited = dep.replace("{labels: {app: q}}", "{labels: {app: q}, annotations: {" + RECORD + ": '" + J + "'}}") \
        .replace("Qwen/Qwen3.5-4B]", "Qwen/Qwen3.5-4B, " + SQ + "]")
    assert out == ("---\n# head\nkind: ConfigMap\n---\n# the server\n" + edited + "\n").replace("\n", "\r\n")


KSERVE = """\
- apiVersion: serving.kserve.io/v1beta1
  kind: InferenceService
  metadata:
    name: qwen
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  spec:
    predictor:
      model:
        modelFormat:
          name: huggingface
        storageUri: hf://Qwen/Qwen3.5-4B  # downloaded at start
"""


def test_kserve_args_created_and_taken_away_byte_for_byte():
    """KServe's Hugging Face runtime without `args`: the function creates the list for its argument, the
    record goes into the predictor's annotations, and disabling takes both away again."""
    enabled = _run_plan(KSERVE, "\n")
    assert enabled == KSERVE + "        args:\n          - " + SQ + "\n      annotations:\n        " + RECORD \
        + ": '" + J + "'\n"
    assert _run_plan(enabled, "\n") == enabled
    off = enabled.replace('decoding: "true"', 'decoding: "false"')
    assert _run_plan(off, "\n") == KSERVE.replace('decoding: "true"', 'decoding: "false"')


# --- random containers in random layouts: every edit is a text edit, and disabling restores the bytes ---

_WORDS = ["vllm serve a/b", "vllm serve Qwen/Qwen3.5-4B", "--port 8000", "'q u'", '"$(x y)"', "&&", "||", ";", "|",
          "2>&1", "> /log", "# c", "\\\n", "\n", "echo hi", "exec", "A=1", "$EXTRA", "pip install x\n", "  "]
_ARGS = ["a/b", "--model", "Qwen/Qwen3.5-4B", "--port", "8000", "$(X)", "--enforce-eager", "on", "x: y", "it's"]


def _scalar(rnd, s: str, col: int, flow: bool) -> str:
    """One string as YAML in a style picked at random among those that can carry it."""
    styles = ['"']
    if "\n" not in s:
        styles.append("'")
        if not flow and s == s.strip() and yamlio.scalar_text(s) == s and not (set(s) & set("{}[],#'\"")):
            styles.append("plain")
    elif s.strip() and not s.lstrip("\n").startswith(" ") and "\r" not in s and not s.endswith("\n\n"):
        styles += ["|" if s.endswith("\n") else "|-"] * 3
    style = rnd.choice(styles)
    if style == "plain":
        return s
    if style == "'":
        return "'" + s.replace("'", "''") + "'"
    if style == '"':
        return json.dumps(s)
    pad = " " * (col + 2)
    if style == "|-":
        return "|-\n" + "\n".join(pad + ln if ln else "" for ln in s.split("\n"))
    return "|\n" + "\n".join(pad + ln if ln else "" for ln in s[:-1].split("\n"))


def _list(rnd, items: list[str], col: int) -> str:
    """The text after `key:` for a list of strings: block (two indentations), flow or JSON."""
    layout = rnd.choice(["block", "block-indented", "flow", "json"])
    if layout == "json" or (layout == "flow" and not items):
        return " " + json.dumps(items)
    if layout == "flow":
        return " [" + ", ".join(_scalar(rnd, s, col, flow=True) if "\n" not in s else json.dumps(s)
                                for s in items) + "]"
    if not items:
        return " []"
    dash = col + (2 if layout == "block-indented" else 0)
    return "".join("\n" + " " * dash + "- " + _scalar(rnd, s, dash, flow=False) for s in items)


def _random_container(rnd) -> dict:
    if rnd.random() < 0.5:
        script = " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(1, 8)))
        return {"command": ["sh", "-c"], "args": [script]} if rnd.random() < 0.5 else \
            {"command": ["sh", "-c", script]}
    c: dict = {"args": [rnd.choice(_ARGS) for _ in range(rnd.randint(0, 4))]}
    command = rnd.choice([["vllm", "serve"], ["python3", "-m", "vllm.entrypoints.openai.api_server"], None])
    if command:
        c["command"] = command
    return c


@pytest.mark.parametrize("seed", range(2))  # 40 seeds pass too; two keep the suite quick
def test_random_layouts_are_edited_in_place_and_restored(seed):
    rnd = random.Random(seed)
    edited = 0
    for _ in range(60):
        c = _random_container(rnd)
        lines = "".join(f"            {key}:{_list(rnd, c[key], 12)}  # keep {key}\n" if rnd.random() < 0.3 and
                        not c[key] else f"            {key}:{_list(rnd, c[key], 12)}\n" for key in c)
        source = DEPLOYMENT.replace("{container}", lines.rstrip("\n"))
        data = yaml.safe_load(source)[0]["spec"]["template"]["spec"]["containers"][0]
        assert {k: data[k] for k in c} == c, source
        enabled = _run_plan(source, "\n")
        if enabled == source:
            continue  # not vLLM, a script the function leaves alone, an override: nothing to edit
        edited += 1
        # Text edits, not the whole item emitted: the comments and the flow-style labels are all still there.
        assert all(mark in enabled for mark in ("# the server", "labels: {app: qwen}", "# left alone")), enabled
        assert _run_plan(enabled, "\n") == enabled, enabled
        off = enabled.replace('decoding: "true"', 'decoding: "false"')
        assert _run_plan(off, "\n") == source.replace('decoding: "true"', 'decoding: "false"'), enabled
    assert edited > 15


LWS = """\
- apiVersion: leaderworkerset.x-k8s.io/v1
  kind: LeaderWorkerSet
  metadata:
    name: vllm
    annotations:
      kaito.sh/enable-speculative-decoding: "true"
  spec:
    leaderWorkerTemplate:
      size: 2
      leaderTemplate:
        metadata:
          labels:
            role: leader
        spec:
          containers:
            - name: leader
              image: vllm/vllm-openai:v0.11.0
              command:
                - sh
                - -c
                - "bash serve.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);
                   python3 -m vllm.entrypoints.openai.api_server --port 8080 --model Qwen/Qwen3.5-4B --tensor-parallel-size 8"
      workerTemplate:
        spec:
          containers:
            - name: worker  # joins the leader's Ray cluster
              image: vllm/vllm-openai:v0.11.0
              command: ["sh", "-c", "bash serve.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
"""


def test_leader_worker_set_script_over_two_lines_byte_for_byte():
    """The leader's script, double-quoted over two lines, gets the argument on its vLLM line; disabling
    takes exactly that out again (the worker runs Ray only and is left alone)."""
    enabled = _run_plan(LWS, "\n")
    assert enabled == LWS.replace("--tensor-parallel-size 8\"", "--tensor-parallel-size 8"
                                  + SH.replace('"', '\\"') + '"').replace(
        "          labels:\n            role: leader\n",
        "          labels:\n            role: leader\n          annotations:\n            " + RECORD + ": '" + J + "'\n")
    assert _run_plan(enabled, "\n") == enabled
    off = enabled.replace('decoding: "true"', 'decoding: "false"')
    assert _run_plan(off, "\n") == LWS.replace('decoding: "true"', 'decoding: "false"')
