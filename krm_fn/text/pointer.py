"""JSON Pointers (RFC 6901), built from path parts and parsed back, in one place."""

from collections.abc import Iterable


def build(parts: Iterable[str | int]) -> str:
    """`("metadata", "annotations", "a/b")` -> "/metadata/annotations/a~1b"; the empty path is ""."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def parse(pointer: str) -> list[str]:
    """The reference tokens of a pointer, unescaped; [] for "" (the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    # `~01` is "~1" as text, not "/": "~1" is replaced first (RFC 6901, section 4).
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
