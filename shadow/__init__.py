"""shadow component of the Checkmate testbed (see docs/ARCHITECTURE.md)."""
