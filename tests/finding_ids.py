"""The finding ids a module of krm_fn names at its call sites (`finding("SD101", …)`, `"SD021.vllmVersion"`)."""
from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

# A call names its id as the first argument of finding(); id="SD…" is the form before the catalogue.
CALLED = re.compile(r'(?:\bfinding\(\s*|\bid=)"(SD[0-9]{3})(?:\.[A-Za-z0-9_-]+)?"')


def ids_used(module: ModuleType | Path) -> list[str]:
    """The ids in the order the module's source names them (repeats kept)."""
    path = module if isinstance(module, Path) else Path(module.__file__ or "")
    return CALLED.findall(path.read_text(encoding="utf-8"))
