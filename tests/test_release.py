"""The release workflow builds and publishes what the README says a release produces: on a `v*` tag, the
wheel and both Dockerfile targets under the image names the examples use, and the digests it pushed."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps() -> list[dict]:
    (job,) = _workflow()["jobs"].values()
    return job["steps"]


def test_runs_on_a_version_tag_only() -> None:
    on = _workflow()[True]  # PyYAML reads the key `on` as a boolean
    assert list(on) == ["push"] and on["push"] == {"tags": ["v*.*.*"]}
    text = WORKFLOW.read_text(encoding="utf-8")
    assert 'version="${GITHUB_REF_NAME#v}"' in text and "pyproject.toml" in text, "the tag must be the version"


def test_builds_both_images_under_the_documented_names() -> None:
    env = _workflow()["env"]
    builds = [s for s in _steps() if str(s.get("uses", "")).startswith("docker/build-push-action@")]
    targets = {s["with"]["target"]: s["with"]["tags"] for s in builds}
    assert set(targets) == {"function", "argocd-cmp"}
    assert targets["function"].startswith("${{ env.FUNCTION_IMAGE }}:")
    assert targets["argocd-cmp"].startswith("${{ env.SIDECAR_IMAGE }}:")
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for target in targets:
        assert re.search(rf"^FROM \S+ AS {re.escape(target)}$", dockerfile, re.M), target
    for name in (env["FUNCTION_IMAGE"], env["SIDECAR_IMAGE"]):
        assert f"`{name}:X.Y.Z`" in README, name
        # the README's build commands name the same image, at pyproject.toml's version
        version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
        assert f"-t {name}:{version.group(1)} ." in README, name
    assert all(s["with"]["push"] is True and "linux/arm64" in s["with"]["platforms"] for s in builds)


def test_records_the_digests_and_publishes_the_wheel() -> None:
    steps = {s.get("name", ""): s for s in _steps()}
    record = steps["Record the digests"]
    assert record["env"] == {"FUNCTION_DIGEST": "${{ steps.function.outputs.digest }}",
                             "SIDECAR_DIGEST": "${{ steps.sidecar.outputs.digest }}"}
    assert "digests.txt" in record["run"] and "sha256sum kaito_specdec-*.whl" in record["run"]
    ids = {s.get("id") for s in _steps()}
    assert {"function", "sidecar"} <= ids
    publish = steps["Publish the GitHub release"]["run"]
    assert "dist/kaito_specdec-*.whl digests.txt" in publish
    wheel = steps["Build the wheel (pinned build backend, as the image build does)"]["run"]
    assert "--require-hashes" in wheel and "requirements/build.txt" in wheel
    assert "`kaito_specdec-X.Y.Z-py3-none-any.whl`" in README and "`digests.txt`" in README
    assert "What a release produces" in README


def test_the_release_runs_the_suite_first() -> None:
    names = [s.get("name", "") for s in _steps()]
    runs = [s.get("run", "") for s in _steps()]
    assert ".ci/run" in runs
    assert runs.index(".ci/run") < names.index("Build and push the function image")
