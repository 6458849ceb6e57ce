"""`render`: which inputs it reads (folders, files, stdin, a ResourceList on stdin with its functionConfig),
what it leaves out (local config, the policy, hidden folders, a file named twice), and the errors and
warnings that name the file. Filesystem edge cases are tests/test_render_files.py; kustomize and kpt
configuration in a tree is tests/test_render_orchestrator.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from krm_fn.text.formats import ORIGIN_HINT
from runner import run

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
WS = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
      "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference:\n    preset:\n      name: phi-4\n")


def test_render_of_nothing_is_an_error(tmp_path: Path) -> None:
    for argv, stdin, words in ((["render", "-"], "", "[error] render: stdin is empty: no manifests to render"),
                               (["render", "-"], "---\n# nothing\n", "[error] render: stdin is empty"),
                               (["render", str(tmp_path)], "", "no Kubernetes objects in the input")):
        code, out, err = run(argv, stdin)
        assert (code, out) == (2, "") and words in err


def test_render_errors_name_the_file_and_document(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n---\n"
                                     "kind: Service\nmetadata:\n  name: c\n")
    code, out, err = run(["render", str(tmp_path)])
    assert (code, out) == (1, "")
    # file:line first (issue 9), and documents numbered from 1: the second document of b.yaml
    assert err == f"{tmp_path / 'b.yaml'}:6: [error] /Service/c apiVersion: document 2 (line 6, column 1) has no " \
                  "apiVersion (a non-empty string) [SD003]\n"


def test_render_leaves_local_config_and_the_policy_out(tmp_path: Path) -> None:
    (tmp_path / "ws.yaml").write_text(WS[2:].replace("\n  ", "\n"))
    (tmp_path / "Kptfile").write_text("unused")  # not *.yaml: never read
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: fn.kaito-specdec.dev/v1alpha1\nkind: SpeculativeDecodingPolicy\nmetadata:\n  name: p\n"
        "spec:\n  failOn: warning\n")
    (tmp_path / "local.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n"
        "    config.kubernetes.io/local-config: \"true\"\ndata: {}\n")
    r = run(["render", "--config", str(tmp_path / "policy.yaml"), str(tmp_path)])
    assert r.code == 0, r.err
    kinds = [(d["kind"], d["metadata"]["name"]) for d in r.docs]
    # The derived ConfigMap comes before the Workspace it serves (issue 21: `kubectl apply -f` applies in order).
    assert kinds == [("ConfigMap", kinds[0][1]), ("Workspace", "ws")] and kinds[0][1].startswith("specdec-ngram-")


def test_render_reads_a_resource_list_on_stdin() -> None:
    r = run(["render", "-"], RL + WS)
    assert r.code == 0, r.err
    assert [d["kind"] for d in r.docs] == ["ConfigMap", "Workspace"]


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
                  "one of them would be lost [SD008]\n" + ORIGIN_HINT + "\n"
    code, _, err = run(["render", "-"], svc + "---\n" + svc.replace("v1", "apps/v1", 1).replace("Service", "Deployment"))
    assert (code, err) == (0, "")  # another kind of the same name is another object


def test_render_keeps_crlf_streams_crlf() -> None:
    code, out, err = run(["render", "-"], (WS[2:].replace("\n  ", "\n")).replace("\n", "\r\n"))
    assert code == 0, err
    assert out.count("\n") == out.count("\r\n") > 10


@pytest.mark.parametrize("end", ["\r", "\u2028", "\x85", ""])
def test_every_document_ends_in_a_line_feed_before_the_next_separator(tmp_path, end) -> None:
    """kubectl, kustomize and kpt split documents at `---` lines after a line feed: a file whose last line
    ends in a bare CR (or NEL, LS, or nothing) must not swallow the next file's document for them."""
    (tmp_path / "a.yaml").write_bytes(("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a" + end).encode())
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")
    code, out, err = run(["render", str(tmp_path)])
    assert (code, err) == (0, "")
    assert out == f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a{end}\n---\n" \
                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"


def test_a_file_of_bare_cr_lines_keeps_them_inside_its_documents_only(tmp_path) -> None:
    """A CR-only file keeps its line breaks, but the separators are `---` lines ending in a line feed: a
    `---\r` line is no separator to kubectl ("invalid Yaml document separator")."""
    cm = "apiVersion: v1\rkind: ConfigMap\rmetadata:\r  name: {}\r"
    (tmp_path / "a.yaml").write_bytes(cm.format("a").encode())
    code, out, err = run(["render", str(tmp_path / "a.yaml")])
    assert (code, err) == (0, "")
    assert out == "---\n" + cm.format("a") + "\n"


def test_a_file_with_one_crlf_line_keeps_its_other_lines(tmp_path) -> None:
    """Only a stream read from CRLF files throughout is written with CRLF: one CRLF line does not make the
    file's other lines (or the next file's) CRLF."""
    mixed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\r\n"
    (tmp_path / "a.yaml").write_bytes(mixed.encode())
    code, out, err = run(["render", str(tmp_path / "a.yaml")])
    assert (code, err) == (0, "")
    assert out == "---\n" + mixed


def test_render_of_a_resource_list_uses_its_function_config() -> None:
    fc = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data:\n    mode: validate\n"
    r = run(["render", "-"], RL + WS + fc)
    assert r.code == 0, r.err
    assert [d["kind"] for d in r.docs] == ["Workspace"]  # validate: nothing derived
    r = run(["render", "--mode", "materialize", "-"], RL + WS + fc)
    assert [d["kind"] for d in r.docs] == ["ConfigMap", "Workspace"]  # the flag wins
