"""Compiler driver: file -> preprocess -> tokens -> AST -> IR + P4Info."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2

from .errors import P4CompileError, P4Warning
from .lexer import tokenize
from .parser import parse, recursion_headroom
from .preprocessor import Preprocessor


@dataclass
class CompiledProgram:
    """Result of a compile: ``device_config`` (JSON IR dict), ``p4info`` (P4Info) and the
    ``warnings`` p4c would also print (in source order)."""

    name: str
    device_config: dict
    p4info: p4info_pb2.P4Info
    warnings: list[P4Warning] = field(default_factory=list)


def _compile(lines, name: str, source: str, pp: Preprocessor | None = None) -> CompiledProgram:
    from .checks import check_duplicates, check_program
    from .checks_decls import check_field_types
    from .dontcare_alias import check_dontcare_alias
    from .elaborate import elaborate
    from .inlined_lists import check_inlined_constant_lists
    from .p4info import build_p4info

    warnings: list[P4Warning] = []
    with recursion_headroom():  # nesting is bounded by parser.MAX_NESTING
        decls = parse(tokenize(lines, warnings))
        check_field_types(decls)
        check_duplicates(decls)
        macro_locs = {"V1MODEL_VERSION": pp.macro_loc("V1MODEL_VERSION")} if pp is not None else {}
        ir = elaborate(decls, name, source=source, warnings=warnings, macro_locs=macro_locs)
        check_program(decls)
        check_dontcare_alias(decls)
        check_inlined_constant_lists(decls)
        p4info = build_p4info(ir)
    order = {w: i for i, w in enumerate(warnings)}
    warnings = sorted(dict.fromkeys(warnings), key=lambda w: (w.loc.file != source, w.loc.line, w.loc.col, order[w]))
    return CompiledProgram(name, ir, p4info, warnings)


def compile_file(path, include_dirs=(), defines=None) -> CompiledProgram:
    """Compile a P4-16 v1model program; raises :class:`P4CompileError` (file:line:col)."""
    path = os.fspath(path)
    pp = Preprocessor(include_dirs, defines)
    lines = pp.run(path)
    name = os.path.splitext(os.path.basename(path))[0]
    return _compile(lines, name, path, pp)


def compile_source(text: str, filename: str = "<string>.p4", include_dirs=(), defines=None) -> CompiledProgram:
    """Compile P4 source held in a string (``filename`` is used in error messages)."""
    pp = Preprocessor(include_dirs, defines)
    lines = pp.run_text(text, filename)
    name = os.path.splitext(os.path.basename(filename))[0].strip("<>") or "program"
    return _compile(lines, name, filename, pp)


__all__ = ["CompiledProgram", "P4CompileError", "compile_file", "compile_source"]
