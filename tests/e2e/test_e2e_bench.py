"""The benchmark with the real kpt: a smoke round (tiny sizes, one repeat; no timing assertions) has
figures in the kpt columns, and the ResourceList the benchmark feeds the function is the one `kpt fn
source` writes for the same package, byte for byte."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import generate  # noqa: E402
from test_bench import check_output, check_tables, smoke_run  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("kpt") is None, reason="kpt is not installed")


def test_a_round_with_kpt_has_every_column(tmp_path):
    proc = smoke_run(tmp_path)
    check_tables(proc, kpt=True)
    check_output(tmp_path)


def test_the_generated_resource_list_is_what_kpt_fn_source_writes(tmp_path):
    """The function is timed on the text kpt hands it, not on an approximation of it."""
    layout = generate.files(23, orphans=2)
    generate.write_package(tmp_path / "pkg", layout)
    kpt = subprocess.run(["kpt", "fn", "source", str(tmp_path / "pkg")], capture_output=True, text=True, check=True)
    assert generate.resource_list(layout) == kpt.stdout
