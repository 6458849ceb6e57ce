"""Life cycles through the real function and tests/kaito_model.py's KAITO, per release (issue 21).

Each life cycle is a list of Git states; every state is rendered (`kaito-specdec render -`), synced into the
model cluster (with and without pruning) and the controllers run. After each state every pod must be able to
start, and each workload must speculate as the Git tree says; where only an action in the cluster gets
there on that release, the run must carry a warning that says so, and doing what it says must get there.

Two ways the next input is made: `source` (kustomize, Argo CD, Flux: the user's files, never the output) and
`writeback` (`kpt fn render`: the previous output, edited).

Two settings: `kaitoVersion` set to the release the model runs, and not set at all (`<release>/unset`): a user
who sets nothing gets the output safe on every release, so each life cycle runs against each release's model
with that one output too. A result that asks to recreate may be an info where the input shows no earlier
render (the source files of a first enable: most often a new workload, and a warning there would fail every
`failOn: warning` pipeline); where the input shows one (a derived ConfigMap in it) it must be a warning.
"""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from kaito_model import ENABLE, KAITO_VERSION, MRI_GATE, RELEASES, Cluster, intended
from runner import run

NS = "default"


def ws(name="phi", enabled=None, preset="microsoft/Phi-4-mini-instruct", config=None) -> dict:
    d = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace", "metadata": {"name": name},
         "resource": {"instanceType": "Standard_NC24ads_A100_v4", "labelSelector": {"matchLabels": {"apps": name}}},
         "inference": {"preset": {"name": preset}}}
    if enabled is not None:
        d["metadata"]["annotations"] = {ENABLE: enabled}
    if config:
        d["inference"]["config"] = config
    return d


def iset(name="phi-set", enabled=None, preset="microsoft/Phi-4-mini-instruct", config=None, replicas=1) -> dict:
    t = {"metadata": {"labels": {"apps": name}}, "resource": {"instanceType": "Standard_NC24ads_A100_v4"},
         "inference": {"preset": {"name": preset}}}
    if enabled is not None:
        t["metadata"]["annotations"] = {ENABLE: enabled}
    if config:
        t["inference"]["config"] = config
    return {"apiVersion": "kaito.sh/v1beta1", "kind": "InferenceSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "labelSelector": {"matchLabels": {"apps": name}}, "template": t}}


def mri(name="qwen", enabled=None, config=None, other=None) -> dict:
    ann = dict(other or {})
    if enabled is not None:
        ann[ENABLE] = enabled
    roles = [{"type": t, "replicas": 1, "instanceType": "Standard_NC24ads_A100_v4"} for t in ("prefill", "decode")]
    if config:
        for r in roles:
            r["runtimeConfig"] = config
    d = {"apiVersion": "kaito.sh/v1alpha1", "kind": "MultiRoleInference", "metadata": {"name": name},
         "spec": {"labelSelector": {"matchLabels": {"apps": name}}, "model": {"name": "Qwen/Qwen3.5-4B"}, "roles": roles}}
    if ann:
        d["metadata"]["annotations"] = ann
    return d


def cm(name="my-config", body="vllm:\n  max-model-len: 8192\n") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"inference_config.yaml": body}}


def dump(docs: list) -> str:
    return "".join("---\n" + yaml.safe_dump(d, sort_keys=False) for d in docs)


UNSET = "/unset"
RUNS = RELEASES + tuple(r + UNSET for r in RELEASES)  # kaitoVersion set to the model's release, or not set


def model(release: str) -> str:
    return release.split("/")[0]


def render(docs: list, release: str, extra: dict | None = None) -> tuple[list, list[str]]:
    """The output, and every result as a line `[severity] message [id]` (info ones too; the message ends in its id)."""
    env = {} if release.endswith(UNSET) else {"KAITO_SPECDEC_KAITO_VERSION": KAITO_VERSION[release]}
    env.update(extra or {})
    r = run(["render", "--format", "json", "-"], dump(docs), env)
    assert r.code == 0, r.err
    results = json.loads(r.err.splitlines()[-1])["results"]
    return [d for d in r.docs if d], [f"[{x['severity']}] {x['message']}" for x in results]


def shows_a_render(docs: list) -> bool:
    """The input carries a derived ConfigMap: an earlier render reached the package (kpt's write-back)."""
    return any(d["kind"] == "ConfigMap" and (d["metadata"].get("annotations") or {}).get("kaito-specdec.dev/derived") == "true"
               for d in docs)


# A state is (kind, name, how to edit that object); None as the edit means "the whole list is this".
def edit_annotation(value):
    def f(d):
        if d["kind"] == "InferenceSet":
            meta = d["spec"]["template"].setdefault("metadata", {})
        else:
            meta = d["metadata"]
        ann = meta.setdefault("annotations", {})
        if value is None:
            ann.pop(ENABLE, None)
            if not ann:
                meta.pop("annotations")
        else:
            ann[ENABLE] = value
    return f


def edit_preset(name):
    def f(d):
        if d["kind"] == "InferenceSet":
            d["spec"]["template"]["inference"]["preset"]["name"] = name
        else:
            d["inference"]["preset"]["name"] = name
    return f


def edit_configmap(body):
    def f(d):
        d["data"]["inference_config.yaml"] = body
    return f


def edit_replicas(n):
    def f(d):
        d["spec"]["replicas"] = n
    return f


def apply_edit(docs: list, kind: str, name: str, fn) -> list:
    out = copy.deepcopy(docs)
    hits = [d for d in out if d["kind"] == kind and d["metadata"]["name"] == name]
    assert hits, (kind, name)
    for d in hits:
        fn(d)
    return out


# What the user does about a warning that asks to recreate: the warning must name the object.
def follow(cluster: Cluster, lines: list[str]) -> list[str]:
    done = []
    for line in lines:
        if "kubectl delete statefulset" in line:
            name = line.split("kubectl delete statefulset ", 1)[1].split()[0]
            cluster.delete_statefulset(NS, name)
            done.append(line)
        elif "kubectl delete workspace -l inferenceset.kaito.sh/created-by=" in line:
            for part in line.split("created-by=")[1:]:
                cluster.delete_children(NS, part.split()[0].rstrip(";"))
            done.append(line)
        elif "kubectl delete workspace -l 'inferenceset.kaito.sh/created-by in (" in line:
            for name in line.split("created-by in (", 1)[1].split(")", 1)[0].split(","):
                cluster.delete_children(NS, name)
            done.append(line)
    return done


def root_of(cluster: Cluster, workspace: str) -> str:
    o = cluster.objects.get(("Workspace", NS, workspace)) or {}
    return ((o.get("metadata") or {}).get("labels") or {}).get("inferenceset.kaito.sh/created-by", workspace)


def check(cluster: Cluster, output: list, lines: list[str], step: str, evident: bool = True) -> None:
    """`evident`: the input showed an earlier render, so what to do must be a warning (else an info will do)."""
    assert not cluster.refused, f"{step}: refused at apply: {cluster.refused}"
    want = intended(output)
    # A MultiRoleInference child InferenceSet says what its MultiRoleInference says.
    def bad():
        out = []
        for name, pod in cluster.pods().items():
            root = root_of(cluster, name)
            if not pod.can_start:
                out.append(f"{name}: cannot start: {pod.why}")
            elif root in want and pod.speculative_config != want[root]:
                out.append(f"{name} ({root}): runs {pod.speculative_config!r}, the Git tree says {want[root]!r}")
        return out
    problems = bad()
    if problems:
        followed = follow(cluster, [ln for ln in lines if ln.startswith("[warning]") or (not evident and ln.startswith("[info]"))])
        assert followed, f"{step}: {problems} and no {'warning' if evident else 'result'} says what to do: {lines}"
        assert not bad(), f"{step}: after doing what the warnings say ({followed}): {bad()}"


def served(docs: list, release: str) -> list:
    """The docs as the release serves them: v0.10 has InferenceSets at kaito.sh/v1alpha1 only (kaito_model)."""
    if model(release) != "v0.10":
        return docs
    return [dict(d, apiVersion="kaito.sh/v1alpha1") if d["kind"] == "InferenceSet" else d for d in docs]


def life(release: str, flow: str, prune: bool, first: list, edits: list, extra: dict | None = None,
         replace: bool = False, gates: dict | None = None) -> Cluster:
    """`replace`: sync as Argo CD's `Replace=true` does (a Workspace's preset is immutable in KAITO);
    `gates`: KAITO's feature gates (the MultiRoleInference controller is off unless turned on)."""
    cluster = Cluster(model(release), gates=dict(gates or {}))
    source = served(first, release)
    output, lines = render(source, release, extra)
    cluster.sync(output, prune=prune, replace=replace)
    check(cluster, output, lines, "first state", shows_a_render(source))
    for n, (kind, name, fn) in enumerate(edits, 1):
        given = apply_edit(source if flow == "source" else output, kind, name, fn)
        if flow == "source":
            source = given
        output, lines = render(given, release, extra)
        cluster.sync(output, prune=prune, replace=replace)
        check(cluster, output, lines, f"state {n} ({kind} {name})", shows_a_render(given))
    return cluster


FLOWS = [(f, p) for f in ("source", "writeback") for p in (True, False)]
IDS = [f"{f}-{'prune' if p else 'keep'}" for f, p in FLOWS]
params = pytest.mark.parametrize("flow,prune", FLOWS, ids=IDS)
releases = pytest.mark.parametrize("release", RUNS)


@releases
@params
def test_create_enabled(release, flow, prune):
    life(release, flow, prune, [ws(enabled="true")], [])


@releases
@params
def test_create_enabled_with_config_then_disable_and_reenable(release, flow, prune):
    life(release, flow, prune, [cm(), ws(enabled="true", config="my-config")],
         [("Workspace", "phi", edit_annotation("false")), ("Workspace", "phi", edit_annotation("true")),
          ("Workspace", "phi", edit_annotation(None))])


@releases
@params
def test_enable_existing_workspace_without_config(release, flow, prune):
    life(release, flow, prune, [ws()], [("Workspace", "phi", edit_annotation("true"))])


@releases
@params
def test_enable_existing_workspace_with_config(release, flow, prune):
    life(release, flow, prune, [cm(), ws(config="my-config")], [("Workspace", "phi", edit_annotation("true"))])


@releases
@params
def test_disable_with_false_and_reenable(release, flow, prune):
    life(release, flow, prune, [ws(enabled="true")],
         [("Workspace", "phi", edit_annotation("false")), ("Workspace", "phi", edit_annotation("true")),
          ("Workspace", "phi", edit_annotation("false"))])


@releases
@pytest.mark.parametrize("prune", [True, False], ids=["prune", "keep"])
def test_disable_by_removing_the_annotation_writeback(release, prune):
    # kpt's write-back: the function sees the reference it gave and keeps a config reference where the
    # release needs one.
    life(release, "writeback", prune, [ws(enabled="true")], [("Workspace", "phi", edit_annotation(None))])


@releases
@params
def test_change_the_preset(release, flow, prune):
    # KAITO refuses a Workspace's preset change (immutable): it is rolled out by replacing the Workspace.
    life(release, flow, prune, [ws(enabled="true")],
         [("Workspace", "phi", edit_preset("Qwen/Qwen3.5-4B")), ("Workspace", "phi", edit_preset("phi-4"))],
         replace=True)


@releases
@params
def test_switch_tuned_and_ngram(release, flow, prune):
    tuned = {"KAITO_SPECDEC_NGRAM_FALLBACK": '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":2}'}
    life(release, flow, prune, [ws(enabled="true", preset="Qwen/Qwen3.5-4B")],
         [("Workspace", "phi", edit_preset("microsoft/Phi-4-mini-instruct")),
          ("Workspace", "phi", edit_preset("Qwen/Qwen3.5-4B"))], tuned, replace=True)


@releases
@params
def test_user_override_added_and_removed(release, flow, prune):
    override = "vllm:\n  max-model-len: 8192\n  speculative-config: '{\"method\":\"ngram\",\"num_speculative_tokens\":8,\"prompt_lookup_max\":6}'\n"
    life(release, flow, prune, [cm(), ws(enabled="true", config="my-config")],
         [("ConfigMap", "my-config", edit_configmap(override)),
          ("ConfigMap", "my-config", edit_configmap("vllm:\n  max-model-len: 8192\n"))])


@releases
@params
def test_inferenceset_enable_scale_up_disable(release, flow, prune):
    c = life(release, flow, prune, [iset(replicas=1)],
             [("InferenceSet", "phi-set", edit_annotation("true")), ("InferenceSet", "phi-set", edit_replicas(2)),
              ("InferenceSet", "phi-set", edit_annotation("false")), ("InferenceSet", "phi-set", edit_replicas(3))])
    assert len(c.children_of("phi-set")) == 3


@releases
@params
def test_inferenceset_created_enabled_then_preset_changed(release, flow, prune):
    life(release, flow, prune, [iset(enabled="true", replicas=2)],
         [("InferenceSet", "phi-set", edit_preset("Qwen/Qwen3.5-4B"))])


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) >= "v0.11"])
@params
def test_multiroleinference_roles(release, flow, prune):
    life(release, flow, prune, [cm(), mri(enabled="true", config="my-config")],
         [("MultiRoleInference", "qwen", edit_annotation("false")),
          ("MultiRoleInference", "qwen", edit_annotation("true"))], gates={MRI_GATE: True})


def test_the_model_sees_the_v012_gap():
    """The model itself: on v0.12 a config added to a running Workspace is mounted but never read, and
    a config taken away leaves the flag: what the function must not produce silently."""
    c = Cluster("v0.12").sync([ws()])
    c.sync([ws(config="x"), cm("x", "vllm:\n  speculative-config: '{}'\n")])
    pod = c.pods()["phi"]
    assert pod.can_start and pod.configmap == "x" and not pod.config_flag and pod.speculative_config is None
    c = Cluster("v0.12").sync([ws(config="x"), cm("x", "vllm: {}\n")]).sync([ws()])
    assert not c.pods()["phi"].can_start
    c = Cluster("v0.13").sync([ws()]).sync([ws(config="x"), cm("x", "vllm:\n  speculative-config: '{}'\n")])
    assert c.pods()["phi"].speculative_config == "{}"
    c = Cluster("v0.10").sync([ws(config="x"), cm("x", "vllm: {}\n")]).sync([ws()])
    assert c.pods()["phi"].can_start


@pytest.mark.parametrize("release", RELEASES)
def test_the_model_refuses_a_preset_change(release):
    """KAITO's Workspace webhook: `preset` is immutable; a replace (delete and create) changes it."""
    c = Cluster(release).sync([ws()]).sync([ws(preset="phi-4")])
    assert [p for _, p in c.refused] == ["preset: field is immutable"]
    assert c.objects[("Workspace", NS, "phi")]["inference"]["preset"]["name"] == "microsoft/Phi-4-mini-instruct"
    c.sync([ws(preset="phi-4")], replace=True)
    assert not c.refused and c.objects[("Workspace", NS, "phi")]["inference"]["preset"]["name"] == "phi-4"


@releases
def test_render_stream_applies_in_order(release):
    """`kubectl apply -f` of render's stream applies in order: a new derived ConfigMap must come before the
    Workspace (and v1beta1 InferenceSet) whose admission looks it up (fails on main: it came after)."""
    output, _ = render(served([ws(enabled="true"), iset(enabled="true")], release), release)
    c = Cluster(model(release)).sync(output, stream_order=True)
    assert not c.refused, c.refused


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) >= "v0.11"])
def test_multiroleinference_last_annotation_removed_warns(release):
    """KAITO copies MRI annotations only `if len(mri.Annotations) > 0`: removing the last one leaves the
    children as they were; the write-back run (which still lists the child InferenceSets) says so."""
    out, _ = render([mri(enabled="true"), iset("qwen-prefill", enabled="true", preset="Qwen/Qwen3.5-4B")], release)
    edited = apply_edit(out, "MultiRoleInference", "qwen", edit_annotation(None))
    _, lines = render(edited, release)
    assert any("[SD423]" in ln and 'set it to "false"' in ln for ln in lines), lines


@params
def test_inferenceset_custom_fallback_on_v013(flow, prune):
    """The v0.13 code syncs only the annotation to existing children: they run KAITO's built-in config, not
    the ngramFallback setting's; the warning's recreate gets them the template's."""
    custom = {"KAITO_SPECDEC_NGRAM_FALLBACK": '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":2}'}
    life("v0.13", flow, prune, [iset(replicas=2)], [("InferenceSet", "phi-set", edit_annotation("true"))], custom)


def test_no_false_alarms_where_the_release_needs_none():
    _, lines = render([ws(enabled="true")], "v0.13")
    assert not any(ln.endswith(("[SD420]", "[SD426]")) for ln in lines), lines
    out, _ = render([ws(enabled="false")], "v0.13")
    assert not any(d["kind"] == "ConfigMap" for d in out)
    out, _ = render([ws(enabled="false")], "v0.10")
    assert not any(d["kind"] == "ConfigMap" for d in out)
    out, _ = render([ws(enabled="false")], "v0.12")
    assert [d["metadata"]["name"] for d in out if d["kind"] == "ConfigMap"][0].startswith("specdec-off-")


def test_unset_notes_say_where_they_hold_and_warn_only_on_evidence():
    """kaitoVersion not set: the note names v0.11-v0.12 and the fix, as an info on source files (SD426: a
    first enable, most often a new Workspace), as a warning once the input shows an earlier render (SD420)
    (fails on main: the default gave no note at all, and its output crash-loops on v0.11-v0.12 when disabled)."""
    out, lines = render([ws(enabled="true")], "v0.12" + UNSET)
    sd426 = [ln for ln in lines if ln.endswith("[SD426]")]
    assert len(sd426) == 1 and sd426[0].startswith("[info] on KAITO v0.11-v0.12 (set kaitoVersion to yours)") \
        and "kubectl delete statefulset phi" in sd426[0] and not [ln for ln in lines if ln.endswith("[SD420]")], lines
    _, lines = render(out, "v0.12" + UNSET)
    assert [ln[:10] for ln in lines if ln.endswith(("[SD420]", "[SD426]"))] == ["[warning] "], lines
    off, _ = render(apply_edit(out, "Workspace", "phi", edit_annotation("false")), "v0.12" + UNSET)
    assert [d["inference"]["config"] for d in off if d["kind"] == "Workspace"][0].startswith("specdec-off-")


@pytest.mark.parametrize("release", ["v0.12", "v0.13", "v0.12" + UNSET])
def test_sd424_is_a_warning_only_where_a_render_is_evident(release):
    """An InferenceSet's first enable from source files is SD427, an info (a new InferenceSet has no
    Workspaces yet); with children in the input, or a derived ConfigMap (kpt's write-back), SD424, a warning
    (fails on main: a warning on every first enable)."""
    out, lines = render([iset(enabled="true")], release)
    assert [ln[:7] for ln in lines if ln.endswith(("[SD424]", "[SD427]"))] == ["[info] "], lines
    assert [ln for ln in lines if ln.endswith("[SD427]")], lines
    child = {"apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
             "metadata": {"name": "phi-set-0", "labels": {"inferenceset.kaito.sh/created-by": "phi-set"}},
             "inference": {"preset": {"name": "microsoft/Phi-4-mini-instruct"}}}
    _, lines = render([iset(enabled="true"), child], release)
    assert [ln[:10] for ln in lines if ln.endswith(("[SD424]", "[SD427]"))] == ["[warning] "], lines
    assert [ln for ln in lines if ln.endswith("[SD424]")], lines
    _, lines = render(apply_edit(out, "InferenceSet", "phi-set", edit_annotation("false")), release)
    assert [ln[:10] for ln in lines if ln.endswith(("[SD424]", "[SD427]"))] == ["[warning] "], lines
    assert [ln for ln in lines if ln.endswith("[SD424]")], lines


def child_ws(name="phi-set-0", parent="phi-set", enabled=None, config=None) -> dict:
    d = ws(name, enabled=enabled, config=config)
    d["metadata"]["labels"] = {"inferenceset.kaito.sh/created-by": parent}
    return d


@releases
@params
def test_a_workspace_an_inferenceset_made_is_rolled_out_as_any_workspace(release, flow, prune):
    """Issue #30: a Workspace an InferenceSet made (label inferenceset.kaito.sh/created-by), in the Git tree
    beside its InferenceSet, through a whole life cycle."""
    life(release, flow, prune, [iset(replicas=1), child_ws()],
         [("InferenceSet", "phi-set", edit_annotation("true")), ("InferenceSet", "phi-set", edit_annotation("false"))])


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) in ("v0.11", "v0.12")])
def test_a_disabled_child_workspace_keeps_its_config_and_starts(release):
    """KAITO v0.11-v0.12 keep --kaito-config-file on the command of a running Workspace and drop the config
    volume with the reference (workspace_controller.go:669-672, interface.go:482-483 at v0.12.0). Applied as
    rendered, before anything a warning asks for, the InferenceSet turned off must leave the Workspace it made
    able to start (fails on main: the child lost its config and crash-looped; SD424's recreate hid it)."""
    out, _ = render([iset(enabled="true"), child_ws(enabled="true")], release)
    c = Cluster(model(release)).sync(out)
    assert all(p.can_start for p in c.pods().values()), c.pods()
    off, lines = render(apply_edit(out, "InferenceSet", "phi-set", edit_annotation("false")), release)
    c.sync(off)
    assert all(p.can_start for p in c.pods().values()), (c.pods(), lines)
    assert any(ln.endswith("[SD421]") and "phi-set-0" in ln for ln in lines), lines


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) in ("v0.11", "v0.12")])
def test_an_enabled_child_workspace_without_a_config_gets_sd420(release):
    """Enabled without a config of its own, the Workspace an InferenceSet made mounts the config and never
    reads it on v0.11-v0.12, as any Workspace: SD420 names it, SD426 with kaitoVersion not set (fails on
    main: none)."""
    _, lines = render([iset(enabled="true"), child_ws()], release)
    id = "[SD426]" if release.endswith(UNSET) else "[SD420]"
    assert any(ln.endswith(id) and "statefulset phi-set-0" in ln for ln in lines), lines


def edit_model(name):
    def f(d):
        d["spec"]["model"]["name"] = name
    return f


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) >= "v0.11"])
@params
def test_multiroleinference_model_changed(release, flow, prune):
    """Issue #30: KAITO refuses a MultiRoleInference's model change ("model name is immutable"), so it rolls out
    by replacing the object, with the function's SD425 (not SD424's recreate of Workspaces, which brought the
    old model back) where the input shows the old model."""
    life(release, flow, prune, [mri(enabled="true")], [("MultiRoleInference", "qwen", edit_model("Qwen/Qwen3-8B"))],
         gates={MRI_GATE: True}, replace=True)


@pytest.mark.parametrize("release", [r for r in RUNS if model(r) >= "v0.11"])
def test_a_model_change_says_kaito_refuses_it(release):
    out, _ = render([mri(enabled="true"), iset("qwen-prefill", enabled="true", preset="Qwen/Qwen3.5-4B")], release)
    changed = apply_edit(out, "MultiRoleInference", "qwen", edit_model("Qwen/Qwen3-8B"))
    _, lines = render(changed, release)
    sd425 = [ln for ln in lines if ln.endswith("[SD425]")]
    assert len(sd425) == 1 and "model name is immutable" in sd425[0] and "kubectl delete multiroleinference qwen" in sd425[0]
    assert not [ln for ln in lines if ln.endswith("[SD424]") and "MultiRoleInference" in ln], lines
    c = Cluster(model(release), gates={MRI_GATE: True}).sync(out)
    c.sync(changed)
    assert [p for _, p in c.refused] == ["model name is immutable, was 'Qwen/Qwen3.5-4B', now 'Qwen/Qwen3-8B'"]


def test_the_model_refuses_a_partition_change_from_v012():
    parted = iset()
    parted["spec"]["template"]["resource"]["partition"] = {"mode": "MIG", "profile": "1g.10gb"}
    assert Cluster("v0.12").sync([iset()]).sync([parted]).refused
    assert not Cluster("v0.11").sync([iset()]).sync([parted]).refused


# --- the model itself, per release (issue #30) ---------------------------------------------------------------
def test_the_model_serves_what_each_release_serves():
    c = Cluster("v0.10").sync([iset(), mri()])
    assert sorted(problem.split(":")[0] for _, problem in c.refused) == [
        'no matches for kind "InferenceSet" in version "kaito.sh/v1beta1"',
        'no matches for kind "MultiRoleInference" in version "kaito.sh/v1alpha1"']
    zero = dict(iset(replicas=0), apiVersion="kaito.sh/v1alpha1")
    assert Cluster("v0.10").sync([zero]).refused and not Cluster("v0.11").sync([iset(replicas=0)]).refused


def test_the_model_compares_v010_preset_names_as_written():
    assert Cluster("v0.10").sync([ws(preset="Phi-4")]).refused
    assert not Cluster("v0.10").sync([ws(preset="phi-4"), ws("f", preset="falcon-7b")]).refused
    assert not Cluster("v0.11").sync([ws(preset="Phi-4")]).refused


@pytest.mark.parametrize("preset,ids", [("Phi-4", ["SD112"]), ("phi-4", [])])
def test_the_function_refuses_what_v010_refuses(preset, ids):
    """kaitoVersion v0.10.0: what the model's v0.10 refuses at create, the function says (an error, nothing
    written), and what it admits, the function writes."""
    r = run(["render", "--format", "json", "-"], dump([ws(enabled="true", preset=preset)]),
            {"KAITO_SPECDEC_KAITO_VERSION": "v0.10.0"})
    results = json.loads(r.err.splitlines()[-1])["results"]
    assert [x["tags"]["id"] for x in results if x["severity"] == "error"] == ids
    if not ids:
        assert not Cluster("v0.10").sync(r.docs).refused


def test_the_multiroleinference_controller_is_off_unless_its_gate_is_on():
    off = Cluster("v0.12").sync([mri(enabled="true")])
    assert not [k for k in off.objects if k[0] == "InferenceSet"]
    on = Cluster("v0.12", gates={MRI_GATE: True}).sync([mri(enabled="true")])
    assert sorted(k[2] for k in on.objects if k[0] == "InferenceSet") == ["qwen-decode", "qwen-prefill"]


def test_v010_mounts_its_default_config_with_its_vllm_keys():
    c = Cluster("v0.10").sync([ws()])
    pod = c.pods()["phi"]
    assert pod.configmap == "inference-params-template" and pod.config_flag and pod.can_start
    assert "swap-space: 4" in c._configmap_text(NS, "inference-params-template")


@pytest.mark.parametrize("release", ["v0.10", "v0.11", "v0.12"])
def test_scale_down_deletes_not_ready_children_first(release):
    """inferenceset_controller.go: not-ready first, then in list order (v0.10, v0.11); v0.12 keeps Ready ones
    while Ready would drop below the replicas."""
    c = Cluster(release).sync(served([iset(replicas=3)], release))
    names = c.children_of("phi-set")
    broken = names[1]
    c.objects[("Workspace", NS, broken)]["inference"]["config"] = "missing"   # its pod cannot start
    c.statefulsets.pop((NS, broken))
    c.reconcile()
    assert broken not in c.pods() or not c.pods()[broken].can_start   # v0.10 makes no StatefulSet for it
    c.sync(served([iset(replicas=2)], release))
    assert broken not in c.children_of("phi-set") and len(c.children_of("phi-set")) == 2
    c.sync(served([iset(replicas=1)], release))
    assert c.children_of("phi-set") == [names[2]]   # the oldest Ready one went first (list order)


@pytest.mark.parametrize("release", ["v0.11", "v0.12"])
def test_scale_down_deletes_old_image_children_first(release):
    """v0.12.0 selectWorkspacesToDelete: "old before new" (a StatefulSet on an image other than KAITO's
    current base image), and a new-image one only past the old ones; v0.11 goes by list order."""
    c = Cluster(release).sync([iset(replicas=2)])
    names = c.children_of("phi-set")
    c.base_image = "base-upgraded"            # KAITO upgraded: both StatefulSets run the old image
    c.delete_statefulset(NS, names[0])        # recreated on the new one; names[1] stays old
    assert [c.statefulsets[(NS, n)].image for n in names] == ["base-upgraded", "base"]
    c.sync([iset(replicas=1)])
    assert c.children_of("phi-set") == ([names[0]] if release == "v0.12" else [names[1]])


def test_a_surge_workspace_survives_the_scale_down_and_retires_an_old_one():
    """v0.12.0's Surge upgrade: the runner adds one new-image Workspace; the InferenceSet controller keeps it
    (new, and not Ready yet while the old ones are what is Ready) and, once it is Ready, deletes an old one."""
    c = Cluster("v0.12").sync([iset(replicas=2)])
    names = c.children_of("phi-set")
    c.base_image = "base-upgraded"
    c.surge(NS, "phi-set")
    after = c.children_of("phi-set")
    assert len(after) == 2 and names[0] not in after and names[1] in after
    c.surge(NS, "phi-set")
    assert not set(names) & set(c.children_of("phi-set"))
    assert {c.statefulsets[(NS, n)].image for n in c.children_of("phi-set")} == {"base-upgraded"}
    assert all(p.can_start for p in c.pods().values())
