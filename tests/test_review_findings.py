"""Regressions from the adversarial review: each was a reproduction that broke the function."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import yaml

from krm_fn.cli import main

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
WS = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
      "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference:\n    preset:\n      name: phi-4\n")


def run(argv: list[str], text: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.BytesIO(text.encode()), stdout=out, stderr=err, environ={})
    return code, out.getvalue(), err.getvalue()


def test_keep_chomped_source_gives_valid_yaml() -> None:
    cm = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
          "    inference_config.yaml: |+\n      vllm:\n        max-model-len: 4096\n\n")
    code, out, err = run([], RL + cm + WS + "    config: cfg\n")
    assert code == 0, err
    doc = yaml.safe_load(out)  # parses: no `...` spliced into the middle
    derived = [i for i in doc["items"] if i["metadata"]["name"].startswith("cfg-specdec-")][0]
    assert derived["data"]["inference_config.yaml"].endswith("4096\n  speculative-config: "
                                                               "'{\"method\":\"ngram\",\"num_speculative_tokens\":5,"
                                                               "\"prompt_lookup_max\":4}'\n\n")  # kept: `|+`


def test_trailing_spaces_in_the_source_keep_the_copy_a_literal_block() -> None:
    cm = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
          "    inference_config.yaml: |\n      # trailing space \n      vllm:\n        swap-space: 4\t# tab\n")
    code, out, err = run([], RL + cm + WS + "    config: cfg\n")
    assert code == 0, err
    derived_text = out[out.index("name: cfg-specdec-"):]
    assert "    inference_config.yaml: |\n      # trailing space \n" in derived_text
    derived = [i for i in yaml.safe_load(out)["items"] if i["metadata"]["name"].startswith("cfg-specdec-")][0]
    assert derived["data"]["inference_config.yaml"].startswith("# trailing space \nvllm:\n  swap-space: 4\t# tab\n")


def test_stale_results_are_replaced_even_by_none() -> None:
    text = RL + "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\nresults:\n- message: stale\n  severity: error\n"
    code, out, _ = run([], text)
    assert code == 0 and "stale" not in out and yaml.safe_load(out)["items"][0]["metadata"]["name"] == "s"


def test_render_of_nothing_is_an_error(tmp_path: Path) -> None:
    for argv, stdin, words in ((["render", "-"], "", "[error] render: stdin is empty: no manifests to render"),
                               (["render", "-"], "---\n# nothing\n", "[error] render: stdin is empty"),
                               (["render", str(tmp_path)], "", "no Kubernetes objects in the input")):
        code, out, err = run(argv, stdin)
        assert (code, out) == (1, "") and words in err


def test_render_errors_name_the_file_and_document(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n---\n"
                                     "kind: Service\nmetadata:\n  name: c\n")
    code, out, err = run(["render", str(tmp_path)])
    assert (code, out) == (1, "")
    # file:line first (issue 9), and documents numbered from 1: the second document of b.yaml
    assert err == f"{tmp_path / 'b.yaml'}:6: [error] /Service/c apiVersion: document 2 (line 6, column 1) has no " \
                  "apiVersion (a non-empty string) [SD007]\n"


def test_malformed_referenced_configmaps_are_named_errors() -> None:
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data: [oops]\n"
    code, out, err = run([], RL + bad + WS + "    config: cfg\n")
    assert code == 1 and "internal error" not in err
    assert '[error] v1/ConfigMap/cfg data[inference_config.yaml]: ConfigMap "cfg" referenced by Workspace "ws"' in err
    assert out.startswith(RL + bad)


def test_unreadable_function_config_is_a_named_error() -> None:
    text = RL + WS + "functionConfig: {kind: SpeculativeDecodingPolicy, spec: {tunedPresets: {? [a] : {x: 1}}}}\n"
    code, out, err = run([], text)
    assert code == 1 and "invalid functionConfig: it cannot be read" in err and "internal error" not in err


def test_deep_nesting_is_a_clear_error() -> None:
    text = RL + WS + "  x: " + "[" * 3000 + "]" * 3000 + "\n"
    code, out, err = run([], text)
    # Newer libyaml builds refuse such nesting while parsing; older ones leave it to us.
    assert code == 1 and out == "" and ("nests too deeply" in err or "exceeded maximum nesting depth" in err)
    assert "internal error" not in err and len(err.splitlines()) == 1


ANCHORED = (RL + "- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n"
            "    labels: &lbl {app: demo}\n    annotations:\n      kaito.sh/enable-speculative-decoding: \"true\"\n"
            "  inference: {preset: {name: phi-4}}\n"
            "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc\n    labels: *lbl\n")


def test_anchors_shared_across_items_never_dangle() -> None:
    code, out, err = run([], ANCHORED)
    assert code == 0, err
    doc = yaml.safe_load(out)  # would fail with "found undefined alias" if the anchor's item were cut
    assert doc["items"][-1]["metadata"]["labels"] == {"app": "demo"}
    assert "*lbl" not in out and "&lbl" not in out  # the whole list re-emitted, aliases expanded


def test_anchors_shared_across_items_untouched_are_kept_as_written() -> None:
    text = ANCHORED.replace('"true"', '"false"')
    code, out, _ = run([], text)
    assert (code, out) == (0, text)


def test_render_splits_a_list_whose_items_share_anchors_into_standalone_documents(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        "    labels: &l {x: y}\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    labels: *l\n")
    code, out, err = run(["render", str(tmp_path)])
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    assert [d["metadata"]["labels"] for d in docs] == [{"x": "y"}, {"x": "y"}]


def test_input_without_a_final_newline_gets_no_blank_lines() -> None:
    code, out, err = run([], RL + WS.rstrip("\n"))
    assert code == 0, err
    assert "\n\n" not in out
    assert "      name: phi-4\n    config: specdec-ngram-" in out


def test_render_leaves_local_config_and_the_policy_out(tmp_path: Path) -> None:
    (tmp_path / "ws.yaml").write_text(WS[2:].replace("\n  ", "\n"))
    (tmp_path / "Kptfile").write_text("unused")  # not *.yaml: never read
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: fn.kaito-specdec.dev/v1alpha1\nkind: SpeculativeDecodingPolicy\nmetadata:\n  name: p\n"
        "spec:\n  failOn: warning\n")
    (tmp_path / "local.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n"
        "    config.kubernetes.io/local-config: \"true\"\ndata: {}\n")
    code, out, err = run(["render", "--config", str(tmp_path / "policy.yaml"), str(tmp_path)])
    assert code == 0, err
    kinds = [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(out)]
    assert kinds == [("Workspace", "ws"), ("ConfigMap", kinds[1][1])] and kinds[1][1].startswith("specdec-ngram-")


def test_render_reads_a_resource_list_on_stdin() -> None:
    code, out, err = run(["render", "-"], RL + WS)
    assert code == 0, err
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["Workspace", "ConfigMap"]


def test_render_skips_hidden_folders_and_reads_each_file_once(tmp_path: Path) -> None:
    (tmp_path / ".expected").mkdir()
    (tmp_path / ".expected" / "config.yaml").write_text("testType: eval\n")
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n")
    code, out, err = run(["render", str(tmp_path), str(tmp_path / "svc.yaml")])
    assert (code, err) == (0, "")
    assert out == "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"


def test_the_same_object_twice_is_a_warning(tmp_path: Path) -> None:
    svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
    (tmp_path / "a.yaml").write_text(svc)
    code, out, err = run(["render", str(tmp_path / "a.yaml"), "-"], svc)
    assert code == 0
    assert err == f"<stdin>:1: [warning] v1/Service/s: the same object as {tmp_path / 'a.yaml'} (kind, namespace and name): " \
                  "one of them would be lost [SD008]\n"
    code, _, err = run(["render", "-"], svc + "---\n" + svc.replace("v1", "apps/v1", 1).replace("Service", "Deployment"))
    assert (code, err) == (0, "")  # another kind of the same name is another object


def test_render_keeps_crlf_streams_crlf() -> None:
    code, out, err = run(["render", "-"], (WS[2:].replace("\n  ", "\n")).replace("\n", "\r\n"))
    assert code == 0, err
    assert out.count("\n") == out.count("\r\n") > 10


def test_render_of_a_resource_list_uses_its_function_config() -> None:
    fc = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data:\n    mode: validate\n"
    code, out, err = run(["render", "-"], RL + WS + fc)
    assert code == 0, err
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["Workspace"]  # validate: nothing derived
    code, out, _ = run(["render", "--mode", "materialize", "-"], RL + WS + fc)
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["Workspace", "ConfigMap"]  # the flag wins


@pytest.mark.parametrize("api", ["config.kubernetes.io/v1alpha1", "config.kubernetes.io/v1beta1", "v1"])
def test_every_resource_list_version_and_a_v1_list_are_read(api: str) -> None:
    text = RL.replace("config.kubernetes.io/v1", api) + WS
    if api == "v1":
        text = text.replace("kind: ResourceList", "kind: List")
    code, out, err = run([], text)
    assert code == 0, err
    # the envelope as written, the Workspace re-pointed, the derived ConfigMap after it
    assert out.startswith(text + "    config: specdec-ngram-")
    assert [i["kind"] for i in yaml.safe_load(out)["items"]] == ["Workspace", "ConfigMap"]
