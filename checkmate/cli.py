"""``checkmate``: the testbed front door (testbed, bench, cost, export).

Each sub-command lives in the component that owns it; this module only
dispatches, so that ``checkmate --help`` lists everything in one place.
"""
from __future__ import annotations

import argparse
import sys

from .notimpl import not_implemented

# sub-command -> (help, issue that brings it)
_PENDING = {
    "testbed": ("run the Mininet testbed end to end", "issue #9"),
    "bench": ("benchmarks against the baselines", "issue #10"),
    "cost": ("Young-Daly cost model", "issue #10"),
    "export": ("export shadow checkpoints to torch.save / DCP", "issue #7"),
    "faults": ("fault-injection suite", "issue #11"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="checkmate", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", metavar="COMMAND")
    for name, (text, issue) in _PENDING.items():
        sub.add_parser(name, help=f"{text} (not implemented yet: {issue})", add_help=False)
    if not argv:
        parser.print_help()
        return 2
    args, rest = parser.parse_known_args(argv)
    text, issue = _PENDING[args.cmd]
    return not_implemented(f"checkmate {args.cmd}", issue, rest)


if __name__ == "__main__":
    sys.exit(main())
