"""``checkmate``: the testbed front door (testbed, bench, cost, export, faults).

Each sub-command lives in the component that owns it and exposes ``main(argv) -> int``;
this module only dispatches, so that ``checkmate --help`` lists everything in one place.
A sub-command whose module has not landed yet says so and exits non-zero.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .notimpl import not_implemented

# sub-command -> (module holding main(argv), help, issue that brings it)
COMMANDS = {
    "testbed": ("topologies.runner", "run the Mininet testbed end to end", "issue #9"),
    "bench": ("benchmarks.suite", "benchmarks against the baselines", "issue #10"),
    "cost": ("benchmarks.cost", "Young-Daly cost model", "issue #10"),
    "export": ("shadow.export", "export shadow checkpoints to torch.save / DCP", "issue #7"),
    "faults": ("topologies.faults", "fault-injection suite", "issue #11"),
}


def _load(module: str):
    try:
        return importlib.import_module(module).main
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            return None
        raise
    except AttributeError:
        return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="checkmate", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", metavar="COMMAND")
    for name, (_, text, _) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        parser.error(f"unknown command {argv[0]!r}")
    module, _, issue = COMMANDS[argv[0]]
    entry = _load(module)
    if entry is None:
        return not_implemented(f"checkmate {argv[0]}", issue, argv[1:])
    return int(entry(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
