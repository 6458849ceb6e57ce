"""Issue #29: every finding of every object and file in one run, each said briefly.

The tree of the issue: KAITO's `examples/inference` (tests/corpus/kaito-examples), every workload opted in
where KAITO reads the annotation, with a careless Workspace (an unknown preset) and two files that are not
YAML beside them. Run as one tree it must report every error and warning its files report one by one.
"""
from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest
import yaml

from golden import wrap
from krm_fn import __version__
from runner import run, run_whole
from test_corpus import CORPUS, _enable

CARELESS = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: careless
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
resource:
  instanceType: Standard_NC12s_v3
  labelSelector:
    matchLabels:
      apps: careless
inference:
  preset:
    name: falcon-7b
"""


@pytest.fixture(scope="module")
def opted_in_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("tree")
    source = CORPUS / "inference"
    for path in sorted(source.rglob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
        for doc in docs:
            _enable(doc)
        out = top / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    (top / "careless.yaml").write_text(CARELESS, encoding="utf-8")
    (top / "broken-one.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n", encoding="utf-8")
    (top / "broken-two.yaml").write_text("kind: ConfigMap\n\ta: [\n", encoding="utf-8")
    return top


def _said(*argv: str) -> tuple[int, list[dict]]:
    code, out, err = run(["render", "--format", "json", *argv])
    return code, json.loads(err.strip().splitlines()[-1])["results"]


def _key(r: dict) -> tuple:
    return ((r.get("file") or {}).get("path"), (r.get("file") or {}).get("line"), r["severity"],
            (r.get("tags") or {}).get("id"), json.dumps(r.get("resourceRef"), sort_keys=True), r["message"])


def test_the_tree_reports_what_its_files_report_one_by_one(opted_in_tree: Path) -> None:
    one_by_one: set[tuple] = set()
    files = sorted(opted_in_tree.rglob("*.yaml"))
    assert len(files) == 48 + 3
    for path in files:
        _, results = _said(str(path))
        one_by_one |= {_key(r) for r in results if r["severity"] != "info"}
    code, results = _said(str(opted_in_tree))
    together = {_key(r) for r in results if r["severity"] != "info"}
    # Only the tree can hold the same object twice (the arc-examples copy the top-level examples): SD008.
    assert {k[3] for k in together - one_by_one} <= {"SD008"}
    assert one_by_one <= together
    assert code == 1
    ids = [k[3] for k in one_by_one]
    # The unknown preset, both broken files, and the warnings of the others (SD412 on ngram configs).
    assert ids.count("SD112") == 1 and ids.count("SD001") == 2 and ids.count("SD412") >= 5, sorted(ids)


def test_each_broken_file_gets_its_own_error_at_its_own_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\nmetadata: {name: x\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text("x: [\n", encoding="utf-8")
    code, out, err = run(["render", str(tmp_path)])
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert [ln.split(":")[0] for ln in lines if "[SD001]" in ln] == [str(tmp_path / "a.yaml"), str(tmp_path / "c.yaml")]


def test_an_admission_error_hides_no_other_workloads_warning(tmp_path: Path) -> None:
    good = (CORPUS / "inference" / "kaito_workspace_llama-3.3_70b_instruct.yaml").read_text(encoding="utf-8")
    docs = [d for d in yaml.safe_load_all(good) if d]
    for doc in docs:
        _enable(doc)
    (tmp_path / "good.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    alone = run(["render", str(tmp_path / "good.yaml")])
    assert "[SD412]" in alone.err
    (tmp_path / "careless.yaml").write_text(CARELESS, encoding="utf-8")
    code, out, err = run(["render", str(tmp_path)])
    assert code == 1 and out == ""  # the error still stops the writing
    assert "[SD112]" in err and "[SD412]" in err


# --- item 2: one short line per finding -------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# A name is the user's: a quoted value longer than a DNS label (63) counts as 63 characters.
_LONG_NAME = re.compile(r'"[^"]{64,}"')


def _length(message: str) -> int:
    return len(_LONG_NAME.sub('"' + "x" * 63 + '"', message))


def _fixture_messages() -> list[tuple[str, str, str]]:
    out = []
    for path in sorted(FIXTURES.glob("*/results.yaml")):
        for r in yaml.safe_load(path.read_text(encoding="utf-8")).get("results") or []:
            id = (r.get("tags") or {}).get("id", "")
            # the words, without the id that ends a KRM result's message (` [SD412]`)
            out.append((path.parent.name, id, r["message"].removesuffix(f" [{id}]") if id else r["message"]))
    return out


def test_every_message_over_the_fixtures_is_one_short_line() -> None:
    messages = _fixture_messages()
    assert len(messages) > 800
    too_long = [(case, id, _length(m)) for case, id, m in messages if _length(m) > 320]
    assert not too_long, too_long
    assert statistics.median(_length(m) for _, _, m in messages) <= 165
    assert not [m for _, _, m in messages if "\n" in m]


def test_the_tree_of_the_issue_holds_the_lengths(opted_in_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(opted_in_tree.parent)  # as CI runs it: the paths in the messages relative
    opted_in_tree = Path(opted_in_tree.name)
    _, results = _said(str(opted_in_tree))
    lengths = [_length(r["message"]) for r in results]
    assert max(lengths) <= 320 and statistics.median(lengths) <= 165, (max(lengths), statistics.median(lengths))
    code, out, err = run(["render", str(opted_in_tree)])
    assert max(len(line) for line in err.splitlines()) <= 480


# --- issue 37, item 10: KAITO's 48 examples opted in, messages a median of at most 160 characters, the opt-in
# key never twice on one line -------------------------------------------------------------------------------

OPT_IN = "kaito.sh/enable-speculative-decoding"
# KAITO's own webhook words (SPEC.md section 3; checks/annotation_value.py, preset_required.py, vllm_runtime.py)
# name the key, and kpt's field names it too: they are KAITO's to word, not ours.
KAITOS_WORDS = {"SD101", "SD102", "SD103", "SD104", "SD105", "SD106"}


def _examples_opted_in(top: Path, naive: bool) -> Path:
    """KAITO's 48 inference examples, each KAITO workload opted in where KAITO reads the annotation, or (`naive`)
    on every kind's own metadata.annotations, as a newcomer writes it (SD408 on the InferenceSets)."""
    source = CORPUS / "inference"
    for path in sorted(source.rglob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
        for doc in docs:
            if naive and doc.get("kind") in ("Workspace", "InferenceSet", "MultiRoleInference"):
                doc.setdefault("metadata", {}).setdefault("annotations", {})[OPT_IN] = "true"
            else:
                _enable(doc)
        out = top / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return top


@pytest.mark.parametrize("naive", [False, True], ids=["where-kaito-reads", "on-own-metadata"])
def test_kaitos_examples_opted_in_are_told_briefly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   naive: bool) -> None:
    _examples_opted_in(tmp_path / "tree", naive)
    monkeypatch.chdir(tmp_path)
    assert len(list(Path("tree").rglob("*.yaml"))) == 48
    _, results = _said("tree")
    messages = [r["message"] for r in results]
    assert statistics.median(map(_length, messages)) <= 160, sorted(map(_length, messages))
    assert not [m for m in messages if m.count(OPT_IN) > 1]
    twice = [r for r in results if (r.get("tags") or {}).get("id") not in KAITOS_WORDS
             and ((r.get("field") or {}).get("path", "") + r["message"]).count(OPT_IN) > 1]
    assert not twice, twice
    _, _, err = run(["render", "-v", "tree"])
    assert not [line for line in err.splitlines() if line.count(OPT_IN) > 1]
    if naive:
        assert sum("[SD408]" in line for line in err.splitlines()) == 5


def test_the_opt_in_key_is_never_said_twice_on_a_line_of_the_fixtures() -> None:
    """Where the field names the key (`metadata.annotations[kaito.sh/enable-speculative-decoding]`), the
    message says "the opt-in", or nothing of it: one read, one key."""
    twice = []
    for path in sorted(FIXTURES.glob("*/results.yaml")):
        for r in yaml.safe_load(path.read_text(encoding="utf-8")).get("results") or []:
            id = (r.get("tags") or {}).get("id", "")
            if id not in KAITOS_WORDS and ((r.get("field") or {}).get("path", "") + r["message"]).count(OPT_IN) > 1:
                twice.append((path.parent.name, id, r["message"]))
    assert not twice, twice


def test_sd412_on_ngram_names_no_draft_model(opted_in_tree: Path) -> None:
    _, results = _said(str(opted_in_tree))
    sd412 = [r["message"] for r in results if (r.get("tags") or {}).get("id") == "SD412"]
    ngram = [m for m in sd412 if "ngram" in m]
    assert ngram and sd412
    assert not [m for m in ngram if "draft model" in m or "whole draft" in m or "draft on" in m], ngram
    mtp = [m for m in sd412 if "mtp" in m]
    assert mtp and all("whole mtp draft" in m for m in mtp)


def test_the_why_of_a_finding_is_under_its_id_in_the_docs() -> None:
    from krm_fn.findings import CATALOGUE
    doc = (Path(__file__).resolve().parent.parent / "docs" / "findings.md").read_text(encoding="utf-8")
    why = doc.split("## Why, per finding", 1)[1]
    headed = re.findall(r"^### (SD[0-9]{3})$", why, re.M)
    assert {"SD412", "SD420", "SD424", "SD301"} <= set(headed)
    assert set(headed) <= set(CATALOGUE)


# --- item 4: the summary line, infos with -v only ---------------------------------------------------------

def test_render_ends_with_a_line_that_sums_up(opted_in_tree: Path) -> None:
    code, out, err = run_whole(["render", str(opted_in_tree)])
    last = err.splitlines()[-1]
    assert re.fullmatch(r"kaito-specdec: 3 errors, [0-9]+ warnings, [0-9]+ infos \(-v shows them\); 51 files, "
                        r"[0-9]+ objects; speculative decoding for 48 workloads: 2 mtp, 46 ngram", last), last
    assert "[info]" not in err


def test_infos_only_with_verbose() -> None:
    quickstart = str(FIXTURES / "quickstart-workspace" / "items.yaml")
    quiet = run_whole(["render", quickstart])
    loud = run_whole(["render", "-v", quickstart])
    assert "[info]" not in quiet.err and "[SD301]" in loud.err and "[SD412]" in quiet.err
    # 3 infos: the decision (SD301), its node count, and the vLLM release assumed (SD428)
    assert "[SD428]" in loud.err and "[SD428]" not in quiet.err
    assert quiet.err.splitlines()[-1] == ("kaito-specdec: 0 errors, 1 warning, 3 infos (-v shows them); 1 file, "
                                          "1 object; speculative decoding for 1 workload: 1 mtp")
    assert loud.err.splitlines()[-1].startswith("kaito-specdec: 0 errors, 1 warning, 3 infos; ")
    assert run_whole(["render", "--verbose", quickstart]).err == loud.err


# --- item 3: each finding said once, whoever runs the function ---------------------------------------------

KPT_ITEM = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: workspace-deepseek-r1
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'ws.yaml'
    internal.config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: 'ws.yaml'
    internal.config.kubernetes.io/seqindent: 'compact'
resource:
  instanceType: Standard_NC24ads_A100_v4
  labelSelector:
    matchLabels:
      apps: workspace-deepseek-r1
inference:
  preset:
    name: deepseek-r1-0528
"""


def test_under_kpt_the_findings_are_the_results_and_stderr_sums_up() -> None:
    """kpt prints the results (`Results:`) and stderr (`Stderr:`): the findings once, in the results."""
    code, out, err = run_whole([], wrap(KPT_ITEM))
    results = yaml.safe_load(out)["results"]
    assert code == 0 and [r["tags"]["id"] for r in results if r["severity"] != "info"] == ["SD412"]
    assert err.splitlines() == [
        "kaito-specdec: 0 errors, 1 warning, 3 infos; 1 file, 1 object; speculative decoding for 1 workload: 1 mtp; "
        "each finding is under kpt's Results: (all of them with --truncate-output=false)"]


def test_under_kustomize_stderr_carries_every_finding() -> None:
    """kustomize shows only stderr (its items carry kustomize.config.k8s.io/id, not kpt's seqindent)."""
    text = KPT_ITEM.replace("    internal.config.kubernetes.io/seqindent: 'compact'\n",
                            "    kustomize.config.k8s.io/id: '1'\n")
    code, out, err = run_whole([], wrap(text))
    lines = err.splitlines()
    assert code == 0 and len(lines) == 2 and "[SD412]" in lines[0], lines
    assert lines[1].startswith("kaito-specdec: 0 errors, 1 warning, 3 infos (in the ResourceList's results)")


def test_kpt_results_put_errors_first() -> None:
    bad = KPT_ITEM.replace('enable-speculative-decoding: "true"', 'enable-speculative-decoding: "yes"')
    good = KPT_ITEM.replace("workspace-deepseek-r1", "a-first-workspace")
    code, out, _ = run_whole([], wrap(good + "---\n" + bad))
    severities = [r["severity"] for r in yaml.safe_load(out)["results"]]
    assert code == 1 and severities[0] == "error" and severities == sorted(severities, key=["error", "warning",
                                                                                               "info"].index)


# --- item 6: per-object suppression ------------------------------------------------------------------------

def test_the_disable_annotation_silences_its_own_object_alone(tmp_path: Path) -> None:
    text = (FIXTURES / "findings-disable-per-object" / "items.yaml").read_text(encoding="utf-8")
    (tmp_path / "ws.yaml").write_text(text, encoding="utf-8")
    code, out, err = run(["render", "-v", str(tmp_path / "ws.yaml")])
    assert code == 0
    sd412 = [line for line in err.splitlines() if "[SD412]" in line]
    assert len(sd412) == 1 and "Workspace/loud " in sd412[0]
    assert not [line for line in err.splitlines() if "Workspace/quiet" in line and "[SD426]" in line]
    assert [line for line in err.splitlines() if "Workspace/loud" in line and "[SD426]" in line]
    assert [line.split('"')[1] for line in err.splitlines() if "[SD011]" in line] == ["SD101", "SD999", "nope"]
    # The annotation is the user's: it stays in the output.
    assert 'kaito-specdec.dev/disable: "SD412, SD426, SD101, SD999, nope"' in out
    # An error it cannot turn off still stops the run.
    bad = text.replace('kaito.sh/enable-speculative-decoding: "true"\n    kaito-specdec.dev/disable',
                       'kaito.sh/enable-speculative-decoding: "yes"\n    kaito-specdec.dev/disable')
    (tmp_path / "ws.yaml").write_text(bad, encoding="utf-8")
    assert run(["render", str(tmp_path / "ws.yaml")]).code == 1


# --- item 7: every setting a render flag; every unknown key; kaitoVersion outside the releases modelled ------

def test_every_setting_is_a_render_flag_listed_by_help() -> None:
    from krm_fn.model.config import SETTINGS
    code, out, _ = run(["render", "--help"])
    assert code == 0
    for setting in SETTINGS:
        flag = "--" + re.sub(r"([A-Z])", lambda m: "-" + m.group(1).lower(), setting)
        assert flag in out, flag


@pytest.mark.parametrize("argv,setting", [
    (["--fail-on", "warning"], None),
    (["--kaito-version", "v0.12.0"], "KAITO v0.12.0"),
    (["--vllm-version", "0.10"], "vLLM 0.10"),
    (["--feature-gates", "vLLM=false"], None),
    (["--ngram-fallback", '{"method":"ngram","num_speculative_tokens":3}'], None),
    (["--tuned-presets", '{"deepseek-r1-0528": {"method":"ngram","num_speculative_tokens":2}}'], None),
])
def test_each_new_flag_sets_its_setting(argv: list[str], setting: str | None, tmp_path: Path) -> None:
    quickstart = str(FIXTURES / "quickstart-workspace" / "items.yaml")
    if argv[0] == "--ngram-fallback":  # an untuned preset gets the fallback
        untuned = tmp_path / "phi.yaml"
        untuned.write_text(Path(quickstart).read_text(encoding="utf-8").replace('"deepseek-r1-0528"', "phi-4"),
                           encoding="utf-8")
        quickstart = str(untuned)
    plain = run(["render", "-v", quickstart])
    flagged = run(["render", "-v", *argv, quickstart])
    assert (flagged.code, flagged.out, flagged.err) != (plain.code, plain.out, plain.err), argv
    if argv[0] == "--fail-on":
        assert (plain.code, flagged.code) == (0, 1)
    if setting:
        assert setting in flagged.err
    if argv[0] == "--ngram-fallback":
        assert '"num_speculative_tokens":3' not in plain.out
    if argv[0] == "--tuned-presets":
        assert '{"method":"ngram","num_speculative_tokens":2}' in flagged.out


def test_every_unknown_key_is_reported_with_the_setting_it_resembles(tmp_path: Path) -> None:
    config = tmp_path / "fc.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  failon: warning\n"
                      "  kaito_version: v0.12.0\n  zzz: x\n", encoding="utf-8")
    code, _, err = run(["render", "--config", str(config), str(FIXTURES / "quickstart-workspace" / "items.yaml")])
    lines = err.splitlines()
    assert code == 2 and len(lines) == 3, lines
    assert 'unknown setting "failon"; did you mean failOn? [SD020]' in lines[0]
    assert 'unknown setting "kaito_version"; did you mean kaitoVersion? [SD020]' in lines[1]
    assert 'unknown setting "zzz"; known settings: mode, failOn' in lines[2]
    # In KRM mode too, each as its own result.
    fnconfig = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {tunedPreset: x, kaitoversion: v0.12.0}\n"
    krm = run([], wrap((FIXTURES / "quickstart-workspace" / "items.yaml").read_text(encoding="utf-8"), fnconfig))
    assert [r["message"] for r in krm.results] == [
        'invalid functionConfig: unknown setting "kaitoversion"; did you mean kaitoVersion? [SD020]',
        'invalid functionConfig: unknown setting "tunedPreset"; did you mean tunedPresets? [SD020]']


@pytest.mark.parametrize("version,ok", [("v0.20.0", False), ("v0.14.0", False), ("v0.2.0", False), ("1.0.0", False),
                                        ("v0.13.2", True), ("0.10", True), ("v0.9.0", True), ("v0.3.0", True)])
def test_a_kaito_version_outside_the_releases_modelled_is_an_error_naming_them(version: str, ok: bool) -> None:
    code, _, err = run(["render", "--kaito-version", version, str(FIXTURES / "quickstart-workspace" / "items.yaml")])
    if ok:
        assert "[SD021]" not in err, err
        # The quickstart's DeepSeek spreads over 11 nodes: v0.3's is judged by vLLM 0.6.3 (v0.3 ran no vLLM, so
        # the first KAITO image with one, v0.4.0's), whose V0 engine refuses pipeline parallelism (SD417).
        assert code == (1 if version == "v0.3.0" else 0), err
        assert ("vLLM 0.6.3 runs speculative decoding on its V0 engine" in err) == (version == "v0.3.0"), err
    else:
        assert code == 2 and "is not a release this function models (v0.3 to v0.13)" in err and "[SD021]" in err


OLD_KAITO = "is older than the releases whose admission and rollout are modelled (v0.10.0 to v0.13)"


@pytest.mark.parametrize("version,warned", [("v0.9.0", True), ("0.9", True), ("v0.3.0", True), ("v0.7.2", True),
                                            ("v0.10.0", False), ("v0.12.0", False), ("v0.13.0", False)])
def test_a_kaito_version_older_than_the_admission_and_rollout_modelled_is_a_warning(version: str, warned: bool) -> None:
    """Item 7: v0.3-v0.9 are taken (webhook rules and pod names by release) but never in silence: one warning
    a run, at the setting, however it was set; the run goes on and writes its output."""
    # One node (no verdict under pipeline parallelism, which v0.3's vLLM 0.6.3 refuses), a user's ngram config.
    items = str(FIXTURES / "override-workspace" / "items.yaml")
    for argv, env in ((["--kaito-version", version], {}), ([], {"KAITO_SPECDEC_KAITO_VERSION": version})):
        code, out, err = run(["render", *argv, items], env=env)
        old = [ln for ln in err.splitlines() if "[SD048]" in ln]
        assert code == 0 and "kind: Workspace" in out, err
        if warned:
            shown = f"v{version.lstrip('v')}" if version.count(".") == 2 else f"v{version}.0"
            assert old == [f"[warning] render kaitoVersion: KAITO {shown} (the kaitoVersion setting) {OLD_KAITO}: those checks follow v0.10.0 (webhook rules and pod names still by release); check the output on your cluster, or upgrade KAITO [SD048]"], err
            assert len(old[0]) <= 320 + len("[warning] render kaitoVersion: ")
        else:
            assert old == [], err
    # KRM mode: at the functionConfig's key, as the settings' errors are.
    fnconfig = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: fc}}\ndata: {{kaitoVersion: '{version}'}}\n"
    krm = run([], wrap(Path(items).read_text(encoding="utf-8"), fnconfig))
    said = [r for r in krm.results if r.get("tags", {}).get("id") == "SD048"]
    assert krm.code == 0 and krm.items
    if warned:
        assert [(r["severity"], r["resourceRef"], r["field"]["path"]) for r in said] == [
            ("warning", {"apiVersion": "v1", "kind": "ConfigMap", "name": "fc"}, "functionConfig.data.kaitoVersion")]
        assert OLD_KAITO in said[0]["message"]
    else:
        assert said == []


def test_an_old_kaito_version_is_warned_where_it_was_set_and_can_be_turned_off(tmp_path: Path) -> None:
    items = str(FIXTURES / "quickstart-workspace" / "items.yaml")
    policy = tmp_path / "policy.yaml"
    policy.write_text("apiVersion: kaito-specdec.dev/v1alpha1\nkind: SpeculativeDecodingPolicy\nmetadata: {name: p}\n"
                      "spec: {kaitoVersion: v0.9.0}\n", encoding="utf-8")
    code, _, err = run(["render", "--format", "json", "--config", str(policy), items])
    (said,) = [r for r in json.loads(err.strip().splitlines()[-1])["results"] if r.get("tags", {}).get("id") == "SD048"]
    assert code == 0 and said["field"]["path"] == "functionConfig.spec.kaitoVersion"
    # The flag wins over the functionConfig, and is what the warning names (here: a modelled release, none).
    code, _, err = run(["render", "--config", str(policy), "--kaito-version", "v0.12.0", items])
    assert code == 0 and "[SD048]" not in err
    # Said once a run, whatever the number of workloads; a warning, so failOn: warning fails; disable turns it off.
    code, _, err = run(["render", "--kaito-version", "v0.9.0", "--fail-on", "warning", str(FIXTURES / "cascade-inferenceset" / "items.yaml")])
    assert code == 1 and err.count("[SD048]") == 1
    code, _, err = run(["render", "--kaito-version", "v0.9.0", "--disable", "SD048", items])
    assert code == 0 and "[SD048]" not in err
    # With an error elsewhere in the input, still said (nothing is written).
    code, _, err = run(["render", "--kaito-version", "v0.9.0", str(FIXTURES / "admission-unknown-preset" / "items.yaml")])
    assert code == 1 and err.count("[SD048]") == 1


def test_kaito_v0_7_2_still_names_the_deployment_pods_of_a_workspace_and_is_warned() -> None:
    """The facts kept of releases before v0.10 still hold (a single-node Workspace ran as a Deployment before
    v0.8.0: its PrometheusRule selects those pods), with the warning; v0.10.0 selects the StatefulSet's only."""
    case = FIXTURES / "monitoring-kaito-before-v0.8"
    deployment_pods = '|[456789bcdf]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5})'
    for version, old in (("v0.7.2", True), ("v0.10.0", False)):
        code, out, err = run(["render", "--prometheus-rules", "--kaito-version", version, str(case / "items.yaml")])
        assert code == 0 and "kind: PrometheusRule" in out, err
        assert (deployment_pods in out, err.count("[SD048]")) == (old, int(old)), err


# --- item 5: --format sarif --------------------------------------------------------------------------------

def test_sarif_has_a_rule_per_id_with_its_help_link_and_results_with_file_and_line(opted_in_tree: Path) -> None:
    from krm_fn.findings import CATALOGUE, shown
    code, out, err = run(["render", "--format", "sarif", str(opted_in_tree)])
    log = json.loads(err)
    assert code == 1 and out == ""
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "kaito-specdec"
    assert [rule["id"] for rule in driver["rules"]] == list(CATALOGUE)
    doc = (Path(__file__).resolve().parent.parent / "docs" / "findings.md").read_text(encoding="utf-8")
    # Each rule links to its row of findings.md at the release's tag (the default branch moves on), and says
    # what the catalogue says: a readable name, the title, the why (or the title), and help with both.
    pinned = f"https://github.com/kaito-project/kaito-specdec/blob/v{__version__}/docs/findings.md#"
    for rule in driver["rules"]:
        anchor = rule["helpUri"].split("#", 1)[1]
        assert rule["helpUri"] == pinned + f"rule-{rule['id'].lower()}" and f'<a id="{anchor}"></a>' in doc, rule
        spec = CATALOGUE[rule["id"]]
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]+", rule["name"]) and rule["name"] != rule["id"], rule["name"]
        assert rule["shortDescription"] == {"text": spec.title}
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        for help in rule["help"]["text"], rule["help"]["markdown"]:
            assert spec.title in help and rule["helpUri"] in help
            assert all(shown(t) in help.replace("\n    ", " ") for t in spec.templates() if len(shown(t)) < 90)
        assert "](" not in rule["help"]["text"] and "](http" in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning",
                                                         "info": "note"}[spec.severity.value]
    assert len({rule["name"] for rule in driver["rules"]}) == len(driver["rules"])
    results = sarif_run["results"]
    assert {r["level"] for r in results} == {"error", "warning"}  # infos only with -v
    sd412 = [r for r in results if r["ruleId"] == "SD412"]
    assert sd412 and all(driver["rules"][r["ruleIndex"]]["id"] == "SD412" for r in sd412)
    location = sd412[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].startswith(str(opted_in_tree)) and location["region"]["startLine"] > 0
    assert [r["ruleId"] for r in results].count("SD001") == 2
    verbose = json.loads(run(["render", "--format", "sarif", "-v", str(opted_in_tree)]).err)
    assert "note" in {r["level"] for r in verbose["runs"][0]["results"]}


# --- item 9: the README says where each kind carries the opt-in --------------------------------------------

def test_the_readme_says_where_each_kind_carries_the_opt_in() -> None:
    from krm_fn.domain import kinds, plain_kinds
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- opt-in-places:start -->", 1)[1].split("<!-- opt-in-places:end -->", 1)[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| `([^`]+)`", table, re.M))
    for spec in (kinds.WORKSPACE, kinds.INFERENCESET, kinds.MULTIROLEINFERENCE):
        assert rows[spec.kind] == ".".join(spec.annotations), spec.kind
    plain = next(v for k, v in rows.items() if k.startswith("Deployment"))
    assert plain == ".".join(plain_kinds.kind_of("apps/v1", "Deployment").metadata_annotations)


def test_an_inferenceset_opted_in_on_its_metadata_is_told_where_it_goes(tmp_path: Path) -> None:
    text = (CORPUS / "inference" / "kaito_inferenceset_phi_4_mini.yaml").read_text(encoding="utf-8")
    docs = [d for d in yaml.safe_load_all(text) if d]
    for doc in docs:
        if doc["kind"] == "InferenceSet":
            doc.setdefault("metadata", {}).setdefault("annotations", {})["kaito.sh/enable-speculative-decoding"] = "true"
    (tmp_path / "set.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    err = run(["render", str(tmp_path / "set.yaml")]).err
    assert "[SD408]" in err and "spec.template.metadata.annotations" in err


# --- item 10: examples a team can copy as they are ------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PINNED = re.compile(r"@(v[0-9]+\.[0-9]+\.[0-9]+|[0-9a-f]{40})\b")


def test_what_the_ci_examples_install_is_pinned() -> None:
    ci = yaml.safe_load((EXAMPLES / "ci" / "validate.yaml").read_text(encoding="utf-8"))
    ref = ci["env"]["KAITO_SPECDEC_REF"]
    assert re.fullmatch(r"v[0-9]+\.[0-9]+\.[0-9]+|[0-9a-f]{40}", ref)
    install = next(s["run"] for s in ci["jobs"]["validate"]["steps"] if "git clone" in s.get("run", ""))
    assert '--branch "$KAITO_SPECDEC_REF"' in install
    flux = (EXAMPLES / "flux" / "github-actions" / "kaito-specdec-render.yaml").read_text(encoding="utf-8")
    installs = [line for line in flux.splitlines() if "git+https://" in line]
    assert installs and all(PINNED.search(line) for line in installs), installs


def test_the_flux_and_argocd_kustomizations_turn_on_origin_annotations() -> None:
    for path in (EXAMPLES / "flux" / "overlays" / "prod" / "kustomization.yaml",
                 EXAMPLES / "argocd" / "app" / "kustomization.yaml"):
        assert "originAnnotations" in (yaml.safe_load(path.read_text(encoding="utf-8")).get("buildMetadata") or []), path


# --- item 8: fewer ids, the old ones still taken ------------------------------------------------------------

def test_input_and_settings_findings_are_one_id_per_kind_of_fault() -> None:
    from finding_ids import ids_used
    from krm_fn import findings
    from krm_fn.model import config
    settings = sorted(set(ids_used(config)))
    # SD048 is no fault: a warning that an old kaitoVersion is judged as v0.10.0 (item 7).
    assert settings == ["SD020", "SD021", "SD032", "SD041", "SD048"]
    # 209 before issue #29 merged the input and settings ids (185); issue #30 then added seven facts of its
    # own (SD146, SD147, SD425, SD622-SD624, SD732), item 7 one (SD048), the readers' disagreement on a file's
    # last block scalar one (SD012), and a disable that cannot take out an argument edited by hand one (SD733)
    # and the split of five ids raised at two severities into one id per severity (issue #36: five more),
    # `render --output FILE` that cannot be written (SD519), and the vLLM release a run assumes, for KAITO
    # workloads (SD428) and for a plain image that names none (SD735), and a derived ConfigMap over the API
    # server's 1 MiB (SD316), the Grafana dashboard ConfigMap's four (SD816-SD819, issue #39), a
    # SpeculativeDecodingPolicy among the inputs (SD525 refused, SD526 render's configuration, SD049 not applied
    # in KRM mode), render over kustomize trees: no kustomize (SD506), a root that does not build (SD507),
    # materialize over several roots (SD508), a kustomize named that cannot be run (SD509); speculative decoding
    # beside a server setting vLLM refuses it with (SD625) or that silently undoes it or its metrics (SD626), and
    # a record in a field KServe 0.16's LLMInferenceService v1alpha1 lacks (SD736), and a file kubectl reads as
    # JSON and refuses, which kustomize and kpt read as YAML (SD013); and what kubectl cannot send: a fraction in
    # an integer field (SD017), NaN, infinity or a tag go-yaml cannot decode (SD018), a key that is no string (SD019),
    # a label or annotation value that is no string (SD066), a metadata field of another type than ObjectMeta's
    # (SD067); a value tagged `!` kustomize and kpt write back as no string (SD068), a keep block scalar before a
    # comment that kustomize writes back with one more line break (SD069)
    assert len(findings.CATALOGUE) <= 226
    # An old id in `disable` is what it was: one that cannot be turned off (SD041), never "unknown" (SD021).
    code, _, err = run(["render", "--disable", "SD046", str(FIXTURES / "quickstart-workspace" / "items.yaml")])
    assert code == 2 and "SD046 cannot be turned off" in err and "[SD041]" in err
    # Two malformed settings: one id, each naming its setting.
    code, _, err = run(["render", "--fail-on", "warning", "--kaito-version", "x", "--vllm-version", "y",
                        str(FIXTURES / "quickstart-workspace" / "items.yaml")])
    lines = err.splitlines()
    assert code == 2 and [ln.split(": ")[1] for ln in lines] == ["vllmVersion", "kaitoVersion"], lines
    assert all(ln.endswith("[SD021]") for ln in lines)
