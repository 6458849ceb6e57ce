"""The plain-workload stages (issue #12): what the index reads, plain_opt_in's errors before the gate,
plain_vllm's ops and placed findings. The pure parts are table-tested in tests/domain/test_plain_workloads.py."""
from __future__ import annotations

from krm_fn.model.changes import Plan
from krm_fn.model.config import Settings, settings_from
from krm_fn.stages.plain_vllm import plain_opt_in, plain_vllm
from stages.stagekit import index

MTP = '{"method":"mtp","num_speculative_tokens":1}'


def deployment(name: str = "llm", annotation: str | None = '"true"', template_annotation: str | None = None,
               containers: str = '      - {name: vllm, command: [vllm, serve, Qwen/Qwen3.5-4B]}\n',
               api: str = "apps/v1") -> str:
    own = f"  annotations:\n    kaito.sh/enable-speculative-decoding: {annotation}\n" if annotation else ""
    tpl = (f"    metadata:\n      annotations:\n        kaito.sh/enable-speculative-decoding: {template_annotation}\n"
           if template_annotation else "")
    return (f"apiVersion: {api}\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: ns\n{own}spec:\n"
            f"  template:\n{tpl}    spec:\n      containers:\n{containers}")


DEFAULT = Settings()


def _results(stage, *docs: str, settings: Settings = DEFAULT) -> list[tuple[str, str, str]]:
    step = stage(index(*docs), settings, Plan())
    return [(r.id, r.severity.value, r.field_path) for r in step.results]


def test_the_index_reads_plain_workloads_that_can_opt_in_and_only_those():
    idx = index(deployment("a"), deployment("b", annotation=None), deployment("c", api="extensions/v1beta1"))
    assert [w.item.name for w in idx.plain] == ["a"]
    assert [item.name for item, _ in idx.plain_other_versions] == ["c"]
    assert idx.workloads == []   # not KAITO workloads


def test_an_invalid_value_is_kaitos_error_at_the_field_it_was_read_from():
    assert _results(plain_opt_in, deployment(annotation=None, template_annotation='"yes"')) == [
        ("SD101", "error", "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]")]
    assert _results(plain_opt_in, deployment(annotation="on")) == [
        ("SD102", "error", "metadata.annotations[kaito.sh/enable-speculative-decoding]")]
    assert _results(plain_opt_in, deployment(annotation='"true"', template_annotation='"false"')) == [
        ("SD720", "error", "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]")]
    assert _results(plain_opt_in, deployment(), deployment("b", annotation='"false"')) == []


def test_shapes_are_checked_only_where_the_function_would_act():
    bad = "      - just-a-string\n"
    assert _results(plain_opt_in, deployment(containers=bad)) == [
        ("SD728", "error", "spec.template.spec.containers[0]")]
    assert _results(plain_opt_in, deployment(annotation='"false"', containers=bad)) == []


def test_plain_vllm_plans_ops_for_the_item_and_places_findings_with_absolute_fields():
    idx = index(deployment("a"), deployment("b", annotation=None))
    step = plain_vllm(idx, Settings(), Plan())
    assert list(step.ops) == [idx.plain[0].item.index]
    ops = step.ops[idx.plain[0].item.index]
    assert {"op": "add", "path": "/spec/template/spec/containers/0/command/3",
            "value": "--speculative-config=" + MTP} in ops
    # The container names no image: SD735 says the default release is assumed, at the container.
    assert [(r.id, r.field_path, r.resource.name, r.change) for r in step.results] == [
        ("SD735", "spec.template.spec.containers[0]", "a", False),
        ("SD701", "spec.template.spec.containers[0].command", "a", True)]


def test_the_tuned_table_of_the_settings_is_used():
    tuned = {"qwen/qwen3.5-4b": {"method": "mtp", "num_speculative_tokens": 2}}
    settings = Settings(presets=Settings().presets.extended(tuned, None))
    step = plain_vllm(index(deployment()), settings, Plan())
    assert any('"num_speculative_tokens":2' in str(op.get("value")) for ops in step.ops.values() for op in ops)


def test_a_plain_workload_goes_by_its_image_not_by_the_kaito_release():
    """kaitoVersion v0.10.0 decides the vLLM of KAITO's image (0.17.1, no ngram_gpu), not a plain workload's:
    a versioned tag names its release, and an image that names none is judged by the default, with SD735."""
    own = ('      - {name: vllm, image: IMAGE, command: [vllm, serve, Qwen/Qwen3.5-4B, '
           '"--speculative-config={\\"method\\":\\"ngram_gpu\\",\\"num_speculative_tokens\\":5}"]}\n')
    settings = settings_from({"kaitoVersion": "v0.10.0"})
    assert [r[0] for r in _results(plain_vllm, deployment(containers=own.replace("IMAGE", "vllm/vllm-openai:latest")),
                                   settings=settings)] == ["SD735", "SD703"]
    pinned = _results(plain_vllm, deployment(containers=own.replace("IMAGE", "vllm/vllm-openai:v0.17.1")),
                      settings=settings)
    assert [r[0] for r in pinned] == ["SD703", "SD604"]
