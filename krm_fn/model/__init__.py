"""The values the stages share: the read-only index of the items, the settings, the plan folded from the
stages' steps, the decisions, and the judgments more than one stage needs (the release facts of `rollout`,
`multinode`'s warnings, `report`'s quoting of an item and a value).
"""
