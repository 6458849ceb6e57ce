"""kaito-specdec: KAITO speculative decoding at render time, as a KRM function."""
import gc
import sys

__version__ = "0.1.0"

# Started as the command (the console script, or `python -m krm_fn`): no cyclic garbage collection from
# here on, PyYAML's and this package's imports included. A run is one short process that builds many small
# objects and frees almost none (cli.main turns the collector off for the run; cli.run ends in os._exit):
# collecting during the imports walked the same young objects again and again, ~10 % of a one-Workspace
# start (README, Performance). Imported as a library (tests, `python -c`), nothing changes.
if sys.argv and (sys.argv[0] == "-m" or sys.argv[0].replace("\\", "/").rpartition("/")[2].startswith("kaito-specdec")):
    gc.disable()
