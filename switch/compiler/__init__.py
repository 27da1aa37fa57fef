"""The embedded P4-16 compiler (v1model): source -> JSON IR (device config) + P4Info.

Public API (see docs/P4C.md):

* :func:`compile_file` / :func:`compile_source` -> :class:`CompiledProgram` with
  ``.device_config`` (a JSON-serialisable dict, consumed by
  :class:`switch.runtime.Pipeline`) and ``.p4info`` (``p4.config.v1.P4Info``).
* :class:`P4CompileError`: ``str(err)`` is ``file:line:col: message``.

Stages, one module each: :mod:`.preprocessor` (``#include``/``#define``/``#if``)
-> :mod:`.lexer` -> :mod:`.parser` (recursive descent, AST in :mod:`.ast`) ->
:mod:`.elaborate` (name resolution, type checking with widths, lowering to the IR)
-> :mod:`.p4info` (P4Runtime names and ids as p4c computes them).
"""
from __future__ import annotations

from .driver import CompiledProgram, compile_file, compile_source
from .errors import P4CompileError

__all__ = ["CompiledProgram", "P4CompileError", "compile_file", "compile_source"]
