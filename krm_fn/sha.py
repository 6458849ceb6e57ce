"""SHA-256 for the derived ConfigMaps' content hashes, without loading OpenSSL.

`hashlib` loads `_hashlib` (OpenSSL) and `_blake2` when imported: about 6 ms of a one-Workspace start that
needs one digest. CPython's own SHA-256 module gives the same digest for a tenth of that. Its name changed
in 3.12; where it is not built (a build that leaves its own hashes out), hashlib it is.
"""
from __future__ import annotations

import sys

try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256
    else:
        from _sha256 import sha256
except ImportError:
    from hashlib import sha256

__all__ = ["sha256"]
