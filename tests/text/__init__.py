"""Tests of the text layer (krm_fn/text/): reading, editing and writing YAML text."""
