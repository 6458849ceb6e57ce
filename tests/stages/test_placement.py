"""The placement, the plan's last step: warnings about where the output lands, on the final changes."""
from __future__ import annotations


from krm_fn.stages import placement
from krm_fn.plan import plan

from stages.stagekit import SETTINGS, items, workspace

KUSTOMIZATION = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n"
                 "  name: k\n  annotations:\n    internal.config.kubernetes.io/path: kustomization.yaml\n"
                 "resources:\n- workspace.yaml\n")
ENABLED = workspace("w", annotation="true").replace(
    "  namespace: ns\n", "  namespace: ns\n  annotations:\n    internal.config.kubernetes.io/path: workspace.yaml\n", 1
).replace("  annotations:\n    internal.config.kubernetes.io/path: workspace.yaml\n  annotations:\n",
          "  annotations:\n    internal.config.kubernetes.io/path: workspace.yaml\n")


def _ids(results) -> list[str]:
    return [r.id for r in results]


def test_kpt_files_warns_of_a_derived_file_the_kustomization_does_not_list():
    changes, results = plan(items(KUSTOMIZATION, ENABLED), SETTINGS, placement.kpt_files)
    assert changes.added and _ids(results)[-1] == "SD050"
    assert "does not list" in results[-1].message


def test_disable_turns_the_placement_warning_off_too():
    _, results = plan(items(KUSTOMIZATION, ENABLED), SETTINGS._replace(disable=frozenset({"SD050"})), placement.kpt_files)
    assert "SD050" not in _ids(results)


def test_render_stream_warns_that_a_kustomization_is_not_built_and_no_placement_warns_of_nothing():
    _, results = plan(items(KUSTOMIZATION, ENABLED), SETTINGS, placement.render_stream)
    assert _ids(results)[-1] == "SD501" and "SD050" not in _ids(results)
    _, results = plan(items(KUSTOMIZATION, ENABLED), SETTINGS)
    assert not {"SD050", "SD501"} & set(_ids(results))


def test_after_errors_nothing_is_written_so_no_file_is_unlisted():
    broken = ENABLED.replace('kaito.sh/enable-speculative-decoding: "true"', 'kaito.sh/enable-speculative-decoding: "yes"')
    changes, results = plan(items(KUSTOMIZATION, broken), SETTINGS, placement.kpt_files)
    assert changes.empty and "SD050" not in _ids(results) and "SD101" in _ids(results)
