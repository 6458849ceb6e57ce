"""Read KAITO's GPU SKU tables, model catalog and legacy preset names out of a KAITO source tree and write
krm_fn/domain/data/kaito_catalog.json, the tables krm_fn/domain/kaito_sizing.py and presets.py read.

What it reads (paths in kaito-project/kaito):
  pkg/sku/azure_sku_handler.go, aws_sku_handler.go, arc_sku_handker.go (sic): the `supportedSKUs` rows,
      `{SKU: "...", GPUCount: N, GPUMem: resource.MustParse("..."), ...}`, commented-out rows skipped;
      written as [cloud, instance type, GPU count, GPU memory of the node], in KAITO's order.
  presets/workspace/models/model_catalog.yaml: each model as [name, modelFileSize, hiddenSize,
      numHiddenLayers, numAttentionHeads, numKeyValueHeads, headDim, kvLoraRank, qkRopeHeadDim], in the
      catalog's order, the last three as the preset generator sees them (generator.go `loadFromCatalog`
      passes each on only when above 0, `calculateKVCacheTokenSize` defaults them): headDim 0 for none,
      kvLoraRank -1 for none, qkRopeHeadDim 0 for none; a missing integer field is 0 as Go's yaml leaves it.
  pkg/utils/plugin/plugin.go: `LegacyBuiltinToCatalog`, the legacy short preset names and the Hugging Face
      ids they stand for, in KAITO's order.

How to run it (offline; KAITO is a checkout or a bare git directory, read at COMMIT with `git show`):

  git clone --bare https://github.com/kaito-project/kaito /tmp/kaito.git
  python tools/kaito_catalog.py /tmp/kaito.git --commit v0.13.0          # writes the data file
  python tools/kaito_catalog.py /tmp/kaito.git --commit v0.13.0 --check  # 1 if the data file differs

A directory that is not a git repository (the tests' synthetic tree) is read as it is, and --commit is only
recorded. The data file records the commit read (the full hash where KAITO is a git repository).
What new rows mean for the function (a model whose sizing changes, goldens that move) is for the reviewer.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from vllm_verdicts import data_text, write_data  # noqa: E402,F401  (data_text(data, sort=False): the file's text)

DATA = ROOT / "krm_fn" / "domain" / "data" / "kaito_catalog.json"

SKU_FILES = (("azure", "pkg/sku/azure_sku_handler.go"), ("aws", "pkg/sku/aws_sku_handler.go"),
             ("arc", "pkg/sku/arc_sku_handker.go"))
CATALOG = "presets/workspace/models/model_catalog.yaml"
PLUGIN = "pkg/utils/plugin/plugin.go"

_SKU_ROW = re.compile(r'\{\s*SKU:\s*"([^"]+)",\s*GPUCount:\s*([0-9]+),\s*GPUMem:\s*resource\.MustParse\("([^"]+)"\)')
_LEGACY_MAP = re.compile(r"var\s+LegacyBuiltinToCatalog\s*=\s*map\[string\]string\{(.*?)\n\}", re.S)
_MAP_ENTRY = re.compile(r'^\s*"([^"]+)"\s*:\s*"([^"]+)",?\s*(?://.*)?$')


class Source:
    """A KAITO tree: a git repository read at a commit, or a plain directory read as it is."""

    def __init__(self, path: Path, commit: str) -> None:
        self.path = path
        self.git = (path / ".git").exists() or (path / "HEAD").is_file() and (path / "objects").is_dir()
        if self.git:
            probe = subprocess.run(["git", "-C", str(path), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                                   capture_output=True, text=True)
            if probe.returncode:
                raise SystemExit(f"{path}: no commit {commit!r} in this repository")
            commit = probe.stdout.strip()
        self.commit = commit

    def read(self, name: str) -> str:
        if self.git:
            return subprocess.run(["git", "-C", str(self.path), "show", f"{self.commit}:{name}"],
                                  capture_output=True, text=True, check=True).stdout
        return (self.path / name).read_text(encoding="utf-8")


def sku_rows(cloud: str, go_source: str) -> list[list[str | int]]:
    """[cloud, instance type, GPU count, GPU memory] of each GPUConfig row of a Go SKU handler, in order;
    rows in // comments are KAITO's unsupported SKUs and are skipped."""
    rows: list[list[str | int]] = []
    for line in go_source.splitlines():
        code = line.split("//", 1)[0]
        for m in _SKU_ROW.finditer(code):
            rows.append([cloud, m.group(1), int(m.group(2)), m.group(3)])
    return rows


def _int(entry: dict[str, Any], key: str) -> int:
    value = entry.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{entry.get('name')!r}: {key} is not an integer: {value!r}")
    return value


def model_rows(catalog_yaml: str) -> list[list[str | int]]:
    """The catalog's models as kaito_sizing.py's rows, in the catalog's order (see the module docstring)."""
    rows: list[list[str | int]] = []
    for entry in yaml.safe_load(catalog_yaml)["models"]:
        head_dim, kv_lora_rank, qk_rope = (_int(entry, k) for k in ("headDim", "kvLoraRank", "qkRopeHeadDim"))
        rows.append([str(entry["name"]), str(entry["modelFileSize"]), _int(entry, "hiddenSize"),
                     _int(entry, "numHiddenLayers"), _int(entry, "numAttentionHeads"),
                     _int(entry, "numKeyValueHeads"), head_dim if head_dim > 0 else 0,
                     kv_lora_rank if kv_lora_rank > 0 else -1, qk_rope if qk_rope > 0 else 0])
    return rows


def legacy_names(go_source: str) -> dict[str, str]:
    """`LegacyBuiltinToCatalog` of pkg/utils/plugin/plugin.go, in its order."""
    m = _LEGACY_MAP.search(go_source)
    if m is None:
        raise ValueError("no `var LegacyBuiltinToCatalog = map[string]string{` in " + PLUGIN)
    names: dict[str, str] = {}
    for line in m.group(1).splitlines():
        entry = _MAP_ENTRY.match(line)
        if entry:
            names[entry.group(1)] = entry.group(2)
        elif line.strip() and not line.strip().startswith("//"):
            raise ValueError(f"a line of LegacyBuiltinToCatalog not understood: {line.strip()!r}")
    return names


def catalog(source: Source) -> dict[str, Any]:
    return {
        "about": "KAITO's GPU SKU tables, model catalog and legacy preset names; generated by "
                 "tools/kaito_catalog.py, do not edit",
        "kaito_commit": source.commit,
        "skus": [row for cloud, name in SKU_FILES for row in sku_rows(cloud, source.read(name))],
        "models": model_rows(source.read(CATALOG)),
        "aliases": legacy_names(source.read(PLUGIN)),
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("kaito", type=Path, help="a KAITO checkout or bare git directory")
    p.add_argument("--commit", required=True, help="the commit (or tag) to read")
    p.add_argument("--out", type=Path, default=DATA, help=f"the data file (default {DATA.relative_to(ROOT)})")
    p.add_argument("--check", action="store_true", help="write nothing; 1 if the data file is not what KAITO gives")
    a = p.parse_args(argv)
    # KAITO's order kept: the rows and the keys as KAITO's source has them.
    return write_data(a.out, catalog(Source(a.kaito, a.commit)), check=a.check, sort=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
