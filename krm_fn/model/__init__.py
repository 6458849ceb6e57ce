"""The values the stages share, and the judgments more than one stage needs (docs/architecture.md)."""
