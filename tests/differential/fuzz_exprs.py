"""Random expression/statement programs (:mod:`fuzz_gen_exprs`) on real p4c + BMv2 and on ours.

Each seed's program is judged by :mod:`fuzz_run` (compile side, P4Info, frames on both switches,
p4c's JSON on checkmate-switch); disagreements land in ``OUT/<seed>/``::

    python -m tests.differential.fuzz_exprs --seeds 0-500 --out /work/corpus/fuzz/fuzzx
    python -m tests.differential.fuzz_exprs --seeds 17 --print      # show one program
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_gen_exprs import make_case, make_template  # noqa: E402,F401  (make_template: fuzz_reduce)
from fuzz_run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(make_case, __doc__, "/tmp/fuzz-exprs"))
