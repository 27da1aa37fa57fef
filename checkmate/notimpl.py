"""Honest placeholders for console scripts whose component has not landed yet."""
from __future__ import annotations

import sys


def not_implemented(prog: str, issue: str, argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(f"usage: {prog} ...\n\n{prog} is not implemented yet (tracked in {issue}).")
        return 0
    print(f"{prog}: not implemented yet (tracked in {issue}); nothing was done.", file=sys.stderr)
    return 2
