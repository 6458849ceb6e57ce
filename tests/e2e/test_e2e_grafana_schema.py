"""The dashboard JSON against Grafana's dashboard schema, as the npm package @grafana/schema ships it: TypeScript types
generated from Grafana's CUE dashboard kind (`Dashboard` in dist/types/raw/dashboard/x/types.gen.d.ts; the package
ships no JSON Schema, nor does grafana-foundation-sdk on PyPI or npm). Each dashboard is written as an object
literal typed `Dashboard` and compiled by `tsc --strict --noEmit`: a missing required field, a value of the wrong
type and, through TypeScript's excess-property check on literals, any field the schema does not know, fail.

`.ci/run` installs both packages into .cache/grafana-schema (`npm install --prefix .cache/grafana-schema
@grafana/schema@13.2.3 typescript@5.9.3`); without them the test is skipped, and says so.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from krm_fn.domain import dashboards

ROOT = Path(__file__).resolve().parents[2]
MODULES = Path(os.environ.get("KAITO_SPECDEC_GRAFANA_SCHEMA", ROOT / ".cache" / "grafana-schema")) / "node_modules"
TYPES = "@grafana/schema/dist/esm/raw/dashboard/x/Dashboard_types.gen"
TSCONFIG = {"compilerOptions": {"strict": True, "noEmit": True, "module": "nodenext", "moduleResolution": "nodenext",
                                "target": "es2022", "skipLibCheck": True, "typeRoots": []},
            "files": ["check.ts"]}


def _tsc(tmp_path: Path, boards: dict[str, str]) -> subprocess.CompletedProcess[str]:
    tsc = MODULES / ".bin" / "tsc"
    if not tsc.exists() or not (MODULES / "@grafana" / "schema").is_dir():
        pytest.skip(f"@grafana/schema and typescript are not installed in {MODULES.parent} (.ci/run installs them)")
    (tmp_path / "node_modules").symlink_to(MODULES, target_is_directory=True)
    lines = [f'import type {{ Dashboard }} from "{TYPES}";']
    lines += [f"export const {name}: Dashboard = {text};" for name, text in boards.items()]
    (tmp_path / "check.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    return subprocess.run([str(tsc), "-p", str(tmp_path / "tsconfig.json")], capture_output=True, text=True,
                          cwd=tmp_path, check=False)


def test_the_dashboards_are_valid_against_grafanas_schema(tmp_path: Path) -> None:
    proc = _tsc(tmp_path, {"namespaced": dashboards.dashboard_json("team-a"),
                           "without_namespace": dashboards.dashboard_json("")})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _unknown_field(board: dict) -> None:
    board["panels"][0]["gridPos"]["width"] = 12          # no such field: w


def _incomplete_option(board: dict) -> None:
    board["templating"]["list"][2]["current"] = {}       # a VariableOption without text and value


def _required_missing(board: dict) -> None:
    del board["schemaVersion"]


@pytest.mark.parametrize(("spoil", "complaint"), [
    (_unknown_field, "'\"width\"' does not exist in type 'GridPos'"),
    (_incomplete_option, "missing the following properties from type 'VariableOption': text, value"),
    (_required_missing, "Property 'schemaVersion' is missing"),
])
def test_the_check_refuses_what_the_schema_does_not_allow(tmp_path: Path, spoil: Any, complaint: str) -> None:
    board = dashboards.dashboard("team-a")
    spoil(board)
    proc = _tsc(tmp_path, {"spoilt": json.dumps(board, indent=2)})
    assert proc.returncode != 0 and complaint in proc.stdout, proc.stdout
