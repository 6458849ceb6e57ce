"""kubectl as the go-yaml v2 / sigs.k8s.io/yaml oracle (issue 19, class 1): `kubectl label --local -f FILE
-o json` reads a file as kubectl applies it (sigs.k8s.io/yaml, go-yaml v2 underneath) and needs no cluster.

Two things are checked against it, over generated look-alike strings (tests/goyaml.py):
- tests/goyaml.py's go-yaml v2 rules, which the quick tests (tests/test_go_yaml_strings.py) use in its
  place: every look-alike written plain must come back from kubectl as those rules say;
- the function's own output: the strings it copies (a derived ConfigMap's data, labels and annotations;
  every item of a JSON ResourceList, written out again) must come back from kubectl as those strings.
Each test runs kubectl once, on one file holding every string.
"""
from __future__ import annotations

import json
import math

import pytest
import yaml

import goyaml
from e2e_support import clean_env, describe, kubectl_reads, require_tool, run, specdec_executable

STRINGS = goyaml.lookalikes(1919, 2500)


@pytest.fixture(scope="module")
def kubectl() -> str:
    return require_tool("kubectl", "kubectl reads YAML the way `kubectl apply` and Argo CD do (sigs.k8s.io/yaml)")


def _plain(s: str) -> bool:
    """`k: s` holds s as one untagged plain scalar (what a reader resolves)."""
    try:
        events = [e for e in yaml.parse(f"k: {s}\n", Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                  if isinstance(e, yaml.ScalarEvent)]
    except yaml.YAMLError:
        return False
    return len(events) == 2 and events[1].value == s and events[1].style in (None, "") and events[1].tag is None


def _same(oracle, got) -> bool:
    if type(oracle) is str or oracle is None or type(oracle) is bool:
        return type(got) is type(oracle) and got == oracle
    # Numbers: kubectl's JSON writes every number as a float64 would (18446744073709551615 as ...552000).
    return type(got) in (int, float) and float(got) == float(oracle)


def test_the_go_yaml_v2_rules_are_kubectls(kubectl, tmp_path):
    plain = [s for s in STRINGS if s and _plain(s)]
    # NaN and infinities are no JSON: kubectl refuses the whole file (their rule is the lookup table's).
    values = {f"k{i}": s for i, s in enumerate(plain)
              if not (isinstance(v := goyaml.resolve_plain(s), float) and (math.isnan(v) or math.isinf(v)))}
    tagged = {"t1": "! true", "t2": "! 12", "t3": '! "0x1F"', "t4": "!  y", "t5": "!!str 1"}
    path = tmp_path / "plain.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n"
                    + "".join(f"  {k}: {s}\n" for k, s in {**values, **tagged}.items()))
    (got,) = kubectl_reads(kubectl, path)
    mine = goyaml.read_all(path.read_text())[0]["data"]  # the rules, over the same text
    wrong = [f"{s!r}: rules say {mine[k]!r}, kubectl {got['data'].get(k, 'nothing')!r}"
             for k, s in {**values, **tagged}.items() if not _same(mine[k], got["data"].get(k, KeyError))]
    assert wrong == [], f"{len(wrong)} of {len(values)}: " + "; ".join(wrong[:20])
    assert {k: got["data"][k] for k in tagged} == {"t1": "true", "t2": "12", "t3": "0x1F", "t4": "y", "t5": "1"}
    # Every kind of misreading was there to be checked.
    assert {type(mine[k]).__name__ for k in values} >= {"bool", "int", "float", "str", "NoneType"}


def _source(strings: list[str]) -> tuple[dict, dict]:
    # (Not the key `<<`: kubectl reads a key named <<, kustomize and kpt drop it, and the function refuses it.)
    data = {f"v{i}": s for i, s in enumerate(strings)} | {s: "key" for s in strings if s and s != "<<"} \
        | {"inference_config.yaml": "vllm: {}\n"}
    meta = {"name": "cm", "labels": {f"l{i}": s for i, s in enumerate(strings[:300])},
            "annotations": {f"a{i}": s for i, s in enumerate(strings[:300])}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
    ws = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
          "metadata": {"name": "w", "annotations": {"kaito.sh/enable-speculative-decoding": "true"}},
          "resource": {"instanceType": "Standard_NC24ads_A100_v4", "labelSelector": {"matchLabels": {"a": "b"}}},
          "inference": {"preset": {"name": "phi-4"}, "config": "cm"}}
    return cm, ws


def _copied(source: dict, derived: dict) -> list[str]:
    """What of the source's strings the derived ConfigMap (as kubectl read it) does not hold as they are."""
    bad = [f"data[{k!r}]: {v!r} came back as {derived['data'].get(k, 'nothing')!r}"
           for k, v in source["data"].items() if k != "inference_config.yaml" and derived["data"].get(k) != v]
    for field in ("labels", "annotations"):
        bad += [f"{field}[{k!r}]: {v!r} came back as {derived['metadata'][field].get(k, 'nothing')!r}"
                for k, v in source["metadata"][field].items() if derived["metadata"][field].get(k) != v]
    return bad


def test_render_output_reads_back_in_kubectl(kubectl, tmp_path):
    """The issue's case: `render` of a source ConfigMap full of look-alikes; the derived copy as kubectl
    applies it."""
    cm, ws = _source(STRINGS)
    (tmp_path / "in.yaml").write_text(json.dumps(cm) + "\n---\n" + json.dumps(ws) + "\n")
    proc = run([str(specdec_executable()), "render", "in.yaml"], tmp_path, clean_env())
    assert proc.returncode == 0, describe(proc)
    (tmp_path / "out.yaml").write_text(proc.stdout)
    objs = kubectl_reads(kubectl, tmp_path / "out.yaml")
    (derived,) = [o for o in objs if o["kind"] == "ConfigMap" and o["metadata"]["name"] != "cm"]
    bad = _copied(cm, derived)
    assert bad == [], f"{len(bad)} strings changed: " + "; ".join(bad[:20])


def test_a_json_resource_list_written_out_reads_back_in_kubectl(kubectl, tmp_path):
    """A JSON ResourceList comes out as block YAML, every item through the emitter: the derived
    ConfigMap and an untouched ConfigMap holding the same strings."""
    cm, ws = _source(STRINGS)
    other = json.loads(json.dumps(cm).replace('"name": "cm"', '"name": "other"', 1))
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [cm, ws, other]}
    proc = run([str(specdec_executable())], tmp_path, clean_env(), stdin=json.dumps(rl))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ")
    (tmp_path / "out.yaml").write_text(proc.stdout)  # kubectl reads a ResourceList's items as a List's
    by_name = {o["metadata"]["name"]: o for o in kubectl_reads(kubectl, tmp_path / "out.yaml")}
    (derived,) = [o for n, o in by_name.items() if n.startswith("cm-specdec-")]
    bad = _copied(cm, derived) + _copied(other, by_name["other"])
    assert bad == [], f"{len(bad)} strings changed: " + "; ".join(bad[:20])
