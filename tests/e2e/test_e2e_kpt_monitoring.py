"""kpt end to end with `prometheusRules` on (issue 11): `kpt fn eval --exec` and `kpt fn render --allow-exec`
write the PrometheusRule into its own file next to the workloads, a second run changes nothing, and
turning the setting (or every workload) off deletes the file again."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from e2e_support import (DISABLED, ENABLED, EXAMPLES, assert_render_is_a_fixpoint, clean_env, copy_tree, describe,
                         git_changed, git_commit, git_diff, git_init, kpt_render, run, specdec_executable,
                         turn_off)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import promtool  # noqa: E402  (tests/promtool.py)

PACKAGE = EXAMPLES / "kpt" / "package"
# The package's enabled top-level workloads (examples/kpt/package): each gets its seven records.
WATCHED = {("Workspace", "workspace-phi-4"), ("Workspace", "workspace-deepseek-r1"),
           ("Workspace", "workspace-phi-4-mini-override"), ("InferenceSet", "phi-4-mini"),
           ("MultiRoleInference", "qwen35-4b")}


@pytest.fixture
def env():
    return clean_env([specdec_executable().parent])


def package_copy(tmp_path: Path) -> Path:
    pkg = copy_tree(PACKAGE, tmp_path / "package")
    git_init(pkg)
    return pkg


def rule_files(pkg: Path) -> list[Path]:
    return sorted(pkg.glob("specdec-prometheusrule-*.yaml"))


def check_rule_file(path: Path) -> None:
    (rule,) = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    assert rule["kind"] == "PrometheusRule" and rule["apiVersion"] == "monitoring.coreos.com/v1"
    assert rule["metadata"]["name"] == path.stem
    assert rule["metadata"]["annotations"] == {"kaito-specdec.dev/derived": "true"}   # kpt's own are stripped
    rules = rule["spec"]["groups"][0]["rules"]
    promtool.check_rules([rule["spec"]["groups"]])
    watched = {(r["labels"]["kaito_workload_kind"], r["labels"]["kaito_workload"]) for r in rules if "record" in r}
    assert watched == WATCHED
    assert [r["alert"] for r in rules if "alert" in r] == [
        "KaitoSpeculativeDecodingDrafterDead", "KaitoSpeculativeDecodingPrefixCacheInert",
        "KaitoSpeculativeDecodingAcceptanceDropped", "KaitoSpeculativeDecodingNotDrafting",
        "KaitoSpeculativeDecodingLowAcceptance"]
    assert rules[-1]["alert"] == "KaitoSpeculativeDecodingLowAcceptance"


def test_eval_exec_adds_the_rule_file_and_the_setting_off_removes_it(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    first = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "prometheusRules=true"], pkg, env)
    assert first.returncode == 0, describe(first)
    (path,) = rule_files(pkg)
    check_rule_file(path)
    assert path.name in git_changed(pkg)
    git_commit(pkg, "with the rule")

    again = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "prometheusRules=true"], pkg, env)
    assert again.returncode == 0, describe(again)
    assert git_changed(pkg) == [], "a second eval changed the package:\n" + git_diff(pkg)

    threshold = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "prometheusRules=true",
                     "minAcceptanceRate=0.5"], pkg, env)
    assert threshold.returncode == 0, describe(threshold)
    (new,) = rule_files(pkg)
    assert new != path and "< 0.5" in new.read_text(encoding="utf-8")
    git_commit(pkg, "threshold")

    off = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "prometheusRules=false"], pkg, env)
    assert off.returncode == 0, describe(off)
    assert rule_files(pkg) == []
    assert git_changed(pkg) == [new.name], git_diff(pkg)   # only the rule's file: the derived ConfigMaps stay


def test_render_is_a_fixpoint_and_disabling_everything_deletes_the_rule(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    original = {p.name: p.read_bytes() for p in pkg.glob("*.yaml")}
    kptfile = pkg / "Kptfile"
    text = kptfile.read_text(encoding="utf-8")
    kptfile.write_text(text.replace("        mode: materialize\n",
                                    "        mode: materialize\n        prometheusRules: \"true\"\n"), encoding="utf-8")
    assert "prometheusRules" in kptfile.read_text(encoding="utf-8")
    git_commit(pkg, "rules on")

    kpt_render(kpt, pkg, env)
    (path,) = rule_files(pkg)
    check_rule_file(path)
    assert_render_is_a_fixpoint(kpt, pkg, env)

    turn_off(pkg)
    kpt_render(kpt, pkg, env)
    assert rule_files(pkg) == []
    # kaitoVersion not set: the Workspaces without a config of their own point at specdec-off-<hash>.
    after = {p.name: re.sub(rb"(?m)^ *config: specdec-off-[0-9a-f]{10}\n", b"", p.read_bytes())
             for p in pkg.glob("*.yaml") if not p.name.startswith("specdec-off-")}
    # Derived ConfigMaps an InferenceSet's or MultiRoleInference's existing Workspaces still mount are kept,
    # marked for it (SD422); everything else is as it was.
    kept = sorted(set(after) - set(original))
    assert set(original) <= set(after) and all(b"kaito-specdec.dev/kept-for: " in after[k] for k in kept)
    for name, content in original.items():
        assert after[name] == content.replace(ENABLED.encode(), DISABLED.encode()), name
