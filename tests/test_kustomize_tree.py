"""Kustomize trees (issue 37, asks 1 and 2), without a kustomize: the roots of a tree, the kustomization render
builds a root through, and a piped build's findings at the repository file and line its origin annotations
name (the base's field, an overlay patch's line, a generator's entry). The builds themselves run with the
real kustomize in tests/e2e/test_e2e_kustomize_tree.py."""
from __future__ import annotations

from pathlib import Path

import yaml

from krm_fn.domain import kustomize_tree as kt
from krm_fn.model.origins import bare
from krm_fn.text.formats import ORIGIN_BASE_HINT
from runner import run

BASE_WS = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: other
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: llama
  annotations:
    kaito.sh/enable-speculative-decoding: "false"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: llama-3.1-8b-instruct
"""

PATCH = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: llama
  annotations:
    kaito.sh/enable-speculative-decoding: "True"
"""

# What `kustomize build overlays/prod` writes with `buildMetadata: [originAnnotations]` (a name prefix, a
# namespace, and the patch's value).
BUILT = """\
apiVersion: kaito.sh/v1beta1
inference:
  preset:
    name: llama-3.1-8b-instruct
kind: Workspace
metadata:
  annotations:
    config.kubernetes.io/origin: |
      path: ../../base/ws.yaml
    kaito.sh/enable-speculative-decoding: "{value}"
  name: prod-llama
  namespace: prod
resource:
  instanceType: Standard_NC24ads_A100_v4
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_roots_are_the_kustomizations_no_other_includes() -> None:
    tree = {k.folder: k for k in (
        kt.parse("base", "resources: [ws.yaml]\n"),
        kt.parse("components/x", "kind: Component\n"),
        kt.parse("overlays/a", "namespace: a\nresources: [../../base]\ncomponents: [../../components/x]\n"
                 "patches:\n- path: p.yaml\n- patch: |-\n    inline\npatchesStrategicMerge: [q.yaml]\n"),
        kt.parse("overlays/b", "bases: [../../base, github.com/org/repo//dir?ref=v1]\n"),
        kt.parse("lonely", "kind: Component\n"))}
    assert kt.roots(tree) == ["overlays/a", "overlays/b"]
    assert kt.reach(tree, "overlays/a") == ["overlays/a", "base", "components/x"]
    assert tree["overlays/a"].patches == ("overlays/a/p.yaml", "overlays/a/q.yaml")
    assert tree["overlays/a"].namespace == "a" and tree["overlays/b"].includes == ("base",)


def test_the_wrapper_turns_origins_on_and_keeps_what_kustomize_reads_only_at_the_top() -> None:
    text = kt.wrapper("../../repo/overlays/a", "buildMetadata: [managedByLabel]\nsortOptions: {order: fifo}\n")
    assert yaml.safe_load(text) == {"resources": ["../../repo/overlays/a"],
                                    "buildMetadata": ["managedByLabel", "originAnnotations"],
                                    "sortOptions": {"order": "fifo"}}
    assert not kt.has_origins("buildMetadata: [managedByLabel]\n")
    assert kt.has_origins("buildMetadata: [originAnnotations]\n")


def test_a_piped_build_is_placed_at_the_overlay_patch_that_set_the_field(tmp_path) -> None:
    repo = _tree(tmp_path, {"base/ws.yaml": BASE_WS, "base/kustomization.yaml": "resources: [ws.yaml]\n",
                            "overlays/prod/kustomization.yaml": "namespace: prod\nnamePrefix: prod-\n"
                            "resources: [../../base]\npatches:\n- path: enable.yaml\n",
                            "overlays/prod/enable.yaml": PATCH})
    base = str(repo / "overlays" / "prod")
    code, _, err = run(["render", "--origin-base", base, "-"], BUILT.format(value="True"))
    assert code == 1
    assert err.splitlines()[0].startswith(f"{repo}/overlays/prod/enable.yaml:6: [error] "
                                          "kaito.sh/v1beta1/Workspace/prod/prod-llama "), err
    # Without the overlay's folder the patch is unknown: the base's object line (its value is another).
    code, _, err = run(["render", "--origin-base", str(repo / "base" / "x"), "-"],
                       BUILT.format(value="True").replace("../../base/ws.yaml", "../ws.yaml"))
    assert err.splitlines()[0].startswith(f"{repo}/base/ws.yaml:6: [error] "), err


def test_a_field_the_base_sets_is_at_its_line_in_every_format(tmp_path) -> None:
    repo = _tree(tmp_path, {"base/ws.yaml": BASE_WS.replace('"false"', '"yes"')})
    stream = BUILT.format(value="yes")
    base = str(repo / "overlays" / "prod")
    _, _, err = run(["render", "--origin-base", base, "-"], stream)
    assert err.splitlines()[0].startswith(f"{repo}/base/ws.yaml:11: [error] "), err
    _, _, err = run(["render", "--format", "github", "--origin-base", base, "-"], stream)
    assert err.startswith(f"::error file={repo}/base/ws.yaml,line=11,"), err
    _, _, err = run(["render", "--format", "json", "--origin-base", base, "-"], stream)
    assert '"line": 11' in err and f'{repo}/base/ws.yaml' in err, err


def test_a_generated_configmap_is_at_its_generator_entry(tmp_path) -> None:
    repo = _tree(tmp_path, {"kustomization.yaml": "configMapGenerator:\n- name: one\n  literals: [a=b]\n"
                                                  "- name: cfg\n  files: [inference_config.yaml]\n"})
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-5fk4m7d9bc\n  annotations:\n"
              "    config.kubernetes.io/origin: |\n      configuredIn: kustomization.yaml\n      configuredBy:\n"
              "        apiVersion: builtin\n        kind: ConfigMapGenerator\ndata:\n  x: '1'\n"
              "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-5fk4m7d9bc\n  annotations:\n"
              "    config.kubernetes.io/origin: |\n      configuredIn: kustomization.yaml\ndata:\n  x: '1'\n")
    _, _, err = run(["render", "--origin-base", str(repo), "-"], stream)
    assert any(ln.startswith(f"{repo}/kustomization.yaml:4: [warning] ") and "[SD008]" in ln
               for ln in err.splitlines()), err


def test_no_kustomize_on_path_says_so_once_then_reads_the_files(tmp_path) -> None:
    _tree(tmp_path, {"kustomization.yaml": "resources: [ws.yaml]\n", "ws.yaml": BASE_WS})
    code, out, err = run(["render", "--mode", "validate", str(tmp_path)], env={"PATH": str(tmp_path / "none")})
    lines = err.splitlines()
    assert lines[0].startswith(f"[warning] render: no kustomize found (standalone `kustomize`, or `kubectl "
                               f"kustomize`) to build {tmp_path}: their files are read unbuilt; install ")
    assert lines[0].endswith("[SD506]") and sum("[SD506]" in ln for ln in lines) == 1
    assert "[SD501]" in err and code == 0 and "name: llama" in out
    # A kustomize named on purpose was required: not there is an error and exit 2 (could not judge), not SD506.
    code, _, err = run(["render", "--kustomize", "no-such-kustomize", str(tmp_path)], env={"PATH": ""})
    assert '"no-such-kustomize" (--kustomize or KAITO_SPECDEC_KUSTOMIZE) is no program that can be run' in err
    assert "[SD509]" in err and "[SD506]" not in err and code == 2


def test_an_origin_path_not_found_from_here_gets_a_hint_naming_origin_base(tmp_path) -> None:
    _, _, err = run(["render", "-"], BUILT.format(value="True").replace("../../base/ws.yaml", "no/such/ws.yaml"))
    lines = err.splitlines()
    assert lines[0].startswith("no/such/ws.yaml: [error] ") and lines[1] == ORIGIN_BASE_HINT, err
    assert "--origin-base DIR" in ORIGIN_BASE_HINT
    repo = _tree(tmp_path, {"base/ws.yaml": BASE_WS})
    _, _, err = run(["render", "--origin-base", str(repo / "overlays" / "prod"), "-"], BUILT.format(value="True"))
    assert ORIGIN_BASE_HINT not in err


def test_renamed_above_is_a_namespace_set_over_a_kustomization_on_the_way_from_the_root():
    tree = {"top": kt.parse("top", "namespace: top\nresources: [../mid, ../side]\n"),
            "mid": kt.parse("mid", "namespace: mid\nresources: [../base]\n"),
            "side": kt.parse("side", "resources: [../base]\n"),
            "base": kt.parse("base", "resources: [ws.yaml]\n")}
    assert kt.renamed_above(tree, "top") == {"top": False, "mid": True, "side": True, "base": True}
    assert kt.renamed_above(tree, "side") == {"side": False, "base": False}
    assert kt.renamed_above(tree, "mid") == {"mid": False, "base": True}


def test_a_built_name_is_its_source_s_between_the_prefixes_and_suffixes_of_the_way_never_a_substring():
    tree = {"ov": kt.parse("ov", "namePrefix: prod-\nnameSuffix: -v1\nresources: [../mid]\n"),
            "mid": kt.parse("mid", "namePrefix: team-\nresources: [../base]\n"),
            "base": kt.parse("base", "resources: [ws.yaml]\n")}
    affixes = kt.affixes(tree, "ov")
    assert affixes == (("prod-", "team-"), ("-v1",))
    assert "llama" in bare("prod-team-llama-v1", affixes) and "team-llama" in bare("prod-team-llama-v1", affixes)
    assert "llama" not in bare("prod-codellama-v1", affixes) and "codellama" in bare("prod-codellama-v1", affixes)


KUBECTL_BLOCK = """\
E1207 19:58:24.407296   20779 run.go:72] "command failed" err=<
\ttrouble configuring builtin HelmChartInflationGenerator with config: `
\tname: x
\tversion: 1.0.0
\t`: must specify --enable-helm
 >
"""
KUBECTL_QUOTED = ('E1207 20:12:48.398858     698 run.go:72] "command failed" err="accumulating resources: '
                  "accumulation err='accumulating resources from 'missing.yaml': lstat /r/missing.yaml: no such "
                  "file or directory'\\\": must build at directory\"\n")
KUSTOMIZE_HELM = """\
Error: trouble configuring builtin HelmChartInflationGenerator with config: `
name: x
version: 1.0.0
`: must specify --enable-helm
"""


def test_kustomize_s_error_is_its_whole_message_without_klog_s_prefix() -> None:
    helm = "trouble configuring builtin HelmChartInflationGenerator with config: ` name: x version: 1.0.0 `: " \
           "must specify --enable-helm"
    assert kt.build_error(KUBECTL_BLOCK) == helm
    assert kt.build_error(KUSTOMIZE_HELM) == helm
    assert kt.build_error(KUBECTL_QUOTED) == ("accumulating resources: accumulation err='accumulating resources "
                                              "from 'missing.yaml': lstat /r/missing.yaml: no such file or "
                                              "directory'\": must build at directory")
    assert kt.build_error("Error: one\n\nUsage:\n  kustomize build DIR [flags]\n") == "one"
    assert kt.build_error("panic: something\n") == "panic: something"
    assert kt.build_error("") == ""
