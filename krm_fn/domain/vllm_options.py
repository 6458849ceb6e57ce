"""The options of `vllm serve` in every vLLM release from 0.10.2 to 0.34.0, as each release's own parser has
them (tools/vllm_argv.py reads `ServeSubcommand().subparser_init(...)._actions`; tests/vllm_argv.json's
`facts`): those that take no value (argparse `nargs == 0`: store_true, BooleanOptionalAction) and the others,
for vllm_releases.takes_no_value (which also reads short options and abbreviations by them).

The table is data, krm_fn/domain/data/vllm_options.json, generated: `python tools/vllm_argv.py --data
tests/vllm_argv.json` rewrites it. It is read on first use (a plain workload's command), once a process.
"""

import functools
import json
import os

DATA = os.path.join(os.path.dirname(__file__), "data", "vllm_options.json")


class Options:
    """The table: the releases read, and the option strings that take no value and those that take one."""

    __slots__ = ("no_value", "releases", "value")

    def __init__(self, releases: tuple[str, ...], no_value: frozenset[str], value: frozenset[str]) -> None:
        self.releases = releases
        self.no_value = no_value
        self.value = value


@functools.cache
def options() -> Options:
    """The table, read from the package's data file on the first call."""
    with open(DATA, "rb") as f:
        data = json.loads(f.read())
    return Options(tuple(data["releases"]), frozenset(data["no_value"]), frozenset(data["value"]))
