"""materialize, revert, retire: derived ConfigMaps placed, references re-pointed, reverted and dropped."""
from __future__ import annotations

from krm_fn.model.changes import Plan, step
from krm_fn.model.decisions import Inject
from krm_fn.stages.decide import decide
from krm_fn.domain.derived import build, comparable
from krm_fn.stages.materialize import materialize, retire, revert

from stages.stagekit import configmap, index, messages, mri, run, workspace

SOURCE = "kaito-specdec.dev/source-configmap"
DERIVED_ANN = "kaito-specdec.dev/derived"
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'


def decided(idx):
    return Plan().then(run(decide, idx))


def _derived_doc(name: str, source: str | None = "cfg", text: str = "vllm:\n  max-model-len: 4096\n") -> str:
    """The derived ConfigMap this function writes for `source` (built, then given as YAML text)."""
    import yaml
    cm = build({"data": {"inference_config.yaml": text}} if source else None, source, "ns", NGRAM, "ngram")
    cm["metadata"]["name"] = name if name else cm["metadata"]["name"]
    return yaml.safe_dump(cm, sort_keys=False)


def test_each_injection_adds_its_derived_configmap_after_the_workload_and_points_the_reference_at_it():
    idx = index(workspace("a", annotation="true", config="cfg"), configmap("cfg"), workspace("b", annotation="true"))
    plan = decided(idx)
    targets = [d.target for d in plan.decisions]
    s = run(materialize, idx, plan=plan)
    assert dict(s.ops) == {0: ({"op": "add", "path": "/inference/config", "value": targets[0]},),
                           2: ({"op": "add", "path": "/inference/config", "value": targets[1]},)}
    assert [(a.after, a.data) for a in s.added] == [(0, plan.decisions[0].configmap), (2, plan.decisions[1].configmap)]
    assert s.results == () and s.removed == frozenset()


def test_one_derived_configmap_serves_every_workload_that_needs_the_same_content_in_a_namespace():
    idx = index(workspace("a", annotation="true"), workspace("b", annotation="true"),
                workspace("c", annotation="true", namespace="other"))
    s = run(materialize, idx, plan=decided(idx))
    assert [a.after for a in s.added] == [0, 2] and sorted(s.ops) == [0, 1, 2]


def test_a_new_item_gets_a_file_next_to_the_workload_it_serves():
    ws = workspace("a", annotation="true").replace(
        "  namespace: ns\n", "  namespace: ns\n  annotations:\n    internal.config.kubernetes.io/path: apps/a.yaml\n", 1)
    ws = ws.replace("  annotations:\n    kaito.sh", "    kaito.sh")  # one annotations mapping
    idx = index(ws)
    s = run(materialize, idx, plan=decided(idx))
    ann = s.added[0].data["metadata"]["annotations"]
    name = s.added[0].data["metadata"]["name"]
    assert (ann["internal.config.kubernetes.io/path"], ann["internal.config.kubernetes.io/index"]) == \
        (f"apps/{name}.yaml", "0")


def test_a_derived_configmap_already_in_the_input_is_kept_as_it_is():
    first = index(workspace("a", annotation="true"))
    name = decided(first).decisions[0].target
    idx = index(workspace("a", annotation="true", config=name), _derived_doc(name, None))
    s = run(materialize, idx, plan=decided(idx))
    assert (dict(s.ops), s.added, s.results) == ({}, (), ())


def test_a_derived_configmap_edited_by_hand_is_regenerated_in_place():
    first = index(workspace("a", annotation="true"))
    name = decided(first).decisions[0].target
    edited = _derived_doc(name, None).replace("speculative-config", "speculative-config-x")
    idx = index(workspace("a", annotation="true", config=name), edited)
    plan = decided(idx)
    s = run(materialize, idx, plan=plan)
    assert list(s.ops) == [1] and s.added == ()
    assert comparable(Plan().then(s).data_of(idx.items[1])) == plan.decisions[0].configmap
    assert messages(s) == [("SD315", "warning", f'derived ConfigMap "{name}" differs from what its source gives '
                                                "(edited by hand?): regenerated; edit its source ConfigMap instead")]


def test_a_configmap_of_the_derived_name_that_is_not_derived_is_an_error():
    name = decided(index(workspace("a", annotation="true"))).decisions[0].target
    idx = index(workspace("a", annotation="true"), configmap(name))
    s = run(materialize, idx, plan=decided(idx))
    assert messages(s) == [("SD313", "error", f'ConfigMap "{name}" exists and is not one this function derived; '
                                              "rename it")]
    assert s.results[0].resource.kind == "ConfigMap"


def test_a_configmap_of_the_derived_name_with_another_apiversion_is_an_error():
    name = decided(index(workspace("a", annotation="true"))).decisions[0].target
    idx = index(workspace("a", annotation="true"), configmap(name, api_version="v2"))
    s = run(materialize, idx, plan=decided(idx))
    assert s.added == ()
    assert messages(s) == [("SD312", "error", f'ConfigMap "{name}" is in the input with apiVersion "v2", not v1: a '
                                              "derived ConfigMap of that name would be the same object; set apiVersion "
                                              "v1, or delete it to regenerate it")]


def test_a_derived_configmap_that_cannot_be_built_is_an_error_on_its_source():
    idx = index(workspace("a", annotation="true", config="cfg"), configmap("cfg"))
    plan = decided(idx)
    d = plan.decisions[0]
    broken = Inject(d.workload, d.path, d.current, d.source_name, d.source, d.via_derived, json=d.json,
                    method=d.method, why=d.why, configmap=None, problem="cannot edit it")
    s = run(materialize, idx, plan=Plan().then(step(decisions=[broken])))
    assert (dict(s.ops), s.added) == ({}, ())
    assert messages(s) == [("SD311", "error", 'ConfigMap "cfg": cannot edit it')]
    assert (s.results[0].resource.kind, s.results[0].field_path) == ("ConfigMap", "data[inference_config.yaml]")


def test_an_override_through_a_derived_configmap_points_the_reference_back():
    idx = index(workspace("a", annotation="true", config="cfg-specdec-0123456789"),
                configmap("cfg", "vllm:\n  speculative-config: '{}'\n"),
                configmap("cfg-specdec-0123456789", annotations={DERIVED_ANN: "true", SOURCE: "cfg"}))
    s = run(materialize, idx, plan=decided(idx))
    assert dict(s.ops) == {0: ({"op": "add", "path": "/inference/config", "value": "cfg"},)}


def test_ops_for_two_roles_of_one_workload_follow_each_other():
    idx = index(mri("m", annotations={"kaito.sh/enable-speculative-decoding": "true"}))
    s = run(materialize, idx, plan=decided(idx))
    name = s.added[0].data["metadata"]["name"]
    assert dict(s.ops) == {0: ({"op": "add", "path": "/spec/roles/0/runtimeConfig", "value": name},
                               {"op": "add", "path": "/spec/roles/1/runtimeConfig", "value": name})}


# --- revert ---------------------------------------------------------------------------------------

def test_a_disabled_workload_goes_back_to_the_source_of_its_derived_configmap():
    idx = index(workspace("a", annotation="false", config="cfg-specdec-0123456789"), configmap("cfg"),
                configmap("cfg-specdec-0123456789", annotations={DERIVED_ANN: "true", SOURCE: "cfg"}))
    s = run(revert, idx)
    assert dict(s.ops) == {0: ({"op": "add", "path": "/inference/config", "value": "cfg"},)}
    assert messages(s) == [("SD322", "info", 'speculative decoding is disabled: reference restored to ConfigMap "cfg"')]
    assert s.results[0].change and s.results[0].proposed_value == "cfg"


def test_a_disabled_workload_whose_derived_configmap_came_from_nothing_loses_the_reference():
    idx = index(workspace("a", config="specdec-ngram-0123456789"))
    s = run(revert, idx)
    assert dict(s.ops) == {0: ({"op": "remove", "path": "/inference/config"},)}
    assert messages(s) == [("SD323", "info", "speculative decoding is disabled: derived ConfigMap reference removed")]


def test_a_disabled_workload_whose_derived_configmap_and_source_are_both_gone_is_left_alone():
    idx = index(workspace("a", config="cfg-specdec-0123456789"))
    s = run(revert, idx)
    assert dict(s.ops) == {}
    assert messages(s) == [("SD321", "warning", 'speculative decoding is disabled, but the derived ConfigMap '
                                                '"cfg-specdec-0123456789" and its source "cfg" are not in the input: '
                                                "set the reference by hand")]


def test_revert_reads_the_annotation_as_the_cascade_left_it():
    """A Workspace whose InferenceSet disables it is reverted though its own file still says "true"."""
    idx = index(workspace("a", annotation="true", config="specdec-ngram-0123456789"))
    cascaded = Plan().then(step(ops={0: [{"op": "add", "path": "/metadata/annotations/kaito.sh~1enable-speculative-decoding",
                                          "value": "false"}]}))
    assert run(revert, idx).ops == {}
    assert list(run(revert, idx, plan=cascaded).ops) == [0]


def test_enabled_workloads_and_plain_references_are_not_reverted():
    assert run(revert, index(workspace("a", annotation="true", config="specdec-ngram-0123456789"))).results == ()
    assert run(revert, index(workspace("a", config="cfg"), configmap("cfg"))).results == ()


# --- retire ---------------------------------------------------------------------------------------

def _orphan(name="specdec-ngram-0123456789"):
    return configmap(name, annotations={DERIVED_ANN: "true"})


def test_a_derived_configmap_no_workload_references_is_dropped():
    idx = index(workspace("a"), _orphan())
    s = run(retire, idx)
    assert s.removed == frozenset({1})
    assert messages(s) == [("SD332", "info", "derived ConfigMap no workload references any more: dropped")]
    assert s.results[0].change


def test_a_derived_configmap_another_object_mentions_is_kept():
    pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  volumes:\n  - configMap: {name: specdec-ngram-0123456789}\n"
    s = run(retire, index(_orphan(), pod))
    assert s.removed == frozenset()
    assert messages(s) == [("SD331", "info", 'derived ConfigMap kept: Pod "p" mentions it at spec.volumes[0].configMap.name')]
    assert not s.results[0].change  # nothing changes, in any mode


def test_retire_reads_the_references_as_planned():
    idx = index(workspace("a", config="specdec-ngram-0123456789"), _orphan())
    assert run(retire, idx).removed == frozenset()
    repointed = Plan().then(step(ops={0: [{"op": "remove", "path": "/inference/config"}]}))
    assert run(retire, idx, plan=repointed).removed == frozenset({1})


def test_a_retired_item_loses_the_ops_planned_for_it():
    idx = index(workspace("a"), _orphan())
    earlier = Plan().then(step(ops={1: [{"op": "add", "path": "/data/x", "value": "y"}]}))
    folded = earlier.then(run(retire, idx, plan=earlier))
    assert (dict(folded.ops), folded.removed) == ({}, frozenset({1}))


def test_a_derived_configmap_in_the_input_that_cannot_be_read_is_an_error():
    name = decided(index(workspace("a", annotation="true"))).decisions[0].target
    unreadable = configmap(name, None, annotations={DERIVED_ANN: "true"}).replace("data: {}", "data: {[a, b]: c}")
    idx = index(workspace("a", annotation="true", config=name), unreadable)
    s = run(materialize, idx, plan=decided(idx))
    assert [(i, sev) for i, sev, _ in messages(s)] == [("SD314", "error")]
    assert s.results[0].message.startswith(f'derived ConfigMap "{name}" cannot be read: ')
    assert s.results[0].message.endswith("; delete it to regenerate it")


def test_new_files_never_collide_with_paths_in_use():
    from krm_fn.domain.derived import with_location
    cm = {"metadata": {"name": "x", "namespace": "ns", "annotations": {}}}
    served = {"internal.config.kubernetes.io/path": "apps/w.yaml"}
    taken = {"apps/x.yaml", "apps/ns_x.yaml", "apps/x-2.yaml"}
    placed = with_location(cm, served, taken)
    assert placed["metadata"]["annotations"]["internal.config.kubernetes.io/path"] == "apps/x-3.yaml"
    assert "apps/x-3.yaml" in taken and cm["metadata"]["annotations"] == {}


def test_content_with_lists_and_non_string_keys_hashes():
    from krm_fn.domain.derived import content_hash
    assert content_hash({"data": {"a": [{1: "x"}]}}) == content_hash({"data": {"a": [{"1": "x"}]}})
    assert content_hash({"data": {"a": [1]}}) != content_hash({"data": {"a": [2]}})


def test_the_content_hash_is_sha256_of_the_canonical_json():
    """The first ten hex digits of the SHA-256 of the canonical JSON (sorted keys, no blanks, UTF-8), and the
    digest of this content as it has always been: every name ever derived stays the same."""
    import hashlib
    import json as json_

    from krm_fn.domain.derived import content_hash
    content = {"data": {"inference_config.yaml": "vllm:\n  speculative-config: '{\"method\": \"ngram\"}'\n", "é": "ü"}}
    canonical = json_.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert content_hash(content) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10] == "c2d9c6236c"


def _big_source(data_bytes: int) -> str:
    """A ConfigMap `cfg` whose inference_config.yaml is `data_bytes` bytes: vllm settings and a comment to fill."""
    head = "vllm:\n  max-model-len: 4096\n"
    return configmap("cfg", head + "#" + "x" * (data_bytes - len(head) - 2) + "\n")


def test_a_derived_configmap_over_the_api_servers_limit_is_an_error_naming_its_size():
    """ValidateConfigMap (kubernetes pkg/apis/core/validation/validation.go) sums the data values' bytes and
    refuses over core.MaxSecretSize, 1 MiB: a source just under it is valid, its copy with the config is not."""
    idx = index(workspace("a", annotation="true", config="cfg"), _big_source(1048536))
    s = run(materialize, idx, plan=decided(idx))
    ((id, severity, message),) = messages(s)
    assert (id, severity, dict(s.ops), s.added) == ("SD316", "error", {}, ())
    assert message.startswith('the derived ConfigMap "cfg-specdec-') and ", over the 1048576 the API server" in message
    size = int(message.split(" would hold ", 1)[1].split(" bytes", 1)[0])
    assert 1048576 < size < 1048536 + 200
    assert (s.results[0].resource.kind, s.results[0].resource.name) == ("ConfigMap", "cfg")


def test_a_derived_configmap_within_the_limit_is_written():
    idx = index(workspace("a", annotation="true", config="cfg"), _big_source(1048576 - 400))
    s = run(materialize, idx, plan=decided(idx))
    assert messages(s) == [] and len(s.added) == 1


def test_the_size_is_counted_as_the_api_server_counts_it():
    from krm_fn.domain.derived import data_bytes
    assert data_bytes({"data": {"a": "é", "b": "xy"}, "binaryData": {"c": "AAECAw=="}}) == 2 + 2 + 4  # é is two bytes in UTF-8; the binary value four decoded
    assert data_bytes({"metadata": {"name": "x" * 9999}}) == 0  # names and keys do not count
