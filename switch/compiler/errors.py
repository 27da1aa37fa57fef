"""Compile errors that point at the source: ``file:line:col: message``."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOLOC = Loc("<builtin>", 0, 0)


class P4CompileError(Exception):
    """A P4 program that does not compile; ``str()`` is ``file:line:col: message``."""

    def __init__(self, loc: Loc | None, message: str):
        self.loc = loc or NOLOC
        self.message = message
        super().__init__(f"{self.loc}: {message}")
