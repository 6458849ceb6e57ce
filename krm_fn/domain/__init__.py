"""What KAITO, vLLM and the orchestrators do, as data and pure functions: no item, index or plan here
(docs/architecture.md names each module's part)."""
