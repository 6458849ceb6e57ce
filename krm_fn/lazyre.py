"""Regular expressions compiled on first use, for module-level patterns most runs never use.

Compiling one costs 0.1-0.5 ms; a one-Workspace run used to compile fifteen it never used (the unusual
line breaks, aliases, generated names, `disable` ids, …) before reading a byte. `compile(pattern, flags)`
returns a stand-in that compiles the first time one of its methods is asked for and from then on holds the
compiled pattern's own bound methods as plain attributes, so a later call costs what a call on an
`re.Pattern` costs. A pattern that does not compile fails at first use: tests/test_startup.py compiles every
one in the package.
"""
from __future__ import annotations

import re
from .hints import Any

# What the package calls on a pattern; anything else is looked up on the compiled pattern each time.
_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer")


class LazyPattern:
    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def compiled(self) -> re.Pattern:
        return re.compile(self.pattern, self._flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and friends probing a half-built instance
            raise AttributeError(name)
        compiled = self.compiled()
        for method in _METHODS:
            self.__dict__[method] = getattr(compiled, method)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazyre.compile({self.pattern!r})"


def compile(pattern: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags)


__all__ = ["LazyPattern", "compile"]
