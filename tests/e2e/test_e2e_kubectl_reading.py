"""The function reads a manifest as kubectl reads it, or refuses it (issue 28's reading classes), held against
the real kubectl: `kubectl label --local -f FILE x=y -o json` reads a file as `kubectl apply` and Argo CD do
(sigs.k8s.io/yaml, go-yaml v2 underneath) and needs no cluster. kustomize and kpt (go-yaml v3) are the other
readers; where the two disagree (a merge key after the key it sets) the function must refuse.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

import goyaml
from e2e_support import clean_env, kubectl_reads, require_tool, run
from krm_fn.text import reader
from runner import run as run_function

OPT_IN = "kaito.sh/enable-speculative-decoding"
SET_TAGGED = """apiVersion: apps/v1
kind: Deployment
metadata: !!set
  name: web
  annotations: !!set
    kaito.sh/enable-speculative-decoding: "true"
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
"""
MERGE_AFTER = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kaito.sh/enable-speculative-decoding: "false"
    <<: {kaito.sh/enable-speculative-decoding: "true"}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
"""
LATER_BOM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
DIRECTIVE = "%YAML 1.1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"


@pytest.fixture(scope="module")
def kubectl() -> str:
    return require_tool("kubectl", "kubectl reads YAML the way `kubectl apply` and Argo CD do (sigs.k8s.io/yaml)")


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.yaml"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_set_tag_on_a_mapping_is_read_as_kubectl_reads_it(kubectl: str, tmp_path: Path) -> None:
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, SET_TAGGED), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"
    (item,) = reader.read_stream([("m.yaml", SET_TAGGED.encode())]).items
    assert item.annotation(OPT_IN) == "true"
    assert item.data()["metadata"]["annotations"] == seen["metadata"]["annotations"]
    # The command reads the opt-in too: no container runs vLLM, which it says of an opted-in workload only.
    r = run_function(["render", "-"], SET_TAGGED)
    assert r.code == 0 and "opted in, but no container of this Deployment runs vLLM" in r.err, r.err


def test_a_merge_kubectl_and_kustomize_read_apart_is_refused(kubectl: str, tmp_path: Path) -> None:
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, MERGE_AFTER), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"  # the later merge wins
    (item,) = reader.read_stream([("m.yaml", MERGE_AFTER.encode())]).items
    with pytest.raises(Exception, match="set again by the merge key"):
        item.data()  # go-yaml v3 (kustomize, kpt) keeps "false": no reading is chosen silently
    r = run_function(["render", "-"], MERGE_AFTER)
    assert r.code == 1 and r.out == "" and "[SD009]" in r.err, r.err
    assert "is set again by the merge key `<<` after it (line 7)" in r.err


def test_a_byte_order_mark_before_a_later_document_is_read_on(kubectl: str, tmp_path: Path) -> None:
    seen = kubectl_reads(kubectl, _file(tmp_path, LATER_BOM), refused=True)
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]
    r = run_function(["render", "-"], LATER_BOM)
    assert r.code == 0, r.err
    assert [d["metadata"]["name"] for d in r.docs] == ["a", "b"]


def test_a_directive_is_refused_by_both(kubectl: str, tmp_path: Path) -> None:
    assert kubectl_reads(kubectl, _file(tmp_path, DIRECTIVE), refused=True) is None
    r = run_function(["render", "-"], DIRECTIVE)
    assert r.code == 1 and "directive" in r.err


def test_a_file_ending_in_a_bare_cr_does_not_hide_the_next_document(kubectl: str, tmp_path: Path) -> None:
    """kubectl splits documents at `---` lines after a line feed: render must write one after a file whose
    last line ends in a bare CR, or kubectl reads the next file's object as part of it and loses it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\r")
    (src / "b.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")
    r = run_function(["render", str(src)])
    assert r.code == 0, r.err
    seen = kubectl_reads(kubectl, _file(tmp_path, r.out))
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]


def _kustomize_reads(kubectl: str, tmp_path: Path, text: str) -> tuple[int, str]:
    """`kubectl kustomize` (kustomize v5, go-yaml v3) of a folder whose one resource is `text`."""
    folder = tmp_path / "kz"
    folder.mkdir(exist_ok=True)
    (folder / "m.yaml").write_bytes(text.encode("utf-8"))
    (folder / "kustomization.yaml").write_text("resources: [m.yaml]\n")
    proc = run([kubectl, "kustomize", str(folder)], tmp_path, clean_env())
    return proc.returncode, proc.stdout + proc.stderr


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"


def test_text_after_the_separator_is_refused_as_kubectl_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "--- &root\n" + CM.format("b")
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "text after `---` on its line" in r.err, r.err


def test_a_separator_after_a_bare_cr_is_refused_where_kubectl_loses_the_document(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a").rstrip("\n") + "\r---\n" + CM.format("b")
    seen = kubectl_reads(kubectl, _file(tmp_path, text), refused=True)
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a"]  # b is lost to kubectl
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "a `---` next to a bare CR" in r.err, r.err


def test_an_escaped_slash_is_refused_as_go_yaml_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + 'data:\n  url: "http:\\/\\/example.com"\n'
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "unknown escape character" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "has no such escape" in r.err, r.err


def test_a_second_merge_key_is_refused_where_kubectl_and_kustomize_read_apart(kubectl: str, tmp_path: Path) -> None:
    text = (CM.format("a") + "  annotations:\n    <<: {" + OPT_IN + ': "false"}\n    <<: {' + OPT_IN
            + ': "true"}\n')
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text), refused=True) or [None]
    assert seen is not None and seen["metadata"]["annotations"][OPT_IN] == "true"  # kubectl merges both
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "duplicate merge key" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "the key << appears twice" in r.err, r.err


def test_a_quoted_merge_key_kustomize_drops_is_refused(kubectl: str, tmp_path: Path) -> None:
    text = ('apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: ws\nx: &b {p: "1"}\nresource:\n'
            '  "<<": *b\n  instanceType: Standard_NC24ads_A100_v4\ninference:\n  preset:\n    name: phi-4\n')
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["resource"]["<<"] == {"p": "1"}  # a key named <<
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "<<" not in said and "instanceType" in said, said  # dropped
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "kubectl reads a key named <<, kustomize and kpt drop it" in r.err, r.err


def test_a_file_ending_inside_a_block_scalar_is_read_apart_and_warned_about(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  x: |\n    hello"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"]["x"] == "hello\n"  # kubectl's reader ends the last line with "\n"
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "  x: hello\n" in said, said
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.yaml").write_text(text)
    r = run_function(["render", str(src / "a.yaml")])
    assert r.code == 0 and "[SD012]" in r.err, r.err
    (out,) = kubectl_reads(kubectl, _file(tmp_path, r.out)) or [None]
    assert out is not None and out["data"]["x"] == "hello"  # the output reads as kustomize and kpt read it


def test_an_anchor_given_again_is_read_as_kubectl_reads_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  a: &v one\n  b: *v\n  c: &v two\n  d: *v\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    assert item.data()["data"] == seen["data"] == {"a": "one", "b": "one", "c": "two", "d": "two"}


def test_an_escaped_single_quote_kubectl_reads_is_refused_in_plain_words(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  k: \"it\\'s\"\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"]["k"] == "it's"
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "which kubectl, kustomize and kpt read as '" in r.err, r.err


# Plain scalars PyYAML's YAML 1.1 resolver and go-yaml v2's resolve.go read apart, and their neighbours.
PLAIN = ["1e3", "+1e3", "1e+3", "1E3", "1_000e1", "1.e3", "0o17", "0O17", "0X1F", "0x1f", "0B11", "0b11", "0b-1",
         "0b+1", "-0b1", "0o-7", "017", "-017", "08", "0888", "00", "-0", "+0x1F", "0x_1F", "0_x1F", "1_", "+_1",
         "1__0", ".1_0", ".5e3", "-.5", ".", ".e3", "1e", "e3", "1e-400", "1e400", "9" * 400, "1:20", "12:30:00",
         "190:20:30.15", "=", "<<", "~", "null", "NULL", "y", "Y", "n", "N", "yes", "On", "OFF", "true", "tRue",
         "9223372036854775807", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
         "0x10000000000000000", "2024-01-01", "2024-1-1", "2024-01-01T00:00:00Z", "0x1p3", "1i", "1,000", "_1"]
# Tagged scalars: a tag go-yaml does not know leaves the text; an explicit number tag resolves the text.
TAGGED = ["!foo x", "!foo 1e3", "! 1e3", "!!set x", "!!merge x", "! <<", "!!str 0o17", "!!int '0o17'",
          "!!float 1", "!!bool y", "!!float '1e3'"]
# Merge keys both readers merge (a key `<<` kubectl reads as a key kustomize drops, and is refused:
# test_a_quoted_merge_key_kustomize_drops_is_refused).
MERGES = ["<<", "! <<", "!!merge <<", '!!merge "<<"']


def _plain(text: str) -> bool:
    """Is `text` one plain scalar as a mapping's value (a lookalike may be a key or a comment)?"""
    try:
        scalars = [e for e in yaml.parse(f"v: {text}\n") if isinstance(e, yaml.ScalarEvent)]
    except yaml.YAMLError:
        return False
    return len(scalars) == 2 and scalars[1].value == text and scalars[1].tag is None and not scalars[1].style


def _agree(mine: Any, seen: Any) -> bool:
    """The function's value and kubectl's JSON hold the same data, types and all: a number is a number (kubectl
    writes a whole float64 as an integer, so an int and a float agree where the float is that integer's
    nearest), an int64 an exact int, a bool a bool."""
    number = (int, float)
    if isinstance(mine, number) and not isinstance(mine, bool):
        if not isinstance(seen, number) or isinstance(seen, bool):
            return False
        if isinstance(mine, int) and isinstance(seen, int) and -(1 << 63) <= mine < 1 << 63:
            return mine == seen
        return float(mine) == float(seen)  # past int64 (go-yaml's uint64) kubectl's JSON decoding holds a float64
    if isinstance(mine, dict):
        return isinstance(seen, dict) and mine.keys() == seen.keys() and all(_agree(v, seen[k]) for k, v in mine.items())
    return type(mine) is type(seen) and mine == seen


def test_plain_and_tagged_scalars_are_read_as_kubectl_reads_them(kubectl: str, tmp_path: Path) -> None:
    """The oracle: every value the function reads (`Item.data()`, what each check looks at) is the value
    kubectl reads, type and all, for plain scalars PyYAML's YAML 1.1 reads otherwise (`1e3`, `0o17`, `1:20`,
    `=`, `y`), drawn lookalikes, tags go-yaml does not know, and merge keys."""
    plain = [t for t in dict.fromkeys(PLAIN + goyaml.lookalikes(7, 300)) if _plain(t)]
    plain = [t for t in plain if not (isinstance(v := goyaml.resolve_plain(t), float) and not math.isfinite(v))]
    lines = [f"  p{i}: {t}\n" for i, t in enumerate(plain)] + [f"  t{i}: {t}\n" for i, t in enumerate(TAGGED)]
    lines += [f"  m{i}: {{a: '1', {k}: {{k: v}}}}\n" for i, k in enumerate(MERGES)]
    text = "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: x\nspec:\n" + "".join(lines)
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text))
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    mine = item.data()["spec"]
    assert set(mine) == set(seen["spec"])
    wrong = {key: (text.split(f"  {key}: ", 1)[1].split("\n", 1)[0], value, seen["spec"][key])
             for key, value in mine.items() if not _agree(value, seen["spec"][key])}
    assert wrong == {}


def test_a_timestamp_tag_on_no_timestamp_is_refused_as_kubectl_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "  annotations:\n    " + OPT_IN + ': !!timestamp "true"\n'
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    with pytest.raises(Exception, match=r"cannot decode !!bool `true` as a !!timestamp"):
        item.data()
    ok = CM.format("a") + "data:\n  x: !!timestamp 2024-01-01\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, ok)) or [None]
    (item,) = reader.read_stream([("m.yaml", ok.encode())]).items
    assert seen is not None and item.data()["data"] == seen["data"] == {"x": "2024-01-01"}


@pytest.mark.parametrize("tail", ["---b: c\n", 'data:\n  k: "x\n---y"\n', "\ufeff---\n" + CM.format("b")],
                         ids=["key", "quoted", "bom"])
def test_lines_kubectl_takes_for_bad_separators_are_refused(kubectl: str, tmp_path: Path, tail: str) -> None:
    text = CM.format("a") + tail
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "[SD001]" in r.err, r.err


def test_a_namespace_that_is_no_string_is_refused_as_kubectl_refuses_it(kubectl: str, tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: 1000\n"
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "metadata.namespace has invalid value 1000" in r.err, r.err


def test_a_date_as_a_name_is_read_apart_and_refused(kubectl: str, tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 2024-01-01\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["metadata"]["name"] == "2024-01-01"
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert "2024-01-01T00:00:00Z" in said, said  # kustomize: a timestamp, written back in another form
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "metadata.name 2024-01-01 is unquoted" in r.err, r.err


ALIAS_KEY_NAMESPACE = CM.format("a") + "  labels: {&ns namespace: x}\n  *ns : prod\n"


def test_an_alias_as_a_key_is_read_as_kubectl_and_kustomize_read_it(kubectl: str, tmp_path: Path) -> None:
    """Issue 40, class 2: `*ns : prod` under metadata is the namespace `prod` to kubectl and kustomize; the
    function read no namespace (and wrote a derived ConfigMap with none)."""
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, ALIAS_KEY_NAMESPACE)) or [None]
    assert seen is not None and seen["metadata"]["namespace"] == "prod"
    code, said = _kustomize_reads(kubectl, tmp_path, ALIAS_KEY_NAMESPACE)
    assert code == 0 and "namespace: prod" in said, said
    (item,) = reader.read_stream([("m.yaml", ALIAS_KEY_NAMESPACE.encode())]).items
    assert (item.name, item.namespace) == ("a", "prod")


@pytest.mark.parametrize("text, kubectl_names, kustomize", [
    (CM.format("a") + "...\n\ufeff" + CM.format("b"), ["a"], "name: a\n"),  # both drop b
    (CM.format("a") + "\ufeff" + CM.format("b"), ["b"], 'mapping key "kind" already defined'),
    (CM.format("a") + "---\n\n\ufeff" + CM.format("b"), ["a", "b"], "\\uFEFF"),  # b has a key "\ufeffapiVersion"
], ids=["after-dots", "files-joined", "blank-line-after-separator"])
def test_a_byte_order_mark_inside_a_document_is_refused(kubectl: str, tmp_path: Path, text: str,
                                                        kubectl_names: list[str], kustomize: str) -> None:
    """Issue 40, class 4: go-yaml skips a byte-order mark only as the first byte it reads (right after a `---`
    line, where kubectl's and kyaml's splitters begin a document); elsewhere kubectl, kustomize and kpt read it
    as a character or drop what follows `...`. The function cut a new document there (libyaml skips it)."""
    seen = kubectl_reads(kubectl, _file(tmp_path, text), refused=True)
    assert seen is not None and [o["metadata"]["name"] for o in seen] == kubectl_names
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert kustomize in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "a byte-order mark at the start of a line inside a document" in r.err, r.err


def test_a_byte_order_mark_inside_a_quoted_string_is_read_as_kubectl_reads_it(kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + 'data:\n  k: "x\n\ufeffy"\n'
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"] == {"k": "x \ufeffy"}
    r = run_function(["render", "-"], text)
    assert r.code == 0 and [d["data"] for d in r.docs] == [seen["data"]], r.err


JSON_CM = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}'


@pytest.mark.parametrize("text", [
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
    JSON_CM + " # c\n",
    JSON_CM.replace('"a"}', '"a",}') + "\n",
    JSON_CM + "\n---\n" + CM.format("b"),
    "\ufeff{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",  # kubectl takes the mark off first
], ids=["flow-yaml", "comment", "trailing-comma", "yaml-after", "bom"])
def test_a_file_kubectl_refuses_as_json_and_kustomize_reads_is_warned_about(kubectl: str, tmp_path: Path,
                                                                            text: str) -> None:
    """Issue 40, class 6: a file whose first character but spaces is `{` is JSON to kubectl
    (apimachinery's GuessJSONStream), which refuses flow YAML there; kustomize and kpt read it as YAML. The
    function read it as they do in silence: now it says both readings (SD013), and its output reads as YAML."""
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "name: a" in said, said
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.yaml").write_bytes(text.encode("utf-8"))
    r = run_function(["render", str(src / "m.yaml")])
    assert r.code == 0 and "kubectl reads this file as JSON" in r.err and "[SD013]" in r.err, r.err
    seen = kubectl_reads(kubectl, _file(tmp_path, r.out))
    assert seen is not None and seen[0]["metadata"]["name"] == "a"


def test_json_kubectl_reads_is_no_warning(kubectl: str, tmp_path: Path) -> None:
    """JSON: no SD013. A stream of two JSON objects is two objects to kubectl and one to kustomize: refused."""
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, JSON_CM + "\n")) or [None]
    assert seen is not None and seen["metadata"]["name"] == "a"
    r = run_function(["render", str(_file(tmp_path, JSON_CM + "\n"))])
    assert r.code == 0 and "SD013" not in r.err, r.err
    text = JSON_CM + "\n" + JSON_CM.replace('"a"', '"b"') + "\n"
    seen = kubectl_reads(kubectl, _file(tmp_path, text))
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "name: a" in said and "name: b" not in said, said
    r = run_function(["render", str(_file(tmp_path, text))])
    assert r.code == 1 and "SD013" not in r.err and "[SD001]" in r.err, r.err


def test_an_alias_key_that_gives_a_key_again_is_refused_where_kubectl_and_kustomize_read_apart(
        kubectl: str, tmp_path: Path) -> None:
    text = CM.format("a") + "data:\n  &k k: x\n  *k : z\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"] == {"k": "z"}  # the later one
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and 'mapping key "k" already defined' in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "[SD004]" in r.err, r.err


@pytest.mark.parametrize("value", ["QQ=", "QQ QQ", "'*'"])
def test_binary_that_is_no_base64_is_refused_as_both_refuse_it(kubectl: str, tmp_path: Path, value: str) -> None:
    """`!!binary` text go-yaml cannot decode (base64.StdEncoding) stops kubectl and kustomize, in any field."""
    text = CM.format("a") + f"data:\n  x: !!binary {value}\n"
    assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "invalid base64 data" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "go-yaml !!binary value contains invalid base64 data" in r.err and "[SD018]" in r.err, r.err
    good = CM.format("a") + "binaryData:\n  x: !!binary QR==\n"
    assert kubectl_reads(kubectl, _file(tmp_path, good)) is not None
    assert run_function(["render", "-"], good).code == 0


@pytest.mark.parametrize("value", ["2", "!!int 2", "true", "y", "[x]"])
def test_a_label_or_annotation_that_is_no_string_is_refused_as_kubectl_refuses_it(kubectl: str, tmp_path: Path,
                                                                                  value: str) -> None:
    """kubectl (label --local and create --dry-run=client) refuses the object, kustomize reads it: SD066."""
    for where in ("annotations", "labels"):
        text = CM.format("a") + f"  {where}:\n    k: {value}\n"
        assert kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is None
        proc = run([kubectl, "create", "--dry-run=client", "--validate=false", "-f", str(_file(tmp_path, text)),
                    "-o", "json"], tmp_path, clean_env())
        assert f"Go struct field ObjectMeta.metadata.{where} of type string" in proc.stderr, proc.stderr
        code, said = _kustomize_reads(kubectl, tmp_path, text)
        assert code == 0, said
        r = run_function(["render", "-"], text)
        assert r.code == 1 and f"metadata.{where}[k]: the value " in r.err and "[SD066]" in r.err, r.err


@pytest.mark.parametrize("text, kubectl_names", [
    ("\ufeff\ufeff" + CM.format("a"), ["a"]),  # kubectl's file reader takes one off, go-yaml the other
    (CM.format("a") + "---\n\ufeff\ufeff" + CM.format("b"), None),  # kubectl reads `etadata` and refuses
], ids=["at-the-start", "after-separator"])
def test_two_byte_order_marks_in_a_row_are_refused(kubectl: str, tmp_path: Path, text: str,
                                                   kubectl_names: list[str] | None) -> None:
    """Issue 40, class 4's rest: go-yaml skips one mark as the first byte it reads; the second is a character
    of the first key, and kustomize refuses the object ("missing kind"). The function read both silently."""
    seen = kubectl_reads(kubectl, _file(tmp_path, text), refused=True)
    assert (None if seen is None else [o["metadata"]["name"] for o in seen]) == kubectl_names
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "missing kind" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and r.out == "" and "two byte-order marks in a row" in r.err, r.err


CYCLE = CM.format("a") + "data: &d\n  k: v\n  again: *d\n"


def test_an_alias_inside_the_node_it_names_is_refused_as_both_refuse_it(kubectl: str, tmp_path: Path) -> None:
    """kubectl: "anchor 'd' value contains itself"; kustomize overflows its stack. The function said so only
    of objects a stage reads (a ConfigMap no workload names is not)."""
    assert kubectl_reads(kubectl, _file(tmp_path, CYCLE), refused=True) is None
    code, said = _kustomize_reads(kubectl, tmp_path, CYCLE)
    assert code != 0, said
    r = run_function(["render", "-"], CYCLE)
    assert r.code == 1 and "data.again: an alias inside it names a node that contains that alias" in r.err, r.err


@pytest.mark.parametrize("anchor, where", [('"true"', "annotations"), ("5", "data"), ("'5'", "annotations")])
def test_an_alias_key_kustomize_reads_again_as_no_string_is_warned_about(kubectl: str, tmp_path: Path,
                                                                          anchor: str, where: str) -> None:
    """kubectl sends the anchor's text as the key; go-yaml v3 reads it again, unquoted, where kyaml rewrites
    the mapping (annotations in every build; any mapping when the anchor is plain), and refuses the object."""
    body = f"  annotations:\n    k: &b {anchor}\n    *b : v\n" if where == "annotations" else \
        f"data:\n  k: &b {anchor}\n  *b : v\n"
    text = CM.format("a") + body
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text), refused=True) or [None]
    key = anchor.strip("'\"")
    assert seen is not None and key in (seen.get("data") or seen["metadata"].get("annotations")), seen
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code != 0 and "json: unsupported type: map[interface {}]interface {}" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 0 and "the key *b is its anchor's text" in r.err and "[SD019]" in r.err, r.err


@pytest.mark.parametrize("value, reads", [("! 5", 5), ("! true", True)])
def test_a_value_tagged_non_specific_is_warned_about_as_kustomize_writes_it_back(kubectl: str, tmp_path: Path,
                                                                                 value: str, reads: Any) -> None:
    """kubectl reads `! 5` as "5"; kustomize writes `5` back, a number to kubectl after it."""
    text = CM.format("a") + f"data:\n  v: {value}\n"
    (seen,) = kubectl_reads(kubectl, _file(tmp_path, text)) or [None]
    assert seen is not None and seen["data"]["v"] == value[2:]
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and yaml.safe_load(said)["data"]["v"] == reads, said
    r = run_function(["render", "-"], text)
    assert r.code == 0 and "`" + value + "` is the string" in r.err and "[SD068]" in r.err, r.err


@pytest.mark.parametrize("text, read", [
    ("---\n\ufeff" + CM.format("a"), False),
    (CM.format("z") + "---\n---\n\ufeff" + CM.format("a"), False),
    ("# c\n---\n\ufeff" + CM.format("a"), True),
    (CM.format("z") + "---\n---\n---\n\ufeff" + CM.format("a"), True),
    (CM.format("z") + "---\n\n---\n\ufeff" + CM.format("a"), True),
], ids=["file-starts-with-separator", "second-separator-in-a-row", "comment-first", "third-separator",
        "blank-line-between"])
def test_a_byte_order_mark_after_a_separator_is_read_only_where_a_document_ends(kubectl: str, tmp_path: Path,
                                                                               text: str, read: bool) -> None:
    """kubectl's YAMLReader returns its buffer at a `---` line only when the buffer holds something; else the
    line goes into the next document's bytes and the mark after it is a character (`\\ufeffapiVersion`)."""
    seen = kubectl_reads(kubectl, _file(tmp_path, text), refused=True)
    assert seen is not None and ("apiVersion" in seen[-1]) is read, seen
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert ("\\uFEFF" not in said) is read, said
    r = run_function(["render", "-"], text)
    assert (r.code == 0) is read, r.err


@pytest.mark.parametrize("text, read", [
    (CM.format("a") + "---\n...\n---\n" + CM.format("b"), False),
    (CM.format("a") + "---\n# c\n...\n", False),
    (CM.format("a") + "...\n---\n" + CM.format("b"), True),
    (CM.format("a") + "---\n---\n...\n---\n" + CM.format("b"), True),
], ids=["between-documents", "after-a-comment", "ending-a-document", "after-a-second-separator"])
def test_a_document_that_is_only_a_document_end_is_refused_as_both_refuse_it(kubectl: str, tmp_path: Path,
                                                                           text: str, read: bool) -> None:
    assert (kubectl_reads(kubectl, _file(tmp_path, text), refused=True) is not None) is read
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert (code == 0) is read, said
    r = run_function(["render", "-"], text)
    assert ("a document that is only `...`" not in r.err) is read, r.err


@pytest.mark.parametrize("tail, apart", [("\n# c\n", True), ("\n\n# c\n---\n" + CM.format("b"), True),
                                         ("# c\n", False), ("\n", False)],
                         ids=["blank-then-comment", "before-another-document", "comment-at-once", "no-comment"])
def test_a_keep_block_scalar_before_a_comment_is_warned_about_where_kustomize_adds_a_line(
        kubectl: str, tmp_path: Path, tail: str, apart: bool) -> None:
    text = CM.format("a") + "data:\n  k: |+\n    x\n" + tail
    seen = kubectl_reads(kubectl, _file(tmp_path, text))
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert seen is not None and code == 0, said
    built = [d for d in yaml.safe_load_all(said) if d and d["metadata"]["name"] == "a"][0]
    assert (built["data"]["k"] != seen[0]["data"]["k"]) is apart, (built, seen)
    r = run_function(["render", "-"], text)
    assert ("[SD069]" in r.err) is apart, r.err


def test_a_separator_with_a_comment_and_no_space_is_refused_in_plain_words(kubectl: str, tmp_path: Path) -> None:
    """kubectl and kustomize cut `---#c` as a separator between two documents; libyaml reads a line of text."""
    text = CM.format("a") + "---#c\n" + CM.format("b")
    seen = kubectl_reads(kubectl, _file(tmp_path, text))
    assert seen is not None and [o["metadata"]["name"] for o in seen] == ["a", "b"]
    code, said = _kustomize_reads(kubectl, tmp_path, text)
    assert code == 0 and "name: b" in said, said
    r = run_function(["render", "-"], text)
    assert r.code == 1 and "`---#` with no space before the comment" in r.err, r.err
