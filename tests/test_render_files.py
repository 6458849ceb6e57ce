"""`render` on files and folders (issue 10, item 10): symlinks, FIFOs, devices, unreadable folders; and the
input size cap (both modes)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runner import run

NS = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: outside\nstringData:\n  password: hunter2\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """pkg/ with a file and a subfolder; outside/ next to it holds a Secret."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.yaml").write_text(NS.format("a"))
    (pkg / "sub" / "b.yaml").write_text(NS.format("b"))
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(SECRET)
    return pkg


def test_render_folder_reads_nested_files(tree):
    code, out, err = run(["render", str(tree)])
    assert (code, err) == (0, "")
    assert out == "---\n" + NS.format("a") + "---\n" + NS.format("b")


def test_unreadable_subfolder_fails(tree, monkeypatch):
    """Root reads every folder, so the refusal is simulated where the walk lists a folder."""
    real = os.scandir

    def scandir(path):
        if str(path) == str(tree / "sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run(["render", str(tree)])
    assert (code, out) == (2, "")
    assert err == f"[error] {tree / 'sub'}: cannot read the folder: Permission denied; its manifests would be " \
                  "missing [SD515]\n"


def _without_dac_override() -> list[str]:
    """A prefix that runs a command as this user minus the capabilities that let root read any folder
    (CI runs as root); nothing when not root, or [] plus a skip reason when it cannot be done."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and util-linux's setpriv is missing: root would read the folder anyway")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


def test_unreadable_subfolder_fails_for_real(tree):
    """A real process, a real mode-000 folder (as root: without the capabilities that bypass it)."""
    prefix = _without_dac_override()
    (tree / "sub").chmod(0)
    try:
        proc = subprocess.run(prefix + [sys.executable, "-m", "krm_fn", "render", str(tree)],
                              capture_output=True, text=True, timeout=60)
    finally:
        (tree / "sub").chmod(0o755)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"[error] {tree / 'sub'}: cannot read the folder: Permission denied; its manifests " \
                          "would be missing [SD515]\n"


def test_symlink_out_of_the_folder_is_not_followed(tree):
    (tree / "link.yaml").symlink_to(tree.parent / "outside" / "secret.yaml")
    code, out, err = run(["render", str(tree)])
    assert (code, out) == (2, "")
    assert "hunter2" not in out
    assert err.startswith(f"[error] {tree / 'link.yaml'}: a symlink to {tree.parent / 'outside' / 'secret.yaml'}, "
                          "outside the folders given; not followed")


@pytest.mark.parametrize("name, target", [("shared", "../outside"), ("up", ".."), ("root", "/"),
                                          ("shared.yaml", "../outside")])
def test_symlinked_folder_out_of_the_folder_is_skipped(tree, name, target):
    """Symlinked folders are never descended into, so one pointing out of the folders given (a `up -> ..`
    many repositories have) is skipped like any other: it does not fail the run (issue 19)."""
    (tree / name).symlink_to(target)
    code, out, err = run(["render", str(tree)])
    assert (code, err) == (0, "")
    assert out == "---\n" + NS.format("a") + "---\n" + NS.format("b")  # nothing from outside/ (its Secret)


def test_symlink_to_a_folder_given_is_followed(tree):
    """Inside the folders given, a symlink is fine, and a file reached twice is read once."""
    (tree / "again.yaml").symlink_to(tree / "a.yaml")
    (tree / "link.yaml").symlink_to(tree.parent / "outside" / "secret.yaml")
    code, out, err = run(["render", str(tree), str(tree.parent / "outside")])
    assert (code, err) == (0, "")
    assert out.count("kind: Namespace") == 2 and out.count("kind: Secret") == 1


def test_a_file_named_on_the_command_line_may_be_a_symlink(tree):
    (tree.parent / "direct.yaml").symlink_to(tree.parent / "outside" / "secret.yaml")
    code, out, _ = run(["render", str(tree.parent / "direct.yaml")])
    assert code == 0 and "kind: Secret" in out


def test_fifo_in_a_folder_does_not_hang(tree):
    os.mkfifo(tree / "pipe.yaml")
    proc = subprocess.run([sys.executable, "-m", "krm_fn", "render", str(tree)], capture_output=True,
                          text=True, timeout=30, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"[error] {tree / 'pipe.yaml'}: a FIFO, not a regular file; render reads regular files " \
                          "and folders only (use - for stdin) [SD514]\n"


def test_dev_zero_is_refused_at_once():
    proc = subprocess.run([sys.executable, "-m", "krm_fn", "render", "/dev/zero"], capture_output=True,
                          text=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "[error] /dev/zero: a character device, not a regular file; render reads regular " \
                          "files and folders only (use - for stdin) [SD514]\n"


# --- the input size cap ---------------------------------------------------------------------------------

BIG = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  k: " + "x" * 3000 + "\n").encode()
RL = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n# " + b"x" * 3000 + b"\n"


def test_render_file_over_the_cap(tmp_path):
    (tmp_path / "big.yaml").write_bytes(BIG)
    code, out, err = run(["render", str(tmp_path)], env={"KAITO_SPECDEC_MAX_INPUT": "2Ki"})
    assert (code, out) == (2, "")
    assert err == f"[error] {tmp_path / 'big.yaml'}: the input is larger than the limit of 2Ki; raise it with " \
                  "KAITO_SPECDEC_MAX_INPUT (e.g. 1Gi) or `render --max-input` if that much is expected [SD512]\n"
    # the flag wins over the environment
    code, out, err = run(["render", "--max-input", "4Ki", str(tmp_path)], env={"KAITO_SPECDEC_MAX_INPUT": "2Ki"})
    assert (code, err) == (0, "") and "name: big" in out


def test_render_cap_counts_all_files_together(tmp_path):
    for n in range(3):
        (tmp_path / f"{n}.yaml").write_bytes(BIG.replace(b"name: big", f"name: big{n}".encode()))
    code, out, err = run(["render", "--max-input", "8Ki", str(tmp_path)])
    assert (code, out) == (2, "") and f"{tmp_path / '2.yaml'}: the input is larger than the limit of 8Ki" in err


@pytest.mark.parametrize("env", [{"KAITO_SPECDEC_MAX_INPUT": "2Ki"}, {"ARGOCD_ENV_KAITO_SPECDEC_MAX_INPUT": "2048"}])
def test_krm_mode_stdin_over_the_cap(env):
    code, out, err = run([], RL, env=env)
    assert (code, out) == (2, "")
    assert err.startswith("[error] stdin: the input is larger than the limit of 2Ki; raise it with ")
    code, out, err = run([], RL, env={"KAITO_SPECDEC_MAX_INPUT": "4Ki"})
    assert (code, err) == (0, "") and out == RL.decode()


@pytest.mark.parametrize("value", ["lots", "0", "12Mb", "-1"])
def test_bad_cap_value(value):
    code, out, err = run([], RL, env={"KAITO_SPECDEC_MAX_INPUT": value})
    assert (code, out) == (2, "")
    assert err == f"[error] environment variable KAITO_SPECDEC_MAX_INPUT: invalid size {value!r}; expected a " \
                  "positive number of bytes, optionally with Ki, Mi or Gi (e.g. 512Mi) [SD021]\n"


def test_default_cap_is_256_mebibytes():
    from krm_fn.model.config import DEFAULT_MAX_INPUT, max_input
    assert DEFAULT_MAX_INPUT == max_input({}) == 256 * 1024 * 1024


def test_broken_symlink_is_named(tree):
    (tree / "gone.yaml").symlink_to(tree / "nowhere.yaml")
    code, out, err = run(["render", str(tree)])
    assert (code, out) == (2, "")
    assert err == f"[error] {tree / 'gone.yaml'}: a broken symlink (to {tree / 'nowhere.yaml'}); remove it or " \
                  "restore its target [SD516]\n"


def test_symlinked_folder_inside_is_not_descended_twice(tree):
    (tree / "loop").symlink_to(tree)
    code, out, err = run(["render", str(tree)])
    assert (code, err) == (0, "")
    assert out == "---\n" + NS.format("a") + "---\n" + NS.format("b")


@pytest.mark.parametrize("value", ["", " ", "0", "1.5Mi", "²", "٣Mi", "1" * 5000],  # ASCII digits, int() can read
                         ids=["empty", "blank", "zero", "fraction", "superscript-two", "arabic-indic", "5000-digits"])
def test_bad_max_input_option_is_refused_not_ignored(tmp_path, value):
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    code, out, err = run(["render", "--max-input", value, str(tmp_path)])
    assert (code, out) == (2, "")
    assert err == f"[error] --max-input: invalid size {value!r}; expected a positive number of bytes, " \
                  "optionally with Ki, Mi or Gi (e.g. 512Mi) [SD021]\n"


def test_a_file_name_cannot_forge_a_stderr_line(tmp_path):
    """A newline in a file name under `render DIR` stays in the one line of its finding (issue 19)."""
    (tmp_path / "x\n[error] FORGED.yaml").write_text(
        "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n  annotations:\n"
        "    kaito.sh/enable-speculative-decoding: \"maybe\"\ninference:\n  preset:\n    name: phi-4\n")
    code, out, err = run(["render", str(tmp_path)])
    assert (code, out) == (1, "")
    assert err == f"{tmp_path}/x\\n[error] FORGED.yaml:6: [error] kaito.sh/v1beta1/Workspace/w metadata.annotations" \
                  "[kaito.sh/enable-speculative-decoding]: annotation kaito.sh/enable-speculative-decoding has " \
                  'invalid value "maybe"; expected "true" or "false" [SD101]\n'


def test_the_same_object_in_two_folders_is_a_copy_per_cluster_in_validate_mode_and_a_loss_in_one_stream(tmp_path):
    # A GitOps repository's per-cluster folders (fluxcd/flux2-kustomize-helm-example: clusters/staging/apps.yaml
    # and clusters/production/apps.yaml, the same Flux Kustomization each): validated, nothing is merged, so no
    # SD008; written as one stream, one of them would be lost. In one folder it is a duplicate either way.
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apps\n  namespace: flux-system\ndata: {}\n"
    for folder in ("staging", "production"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "apps.yaml").write_text(doc, encoding="utf-8")
    code, _, err = run(["render", "--mode", "validate", "--no-kustomize", str(tmp_path)])
    assert code == 0 and "[SD008]" not in err, err
    code, _, err = run(["render", "--no-kustomize", str(tmp_path)])
    assert "[SD008]" in err, err
    (tmp_path / "staging" / "again.yaml").write_text(doc, encoding="utf-8")
    code, _, err = run(["render", "--mode", "validate", "--no-kustomize", str(tmp_path)])
    assert err.count("[SD008]") == 1 and "staging/again.yaml" in err, err
