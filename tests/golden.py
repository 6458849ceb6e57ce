"""Golden fixtures: fixtures/<case>/ holds the input and the expected output, results and exit status.

- `input.yaml`: a whole ResourceList, used byte for byte as stdin; or `items.yaml`: a plain stream of
  documents, wrapped into a ResourceList (each document becomes one `- ` entry).
- `fnconfig.yaml` (optional): the functionConfig, appended to the ResourceList.
- `env.yaml` (optional): environment variables for the run.
- `expected.yaml`: the whole stdout; `results.yaml`: exit code, stderr lines and the results.
Set KAITO_SPECDEC_UPDATE_GOLDEN=1 to rewrite expected.yaml and results.yaml (then read every diff).
"""
from __future__ import annotations

import os
from pathlib import Path

import yaml

from krm_fn.text import yamlio

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
UPDATE = os.environ.get("KAITO_SPECDEC_UPDATE_GOLDEN") == "1"


def cases() -> list[str]:
    return sorted(p.name for p in ROOT.iterdir() if (p / "input.yaml").exists() or (p / "items.yaml").exists())


def _indent(text: str, first: str, rest: str) -> str:
    lines = text.splitlines(True)
    return first + lines[0] + "".join(rest + ln if ln.strip() else ln for ln in lines[1:])


def wrap(stream: str, fnconfig: str | None = None) -> str:
    """A ResourceList around a plain stream, each document's text kept as written."""
    docs = [d.strip("\n") + "\n" for d in ("\n" + stream).split("\n---\n") if d.strip()]
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    text += "".join(_indent(d, "- ", "  ") for d in docs)
    if fnconfig is not None:
        text += _indent(fnconfig.strip("\n") + "\n", "functionConfig:\n  ", "  ")
    return text


def case_input(case: str) -> str:
    d = ROOT / case
    fnconfig = (d / "fnconfig.yaml").read_text(encoding="utf-8") if (d / "fnconfig.yaml").exists() else None
    if (d / "input.yaml").exists():
        text = (d / "input.yaml").read_text(encoding="utf-8")
        if fnconfig is not None:
            text += _indent(fnconfig.strip("\n") + "\n", "functionConfig:\n  ", "  ")
        return text
    return wrap((d / "items.yaml").read_text(encoding="utf-8"), fnconfig)


def case_env(case: str) -> dict[str, str]:
    p = ROOT / case / "env.yaml"
    return yaml.safe_load(p.read_text(encoding="utf-8")) if p.exists() else {}


def status_doc(code: int, stdout: str, stderr: str) -> str:
    results = []
    if stdout.strip():
        # Read as the function reads (libyaml's rules for tabs): items may have tabs
        # that plain yaml.safe_load refuses (fixtures/tabs-as-separators).
        results = (yamlio.load(stdout) or {}).get("results") or []
    doc = {"exitCode": code, "stderr": stderr.splitlines(), "results": results}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1 << 16)


def without_results(stdout: str) -> str:
    """The ResourceList text without its `results:` block (it is always appended last at column 0)."""
    head, sep, _ = stdout.partition("\nresults:\n")
    return head + "\n" if sep else stdout
