"""The YAML backends this machine has: libyaml's C loader (when PyYAML was built with it) and pure PyYAML."""
from __future__ import annotations

from krm_fn.text import yamlio

BACKENDS = ["c", "pure"] if yamlio.C_AVAILABLE else ["pure"]
