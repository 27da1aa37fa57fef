"""Compiler driver: file -> preprocess -> tokens -> AST -> IR + P4Info."""
from __future__ import annotations

import os
from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from .errors import P4CompileError
from .lexer import tokenize
from .parser import parse, recursion_headroom
from .preprocessor import Preprocessor


@dataclass
class CompiledProgram:
    """Result of a compile: ``device_config`` (JSON IR dict) and ``p4info`` (P4Info)."""

    name: str
    device_config: dict
    p4info: p4info_pb2.P4Info


def _compile(lines, name: str, source: str) -> CompiledProgram:
    from .checks import check_program
    from .elaborate import elaborate
    from .p4info import build_p4info

    with recursion_headroom():  # nesting is bounded by parser.MAX_NESTING
        decls = parse(tokenize(lines))
        ir = elaborate(decls, name, source=source)
        check_program(decls)
        p4info = build_p4info(ir)
    return CompiledProgram(name, ir, p4info)


def compile_file(path, include_dirs=(), defines=None) -> CompiledProgram:
    """Compile a P4-16 v1model program; raises :class:`P4CompileError` (file:line:col)."""
    path = os.fspath(path)
    lines = Preprocessor(include_dirs, defines).run(path)
    name = os.path.splitext(os.path.basename(path))[0]
    return _compile(lines, name, path)


def compile_source(text: str, filename: str = "<string>.p4", include_dirs=(), defines=None) -> CompiledProgram:
    """Compile P4 source held in a string (``filename`` is used in error messages)."""
    lines = Preprocessor(include_dirs, defines).run_text(text, filename)
    name = os.path.splitext(os.path.basename(filename))[0].strip("<>") or "program"
    return _compile(lines, name, filename)


__all__ = ["CompiledProgram", "P4CompileError", "compile_file", "compile_source"]
