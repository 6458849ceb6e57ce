"""Generated ResourceLists for the fast path's equivalence test (tests/test_fastread.py): kpt-shaped lists
of ordinary and KAITO objects, each put through a few mutations that have fooled line scanners before
(odd indentation, flow style, comments and document markers inside block scalars, anchors across items,
tags, CR and CRLF, Unicode line separators, JSON, unterminated quotes hiding keys given twice, `metadata:`
followed by `|` or a lone `-`, non-mapping entries, `#` inside one-line flow collections, …).

Many mutations make invalid YAML or invalid objects on purpose: the two paths must still agree.
"""
from __future__ import annotations

import random
import re

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _deployment(i: int) -> str:
    return (f"# web-{i}: the front end\n"
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata:\n"
            f"  name: web-{i} # keep in step\n"
            f"  namespace: team-{i % 3}\n"
            f"  labels: {{app: web-{i}, tier: front}}\n"
            "  annotations:\n"
            f"    config.kubernetes.io/index: '{i}'\n"
            f"    config.kubernetes.io/path: 'apps/app-{i % 2}.yaml'\n"
            "spec:\n"
            "  replicas: 2\n"
            "  selector:\n"
            f"    matchLabels: {{app: web-{i}}}\n"
            "  template:\n"
            "    spec:\n"
            "      containers:\n"
            "      - name: web\n"
            "        image: \"nginx:1.27\" # pinned\n"
            "        args: [\"--port\", \"8080\", --log-level=info]\n"
            "        command:\n"
            "        - sh\n"
            "        - -c\n"
            "        - |\n"
            "          set -eu\n"
            "          test -d /srv && echo ready\n"
            "\n"
            "          exec nginx -g 'daemon off;'\n"
            "        resources:\n"
            "          requests: {cpu: 100m, memory: 64Mi}\n")


def _service(i: int) -> str:
    return ("apiVersion: v1\n"
            "kind: Service\n"
            "metadata:\n"
            f"  name: svc-{i}\n"
            "  annotations:\n"
            f"    config.kubernetes.io/index: {i}\n"
            "    note: 'it''s fine'\n"
            "spec:\n"
            f"  selector: {{app: web-{i}}}\n"
            "  ports:\n"
            "  - port: 80 # the ingress\n"
            "    targetPort: http\n")


def _workspace(i: int) -> str:
    return ("apiVersion: kaito.sh/v1beta1\n"
            "kind: Workspace\n"
            "metadata:\n"
            f"  name: ws-{i}\n"
            "  namespace: ml\n"
            "  annotations:\n"
            "    kaito.sh/enable-speculative-decoding: \"true\"\n"
            "resource:\n"
            "  instanceType: Standard_NC24ads_A100_v4\n"
            "  labelSelector:\n"
            f"    matchLabels: {{apps: ws-{i}}}\n"
            "inference:\n"
            "  preset:\n"
            "    name: phi-4\n")


def _configmap(i: int) -> str:
    return ("apiVersion: v1\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            f"  name: cm-{i}\n"
            "data:\n"
            "  inference_config.yaml: |\n"
            "    vllm:\n"
            "      max-model-len: 4096\n"
            "  other: x\n")


def _namespace(i: int) -> str:
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-{i}\n  labels:\n    \"team\": a\n    on: 'x'\n"


def _kustomization(i: int) -> str:
    return ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yaml\n"
            "metadata:\n  name: k\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n")


DOCS = [_deployment, _deployment, _service, _service, _namespace, _workspace, _configmap, _kustomization]


def _entry(doc: str, style: str) -> str:
    lines = doc.splitlines(True)
    if style == "wide":  # four spaces a level, lists indented under their key
        lines = [re.sub(r"^( *)", lambda m: m.group(1) * 2, ln) for ln in lines]
        lines = [re.sub(r"^( *)- ", lambda m: m.group(1) + "  - ", ln) for ln in lines]
    if style == "dash-comment":
        return "- # a comment after the dash\n" + "".join("  " + ln if ln.strip() else ln for ln in lines)
    return "- " + lines[0] + "".join("  " + ln if ln.strip() else ln for ln in lines[1:])


def _lines_at(text: str, rng: random.Random) -> int:
    starts = [m.end() for m in re.finditer("\n", text)]
    return rng.choice(starts[:-1]) if len(starts) > 1 else len(text)


def _insert(text: str, at: int, what: str) -> str:
    return text[:at] + what + text[at:]


def _mutations(rng: random.Random) -> list:
    def dup_line(t: str) -> str:
        keys = [m for m in re.finditer(r"(?m)^( +)([\w./-]+): [^\n|]*\n", t)]
        if not keys:
            return t
        m = rng.choice(keys)
        return t[:m.end()] + m.group(1) + m.group(2) + ": twice\n" + t[m.end():]

    def flow_dup(t: str) -> str:
        return t.replace("{app: web-", "{app: x, app: web-", 1)

    def hidden_dup(t: str) -> str:
        return t.replace("  name: ", "  name: \"unterminated\n  name: ", 1)

    def anchor_across(t: str) -> str:
        t = t.replace("replicas: 2", "replicas: &r 2", 1)
        return t.replace("targetPort: http", "targetPort: *r", 1)

    def anchor_within(t: str) -> str:
        return t.replace("replicas: 2", "replicas: &r 2\n    minReadySeconds: *r", 1)

    def tag(t: str) -> str:
        return t.replace("replicas: 2", rng.choice(["replicas: !!str 2", "replicas: !custom 2", "replicas: !!int '2'"]), 1)

    def crlf(t: str) -> str:
        return t.replace("\n", rng.choice(["\r\n", "\r"]))

    def odd_break(t: str) -> str:
        ch = rng.choice(["\x85", "\u2028", "\u2029"])
        if rng.random() < 0.5:
            return t.replace("name: svc-", f"name: s{ch}vc-", 1).replace("name: web-", f"name: w{ch}eb-", 1)
        return t.replace("\n  selector", ch + "  selector", 1)

    def marker_in_block(t: str) -> str:
        what = rng.choice(["---\n", "...\n", "# not a comment\n", "- a: b\n", "kind: Fake\n", "items:\n"])
        return t.replace("          set -eu\n", "          set -eu\n          " + what, 1)

    def marker_col0(t: str) -> str:
        return t.replace("          set -eu\n", "          set -eu\n" + rng.choice(["---\n", "...\n", "# c\n", "-\n"]), 1)

    def json_item(t: str) -> str:
        return t.replace("items:\n", 'items:\n- {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}\n', 1)

    def metadata_block(t: str) -> str:
        return t.replace("metadata:\n  name: svc-", rng.choice(["metadata: |\n    name: svc-", "metadata:\n  -\n  name: svc-",
                                                              "metadata:\n  - name: svc-", "metadata: x\n  name2: svc-"]), 1)

    def non_mapping(t: str) -> str:
        return t.replace("items:\n", "items:\n" + rng.choice(["- a string\n", "- - a\n", "-\n", "- null\n", "- [1, 2]\n",
                                                              "- 'q'\n"]), 1)

    def hash_in_flow(t: str) -> str:
        return t.replace("{app: web-", rng.choice(["{app: '#', x: web-", "{app: a#b, x: web-", "{ # c\n app: web-"]), 1) \
            .replace("[\"--port\"", "[\"#\", \"--port\"", 1)

    def comment_lines(t: str) -> str:
        for _ in range(3):
            t = _insert(t, _lines_at(t, rng), " " * rng.randrange(0, 9) + "# " + rng.choice(["c", "kaito", "a: b", "- x"]) + "\n")
        return t

    def tabs(t: str) -> str:
        return t.replace("  replicas: 2", "  replicas:\t2", 1)

    def plain_multiline(t: str) -> str:
        return t.replace("tier: front}\n", "tier: front}\n  description: one\n    two\n", 1)

    def block_last(t: str) -> str:
        return t.replace("    targetPort: http\n", "    targetPort: http\n  note: |" + rng.choice(["", "+", "-", "2"]) +
                         "\n    text\n\n", 1)

    def annotation_forms(t: str) -> str:
        return t.replace("    config.kubernetes.io/index: '", rng.choice([
            "    config.kubernetes.io/local-config: \"true\"\n    config.kubernetes.io/index: '",
            "    a: |\n      x\n    config.kubernetes.io/index: '", "    e: \"\\u00e9\"\n    config.kubernetes.io/index: '",
            "    empty:\n    config.kubernetes.io/index: '", "    x: {a: 1}\n    config.kubernetes.io/index: '",
            "    \"config.kubernetes.io/path\": 'q.yaml'\n    config.kubernetes.io/index: '"]), 1)

    def quoted_key_dup(t: str) -> str:
        return t.replace("  replicas: 2\n", rng.choice(["  replicas: 2\n  'replicas': 3\n", "  replicas: 2\n  \"replicas\": 3\n",
                                                       "  1: a\n  '1': b\n  replicas: 2\n", "  on: a\n  'on': b\n  replicas: 2\n",
                                                       "  yes: a\n  true: b\n  replicas: 2\n"]), 1)

    def kaito_mention(t: str) -> str:
        return t.replace("      containers:\n", "      containers:\n      # see kaito.sh docs\n", 1) \
            .replace("  template:\n", "  template:\n    metadata:\n      annotations:\n"
                                      "        kaito.sh/enable-speculative-decoding: \"true\"\n", 1)

    def tail_keys(t: str) -> str:
        return t + rng.choice(["functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: fc\n",
                               "results:\n- message: old\n  severity: info\n", "# trailing comment\n",
                               "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fc}, data: {a: b}}\n"])

    def envelope(t: str) -> str:
        return rng.choice([lambda s: s.replace("kind: ResourceList", "kind: List", 1),
                           lambda s: s.replace("kind: ResourceList\n", "", 1),
                           lambda s: s + "---\nkind: Other\n",
                           lambda s: "# a comment\n" + s,
                           lambda s: s.replace("items:\n", "items: # the objects\n  # first\n", 1),
                           lambda s: s.replace("items:\n", "items:\n\n", 1),
                           lambda s: s.rstrip("\n"),
                           lambda s: s.replace("apiVersion: config", "apiVersion: &v config", 1) + "x: *v\n"])(t)

    def deep(t: str) -> str:
        body = "".join("  " * (k + 2) + f"k{k}:\n" for k in range(rng.choice([40, 130])))
        return t.replace("  replicas: 2\n", "  replicas: 2\n  nest:\n" + body + "  " * 20 + "  end: 1\n", 1)

    def keyless(t: str) -> str:
        return t.replace("  replicas: 2\n", rng.choice(["  replicas:2\n", "  ? complex\n  : value\n", "  <<: {a: 1}\n",
                                                       "  a: b: c\n", "  replicas: - 2\n", "  x: 'a'b\n"]), 1)

    return [dup_line, flow_dup, hidden_dup, anchor_across, anchor_within, tag, crlf, odd_break, marker_in_block,
            marker_col0, json_item, metadata_block, non_mapping, hash_in_flow, comment_lines, tabs, plain_multiline,
            block_last, annotation_forms, quoted_key_dup, kaito_mention, tail_keys, envelope, deep, keyless]


def case(seed: int) -> tuple[str, bool]:
    """(a ResourceList, whether it is left unmutated: plain kpt-shaped input the fast path should take)."""
    rng = random.Random(seed)
    n = rng.randrange(1, 7)
    style = rng.choice(["compact", "compact", "wide", "dash-comment"])
    docs = [rng.choice(DOCS)(seed * 10 + k) for k in range(n)]
    text = HEAD + "".join(_entry(d, style if rng.random() < 0.7 else "compact") for d in docs)
    plain = rng.random() < 0.25
    if not plain:
        for mutate in rng.sample(_mutations(rng), rng.randrange(1, 4)):
            text = mutate(text)
    return text, plain
