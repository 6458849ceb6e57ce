"""The pure stages, in the order krm_fn/plan.py runs them. Each takes the read-only index, the settings and the
plan so far, and returns its Step (JSON Patch ops, items added or removed, results); none imports another.
"""
