"""The command reads plain scalars and tags as kubectl (go-yaml v2) reads them, not as PyYAML's YAML 1.1 does:
`1e3` and `0o17` are numbers, `1:20`, `=` and `<<` (as a value) strings, a scalar with a tag go-yaml does not
know is its text; a key kubectl and kustomize merge apart is refused. (The adversarial cases of the goscalars
work; tests/text/test_go_scalars.py has the resolver's table, tests/e2e/test_e2e_kubectl_reading.py kubectl.)
"""
from __future__ import annotations

import pytest

import goyaml
from runner import run

OPT_IN = "kaito.sh/enable-speculative-decoding"
WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: {kind}
metadata:
  name: ws
  annotations:
    {opt_in}: {value}
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels:
      apps: ws
inference:
  preset:
    name: phi-4
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
spec:
  selector:
    matchLabels: {{app: qwen}}
  template:
    metadata:
      labels: {{app: qwen}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve", "Qwen/Qwen3.5-4B"]
          args:
            - --max-num-seqs
            - {arg}
"""


def _workspace(kind: str = "Workspace", opt_in: str = OPT_IN, value: str = '"true"') -> str:
    return WORKSPACE.format(kind=kind, opt_in=opt_in, value=value)


def test_a_config_reference_go_yaml_reads_as_a_number_is_refused() -> None:
    """`config: 1e3` is the number 1000 to kubectl: no ConfigMap `1e3` is derived from or named."""
    text = _workspace() + "  config: 1e3\n"
    r = run(["render", "-"], text)
    assert r.code == 1 and r.out == "", r.err
    assert "inference.config has invalid value 1e3 (unquoted, YAML reads it as a number" in r.err and "[SD108]" in r.err
    assert "1e3-specdec" not in r.err


@pytest.mark.parametrize("arg", ["1e3", "0o17", "+1e3", "0X1F"])
def test_an_argument_go_yaml_reads_as_a_number_is_not_a_string(arg: str) -> None:
    r = run(["render", "-"], DEPLOYMENT.format(arg=arg))
    assert r.code == 0, r.err
    assert "args[1] is not a string; quote it" in r.err and "[SD707]" in r.err
    (deployment,) = r.docs
    assert "--speculative-config" not in str(deployment)  # nothing injected


@pytest.mark.parametrize("arg", ["=", "<<", "1:20", "!foo x"])
def test_an_argument_go_yaml_reads_as_a_string_is_one(arg: str) -> None:
    r = run(["render", "-"], DEPLOYMENT.format(arg=arg))
    assert r.code == 0, r.err
    assert "[SD707]" not in r.err and "[SD009]" not in r.err
    (deployment,) = goyaml.read_all(r.out)  # as kubectl reads the output (PyYAML cannot read `- =`)
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:2] == ["--max-num-seqs", arg.removeprefix("!foo ")]
    assert args[2].startswith("--speculative-config=")


@pytest.mark.parametrize(("kind", "opt_in", "value"), [
    ("!foo Workspace", OPT_IN, '"true"'), ("Workspace", "!foo " + OPT_IN, '"true"'), ("Workspace", OPT_IN, "!foo true"),
    ("! Workspace", OPT_IN, "! true"),
], ids=["kind", "annotation-key", "annotation-value", "bang"])
def test_a_tag_go_yaml_does_not_know_leaves_the_text(kind: str, opt_in: str, value: str) -> None:
    """kubectl and kustomize read `!foo Workspace` as "Workspace": the Workspace is read and enabled."""
    r = run(["render", "-"], _workspace(kind, opt_in, value))
    assert r.code == 0, r.err
    assert "[SD003]" not in r.err and "[SD009]" not in r.err
    (derived, workspace) = goyaml.read_all(r.out)
    assert derived["kind"] == "ConfigMap" and workspace["inference"]["config"] == derived["metadata"]["name"]


def test_a_config_reference_of_an_equals_sign_is_a_configmap_name() -> None:
    """`config: =` is the string "=" to kubectl (PyYAML's YAML 1.1 reads a `value` tag it cannot construct)."""
    r = run(["render", "-"], _workspace() + "  config: =\n")
    assert "could not determine a constructor" not in r.err and "[SD108]" not in r.err, r.err
    assert 'ConfigMap "="' in r.err


@pytest.mark.parametrize(("key", "words"), [
    ("!!merge x", "the key 'x' tagged `!!merge` (line 6): kubectl reads the key 'x', kustomize merges its value"),
    ('! "<<"', "the key `<<` tagged `!` and quoted (line 6): kubectl merges its value, kustomize drops the key"),
])
def test_a_key_kubectl_and_kustomize_merge_apart_is_refused(key: str, words: str) -> None:
    text = _workspace(opt_in=key, value="{" + OPT_IN + ': "true"}')
    r = run(["render", "-"], text)
    assert r.code == 1 and r.out == "", r.err
    assert "cannot be read as a Kubernetes object" in r.err and words in r.err and "[SD009]" in r.err


IDENTITY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


@pytest.mark.parametrize("name, namespace, said", [
    ("a", "1000", "metadata.namespace has invalid value 1000 (unquoted, YAML reads it as a number)"),
    ("a", "1e3", "metadata.namespace has invalid value 1e3 (unquoted, YAML reads it as a number)"),
    ("a", "true", "metadata.namespace has invalid value true (unquoted, YAML reads it as a boolean)"),
    ("0x1F", "ns", "metadata.name has invalid value 0x1F (unquoted, YAML reads it as a number)"),
    ("2024-01-01", "ns", "metadata.name 2024-01-01 is unquoted: kubectl reads the text, kustomize and kpt a "
                         "timestamp they write back in another form; write it in quotes"),
], ids=["int", "exponent", "bool", "hex name", "date name"])
def test_a_name_or_namespace_that_is_no_string_is_refused(name: str, namespace: str, said: str) -> None:
    """kubectl refuses a name or namespace that is no string (and the function derived a ConfigMap with no
    namespace for `namespace: 1000`); a date kustomize and kpt rewrite as a timestamp is read apart."""
    for argv in (["render", "-"], []):
        text = IDENTITY.format(name=name, namespace=namespace)
        if not argv:  # KRM mode: the same object as an item
            text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + text.replace("\n", "\n  ")
        r = run(argv, text)
        assert r.code == 1 and said in r.err and "[SD003]" in r.err, r.err


@pytest.mark.parametrize("namespace", ['"1000"', "~", ""])
def test_a_quoted_or_null_namespace_is_read(namespace: str) -> None:
    r = run(["render", "-"], IDENTITY.format(name="a", namespace=namespace))
    assert r.code == 0, r.err


def test_a_namespace_that_is_no_string_is_refused_through_a_merge_key() -> None:
    r = run(["render", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  <<: {name: a, namespace: 1000}\n")
    assert r.code == 1 and "metadata.namespace has invalid value 1000" in r.err, r.err
