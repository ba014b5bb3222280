"""intutic_clawde: the Python side of intutic chaos. `intutic_clawde.gate` is the in-process gate."""
__version__ = "0.1.0"
