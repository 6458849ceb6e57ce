"""kaito-specdec: KAITO speculative decoding at render time, as a KRM function."""

__version__ = "0.1.0"
