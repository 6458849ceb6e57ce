"""The reader reads what the cluster's tools read (issue 28, the seven classes found with hostile inputs).

Each expectation was taken from `kubectl label --local -f FILE x=y -o json` (go-yaml v2, as Argo CD and
sigs.k8s.io/yaml read) and, where they differ, kustomize/kpt (go-yaml v3); the build with the second reader
(231658e) did otherwise in each, as issue 28 reports.
"""
from __future__ import annotations

import yaml

from krm_fn.text import reader, refusals, yamlio
from runner import run

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:{meta_tag}
  name: web
  annotations:{ann_tag}
    kaito.sh/enable-speculative-decoding: "true"
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.1
        args: ["--model", "m", "--port", "8000"{extra}]
"""


def test_1_a_set_tag_on_metadata_or_annotations_hides_no_opt_in() -> None:
    # kubectl reads `metadata: !!set` and `annotations: !!set` as the mappings they are written as.
    for meta_tag, ann_tag in ((" !!set", ""), ("", " !!set"), (" !!set", " !!set")):
        text = DEPLOYMENT.format(meta_tag=meta_tag, ann_tag=ann_tag, extra="")
        r = run(["render", "-"], text)
        assert r.code == 0, r.err
        assert "--speculative-config=" in r.out, (meta_tag, ann_tag)
        item = reader.read_stream([("f.yaml", text.encode())]).items[0]
        assert item.annotation("kaito.sh/enable-speculative-decoding") == "true"
        assert isinstance(item.data()["metadata"], dict)


def test_2_a_merge_key_after_the_key_it_sets_is_refused_naming_both() -> None:
    # kubectl: the later merge wins ("merged"); kustomize and kpt keep the key written: never decide silently.
    ws = ("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: ws\n  annotations:\n"
          "    kaito.sh/enable-speculative-decoding: \"true\"\nresource:\n  instanceType: Standard_NC24ads_A100_v4\n"
          "  labelSelector: {matchLabels: {app: ws}}\ninference:\n  preset:\n    name: phi-4\n"
          "    <<: {name: deepseek-r1-0528}\n")
    r = run(["render", "-"], ws)
    assert r.code == 1 and r.out == ""
    assert "the key 'name' (line 12) is set again by the merge key `<<` after it (line 13)" in r.err
    assert "[SD009]" in r.err
    # The merge first: every reader keeps the key written after it; nothing to say.
    first = ws.replace("    name: phi-4\n    <<: {name: deepseek-r1-0528}\n", "    <<: {name: deepseek-r1-0528}\n    name: phi-4\n")
    r = run(["render", "-"], first)
    assert r.code == 0, r.err


def test_2_an_opt_in_set_only_by_a_merge_is_read() -> None:
    text = DEPLOYMENT.format(meta_tag="", ann_tag="", extra="").replace(
        '    kaito.sh/enable-speculative-decoding: "true"\n', '    <<: {kaito.sh/enable-speculative-decoding: "true"}\n')
    item = reader.read_stream([("f.yaml", text.encode())]).items[0]
    assert item.annotation("kaito.sh/enable-speculative-decoding") == "true"


def test_3_a_directive_is_refused_as_kubectl_refuses_it() -> None:
    for directive in ("%YAML 1.1", "%YAML 1.2", "%YAML 1.3", "%TAG !e! tag:example.com,2000:"):
        text = f"{directive}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        r = run(["render", "--mode", "validate", "-"], text)
        assert r.code == 1 and "Traceback" not in r.err, directive
        assert "directive: kubectl, kustomize and kpt refuse a file with one; remove it" in r.err, r.err
        r = run([], f"{directive}\n---\n{RL}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n")
        assert r.code == 1 and "directive" in r.err


def test_4_a_byte_order_mark_starting_a_later_document_is_read_on() -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\ufeffapiVersion: v1\nkind: ConfigMap\n"
            "metadata:\n  name: b\n---\n\ufeff# a comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    r = run(["render", "-"], text.encode("utf-8"))
    assert r.code == 0, r.err
    assert [d["metadata"]["name"] for d in r.docs] == ["a", "b", "c"]
    items = reader.read_stream([("f.yaml", text.encode())]).items
    assert [(i.name, i.line) for i in items] == [("a", 0), ("b", 5), ("c", 11)]


def test_5_an_escaped_lone_surrogate_is_refused_as_libyaml_and_go_yaml_refuse_it() -> None:
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "\\ud800"\n'
    for argv, stdin in ((["render", "-"], text), ([], RL + "".join("  " + ln if n else "- " + ln
                                                                   for n, ln in enumerate(text.splitlines(True))))):
        r = run(argv, stdin)
        assert r.code == 1 and "Traceback" not in r.err and "internal error" not in r.err
        assert "invalid Unicode character escape code" in r.err


def test_5_without_libyaml_a_lone_surrogate_is_not_passed() -> None:
    # 231658e read with pure-Python PyYAML wherever PyYAML had no libyaml, and that reader took "\ud800":
    # `render` wrote it back out and exited 0. Without libyaml nothing may be read (the one reader, or none).
    import subprocess
    import sys
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "\\ud800"\n'
    for argv, stdin in ((["render", "-"], text), ([], RL + "".join("  " + ln if n else "- " + ln
                                                                   for n, ln in enumerate(text.splitlines(True))))):
        code = (f"import sys; sys.argv[1:] = {argv!r}; import yaml; del yaml.CSafeLoader, yaml.CSafeDumper; "
                "from krm_fn.cli import run; run()")
        proc = subprocess.run([sys.executable, "-c", code], input=stdin.encode(), capture_output=True)
        err = proc.stderr.decode()
        assert (proc.returncode, proc.stdout) == (1, b""), (argv, proc.returncode, proc.stdout, err)
        assert "internal error" not in err and "Traceback" not in err, err
        assert "without libyaml" in err or "invalid Unicode character escape code" in err, err


def test_6_thousands_of_results_are_written_by_a_run() -> None:
    # 4 500 enabled Workspaces, two findings each: 231658e's alias guard counted the 9 000 results' shared
    # strings and ended in `internal error: ExpansionTooLarge [SD065]`.
    n = 4500
    text = RL + "".join(
        f"- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws-{i}\n    annotations:\n"
        f"      kaito.sh/enable-speculative-decoding: \"true\"\n  resource:\n    instanceType: Standard_NC24ads_A100_v4\n"
        f"    labelSelector: {{matchLabels: {{app: ws-{i}}}}}\n  inference:\n    preset:\n      name: phi-4\n"
        for i in range(n))
    r = run([], text)
    assert r.code == 0 and "internal error" not in r.err, r.err[-500:]
    results = yaml.load(r.out, Loader=yaml.CSafeLoader)["results"]
    assert len(results) >= 2 * n, len(results)
    assert {x["resourceRef"]["name"] for x in results if x["tags"]["id"] == "SD301"} == {f"ws-{i}" for i in range(n)}


def test_6_thousands_of_results_are_written() -> None:
    # Results share their strings (a severity, an id): the alias guard is for input nodes, not our output.
    results = [{"message": "m", "severity": "info", "tags": {"id": "SD301"}} for _ in range(30_000)]
    text = yamlio.dump({"results": results})
    assert yaml.load(text, Loader=yaml.CSafeLoader)["results"] == results


def test_6_an_alias_bomb_in_an_item_is_still_refused() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh", strict=True))
    node = yamlio.compose(bomb)
    assert node is not None
    try:
        yamlio.construct(node)
    except refusals.ExpansionTooLarge:
        return
    raise AssertionError("an alias bomb was constructed")


def test_7_an_item_no_stage_looks_into_is_never_composed() -> None:
    # Memory and time follow what the stages read: a ConfigMap nobody names stays text.
    text = RL + "".join(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d{i}\n  spec: {{}}\n"
                        for i in range(50))
    rl = reader.read_resource_list(text.encode())
    assert [i.name for i in rl.items] == [f"d{i}" for i in range(50)]
    assert all(i._node is None for i in rl.items)
    assert rl.items[3].node.start_mark.line == 3 + 3 * 5 and rl.items[3].data()["metadata"]["name"] == "d3"


def test_4_items_tied_by_anchors_after_a_byte_order_mark_are_composed_with_their_document() -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n---\n\ufeffapiVersion: v1\nkind: List\nitems:\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels: &l {x: \"1\"}\n"
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    labels: *l\n")
    items = reader.read_stream([("f.yaml", text.encode())]).items
    assert [(i.name, i.shared, i.node.start_mark.line) for i in items] == [("z", False, 0), ("a", True, 8), ("b", True, 13)]
    assert items[2].data()["metadata"]["labels"] == {"x": "1"}


def test_without_libyaml_one_line_says_how_to_get_it() -> None:
    import subprocess
    import sys
    code = "import yaml; del yaml.CSafeLoader, yaml.CSafeDumper; from krm_fn.cli import run; run()"
    proc = subprocess.run([sys.executable, "-c", code], input=b"", capture_output=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "without libyaml" in lines[0] and "pip install" in lines[0], lines
