"""SHA-256 for the derived ConfigMaps' content hashes, without loading OpenSSL.

`hashlib` loads `_hashlib` (OpenSSL) and `_blake2` when imported: about 6 ms of a one-Workspace start that
needs one digest. CPython's own SHA-256 module gives the same digest for a tenth of that. Its name changed
in 3.12; where neither is built (a build that leaves its own hashes out), hashlib it is.
"""
from __future__ import annotations

try:
    from _sha2 import sha256  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # CPython 3.10, 3.11
    except ImportError:
        from hashlib import sha256

__all__ = ["sha256"]
