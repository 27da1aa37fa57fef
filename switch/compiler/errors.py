"""Compile errors and warnings that point at the source: ``file:line:col: message``.

An error stops the compile (:class:`P4CompileError`); a warning (:class:`P4Warning`) is a
construct p4c accepts but flags -- e.g. an over-wide literal ``8w300``, kept as its low
bits -- and is collected on the compile result (``CompiledProgram.warnings``); the CLI
prints each to stderr as ``file:line:col: warning: message``."""
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


@dataclass(frozen=True)
class P4Warning:
    """A construct that compiles but that p4c warns about."""

    loc: Loc
    message: str

    def __str__(self) -> str:
        return f"{self.loc}: warning: {self.message}"
