"""Where things live: the repository root and the p4lang/tutorials-style output folders."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("CHECKMATE_ROOT", Path(__file__).resolve().parent.parent))
P4SRC = ROOT / "p4src"
#: ``make build``'s output folder (``$CHECKMATE_BUILD`` overrides it, e.g. for a test's own build)
BUILD = Path(os.environ.get("CHECKMATE_BUILD", ROOT / "build"))
LOGS = ROOT / "logs"
PCAPS = ROOT / "pcaps"
RESULTS = ROOT / "results"
