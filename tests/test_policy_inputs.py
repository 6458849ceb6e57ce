"""Issue 37, item 8: a SpeculativeDecodingPolicy among the inputs is applied by a documented rule or refused
naming --config, never silently dropped (docs/settings.md, "A policy among the inputs"; model/policies.py)."""
from __future__ import annotations

import json
from pathlib import Path

from runner import run

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# SD412 on it is a warning: it fails the run only with failOn: warning.
QUICKSTART = (FIXTURES / "quickstart-workspace" / "items.yaml").read_text(encoding="utf-8")
POLICY = ("apiVersion: fn.kaito-specdec.dev/v1alpha1\nkind: SpeculativeDecodingPolicy\nmetadata:\n  name: {name}\n"
          "  annotations:\n    config.kubernetes.io/local-config: \"true\"\nspec:\n  failOn: {fail_on}\n")
RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"


def _tree(tmp_path: Path, *policies: tuple[str, str]) -> Path:
    (tmp_path / "ws.yaml").write_text(QUICKSTART, encoding="utf-8")
    for name, fail_on in policies:
        (tmp_path / f"{name}.yaml").write_text(POLICY.format(name=name, fail_on=fail_on), encoding="utf-8")
    return tmp_path


def test_the_one_policy_among_the_inputs_is_the_configuration(tmp_path: Path) -> None:
    tree = _tree(tmp_path, ("policy", "warning"))
    code, out, err = run(["render", "-v", str(tree)])
    assert (code, out) == (1, ""), err  # failOn: warning, and SD412 is a warning
    assert f"{tree / 'policy.yaml'}:1: [info] fn.kaito-specdec.dev/v1alpha1/SpeculativeDecodingPolicy/policy: the " \
           "configuration of this run (no --config given): its spec holds the settings; it is not written out " \
           "[SD526]" in err.splitlines()
    (tree / "policy.yaml").write_text(POLICY.format(name="policy", fail_on="error"), encoding="utf-8")
    r = run(["render", str(tree)])
    assert r.code == 0 and [d["kind"] for d in r.docs] == ["ConfigMap", "Workspace"]  # never written out


def test_two_policies_are_refused_naming_both_and_config(tmp_path: Path) -> None:
    tree = _tree(tmp_path, ("a", "warning"), ("b", "error"))
    code, out, err = run(["render", "--format", "json", str(tree)])
    assert (code, out) == (2, "")
    doc = json.loads(err)
    refused = [r for r in doc["results"] if r["tags"]["id"] == "SD525"]
    assert doc["exitCode"] == 2 and len(refused) == 1
    assert refused[0]["file"] == {"path": str(tree / "b.yaml"), "index": 0, "line": 1}
    assert f"(the first: {tree / 'a.yaml'}:1)" in refused[0]["message"] and "--config" in refused[0]["message"]
    # --config names the configuration: the policy among the inputs that says the same is that configuration.
    code, _, err = run(["render", "--config", str(tree / "a.yaml"), str(tree)])
    assert code == 2 and err.count("[SD525]") == 1 and f"{tree / 'b.yaml'}:1: [error]" in err and "--config" in err


def test_config_given_and_the_same_policy_among_the_inputs(tmp_path: Path) -> None:
    tree = _tree(tmp_path, ("policy", "warning"))
    code, out, err = run(["render", "-v", "--config", str(tree / "policy.yaml"), str(tree)])
    assert (code, out) == (1, "") and "SD525" not in err and "SD526" not in err


def test_a_piped_function_config_and_another_policy_among_the_items() -> None:
    items = "items:\n- " + POLICY.format(name="p", fail_on="warning").replace("\n", "\n  ").rstrip() + "\n"
    fc = "functionConfig:\n  " + POLICY.format(name="fc", fail_on="error").replace("\n", "\n  ").rstrip() + "\n"
    code, out, err = run(["render", "-"], RL + items + fc)
    assert (code, out) == (2, "") and "differs from the piped ResourceList's functionConfig" in err and "[SD525]" in err


def test_krm_mode_warns_of_a_policy_that_is_not_the_function_config() -> None:
    policy = POLICY.format(name="p", fail_on="warning")
    items = "items:\n- " + policy.replace("\n", "\n  ").rstrip() + "\n"
    code, out, err = run([], RL + items)
    assert code == 0 and "severity: warning" in out and "[SD049]" in out
    assert "not applied: KRM mode reads its settings from the functionConfig only" in err
    # kpt's configPath: the file is the functionConfig and an item too: nothing to say.
    fc = "functionConfig:\n  " + policy.replace("\n", "\n  ").rstrip() + "\n"
    code, out, err = run([], RL + items + fc)
    assert code == 0 and "SD049" not in out + err
