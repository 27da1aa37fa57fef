"""Name resolution, type checking and lowering of the AST to the JSON IR.

The IR (``device_config``) is plain JSON: types are lists (``["bit", 8]``,
``["int", 8]``, ``["bool"]``, ``["header", name]``, ``["struct", name]``,
``["stack", header, size]``, ``["error"]``, ``["enum", name]``), expressions are
dicts with an ``op`` and a type ``t``, statements are dicts with an ``s``.  Every
expression is fully typed here -- infinite-precision literals are given the width of
the operand they meet, widths must agree (``bit<8> + bit<16>`` is an error, as in
p4c), and a construct the target does not implement is an error at its position --
so :mod:`switch.runtime.codegen` never has to guess.  The IR layout is documented in
docs/P4C.md.

The rules live in one mixin per theme:

* :mod:`.elab_types` -- type syntax, constant folding, header/struct/enum declarations;
* :mod:`.elab_blocks` -- the program, V1Switch blocks, controls, functions;
* :mod:`.elab_actions` -- action declarations: parameters, control-plane names, twins;
* :mod:`.elab_parsers` -- parser states, `select` keysets, value sets;
* :mod:`.elab_tables` -- tables, keys, action lists, default actions, const entries;
* :mod:`.elab_statements` -- statements and method calls;
* :mod:`.elab_switch` -- `switch` statements (on `action_run` and on values);
* :mod:`.elab_packets` -- packet_in/packet_out calls (extract, lookahead, advance, emit);
* :mod:`.elab_externs` -- v1model extern functions and field lists;
* :mod:`.elab_load_refusals` -- programs p4c compiles and BMv2 refuses to load (``load_error``);
* :mod:`.elab_expressions` -- expressions, l-values, implicit conversions;
* :mod:`.elab_casts` -- casts, header fields declared ``bool``;
* :mod:`.elab_ctor` -- constructor arguments (constant and not), block parameters and their
  defaults, type-argument counts, top-level extern instances;
* :mod:`.elab_output` -- the final IR dict with P4Runtime ids;
* :mod:`.elab_order` -- every parser and control checked in declaration order, used or not;
* :mod:`.elab_common` -- IR type constants, naming, errors, scopes.
"""
from __future__ import annotations

from .ast import Node
from .elab_blocks import BlockRules
from .elab_actions import ActionRules
from .elab_common import IR_FORMAT, Scope, pyname
from .elab_ctor import CtorRules
from .elab_casts import CastRules
from .elab_expressions import ExpressionRules
from .elab_values import ValueRules
from .elab_externs import ExternRules
from .elab_digest import DigestRules
from .elab_log_msg import LogMsgRules
from .elab_load_refusals import LoadRefusalRules
from .elab_order import DeclOrderRules
from .elab_output import OutputRules
from .elab_packets import PacketRules
from .elab_parsers import ParserRules
from .elab_statements import StatementRules
from .const_index import ConstIndexRules
from .elab_calls import CallRules
from .elab_functions import FunctionRules, mark_calls_in_call_args
from .elab_tables import TableRules
from .elab_types import TypeRules
from .elab_unions import UnionRules
from .mk_stores import MatchKindStores
from .errors import P4Warning

__all__ = ["IR_FORMAT", "Elaborator", "elaborate", "pyname"]


class Elaborator(ConstIndexRules, TypeRules, BlockRules, ActionRules, ParserRules, CtorRules, TableRules, StatementRules, UnionRules, CallRules, FunctionRules,
                 PacketRules, ExternRules, DigestRules, LogMsgRules, LoadRefusalRules, ExpressionRules, ValueRules, CastRules, OutputRules, DeclOrderRules, MatchKindStores):
    """One elaboration of a parsed program (the rules are in the mixins above)."""

    def __init__(self, decls: list[Node], program: str, source: str | None = None,
                 warnings: list | None = None, macro_locs: dict | None = None):
        self.decls = decls
        mark_calls_in_call_args(decls)   # (instantiate_generic: a generic call inside a call's argument)
        self.macro_locs = macro_locs or {}   # macro name -> where its #define is (preprocessor)
        self.warnings: list[P4Warning] = warnings if warnings is not None else []
        self.auto_digests = 0   # digest_0, digest_1, ...: tuple digests (p4c's names)
        self.neg_literals: dict[int, tuple] = {}   # id(IR of -literal) -> (IR, literal's Loc)
        self.direct_meter_reads: list[tuple] = []  # (direct meter record, Loc, action or None)
        self.program = program
        self.source = source or program  # the main source file, for program-wide errors
        self.typedefs: dict[str, object] = {}
        self.typedef_nodes: dict[str, Node] = {}   # typedef / type declarations by name
        self.newtypes: dict[str, dict] = {}        # `type` declarations: name -> {"t", "annos"}
        self.field_newtypes: dict[tuple, str] = {}  # (header/struct, field) -> `type` name
        self.field_names: dict[tuple, str] = {}  # (header/struct, field) -> its @name (key names)
        self.field_enums: dict[tuple, str] = {}     # (header/struct, field) -> serializable enum
        self.header_views: dict[tuple, str] = {}    # (header, field) -> struct laid out in the header
        self.headers: dict[str, dict] = {}   # name -> {"fields": [[n, w, signed]], "bytes": n}
        self.structs: dict[str, dict] = {}   # name -> {"fields": [[n, type]]}
        self.generic_structs: dict[str, Node] = {}  # struct S<T> / header H<T> declarations
        self.specialized: dict[tuple, str] = {}     # (name, type arguments) -> S_0, S_1 ...
        self.enums: dict[str, dict] = {}
        self.errors: list[str] = []
        self.match_kinds: set[str] = set()
        self.externs: dict[str, Node] = {}
        self.global_scope = Scope()
        self.actions: dict[str, dict] = {}
        self.action_nodes: dict[str, Node] = {}
        self.tables: dict[str, dict] = {}
        self.objects: dict[str, list] = {k: [] for k in ("counters", "registers", "meters",
                                                        "direct_counters", "direct_meters",
                                                        "action_profiles")}
        self.digests: dict[str, dict] = {}
        self.functions: dict[str, dict] = {}
        self.controller_headers: dict[str, dict] = {}
        self.tmp = 0
        self.fl_fields: dict[int, list] = {}
        self.block_types: dict[str, str] = {}  # parser/control type declarations -> kind

    def warn(self, loc, message: str) -> None:
        """A construct p4c accepts with a warning (``CompiledProgram.warnings``)."""
        self.warnings.append(P4Warning(loc, message))


def elaborate(decls: list[Node], program: str, source: str | None = None, warnings: list | None = None,
              macro_locs: dict | None = None) -> dict:
    return Elaborator(decls, program, source, warnings, macro_locs).run()
