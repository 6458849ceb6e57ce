"""kaito-specdec: KAITO speculative decoding at render time, as a KRM function."""
import gc
import sys

__version__ = "0.1.0"

# Started as the command (the console script, or `python -m krm_fn`): no cyclic garbage collection from
# here on, PyYAML's and this package's imports included. A run is one short process that builds many small
# objects and frees almost none (cli.main turns the collector off for the run; cli.run ends in os._exit):
# collecting during the imports walked the same young objects again and again, ~10 % of a one-Workspace
# start. Imported as a library (tests, `python -c`), nothing changes (tests/test_startup.py checks both).
_started_as = (getattr(sys, "argv", None) or [""])[0]  # an embedding interpreter may have no argv
if _started_as == "-m" or _started_as.replace("\\", "/").rpartition("/")[2].startswith("kaito-specdec"):
    gc.disable()
