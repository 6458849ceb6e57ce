"""The `disable` setting: which ids it takes, from where, and what a finding turned off does."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from krm_fn import findings
from krm_fn.cli import main
from krm_fn.model.config import ConfigError, resolve_settings
from runner import without_summary

KNOWN = {id: findings.can_disable(id) for id in [*findings.CATALOGUE, *findings.RETIRED]}


def _cm(disable) -> dict:
    return {"kind": "ConfigMap", "data": {"disable": disable}}


@pytest.mark.parametrize("value, ids", [
    ("SD112", {"SD112"}),
    (" SD112 , SD008,", {"SD112", "SD008"}),  # blanks around commas, an empty entry
    ("", set()),
    ("SD112,SD112", {"SD112"}),
])
def test_a_functionconfig_string_is_parsed(value: str, ids: set) -> None:
    assert resolve_settings(_cm(value), {}).disable == frozenset(ids)


def test_a_policy_may_give_a_list() -> None:
    policy = {"kind": "SpeculativeDecodingPolicy", "spec": {"disable": ["SD112", "SD050"]}}
    assert resolve_settings(policy, {}).disable == {"SD112", "SD050"}


def test_the_default_is_nothing_disabled() -> None:
    assert resolve_settings(None, {}).disable == frozenset()


@pytest.mark.parametrize("env", ["KAITO_SPECDEC_DISABLE", "ARGOCD_ENV_KAITO_SPECDEC_DISABLE"])
def test_the_environment_sets_it(env: str) -> None:
    assert resolve_settings(None, {env: "SD008"}).disable == {"SD008"}


@pytest.mark.parametrize("value, id, words", [
    ("sd112", "SD021", 'disable: malformed finding id "sd112"; an id is SD and three digits, such as SD112'),
    ("SD112;SD008", "SD021", 'disable: malformed finding id "SD112;SD008"'),
    ("SD199", "SD021", "disable: unknown finding id SD199; `kaito-specdec findings` lists every id"),
    ("SD112, SD003", "SD041", "disable: SD003 cannot be turned off: it reports input or settings the function cannot process or write safely; fix what it names instead"),
    ("SD020", "SD041", "disable: SD020 cannot be turned off"),
    (5, "SD021", 'disable: expected finding ids separated by commas, such as "SD112, SD008", got 5'),
    (["SD112", 5], "SD021", "disable: expected finding ids separated by commas"),
])
def test_a_bad_id_is_a_config_error_naming_it(value, id: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        resolve_settings(_cm(value), {})
    assert err.value.id == id and str(err.value).startswith("invalid functionConfig: " + words), str(err.value)
    assert err.value.field == "functionConfig.data.disable"


def test_an_environment_typo_names_the_variable() -> None:
    with pytest.raises(ConfigError) as err:
        resolve_settings(None, {"KAITO_SPECDEC_DISABLE": "SD999"})
    assert str(err.value).startswith("environment variable KAITO_SPECDEC_DISABLE (or ARGOCD_ENV_KAITO_SPECDEC_DISABLE): "
                                     "disable: unknown finding id SD999")


def test_an_id_the_catalogue_does_not_have_is_refused() -> None:
    """A typo never silently turns off nothing."""
    with pytest.raises(ConfigError, match="unknown finding id SD999"):
        resolve_settings(_cm("SD999"), {})


def test_every_id_of_the_catalogue_is_accepted_or_refused_as_declared() -> None:
    for id, can in KNOWN.items():
        if can:
            assert resolve_settings(_cm(id), {}).disable == {id}
        else:
            with pytest.raises(ConfigError, match=f"{id} cannot be turned off"):
                resolve_settings(_cm(id), {})


# --- render --disable ---------------------------------------------------------------------------------------

def _render(argv: list[str], env: dict | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["render", "--no-kustomize", *argv], stdin=io.BytesIO(b""), stdout=out, stderr=err,
                environ=env or {})
    return code, out.getvalue(), without_summary(err.getvalue())


@pytest.fixture
def kustomize_folder(tmp_path: Path) -> Path:
    (tmp_path / "kustomization.yaml").write_text("resources:\n- ns.yaml\n", encoding="utf-8")
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n", encoding="utf-8")
    return tmp_path


def test_render_shows_the_id_a_warning_can_be_turned_off_by(kustomize_folder: Path) -> None:
    code, out, err = _render([str(kustomize_folder)])
    assert code == 0 and "kind: Namespace" in out
    assert err.count("\n") == 1 and err.rstrip("\n").endswith(" [SD501]"), err


def test_render_disable_turns_the_warning_off(kustomize_folder: Path) -> None:
    assert _render(["--disable", "SD501", str(kustomize_folder)])[::2] == (0, "")


def test_render_disable_replaces_the_environments_list(kustomize_folder: Path) -> None:
    """Like every setting, the flag wins over the environment: `--disable ""` reports everything again."""
    env = {"KAITO_SPECDEC_DISABLE": "SD501"}
    assert _render([str(kustomize_folder)], env)[2] == ""
    assert "[SD501]" in _render(["--disable", "", str(kustomize_folder)], env)[2]


def test_render_disable_unknown_id_fails_naming_it(kustomize_folder: Path) -> None:
    code, out, err = _render(["--disable", "SD501,SD5O1", str(kustomize_folder)])
    assert (code, out) == (2, "")
    assert err == '[error] render: disable: malformed finding id "SD5O1"; an id is SD and three digits, such as SD112 [SD021]\n'


def test_render_turns_an_admission_error_off_and_writes_the_workload(tmp_path: Path) -> None:
    (tmp_path / "ws.yaml").write_text(
        "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: falcon\n  annotations:\n"
        "    kaito.sh/enable-speculative-decoding: \"true\"\ninference:\n  preset:\n    name: falcon-7b\n",
        encoding="utf-8")
    code, out, err = _render([str(tmp_path)])
    assert (code, out) == (1, "") and err.rstrip("\n").endswith("Unsupported inference preset name falcon-7b [SD112]")
    code, out, err = _render(["--disable", "SD112", str(tmp_path)])
    assert code == 0 and "[error]" not in err and "[SD112]" not in err and "config: specdec-ngram-" in out


def test_the_same_object_twice_can_be_turned_off(tmp_path: Path) -> None:
    svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
    (tmp_path / "a.yaml").write_text(svc + "---\n" + svc, encoding="utf-8")
    code, out, err = _render([str(tmp_path)])
    assert code == 0 and err.rstrip("\n").endswith("one of them would be lost [SD008]"), err
    assert _render(["--disable", "SD008", str(tmp_path)]) == (0, out, "")
    # failOn: warning fails on it, unless it is turned off
    env = {"KAITO_SPECDEC_FAIL_ON": "warning"}
    assert _render([str(tmp_path)], env)[0] == 1
    assert _render(["--disable", "SD008", str(tmp_path)], env) == (0, out, "")


def test_a_run_reads_the_ids_from_the_catalogue_itself() -> None:
    assert findings.can_disable("SD050") is True and findings.can_disable("SD020") is False
    assert findings.can_disable("SD022") is False  # merged into SD021, which cannot be turned off
