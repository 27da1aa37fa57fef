"""Random parser / deparser programs (:mod:`fuzz_parsers_gen`) on real p4c + BMv2 and on ours.

Each seed's program is judged by :mod:`fuzz_run` (compile side, P4Info, frames on both switches,
p4c's JSON on checkmate-switch); disagreements land in ``OUT/<seed>/``::

    python -m tests.differential.fuzz_parsers --seeds 0-500 --out /work/corpus/fuzz/fuzzp
    python -m tests.differential.fuzz_parsers --seeds 12 --print     # show one program and its frames

(from the repository root, ``PATH`` with p4c and simple_switch_grpc).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_parsers_gen import generate  # noqa: E402
from fuzz_run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(generate, __doc__, "/tmp/fuzz-parsers"))
